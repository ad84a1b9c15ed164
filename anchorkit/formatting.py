"""How numbers read on a page: ``median (min to max)`` summaries, and no negative zero."""

from __future__ import annotations

import pandas as pd


def summary(values, fmt: str = ".2f") -> str:
    """``median (min to max)`` over seeds, as the book quotes every summary."""
    v = pd.Series(values, dtype=float).dropna()
    if v.empty:
        return "n/a"
    return f"{number(v.median(), fmt)} ({number(v.min(), fmt)} to {number(v.max(), fmt)})"


def number(x: float, fmt: str = ".2f") -> str:
    """``x`` formatted, never as a negative zero (−0.000 reads as a sign that is not there)."""
    return unsigned_zero(f"{x:{fmt}}")


def unsigned_zero(text: str) -> str:
    """``-0.000`` → ``0.000``: a formatted number that rounds to zero carries no sign."""
    return text[1:] if text.startswith("-") and not text.strip("-0.%e+") else text


def and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: per-seed values read as a list, not as a ratio."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
