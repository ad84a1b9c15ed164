"""A seed's trip, counted from the code as it runs: a study page (``control``, quick profile, one
epoch, one seed, in-process, in a temporary store) is called as a notebook calls it, from its
parameters cell (``pages.page.from_cell``), and every anchorkit function that receives the seed
as an argument (an int, or inside a list, a mapping, a ``Request``, a ``RunConfig``, a ``Pair``)
is recorded until ``core.train.train`` is called; then the call stack at that moment.

A module that received the seed either carries it on towards training (one of its calls returned
a value holding the seed, built one, or was on the call stack when training started) or read it
on the side (every call answered something else: whether a run is finished, a progress bar's
label, whether a folder's tables are written).

Printed: the modules that received the seed, in the order of their first call, with their calls;
those that carry it on and those that read it on the side; the module-to-module steps; and the
modules on the call stack when training starts.

usage: python -m scripts.seed_trip
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SEED = 731977  # a seed no other argument equals by chance
CO_VARARGS = 0x04  # the code flag of a function taking *args


def carries(value, depth: int = 0) -> bool:
    """Whether ``value`` holds the seed (searched four containers deep)."""
    if depth > 4 or isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value == SEED
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(carries(v, depth + 1) for v in list(value)[:50])
    if isinstance(value, dict):
        return any(carries(v, depth + 1) for v in list(value.values())[:50])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(carries(getattr(value, f.name, None), depth + 1)
                   for f in dataclasses.fields(value))
    return False


def arguments(frame) -> list:
    code = frame.f_code
    n = code.co_argcount + code.co_kwonlyargcount
    out = [frame.f_locals.get(name) for name in code.co_varnames[:n]]
    if code.co_flags & CO_VARARGS:
        out += list(frame.f_locals.get(code.co_varnames[n], ()))
    return out


@dataclass
class Trip:
    """``calls``: calls per module that received the seed, in order of first call; ``onward``:
    those of them that carry it on towards training; ``steps``: the module-to-module steps;
    ``stack``: the anchorkit modules on the call stack when ``core.train.train`` is called."""

    calls: dict[str, int]
    onward: set[str]
    steps: list[str]
    stack: list[str]

    @property
    def path(self) -> list[str]:
        """The modules that carry the seed on, in order of first call."""
        return [m for m in self.calls if m in self.onward or m in self.stack]

    @property
    def side(self) -> list[str]:
        """The modules that read the seed on the side only."""
        return [m for m in self.calls if m not in self.path]


def trip() -> Trip:
    """The seed's trip from the control page's parameters cell to training."""
    from anchorkit.pages import page

    calls: dict[str, int] = {}
    steps: list[str] = []
    stack: list[str] = []
    onward: set[str] = set()
    open_calls: dict[int, str] = {}  # a frame that received the seed → its module

    def watch(frame, event, arg):
        if stack:
            return
        if event == "return" and id(frame) in open_calls:
            name = open_calls.pop(id(frame))
            built = frame.f_locals.get("self") if frame.f_code.co_name == "__init__" else arg
            if carries(built):
                onward.add(name)
            return
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("anchorkit.") or not any(map(carries, arguments(frame))):
            return
        name = module.removeprefix("anchorkit.")
        open_calls[id(frame)] = name
        calls[name] = calls.get(name, 0) + 1
        if not steps or steps[-1] != name:
            steps.append(name)
        if name == "core.train" and frame.f_code.co_name == "train":
            f = frame
            while f is not None:
                m = f.f_globals.get("__name__", "")
                if m.startswith("anchorkit.") and m.removeprefix("anchorkit.") not in stack[-1:]:
                    stack.append(m.removeprefix("anchorkit."))
                f = f.f_back
            stack.reverse()

    quiet = {name: getattr(page, name) for name in ("glue", "display")}
    for name in quiet:
        setattr(page, name, lambda *a, **k: None)  # no notebook here
    with tempfile.TemporaryDirectory(prefix="seed-trip-") as tmp:
        cell = dict(seeds=[SEED], profile="quick", epochs=1, reports_dir=Path(tmp) / "reports",
                    store_dir=Path(tmp) / "store", progress=False, scheduler="in-process")
        sys.setprofile(watch)
        try:
            page.study_page("control", page.from_cell(cell))
        finally:
            sys.setprofile(None)
            for name, fn in quiet.items():
                setattr(page, name, fn)
    return Trip(calls, onward, steps, stack)


def main() -> int:
    t = trip()
    print(f"{len(t.calls)} modules received the seed before training (calls):")
    print("  " + ", ".join(f"{m} ({n})" for m, n in t.calls.items()))
    print(f"{len(t.path)} carry it on towards training: " + ", ".join(t.path))
    print(f"{len(t.side)} read it on the side only: " + ", ".join(t.side))
    print(f"{len(t.steps) - 1} steps: " + " -> ".join(t.steps))
    print(f"on the call stack when training starts ({len(t.stack)}): " + " -> ".join(t.stack))
    return 0


if __name__ == "__main__":
    sys.exit(main())
