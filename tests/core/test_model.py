import pytest
import torch

from anchorkit import ModelConfig, TaskConfig
from anchorkit.core.model import (HOOK_POINTS, RESIDUAL_AXES, Transformer, block_name, every_slice,
                                  haar_rotation, hook_names, per_block, residual_axis, slice_name,
                                  slice_states)
from anchorkit.core.task import epoch_batches, probe_set

TASK = TaskConfig()


def rotate_state(state: dict, R: torch.Tensor) -> dict:
    """Weights of the same model written in the basis R: x' = Rᵀx on every residual axis."""
    out = {}
    for name, w in state.items():
        axis = residual_axis(name)
        if axis is None:
            out[name] = w.clone()
        else:
            axis += 1  # leading run dimension
            out[name] = torch.tensordot(w, R, dims=([axis], [0])).movedim(-1, axis)
    return out


def test_norms_have_no_parameters_and_every_residual_axis_is_listed():
    m = Transformer(1, ModelConfig(), TASK)
    D = m.cfg.d_model
    leaves = {n.rsplit(".", 1)[-1] for n, _ in m.named_parameters()}
    assert leaves == set(RESIDUAL_AXES) | {"b_Q", "b_V", "b_in", "b_U"}
    for name, p in m.named_parameters():
        axis = residual_axis(name)
        if axis is not None:
            assert p.shape[axis + 1] == D, name


@pytest.mark.parametrize("norm", ["rms"])
def test_model_function_is_invariant_to_rotating_every_residual_axis(norm):
    """The residual basis carries no meaning for the forward pass: only the optimizer sees it."""
    cfg = ModelConfig(norm=norm)
    m = Transformer(1, cfg, TASK).initialise([3]).double()
    R = haar_rotation(3, cfg.d_model, torch.float64)
    m2 = Transformer(1, cfg, TASK).double()
    m2.load_state_dict(rotate_state(m.state_dict(), R))
    tokens = epoch_batches(TASK, 1, 0, 16, 16)[0].tokens
    l1, cache = m.run_with_cache(tokens, m.hook_names("resid"))
    s1 = slice_states(cache)
    l2, cache = m2.run_with_cache(tokens, m2.hook_names("resid"))
    s2 = slice_states(cache)
    torch.testing.assert_close(l1, l2, rtol=1e-9, atol=1e-9)
    for a, b in zip(s1, s2):  # states themselves are rotated: x' = Rᵀx
        torch.testing.assert_close(a @ R, b, rtol=1e-9, atol=1e-9)


def test_layernorm_without_affine_is_not_rotation_invariant():
    """Why the method uses RMS norm: subtracting the mean privileges the all-ones direction."""
    cfg = ModelConfig(norm="layer")
    m = Transformer(1, cfg, TASK).initialise([3]).double()
    R = haar_rotation(3, cfg.d_model, torch.float64)
    m2 = Transformer(1, cfg, TASK).double()
    m2.load_state_dict(rotate_state(m.state_dict(), R))
    tokens = epoch_batches(TASK, 1, 0, 16, 16)[0].tokens
    assert not torch.allclose(m(tokens), m2(tokens), atol=1e-6)


def test_hooks_read_and_replace_the_state_at_a_slice():
    m = Transformer(2, ModelConfig(), TASK).initialise([1, 2])
    tokens = epoch_batches(TASK, 1, 0, 8, 8)[0].tokens
    logits, cache = m.run_with_cache(tokens, m.hook_names("resid"))
    slices = slice_states(cache)
    assert len(slices) == 5 and slices[0].shape == (2, 8, tokens.shape[1], 64)
    assert slices[2] is cache["blocks.1.hook_resid_post"]  # slice 2: the state after block 2
    seen = {}
    m(tokens, hooks={slice_name(2): lambda x: seen.setdefault("x", x)})
    torch.testing.assert_close(seen["x"], slices[2])
    zeroed = m(tokens, hooks={"blocks.3.hook_resid_post": torch.zeros_like})
    assert torch.allclose(zeroed, zeroed[:, :, :1])  # nothing left but the unembedding bias


def test_attention_patterns_match_the_fused_path():
    m = Transformer(1, ModelConfig(), TASK).initialise([5])
    tokens = epoch_batches(TASK, 1, 0, 8, 8)[0].tokens
    fused = m(tokens)
    manual, cache = m.run_with_cache(tokens, m.hook_names("pattern"))
    patterns = per_block(cache, "pattern", 4)
    torch.testing.assert_close(fused, manual, rtol=1e-5, atol=1e-5)
    assert len(patterns) == 4
    torch.testing.assert_close(patterns[0].sum(-1), torch.ones_like(patterns[0][..., 0]))
    assert patterns[0].triu(1).abs().max() == 0  # causal


def test_haar_rotation_is_orthogonal_and_seeded():
    R = haar_rotation(704, 64)
    torch.testing.assert_close(R.T @ R, torch.eye(64), atol=1e-5, rtol=0)
    assert torch.equal(R, haar_rotation(704, 64))
    assert not torch.equal(R, haar_rotation(705, 64))


def test_matmul_attention_matches_the_fused_path():
    m = Transformer(2, ModelConfig(), TASK).initialise([5, 6])
    tokens = epoch_batches(TASK, 1, 0, 8, 8)[0].tokens
    torch.testing.assert_close(m(tokens, attention="matmul"), m(tokens), rtol=1e-5, atol=1e-5)


def test_without_learned_positions_the_last_state_ignores_the_order_before_it():
    """With no positional embedding only the causal mask orders tokens: in one block the last
    position attends to the set of earlier tokens, so shuffling them changes nothing there (and
    does with W_pos). (Over several blocks the order reaches it through the earlier states.)"""
    tokens = epoch_batches(TASK, 1, 0, 4, 4)[0].tokens
    T = tokens.shape[1]
    shuffled = tokens.clone()
    perm = torch.randperm(T - 1, generator=torch.Generator().manual_seed(0))
    shuffled[:, : T - 1] = tokens[:, perm]
    for positions, same in ((False, True), (True, False)):
        cfg = ModelConfig(n_blocks=1, learned_positions=positions)
        m = Transformer(1, cfg, TASK).initialise([2]).double()
        a, b = m(tokens)[:, :, -1], m(shuffled)[:, :, -1]
        assert torch.allclose(a, b, atol=1e-9) == same
        assert ("W_pos" in dict(m.named_parameters())) == positions


def test_without_residual_biases_the_blocks_write_no_constant():
    m = Transformer(1, ModelConfig(residual_biases=False), TASK).initialise([2])
    names = {n.rsplit(".", 1)[-1] for n, _ in m.named_parameters()}
    assert not names & {"b_O", "b_out"} and {"b_Q", "b_V", "b_in", "b_U"} <= names
    # a zero state at the embedding stays zero through every block: nothing writes a constant
    tokens = epoch_batches(TASK, 1, 0, 4, 4)[0].tokens
    zero_embedding = {"blocks.0.hook_resid_pre": torch.zeros_like}
    slices = slice_states(m.run_with_cache(tokens, m.hook_names("resid"), zero_embedding)[1])
    assert all(s.abs().max() == 0 for s in slices)
    with_biases = Transformer(1, ModelConfig(), TASK).initialise([2])
    for blk in with_biases.blocks:
        blk.b_out.data.fill_(0.1)
    slices = slice_states(with_biases.run_with_cache(tokens, with_biases.hook_names("resid"),
                                                     zero_embedding)[1])
    assert slices[1].abs().max() > 0


def test_the_hook_points_are_recorded_and_unknown_ones_named():
    """``run_with_cache`` records the slices, each block's pattern and its heads' writes with the
    shapes the measures read, under their names; the logits equal a plain forward's; a misspelt
    name, a hook at a point that is no slice, and a cache short of a slice are each named."""
    cfg, task = ModelConfig(), TaskConfig()
    model = Transformer(2, cfg, task).initialise([1, 2])
    tokens = probe_set(task).clean.tokens[:3]
    everything = [n for point in HOOK_POINTS for n in model.hook_names(point)]
    logits, cache = model.run_with_cache(tokens, everything)
    L, E, (B, T), H, D = cfg.n_blocks, 2, tokens.shape, cfg.n_heads, cfg.d_model
    assert sorted(cache) == sorted(everything) and len(everything) == 3 * L + 1
    assert len(slice_states(cache)) == L + 1 and cache["blocks.0.hook_resid_pre"].shape == (E, B, T, D)
    assert [p.shape for p in per_block(cache, "pattern", L)] == [(E, B, H, T, T)] * L
    assert [o.shape for o in per_block(cache, "head_out", L)] == [(E, B, H, T, D)] * L
    assert torch.allclose(logits, model(tokens), atol=1e-5)
    assert torch.equal(model.run_with_cache(tokens, model.hook_names("resid"))[0], model(tokens))
    assert isinstance(model(tokens), torch.Tensor)  # forward returns the logits, nothing else
    # a filter, as TransformerLens's names_filter; one name alone
    _, only = model.run_with_cache(tokens, lambda name: name.endswith("hook_pattern"))
    assert list(only) == model.hook_names("pattern")
    assert list(model.run_with_cache(tokens, "blocks.2.hook_resid_post")[1]) == ["blocks.2.hook_resid_post"]
    with pytest.raises(ValueError, match="head_outs"):
        model.run_with_cache(tokens, ["blocks.0.attn.hook_head_outs"])
    with pytest.raises(ValueError, match="blocks.0.attn.hook_pattern"):  # hooks replace slices only
        model(tokens, hooks={"blocks.0.attn.hook_pattern": torch.zeros_like})
    with pytest.raises(ValueError, match="unknown points \\[2\\]"):  # no bare slice numbers
        model(tokens, hooks={2: torch.zeros_like})
    with pytest.raises(KeyError, match="blocks.0.hook_resid_post"):
        slice_states({"blocks.0.hook_resid_pre": 0, "blocks.1.hook_resid_post": 1})


def test_every_cached_entry_has_its_conventional_name():
    assert hook_names("resid", 2) == ["blocks.0.hook_resid_pre", "blocks.0.hook_resid_post",
                                      "blocks.1.hook_resid_post"]
    assert hook_names("pattern", 2) == ["blocks.0.attn.hook_pattern", "blocks.1.attn.hook_pattern"]
    assert hook_names("head_out", 1) == ["blocks.0.attn.hook_head_out"]
    assert block_name(3, "pattern") == "blocks.3.attn.hook_pattern"
    assert [slice_name(s) for s in range(3)] == hook_names("resid", 2)
    assert list(every_slice(torch.zeros_like, 3)) == hook_names("resid", 2)
    with pytest.raises(ValueError, match="hook point"):
        hook_names("resids", 2)
