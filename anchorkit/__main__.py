"""One command line: ``python -m anchorkit <verb> [options]``, run from a clone of the repository.

Each verb is one of the repository's commands (``scripts/``), named for what a reader does;
``python -m anchorkit <verb> --help`` gives that command's own usage, and its options are checked
there, once. The verbs a study owns (its calibration, its confirmation) are listed apart.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Verb:
    module: str  # the command's module under ``scripts``
    says: str  # what it does, in the reader's words
    given: tuple[str, ...] = ()  # options the verb passes before the reader's own


READER = {
    "build": Verb("", "build the book from the committed tables, to read offline (make book)"),
    "pages": Verb("execute_studies", "execute the study pages against the committed tables"),
    "rerun": Verb("rerun_study", "re-run one study with other seeds: trains, then its page"),
    "train": Verb("train_runs", "train a set of runs into the run store"),
    "compute": Verb("execute_studies",
                    "recompute studies' committed tables (after a change to a measure)",
                    ("--compute",)),
    "publish": Verb("publish_runs", "copy the paper's runs to published/, the committed weights"),
    "check": Verb("rerun_compare", "retrain a study from scratch; compare with its committed "
                                   "tables"),
    "same-bits": Verb("same_bits", "does a change of the code keep every table's bits?"),
    "adopt": Verb("adopt_store", "write the missing digests of a run store you trust"),
}
STUDIES = {
    "confirm": Verb("confirm", "the report's confirmation on fresh seeds (rotated-basis study)"),
    "basis-free": Verb("basis_free", "the basis-free arm: calibrate, train, measure "
                                     "(rotated-basis study)"),
    "recalibrate": Verb("recalibrate", "the second regime's recalibration (rotated-basis study)"),
    "viability": Verb("viability", "the second regime's viability check (optimizer scout)"),
    "rejudge-diagnosis": Verb("rejudge_diagnosis", "judge the diagnosis's committed "
                                                   "measurements again by today's rules"),
}
VERBS = {**READER, **STUDIES}


def usage() -> str:
    width = max(map(len, VERBS)) + 2
    lines = ["usage: python -m anchorkit <verb> [options]   (<verb> --help: its own usage)", "",
             "verbs:"]
    lines += [f"  {v:<{width}}{verb.says}" for v, verb in READER.items()]
    lines += ["", "a study's own verbs:"]
    lines += [f"  {v:<{width}}{verb.says}" for v, verb in STUDIES.items()]
    return "\n".join(lines)


def resolve(argv: list[str]) -> tuple[str, Verb, list[str]]:
    """The verb named first and the options it receives; an unknown or missing verb is a
    ``SystemExit`` of one line that names it and the verbs there are."""
    if not argv:
        raise SystemExit(usage())
    if argv[0] in ("-h", "--help"):
        print(usage())
        raise SystemExit(0)
    name, rest = argv[0], argv[1:]
    if name not in VERBS:
        raise SystemExit(f"unknown verb {name!r}: expected one of {', '.join(VERBS)} "
                         "(python -m anchorkit --help)")
    verb = VERBS[name]
    return name, verb, [*verb.given, *rest]


def build(args: list[str]) -> int:
    """``make book``'s three steps, in order, each stopping the build where it fails."""
    if args:
        raise SystemExit(f"build takes no options (got {' '.join(args)})")
    steps = [[sys.executable, "-m", "scripts.book_assets"],
             [sys.executable, "-m", "scripts.execute_studies"],
             [str(Path(sys.executable).with_name("jupyter-book")), "build", "--all",
              "--warningiserror", "--keep-going", "."]]
    for step in steps:
        if (rc := subprocess.run(step, cwd=ROOT).returncode) != 0:
            return rc
    print("open _build/html/index.html")
    return 0


def main(argv=None) -> int:
    name, verb, args = resolve(list(sys.argv[1:] if argv is None else argv))
    if not verb.module:
        return build(args)
    if not (ROOT / "scripts" / f"{verb.module}.py").exists():
        raise SystemExit(f"python -m anchorkit runs from a clone of the repository: no "
                         f"scripts/{verb.module}.py under {ROOT}")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    module = importlib.import_module(f"scripts.{verb.module}")
    takes_args = module.main.__code__.co_argcount > 0
    if not takes_args and args not in ([], ["--help"], ["-h"]):
        raise SystemExit(f"{verb.module} takes no options (got {' '.join(args)})")
    if not takes_args and args:
        print(module.__doc__.strip())
        return 0
    argv0, sys.argv[0] = sys.argv[0], f"python -m anchorkit {name}"  # what its errors call it
    try:
        return module.main(args) if takes_args else module.main()
    finally:
        sys.argv[0] = argv0


if __name__ == "__main__":
    raise SystemExit(main())
