"""A published run opened in TransformerLens agrees with anchorkit's model on every activation
(anchorkit.core.interop; the optional ``interop`` extra). TransformerLens computes the forward pass with
its own code (its native transformer: its embedding, norms, attention and MLP modules), so this is
an independent implementation checking ours.

Tolerance: float32, max |ours − TransformerLens| ≤ ``RTOL`` × max |ours| per tensor, over all
2048 probe contexts. The two compute the same sums in different orders and kernels (a fused
attention kernel or an explicit softmax, batched matmuls or linear layers, x·rsqrt or x/sqrt), so
they agree to rounding, not bitwise. Float32's unit roundoff is 6e-8; in the weak-basis regime the
largest difference is 6e-6 of a tensor's largest entry. The second regime's residual norms reach
several hundred and its attention is sharp, so a score of tens rounded a few units in the last
place moves a softmax weight by about 1e-4: measured at most 2.4e-4 (block 2's pattern; 9e-5 for
every other tensor), on an AMD EPYC. 1e-3 leaves four times that, and is still far below what a
bug gives (a head's weights mis-grouped, a missing bias or norm moves entries by their own size).
"""

import pytest
import torch

pytest.importorskip("transformer_lens", reason="the optional interop extra: pip install -e '.[interop]'")

from anchorkit.core import interop  # noqa: E402
from anchorkit.core.edit import e1, projection_edit  # noqa: E402
from anchorkit.core.scores import query_predictions  # noqa: E402
from anchorkit.engine.regimes import REPORT  # noqa: E402
from anchorkit.core.store import RunStore  # noqa: E402
from anchorkit.core.task import probe_set  # noqa: E402
from anchorkit.core.train import load_model  # noqa: E402

RTOL = 1e-3


def close(ours: torch.Tensor, theirs: torch.Tensor) -> float:
    """max |ours − theirs| over max |ours|."""
    assert ours.shape == theirs.shape
    return float((ours - theirs).abs().max() / ours.abs().max())


# one published run per model the report's regimes train (a regime that only swaps a recipe, the
# recalibrated one, has its parent's model: the same code, checked once)
MODELS = [r for i, r in enumerate(REPORT)
          if all(r.settings()["model"] != q.settings()["model"] for q in REPORT[:i])]


@pytest.fixture(scope="module", params=[r.name for r in MODELS])
def opened(request):
    regime = next(r for r in MODELS if r.name == request.param)
    cfg = regime.configure(704, "falloff", "rotated")  # a published run of each regime
    state = RunStore().load_final(cfg)
    batch = probe_set(cfg.task).clean
    return cfg, load_model([cfg], [state]), interop.to_transformer_lens(cfg, state), batch


def test_every_activation_agrees_with_transformer_lens(opened):
    cfg, ours, tl, batch = opened
    tokens = batch.tokens
    names = [n for p in ("resid", "pattern", "head_out") for n in ours.hook_names(p)]
    with torch.inference_mode():
        logits, cache = ours.run_with_cache(tokens, names)
        tl_logits, tl_cache = tl.run_with_cache(tokens)
    assert close(logits[0], tl_logits) <= RTOL
    for name in ours.hook_names("resid") + ours.hook_names("pattern"):
        assert close(cache[name][0], tl_cache[name]) <= RTOL, name
    for layer, name in enumerate(ours.hook_names("head_out")):
        mine = cache[name][0].permute(0, 2, 1, 3)  # (B, H, T, D) as TransformerLens's (B, T, H, D)
        assert close(mine, interop.head_writes(tl, tl_cache, layer)) <= RTOL, name


def test_the_e1_edit_as_a_transformer_lens_hook_gives_the_same_edited_answers(opened):
    cfg, ours, tl, batch = opened
    tokens = batch.tokens
    edit = projection_edit(e1(cfg.model.d_model), 1.0, ours.n_slices)
    mine = query_predictions(ours, batch, edit)[0]

    def project_out_e1(x, hook):  # x − (x·e₁) e₁ at every position
        x = x.clone()
        x[..., 0] = 0
        return x

    points = ["blocks.0.hook_resid_pre"] + [f"blocks.{i}.hook_resid_post"
                                            for i in range(cfg.model.n_blocks)]
    with torch.inference_mode():
        edited = tl.run_with_hooks(tokens, fwd_hooks=[(p, project_out_e1) for p in points])
        clean = tl(tokens)
    q, numbers = interop.query_position(cfg), interop.number_tokens(cfg)
    theirs = edited[:, q, :numbers].argmax(-1)
    assert torch.equal(mine, theirs)
    assert not torch.equal(clean[:, q, :numbers].argmax(-1), theirs)  # the edit did something


def test_the_head_write_answers_to_transformer_lens_classic_name(opened):
    cfg, ours, tl, batch = opened
    with torch.inference_mode():
        _, cache = ours.run_with_cache(batch.tokens[:8], ["blocks.1.attn.hook_result",
                                                          "blocks.1.attn.hook_head_out"])
    assert torch.equal(cache["blocks.1.attn.hook_result"], cache["blocks.1.attn.hook_head_out"])


def test_nothing_is_folded_or_centred(opened):
    cfg, ours, tl, batch = opened
    state = RunStore().load_final(cfg)
    assert torch.equal(tl.blocks[0].attn.W_O.detach().reshape(-1, cfg.model.d_model),
                       state["blocks.0.W_O"])
    assert torch.equal(tl.W_U.detach(), state["W_U"])
