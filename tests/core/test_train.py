import math
import pytest
import torch

from anchorkit.core.store import RunStore
from anchorkit.core.task import epoch_batches
from anchorkit.core.train import data_seed, initial_state, train
from tests.core import test_kernels
from tests.conftest import small


def assert_same_weights(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_twins_share_initial_weights_and_every_batch():
    runs = [small(seed=704, recipe=r, optimizer=o) for r in ("control", "falloff", "split-anti")
            for o in ("adam", "rotated")]
    states = [initial_state(c) for c in runs]
    for s in states[1:]:
        assert_same_weights(states[0], s)
    seeds = {data_seed(c.seed) for c in runs}
    assert len(seeds) == 1
    other = initial_state(small(seed=705))
    assert not torch.equal(other["W_E"], states[0]["W_E"])
    assert data_seed(705) not in seeds
    b704 = epoch_batches(runs[0].task, data_seed(704), 3, 64, 32)
    b705 = epoch_batches(runs[0].task, data_seed(705), 3, 64, 32)
    assert not torch.equal(b704[0].tokens, b705[0].tokens)


def test_twins_differ_only_through_the_optimizer_basis():
    plain, rotated = train([small(seed=9, recipe="falloff"),
                            small(seed=9, recipe="falloff", optimizer="rotated")], progress=False)
    assert_same_weights(plain.initial, rotated.initial)
    assert not torch.equal(plain.final["W_E"], rotated.final["W_E"])


def test_every_member_of_an_ensemble_equals_the_run_trained_alone():
    cfgs = [small(seed=1, recipe="falloff", optimizer="rotated"), small(seed=2),
            small(seed=1, recipe="split-anti")]
    together = train(cfgs, progress=False)
    for cfg, member in zip(cfgs, together):
        alone = train([cfg], progress=False)[0]
        for k in alone.final:
            torch.testing.assert_close(member.final[k], alone.final[k], rtol=1e-5, atol=1e-6,
                                       msg=f"{cfg.name}: {k}")
        assert list(member.trajectory["epoch"]) == list(alone.trajectory["epoch"])


def test_same_configuration_twice_gives_identical_weights():
    cfg = small(seed=4, recipe="falloff", optimizer="rotated", epochs=3)
    a, b = train([cfg], progress=False)[0], train([cfg], progress=False)[0]
    assert_same_weights(a.final, b.final)
    assert a.trajectory.equals(b.trajectory)


class Killed(Exception):
    pass


@pytest.mark.parametrize("optimizer", ["adam", "rotated"])
def test_killed_and_resumed_run_matches_an_uninterrupted_one(tmp_path, optimizer):
    cfg = small(seed=5, recipe="falloff", optimizer=optimizer, epochs=5)
    straight = train([cfg], progress=False)[0]

    store = RunStore(tmp_path)

    def kill(epoch):
        if epoch == 3:
            raise Killed

    with pytest.raises(Killed):
        train([cfg], store, progress=False, on_epoch_end=kill)
    assert not store.has_final(cfg)
    assert store.load_checkpoint(cfg)["epoch"] == 2
    resumed = train([cfg], store, progress=False)[0]
    assert_same_weights(straight.final, resumed.final)
    assert store.load_meta(cfg)["resumed_from_epoch"] == 2
    assert list(resumed.trajectory["epoch"]) == list(straight.trajectory["epoch"])
    # a finished run is loaded, not retrained
    again = train([cfg], store, progress=False, on_epoch_end=kill)[0]
    assert_same_weights(again.final, straight.final)


def test_each_rotated_member_of_a_mixed_ensemble_gets_its_own_seeds_rotation(monkeypatch):
    from anchorkit.core.model import haar_rotation
    from anchorkit.core.optim import UPDATES, BasisAdam

    given = []
    monkeypatch.setitem(UPDATES, "adam",
                        lambda params, axes, rotations, **kw: given.append(rotations)
                        or BasisAdam(params, axes, rotations, **kw))
    cfgs = [small(seed=3, optimizer="rotated", epochs=1), small(seed=4, epochs=1),
            small(seed=5, recipe="falloff", optimizer="rotated", epochs=1)]
    train(cfgs, progress=False)
    (R,) = given
    assert torch.equal(R[0], haar_rotation(3, 64)) and torch.equal(R[2], haar_rotation(5, 64))
    assert torch.equal(R[1], torch.eye(64))  # the plain-Adam member: no rotation
    assert not torch.equal(R[0], R[2])


def test_trajectory_records_scores_and_alignment_by_slice():
    run = train([small(seed=6, recipe="falloff", epochs=4)], progress=False)[0]
    t = run.trajectory
    assert list(t["epoch"]) == [0, 2, 4]
    for col in ["loss", "score_difference", "alignment_difference_0", "alignment_other_4"]:
        assert col in t
    assert t["loss"].isna().iloc[0] and t["loss"].iloc[1:].notna().all()  # no loss before training


THREADS_CODE = """
import torch, anchorkit
from anchorkit.core.train import train
from tests.conftest import small
cfg = small(seed=8, recipe="split-anti", optimizer="rotated", epochs=2)
torch.set_num_threads(1)
one = train([cfg], progress=False)[0]
torch.set_num_threads(2)
two = train([cfg], progress=False)[0]
print(all(torch.equal(one.final[k], two.final[k]) for k in one.final))
"""


def weights_equal_across_thread_counts(**env) -> bool:
    """Train one small run with one thread and with two, in a fresh process whose environment
    adds ``env`` (a kernel variable set there is kept by the pin)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from anchorkit.core import kernels

    base = {k: v for k, v in os.environ.items() if k not in kernels.PINS}
    out = subprocess.run([sys.executable, "-c", THREADS_CODE], env={**base, **env},
                         cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, check=True).stdout.split()
    return out[-1] == "True"


# MKL's standard reproducibility mode (the pin's MKL_CBWR=AVX2) promises the same bits only for a
# fixed thread count; its strict mode (MKL_CBWR=AVX2,STRICT) promises them for gemm across thread
# counts (oneMKL Developer Guide, "Reproducibility Conditions"). On the AMD EPYCs tried the thread
# count did not change the weights; on the Intel Xeon tried (2026-12-01) it did, and with the
# strict mode it does not (below). Every task anchorkit runs computes with one thread
# (executor.THREADS), so the tables do not depend on it. Strict xfail: the day the pin alone holds
# here, this fails and the xfail goes.
@pytest.mark.xfail(test_kernels.PIN_FAILS_HERE, strict=True,
                   reason="MKL_CBWR=AVX2 depends on the thread count on the Intel Xeon tried")
def test_thread_count_does_not_change_the_weights():
    assert weights_equal_across_thread_counts()


def test_mkls_strict_mode_makes_the_weights_independent_of_the_thread_count():
    """The lead for a pin that holds on Intel CPUs too: MKL_CBWR=AVX2,STRICT."""
    assert weights_equal_across_thread_counts(MKL_CBWR="AVX2,STRICT")


def test_snapshots_hold_the_weights_at_their_epochs(tmp_path, monkeypatch):
    import anchorkit.core.train as training

    monkeypatch.setattr(training, "SNAPSHOT_EPOCHS", (0, 2))
    cfg = small(seed=7, recipe="falloff", epochs=4)
    store = RunStore(tmp_path)
    run = train([cfg], store, progress=False)[0]
    assert store.snapshot_epochs(cfg) == [0, 2]
    assert_same_weights(store.load_snapshot(cfg, 0), run.initial)
    two = train([cfg.replace(epochs=2)], progress=False)[0]  # the same stream, stopped at 2
    assert_same_weights(store.load_snapshot(cfg, 2), two.final)
    assert RunStore(tmp_path / "elsewhere").snapshot_epochs(cfg) == []
    # published with the weights of epoch 2: a fresh store finds and verifies them there
    from anchorkit.core.store import StoreError

    pub = tmp_path / "published"
    store.publish(cfg, pub, snapshots=(2,))
    fresh = RunStore(tmp_path / "fresh", published=pub)
    assert fresh.has_final(cfg) and fresh.snapshot_epochs(cfg) == [2]
    assert_same_weights(fresh.load_snapshot(cfg, 2), two.final)
    with pytest.raises(StoreError, match="no weights at epoch"):
        store.publish(cfg, pub, snapshots=(3,))
    (pub / "runs" / cfg.hash / "snapshots" / "epoch-2.safetensors").write_bytes(b"x")
    with pytest.raises(StoreError, match="contents changed"):
        fresh.load_snapshot(cfg, 2)


def test_flushing_denormals_is_a_run_of_its_own_and_is_undone_after_training():
    """TrainConfig.flush_denormals: off by default (every published run's hash unchanged), a
    different run when on, and the process keeps denormals again once training is done."""
    import dataclasses

    cfg = small(seed=5, epochs=2)
    flushed = cfg.replace(train=dataclasses.replace(cfg.train, flush_denormals=True))
    assert flushed.hash != cfg.hash
    fast = train([flushed], progress=False)[0]
    assert all(torch.isfinite(v).all() for v in fast.final.values())
    assert float(torch.tensor([1e-39]) * 1.0) != 0.0  # denormals kept again
    from anchorkit.core.config import ParameterError
    with pytest.raises(ParameterError, match="flush_denormals"):
        dataclasses.replace(cfg.train, flush_denormals="yes")


def test_a_regime_without_positions_or_residual_biases_trains_under_both_optimizers(store):
    from anchorkit import ModelConfig

    model = ModelConfig(learned_positions=False, residual_biases=False)
    runs = train([small(3, "falloff", o, epochs=2, model=model) for o in ("adam", "rotated")],
                 store, progress=False)
    for r in runs:
        assert not {"W_pos", "blocks.0.b_O", "blocks.0.b_out"} & set(r.final)
        assert r.trajectory["loss"].dropna().map(math.isfinite).all()
        assert store.has_final(r.config)
    assert not torch.equal(runs[0].final["W_E"], runs[1].final["W_E"])


def test_the_learning_rate_warms_up_then_decays_late_only_when_asked():
    from anchorkit import TrainConfig
    from anchorkit.core.train import learning_rate

    plain = TrainConfig(lr=1e-2, warmup_steps=10)
    # without a decay: the warm-up, then constant to the last step (every published run)
    assert [learning_rate(plain, s, 100) for s in (1, 5, 10, 11, 100)] == pytest.approx(
        [1e-3, 5e-3, 1e-2, 1e-2, 1e-2])
    late = TrainConfig(lr=1e-2, warmup_steps=10, lr_decay=0.25)
    got = [learning_rate(late, s, 100) for s in range(1, 101)]
    assert got[:76] == [learning_rate(plain, s, 100) for s in range(1, 77)]  # untouched until 76
    assert got[76:] == pytest.approx([1e-2 * (100 - s + 1) / 25 for s in range(77, 101)])
    assert got[-1] == pytest.approx(1e-2 / 25) and all(a > b for a, b in zip(got[75:], got[76:]))


def test_a_run_shorter_than_its_checkpoint_interval_resumes_after_a_minute(tmp_path, monkeypatch):
    """Checkpoints are taken by time as well as by epoch: a 40-epoch run (checkpoint_every 50)
    killed after its first minute resumes from there, to the same weights (the minute is made an
    instant here; what is tested is that time alone triggers a checkpoint)."""
    import time

    import anchorkit.core.train as training
    from anchorkit import TrainConfig

    tcfg = TrainConfig(contexts_per_epoch=32, batch_size=32, warmup_steps=2, trajectory_every=10,
                       checkpoint_every=50)
    cfg = small(seed=7, epochs=40, train=tcfg)
    straight = train([cfg], progress=False)[0]
    store = RunStore(tmp_path)
    clock = iter(range(0, 10_000, 30))  # every look at the clock is half a minute later
    monkeypatch.setattr(training.time, "perf_counter", lambda: next(clock))

    def kill(epoch):
        if epoch == 7:
            raise Killed

    with pytest.raises(Killed):
        train([cfg], store, progress=False, on_epoch_end=kill)
    monkeypatch.setattr(training.time, "perf_counter", time.perf_counter)
    resumed_from = store.load_checkpoint(cfg)["epoch"]
    assert 0 < resumed_from < 7
    resumed = train([cfg], store, progress=False)[0]
    assert_same_weights(straight.final, resumed.final)
    assert store.load_meta(cfg)["resumed_from_epoch"] == resumed_from
