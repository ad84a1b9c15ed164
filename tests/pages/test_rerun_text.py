"""Each study page's *Re-running this page* says, from the study's runs and the published
weights, which change re-reads weights (no training) and which trains."""

import pytest

from anchorkit.core.config import ParameterError
from anchorkit.pages.rerun import doses_text, published_runs, rerun_figures, weights_phrase
from anchorkit.engine.regimes import REPORT, WEAK
from anchorkit.engine.registry import STUDIES


def test_the_phrase_gives_every_case():
    assert "all published" in weights_phrase(8, 8)
    assert "not published" in weights_phrase(0, 80) and "trained first" in weights_phrase(0, 80)
    assert "3 of them published" in weights_phrase(3, 8)


def test_the_counts_follow_the_published_folder(tmp_path):
    control = STUDIES["control"]
    assert published_runs(control, [WEAK], tmp_path) == (0, 8)  # an empty folder: none published
    there, total = published_runs(control, REPORT)
    assert total == 8 * len(REPORT) and there == total  # the paper's controls are published
    assert published_runs(STUDIES["loss-rate-screen"], [WEAK])[0] == 0


def test_the_figures_name_the_page_its_commands_and_the_method_doses():
    got = rerun_figures(STUDIES["loss-rate-screen"], [WEAK])
    assert "notebooks/loss-rate-screen.ipynb" in got["rerun-tweak-loss-rate-screen"]
    assert got["rerun-tweak-loss-rate-screen"].endswith("-y 'doses: [0.5, 1]'`")
    assert "not published" in got["rerun-weights-loss-rate-screen"]
    assert got["rerun-seeds-loss-rate-screen"] == "`-y 'seeds: [840, 841]'`"
    assert got["method-doses"] == "0.25, 0.5, 0.75 and 1" and doses_text([1]) == "1"


def test_publishing_at_other_doses_is_refused_before_any_work(tmp_path):
    from anchorkit.pages.page import study_page
    from anchorkit.engine.request import request

    with pytest.raises(ParameterError, match="parameter 'doses'"):
        study_page("control", request(list(range(704, 712)), store_dir=tmp_path, publish=True,
                                      doses=[0.5, 1]))
