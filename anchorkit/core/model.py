"""The transformer (book/methods.md, *The model and its slices*), written for an ensemble: every weight has a leading run dimension.

An ensemble of one is the per-run path. Pre-norm blocks (attention, then a GELU MLP), learned
positions, a final norm, an untied unembedding. The norms have no gain or bias, so no parameter
privileges a coordinate of the residual stream.

**Slices**: slice 0 is the residual state after the embedding, slice s (1..n_blocks) the state
after block s. A hook at a slice reads or replaces the state at every position. Hooks and the
recorded cache are keyed by TransformerLens's names: slice 0 is ``blocks.0.hook_resid_pre``,
slice s is ``blocks.{s-1}.hook_resid_post`` (``slice_name``); ``slice_states(cache)`` is the thin
alias that lists a cache's slices by number.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import torch
import torch.nn.functional as F
from torch import nn

from anchorkit.core.config import ModelConfig, TaskConfig, generator
from anchorkit.core.task import context_length, vocab_size

# For every parameter with a residual axis: that axis (in the per-run tensor, without the
# leading run dimension). Rotated Adam rotates exactly these axes (book/methods.md, *The optimizers*).
RESIDUAL_AXES = {
    "W_E": 1, "W_pos": 1,
    "W_Q": 0, "W_K": 0, "W_V": 0, "W_O": 1, "b_O": 0,
    "W_in": 0, "W_out": 1, "b_out": 0,
    "W_U": 0,
}

Hook = Callable[[torch.Tensor], torch.Tensor]
# what a forward can record (``Transformer.run_with_cache``): the state at every slice, and per
# block its attention pattern and each head's write to the residual stream
HOOK_POINTS = ("resid", "pattern", "head_out")
# a block point's other name: a head's write is TransformerLens's classic ``attn.hook_result``
ALIASES = {"result": "head_out"}


def slice_name(s: int) -> str:
    """The field's (TransformerLens's) name of slice ``s``: ``blocks.0.hook_resid_pre`` for the
    state after the embedding, ``blocks.{s-1}.hook_resid_post`` for the state after block s."""
    if s < 0:
        raise ValueError(f"slice must be 0 or more, got {s}")
    return "blocks.0.hook_resid_pre" if s == 0 else f"blocks.{s - 1}.hook_resid_post"


def block_name(layer: int, point: str) -> str:
    """The field's name of a block's hook point: ``blocks.{layer}.attn.hook_{point}``."""
    return f"blocks.{layer}.attn.hook_{point}"


def hook_names(point: str, n_blocks: int) -> list[str]:
    """The names of a hook point's entries in ``run_with_cache``'s cache, in the order a forward
    records them: ``resid`` is every slice (``slice_name``); ``pattern`` is
    ``blocks.{i}.attn.hook_pattern``; ``head_out`` ``blocks.{i}.attn.hook_head_out``."""
    if point == "resid":
        return [slice_name(s) for s in range(n_blocks + 1)]
    if point in ("pattern", "head_out"):
        return [block_name(i, point) for i in range(n_blocks)]
    raise ValueError(f"unknown hook point {point!r}; expected one of {HOOK_POINTS}")


def every_slice(hook: Hook, n_slices: int) -> dict[str, Hook]:
    """``hook`` at every slice, keyed by the slices' names (what ``Transformer.forward`` takes)."""
    return {slice_name(s): hook for s in range(n_slices)}


def slice_states(cache: Mapping[str, torch.Tensor]) -> list[torch.Tensor]:
    """The residual state at every slice from a ``run_with_cache`` cache, as a list indexed by
    slice (the integer alias of the slices' names). The cache must hold every slice from 0 on."""
    n = sum(1 for name in cache if name.endswith(("hook_resid_pre", "hook_resid_post")))
    missing = [slice_name(s) for s in range(n) if slice_name(s) not in cache]
    if missing:
        raise KeyError(f"the cache lacks slices {missing}; record every slice "
                       f"(model.hook_names('resid')) to index them by number")
    return [cache[slice_name(s)] for s in range(n)]


def per_block(cache: Mapping[str, torch.Tensor], point: str, n_blocks: int) -> list[torch.Tensor]:
    """A block hook point's entries (``pattern`` or ``head_out``) from a cache, block by block."""
    if point == "resid":
        raise ValueError("resid is recorded per slice, not per block: use slice_states(cache)")
    return [cache[name] for name in hook_names(point, n_blocks)]


def residual_axis(name: str) -> int | None:
    """The residual axis of a parameter named like ``blocks.2.W_in`` (None if it has none)."""
    return RESIDUAL_AXES.get(name.rsplit(".", 1)[-1])


def norm(x: torch.Tensor, kind: str, eps: float = 1e-5) -> torch.Tensor:
    """RMS norm or LayerNorm, both without any per-coordinate gain or bias."""
    if kind == "layer":
        x = x - x.mean(-1, keepdim=True)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def haar_rotation(seed: int, d: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The run's Haar-random orthogonal R (QR of a Gaussian with the sign fix), from the model seed."""
    g = generator("rotation", seed)
    a = torch.randn(d, d, generator=g, dtype=torch.float64)
    q, r = torch.linalg.qr(a)
    q = q * torch.sign(torch.diagonal(r)).unsqueeze(0)
    return q.to(dtype)


def _write(bias: torch.Tensor | None, x: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """x @ W (+ bias): a block's write to the residual stream, per member."""
    return torch.bmm(x, W) if bias is None else torch.baddbmm(bias[:, None], x, W)


class Block(nn.Module):
    """One pre-norm block of every member: attention, then a GELU MLP, each adding its write to
    the residual stream. Its hook points (``HOOK_POINTS``): the attention ``pattern`` (E, B, H, T,
    T) and what each head writes, ``head_out`` (E, B, H, T, D): (pattern_h @ v_h) @ W_O[h] with
    v = norm(x) @ W_V + b_V; summed over heads, plus b_O, the block's attention write."""

    def __init__(self, E: int, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        D, M = cfg.d_model, cfg.d_mlp
        z = lambda *s: nn.Parameter(torch.zeros(E, *s))  # noqa: E731
        self.W_Q, self.W_K, self.W_V = z(D, D), z(D, D), z(D, D)
        # no key bias: it adds the same score to every key, so its gradient is rounding noise
        # that Adam would scale up into real steps
        self.b_Q, self.b_V = z(D), z(D)
        self.W_O, self.W_in, self.b_in, self.W_out = z(D, D), z(D, M), z(M), z(M, D)
        # the residual writes' biases, unless the model has none (then they are fixed at zero)
        self.b_O = z(D) if cfg.residual_biases else None
        self.b_out = z(D) if cfg.residual_biases else None

    def forward(self, x: torch.Tensor, causal: torch.Tensor, attention: str = "fused",
                record: frozenset = frozenset()) -> tuple[torch.Tensor, dict]:
        """The state after the block (E, B, T, D) from the state before it, and the hook points
        named in ``record`` (``pattern``, ``head_out``). ``causal`` (T, T) is True where a query
        may attend. A recorded pattern is computed by an explicit softmax, otherwise
        ``attention`` chooses the kernel (``Transformer.forward``)."""
        cfg = self.cfg
        E, B, T, D = x.shape
        H = cfg.n_heads
        dh = D // H
        n = norm(x, cfg.norm).reshape(E, B * T, D)
        w = torch.cat([self.W_Q, self.W_K, self.W_V], dim=2)
        bias = torch.cat([self.b_Q, torch.zeros_like(self.b_Q), self.b_V], dim=1)
        qkv = torch.baddbmm(bias[:, None], n, w).view(E, B, T, 3, H, dh)
        q, k, v = qkv.permute(3, 0, 1, 4, 2, 5).unbind(0)  # each (E, B, H, T, dh)
        cache = {}
        if record:
            scores = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
            pattern = scores.masked_fill(~causal, float("-inf")).softmax(-1)
            z = pattern @ v
            if "pattern" in record:
                cache["pattern"] = pattern
            if "head_out" in record:
                cache["head_out"] = z @ self.W_O.view(E, 1, H, dh, D)
        elif attention == "matmul":
            c = torch.zeros(causal.shape, device=x.device).masked_fill(~causal, float("-inf"))
            scores = torch.baddbmm(c, q.reshape(E * B * H, T, dh),
                                   k.reshape(E * B * H, T, dh).transpose(1, 2), alpha=1 / math.sqrt(dh))
            z = (scores.softmax(-1) @ v.reshape(E * B * H, T, dh)).view(E, B, H, T, dh)
        else:  # the fused kernel: same result, several times faster than masked_fill
            z = F.scaled_dot_product_attention(
                q.reshape(E * B, H, T, dh), k.reshape(E * B, H, T, dh),
                v.reshape(E * B, H, T, dh), is_causal=True).view(E, B, H, T, dh)
        z = z.permute(0, 1, 3, 2, 4).reshape(E, B * T, D)
        x = x + _write(self.b_O, z, self.W_O).view(E, B, T, D)
        n = norm(x, cfg.norm).reshape(E, B * T, D)
        h = F.gelu(torch.baddbmm(self.b_in[:, None], n, self.W_in))
        x = x + _write(self.b_out, h, self.W_out).view(E, B, T, D)
        return x, cache


class Transformer(nn.Module):
    """An ensemble of ``n_members`` transformers of one shape; member i is run i."""

    def __init__(self, n_members: int, cfg: ModelConfig, task: TaskConfig):
        super().__init__()
        self.cfg, self.task = cfg, task
        self.n_members = n_members
        E, D, V, T = n_members, cfg.d_model, vocab_size(task), context_length(task)
        self.W_E = nn.Parameter(torch.zeros(E, V, D))
        # learned positions, unless the model has none (then only the causal mask orders tokens)
        self.W_pos = nn.Parameter(torch.zeros(E, T, D)) if cfg.learned_positions else None
        self.blocks = nn.ModuleList(Block(E, cfg) for _ in range(cfg.n_blocks))
        self.W_U = nn.Parameter(torch.zeros(E, D, V))
        self.b_U = nn.Parameter(torch.zeros(E, V))
        self.register_buffer("causal", torch.ones(T, T, dtype=torch.bool).tril(), persistent=False)

    @property
    def n_slices(self) -> int:
        return self.cfg.n_blocks + 1

    # ------------------------------------------------------------------ initialisation
    @torch.no_grad()
    def initialise(self, seeds: list[int]) -> "Transformer":
        """Draw every member's weights from a generator derived from its model seed."""
        assert len(seeds) == self.n_members
        for i, seed in enumerate(seeds):
            g = generator("init", seed)
            for name, p in self.named_parameters():
                p[i] = self._init_value(name, p.shape[1:], g)
        return self

    def _init_value(self, name: str, shape, g: torch.Generator) -> torch.Tensor:
        leaf = name.rsplit(".", 1)[-1]
        if leaf.startswith("b_"):
            return torch.zeros(shape)
        if self.cfg.init == "gpt2":
            std = 0.02
        else:  # "scaled": unit embeddings, fan-in scaled matrices, damped residual writes
            fan_in = shape[0]
            std = 1.0 if leaf in ("W_E", "W_pos") else 1.0 / math.sqrt(fan_in)
            if leaf in ("W_O", "W_out"):
                std /= math.sqrt(2 * self.cfg.n_blocks)
        return torch.randn(shape, generator=g) * std

    # ------------------------------------------------------------------ members
    def member_state(self, i: int) -> dict[str, torch.Tensor]:
        return {k: v[i].detach().clone() for k, v in self.state_dict().items()}

    @classmethod
    def from_members(cls, states: list[dict], cfg: ModelConfig, task: TaskConfig) -> "Transformer":
        model = cls(len(states), cfg, task)
        model.load_state_dict({k: torch.stack([s[k] for s in states]) for k in states[0]})
        return model

    def hook_names(self, point: str) -> list[str]:
        """This model's names of a hook point's entries (the module's ``hook_names``)."""
        return hook_names(point, self.cfg.n_blocks)

    # ------------------------------------------------------------------ forward
    def forward(self, tokens: torch.Tensor, hooks: Mapping[str, Hook] | None = None,
                attention: str = "fused") -> torch.Tensor:
        """Logits (E, B, T, V) for tokens (E, B, T), or (B, T) shared by every member.

        ``hooks`` maps a slice's name (``slice_name``; ``every_slice`` puts one hook at all) to a
        function that receives the state (E, B, T, D) and returns the state to continue with.
        Whatever else is recorded goes through ``run_with_cache``.
        ``attention``: "fused" (torch's kernel, the reference) or "matmul" (two batched matmuls
        and a softmax: faster on these short contexts, the compiled training step's; equal up to
        rounding).
        """
        return self.run_with_cache(tokens, (), hooks, attention)[0]

    def _names(self, names) -> list[str]:
        """The hook names ``run_with_cache`` records: ``names`` is one name, a collection of
        names, or a filter (a function of a name), TransformerLens's ``names_filter``."""
        if not callable(names) and not names:  # a plain forward records nothing: nothing to check
            return []
        known = [n for point in HOOK_POINTS for n in self.hook_names(point)]
        known += [block_name(i, a) for a in ALIASES for i in range(self.cfg.n_blocks)]
        if callable(names):
            return [n for n in known if names(n)]
        names = [names] if isinstance(names, str) else list(names)
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"unknown hook names {unknown}; this model's are {known}")
        return names

    def _hooks(self, hooks: Mapping[str, Hook] | None) -> dict[int, Hook]:
        """``hooks`` keyed by slice number, after checking every key names a slice."""
        if not hooks:
            return {}
        names = {slice_name(s): s for s in range(self.n_slices)}
        unknown = [k for k in hooks if k not in names]
        if unknown:
            raise ValueError(f"hooks at unknown points {unknown}; a hook replaces the state at a "
                             f"slice, named {list(names)}")
        return {names[k]: hook for k, hook in hooks.items()}

    def run_with_cache(self, tokens: torch.Tensor, names=(), hooks: Mapping[str, Hook] | None = None,
                       attention: str = "fused") -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Logits and the hook points named in ``names`` (one name, names, or a filter; see
        ``hook_names``), keyed by name: a slice's state after its hook, a block's ``pattern``
        and ``head_out``. ``slice_states(cache)`` lists the slices by number."""
        names = frozenset(self._names(names))
        hooks = self._hooks(hooks)
        E, cfg = self.n_members, self.cfg
        if tokens.dim() == 2:
            tokens = tokens.unsqueeze(0).expand(E, *tokens.shape)
        _, B, T = tokens.shape
        D = cfg.d_model
        # one embedding table of E*V rows: its backward is deterministic, where the gradient of
        # advanced indexing (an accumulating index_put) varies with thread timing
        V = self.W_E.shape[1]
        offsets = (torch.arange(E, device=tokens.device) * V)[:, None, None]
        x = F.embedding(tokens + offsets, self.W_E.reshape(E * V, D))
        if self.W_pos is not None:
            x = x + self.W_pos[:, None, :T]
        cache: dict[str, torch.Tensor] = {}

        def at_slice(s, x):
            if s in hooks:
                x = hooks[s](x)
            if slice_name(s) in names:
                cache[slice_name(s)] = x
            return x

        x = at_slice(0, x)
        for layer, blk in enumerate(self.blocks):
            asked = {p: [n for n in (block_name(layer, p), *(block_name(layer, a) for a, q in
                                                              ALIASES.items() if q == p))
                         if n in names] for p in ("pattern", "head_out")} if names else {}
            x, points = blk(x, self.causal[:T, :T], attention,
                            frozenset(p for p, ns in asked.items() if ns))
            for point, value in points.items():
                cache.update({n: value for n in asked[point]})
            x = at_slice(layer + 1, x)
        n = norm(x, cfg.norm).reshape(E, B * T, D)
        logits = torch.baddbmm(self.b_U[:, None], n, self.W_U).view(E, B, T, -1)
        return logits, cache
