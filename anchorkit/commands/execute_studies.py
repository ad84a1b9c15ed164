"""Execute the study notebooks (and the reproducibility page) into the book's pages
(``book/studies/<name>.ipynb``).

Each notebook reads the tables already in ``reports/<study>/`` when they hold exactly its runs
(the committed paper-scale tables), so this takes seconds. A study whose paper-scale tables are
not there is not executed (that would mean hours of training and measuring): its page says so
and names the command that computes it, unless ``--compute`` is given. With ``--compute`` the
named studies are (re)computed from their runs (trained, loaded from the store or from
``published/``) and their answers (cached in the run store), even where tables are committed:
after a change to a measure, this re-derives the tables without retraining.

``--compute`` alone executes each named study's page without reusing tables, so the page
computes the study in **every regime it shows**: the weak-basis regime, and the second regime too
where its tables are committed (the report and the reference-baseline page show both). With
``--regime R`` (and ``--compute``) the named studies are computed in regime R only
(``reports/<study>/`` for the weak-basis regime, ``reports/<R>/<study>/`` for another), and their
pages then executed on the committed tables of every regime they show.

``--compute`` is the explicit act that writes the committed tables (the notebooks get
``publish=True``); without it nothing under ``reports/`` is written. A table folder that does not
verify (a table or ``provenance.json`` edited) is one line naming the file, and nothing is
recomputed over it.

usage: python -m anchorkit pages [--compute [--regime R]] [study ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import papermill as pm

from anchorkit.core.paths import REPO
from anchorkit.pages.catalogue import CATALOGUE
from anchorkit.engine.regimes import REPORT, regime as resolve_regime
from anchorkit.engine.registry import STUDIES

ROOT = REPO  # the repository (a clone: its book, reports, calibration)
PAGES = ROOT / "book" / "studies"


def computed(study: str) -> bool:
    """Whether ``reports/<study>/`` holds the page's paper-scale tables (``Page.written``: a study's
    default seeds, the essay's stored runs, the scout's calibration seeds)."""
    return CATALOGUE[study].written(ROOT / "reports")


def title(study: str) -> str:
    """The first heading of the study's notebook (its page title), else the study's name."""
    import json

    for cell in json.loads((ROOT / "notebooks" / f"{study}.ipynb").read_text())["cells"]:
        first = "".join(cell["source"]).split("\n", 1)[0]
        if cell["cell_type"] == "markdown" and first.startswith("# "):
            return first[2:].strip()
    return study


def intro(study: str) -> str:
    """The text under the notebook's title (what the study is for), else nothing."""
    import json

    for cell in json.loads((ROOT / "notebooks" / f"{study}.ipynb").read_text())["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and text.startswith("# "):
            rest = text.split("\n", 1)[1].strip() if "\n" in text else ""
            return rest + "\n\n" if rest else ""
    return ""


def not_computed_page(study: str) -> str:
    page = (f"# {title(study)}\n\n{intro(study)}The paper-scale tables of this study are not in "
            f"`reports/{study}/` yet, so this page has no results to show. To compute them (training "
            "the runs that are not in the run store or in `published/`, then measuring; "
            "`BENCHMARKS.md` says how long that takes):\n\n```bash\n"
            f"python -m anchorkit compute {study}\n```\n")
    return page + CATALOGUE[study].pending  # the scout: its rule, fixed before its runs


def main(argv=None) -> None:
    """The command line (``__doc__``); a table folder that does not verify, or a page whose
    execution fails, ends it with one line naming the file or the page."""
    from anchorkit.core.store import StoreError

    try:
        execute(list(argv if argv is not None else sys.argv[1:]))
    except StoreError as e:
        raise SystemExit(f"StoreError: {e}") from None
    except pm.PapermillExecutionError as e:  # the page's cell said what went wrong
        raise SystemExit(f"{e.ename}: {e.evalue} (cell {e.exec_count} of the page)") from None


def execute(args: list[str]) -> None:
    if "-h" in args or "--help" in args:
        print(__doc__.strip())
        return
    options = [a for a in args if a.startswith("-") and a not in ("--compute", "--regime")]
    if options:
        raise SystemExit(f"unknown option {options[0]}; " + __doc__.strip().splitlines()[-1])
    compute = "--compute" in args
    args = [a for a in args if a != "--compute"]
    regime = None  # None: every regime each page shows
    if "--regime" in args:
        i = args.index("--regime")
        if i + 1 >= len(args) or not compute:
            raise SystemExit("--regime R: name one regime, with --compute")
        name = args.pop(i + 1)
        args.pop(i)
        try:
            regime = resolve_regime(name)
        except ValueError as e:
            raise SystemExit(f"--regime: {e}") from None
        if regime not in REPORT:
            raise SystemExit("--regime: the report's studies run in "
                             + ", ".join(r.name for r in REPORT))
    names = list(CATALOGUE)
    if compute and not args:
        raise SystemExit("--compute: name the studies to compute (it retrains what is not stored)")
    studies = args or names
    unknown = [s for s in studies if s not in names]
    if unknown:
        raise SystemExit(f"unknown study {unknown}; expected some of {names}")
    PAGES.mkdir(parents=True, exist_ok=True)
    if regime is not None:
        from anchorkit.engine.protocol import run_study

        for study in studies:
            if study not in STUDIES:
                raise SystemExit(f"--regime: {study} is not a study of runs ({', '.join(STUDIES)})")
            t = time.perf_counter()
            run_study(study, STUDIES[study].seeds, "paper", reports_dir=ROOT / "reports",
                      regime=regime, publish=True)
            print(f"{study}: computed in the {regime.name} regime in {time.perf_counter() - t:.0f} s")
        compute = False  # the pages then read every regime's tables
    for study in studies:
        t = time.perf_counter()
        page = PAGES / f"{study}.ipynb"
        stand_in = PAGES / f"{study}.md"
        stand_in.unlink(missing_ok=True)
        if CATALOGUE[study].computes and not compute and not computed(study):
            page.unlink(missing_ok=True)
            stand_in.write_text(not_computed_page(study))
            print(f"{study}: no paper-scale tables in reports/{study}/; page says so")
            continue
        pm.execute_notebook(ROOT / "notebooks" / f"{study}.ipynb", PAGES / f"{study}.ipynb",
                            parameters={} if not CATALOGUE[study].computes else
                            {"progress": False, "reuse": not compute, "publish": compute},
                            cwd=str(ROOT / "notebooks"),
                            progress_bar=False)
        hide_injected_parameters(PAGES / f"{study}.ipynb")
        print(f"{study}: executed in {time.perf_counter() - t:.0f} s")


def hide_injected_parameters(path: Path) -> None:
    """Keep the cell papermill injects (the parameters used) out of the page; the page's
    provenance block says what it was executed with."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")
    nbformat.write(nb, path)


if __name__ == "__main__":
    main()
