"""A head shown as the attention-sink literature shows one: where its queries attend, beside what
each position would write through it (``anchorkit.measures.geometry``; the essay's page).

A sink-dominated head parks its attention on a fixed position; the essay's claim is that such a
head writes little. Its attention pattern alone cannot show that: the picture puts beside it, for
every key position, the norm of what that position would write through the head if attended
(``‖v_k W_O[h]‖``, v = norm(x) W_V + b_V at the block's input), so a sink reads as a bright column
over a short bar. Both are means over the contexts given (the probe set's on the page).
"""

from __future__ import annotations

import pandas as pd
import torch

from anchorkit.core.config import ParameterError
from anchorkit.core.model import Transformer, block_name, norm, slice_name
from anchorkit.core.task import Batch

SHOWN = ("anchor", "worker")  # the two heads the page shows, in this order
NUMBER = "n"  # a position's label where the contexts hold different numbers there


@torch.inference_mode()
def head_picture(model: Transformer, batch: Batch, layer: int, head: int,
                 names: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One head of member 0 of ``model`` on ``batch``: ``pattern`` (query, key, attention: the
    mean over contexts, causal, each query's row summing to 1) and ``written`` (key, token,
    written: the mean over contexts of ‖v_k W_O[h]‖, what key position k would write through the
    head if attended; ``token``: the token every context holds at k, named by ``names``, or
    ``NUMBER`` where the contexts differ there)."""
    cfg = model.cfg
    for name, v, n in (("layer", layer, cfg.n_blocks), ("head", head, cfg.n_heads)):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
            raise ParameterError(name, v, f"expected an integer in [0, {n})")
    tokens = batch.tokens
    at = block_name(layer, "pattern")
    _, cache = model.run_with_cache(tokens, [slice_name(layer), at])
    block, dh = model.blocks[layer], cfg.d_model // cfg.n_heads
    cols = slice(head * dh, (head + 1) * dh)
    v = norm(cache[slice_name(layer)][0], cfg.norm) @ block.W_V[0][:, cols] + block.b_V[0][cols]
    written = (v @ block.W_O[0][cols]).norm(dim=-1).mean(0)  # (T,)
    pattern = cache[at][0, :, head].mean(0)  # (T, T)
    T = pattern.shape[-1]
    q, k = torch.meshgrid(torch.arange(T), torch.arange(T), indexing="ij")
    same = (tokens == tokens[:1]).all(0).tolist()
    first = [(names[t] if names else str(t)) for t in tokens[0].tolist()]
    return (pd.DataFrame({"query": q.flatten().numpy(), "key": k.flatten().numpy(),
                          "attention": pattern.flatten().double().numpy()}),
            pd.DataFrame({"key": range(T), "written": written.double().numpy(),
                          "token": [f if s else NUMBER for f, s in zip(first, same)]}))


def shown_heads(final: pd.DataFrame) -> pd.DataFrame | None:
    """The run and the two heads the page shows, from trained heads (the head table's ``final``
    rows): the first run (by seed, optimizer, name) that has both an anchor head (class
    ``anchor``: sink-dominated and writing little) and a worker that is not sink-dominated; its
    anchor with the highest sink score and its worker with the highest value content, one row
    each, ``shown`` naming which (``SHOWN``). None where no run has both. The choice reads the
    classes, never the picture it leads to."""
    for _, run in final.sort_values(["seed", "optimizer", "run"]).groupby(
            ["seed", "optimizer", "run"], sort=False):
        anchors = run[run["class"] == "anchor"]
        workers = run[(run["class"] == "worker") & ~run.sink_dominated]
        if len(anchors) and len(workers):
            return pd.concat([
                anchors.sort_values(["sink_score", "layer", "head"],
                                    ascending=[False, True, True]).head(1).assign(shown=SHOWN[0]),
                workers.sort_values(["value_content", "layer", "head"],
                                    ascending=[False, True, True]).head(1).assign(shown=SHOWN[1]),
            ], ignore_index=True)
    return None
