"""What a study page says about re-running it: the command of a tweak of the analysis (the e₁
edit's doses: re-reads the weights of its runs, trains nothing), whether those weights are
published, and the command that names other runs (training); counted from the study's runs and
the published weights, glued into the page's *Re-running this page*.
"""

from __future__ import annotations

from anchorkit.core.edit import DOSES
from anchorkit.core.paths import PUBLISHED
from anchorkit.engine.profiles import PAPER
from anchorkit.engine.registry import Study

TWEAK = [0.5, 1]  # the doses the example command measures at (the tweak test runs the same)


def published_runs(s: Study, regimes, published=PUBLISHED) -> tuple[int, int]:
    """How many of the runs of a study's paper set in these regimes (those its page shows) have
    their final weights in ``published``, and how many runs that is."""
    runs = {c.hash for r in regimes for c in s.runs(list(s.seeds), PAPER, r)}
    there = sum((published / "runs" / h / "final.safetensors").exists() for h in runs)
    return there, len(runs)


def weights_phrase(there: int, total: int) -> str:
    """Where the weights a tweak re-reads come from, in words."""
    if there == total:
        return f"the weights of its {total} runs, all published in `published/`"
    if there == 0:
        return (f"the weights of its {total} runs, which are not published: unless your run store "
                "holds them, they are trained first (hours of CPU)")
    return (f"the weights of its {total} runs, {there} of them published in `published/` (the "
            "others are trained first unless your run store holds them)")


def doses_text(doses) -> str:
    """Doses in words: ``0.25, 0.5, 0.75 and 1``."""
    words = [f"{d:g}" for d in doses]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def yaml_list(values) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def rerun_figures(s: Study, regimes, published=PUBLISHED) -> dict[str, str]:
    """The glued parts of the *Re-running this page* of a study's page showing these regimes:
    ``rerun-tweak-<study>`` (the command at other doses), ``rerun-weights-<study>`` (the weights
    it re-reads, and whether they are published), ``rerun-seeds-<study>`` (other seeds, which
    train) and ``method-doses``."""
    cmd = f".venv/bin/papermill notebooks/{s.page}.ipynb /tmp/{s.page}.ipynb --cwd notebooks"
    other = [max(s.seeds) + 1, max(s.seeds) + 2]  # seeds outside its paper set
    return {f"rerun-tweak-{s.name}": f"`{cmd} -y 'doses: {yaml_list(TWEAK)}'`",
            f"rerun-weights-{s.name}": weights_phrase(*published_runs(s, regimes, published)),
            f"rerun-seeds-{s.name}": f"`-y 'seeds: {yaml_list(other)}'`",
            "method-doses": doses_text(DOSES)}
