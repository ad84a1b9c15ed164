"""What a reader asks of a study, as one value: the seeds, profile and epochs of its runs, where
they train, the run store, where its tables go, how its work is executed, the regimes its page
shows and the doses its edit is measured at. ``request`` builds it from a page's parameters (or a
script's), checking each once, here: below it every module reads the checked value. A page
reads its parameters cell by name into one (``pages.page.from_cell``), so that every page's
call is the same line but for the study it names.

The parameters are listed on the Reproducibility page, *Re-running a study*
(``notebooks/reproducibility.ipynb``).
"""

from __future__ import annotations

import ast
import inspect
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

from anchorkit.core.config import (ParameterError, check_device, check_doses, check_flag,
                                   check_int, check_lengths, check_seeds)
from anchorkit.core.edit import DOSES
from anchorkit.core.paths import check_writable
from anchorkit.core.store import RunStore
from anchorkit.engine.executor import check_scheduler
from anchorkit.engine.profiles import PAPER, Profile, profile as resolve_profile
from anchorkit.engine.regimes import Regime, regime as resolve_regime


@dataclass(frozen=True, eq=False)
class Request:
    """A checked request (build it with ``request``). ``reports_dir`` is where the tables go (None:
    nowhere, the tables are returned only); a page sets it to its tables' home (``at``).
    ``regimes``: the regimes a page shows (None: the report's whose tables are written)."""

    seeds: list[int]
    store: RunStore
    profile: Profile = PAPER
    epochs: int | None = None
    device: str = "cpu"
    reports_dir: str | Path | None = None  # as given (``page.tables_home`` resolves it)
    reuse: bool = True
    progress: bool = True
    scheduler: str | None = None
    regimes: tuple[Regime, ...] | None = None
    publish: bool = False
    force: bool = False
    doses: tuple[float, ...] = DOSES
    lengths: tuple[int, ...] | None = None  # the scout's training lengths (None: its own)

    def at(self, folder) -> Request:
        """The same request with its tables in ``folder``."""
        return replace(self, reports_dir=folder)


def request(seeds, profile="paper", epochs=None, device="cpu", reports_dir=None, store_dir=None,
            reuse=True, progress=True, scheduler=None, regimes=None, publish=False, force=False,
            doses=None, lengths=None) -> Request:
    """A ``Request`` from a page's parameters, each checked here (a bad one is a
    ``ParameterError`` naming it, before any work starts): ``profile`` and ``regimes`` by name
    (or as values), ``store_dir`` a folder this process can write (or a ``RunStore``), ``doses``
    None for the method's; the yes/no parameters as papermill passes them. Doses other than the
    method's cannot be published (the committed tables are measured at the method's);
    ``lengths``, the training lengths a survey measures at (the scout's; None for its own)."""
    seeds = check_seeds(seeds)
    flags = {name: check_flag(name, value) for name, value in dict(
        reuse=reuse, progress=progress, publish=publish, force=force).items()}
    check_folder("reports_dir", reports_dir)
    store = (store_dir if isinstance(store_dir, RunStore)
             else RunStore(check_folder("store_dir", store_dir)))
    check_writable("store_dir", store.root)
    profile = resolve_profile(profile)
    if epochs is not None:
        check_int("epochs", epochs, 1)
    regimes = check_regimes(regimes)
    check_device(device)
    check_scheduler(scheduler)
    doses = DOSES if doses is None else check_doses(doses)
    if flags["publish"] and doses != DOSES:
        raise ParameterError("doses", list(doses), "the committed tables are measured at the "
                             f"method's doses ({', '.join(f'{d:g}' for d in DOSES)}); leave "
                             "publish out, and the tables at these doses go to the scratch folder")
    lengths = None if lengths is None else tuple(check_lengths(lengths))
    return Request(seeds, store, profile, epochs, device, reports_dir, scheduler=scheduler,
                   regimes=regimes, doses=doses, lengths=lengths, **flags)


UNSET = {"epochs": None, "device": "cpu", "regimes": None, "doses": DOSES,
         "lengths": None}  # as ``request`` sets them


def refuse_unused(req: Request, page: str, names) -> None:
    """A ``ParameterError`` naming the first of ``names`` that the request sets away from its
    default (``UNSET``): a page that does not use a parameter says so instead of ignoring it."""
    for name in names:
        value = getattr(req, name)
        if value != UNSET[name]:
            shown = [getattr(v, "name", v) for v in value] if isinstance(value, tuple) else value
            raise ParameterError(name, shown, f"the {page} page does not use it; leave it out")


def check_folder(name: str, value):
    """A folder parameter as given: None, or a path (``str`` or path-like); else a
    ``ParameterError`` naming it (``-p store_dir 5`` on papermill's command line passes 5)."""
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise ParameterError(name, value, "expected a folder's path (or None)")
    return value


def check_injected(namespace: Mapping) -> None:
    """Papermill's injected parameters (the cell it writes, opening ``# Parameters``), checked
    against the names the page's cells executed before it set (its parameters cell): one that no
    earlier cell sets, a misspelt ``-p sedes 2``, is a ``ParameterError`` naming it, instead of a
    page that silently runs its defaults. ``namespace``: the notebook's, whose ``In`` lists the
    sources of the cells executed so far (IPython's history)."""
    history = list(namespace.get("In", []))
    injected = [src for src in history if src.lstrip().startswith("# Parameters")]
    known = _assigned(src for src in history if src not in injected)
    unknown = sorted(_assigned(injected) - known)
    if unknown:
        raise ParameterError(unknown[0], namespace.get(unknown[0]), "not a parameter of this "
                             "page (misspelt?); it reads "
                             f"{', '.join(sorted(known & set(PARAMETERS)))}, and any other name "
                             "its parameters cell sets")


def _assigned(sources) -> set[str]:
    """The names a cell's top-level assignments bind."""
    names = set()
    for src in sources:
        try:
            tree = ast.parse(src)
        except SyntaxError:  # IPython magics: not a parameters cell
            continue
        names |= {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                  for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(t, ast.Name)}
    return names


def check_regimes(regimes) -> tuple[Regime, ...] | None:
    """Regimes named for a page to show, as values (None stays None); a ``ParameterError`` naming
    ``regimes`` for anything but a non-empty list of known names."""
    if regimes is None:
        return None
    iterable = hasattr(regimes, "__iter__") and not isinstance(regimes, (str, Regime))
    named = list(regimes) if iterable else []
    if not named:
        raise ParameterError("regimes", regimes, "expected a list of regime names, or None")
    return tuple(dict.fromkeys(resolve_regime(r) for r in named))


PARAMETERS = tuple(inspect.signature(request).parameters)  # what a page's parameters cell may set


def check_seeds_of(seeds, allowed, whose: str) -> list[int]:
    """Seeds (``check_seeds``) that are all among a fixed set's ``allowed`` (a command that runs
    one set, named ``whose``: its confirmation, its paper set): the strays named, ``--seeds``."""
    seeds = check_seeds(seeds)
    unknown = [s for s in seeds if s not in allowed]
    if unknown:
        raise ParameterError("--seeds", unknown, f"{whose} seeds are {min(allowed)}–{max(allowed)}")
    return seeds
