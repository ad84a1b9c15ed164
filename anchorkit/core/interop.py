"""A stored or published run opened in TransformerLens (the optional ``interop`` extra: pinned
``transformer-lens``), so that a reader uses the field's own tools on our models: attention
pattern plots, activation patching, logit lens.

TransformerLens 4 builds its own small models as a ``TransformerBridge`` around its native
transformer (``TransformerBridge.boot_native``) and loads weights written in the classic
``HookedTransformer`` layout through ``convert_tl_checkpoint``; ``to_transformer_lens`` writes a
run's weights in that layout. Nothing is folded or centred (TransformerLens's ``from_pretrained``
would fold and centre by default, which changes the basis the report is about): the norms are
parameter-free (``RMSPre``, or ``LNPre`` for a LayerNorm without affine), a model without learned
positions gets a positional table of zeros, one without residual-write biases gets zero biases,
the unembedding stays untied. After ``enable_compatibility_mode`` the bridge answers to the
classic hook names anchorkit's own model uses (``blocks.{i}.hook_resid_pre``/``hook_resid_post``,
``blocks.{i}.attn.hook_pattern``, ``blocks.{i}.attn.hook_z``). A head's write to the residual
stream (anchorkit's ``attn.hook_head_out``, which also answers to TransformerLens's classic
``attn.hook_result``) is ``head_writes``: ``hook_z`` through the head's ``W_O``, since the native
bridge's attention in TransformerLens 4.3 offers no per-head result hook.
"""

from __future__ import annotations

import torch

from anchorkit.core.config import RunConfig
from anchorkit.core.task import context_length, n_numbers, positions, vocab_size

NORMS = {"rms": "RMSPre", "layer": "LNPre"}  # anchorkit's parameter-free norms, by TL's names


def _require():
    try:
        import transformer_lens  # noqa: F401
    except ImportError:
        raise ImportError("TransformerLens is the optional 'interop' extra: pip install -e "
                          "'.[interop]' (transformer-lens, pinned in pyproject.toml)") from None


def bridge_config(cfg: RunConfig):
    """The ``TransformerBridgeConfig`` of a run's model."""
    _require()
    from transformer_lens import TransformerBridgeConfig

    m = cfg.model
    return TransformerBridgeConfig(
        d_model=m.d_model, n_layers=m.n_blocks, d_mlp=m.d_mlp, d_head=m.d_model // m.n_heads,
        n_heads=m.n_heads, n_ctx=context_length(cfg.task), d_vocab=vocab_size(cfg.task),
        act_fn="gelu", normalization_type=NORMS[m.norm], final_rms=False, eps=1e-5,
        positional_embedding_type="standard", architecture="TransformerLensNative",
        use_attn_result=True)


def hooked_state(cfg: RunConfig, state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A run's weights (one member, as the store holds them) in TransformerLens's classic
    ``HookedTransformer`` layout: per-head W_Q/W_K/W_V (H, D, dh), W_O (H, dh, D), zero key bias
    (anchorkit's model has none), zeros where the regime has no positions or residual biases."""
    m = cfg.model
    D, H = m.d_model, m.n_heads
    dh = D // H
    T = context_length(cfg.task)
    out = {"embed.W_E": state["W_E"],
           "pos_embed.W_pos": state.get("W_pos", torch.zeros(T, D)),
           "unembed.W_U": state["W_U"], "unembed.b_U": state["b_U"]}
    for i in range(m.n_blocks):
        p = f"blocks.{i}."
        a = p + "attn."
        for name in ("Q", "K", "V"):
            out[a + f"W_{name}"] = state[p + f"W_{name}"].view(D, H, dh).permute(1, 0, 2)
        out[a + "b_Q"] = state[p + "b_Q"].view(H, dh)
        out[a + "b_K"] = torch.zeros(H, dh)
        out[a + "b_V"] = state[p + "b_V"].view(H, dh)
        out[a + "W_O"] = state[p + "W_O"].view(H, dh, D)
        out[a + "b_O"] = state.get(p + "b_O", torch.zeros(D))
        out[p + "mlp.W_in"], out[p + "mlp.b_in"] = state[p + "W_in"], state[p + "b_in"]
        out[p + "mlp.W_out"] = state[p + "W_out"]
        out[p + "mlp.b_out"] = state.get(p + "b_out", torch.zeros(D))
    return {k: v.detach().clone().float().contiguous() for k, v in out.items()}


def to_transformer_lens(cfg: RunConfig, state: dict[str, torch.Tensor], compatibility: bool = True):
    """The run as a TransformerLens ``TransformerBridge`` holding its weights (in compatibility
    mode, with the classic hook names, unless ``compatibility`` is False). Feed it token ids
    (B, T) of the task's vocabulary (``anchorkit.core.task``), as anchorkit's model takes them."""
    _require()
    from transformer_lens.model_bridge.sources.native import boot
    from transformer_lens.utilities.tl_checkpoint_conversion import convert_tl_checkpoint

    bcfg = bridge_config(cfg)
    bridge = boot(bcfg, dtype=torch.float32)
    result = bridge.load_state_dict(convert_tl_checkpoint(hooked_state(cfg, state), bcfg),
                                    strict=True)
    assert not result.missing_keys and not result.unexpected_keys, result
    if compatibility:
        bridge.enable_compatibility_mode(disable_warnings=True, no_processing=True)
    return bridge.eval()


def query_position(cfg: RunConfig) -> int:
    """Where the query's answer is predicted (the final '='): read the logits there."""
    return positions(cfg.task).query


def number_tokens(cfg: RunConfig) -> int:
    """The answers are the first this many token ids (the numbers): argmax over ``[:n]``."""
    return n_numbers(cfg.task)


def head_writes(bridge, cache, layer: int) -> torch.Tensor:
    """Each head's write to the residual stream at block ``layer`` (B, T, H, D), from a
    TransformerLens cache: ``hook_z`` (B, T, H, dh) through the head's W_O (H, dh, D), the
    output bias left out (anchorkit's ``attn.hook_head_out``, in TransformerLens's axis order)."""
    z = cache[f"blocks.{layer}.attn.hook_z"]
    with torch.no_grad():
        W_O = bridge.blocks[layer].attn.W_O.detach()
        return torch.einsum("bthd,hdm->bthm", z, W_O)


def from_store(cfg: RunConfig, store=None, compatibility: bool = True):
    """A stored or published run (its final weights, checked) opened in TransformerLens."""
    from anchorkit.core.store import RunStore

    store = store if store is not None else RunStore()
    return to_transformer_lens(cfg, store.load_final(cfg), compatibility)
