"""The essay's head-level measurements (the essay's page, notebooks/geometry-of-anchors.ipynb) on constructed cases known by hand."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from anchorkit import ModelConfig, TaskConfig
from anchorkit.measures.geometry import (SINK_THRESHOLD, attention_received, classify_heads, coefficient_of_variation,
                                         enrichment, find_sinks, functional_noncommutativity,
                                         gradient_alignment, gradient_classes, head_activity,
                                         head_heterogeneity, head_maps, head_noncommutativity,
                                         head_table, killing_form, layer_table,
                                         mean_noncommutativity, noncommutativity, noncommutativity_cv,
                                         pairwise_noncommutativity, relative_change)
from anchorkit.core.model import Transformer, norm, slice_states
from anchorkit.core.task import context_length, probe_set, token_id
from anchorkit.core.train import TrainedRun, initial_state
from tests.conftest import small

TASK = TaskConfig(probe_per_op=8)
H, D = 4, 64
DH = D // H


def E(i, j, n=2, dtype=torch.float64):
    """The matrix unit E_ij of gl(n)."""
    m = torch.zeros(n, n, dtype=dtype)
    m[i, j] = 1.0
    return m


@pytest.fixture(scope="module")
def probe():
    return probe_set(TASK).clean


def fresh(seed=1, n=1):
    return Transformer(n, ModelConfig(), TASK).initialise(list(range(seed, seed + n)))


# ---------------------------------------------------------------------------- algebra
def test_commuting_matrices_have_zero_noncommutativity():
    a, b = torch.diag(torch.tensor([1.0, 2.0, 3.0])), torch.diag(torch.tensor([-1.0, 5.0, 0.5]))
    assert noncommutativity(a, b) == 0
    x = torch.randn(5, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    assert noncommutativity(x, x @ x) < 1e-12
    assert noncommutativity(torch.zeros(3, 3), a) == 0  # zero by definition


def test_noncommutativity_of_known_pairs_and_bound():
    # [E11, E12] = E12: 1 / (√2·1·1); [E12, E21] = diag(1, −1): √2 / √2 = 1, the bound itself
    assert noncommutativity(E(0, 0), E(0, 1)).item() == pytest.approx(1 / math.sqrt(2))
    assert noncommutativity(E(0, 1), E(1, 0)).item() == pytest.approx(1.0)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(50, 6, 6, generator=g), torch.randn(50, 6, 6, generator=g)
    nc = noncommutativity(x, y)
    assert nc.shape == (50,) and (nc >= 0).all() and (nc <= 1 + 1e-6).all()
    with pytest.raises(ValueError, match="'X'"):
        noncommutativity(torch.zeros(2, 3), torch.zeros(3, 3))


def test_killing_form_by_hand():
    n = 3
    assert killing_form(torch.eye(n), torch.eye(n)).item() == 2 * n * n - 2 * n * n == 0
    assert killing_form(E(0, 0), E(0, 0)).item() == 2 * 2 * 1 - 2 * 1 * 1  # = 2
    assert killing_form(E(0, 1), E(1, 0)).item() == 2 * 2 * 1  # tr(E12 E21) = 1, traceless
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    # tr(x x) = 1 + 6 + 6 + 16 = 29, tr x = 5: 2·2·29 − 2·25 = 66
    assert killing_form(x, x).item() == 66


def test_cv_and_enrichment_on_constructed_numbers():
    cv = coefficient_of_variation(torch.tensor([1.0, 2.0, 3.0]))
    assert cv.item() == pytest.approx(math.sqrt(2 / 3) / 2)
    assert enrichment(2.0, 6.0) == 3.0
    assert enrichment(0.0, 1.0) == math.inf
    assert torch.equal(enrichment(torch.tensor([1.0, 4.0]), torch.tensor([3.0, 2.0])),
                       torch.tensor([3.0, 0.5]))


def layer_of_three():
    """Heads E11, E11, E12: the first two commute, each is 1/√2 from the third."""
    return torch.stack([E(0, 0), E(0, 0), E(0, 1)])


def test_layer_statistics_by_hand():
    pw = pairwise_noncommutativity(layer_of_three())
    r = 1 / math.sqrt(2)
    assert torch.allclose(pw, torch.tensor([[0, 0, r], [0, 0, r], [r, r, 0]], dtype=pw.dtype))
    assert mean_noncommutativity(pw).item() == pytest.approx(2 * r / 3)
    pairs = torch.tensor([0.0, r, r])
    assert noncommutativity_cv(pw).item() == pytest.approx(coefficient_of_variation(pairs).item())
    a = r / 2
    assert torch.allclose(head_noncommutativity(pw), torch.tensor([a, a, 2 * a], dtype=pw.dtype))
    # values a, a, 2a: mean 4a/3, population std √2·a/3, CV √2/4
    assert head_heterogeneity(pw).item() == pytest.approx(math.sqrt(2) / 4)
    with pytest.raises(ValueError, match="'maps'"):
        pairwise_noncommutativity(torch.zeros(1, 3, 3))


def test_functional_noncommutativity_weights_pairs_by_value_content():
    pw = pairwise_noncommutativity(layer_of_three())
    for c in ([1.0, 1.0, 1.0], [2.5, 2.5, 2.5]):
        assert functional_noncommutativity(pw, torch.tensor(c, dtype=pw.dtype)).item() == \
            pytest.approx(mean_noncommutativity(pw).item())
    def only(c):
        return functional_noncommutativity(pw, torch.tensor(c, dtype=pw.dtype)).item()

    assert only([1.0, 1.0, 0.0]) == 0  # only the commuting pair carries weight
    assert only([0.0, 1.0, 1.0]) == pytest.approx(1 / math.sqrt(2))
    with pytest.raises(ValueError, match="'value_content'"):
        functional_noncommutativity(pw, torch.ones(2, dtype=pw.dtype))


# ---------------------------------------------------------------------------- head maps
def test_head_maps_match_the_slices_by_hand():
    model = fresh(3, n=2)
    state = model.member_state(1)
    ov, qk = head_maps(state, "ov"), head_maps(state, "qk")
    assert ov.shape == qk.shape == (1, 4, H, D, D)
    for layer, h in ((0, 0), (2, 3)):
        c = slice(h * DH, (h + 1) * DH)
        Wq, Wk, Wv, Wo = (state[f"blocks.{layer}.{k}"] for k in ("W_Q", "W_K", "W_V", "W_O"))
        assert torch.allclose(ov[0, layer, h], Wv[:, c] @ Wo[c, :], atol=1e-7)
        assert torch.allclose(qk[0, layer, h], Wq[:, c] @ Wk[:, c].T, atol=1e-7)
    # model, ensemble state dict and member state agree
    assert torch.allclose(head_maps(model, "ov")[1], ov[0])
    assert torch.allclose(head_maps(model.state_dict(), "qk"), head_maps(model, "qk"))
    with pytest.raises(ValueError, match="'kind'"):
        head_maps(state, "vo")


def test_head_outputs_add_up_to_the_attention_output(probe):
    """With the MLP zeroed, a block's residual update is its attention output: the heads' outputs
    (the model's ``head_out`` hook point) plus b_O; each head's output is also
    (pattern_h @ norm(x)) @ W_OV_h + b_V_h @ W_O_h."""
    model = fresh(5)
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for blk in model.blocks:
            for k in ("W_in", "b_in", "W_out", "b_out"):
                getattr(blk, k).zero_()
            blk.b_V.copy_(torch.randn(blk.b_V.shape, generator=g))
            blk.b_O.copy_(torch.randn(blk.b_O.shape, generator=g))
        _, cache = model.run_with_cache(probe.tokens, lambda name: True)
        slices = slice_states(cache)
        ov = head_maps(model, "ov")
        for layer in range(4):
            x = slices[layer]
            out = cache[f"blocks.{layer}.attn.hook_head_out"]  # (E, B, H, T, D)
            update = slices[layer + 1] - x
            attn = out.sum(2) + model.blocks[layer].b_O[:, None, None]
            assert torch.allclose(attn, update, atol=1e-4)
            n = norm(x, model.cfg.norm)
            blk = model.blocks[layer]
            for h in (0, 3):
                c = slice(h * DH, (h + 1) * DH)
                by_map = (cache[f"blocks.{layer}.attn.hook_pattern"][:, :, h] @ n @ ov[:, layer, h]
                          + blk.b_V[:, c] @ blk.W_O[:, c])
                assert torch.allclose(out[:, :, h], by_map, atol=1e-4)


# ---------------------------------------------------------------------------- sinks
def test_attention_received_by_hand():
    T = 6
    on_first = torch.zeros(1, 2, 1, T, T)
    on_first[..., 0] = 1.0
    r = attention_received(on_first)
    assert r.shape == (1, 1, T)
    # every query q gives position 0 all its attention: q + 1 times its uniform share
    assert r[0, 0, 0].item() == pytest.approx(np.mean([q + 1 for q in range(1, T)]))
    assert (r[0, 0, 1:-1] == 0).all() and torch.isnan(r[0, 0, -1])
    uniform = torch.ones(T, T).tril()
    uniform = (uniform / uniform.sum(-1, keepdim=True))[None, None]  # (B=1, H=1, T, T)
    r = attention_received(uniform)
    torch.testing.assert_close(r[0, :-1], torch.ones(T - 1))  # uniform attention: ratio 1


def constructed_patterns(T: int) -> torch.Tensor:
    """(1, 3, T, T) causal patterns: head 0 puts 0.9 of every query's attention on position 0
    (``?``); head 1 only the last query puts 0.9 on the position before it (the query's b
    operand, a number, seen by one query); head 2 puts 0.5 of every later query's attention on
    position 5 (the first example answer: the op's evidence). The rest is spread uniformly."""
    p = torch.ones(3, T, T).tril()
    p = p / p.sum(-1, keepdim=True)
    for q in range(1, T):
        p[0, q] = 0.1 * p[0, q] / p[0, q].sum()
        p[0, q, 0] += 0.9
    p[1, T - 1] = 0.1 * p[1, T - 1] / p[1, T - 1].sum()
    p[1, T - 1, T - 2] += 0.9
    for q in range(6, T):
        p[2, q] = 0.5 * p[2, q] / p[2, q].sum()
        p[2, q, 5] += 0.5
    torch.testing.assert_close(p.sum(-1), torch.ones(3, T))
    return p[None]


def test_sinks_are_syntax_positions_above_their_uniform_share_not_late_or_evidence_positions(probe):
    T = context_length(TASK)
    patterns = constructed_patterns(T)
    sinks = find_sinks(attention_received(patterns), probe.tokens)
    assert sinks.dominated.tolist() == [True, False, False]
    assert int(sinks.position[0]) == 0 and int(sinks.token[0]) == token_id(TASK, "?")
    # the uniform-blind detector (raw mean attention from later queries > 0.3) flagged all three
    later = torch.ones(T, T).tril(-1)
    raw = (patterns[0] * later).sum(-2) / later.sum(0)
    assert (raw.nan_to_num(0).amax(-1) > 0.3).tolist() == [True, True, True]
    assert raw[1].nan_to_num(0).argmax() == T - 2 and raw[2].nan_to_num(0).argmax() == 5


def sink_model(head=0, zero_output=True):
    """Head ``head`` of block 0 puts all its attention on position 0 (the ``?``): only ``?``
    has residual coordinate 0, only it has a key along it, and every query reads it strongly."""
    model = fresh(7)
    q = token_id(TASK, "?")
    with torch.no_grad():
        model.W_E[..., 0] = 0
        model.W_pos[..., 0] = 0
        model.W_E[0, q, 0] = 1.0
        blk = model.blocks[0]
        c = slice(head * DH, (head + 1) * DH)
        blk.W_K[0, :, c] = 0
        blk.W_K[0, 0, head * DH] = 1.0
        blk.b_Q[0, head * DH] = 100.0
        if zero_output:
            blk.W_O[0, c, :] = 0
    return model


def test_a_head_attending_to_the_question_mark_is_a_sink_and_an_anchor(probe):
    model = sink_model(head=2)
    act = head_activity(model, probe)
    assert act.received.shape == (1, 4, H, context_length(TASK))
    sinks = find_sinks(act.received, probe.tokens)
    assert sinks.position[0, 0, 2] == 0 and sinks.token[0, 0, 2] == token_id(TASK, "?")
    assert sinks.score[0, 0, 2] > 10 and sinks.dominated[0, 0, 2]  # ≈ mean of q + 1 over queries
    assert sinks.dominated.sum() == 1  # the near-uniform heads of a fresh model are not sinks
    assert act.value_content[0, 0, 2] == 0
    assert (act.value_content[0].flatten().sort().values[1:] > 0).all()
    classes = classify_heads(sinks.dominated, act.value_content)
    assert classes[0, 0, 2] == "anchor" and (classes == "anchor").sum() == 1
    # the same sink writing through its W_O is no anchor
    model = sink_model(head=2, zero_output=False)
    act = head_activity(model, probe)
    sinks = find_sinks(act.received, probe.tokens, SINK_THRESHOLD)
    assert sinks.dominated[0, 0, 2] and act.value_content[0, 0, 2] > 0
    with pytest.raises(ValueError, match="'threshold'"):
        find_sinks(act.received, probe.tokens, 0.5)


def test_classify_heads_by_hand():
    vc = torch.tensor([[[0.0, 1.0, 2.0, 3.0]]])  # median 1.5: anchor below 0.75, worker from 1.5
    dom = torch.tensor([[[True, True, True, False]]])
    assert classify_heads(dom, vc).tolist() == [[["anchor", "neither", "worker", "worker"]]]
    assert classify_heads(dom, vc, anchor_fraction=0.8, worker_fraction=1.0).tolist() == \
        [[["anchor", "anchor", "worker", "worker"]]]
    with pytest.raises(ValueError, match="'anchor_fraction'"):
        classify_heads(dom, vc, anchor_fraction=2.0, worker_fraction=1.0)


# ---------------------------------------------------------------------------- change
def test_relative_change_by_hand():
    x = torch.randn(3, 4, 4, generator=torch.Generator().manual_seed(2))
    assert torch.allclose(relative_change(x, 3 * x), torch.full((3,), 2.0))


# ---------------------------------------------------------------------------- gradients
def test_gradient_alignment_in_range_and_per_head(probe):
    model = fresh(11)
    cos = gradient_alignment(model, probe)
    assert cos.shape == (1, 4, H) and (cos.abs() <= 1 + 1e-6).all() and (cos != 0).any()
    # one head recomputed with masks over the full gradients (an independent route to the slices)
    layer, h = 1, 2
    blk = model.blocks[layer]
    params = [blk.W_V, blk.W_O]  # W_OV's own weights: W_Q and W_K do not enter it
    from anchorkit.measures.geometry import cross_entropy

    g_ce = torch.autograd.grad(cross_entropy(model, probe).sum(), params)
    nc = mean_noncommutativity(pairwise_noncommutativity(head_maps(model, "ov")))[0, layer]
    g_nc = torch.autograd.grad(nc, params, allow_unused=True)
    masks = [torch.zeros(1, D, D) for _ in params]
    c = slice(h * DH, (h + 1) * DH)
    masks[0][:, :, c] = 1
    masks[1][:, c, :] = 1
    g_nc = [torch.zeros_like(m) if g is None else g for g, m in zip(g_nc, masks)]
    a = torch.cat([(g * m).flatten() for g, m in zip(g_nc, masks)])
    b = torch.cat([(g * m).flatten() for g, m in zip(g_ce, masks)])
    expected = (a @ b / (a.norm() * b.norm())).item()
    assert cos[0, layer, h].item() == pytest.approx(expected, abs=1e-4)


def test_a_zero_head_has_no_noncommutativity_gradient_and_is_neutral(probe):
    model = fresh(13)
    c = slice(1 * DH, 2 * DH)
    with torch.no_grad():
        blk = model.blocks[2]
        for k in ("W_Q", "W_K", "W_V"):
            getattr(blk, k)[:, :, c] = 0
        blk.W_O[:, c, :] = 0
    cos = gradient_alignment(model, probe)
    assert cos[0, 2, 1] == 0 and torch.isfinite(cos).all()
    assert gradient_classes(cos)[0, 2, 1] == "neutral"
    assert all(p.requires_grad for p in model.parameters())


def test_gradient_classes_are_bidirectional():
    cos = torch.tensor([0.5, -0.5, 0.05, 0.1, -0.1])
    assert gradient_classes(cos, tau=0.1).tolist() == \
        ["agreeing", "disagreeing", "neutral", "neutral", "neutral"]
    with pytest.raises(ValueError, match="'tau'"):
        gradient_classes(cos, tau=-0.1)


# ---------------------------------------------------------------------------- tables
@pytest.fixture(scope="module")
def runs():
    out = []
    for seed in (1, 2):
        cfg = small(seed=seed)
        init = initial_state(cfg)
        g = torch.Generator().manual_seed(seed)
        final = {k: v + 0.01 * torch.randn(v.shape, generator=g) for k, v in init.items()}
        out.append(TrainedRun(cfg, init, final, pd.DataFrame()))
    return out


def test_head_table_is_tidy(runs, probe):
    t = head_table(runs, batch=probe)
    assert len(t) == 2 * 2 * 4 * H
    for col in ("run", "seed", "recipe", "optimizer", "stage", "layer", "head", "value_content",
                "sink_position", "sink_token", "sink_score", "sink_dominated",
                "mean_noncommutativity", "class", "ov_change", "gradient_alignment",
                "gradient_class"):
        assert col in t.columns
    per_head = t.groupby(["run", "layer", "head"]).ov_change.nunique()
    assert (per_head == 1).all() and (t.ov_change > 0).all()
    assert (t[t.stage == "final"].ov_change_to_final == 0).all()
    initial = t[t.stage == "initial"]
    assert (initial.ov_change_to_final == initial.ov_change).all()


def test_head_table_reads_snapshots_between_initial_and_final(runs, probe):
    run = runs[0]
    half = {k: (run.initial[k] + run.final[k]) / 2 for k in run.initial}
    t = head_table([run], batch=probe, gradients=False,
                   snapshots={run.config.hash: {0: run.initial, 2: half, run.config.epochs: run.final}})
    assert t.groupby("stage").epoch.unique().to_dict() == {
        "initial": [0], "snapshot": [2], "final": [run.config.epochs]}
    mid = t[t.stage == "snapshot"].set_index(["layer", "head"])
    start = t[t.stage == "initial"].set_index(["layer", "head"])
    # halfway there, the change still to come is a fraction of the whole change
    assert (mid.ov_change_to_final < start.ov_change_to_final).all()


def test_layer_table_enrichment(runs):
    t = layer_table(runs[:1])
    assert len(t) == 4 * 4
    assert np.allclose(t.enrichment, t.final / t.initial)
    assert t.boundary.tolist().count(True) == 2 * 4


# ---------------------------------------------------------------------------- the heads shown
def test_head_picture_is_causal_and_its_written_norm_is_what_query_zero_receives(probe):
    from anchorkit.core.model import per_block
    from anchorkit.measures.geometry import head_picture

    model = fresh(seed=3)
    pattern, written = head_picture(model, probe, layer=2, head=1)
    T = context_length(TASK)
    grid = torch.tensor(pattern.pivot(index="query", columns="key", values="attention").values)
    assert grid.shape == (T, T) and torch.allclose(grid.sum(1), torch.ones(T, dtype=grid.dtype))
    assert (grid.triu(1) == 0).all() and list(written.key) == list(range(T))
    # query 0 attends to key 0 alone, so what the head writes there is v_0 W_O[h] itself: the
    # picture's bar at key 0 equals the model's own record of the head's write at position 0
    _, cache = model.run_with_cache(probe.tokens, model.hook_names("head_out"))
    out = per_block(cache, "head_out", model.cfg.n_blocks)[2][0, :, 1, 0]  # (B, D)
    assert written.written[0] == pytest.approx(out.norm(dim=-1).mean().item(), rel=1e-5)
    # a head that writes nothing (its rows of W_O zero) has no bar anywhere, whatever it attends
    with torch.no_grad():
        model.blocks[2].W_O[0, DH:2 * DH] = 0
    assert (head_picture(model, probe, 2, 1)[1].written == 0).all()
    assert (head_picture(model, probe, 2, 0)[1].written > 0).all()


@pytest.mark.parametrize("bad", [{"layer": 4}, {"layer": -1}, {"head": 4}, {"head": True}])
def test_head_picture_names_a_bad_layer_or_head(probe, bad):
    from anchorkit.core.config import ParameterError
    from anchorkit.measures.geometry import head_picture

    with pytest.raises(ParameterError, match=next(iter(bad))):
        head_picture(fresh(), probe, **{"layer": 0, "head": 0, **bad})


def test_shown_heads_follow_the_rule_and_say_when_no_run_has_both():
    from anchorkit.measures.geometry import SHOWN, shown_heads

    def head(run, seed, opt, layer, h, sink, score, cls, vc):
        return {"run": run, "seed": seed, "optimizer": opt, "layer": layer, "head": h,
                "sink_dominated": sink, "sink_score": score, "class": cls, "value_content": vc}

    rows = [  # seed 1 has a sink that writes much (no anchor) and no worker outside sinks;
        # seed 2's rotated run has both anchors and workers
        head("a", 1, "adam", 0, 0, True, 9.0, "worker", 5.0),
        head("a", 1, "adam", 0, 1, False, 1.0, "neither", 0.5),
        head("a", 1, "adam", 0, 2, True, 99.0, "worker", 7.0),
        head("b", 2, "rotated", 0, 0, True, 4.0, "anchor", 0.1),
        head("b", 2, "rotated", 1, 2, True, 6.0, "anchor", 0.2),
        head("b", 2, "rotated", 2, 3, False, 1.2, "worker", 2.0),
        head("b", 2, "rotated", 3, 0, False, 1.1, "worker", 3.0),
        head("c", 3, "adam", 0, 0, True, 50.0, "anchor", 0.1),
        head("c", 3, "adam", 1, 0, False, 1.0, "worker", 9.0),
    ]
    got = shown_heads(pd.DataFrame(rows))
    assert list(got.shown) == list(SHOWN) and set(got.run) == {"b"}
    assert (got.layer.tolist(), got["head"].tolist()) == ([1, 3], [2, 0])
    assert shown_heads(pd.DataFrame(rows[:3])) is None
    # a sink-dominated head that writes much is no anchor: with a worker beside it, still none
    assert shown_heads(pd.DataFrame(rows[:3] + [head("a", 1, "adam", 1, 1, False, 1.0,
                                                     "worker", 3.0)])) is None
