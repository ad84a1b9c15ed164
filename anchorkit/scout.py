"""The optimizer scout (the optimizer scout's page, notebooks/optimizer-scout.ipynb): where Adam builds the privileged basis, and the regime decision.

Controls under plain and rotated Adam are trained in a few **regimes** (configuration: the regime
options of book/methods.md, *The model and its slices*, optimizer settings) at the calibration seeds only, each to the longest
training length; their weights are kept at every shorter length. At each length the **premise**
of the report is measured on every control with the library's measures: how much of the last
slice's energy the top basis vector holds (coordinate axes and the seed's rotated axes), its
ratio to the second, kurtosis, the syntax embeddings' largest |cos| with a basis vector, the
residual RMS, the lowest op score, and what projecting directions out at full dose costs the task
(the top direction of the run's own basis, the median of its other directions, 16 random ones).

The **decision rule** (``DECISION_RULE``, written before any scout run) then names, per regime and
length, the strongest level of basis both calibration seeds reach, and adopts the cheapest regime
at the highest level found, if any, once its falloff runs meet the anchor criteria of book/methods.md, *Training*.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import torch

from anchorkit import criteria
from anchorkit import regimes as _regimes
from anchorkit.answers import N_RANDOM, answers_key
from anchorkit.config import ParameterError, RunConfig, check_lengths, check_seeds
from anchorkit.edit import measured_bases, random_directions
from anchorkit.executor import THREADS, Graph, add_training, execute, threads
from anchorkit.measure import (basis_block, direction_cost, drop, edited_predictions,
                               last_slice_states, op_scores, scores_of_predictions, spike,
                               syntax_positions)
from anchorkit.model import slice_states
from anchorkit.pairs import Pair, measure_pair
from anchorkit.optimizers import ARM_NAMES, of
from anchorkit.profiles import SCOUT as SCOUT_PROFILE
from anchorkit.profiles import Profile
from anchorkit.profiles import profile as resolve_profile
from anchorkit.provenance import has_tables, read_study, read_tables, source_state, write_study
from anchorkit.store import RunStore
from anchorkit.task import OPS, SYNTAX, probe_set
from anchorkit.train import load_model

SEEDS = (1, 2)  # calibration seeds: never 704-711 (the paper's) or 800-839 (the screen's)
LENGTHS = (400, 800, 1600)  # epochs at which the premise is measured (snapshots of one run)
# its profile: "scout", the method's task with every run trained with the compiled step
# (BENCHMARKS.md); "quick" for a smoke run of the pipeline (``anchorkit.profiles``)

# the regimes screened (anchorkit.regimes holds the catalogue)
REGIMES = _regimes.SCREENED

# ---------------------------------------------------------------------- the decision rule
# Fixed on 2026-11-30 before any scout run (issue 16); judged at the calibration seeds only.
SCORE_MIN = criteria.SCORE_MIN  # every op, every run (control and falloff, both optimizers)
FUNCTIONAL_COST = 0.2  # cost of projecting the spike direction out (mean drop over ops) ...
FUNCTIONAL_RATIO = 5.0  # ... and at least this many times the median cost of the basis' others
REPORT_SHARE, REPORT_COS, REPORT_TOKENS = 0.3, 0.8, 3  # top-axis share; syntax |cos| on 3 of 4
CLEAR_SHARE, CLEAR_RATIO, CLEAR_KURTOSIS = 0.2, 2.0, 6.0  # plain control along the axes
ROTATED_AXES_MAX, ROTATED_KURTOSIS_MAX = 0.08, 3.2  # the rotated twin's coordinate axes stay flat
ROTATED_SHARE, ROTATED_RATIO = 0.2, 2.0  # the rotated twin's spike along its rotated axes
ANCHOR = {"alignment_high": criteria.ALIGNMENT_HIGH, "removal": criteria.REMOVAL_MIN,
          "spill": criteria.SPILL_MAX}  # book/methods.md, *Training* (removal: bounded)
LEVELS = ("none", "functional", "clear", "report-strength")

DECISION_RULE = f"""\
Every op scores at least {SCORE_MIN} in every run ({{term}}`control <Control>` and falloff, both
optimizers), and falloff meets the calibration's {{term}}`anchor <Anchor>` criteria ({{doc}}`/book/methods`):
{{term}}`alignment <Alignment>` at the difference answers at least {ANCHOR['alignment_high']} at
{{term}}`slices <Slice>` 3 and 4, {{term}}`removal <Removal>` at least {ANCHOR['removal']} (the
bounded definition) and {{term}}`spill <Spill>` at most {ANCHOR['spill']}. A seed's controls reach:

- a **functional {{term}}`spike <Spike>`**: projecting the plain-Adam control's top coordinate axis
  out at full {{term}}`dose <Dose>` costs at least {FUNCTIONAL_COST} (mean drop over ops) and at
  least {FUNCTIONAL_RATIO:g} times the median cost of its other axes; the same for the rotated
  {{term}}`twin <Twin>`'s top rotated axis;
- a **report-strength basis**: a functional spike, a top-axis share at the last slice of at least
  {REPORT_SHARE}, and a syntax embedding |cos| with some axis of at least {REPORT_COS} for at least
  {REPORT_TOKENS} of the 4 syntax tokens;
- a **clear basis**: a functional spike, a top-axis share of at least {CLEAR_SHARE} with
  top/second at least {CLEAR_RATIO:g} and {{term}}`kurtosis <Kurtosis>` along the axes at least
  {CLEAR_KURTOSIS:g}; the rotated twin's coordinate axes at most {ROTATED_AXES_MAX} (top share) with
  kurtosis at most {ROTATED_KURTOSIS_MAX}, and its rotated top share at least {ROTATED_SHARE} with
  top/second at least {ROTATED_RATIO:g}.

A regime and length reaches a level when every calibration seed does. The cheapest (fewest
training epochs) report-strength regime is adopted if any, else the cheapest clear-basis one; a
large but inert spike is reported, not adopted."""


def regime_config(regime: _regimes.Regime, seed: int, recipe: str = "control",
                  optimizer: str = "adam", epochs: int = max(LENGTHS),
                  profile: Profile = SCOUT_PROFILE) -> RunConfig:
    """The run of a regime: today's configuration with the regime's changes, at a profile (its
    task and step)."""
    return regime.configure(seed, recipe, optimizer, epochs, profile.step, profile.task)


def scout_runs(regimes=tuple(REGIMES.values()), seeds=SEEDS, recipes=("control",),
               epochs: int = max(LENGTHS), profile: Profile = SCOUT_PROFILE) -> list[RunConfig]:
    """Every run of the scout: each regime (a ``Regime``), recipe, optimizer and seed, twins side
    by side."""
    return [regime_config(r, s, rec, o, epochs, profile) for r in regimes for rec in recipes
            for s in seeds for o in ARM_NAMES]


# ---------------------------------------------------------------------- measuring the premise

@torch.inference_mode()
def premise(cfg: RunConfig, state: dict, contexts: int = 128, store=None, epochs: int | None = None
            ) -> tuple[dict, pd.DataFrame]:
    """The premise measures of one run's weights: one row, and where its top direction's energy
    sits (by slice over every position, and by position at the last slice). With a ``store``,
    the answers under the direction edits (the costly part) are read from or written to its
    answer cache, keyed by the run, ``epochs`` (which weights) and the code that makes them."""
    model = load_model([cfg], [state])
    batch = probe_set(cfg.task).clean
    D = cfg.model.d_model
    clean = op_scores(model, batch)  # (1, ops)
    states = last_slice_states(model, batch)  # (1, B, T, D)
    row = {"seed": cfg.seed, "optimizer": cfg.optimizer, "recipe": cfg.recipe, "run": cfg.name,
           "hash": cfg.hash, "min_score": float(clean.min()),
           "residual_rms": float(states.pow(2).mean().sqrt())}
    row.update({f"score_{op}": float(clean[0, j]) for j, op in enumerate(OPS)})
    bases = measured_bases(cfg)
    row.update(_basis_row(model, states, syntax_positions(cfg.task, batch), bases))
    # costs along the run's own basis (the axes under plain Adam, its rotated axes under rotated)
    own = of(cfg).basis
    dirs = torch.cat([bases[own], random_directions(N_RANDOM, D)])
    if store is not None and epochs is None:
        raise ParameterError("epochs", epochs, "expected the epoch of the weights, to cache "
                             "their answers in the store")
    key = (answers_key(cfg, f"premise/{epochs}/{own}/{N_RANDOM}/{contexts}", state)
           if store is not None else None)
    answers = _edited_answers(model, batch, dirs, contexts, store, key)
    cost = direction_cost(drop(clean[:, None], scores_of_predictions(answers, batch)))[0]
    top = row[f"top_{own}"]
    others = torch.cat([cost[:top], cost[top + 1:D]])
    row.update({"own_basis": own, "top_cost": float(cost[top]),
                "median_other_cost": float(others.median()),
                "costliest_other_cost": float(others.max()),
                "costliest_other": int(torch.cat([torch.arange(top), torch.arange(top + 1, D)])[
                    others.argmax()]),
                "median_random_cost": float(cost[D:].median())})
    where = _where(model, batch, bases[own][top])
    where = where.assign(seed=cfg.seed, optimizer=cfg.optimizer, run=cfg.name, basis=own,
                         direction=top)
    return row, where


def _basis_row(model, states, at_syntax, bases: dict) -> dict:
    """Along each basis: the top direction's share and its ratio to the second, kurtosis, the
    syntax tokens' |cos| (and how many reach ``REPORT_COS``), whether a syntax spike forms."""
    row = {}
    for name, basis in bases.items():
        block = basis_block(model, states, at_syntax, basis)
        shares, cos = block.shares[0], block.syntax_cos
        top2 = shares.topk(2)
        row[f"top_share_{name}"] = float(top2.values[0])
        row[f"top_ratio_{name}"] = float(top2.values[0] / top2.values[1])
        row[f"top_{name}"] = int(top2.indices[0])
        row[f"kurtosis_{name}"] = float(block.kurtosis[0])
        for sym in SYNTAX:
            row[f"syntax_cos_{sym}_{name}"] = float(cos[sym][0])
        row[f"syntax_tokens_over_{REPORT_COS}_{name}"] = int(sum(
            float(cos[sym][0]) >= REPORT_COS for sym in SYNTAX))
        _, has = spike(block.syntax_shares[0])
        row[f"has_syntax_spike_{name}"] = bool(has)
    return row


def _edited_answers(model, batch, dirs, contexts: int, store, key) -> torch.Tensor:
    """The answers with each direction projected out at full dose, from the store's answer cache
    under ``key`` when there (else computed, and cached when a key is given)."""
    cached = store.load_answers(key) if key is not None else None
    if cached is not None:
        return cached["answers"]
    answers = edited_predictions(model, batch, dirs, 1.0, chunk=1, contexts=contexts)
    if key is not None:
        store.save_answers(key, {"answers": answers})
    return answers


def _where(model, batch, direction: torch.Tensor) -> pd.DataFrame:
    """The share of the state's energy along ``direction``, by slice (every position) and, at the
    last slice, by position (over the probe contexts)."""
    slices = slice_states(model.run_with_cache(batch.tokens, model.hook_names("resid"))[1])
    rows = []
    for s, x in enumerate(slices):
        along = (x[0] @ direction).pow(2)  # (B, T)
        total = x[0].pow(2).sum(-1)
        rows.append({"where": "slice", "slice": s, "position": -1,
                     "share": float(along.sum() / total.sum())})
        if s == len(slices) - 1:
            rows += [{"where": "position", "slice": s, "position": t,
                      "share": float(along[:, t].sum() / total[:, t].sum())}
                     for t in range(x.shape[2])]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------- judging
def functional(x):
    """DECISION_RULE's functional spike, for one control's premise row (or, element-wise, for a
    premise table): its top direction's cost is at least FUNCTIONAL_COST and FUNCTIONAL_RATIO
    times the median cost of the other directions of its basis."""
    return ((x["top_cost"] >= FUNCTIONAL_COST)
            & (x["top_cost"] >= FUNCTIONAL_RATIO * x["median_other_cost"]))


def reversed_basis(r):
    """DECISION_RULE's rotated twin of a clear basis, for a rotated control's row (or table): flat
    along the coordinate axes, with a spike that stands out along its own rotated axes."""
    return ((r["top_share_axes"] <= ROTATED_AXES_MAX) & (r["kurtosis_axes"] <= ROTATED_KURTOSIS_MAX)
            & (r["top_share_rotated"] >= ROTATED_SHARE)
            & (r["top_ratio_rotated"] >= ROTATED_RATIO))


def seed_levels(premise_table: pd.DataFrame) -> pd.DataFrame:
    """Per regime, epochs and seed: which levels of DECISION_RULE its two controls reach (the
    basis criteria; the scores and anchor criteria are judged in ``decide``)."""
    rows = []
    for (regime, epochs, seed), g in premise_table.groupby(["regime", "epochs", "seed"]):
        by = {r["optimizer"]: r for _, r in g.iterrows()}
        if set(by) != set(ARM_NAMES):
            continue
        p, r = by["adam"], by["rotated"]

        func = bool(functional(p) and functional(r))
        report = bool(func and p["top_share_axes"] >= REPORT_SHARE
                      and p[f"syntax_tokens_over_{REPORT_COS}_axes"] >= REPORT_TOKENS)
        clear = bool(func and p["top_share_axes"] >= CLEAR_SHARE
                     and p["top_ratio_axes"] >= CLEAR_RATIO
                     and p["kurtosis_axes"] >= CLEAR_KURTOSIS and reversed_basis(r))
        scores = bool(min(p["min_score"], r["min_score"]) >= SCORE_MIN)
        level = "report-strength" if report else "clear" if clear else (
            "functional" if func else "none")
        rows.append({"regime": regime, "epochs": int(epochs), "seed": int(seed),
                     "functional": func, "clear": clear, "report_strength": report,
                     "controls_score": scores, "level": level})
    return pd.DataFrame(rows)


def regime_levels(levels: pd.DataFrame, n_seeds: int | None = None) -> pd.DataFrame:
    """Per regime and epochs: the level every calibration seed reaches (the weakest seed's; none
    unless all ``n_seeds``, default every seed of SEEDS, were judged), and whether every control
    scores at least SCORE_MIN."""
    n_seeds = n_seeds or len(SEEDS)
    rank = {name: i for i, name in enumerate(LEVELS)}
    rows = []
    for (regime, epochs), g in levels.groupby(["regime", "epochs"]):
        weakest = min(g["level"], key=rank.__getitem__)
        rows.append({"regime": regime, "epochs": int(epochs), "seeds": len(g),
                     "level": weakest if len(g) == n_seeds else "none",
                     "controls_score": bool(g["controls_score"].all())})
    return pd.DataFrame(rows)


def anchors_met(anchor_results: pd.DataFrame) -> bool:
    """Whether falloff meets book/methods.md, *Training* in every run given (``results`` rows of measure_pair plus
    ``alignment_3`` and ``alignment_4``): every op ≥ SCORE_MIN for both runs of the pair, high
    alignment at slices 3-4, bounded removal ≥ 0.8, spill ≤ 0.02."""
    if anchor_results.empty:
        return False
    ok = pd.Series(True, index=anchor_results.index)
    for role in ("anchored", "control"):
        for op in OPS:
            ok &= anchor_results[f"{role}_score_{op}"] >= SCORE_MIN
    ok &= anchor_results[["alignment_3", "alignment_4"]].min(axis=1) >= ANCHOR["alignment_high"]
    ok &= anchor_results["raw_removal"] >= ANCHOR["removal"]
    ok &= anchor_results["spill"] <= ANCHOR["spill"]
    return bool(ok.all())


def cost_first(regimes: pd.DataFrame) -> pd.DataFrame:
    """Cheapest first: fewest epochs (every regime trains the same contexts per epoch)."""
    return regimes.sort_values(["epochs", "regime"], kind="stable")


def decide(regimes: pd.DataFrame, anchors: dict[tuple[str, int], bool] | None = None
           ) -> dict:
    """The decision: the cheapest regime and length at the highest level reached (report
    strength, else clear basis) whose controls score and whose falloff meets the anchor criteria
    (``anchors`` maps (regime, epochs) to that; a candidate without it is ``pending``)."""
    anchors = anchors or {}
    for level in ("report-strength", "clear"):
        cands = regimes[(regimes["level"] == level) & regimes["controls_score"]]
        for _, c in cost_first(cands).iterrows():
            key = (c["regime"], int(c["epochs"]))
            if key not in anchors:
                return {"decision": "pending", "regime": key[0], "epochs": key[1],
                        "level": level}
            if anchors[key]:
                return {"decision": "adopt", "regime": key[0], "epochs": key[1], "level": level}
    return {"decision": "none", "regime": None, "epochs": None, "level": None}


# ---------------------------------------------------------------------- executing the scout
SCOUT = "optimizer-scout"


def _state_at(cfg: RunConfig, store, epochs: int) -> dict:
    if epochs == cfg.epochs:
        return store.load_final(cfg)
    return store.load_snapshot(cfg, epochs)


def premise_task(cfg: RunConfig, store, epochs: int, regime: str, *after) -> tuple[dict, pd.DataFrame]:
    """The premise measures of a run's weights after ``epochs`` epochs (executor task)."""
    with threads(THREADS):
        row, where = premise(cfg, _state_at(cfg, store, epochs), store=store, epochs=epochs)
    return {"regime": regime, "epochs": epochs, **row}, where.assign(regime=regime, epochs=epochs)


def anchor_task(anchored: RunConfig, control: RunConfig, store, epochs: int, regime: str,
                *after) -> dict:
    """Falloff against its control after ``epochs`` epochs: measure_pair's results row (no
    sweep) with the falloff run's alignment at the difference answers of slices 3 and 4."""
    with threads(THREADS):
        t = measure_pair(Pair(anchored, control), _state_at(anchored, store, epochs),
                         _state_at(control, store, epochs), sweep=False)
    al = t["alignment"]
    row = {"regime": regime, "epochs": epochs, **t["results"].iloc[0].to_dict()}
    for s in (3, 4):
        row[f"alignment_{s}"] = float(al[(al.role == "anchored") & (al.context == "difference")
                                         & (al.slice == s)]["alignment"].iloc[0])
    return row


def scout_graph(regimes, seeds, lengths, store, profile: Profile = SCOUT_PROFILE,
                recipe: str = "control"):
    """Train the runs of ``recipe`` in every regime (``Regime`` values) to the longest length,
    keeping the weights at every length; then, for controls, measure the premise at each length,
    for falloff, measure it against its control (already trained) at each length. Returns the
    graph and its runs."""
    lengths = sorted(set(lengths))
    runs = {r: scout_runs([r], seeds, (recipe,), max(lengths), profile) for r in regimes}
    every = [c for rs in runs.values() for c in rs]
    g = Graph()
    trained_by = add_training(g, every, store, snapshots=lengths)
    for regime, rs in runs.items():
        for c in rs:
            after = [trained_by[c.hash]] if c.hash in trained_by else []
            for L in lengths:
                if recipe == "control":
                    g.output(f"premise-{c.hash}-{L}", premise_task, c, store, L, regime.name,
                             *after)
                else:
                    g.output(f"anchor-{c.hash}-{L}", anchor_task, c, c.replace(recipe="control"),
                             store, L, regime.name, *after)
    return g, every


def written(where, seeds, profile: str, controls: list[RunConfig], lengths) -> bool:
    """Whether ``where`` holds the scout's tables for these seeds, profile, controls and lengths
    (its falloff runs follow from the decision rule)."""
    if not has_tables(where):
        return False
    prov, tables = read_study(where)  # checked: a bad folder is an error, not a recompute
    if "premise" not in tables:
        return False
    epochs = sorted(tables["premise"]["epochs"].unique())
    return (prov.get("study") == SCOUT and prov.get("seeds") == list(seeds)
            and prov.get("profile") == profile
            and {c.hash for c in controls} <= set(prov.get("runs", {}).values())
            and [int(e) for e in epochs] == sorted(set(lengths)))


def run_scout(regimes=tuple(REGIMES), seeds=SEEDS, lengths=LENGTHS, profile="scout",
              reports_dir=None, store=None, progress: bool = True, reuse: bool = False,
              scheduler: str | None = None, publish: bool = False) -> dict[str, pd.DataFrame]:
    """Train and measure the scout's controls, judge them by DECISION_RULE, and while the rule's
    candidate has no falloff runs, train and measure them (a candidate whose falloff misses the
    anchor criteria passes the turn to the next). Writes to ``reports_dir/optimizer-scout/``:
    ``premise`` (per control and length), ``where`` (where each control's top direction holds
    its energy), ``levels`` (per regime, length and seed), ``regimes`` (per regime and length),
    ``anchors`` (falloff against control, for the regimes the rule reached) and ``decision``.
    ``regimes`` and ``profile`` are names or values (resolved here, once)."""
    t0 = time.perf_counter()
    source = source_state()
    seeds = check_seeds(list(seeds))
    lengths = check_lengths(list(lengths))
    regimes = [_regimes.regime(r) for r in regimes]
    profile = resolve_profile(profile)
    store = store if store is not None else RunStore()
    graph, runs = scout_graph(regimes, seeds, lengths, store, profile)
    where_dir = Path(reports_dir) / SCOUT if reports_dir is not None else None
    if reuse and where_dir is not None and written(where_dir, seeds, profile.name, runs, lengths):
        return read_tables(where_dir)
    out = execute(graph, scheduler, progress, desc=SCOUT, measured="measurements")
    tables = {"premise": pd.DataFrame([row for row, _ in out.values()]),
              "where": pd.concat([w for _, w in out.values()], ignore_index=True)}
    tables["levels"] = seed_levels(tables["premise"])
    tables["regimes"] = regime_levels(tables["levels"], len(seeds))
    anchors, met, by_name = [], {}, {r.name: r for r in regimes}
    while (d := decide(tables["regimes"], met))["decision"] == "pending":
        graph, falloff = scout_graph([by_name[d["regime"]]], seeds, lengths, store, profile,
                                     "falloff")
        rows = pd.DataFrame(list(execute(graph, scheduler, progress, desc=f"{SCOUT} falloff",
                                         measured="pairs").values()))
        for L, g in rows.groupby("epochs"):
            met[(d["regime"], int(L))] = anchors_met(g) and len(g) == 2 * len(seeds)
        anchors.append(rows)
        runs += falloff
    tables["anchors"] = pd.concat(anchors, ignore_index=True) if anchors else pd.DataFrame(
        {"regime": pd.Series(dtype=str), "epochs": pd.Series(dtype=int)})
    tables["decision"] = pd.DataFrame([d])
    if where_dir is not None:
        write_study(where_dir, tables, SCOUT, seeds, profile.name, runs, time.perf_counter() - t0,
                    source, publish=publish)
    return tables
