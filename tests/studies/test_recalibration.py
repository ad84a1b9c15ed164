"""The second regime's recalibration: the candidates as recipes, and the rule on constructed cases
(anchorkit.core.candidates, anchorkit.studies.rotated_basis.recalibration, recipes.routed_loss)."""

import pandas as pd
import pytest
import torch

from anchorkit.core import candidates
from anchorkit.measures import criteria
from anchorkit.studies.rotated_basis import recalibration as rc
from anchorkit.core.config import RunConfig
from anchorkit.core.recipes import anchor_loss, anchor_masks, recipe, routed_loss
from anchorkit.core.task import DIFFERENCE, OPS, positions
from anchorkit.core.config import TaskConfig


def good(seed, name, optimizer="adam", **bad):
    """A criteria row that meets every criterion unless ``bad`` says otherwise."""
    figures = {"lowest op": 0.97, "alignment, slices 3–4": 0.9, "|alignment|, other ops": 0.05,
               "raw removal": 0.9, "spill, any dose": 0.01, **bad}
    met = {k: rc.MET[k](v) for k, v in figures.items()}
    return {"recipe": name, "optimizer": optimizer, "seed": seed, **figures,
            "meets all": all(met.values())}


def table(rows):
    return pd.DataFrame(rows)


FIRST, SECOND = rc.ORDER[0], rc.ORDER[1]


def test_a_candidate_meeting_every_criterion_on_3_of_4_seeds_is_chosen():
    rows = [good(1, FIRST), good(2, FIRST), good(3, FIRST), good(4, FIRST, **{"raw removal": 0.5})]
    d = rc.decide(table(rows))
    assert d["verdict"] == rc.CHOSEN and d["recipe"] == FIRST and d["tried"] == [(FIRST, 3)]
    assert d["rotated"] is None  # not yet trained under rotated Adam
    rows += [good(s, FIRST, "rotated", **({"raw removal": 0.3} if s < 3 else {})) for s in rc.SEEDS]
    assert rc.decide(table(rows))["rotated"] == (2, 4)  # reported whatever it is
    assert "2 of 4 seeds" in rc.decision_text(rc.decide(table(rows)))


def test_a_candidate_that_fails_on_spill_alone_is_not_chosen():
    over = criteria.SPILL_MAX + 0.005
    rows = [good(s, FIRST, **{"spill, any dose": over}) for s in (1, 2)] + [good(3, FIRST),
                                                                           good(4, FIRST)]
    d = rc.decide(table(rows))
    assert d["verdict"] == rc.PENDING and d["waiting"] == SECOND and d["tried"] == [(FIRST, 2)]


def test_none_passing_is_a_verdict_of_its_own():
    rows = [good(s, n, **{"raw removal": 0.79}) for n in rc.ORDER for s in rc.SEEDS]
    d = rc.decide(table(rows))
    assert d["verdict"] == rc.NONE_PASSES and len(d["tried"]) == len(rc.ORDER)
    assert "cannot be asked" in rc.decision_text(d)


def test_a_later_candidate_never_overtakes_an_earlier_one_not_yet_measured():
    rows = [good(s, SECOND) for s in rc.SEEDS] + [good(1, FIRST)]  # FIRST lacks seeds 2-4
    d = rc.decide(table(rows))
    assert d["verdict"] == rc.PENDING and d["waiting"] == FIRST
    assert rc.decide(table([]))["verdict"] == rc.PENDING  # nothing measured yet


def test_rotated_rows_do_not_count_towards_the_plain_rule():
    rows = [good(s, FIRST, "rotated") for s in rc.SEEDS]
    assert rc.decide(table(rows))["verdict"] == rc.PENDING


def test_each_criterion_can_fail_alone():
    bad = {"lowest op": 0.94, "alignment, slices 3–4": 0.79, "|alignment|, other ops": 0.21,
           "raw removal": 0.79, "spill, any dose": 0.021}
    for k, v in bad.items():
        assert not good(1, FIRST, **{k: v})["meets all"], k
    assert good(1, FIRST)["meets all"]


def test_the_paper_seeds_are_refused():
    with pytest.raises(ValueError, match="paper seeds"):
        rc.runs(FIRST, seeds=[1, 712])
    assert all(s not in rc.PAPER_SEEDS for s in rc.SEEDS) and len(rc.SEEDS) >= 4


def test_candidates_are_new_runs_and_the_recipes_of_record_keep_their_hashes():
    cfgs = {n: RunConfig(seed=704, recipe=n) for n in ("control", "falloff") + rc.ORDER}
    assert len({c.hash for c in cfgs.values()}) == len(cfgs)
    # the published weak-basis falloff and control at seed 704 (published/index.csv)
    index = pd.read_csv("published/index.csv")
    for name in ("falloff-adam-704", "control-adam-704"):
        row = index[(index.run == name) & (index.regime == "weak-basis")].iloc[0]
        assert cfgs[row.recipe].hash == row.hash


def test_a_candidates_weights_follow_its_change():
    base = recipe("falloff")
    for name in rc.ORDER:
        r, c = recipe(name), candidates.change(name)
        assert r.pull == c.get("pull", base.pull) and r.hold == c.get("hold", base.hold)
        scale = c.get("light_scale", 1.0)
        assert r.light == pytest.approx(tuple(w * scale for w in base.light))
        assert r.at_query == c.get("at_query", False) and r.routed == c.get("routed", 0.0)
        assert r.anchored


def test_at_query_moves_the_query_from_the_light_anti_to_the_pull_or_hold():
    task = TaskConfig()
    pos = positions(task)
    T = pos.query + 1
    ops = torch.tensor([DIFFERENCE, (DIFFERENCE + 1) % len(OPS)])
    pull, hold, light = anchor_masks(ops, pos, T)
    qp, qh, ql = anchor_masks(ops, pos, T, at_query=True)
    assert not pull[0, pos.query] and qp[0, pos.query] and not qp[1, pos.query]
    assert qh[1, pos.query] and not hold[1, pos.query]
    assert light[:, pos.query].all() and not ql[:, pos.query].any()


def test_anchor_loss_gives_each_run_its_own_answer_positions():
    task = TaskConfig()
    pos = positions(task)
    T = pos.query + 1
    torch.manual_seed(0)
    states = [torch.randn(2, 4, T, 8) for _ in range(5)]
    ops = torch.tensor([[DIFFERENCE, 1, 2, 3]] * 2)
    mixed = anchor_loss(states, ops, pos, [recipe("falloff"), recipe("falloff-query")])
    alone = [anchor_loss([s[i:i + 1] for s in states], ops[i:i + 1], pos, [r])
             for i, r in enumerate([recipe("falloff"), recipe("falloff-query")])]
    assert torch.allclose(mixed, torch.cat(alone))
    assert not torch.allclose(alone[0], alone[1])  # the query moved: a different loss


def test_routed_loss_penalises_difference_surviving_and_the_others_lost():
    V, k = 19, 3
    targets = torch.zeros(1, 2, k, dtype=torch.long)
    ops = torch.tensor([[DIFFERENCE, (DIFFERENCE + 1) % len(OPS)]])
    sure = torch.full((1, 2, k, V), -20.0)
    sure[..., 0] = 20.0  # every answer right under the edit
    unsure = torch.zeros(1, 2, k, V)  # uniform
    r = [recipe("falloff-routed-1")]
    surviving = routed_loss(sure, ops, targets, r)
    assert torch.isfinite(surviving).all() and surviving.item() > 10  # difference survived
    assert routed_loss(unsure, ops, targets, r).item() < surviving.item()
    only_others = sure.clone()
    only_others[0, 0] = unsure[0, 0]  # difference lost, the other op kept: the term is small
    assert routed_loss(only_others, ops, targets, r).item() < 0.1
    assert routed_loss(sure, ops, targets, [recipe("falloff-routed-0.1")]).item() == pytest.approx(
        surviving.item() / 10, rel=1e-5)


def test_the_command_trains_the_next_candidates_in_order_then_the_chosen_one_rotated(tmp_path):
    from anchorkit.core.store import RunStore
    from anchorkit.studies.rotated_basis.commands.recalibrate import grid, next_runs, write

    store = RunStore(tmp_path / "store")
    pending = rc.decide(table([]))
    todo = next_runs(pending, store, batch=2)
    assert [c.recipe for c in todo[:4]] == ["control"] * 4
    assert [c.recipe for c in todo[4:]] == [FIRST] * 4 + [SECOND] * 4
    assert {c.optimizer for c in todo} == {"adam"} and {c.seed for c in todo} == set(rc.SEEDS)
    assert all(c.epochs == rc.REGIME.epochs and c.train.step == rc.REGIME.step for c in todo)
    rows = [good(s, FIRST) for s in rc.SEEDS]
    chosen = rc.decide(table(rows))
    rot = next_runs(chosen, store, batch=2)
    assert {c.optimizer for c in rot} == {"rotated"} and {c.recipe for c in rot} == {"control", FIRST}
    done = rc.decide(table(rows + [good(s, FIRST, "rotated") for s in rc.SEEDS]))
    assert next_runs(done, store, 2) == []
    none = rc.decide(table([good(s, n, **{"raw removal": 0.1}) for n in rc.ORDER for s in rc.SEEDS]))
    assert next_runs(none, store, 2) == []
    crit = table([{**r, "criteria met": 5} for r in rows])
    write(tmp_path / "out", crit, crit, crit.assign(spill=0.0), done)
    assert (tmp_path / "out" / "decision.md").read_text().startswith("Chosen: " + FIRST)
    assert list(grid(crit)["meets all"]) == ["yes"] * 4


def test_the_command_on_a_store_without_the_calibration_s_runs_leaves_the_record_alone(
        tmp_path, monkeypatch, capsys):
    """Issue 67's first High probe: ``recalibrate --measure-only`` on an empty store once rewrote
    the committed decision from "chosen" to "pending". Now nothing measured writes nothing, the
    committed record is written only with --publish, and --out inside it is refused."""
    import subprocess

    from anchorkit.studies.rotated_basis.commands import recalibrate

    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    committed = recalibrate.OUT
    before = {p.name: p.read_bytes() for p in committed.iterdir()}
    recalibrate.main(["--measure-only"])
    said = capsys.readouterr().out
    assert "Nothing measured" in said and "left as it was" in said
    recalibrate.main(["--measure-only", "--publish"])
    assert {p.name: p.read_bytes() for p in committed.iterdir()} == before
    assert not (tmp_path / "store" / "reports" / "recalibration").exists()
    with pytest.raises(SystemExit) as e:
        recalibrate.main(["--measure-only", "--out", str(committed)])
    assert e.value.code == 2 and "add --publish" in capsys.readouterr().err
    status = subprocess.run(["git", "status", "--porcelain", "calibration"], cwd=committed.parent.parent,
                            capture_output=True, text=True)
    assert status.returncode != 0 or status.stdout == ""


def test_a_measured_decision_is_written_once_and_not_again_when_nothing_changed(tmp_path):
    from anchorkit.studies.rotated_basis.commands.recalibrate import write

    rows = [good(s, FIRST) for s in rc.SEEDS]
    crit = table([{**r, "criteria met": 5} for r in rows])
    done = rc.decide(crit)
    assert write(tmp_path / "out", crit, crit, crit.assign(spill=0.0), done)
    stamp = (tmp_path / "out" / "decision.json").stat().st_mtime_ns
    assert not write(tmp_path / "out", crit, crit, crit.assign(spill=0.0), done)
    assert (tmp_path / "out" / "decision.json").stat().st_mtime_ns == stamp
    assert not write(tmp_path / "empty", crit.iloc[:0], crit.iloc[:0], crit.iloc[:0], done)
    assert not (tmp_path / "empty").exists()
