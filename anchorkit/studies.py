"""The studies of SPEC §9: which runs each one needs, and the tables measured from a pair of runs.

A study names runs by configuration only. Runs shared between studies (the plain-Adam control and
falloff runs are the stored twins of the rotated-basis study) have the same configuration and so
the same hash: they are loaded from the store, never retrained under another name.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import torch

from anchorkit import kernels
from anchorkit.config import RunConfig, TaskConfig, check_choice, check_seeds
from anchorkit.edit import DOSES, coordinate_axes, rotated_axes
from anchorkit.measure import (alignment_profile, contexts_per_op, cos_e1, direction_cost, drop,
                               energy_shares, kept, kurtosis, landing, last_slice_states, moved,
                               null_of_other_ops, other_ops_drop, over_removal, reference_baseline,
                               removal, removal_error, scores_of_predictions, span, spike, spill,
                               syntax_cosines, syntax_positions, task_change)
from anchorkit.task import DIFFERENCE, OPS, SYNTAX, probe_set
from anchorkit.train import TrainedRun, load_model, rotation, train

STUDIES = ("control", "split-anti-seeds", "rotated-basis", "reference-baseline",
           "loss-rate-screen")
PAPER_SEEDS = list(range(704, 712))  # the seeds of the published runs
SCREEN_SEEDS = list(range(800, 840))  # the loss-rate screen's 40 seeds, disjoint from the paper's
DEFAULT_SEEDS = {**{s: PAPER_SEEDS for s in STUDIES}, "loss-rate-screen": SCREEN_SEEDS}
PROFILES = {
    # the paper's runs
    "paper": {"epochs": 400, "task": TaskConfig()},
    # a smoke run of the whole pipeline: few epochs, a small probe set
    "quick": {"epochs": 4, "task": TaskConfig(probe_per_op=64)},
}


def run_config(seed: int, recipe: str, optimizer: str, profile: str,
               epochs: int | None = None, regime: str | None = None) -> RunConfig:
    """The run of a study at a profile, in a regime (None: the weak-basis regime, whose runs keep
    their published hashes); ``epochs`` overrides the profile's (or the regime's)."""
    from anchorkit import regimes

    check_choice("profile", profile, tuple(PROFILES))
    settings = dict(PROFILES[profile])
    if regime in (None, regimes.WEAK):
        if epochs is not None:
            settings["epochs"] = epochs
        return RunConfig(seed=seed, recipe=recipe, optimizer=optimizer, **settings)
    # another regime: its changes, the compiled step at the paper profile (the eager one for a
    # quick smoke run), the regime's length unless given
    paper = profile == "paper"
    return regimes.configure(
        regime, seed, recipe, optimizer,
        epochs if epochs is not None else regimes.SECOND_EPOCHS if paper else settings["epochs"],
        step=regimes.STEP if paper else "eager", task=settings["task"])


@dataclass(frozen=True)
class Pair:
    """An anchored run and the control at the same seed under the same optimizer."""

    anchored: RunConfig
    control: RunConfig


def study_pairs(study: str, seeds, profile: str = "paper", epochs: int | None = None,
                regime: str | None = None) -> list[Pair]:
    """The (anchored, control) pairs a study measures; the control study pairs each control with
    itself (it has no anchored run)."""
    check_choice("study", study, STUDIES)
    seeds = check_seeds(seeds)
    cfg = lambda s, r, o: run_config(s, r, o, profile, epochs, regime)  # noqa: E731
    if study == "control":
        return [Pair(cfg(s, "control", "adam"), cfg(s, "control", "adam")) for s in seeds]
    if study == "split-anti-seeds":
        return [Pair(cfg(s, r, "adam"), cfg(s, "control", "adam"))
                for r in ("split-anti", "falloff") for s in seeds]
    if study == "rotated-basis":
        return [Pair(cfg(s, "falloff", o), cfg(s, "control", o))
                for o in ("rotated", "adam") for s in seeds]
    # reference-baseline (every coordinate axis swept) and the loss-rate screen (many seeds)
    return [Pair(cfg(s, "falloff", "adam"), cfg(s, "control", "adam")) for s in seeds]


def study_runs(study: str, seeds, profile: str = "paper", epochs: int | None = None,
               regime: str | None = None) -> list[RunConfig]:
    """Every distinct run the study reads, in a stable order."""
    out: dict[str, RunConfig] = {}
    for p in study_pairs(study, seeds, profile, epochs, regime):
        out.setdefault(p.anchored.hash, p.anchored)
        out.setdefault(p.control.hash, p.control)
    return list(out.values())


def _roles(pair: Pair):
    return (("anchored", pair.anchored), ("control", pair.control))


def _stack(answers, name: str) -> torch.Tensor:
    """The answers ``name`` of both runs of a pair, stacked (2, …), as integers."""
    return torch.stack([a[name] for a in answers]).long()


@torch.inference_mode()
def measure_pair(pair: Pair, anchored_state: dict, control_state: dict, sweep: bool = True,
                 chunk: int = 8, answers: tuple[dict, dict] | None = None
                 ) -> dict[str, pd.DataFrame]:
    """Every measurement of SPEC §8 on one pair of runs, as tidy tables.

    ``results`` (one row, full dose), ``dose`` (one row per dose), ``alignment`` (by slice),
    ``spectra`` (energy share per basis vector at the last slice, over all positions and over the
    syntax positions), and with ``sweep`` the ``directions`` table (every swept direction's cost
    and drop of difference at full dose).

    Scores come from the runs' query answers (``anchorkit.predictions``; ``answers`` gives them,
    one dict per run, as cached; else they are computed here); the basis measures come from one
    clean forward of the probe set. Nothing here runs an edited forward when ``answers`` is given.
    """
    from anchorkit.predictions import PARTS, predict, sweep_directions

    a_cfg, c_cfg = pair.anchored, pair.control
    if answers is None:
        parts = PARTS if sweep else ("base",)
        answers = tuple({k: v for part in parts for k, v in predict(cfg, st, part, chunk).items()}
                        for cfg, st in ((a_cfg, anchored_state), (c_cfg, control_state)))
    model = load_model([a_cfg, c_cfg], [anchored_state, control_state])
    D, task, seed = a_cfg.model.d_model, a_cfg.task, a_cfg.seed
    probe = probe_set(task)
    batch = probe.clean
    clean_answers = _stack(answers, "clean")
    clean = scores_of_predictions(clean_answers, batch)  # (2, ops)
    null = null_of_other_ops(clean_answers, batch)
    evidence_null = scores_of_predictions(_stack(answers, "null"), probe.null)
    spans, evidence_spans = span(clean, null), span(clean, evidence_null)
    n_ops = contexts_per_op(batch)
    error = removal_error(null[:, DIFFERENCE], spans[:, DIFFERENCE], n_ops[DIFFERENCE],
                          n_ops.sum() - n_ops[DIFFERENCE])
    e1_answers = _stack(answers, "e1")  # (2, doses, B)
    edited = scores_of_predictions(e1_answers, batch).transpose(0, 1)  # (doses, 2, ops)
    drops = drop(clean, edited)
    over = over_removal(edited[:, 0, DIFFERENCE], null[0, DIFFERENCE], n_ops[DIFFERENCE],
                        n_ops.sum() - n_ops[DIFFERENCE])
    raw, control_drop = removal(drops[:, 0], spans[0]), removal(drops[:, 1], spans[1])
    raw_ev = removal(drops[:, 0], evidence_spans[0])
    control_ev = removal(drops[:, 1], evidence_spans[1])
    base = {"seed": seed, "optimizer": a_cfg.optimizer, "recipe": a_cfg.recipe,
            "run": a_cfg.name, "control_run": c_cfg.name}

    dose_rows = []
    for i, d in enumerate(DOSES):
        dose_rows.append({**base, "dose": d, "raw_removal": float(raw[i]),
                          "control_drop": float(control_drop[i]),
                          "net_removal": float(raw[i] - control_drop[i]),
                          "over_removal": bool(over[i]),
                          "raw_removal_vs_evidence_null": float(raw_ev[i]),
                          "net_removal_vs_evidence_null": float(raw_ev[i] - control_ev[i]),
                          "spill": float(spill(drops[i:i + 1, 0], drops[i:i + 1, 1])),
                          "raw_spill": float(other_ops_drop(drops[i, 0])),
                          "control_other_ops": float(other_ops_drop(drops[i, 1]))})
    full = dose_rows[-1]
    res = {**base, **{k: full[k] for k in (
        "raw_removal", "control_drop", "net_removal", "over_removal",
        "raw_removal_vs_evidence_null", "net_removal_vs_evidence_null", "raw_spill",
        "control_other_ops")}}
    res["removal_error"] = float(error[0])
    res["spill"] = float(spill(drops[:, 0], drops[:, 1]))
    res["landing"] = float(landing(e1_answers[0, -1], batch))
    res["task_change"] = float(task_change(clean[0], clean[1]))
    res["kept"] = bool(kept(res["net_removal"]))
    res["kept_raw"] = bool(kept(res["raw_removal"]))
    for role_i, (role, _) in enumerate(_roles(pair)):
        for j, op in enumerate(OPS):
            res[f"{role}_score_{op}"] = float(clean[role_i, j])
        res[f"{role}_null_difference"] = float(null[role_i, DIFFERENCE])
        res[f"{role}_evidence_null_difference"] = float(evidence_null[role_i, DIFFERENCE])
        res[f"{role}_span_difference"] = float(spans[role_i, DIFFERENCE])

    align_diff, align_other = alignment_profile(model, batch)
    align_rows = [{**base, "role": role, "slice": s, "context": ctx, "alignment": float(v[i, s])}
                  for i, (role, _) in enumerate(_roles(pair))
                  for ctx, v in (("difference", align_diff), ("other", align_other))
                  for s in range(v.shape[1])]

    states = last_slice_states(model, batch)
    at_syntax = syntax_positions(task, batch)
    R = rotation(a_cfg.replace(optimizer="rotated"))  # the seed's R (for plain Adam: arbitrary)
    bases = {"axes": coordinate_axes(D), "rotated": rotated_axes(R)}
    anchored_run = pair.anchored != pair.control and a_cfg.recipe != "control"
    spectra_rows = []
    for name, basis in bases.items():
        shares = energy_shares(states, basis)
        syntax_shares = energy_shares(states, basis, at_syntax)
        kurt = kurtosis(states, basis)
        cos = syntax_cosines(model, basis)
        found = {}
        for i, (role, _) in enumerate(_roles(pair)):
            # along the axes e₁ is never an anchored run's spike: the anchor put energy there
            exclude = 0 if name == "axes" and role == "anchored" and anchored_run else None
            index, has = spike(syntax_shares[i], exclude)
            found[role] = index, has = int(index), bool(has)
            res[f"{role}_has_spike_{name}"] = has
            res[f"{role}_spike_{name}"] = index if has else None
            res[f"{role}_spike_share_{name}"] = float(shares[i, index]) if has else float("nan")
            res[f"{role}_cos_e1_spike_{name}"] = (float(cos_e1(basis, torch.tensor(index)))
                                                  if has else float("nan"))
            res[f"{role}_top_share_{name}"] = float(shares[i].max())
            res[f"{role}_kurtosis_{name}"] = float(kurt[i])
            for sym, v in cos.items():
                res[f"{role}_syntax_cos_{sym}_{name}"] = float(v[i])
            spectra_rows += [{**base, "role": role, "basis": name, "direction": k,
                              "share": float(shares[i, k]),
                              "syntax_share": float(syntax_shares[i, k])} for k in range(D)]
        (a_index, a_has), (c_index, c_has) = found["anchored"], found["control"]
        res[f"moved_{name}"] = moved(a_index, c_index, a_has, c_has)
    out = {"results": res, "dose": dose_rows, "alignment": align_rows, "spectra": spectra_rows}

    if sweep:
        kinds, idx, _ = sweep_directions(a_cfg)
        scores = scores_of_predictions(_stack(answers, "sweep"), batch)  # (2, n, ops)
        drops_dir = clean[:, None] - scores
        cost = direction_cost(drops_dir)
        share = removal(drops_dir, spans[:, None])
        dir_rows = [{**base, "role": role, "kind": k, "index": ix, "cost": float(cost[i, n]),
                     "difference_share": float(share[i, n])}
                    for i, (role, _) in enumerate(_roles(pair))
                    for n, (k, ix) in enumerate(zip(kinds, idx))]
        dir_rows += [{**base, "role": role, "kind": "e1", "index": 0,
                      "cost": float(direction_cost(drops[-1, i])),
                      "difference_share": float(removal(drops[-1, i], spans[i]))}
                     for i, (role, _) in enumerate(_roles(pair))]
        out["directions"] = dir_rows
        ref = pd.DataFrame(dir_rows)
        # reference directions: the optimizer's own basis, off the spike (the axes: off e₁ too)
        kind, name = ("axis", "axes") if a_cfg.optimizer == "adam" else ("rotated", "rotated")
        for role, _ in _roles(pair):
            mine = ref[(ref.role == role) & (ref.kind == kind)]
            off = [res[f"{role}_spike_{name}"]] if res[f"{role}_has_spike_{name}"] else []
            pick = mine[~mine["index"].isin(off)]
            res[f"{role}_reference_baseline"] = float(
                reference_baseline(torch.tensor(pick["difference_share"].to_numpy())))
        res["removal_net_of_reference"] = res["raw_removal"] - res["anchored_reference_baseline"]
    return _typed({k: pd.DataFrame([v] if isinstance(v, dict) else v) for k, v in out.items()})


def _typed(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Columns that may be undefined get nullable types (a spike's index, moved), so that the
    tables of many pairs concatenate and round-trip through Parquet alike."""
    res = tables["results"]
    for col in res.columns:
        if col.startswith("moved_"):
            res[col] = res[col].astype("boolean")
        elif col.startswith(("anchored_spike_", "control_spike_")) and "share" not in col:
            res[col] = res[col].astype("Int64")
    return tables


# ---------------------------------------------------------------------- tables built from them
def _beside(results: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """One row per seed: each column for the rotated run and, beside it, its stored (plain-Adam)
    twin, as ``<column>_rotated`` and ``<column>_stored``."""
    label = {"rotated": "rotated", "adam": "stored"}
    wide = results.pivot(index="seed", columns="optimizer", values=columns)
    wide.columns = [f"{c}_{label[o]}" for c, o in wide.columns]
    order = [f"{c}_{label[o]}" for c in columns for o in ("rotated", "adam")
             if f"{c}_{label[o]}" in wide.columns]
    return wide[order].reset_index()


E2_COLUMNS = ["raw_removal", "control_drop", "control_other_ops", "net_removal", "over_removal",
              "removal_error", "raw_removal_vs_evidence_null", "spill", "raw_spill", "landing",
              "task_change", "control_has_spike_rotated", "control_cos_e1_spike_rotated",
              "control_has_spike_axes", "control_cos_e1_spike_axes", "removal_net_of_reference",
              "kept", "kept_raw"]
E3_COLUMNS = (["control_top_share_rotated", "anchored_top_share_rotated",
               "control_top_share_axes", "anchored_top_share_axes",
               "control_has_spike_rotated", "anchored_has_spike_rotated",
               "control_spike_share_rotated", "anchored_spike_share_rotated",
               "control_spike_rotated", "anchored_spike_rotated",
               "control_has_spike_axes", "anchored_has_spike_axes",
               "control_spike_axes", "anchored_spike_axes"]
              + [f"{role}_syntax_cos_{sym}_rotated" for role in ("control", "anchored")
                 for sym in SYNTAX]
              + ["control_cos_e1_spike_rotated", "anchored_cos_e1_spike_rotated",
                 "control_kurtosis_rotated", "anchored_kurtosis_rotated",
                 "control_kurtosis_axes", "anchored_kurtosis_axes", "moved_rotated", "moved_axes"])


def basis_table(spectra: pd.DataFrame, directions: pd.DataFrame) -> pd.DataFrame:
    """One row per run and direction: its energy share at the last slice (coordinate axes and
    rotated axes; none for random directions) beside its direction cost and its drop of
    difference as a share of span at full dose (e₁ is coordinate axis 0)."""
    dirs = directions.assign(basis=directions["kind"].replace({"axis": "axes", "e1": "axes"}),
                             direction=directions["index"]).drop(columns=["kind", "index"])
    keys = ["seed", "optimizer", "recipe", "run", "control_run", "role", "basis", "direction"]
    out = spectra.merge(dirs, on=keys, how="outer")
    return out.sort_values(keys, kind="stable").reset_index(drop=True)


def spikes_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run of the pairs: where its spike sits along the coordinate axes and the
    rotated axes, with its share, cos(e₁, spike), kurtosis and reference baseline."""
    rows = []
    for _, r in results.iterrows():
        for role, name in (("anchored", r["run"]), ("control", r["control_run"])):
            row = {"run": name, "seed": r["seed"], "optimizer": r["optimizer"], "role": role,
                   "recipe": r["recipe"] if role == "anchored" else "control"}
            for col in results.columns:
                if col.startswith(f"{role}_") and any(w in col for w in (
                        "spike", "kurtosis", "reference", "top_share")):
                    row[col[len(role) + 1:]] = r[col]
            rows.append(row)
    out = pd.DataFrame(rows).drop_duplicates("run").reset_index(drop=True)
    for col in ("spike_axes", "spike_rotated"):
        if col in out:
            out[col] = out[col].astype("Int64")
    return out


def derived_tables(study: str, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The study's tables read by its page: for rotated-basis the E2 and E3 tables (rotated
    beside stored) and ``basis``; for reference-baseline ``spikes``, one row per stored run; for
    the loss-rate screen ``rate``."""
    out = {}
    if study == "rotated-basis":
        res = tables["results"]
        out["e2"] = _beside(res, [c for c in E2_COLUMNS if c in res])
        out["e3"] = _beside(res, [c for c in E3_COLUMNS if c in res])
        if "directions" in tables:  # measured with the direction sweep
            out["basis"] = basis_table(tables["spectra"], tables["directions"])
    if study == "reference-baseline":
        out["spikes"] = spikes_table(tables["results"])
    if study == "loss-rate-screen":
        out["rate"] = rate_table(tables["results"])
    return out


def rate_table(results: pd.DataFrame, runs_per_study: int = 8) -> pd.DataFrame:
    """The loss rate under each kept/lost rule (net removal, raw removal) with its exact 95%
    interval, and the probability of at least m losses in a study of ``runs_per_study`` runs
    (m = 1, 2, 3) at that rate and at the interval's ends."""
    from anchorkit.report import at_least, loss_rate

    rows = []
    for rule, col in (("net removal", "kept"), ("raw removal", "kept_raw")):
        r = loss_rate(results[col])
        row = {"rule": rule, **r, "study_runs": runs_per_study}
        for m in (1, 2, 3):
            for name, p in (("", r["rate"]), ("_low", r["low"]), ("_high", r["high"])):
                row[f"p_at_least_{m}{name}"] = at_least(m, runs_per_study, p)
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------- executing a study
# directions per forward in a sweep: one at a time is the fastest on this CPU (BENCHMARKS.md); the
# predictions do not depend on it
SWEEP_CHUNK = 1
# tables written as CSV too, for a person to read
CSV_TABLES = ("results", "dose", "e2", "e3", "spikes", "rate")
SWEEPS = {"control": False, "split-anti-seeds": False, "rotated-basis": True,
          "reference-baseline": True, "loss-rate-screen": False}


def source_state() -> dict:
    """The repository's commit and whether tracked files other than the result tables differ from
    it (taken when a study starts, so that edits made while it runs are not attributed to it)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    # the tables a study writes (reports/) are its output, not its source
    return {"commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no", "--", ".",
                              ":(exclude)reports"))}


def machine() -> str:
    """The CPU the tables were computed on (fp32 rounding, hence a retrained run's weights,
    depends on it)."""
    import platform
    from pathlib import Path

    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()}, {platform.machine()}"
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run_names(runs: list[RunConfig]) -> dict[str, str]:
    """Name → hash of every run; a name that several runs share (the same seed, recipe and
    optimizer in two regimes) is qualified by the run's hash, so that no run is left out."""
    names = [c.name for c in runs]
    return {(f"{c.name} {c.hash}" if names.count(c.name) > 1 else c.name): c.hash for c in runs}


def provenance(study: str, seeds, profile: str, runs: list[RunConfig], wall_seconds: float,
               source: dict | None = None, regime: str | None = None) -> dict:
    """What produced a study's tables: commit, date, profile, seeds, epochs, hashes, versions."""
    import datetime
    import importlib.metadata as md
    import platform

    versions = {}
    for pkg in ("anchorkit", "torch", "numpy", "pandas", "pyarrow", "altair", "papermill"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            versions[pkg] = None
    return {
        "study": study,
        **(source if source is not None else source_state()),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "profile": profile,
        "seeds": list(seeds),
        "epochs": runs[0].epochs,
        **({"regime": regime} if regime not in (None, "weak-basis") else {}),
        "runs": run_names(runs),
        "python": platform.python_version(),
        "machine": machine(),
        "kernels": kernels.record(),
        "versions": versions,
        "threads": torch.get_num_threads(),
        "wall_seconds": round(wall_seconds, 1),
    }


def measured(pair: Pair, sweep: bool, trained: dict[str, TrainedRun], store
             ) -> dict[str, pd.DataFrame]:
    """A pair's tables, derived from its runs' answers: read from the store's cache, or
    computed (a sweep, if asked for) and cached first."""
    from anchorkit.predictions import PARTS, cached_predictions

    parts = PARTS if sweep else ("base",)
    states = [trained[c.hash].final for c in (pair.anchored, pair.control)]
    answers = tuple(cached_predictions(c, st, parts, store, SWEEP_CHUNK)
                    for c, st in zip((pair.anchored, pair.control), states))
    return measure_pair(pair, *states, sweep=sweep, answers=answers)


def read_tables(where) -> dict[str, pd.DataFrame]:
    """Every table a study wrote to ``where`` (``reports/<study>/``), by name, once checked
    against its manifest."""
    from pathlib import Path

    manifest = check_manifest(where)["tables"]
    return {Path(n).stem: pd.read_parquet(Path(where) / n) for n in sorted(manifest)
            if n.endswith(".parquet")}


def written_for(where, study: str, seeds, profile: str, runs: list[RunConfig]) -> bool:
    """Whether ``where`` holds the tables of exactly this study, seeds, profile and runs."""
    import json
    from pathlib import Path

    f = Path(where) / "provenance.json"
    if not f.exists():
        return False
    prov = json.loads(f.read_text())
    if prov.get("study") == study:
        check_manifest(where)  # the tables are the ones this provenance describes, whole
    return (prov.get("study") == study and prov.get("seeds") == list(seeds)
            and prov.get("profile") == profile
            and sorted(prov.get("runs", {}).values()) == sorted(c.hash for c in runs))


def run_study(study: str, seeds, profile: str = "paper", epochs: int | None = None,
              reports_dir=None, store=None, device: str = "cpu", progress: bool = True,
              reuse: bool = False, scheduler: str | None = None, regime: str | None = None
              ) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs, measure every pair, and write its tables atomically to
    ``reports_dir/<study>/`` (Parquet, with CSV beside) with ``provenance.json``; in a ``regime``
    other than the weak basis, to ``reports_dir/<regime>/<study>/``.

    The work runs through ``anchorkit.executor`` on ``scheduler`` (None: ``$ANCHORKIT_SCHEDULER``,
    else a LocalCluster of one single-thread worker per core; "in-process": no Dask); the tables
    do not depend on where it ran.

    With ``reuse``, tables already written there for exactly these runs are read back instead
    (nothing is trained or measured, and the provenance is left as it was).
    """
    import time
    from pathlib import Path

    from anchorkit.executor import execute, study_graph
    from anchorkit.store import RunStore

    t0 = time.perf_counter()
    source = source_state()
    seeds = check_seeds(seeds)
    pairs = study_pairs(study, seeds, profile, epochs, regime)
    runs = study_runs(study, seeds, profile, epochs, regime)
    if reports_dir is not None:
        from anchorkit.regimes import reports_path
        reports_dir = reports_path(reports_dir, regime)
    if reuse and reports_dir is not None and written_for(Path(reports_dir) / study, study, seeds,
                                                         profile, runs):
        return read_tables(Path(reports_dir) / study)
    store = store if store is not None else RunStore()
    graph = study_graph(runs, pairs, SWEEPS[study], store, device=device)
    measured_pairs = execute(graph, scheduler, progress, desc=study)
    trained = {r.config.hash: r for r in train(runs, store, progress=False)}  # finished: loads
    tables: dict[str, list[pd.DataFrame]] = {}
    for key in graph.outputs:
        for name, df in measured_pairs[key].items():
            tables.setdefault(name, []).append(df)
    out = {name: pd.concat(dfs, ignore_index=True) for name, dfs in tables.items()}
    out["trajectories"] = pd.concat([trained[c.hash].trajectory for c in runs], ignore_index=True)
    out.update(derived_tables(study, out))
    if reports_dir is not None:
        write_study(Path(reports_dir) / study, out, study, seeds, profile, runs,
                    time.perf_counter() - t0, source, regime)
    return out


def write_study(where, tables: dict[str, pd.DataFrame], study: str, seeds, profile: str,
                runs, wall_s: float, source: dict, regime: str | None = None) -> None:
    """Write a study's tables to ``where`` as one unit: every table (Parquet; CSV beside those in
    ``CSV_TABLES``) and ``provenance.json``, whose ``tables`` entry is the manifest (the SHA-256
    of every file), go to a fresh sibling directory that then replaces ``where`` by a rename. An
    interrupted write leaves the old study whole (or, between the two renames, none), never
    tables of two executions side by side."""
    import os
    import shutil
    from pathlib import Path

    from anchorkit.store import digest, write_json, write_table

    where = Path(where)
    where.parent.mkdir(parents=True, exist_ok=True)
    fresh = where.parent / f".{where.name}.{os.getpid()}.new"
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir()
    for name, df in tables.items():
        write_table(fresh / f"{name}.parquet", df, csv=name in CSV_TABLES, verified=False)
    manifest = {f.name: digest(f.read_bytes()) for f in sorted(fresh.iterdir())}
    write_json(fresh / "provenance.json",
               {**provenance(study, seeds, profile, runs, wall_s, source, regime),
                "tables": manifest}, verified=False)
    old = where.parent / f".{where.name}.{os.getpid()}.old"
    if where.exists():
        os.replace(where, old)
    os.replace(fresh, where)
    shutil.rmtree(old, ignore_errors=True)


def check_manifest(where) -> dict:
    """A study directory's provenance, after checking every table against its manifest;
    ``StoreError`` naming the table that is missing, changed or not in the manifest."""
    import json
    from pathlib import Path

    from anchorkit.store import StoreError, digest

    where = Path(where)
    prov = json.loads((where / "provenance.json").read_text())
    manifest = prov.get("tables")
    if manifest is None:
        raise StoreError(f"{where}: provenance.json lists no manifest of its tables; the tables "
                         "cannot be vouched for (re-run the study without reuse)")
    for name, expected in manifest.items():
        f = where / name
        if not f.exists():
            raise StoreError(f"{f}: in the manifest but missing")
        if digest(f.read_bytes()) != expected:
            raise StoreError(f"{f}: does not match the manifest in provenance.json (another "
                             "execution wrote it, or it was edited): delete the directory or run "
                             "without reuse")
    extra = sorted(f.name for f in where.glob("*.parquet") if f.name not in manifest)
    if extra:
        raise StoreError(f"{where / extra[0]}: not in the manifest in provenance.json (left by "
                         "another execution)")
    return prov


# ---------------------------------------------------------------------- the essay's measurements
ESSAY = "geometry-of-anchors"
ESSAY_STUDIES = ("control", "split-anti-seeds", "rotated-basis", "reference-baseline")


def essay_runs(seeds, profile: str = "paper", epochs: int | None = None, store=None
               ) -> list[RunConfig]:
    """Every finished run of the paper's studies at these seeds (the essay measures what is
    stored; it trains nothing)."""
    from anchorkit.store import RunStore

    store = store if store is not None else RunStore()
    out: dict[str, RunConfig] = {}
    for s in ESSAY_STUDIES:
        for c in study_runs(s, seeds, profile, epochs):
            if store.has_final(c):
                out.setdefault(c.hash, c)
    return list(out.values())


def run_geometry(seeds, profile: str = "paper", epochs: int | None = None, reports_dir=None,
                 store=None, device: str = "cpu", progress: bool = True, reuse: bool = False
                 ) -> dict[str, pd.DataFrame]:
    """The essay's measurements (SPEC §10) on every stored run at these seeds, initial and final
    weights (and at the snapshots the store keeps of them): ``heads`` (per head and stage) and
    ``layers`` (per layer and measure, W_OV and W_QK), written to
    ``reports_dir/geometry-of-anchors/`` with ``provenance.json``."""
    import time
    from pathlib import Path

    from anchorkit import geometry
    from anchorkit.store import RunStore

    t0 = time.perf_counter()
    source = source_state()
    seeds = check_seeds(seeds)
    store = store if store is not None else RunStore()
    runs = essay_runs(seeds, profile, epochs, store)
    if not runs:
        raise ValueError(f"no finished runs at seeds {seeds} ({profile}) in {store.root}")
    where = Path(reports_dir) / ESSAY if reports_dir is not None else None
    if reuse and where is not None and written_for(where, ESSAY, seeds, profile, runs):
        return read_tables(where)
    trained = train(runs, store, device=device, progress=False)  # all finished: loads them
    iterator = trained
    if progress:
        from tqdm.std import tqdm
        iterator = tqdm(trained, desc="measuring heads")
    # the snapshots between start and end (epoch 0 is the initial weights, already loaded)
    heads = pd.concat([geometry.head_table([r], device=device, snapshots={
        r.config.hash: {e: store.load_snapshot(r.config, e)
                        for e in store.snapshot_epochs(r.config) if 0 < e < r.config.epochs}})
        for r in iterator], ignore_index=True)
    layers = pd.concat([geometry.layer_table(trained, kind=k, device=device)
                        for k in geometry.MAP_KINDS], ignore_index=True)
    out = {"heads": heads, "layers": layers}
    if where is not None:
        write_study(where, out, ESSAY, seeds, profile, runs, time.perf_counter() - t0, source)
    return out
