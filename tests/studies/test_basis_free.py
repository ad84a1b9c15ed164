"""The basis-free arm's calibration rule (anchorkit.studies.rotated_basis.basis_free) on
constructed cases: every verdict it can give, the fallback's order, and the committed rule equal
to the code's."""

from pathlib import Path

import pandas as pd
import pytest

from anchorkit.core.task import OPS
from anchorkit.studies.rotated_basis import basis_free as bf

ROOT = Path(__file__).resolve().parents[2]
OWN, FIRST, SECOND = bf.rates()


def rows(lr, recipe, low=0.99, seeds=bf.SEEDS):
    """A run per seed at ``lr`` whose lowest op scores ``low``."""
    return [{"lr": lr, "recipe": recipe, "seed": s, **{f"score_{op}": 1.0 for op in OPS},
             f"score_{OPS[0]}": low} for s in seeds]


def decide(*parts):
    return bf.decide(pd.DataFrame([r for p in parts for r in p]))


def test_the_arm_passes_at_its_regime_s_own_settings():
    d = decide(rows(OWN, "control"), rows(OWN, "falloff"))
    assert d["verdict"] == bf.PASSES and d["lr"] == OWN


def test_one_run_below_the_bar_sends_it_to_the_fallback_controls_first():
    failed = rows(OWN, "control") + rows(OWN, "falloff", low=0.9, seeds=bf.SEEDS[:1]) + \
        rows(OWN, "falloff", seeds=bf.SEEDS[1:])
    assert decide(failed)["waiting"] == (FIRST, ("control",))
    assert decide(failed, rows(FIRST, "control"))["waiting"] == (FIRST, ("falloff",))
    d = decide(failed, rows(FIRST, "control"), rows(FIRST, "falloff"))
    assert d["verdict"] == bf.FALLBACK_CHOSEN and d["lr"] == FIRST
    # the first rate's controls fail: the second rate, never the first's falloff runs
    later = decide(failed, rows(FIRST, "control", low=0.5), rows(SECOND, "control"),
                   rows(SECOND, "falloff"))
    assert later["verdict"] == bf.FALLBACK_CHOSEN and later["lr"] == SECOND


def test_none_passes_and_pending_can_be_given():
    fail = {lr: rows(lr, "control", low=0.5) for lr in (OWN, FIRST, SECOND)}
    assert decide(*fail.values(), rows(OWN, "falloff"))["verdict"] == bf.NONE_PASSES
    assert bf.decide(pd.DataFrame())["verdict"] == bf.PENDING
    assert decide(rows(OWN, "control"))["waiting"] == (OWN, bf.RECIPES)
    assert set(bf.SAYS) == set(bf.VERDICTS)


def test_the_runs_are_the_arm_s_at_calibration_seeds_and_a_fallback_rate_is_new_configuration():
    own = bf.runs()
    assert {c.optimizer for c in own} == {"shared"} and {c.seed for c in own} == set(bf.SEEDS)
    assert {c.recipe for c in own} == {"control", "falloff-pull-0.3"}
    assert all(c.epochs == 1600 and c.train.lr == OWN for c in own)
    assert not {c.hash for c in own} & {c.hash for c in bf.runs(FIRST)}
    with pytest.raises(ValueError, match="paper seeds"):
        bf.runs(seeds=[704])


def test_the_committed_rule_is_the_code_s():
    assert (ROOT / "calibration" / "basis-free" / "rule.md").read_text() == bf.rule_text()


def test_the_committed_predictions_are_the_code_s_and_name_the_finite_d_kurtosis():
    text = bf.predictions_text()
    assert (ROOT / "calibration" / "basis-free" / "predictions.md").read_text() == text
    assert "2.91" in text and "3(D−1)/(D+1)" in text and "±0.1" in text
    assert bf.GAUSSIAN_KURTOSIS == pytest.approx(2.9077, abs=1e-4)


@pytest.mark.slow
def test_the_scores_the_rule_reads_are_each_run_s_last_probe_scores(tmp_path):
    """``scores`` reads a finished calibration run's last trajectory point, names its recipe by
    the study's name and its rate, and leaves out what is not finished."""
    import dataclasses

    import anchorkit.studies.rotated_basis.basis_free as module
    from anchorkit.core.store import RunStore
    from anchorkit.core.train import train

    from tests.conftest import SMALL_TASK, SMALL_TRAIN

    store = RunStore(tmp_path / "store")
    assert bf.scores(store).empty and bf.decide(bf.scores(store))["verdict"] == bf.PENDING

    def shortened(c):  # the rule's run, small and two epochs long, so that it trains in seconds
        return dataclasses.replace(c, epochs=2, task=SMALL_TASK,
                                   train=dataclasses.replace(SMALL_TRAIN, lr=c.train.lr))

    small = shortened(bf.runs(recipes=("control",), seeds=(1,))[0])
    orig = module._runs
    try:
        module._runs = lambda lr, recipes, seeds: [shortened(c) for c in orig(lr, recipes, seeds)]
        train([small], store, progress=False)
        got = bf.scores(store)
    finally:
        module._runs = orig
    last = store.load_trajectory(small).iloc[-1]
    assert len(got) == 1 and got.recipe.iloc[0] == "control" and got.lr.iloc[0] == OWN
    assert all(got[f"score_{op}"].iloc[0] == last[f"score_{op}"] for op in OPS)
    text = bf.decision_text(got)
    assert text.startswith(f"**{bf.PENDING}**") and small.name in text


def test_the_paper_runs_are_the_calibrated_runs_at_the_paper_seeds_and_the_rate_given():
    paper = bf.paper_runs(FIRST)
    assert sorted({c.seed for c in paper}) == list(bf.PAPER_SEEDS) and len(paper) == 32
    assert {c.train.lr for c in paper} == {FIRST} and {c.optimizer for c in paper} == {"shared"}
    own = bf.paper_runs(OWN)[0]
    assert own.train == bf.runs()[0].train  # the regime's own rate, as calibrated
    # the amendment: every run of the arm flushes denormals; the rest of the regime unchanged
    import dataclasses

    from anchorkit.engine.regimes import RECALIBRATED
    assert all(c.train.flush_denormals for c in bf.runs() + paper)
    assert dataclasses.replace(own.train, flush_denormals=False) == \
        RECALIBRATED.settings("control", "shared")["train"]
    with pytest.raises(ValueError, match="paper seeds"):
        bf.runs(seeds=(704,))


def test_the_committed_decision_is_the_rule_s_on_the_committed_scores():
    """calibration/basis-free/decision.md and decision.json say what ``decide`` gives on the
    committed scores, so the record cannot drift from the rule."""
    import json

    where = ROOT / "calibration" / "basis-free"
    if not (where / "scores.csv").exists():
        pytest.skip("the calibration has not decided yet")
    scores = pd.read_csv(where / "scores.csv")
    assert (where / "decision.md").read_text() == bf.decision_text(scores)
    d = bf.decide(scores)
    assert json.loads((where / "decision.json").read_text()) == {"verdict": d["verdict"],
                                                                 "lr": d["lr"]}
    assert d["verdict"] != bf.PENDING


def test_the_command_writes_the_committed_record_only_with_publish(tmp_path, monkeypatch, capsys):
    """``calibrate`` without ``--publish`` writes its scores and decision to the store's scratch
    folder, never to calibration/basis-free/; a flag a verb does not use is named and refused."""
    from anchorkit.studies.rotated_basis.commands import basis_free as cmd

    decided = pd.DataFrame(rows(OWN, "control") + rows(OWN, "falloff")).assign(
        run="r", hash="h", epoch=1600)
    monkeypatch.setattr(cmd.bf, "scores", lambda store: decided)
    monkeypatch.setattr(cmd, "scratch_root", lambda: tmp_path / "scratch")
    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    before = sorted(p.name for p in cmd.COMMITTED.iterdir())
    cmd.main(["calibrate"])
    assert sorted(p.name for p in cmd.COMMITTED.iterdir()) == before
    written = tmp_path / "scratch" / "basis-free"
    assert (written / "decision.md").read_text() == bf.decision_text(decided)
    with pytest.raises(SystemExit):
        cmd.main(["train", "--publish"])
    assert "--publish" in capsys.readouterr().err


def test_publish_names_the_runs_not_finished_and_publishes_none_of_an_empty_store(
        tmp_path, monkeypatch, capsys):
    """``publish`` refuses while a paper run is not finished; with ``--finished-only`` it names
    every one left out and, having none to publish, leaves the published index as it is."""
    from anchorkit.studies.rotated_basis.commands import basis_free as cmd
    from anchorkit.core.paths import PUBLISHED

    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    never = bf.paper_runs(bf.FALLBACK[-1] / 10)  # runs at a rate nobody trains: none published
    monkeypatch.setattr(cmd.bf, "paper_runs", lambda lr: never)
    index = (PUBLISHED / "index.parquet").read_bytes()
    with pytest.raises(SystemExit, match="not finished"):
        cmd.main(["publish", "--seeds", "704"])
    cmd.main(["publish", "--seeds", "704", "--finished-only"])
    said = capsys.readouterr().out
    assert said.startswith("published 0 runs") and said.count("-shared-704") == 2
    assert (PUBLISHED / "index.parquet").read_bytes() == index
    with pytest.raises(SystemExit):
        cmd.main(["train", "--finished-only"])
    assert "--finished-only" in capsys.readouterr().err
