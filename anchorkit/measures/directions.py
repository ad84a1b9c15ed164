"""The directions of note of a run, along its own basis (the coordinate axes under plain Adam, the
seed's rotated axes under rotated Adam):

- the **top-energy** direction: the largest energy share at the last slice (all positions);
- the **syntax** direction: the basis vector that holds the syntax tokens, i.e. for each of
  ``?``, ``,``, ``=``, ``⏎`` the vector with the largest |cos| with its embedding, and the vector
  that most of the four share (ties: the one with the larger summed |cos|). A token counts only
  where that |cos| is above chance (``SYNTAX_CHANCE``, the 95th percentile of a random vector's
  largest |cos| with the basis): below it the largest |cos| is the argmax of a flat profile and
  places the token nowhere. (Set so on 2026-12-01, after the weak regime showed e₁ as the argmax
  of a |cos| of 0.29 on one seed; the second regime's paper seeds were not yet trained.) With no
  token above chance the run has no syntax direction;
- the **costliest** direction: the largest direction cost (mean drop over ops at full dose), with
  the median cost of the basis beside it (``median_cost``): on a flat cost profile the largest is
  the argmax of noise, which the two side by side show.

For each: its index, cost, energy share, and cos with e₁. In the source report the three coincide
(its spike *is* the rotated vector holding the syntax tokens); here they need not, and a measure
defined through one of them says which. The inputs are a study's ``spectra`` and ``basis`` tables
(the direction sweep) and the runs' weights, so no forward beyond what the study ran is needed.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from anchorkit.core.config import WIDTH, RunConfig
from anchorkit.core.edit import own_basis
from anchorkit.measures.measure import chance_cos, syntax_vectors
from anchorkit.core.task import SYNTAX
from anchorkit.core.train import load_model

SYNTAX_CHANCE = chance_cos(WIDTH, 0.95)


def shared_vector(indices: dict[str, int], cosines: dict[str, float]) -> tuple[int | None, int]:
    """The vector most syntax tokens sit on, and how many do (ties: larger summed |cos|); tokens
    whose |cos| is not above chance sit on none (``None, 0`` when no token is above it)."""
    indices = {s: k for s, k in indices.items() if cosines[s] > SYNTAX_CHANCE}
    if not indices:
        return None, 0
    counts = Counter(indices.values())
    best = max(counts, key=lambda k: (counts[k], sum(c for s, c in cosines.items()
                                                     if indices.get(s) == k)))
    return int(best), counts[best]


def notable(cfg: RunConfig, state: dict, shares: pd.Series, costs: pd.Series,
            role: str = "control") -> pd.DataFrame:
    """The three directions of note of one run: ``shares`` and ``costs`` are indexed by the
    direction's index along the run's own basis."""
    name, basis = own_basis(cfg)
    vecs = syntax_vectors(load_model([cfg], [state]), basis)
    idx = {s: int(vecs[s][0][0]) for s in SYNTAX}
    cos = {s: float(vecs[s][1][0]) for s in SYNTAX}
    syntax, n_tokens = shared_vector(idx, cos)
    picks = {"top energy": int(shares.idxmax()), "syntax": syntax,
             "costliest": int(costs.idxmax())}
    rows = []
    nan = float("nan")
    for kind, k in picks.items():
        row = {"run": cfg.name, "hash": cfg.hash, "seed": cfg.seed, "optimizer": cfg.optimizer,
               "recipe": cfg.recipe, "role": role, "basis": name, "kind": kind, "index": k,
               "share": nan if k is None else float(shares.get(k, nan)),
               "cost": nan if k is None else float(costs.get(k, nan)),
               "cos_e1": nan if k is None else float(basis[k, 0]),
               "is_top_energy": k == picks["top energy"], "median_cost": float(costs.median())}
        if kind == "syntax":
            row["tokens_on_it"] = n_tokens
            # each token's vector where its |cos| is above chance, else -1 (on none)
            row.update({f"syntax_vector_{s}": idx[s] if cos[s] > SYNTAX_CHANCE else -1
                        for s in SYNTAX})
            row.update({f"syntax_cos_{s}": cos[s] for s in SYNTAX})
        rows.append(row)
    return pd.DataFrame(rows)


def notable_table(runs: list[RunConfig], spectra: pd.DataFrame, basis: pd.DataFrame, store,
                  roles=("control", "anchored")) -> pd.DataFrame:
    """The directions of note of every run of a study that has a sweep (``runs`` by name; the
    study's ``spectra`` and ``basis`` tables), as one table. A run that appears in several pairs
    (a control) is listed once."""
    by_name = {c.name: c for c in runs}
    out, seen = [], set()  # a run with no basis of its own has no directions of note along it
    for (run, role), g in basis[basis.role.isin(roles)].groupby(["run", "role"], sort=True):
        # a control's rows are filed under the pair's falloff run name; its own name is control_run
        name = g.control_run.iloc[0] if role == "control" else run
        if name in seen:
            continue
        seen.add(name)
        cfg = by_name[name]
        own, _ = own_basis(cfg)
        if own is None:
            continue
        mine = g[g.basis == own].set_index("direction")
        sp = spectra[(spectra.run == run) & (spectra.role == role) & (spectra.basis == own)]
        out.append(notable(cfg, store.load_final(cfg), sp.set_index("direction").share,
                           mine.cost.dropna(), role))
    table = pd.concat(out, ignore_index=True) if out else pd.DataFrame()
    if "index" in table:
        table["index"] = table["index"].astype("Int64")
    return table
