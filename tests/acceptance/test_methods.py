"""The method's definitions live in the repository, on the Methods page (book/methods.md): every
citation of it names one of its sections, nothing cites a design document outside the repository,
and the page states the criteria and doses with the values the code judges by."""

import re
import subprocess
from pathlib import Path

from anchorkit.measures import criteria
from anchorkit.core.edit import DOSES

ROOT = Path(__file__).resolve().parents[2]
METHODS = ROOT / "book" / "methods.md"
CITATION = re.compile(r"book/methods\.md,\s*\*([^*]+)\*")
# the design documents the project was written from, which a clone does not hold (spelled in
# parts so that this file does not cite them itself)
OUTSIDE = ("SP" + "EC §", "SP" + "EC.md", "BO" + "OK.md", "REPORT" + "-CLAIMS", "NO" + "TES.md")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    keep = (".py", ".md", ".ipynb", ".yml", ".yaml", ".toml", ".txt", ".sh", ".cfg", "")
    return [ROOT / n for n in names if Path(n).suffix in keep and (ROOT / n).is_file()]


def sections() -> set[str]:
    return {line.lstrip("#").strip() for line in METHODS.read_text().splitlines()
            if line.startswith("#")}


def test_the_citation_pattern_reads_a_section_across_a_line_break():
    text = "the options of book/methods.md,\n *The model and\n its slices*, optimizer settings"
    assert [" ".join(c.split()) for c in CITATION.findall(text)] == ["The model and its slices"]


def test_every_citation_of_the_methods_page_names_one_of_its_sections():
    known = sections()
    assert {"The task", "Measurements", "Training"} <= known
    cited = {}
    for path in tracked_text_files():
        for name in CITATION.findall(path.read_text(errors="replace")):
            cited.setdefault(" ".join(name.split()), set()).add(path.relative_to(ROOT).as_posix())
    assert cited, "no citation of the Methods page found: the pattern no longer matches"
    assert {name: files for name, files in cited.items() if name not in known} == {}


def test_nothing_cites_a_design_document_outside_the_repository():
    found = {p.relative_to(ROOT).as_posix(): ref for p in tracked_text_files()
             for ref in OUTSIDE if ref in p.read_text(errors="replace")}
    assert found == {}


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_methods_page_states_the_values_the_code_judges_by():
    """A criterion changed in ``anchorkit.measures.criteria`` (or a dose in ``anchorkit.core.edit``) without
    its definition on the Methods page fails here: the page and the code say the same method."""
    text = _flat(METHODS.read_text())

    def num(x: float) -> str:
        return f"{x:g}"

    stated = {
        "SCORE_MIN": f"every op scores at least {num(criteria.SCORE_MIN)}",
        "ALIGNMENT_HIGH": f'we read "high" as at least {num(criteria.ALIGNMENT_HIGH)}',
        "ALIGNMENT_LOW": f'we read "low" as |α| at most {num(criteria.ALIGNMENT_LOW)}',
        "REMOVAL_MIN": f"removes at least {num(criteria.REMOVAL_MIN)} of difference's span",
        "SPILL_MAX": f"spill ≤ {num(criteria.SPILL_MAX)} at every dose",
        "KEPT": f"net removal at full dose is at least {num(criteria.KEPT)}",
        "DOSES": "The doses are " + ", ".join(num(d) for d in DOSES[:-1]) + f" and {num(DOSES[-1])}",
    }
    assert {name: s for name, s in stated.items() if _flat(s) not in text} == {}


def test_the_methods_page_states_how_the_ledger_reaches_its_verdicts():
    """The interval rules of ``anchorkit.measures.verdicts``: their confidence, the four verdicts and the
    three comparisons are on the Methods page, and the coverage it quotes is the exact one."""
    from scipy.stats import binom

    from anchorkit.measures import verdicts

    text = _flat(METHODS.read_text())
    assert f"{verdicts.CONFIDENCE:.0%} interval" in text
    for v in verdicts.VERDICTS:
        assert v in text, v
    for said in ("Fisher's exact test", "Fisher-z", "order statistics", "one standard error"):
        assert said in text, said
    assert f"coverage {1 - 2 * binom.cdf(0, 8, 0.5):.1%}" in text
    assert f"covers only {1 - 2 * binom.cdf(1, 8, 0.5):.0%}" in text
