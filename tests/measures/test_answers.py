"""The answer cache is keyed by what the answers are, not by the source text: a fingerprint of a
published run's answers guards ANSWERS_VERSION."""

import hashlib

import pytest

from anchorkit.engine.profiles import PAPER
from anchorkit.engine.executor import THREADS, threads
from anchorkit.measures.answers import ANSWERS_VERSION, predict, answers_key, sweep_answers
from anchorkit.core.store import RunStore
from anchorkit.engine.registry import run_config

# the answers of published control-adam-704 (base, and the first 8 sweep directions), one thread,
# the kernels pinned to AVX2: computed at ANSWERS_VERSION 1
FINGERPRINT = {1: "59cfab67db43ecb58dc9c19f4ad9cd5e9dec298837f5d6a1a3b2ce0f4a9afcee"}


@pytest.mark.retrain
def test_the_answers_of_a_published_run_are_the_ones_the_cache_version_names():
    """A refactor that changes no answer keeps the cache (and this fingerprint); a change to the
    answers fails here until ANSWERS_VERSION is bumped and the new fingerprint recorded."""
    cfg = run_config(704, "control", "adam", PAPER)
    state = RunStore().load_final(cfg)
    with threads(THREADS):
        base = predict(cfg, state, "base")
        sweep = sweep_answers(cfg, state, 0, 8)
    h = hashlib.sha256()
    for k in ("clean", "null", "e1"):
        h.update(base[k].numpy().tobytes())
    h.update(sweep.numpy().tobytes())
    assert h.hexdigest() == FINGERPRINT[ANSWERS_VERSION]


def test_the_key_follows_the_weights_and_the_part():
    cfg = run_config(704, "control", "adam", PAPER)
    state = RunStore().load_final(cfg)
    other = {**state, "W_U": state["W_U"] * 2}
    assert answers_key(cfg, "base", state) == answers_key(cfg, "base", dict(state))
    assert answers_key(cfg, "base", state) != answers_key(cfg, "base", other)
    assert answers_key(cfg, "base", state) != answers_key(cfg, "sweep", state)


def test_other_doses_have_their_own_base_key_and_the_methods_keys_are_unchanged():
    import torch

    from anchorkit.core.edit import DOSES

    cfg = run_config(704, "control", "adam", PAPER)
    state = RunStore().load_final(cfg)
    text = f"{cfg.hash}/base/{RunStore.weights_digest(state)}/{ANSWERS_VERSION}"  # the cache's keys
    assert answers_key(cfg, "base", state) == hashlib.sha256(text.encode()).hexdigest()[:32]
    assert answers_key(cfg, "base", state, DOSES) == answers_key(cfg, "base", state)
    assert answers_key(cfg, "base", state, (0.5, 1.0)) != answers_key(cfg, "base", state)
    assert answers_key(cfg, "sweep", state, (0.5, 1.0)) == answers_key(cfg, "sweep", state)
    from anchorkit.core.train import train
    from tests.conftest import small

    cfg = small(seed=3, recipe="falloff", epochs=2)  # a small run answers quicker than a paper one
    (run,) = train([cfg], progress=False)
    with threads(THREADS):
        at = predict(cfg, run.final, "base", doses=(0.5, 1.0))
        full = predict(cfg, run.final, "base")
    assert at["e1"].shape[0] == 2
    assert torch.equal(at["e1"], full["e1"][[DOSES.index(0.5), DOSES.index(1.0)]])
