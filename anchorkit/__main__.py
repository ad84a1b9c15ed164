"""One command line: ``python -m anchorkit <verb> [options]``.

Each verb is one of the package's commands (``anchorkit.commands``, or a study's own in
``anchorkit/studies/<name>/commands/``), named for what a reader does;
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
    module: str  # the command's module (its ``main(argv)`` runs the verb)
    says: str  # what it does, in the reader's words
    given: tuple[str, ...] = ()  # options the verb passes before the reader's own


COMMANDS = "anchorkit.commands."  # the reader's commands
REPORT = "anchorkit.studies.rotated_basis.commands."  # the report's study's own
READER = {
    "build": Verb("", "build the book from the committed tables, to read offline (make book)"),
    "pages": Verb(COMMANDS + "execute_studies",
                  "execute the study pages against the committed tables"),
    "rerun": Verb(COMMANDS + "rerun_study", "re-run one study with other seeds: trains, then its "
                                            "page"),
    "train": Verb(COMMANDS + "train_runs", "train a set of runs into the run store"),
    "compute": Verb(COMMANDS + "execute_studies",
                    "recompute studies' committed tables (after a change to a measure)",
                    ("--compute",)),
    "publish": Verb(COMMANDS + "publish_runs",
                    "copy the paper's runs to published/, the committed weights"),
    "check": Verb(COMMANDS + "rerun_compare", "retrain a study from scratch; compare with its "
                                              "committed tables"),
    "same-bits": Verb(COMMANDS + "same_bits", "does a change of the code keep every table's bits?"),
    "adopt": Verb(COMMANDS + "adopt_store", "write the missing digests of a run store you trust"),
}
STUDIES = {
    # in the commands layer, not the study's folder: its ``essay`` step measures the essay's
    # column from the same runs, and one study's folder reads no other's
    "confirm": Verb(COMMANDS + "confirm", "the report's confirmation on fresh seeds (rotated-basis "
                                          "study)"),
    "basis-free": Verb(REPORT + "basis_free", "the basis-free arm: calibrate, train, measure "
                                              "(rotated-basis study)"),
    "recalibrate": Verb(REPORT + "recalibrate", "the second regime's recalibration (rotated-basis "
                                                "study)"),
    "viability": Verb("anchorkit.studies.scout.commands.viability",
                      "the second regime's viability check (optimizer scout)"),
    "rejudge-diagnosis": Verb("anchorkit.studies.diagnosis.commands.rejudge",
                              "judge the diagnosis's committed measurements again by today's "
                              "rules"),
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
    if not (ROOT / "_config.yml").exists():
        raise SystemExit(f"build runs in a clone of the repository (its book's sources): no "
                         f"_config.yml under {ROOT}")
    steps = [[sys.executable, "-m", "scripts.book_assets"],
             [sys.executable, "-m", COMMANDS + "execute_studies"],
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
    module = importlib.import_module(verb.module)
    takes_args = module.main.__code__.co_argcount > 0
    if not takes_args and args not in ([], ["--help"], ["-h"]):
        raise SystemExit(f"{name} takes no options (got {' '.join(args)})")
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
