"""Measurements on the probe sets (book/methods.md, *Measurements*), from the scores of
``anchorkit.core.scores``.

Every function takes an ensemble model (leading run dimension E) and returns one value per run.
Scores are accuracies of the query answer (argmax over the number tokens) on an op's probe
contexts, clean (no edit), null (null set) or edited (with hooks).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch

from anchorkit.measures import criteria
from anchorkit.core.config import WIDTH, check_dose
from anchorkit.core.edit import project_out, project_out_subspace
from anchorkit.core.model import Transformer, every_slice
from anchorkit.core.task import DIFFERENCE, OPS, SYNTAX, Batch, apply_op, n_numbers, positions, token_id


def energy_shares(states: torch.Tensor, basis: torch.Tensor, where: torch.Tensor | None = None
                  ) -> torch.Tensor:
    """Energy share of each basis vector (E, n): mean (x·b)² over the sum of the same over the basis.

    ``states`` is (E, N, D); ``basis`` is (n, D) or one per run (E, n, D), orthonormal rows;
    ``where`` (N,) bool, if given, keeps only those positions (the syntax tokens, say).
    """
    if where is not None:
        states = states[:, where]
    if basis.dim() == 2:
        basis = basis.unsqueeze(0).expand(states.shape[0], -1, -1)
    energy = (states @ basis.transpose(1, 2)).pow(2).mean(1)
    return energy / energy.sum(1, keepdim=True)


def syntax_positions(task, batch: Batch) -> torch.Tensor:
    """(B·T,) bool: the positions holding a syntax token (``?``, ``,``, ``=``, ``⏎``), flattened
    in the order of ``last_slice_states``."""
    ids = torch.tensor([token_id(task, sym) for sym in SYNTAX])
    return torch.isin(batch.tokens.flatten(), ids.to(batch.tokens.device))


@functools.lru_cache(maxsize=None)
def chance_cos(dim: int = WIDTH, quantile: float = 0.5, draws: int = 20000) -> float:
    """A quantile, over random unit vectors of ``dim`` dimensions, of their largest |cos| with the
    vectors of an orthonormal basis: the chance level of a syntax |cos| (median about 0.32 in 64
    dimensions, 95th percentile about 0.41). A |cos| below the 95th percentile does not place a
    token on a vector: it is the argmax of a flat profile."""
    g = torch.Generator().manual_seed(0)
    u = torch.randn(draws, dim, generator=g, dtype=torch.float64)
    return float(torch.quantile(u.abs().max(1).values / u.norm(dim=1),
                                torch.tensor(quantile, dtype=torch.float64)))


def syntax_cosines(model: Transformer, basis: torch.Tensor) -> dict[str, torch.Tensor]:
    """For each syntax token, the largest |cos| between its embedding and any basis vector (E,)."""
    return {sym: cos for sym, (_, cos) in syntax_vectors(model, basis).items()}


def syntax_vectors(model: Transformer, basis: torch.Tensor
                   ) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """For each syntax token, the basis vector that holds its embedding: the index of the vector
    with the largest |cos| with the embedding, and that |cos| (each (E,))."""
    if basis.dim() == 2:
        basis = basis.unsqueeze(0).expand(model.n_members, -1, -1)
    out = {}
    with torch.inference_mode():
        for sym in SYNTAX:
            e = model.W_E[:, token_id(model.task, sym)]  # (E, D)
            cos = (basis @ e.unsqueeze(-1)).squeeze(-1) / (e.norm(dim=-1, keepdim=True)
                                                           * basis.norm(dim=-1))
            best = cos.abs().max(1)
            out[sym] = (best.indices, best.values)
    return out


# ---------------------------------------------------------------------- edits, batched
@torch.inference_mode()
def edited_predictions(model: Transformer, batch: Batch, directions: torch.Tensor, dose: float,
                       chunk: int = 8, contexts: int | None = None) -> torch.Tensor:
    """Query predictions (E, n, B) with each of n directions projected out at every slice.

    ``directions`` is (n, D), shared by every run, or (E, n, D), one set per run. The directions
    are scored ``chunk`` at a time in one batched forward (the contexts repeated once per
    direction), which matches projecting them out one at a time; with ``contexts``, the contexts
    go through in batches of that many (each context's answer does not depend on its batch).
    """
    dose = check_dose(dose)
    if contexts is not None and contexts < batch.tokens.shape[0]:
        parts = [Batch(*(t[i:i + contexts] for t in vars(batch).values()))
                 for i in range(0, batch.tokens.shape[0], contexts)]
        return torch.cat([edited_predictions(model, p, directions, dose, chunk) for p in parts],
                         dim=-1)
    E = model.n_members
    if directions.dim() == 2:
        directions = directions.unsqueeze(0).expand(E, -1, -1)
    directions = directions / directions.norm(dim=-1, keepdim=True)
    n, B = directions.shape[1], batch.tokens.shape[0]
    q = positions(model.task).query
    out = []
    for start in range(0, n, chunk):
        d = directions[:, start:start + chunk].to(batch.tokens.device)  # (E, c, D)
        c = d.shape[1]
        dd = d[:, :, None, None, :]  # (E, c, 1, 1, D)

        def project(x, dd=dd, c=c):  # the edit of each member's c directions, side by side
            return project_out(x.view(E, c, B, *x.shape[2:]), dd, dose).view_as(x)

        logits = model(batch.tokens.repeat(c, 1), hooks=every_slice(project, model.n_slices))
        pred = logits[:, :, q, : n_numbers(model.task)].argmax(-1)
        out.append(pred.view(E, c, B))
    return torch.cat(out, dim=1)


@torch.inference_mode()
def subspace_predictions(model: Transformer, batch: Batch, subspaces: torch.Tensor,
                         chunk: int = 4) -> torch.Tensor:
    """Query predictions (n, B) of a one-run model with each of n subspaces projected out at every
    slice and position, full dose. ``subspaces`` is (n, k, D), orthonormal rows (zero rows stand
    for no direction, so subspaces of rank below k share one tensor); ``chunk`` subspaces go
    through one batched forward, the contexts repeated once per subspace."""
    if model.n_members != 1:
        raise ValueError(f"subspace_predictions scores one run; the model holds {model.n_members}")
    B, q = batch.tokens.shape[0], positions(model.task).query
    out = []
    for start in range(0, subspaces.shape[0], chunk):
        Q = subspaces[start:start + chunk].transpose(1, 2)[:, None, None]  # (c, 1, 1, D, k)
        c = Q.shape[0]

        def project(x, Q=Q, c=c):  # (1, c·B, T, D): each subspace on its copy of the contexts
            Qx = Q.to(x.device, x.dtype)
            return project_out_subspace(x.view(c, B, *x.shape[2:]), Qx).view_as(x)

        logits = model(batch.tokens.repeat(c, 1), hooks=every_slice(project, model.n_slices))
        out.append(logits[0, :, q, : n_numbers(model.task)].argmax(-1).view(c, B))
    return torch.cat(out)


# ---------------------------------------------------------------------- removal and spill
OTHER_OPS = [j for j in range(len(OPS)) if j != DIFFERENCE]


def null_of_other_ops(predicted: torch.Tensor, batch: Batch) -> torch.Tensor:
    """null(op) (…, n_ops): the level of a model that computes another op. On the probe contexts
    of every other op, the share whose query answer (``predicted``, (…, B)) equals this op's
    answer on the query's operands. A run that does another op instead of this one scores about
    this much on it, so a removal measured against it reaches 1 there and not beyond."""
    a, b = batch.a[:, -1], batch.b[:, -1]
    out = []
    for op in range(len(OPS)):
        others = batch.ops != op
        answer = apply_op(torch.full_like(a, op), a, b)
        out.append((predicted[..., others] == answer[others]).float().mean(-1))
    return torch.stack(out, dim=-1)


def contexts_per_op(batch: Batch) -> torch.Tensor:
    """How many probe contexts each op has (n_ops,)."""
    return torch.stack([(batch.ops == op).sum() for op in range(len(OPS))])


OVER_REMOVAL_Z = 2.0  # standard errors: "beyond sampling error"


def _null_se(null: torch.Tensor, n_scored: torch.Tensor, n_null: torch.Tensor) -> torch.Tensor:
    """The standard error of (edited score − null) for a run whose edited score *is* the null
    (binomial: ``n_scored`` contexts of the op, ``n_null`` contexts of the other ops)."""
    return (null * (1 - null) * (1 / n_scored + 1 / n_null)).sqrt()


def removal_error(null: torch.Tensor, spans: torch.Tensor, n_scored: torch.Tensor,
                  n_null: torch.Tensor, z: float = OVER_REMOVAL_Z) -> torch.Tensor:
    """How far above 1 a removal can sit by sampling alone: z standard errors of (edited score −
    null), in units of the span."""
    return z * _null_se(null, n_scored, n_null) / spans


def over_removal(edited: torch.Tensor, null: torch.Tensor, n_scored: torch.Tensor,
                 n_null: torch.Tensor, z: float = OVER_REMOVAL_Z) -> torch.Tensor:
    """Over-removal: the edited score fell below the null by more than sampling error (z
    standard errors, as in ``removal_error``): the edit did not just stop the op, it steers the
    run away from the op's answers. Where the span is positive this is removal > 1 + error."""
    return edited < null - z * _null_se(null, n_scored, n_null)


def span(clean: torch.Tensor, null: torch.Tensor) -> torch.Tensor:
    """span(op) = clean − null: what the op's score stands above a model doing another op (or,
    with the evidence null, above the run with the examples' evidence gone)."""
    return clean - null


def drop(clean: torch.Tensor, edited: torch.Tensor) -> torch.Tensor:
    """drop(op, d, δ) = clean − edited: what the edit costs the op's score."""
    return clean - edited


def removal(drops: torch.Tensor, spans: torch.Tensor) -> torch.Tensor:
    """Removal: the drop of difference as a share of difference's span (…, n_ops) → (…)."""
    return drops[..., DIFFERENCE] / spans[..., DIFFERENCE]


def spill(drops_anchored: torch.Tensor, drops_control: torch.Tensor) -> torch.Tensor:
    """Spill: over doses (first axis) and ops other than difference, the largest excess of the
    anchored run's drop over the control's (score units)."""
    excess = drops_anchored[..., OTHER_OPS] - drops_control[..., OTHER_OPS]
    return excess.amax(-1).amax(0)


def other_ops_drop(drops: torch.Tensor) -> torch.Tensor:
    """The largest drop among ops other than difference (raw spill on an anchored run; the
    control's other-ops drop on a control)."""
    return drops[..., OTHER_OPS].amax(-1)


def direction_cost(drops: torch.Tensor) -> torch.Tensor:
    """Direction cost: the mean over ops of the drop at full dose."""
    return drops.mean(-1)


def task_change(clean_anchored: torch.Tensor, clean_control: torch.Tensor) -> torch.Tensor:
    """Mean clean score over ops of the anchored run minus that of the control."""
    return clean_anchored.mean(-1) - clean_control.mean(-1)


KEPT_THRESHOLD = criteria.KEPT


def kept(removal_value: torch.Tensor | float) -> torch.Tensor | bool:
    """The kept/lost rule: a run kept its anchor when its removal at full dose is ≥ 0.5."""
    return removal_value >= KEPT_THRESHOLD


def reference_baseline(reference_removals: torch.Tensor) -> torch.Tensor:
    """The median over reference directions (last axis) of difference's drop as a share of span."""
    return reference_removals.median(-1).values


def landing(predicted: torch.Tensor, batch: Batch) -> torch.Tensor:
    """Landing (…): on the difference contexts, the share whose (edited) answer is the answer
    another op gives on the query's operands; contexts where another op's answer equals the
    difference answer are left out."""
    is_diff = batch.ops == DIFFERENCE
    a, b = batch.a[is_diff, -1], batch.b[is_diff, -1]
    truth = apply_op(torch.full_like(a, DIFFERENCE), a, b)
    others = torch.stack([apply_op(torch.full_like(a, op), a, b) for op in OTHER_OPS])
    clear = (others != truth).all(0)
    pred = predicted[..., is_diff][..., clear]
    hit = (pred.unsqueeze(-2) == others[:, clear]).any(-2)
    return hit.float().mean(-1)


# ---------------------------------------------------------------------- basis
SPIKE_RATIO = 2.0  # a top share at least this many times the second is a spike


def spike(syntax_shares: torch.Tensor, exclude: int | None = None
          ) -> tuple[torch.Tensor, torch.Tensor]:
    """The spike along a basis: the basis vector with the largest energy share over the syntax
    positions (``syntax_shares``, (…, n)), never ``exclude`` (e₁ in an anchored run, where the
    anchor puts energy by design). Returns its index and whether it is a spike at all: its share
    at least ``SPIKE_RATIO`` times the second largest. A flat spectrum has no spike."""
    s = syntax_shares.clone()
    if exclude is not None:
        s[..., exclude] = float("-inf")
    top = s.topk(2, dim=-1)
    return top.indices[..., 0], top.values[..., 0] >= SPIKE_RATIO * top.values[..., 1]


def cos_e1(basis: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """|cos(e₁, b)| for basis vector ``index`` of ``basis`` ((n, D) or (E, n, D), unit rows)."""
    if basis.dim() == 2:
        return basis[index, 0].abs()
    return basis[torch.arange(basis.shape[0]), index, 0].abs()


def kurtosis(states: torch.Tensor, basis: torch.Tensor) -> torch.Tensor:
    """Mean over positions of the kurtosis of a state's components in the basis (3: Gaussian).

    ``states`` (E, N, D); ``basis`` (n, D) or (E, n, D), orthonormal rows.
    """
    if basis.dim() == 2:
        basis = basis.unsqueeze(0).expand(states.shape[0], -1, -1)
    c = states @ basis.transpose(1, 2)  # (E, N, n)
    c = c - c.mean(-1, keepdim=True)
    m2 = c.pow(2).mean(-1)
    m4 = c.pow(4).mean(-1)
    return (m4 / m2.pow(2)).mean(-1)


def moved(spike_anchored: int, spike_control: int, anchored_has: bool, control_has: bool
          ) -> bool | None:
    """Whether the anchored run's spike is a different basis vector from the control's; None
    (undefined) unless both runs have a spike."""
    if not (anchored_has and control_has):
        return None
    return int(spike_anchored) != int(spike_control)


@dataclass
class BasisBlock:
    """The measures of a basis at the last slice, one row per run (the Methods page,
    *Measurements*: energy share, kurtosis, syntax |cos|): what the paired studies and the
    scout's premise both read."""

    shares: torch.Tensor  # (E, D) energy share of each basis vector, every position
    syntax_shares: torch.Tensor  # (E, D) the same at the syntax positions
    kurtosis: torch.Tensor  # (E,)
    syntax_cos: dict[str, torch.Tensor]  # token → (E,) its largest |cos| with a basis vector


def basis_block(model: Transformer, states: torch.Tensor, at_syntax: torch.Tensor,
                basis: torch.Tensor) -> BasisBlock:
    """``states`` (E, B, T, D) at the last slice, ``at_syntax`` the syntax positions, ``basis``
    (D, D) one vector per row."""
    return BasisBlock(shares=energy_shares(states, basis),
                      syntax_shares=energy_shares(states, basis, at_syntax),
                      kurtosis=kurtosis(states, basis), syntax_cos=syntax_cosines(model, basis))
