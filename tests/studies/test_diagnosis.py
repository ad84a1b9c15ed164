"""The diagnosis study: its predictions are stated with rules that name their thresholds, and its
parts land in one folder per regime, each part's tables kept beside the others'."""

import pandas as pd

from anchorkit.engine.profiles import PAPER
from anchorkit.studies import diagnosis
from anchorkit.studies.diagnosis.running import write_part
from anchorkit.engine.regimes import WEAK
from anchorkit.engine.provenance import read_study
from anchorkit.engine.registry import run_config


def test_every_prediction_has_its_statement_and_a_rule_that_names_its_threshold():
    assert set(diagnosis.PREDICTIONS) == {"probe", "rank", "overlap", "relation", "mirror"}
    for prediction, rule in diagnosis.PREDICTIONS.values():
        assert len(prediction) > 80 and len(rule) > 80
    assert str(diagnosis.SOURCE_STRENGTH) in diagnosis.PREDICTIONS["overlap"][1]
    assert f"{diagnosis.MIRROR_TOL}" in diagnosis.PREDICTIONS["mirror"][1]
    assert diagnosis.MIRROR_STEPS >= 20


def test_a_part_written_again_replaces_its_own_tables_and_keeps_the_others(tmp_path):
    runs = [run_config(704, "control", "rotated", PAPER)]
    src = {"commit": "abc", "dirty": False}
    one = pd.DataFrame({"x": [1.0]})
    write_part(tmp_path, WEAK, "mirror", {"mirror": one}, runs, 1.0, src)
    write_part(tmp_path, WEAK, "overlap", {"overlap": one, "relation": one}, runs, 2.0, src)
    prov, tables = read_study(tmp_path / "diagnosis")
    assert set(tables) == {"mirror", "overlap", "relation"}
    assert set(prov["parts"]) == {"mirror", "overlap"}
    write_part(tmp_path, WEAK, "overlap", {"overlap": one * 2}, runs, 3.0, src)
    prov, tables = read_study(tmp_path / "diagnosis")
    assert set(tables) == {"mirror", "overlap"}  # the part's old table is gone with it
    assert float(tables["overlap"].x.iloc[0]) == 2.0 and prov["parts"]["overlap"]["wall_seconds"] == 3.0
    assert prov["parts"]["mirror"]["tables"] == ["mirror"]


def test_a_rejudge_that_changes_no_table_rewrites_no_file(tmp_path, monkeypatch):
    """Issue 67: rejudge_diagnosis rewrote six committed provenance files (commit, date, the CPU
    record) although every table was unchanged. A rejudge whose rules judge as the committed
    tables say now writes nothing; one whose derived table differs writes."""
    import shutil
    from pathlib import Path

    from anchorkit.engine.regimes import WEAK
    from anchorkit.studies.diagnosis.running import STUDY, rejudge_rank

    root = Path(__file__).resolve().parents[2] / "reports"
    shutil.copytree(WEAK.reports(root) / STUDY, tmp_path / STUDY)
    shutil.copytree(WEAK.reports(root) / "rotated-basis", tmp_path / "rotated-basis")
    before = {f.name: f.read_bytes() for f in (tmp_path / STUDY).iterdir()}
    rejudge_rank(tmp_path, WEAK)
    assert {f.name: f.read_bytes() for f in (tmp_path / STUDY).iterdir()} == before
    from anchorkit.studies.diagnosis import running
    monkeypatch.setattr(running, "_same", lambda a, b: False)  # as if a rule had changed
    rejudge_rank(tmp_path, WEAK)
    assert {f.name: f.read_bytes() for f in (tmp_path / STUDY).iterdir()} != before
