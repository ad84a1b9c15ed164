"""The registry of the studies: a study is a folder, ``anchorkit/studies/<name>/``, whose
``STUDY`` is its value; its notebook is ``notebooks/<page>.ipynb`` and its page a line of
``_toc.yml``. ``discover`` finds every folder of that package by name, at run time, so that
nothing below the pages names a folder and a new study is a new folder.

Most studies are paired runs (``Study``: its runs, whether they are swept, the tables its page
derives); the essay, the scout and the diagnosis are ``Survey`` values, whose work is a graph of
their own (``essay.measuring``, ``scout.running``, ``diagnosis.running``, each on the executor).
``EVERY`` holds every study, by name, in the studies' places (the book's pages are executed in
that order); ``STUDIES`` the studies of paired runs among them, which ``study(name)`` looks up
(the entry points do, once, with the regime and the profile, and pass the values down). Running
one is ``anchorkit.engine.protocol``.
"""

from __future__ import annotations

import importlib
import pkgutil

from anchorkit.core.config import RunConfig, check_choice, check_seeds
from anchorkit.engine.pairs import Pair
from anchorkit.engine.profiles import profile as resolve_profile
from anchorkit.engine.regimes import DEFAULT, regime as resolve_regime
from anchorkit.engine.study import PAPER_SEEDS, Study, Survey, run_config, runs_of

__all__ = ["EVERY", "FOLDERS", "PAPER_SEEDS", "ROTATED_BASIS", "STUDIES", "Study", "Survey",
           "discover", "findings", "run_config", "runs_of", "study", "study_pairs", "study_runs"]


PACKAGE = "anchorkit.studies"  # the folders' package, found by name: the engine imports no study
FOLDERS: dict[str, str] = {}  # each study's folder (the subpackage's module name), by study name


def discover() -> dict[str, Study | Survey]:
    """Every study of the studies' folders (each a subpackage of ``PACKAGE`` whose ``STUDY`` is
    its value), by name, in order of their places; two folders naming one study are refused."""
    found: dict[str, Study | Survey] = {}
    for m in pkgutil.iter_modules(importlib.import_module(PACKAGE).__path__):
        if not m.ispkg:
            continue
        s = importlib.import_module(f"{PACKAGE}.{m.name}").STUDY
        if s.name in found:
            raise ValueError(f"study {s.name!r} is defined by two folders ({m.name})")
        found[s.name] = s
        FOLDERS[s.name] = f"{PACKAGE}.{m.name}"
    return dict(sorted(found.items(), key=lambda kv: (kv[1].place, kv[0])))


EVERY: dict[str, Study | Survey] = discover()
STUDIES: dict[str, Study] = {n: s for n, s in EVERY.items() if isinstance(s, Study)}
# the report's study: falloff against control under both optimizers (the diagnosis reads its runs)
ROTATED_BASIS = STUDIES["rotated-basis"]


def study(name, surveys: bool = False) -> Study | Survey:
    """The study of paired runs of this name, or with ``surveys`` any study of the registry (a
    value is returned as it is); an unknown name is a ``ParameterError`` naming the parameter."""
    if isinstance(name, (Study, Survey) if surveys else Study):
        return name
    known = EVERY if surveys else STUDIES
    return known[check_choice("study", name, tuple(known))]


def findings(name):
    """A study's page texts, the module ``findings`` of its folder (the figures its prose quotes,
    its reader's tables), found through the registry, so that no page names a folder; a study of
    paired runs or a survey, by value or by name (an unknown name is a ``ParameterError``); a
    study with no folder or none in its folder is a ``LookupError``."""
    s = name if isinstance(name, (Study, Survey)) else EVERY[check_choice("study", name,
                                                                          tuple(EVERY))]
    folder = FOLDERS.get(s.name)
    try:
        if folder is None:
            raise ModuleNotFoundError(name=None)
        return importlib.import_module(f"{folder}.findings")
    except ModuleNotFoundError as e:
        if folder is not None and e.name != f"{folder}.findings":
            raise
        where = f"no {folder}.findings" if folder else "it has no folder"
        raise LookupError(f"study {s.name!r} has no page texts ({where})") from None


def study_runs(name, seeds, profile="paper", epochs: int | None = None, regime=DEFAULT
               ) -> list[RunConfig]:
    """Every distinct run of a study, by name (an entry point: every argument checked)."""
    return study(name).runs(check_seeds(seeds), resolve_profile(profile),
                            resolve_regime(regime), epochs)


def study_pairs(name, seeds, profile="paper", epochs: int | None = None, regime=DEFAULT
                ) -> list[Pair]:
    """The pairs of a study, by name (an entry point: every argument checked)."""
    return study(name).pairs(check_seeds(seeds), resolve_profile(profile),
                             resolve_regime(regime), epochs)
