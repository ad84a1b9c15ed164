"""Execute the study notebooks (and the reproducibility page) into the book's pages
(``book/studies/<name>.ipynb``).

Each notebook reads the tables already in ``reports/<study>/`` when they hold exactly its runs
(the committed paper-scale tables), so this takes seconds; otherwise it trains or loads the runs
(published weights are loaded, not retrained) and measures them.

usage: python -m scripts.execute_studies [study ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import papermill as pm

from anchorkit.studies import STUDIES

PAGES_ONLY = ("reproducibility",)  # pages that execute like a study but train nothing
ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "book" / "studies"


def main(argv=None) -> None:
    names = list(STUDIES) + list(PAGES_ONLY)
    studies = list(argv if argv is not None else sys.argv[1:]) or names
    unknown = [s for s in studies if s not in names]
    if unknown:
        raise SystemExit(f"unknown study {unknown}; expected some of {names}")
    PAGES.mkdir(parents=True, exist_ok=True)
    for study in studies:
        t = time.perf_counter()
        pm.execute_notebook(ROOT / "notebooks" / f"{study}.ipynb", PAGES / f"{study}.ipynb",
                            parameters={} if study in PAGES_ONLY else {"progress": False},
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
