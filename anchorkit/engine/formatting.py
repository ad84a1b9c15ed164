"""How numbers, counts and tables read on a page: ``median (range min to max)`` summaries, no
negative zero, counts with their denominators, seeds, captioned and per-seed tables, and the
mark on a figure glued into the prose. Nothing here knows a result."""

from __future__ import annotations

import re
from typing import Mapping

import numpy as np
import pandas as pd


def summary(values, fmt: str = ".2f") -> str:
    """``median (range min to max)`` over seeds, as the book quotes every summary: the word says
    that the parentheses hold the values' range, not an interval (which reads ``95% interval``)."""
    v = pd.Series(values, dtype=float).dropna()
    if v.empty:
        return "n/a"
    return f"{number(v.median(), fmt)} (range {number(v.min(), fmt)} to {number(v.max(), fmt)})"


def number(x: float, fmt: str = ".2f") -> str:
    """``x`` formatted, never as a negative zero (−0.000 reads as a sign that is not there)."""
    return unsigned_zero(f"{x:{fmt}}")


def unsigned_zero(text: str) -> str:
    """``-0.000`` → ``0.000``: a formatted number that rounds to zero carries no sign."""
    return text[1:] if text.startswith("-") and not text.strip("-0.%e+") else text


def and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: per-seed values read as a list, not as a ratio."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def count(flags) -> str:
    """``k of n`` for a boolean column."""
    f = pd.Series(flags).astype(bool)
    return f"{int(f.sum())} of {len(f)}"


def count_moved(moved, anchored_has, control_has) -> str:
    """Whether falloff's spike moved, counted over the seeds where it is defined (both runs have a
    spike), with the other seeds split by their denominators: a spike in one run only, in neither.
    ``moved on k of n seeds where both runs have a spike (m with a spike in one run only, j in
    neither)``."""
    a = pd.Series(anchored_has, dtype=bool).to_numpy()
    c = pd.Series(control_has, dtype=bool).to_numpy()
    m = pd.Series(moved, dtype="boolean")
    both, one, neither = int((a & c).sum()), int((a ^ c).sum()), int((~a & ~c).sum())
    k = int(m[a & c].fillna(False).sum())
    rest = f"{one} with a spike in one run only, {neither} in neither"
    if both == 0:
        return f"cannot be compared: no seed where both runs have one ({rest})"
    return f"moved on {k} of the {both} seeds where both runs have a spike ({rest})"


def paired(a, b) -> str:
    """Seed by seed, how often ``a`` is above and below ``b``: ``higher in k, lower in j of n seeds``."""
    with np.errstate(invalid="ignore"):  # undefined values (e.g. no span) are left out
        d = np.asarray(a, float) - np.asarray(b, float)
    d = d[np.isfinite(d)]
    return f"higher in {int((d > 0).sum())}, lower in {int((d < 0).sum())} of {len(d)} seeds"


def seed_text(seeds) -> str:
    """Seeds as a reader takes them in: ``704–711`` for a run of three or more, else a list."""
    seeds = list(seeds)
    if not seeds:
        return "none"
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def glued(text):
    """Text to glue into a page's prose, marked (``<span class="glued">``) so that a reader or a
    test can tell numbers computed by the notebook from numbers typed into the prose."""
    from IPython.display import Markdown  # IPython only where a page glues

    return Markdown(f'<span class="glued">{text}</span>')


def captioned(df: pd.DataFrame, headers: Mapping[str, str], caption: str, fmt: str = "{:.3f}"):
    """``df[headers]`` renamed to the headers (which carry ↑/↓ where a direction is better),
    numbers formatted, with a caption, as a pandas Styler."""
    out = df[list(headers)].rename(columns=dict(headers))
    numeric = [h for c, h in headers.items() if pd.api.types.is_float_dtype(df[c])]
    flags = [h for c, h in headers.items() if pd.api.types.is_bool_dtype(df[c])]
    other = [h for h in out.columns if h not in numeric and h not in flags]
    return (out.style.hide(axis="index")
            .format(lambda v: unsigned_zero(fmt.format(v)), subset=numeric, na_rep="–")
            .format(lambda v: "yes" if v else "no", subset=flags, na_rep="–")
            .format(subset=other, na_rep="–").set_caption(caption))


def by_seed(df: pd.DataFrame, headers: Mapping[str, str], caption: str, fmt: str = "{:.3f}"):
    """A per-seed table turned on its side, so that a table of many measures fits the page: one
    row per measure (``headers`` maps its column to its label), one column per seed; numbers in
    ``fmt``, flags as yes/no, undefined values as "–". A pandas Styler with the caption."""
    def cell(v):
        if v is None or (not isinstance(v, str) and pd.isna(v)):
            return "–"
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (float, np.floating)):
            return unsigned_zero(fmt.format(v))
        return str(v)

    rows = {label: [cell(v) for v in df[col]] for col, label in headers.items() if col != "seed"}
    out = pd.DataFrame.from_dict(rows, orient="index", columns=[str(s) for s in df["seed"]])
    out.columns.name = "seed"
    return out.style.set_caption(caption)


def cpu_name(machine: str) -> str:
    """A CPU as a table cell reads it: ``Intel(R) Xeon(R) Processor, x86_64`` → ``Intel Xeon``."""
    name = re.sub(r"\((R|TM)\)", "", machine.removesuffix(", x86_64"), flags=re.I)
    return " ".join(name.replace(" Processor", " ").split())


def plain_text(myst: str) -> str:
    """MyST prose for a page that places it as plain text (``{glue:text}``): every role kept as
    its words (``{doc}`the scout <optimizer-scout>``` → "the scout"), emphasis marks dropped."""
    def words(m):  # a link without words of its own is named by its page: "the Methods page"
        if m.group(2) is not None or m.group(1) != "doc":
            return m.group(3).strip()
        return f"the {m.group(3).rsplit('/', 1)[-1].replace('-', ' ').capitalize()} page"

    text = re.sub(r"\{([\w:-]+)\}`(?=([^`<]*<)?)([^`<]*?)\s*(?:<[^>]*>)?`", words, myst)
    return text.replace("**", "").replace("*", "")
