"""What the supporting studies' pages say and show: the figures their prose quotes (glue key →
text) and their reader's tables, computed from each study's committed tables.

One function per page and table, so that a page notebook is prose, one call per table or
figure, and its glue: the control (``control_*``), split-anti against falloff (``split_*``), the
reference baseline (``reference_*``), the loss-rate screen (``screen_*``, and the report's scope
sentence drawn from it) and the reproducibility page (``provenance_table``, the re-runs'
``rerun_summaries``). Nothing here knows a result; the thresholds come from ``anchorkit.measures.criteria``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.regimes import regime as regime_of
from anchorkit.measures import criteria
from anchorkit.formatting import (by_seed, captioned, count, count_moved, cpu_name, number, paired,
                                  seed_text, summary)
from anchorkit.pages.page import compute_command, regime_list
from anchorkit.provenance import check_manifest, read_study
from anchorkit.measures.stats import pearson
from anchorkit.core.task import OPS

# ------------------------------------------------------------------------------ control
CONTROL_HEADERS = {
    "seed": "seed", "control_score_sum": "sum ↑", "control_score_difference": "difference ↑",
    "control_score_max": "max ↑", "control_score_min": "min ↑",
    "control_top_share_axes": "top-axis share", "control_spike_axes": "spike axis",
    "control_spike_share_axes": "spike share", "control_kurtosis_axes": "kurtosis"}


def control_facts(results: pd.DataFrame) -> dict[str, str]:
    """The control page's figures: lowest op score, top-axis share, kurtosis, spikes."""
    return {
        "control-lowest": summary(results[[f"control_score_{op}" for op in OPS]].min(axis=1), ".3f"),
        "control-topaxis": summary(results.control_top_share_axes, ".3f"),
        "control-hasspike": count(results.control_has_spike_axes),
        "control-kurt": summary(results.control_kurtosis_axes)}


def control_table(results: pd.DataFrame):
    return captioned(results, CONTROL_HEADERS,
                     "Per seed: each op's clean score on the probe set; the largest energy share along a "
                     "coordinate axis at the last slice; the spike axis (at least twice the share of any "
                     "other axis at the syntax positions; – where there is none) and its share over all "
                     "positions; the kurtosis of the components along the coordinate axes.")


# ------------------------------------------------------------------------------ split-anti
SPLIT_RECIPES = ("split-anti", "falloff")
SPLIT_HEADERS = {
    "seed": "seed", "raw_removal": "raw removal ↑", "control_drop": "control drop ↓",
    "net_removal": "net removal ↑", "over_removal": "over-removal", "spill": "spill ↓",
    "raw_spill": "raw spill ↓", "landing": "landing", "task_change": "task change"}


def _by_recipe(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {r: results[results.recipe == r].sort_values("seed") for r in SPLIT_RECIPES}


def split_facts(results: pd.DataFrame) -> dict[str, str]:
    """Per recipe: net removal, kept, over-removal, spill and the seeds that lost; and the two
    recipes seed by seed."""
    by = _by_recipe(results)
    out = {}
    for r, df in by.items():
        out.update({f"{r}-net": summary(df.net_removal), f"{r}-kept": count(df.kept),
                    f"{r}-over": count(df.over_removal), f"{r}-spill": summary(df.spill, ".3f"),
                    f"{r}-lost": ", ".join(str(s) for s in df.seed[~df.kept]) or "none"})
    out["falloff-vs-split"] = paired(by["falloff"].net_removal.values,
                                     by["split-anti"].net_removal.values)
    return out


def split_tables(results: pd.DataFrame) -> list:
    return [by_seed(df, SPLIT_HEADERS, f"{r} per seed (columns) at full dose, paired with the "
                    "control at its seed (definitions as in the report's E2 table).")
            for r, df in _by_recipe(results).items()]


# ------------------------------------------------------------------------------ reference baseline
SPIKE_HEADERS = {
    "run": "run", "seed": "seed", "top_share_axes": "top-axis share", "spike_axes": "spike axis",
    "spike_share_axes": "spike share", "cos_e1_spike_axes": "cos(e₁, spike)",
    "kurtosis_axes": "kurtosis", "reference_baseline": "reference baseline"}


def reference_facts(tables: dict[str, pd.DataFrame], epochs: int) -> dict[str, str]:
    """One regime's reference-baseline figures: spikes, moved, the baseline and removal net of it."""
    r = tables["results"]
    return {"rb-moved": count_moved(r.moved_axes, r.anchored_has_spike_axes, r.control_has_spike_axes),
            "rb-hasspike": count(tables["spikes"].has_spike_axes),
            "rb-ref": summary(r.anchored_reference_baseline, ".3f"),
            "rb-refnet": summary(r.removal_net_of_reference), "rb-net": summary(r.net_removal),
            "rb-epochs": str(epochs)}


def reference_sentence(facts: dict[str, str]) -> str:
    """The same figures as one sentence (for a regime shown after the first)."""
    return (f"Its runs trained for {facts['rb-epochs']} epochs. A spike formed in "
            f"{facts['rb-hasspike']} of these runs. Falloff's spike {facts['rb-moved']}. The "
            f"reference baseline of the falloff runs was {facts['rb-ref']}; raw removal net of it "
            f"was {facts['rb-refnet']}, against a control-netted removal of {facts['rb-net']}.")


def other_regimes(regimes, facts: dict, study: str = "reference-baseline") -> str:
    """The page's section on the report's other regimes (``regimes``, those after the first) as a
    Markdown list, a line per regime (``page.regime_list``): its sentence, or the command that
    computes its tables, then its table as a file and its tables' folder. A regime added to the
    report is one more line."""
    lines = {}
    for r in regimes:
        if r not in facts:
            lines[r] = f"Its tables are not computed yet ({compute_command(r, study)})."
            continue
        lines[r] = (f"{reference_sentence(facts[r])} The table as a file: {{download}}`spikes.csv "
                    f"<{r.reports('../../reports') / study / 'spikes'}.csv>` (every table of the "
                    f"study in this regime, as Parquet, is in `{r.reports('reports') / study}/`).")
    return regime_list(lines)


def spike_table(tables: dict[str, pd.DataFrame], regime_title: str):
    return captioned(
        tables["spikes"], SPIKE_HEADERS,
        f"Per stored run, {regime_title}: the largest energy share along a coordinate axis at the "
        "last slice; the spike axis (at least twice the share of any other axis at the syntax "
        "positions, never e₁ in a falloff run; – where there is none), its share over all "
        "positions and its cosine with e₁; the kurtosis along the coordinate axes; and the "
        "reference baseline (median drop of difference, as a share of span, over coordinate axes "
        "other than e₁ and the spike).")


# ------------------------------------------------------------------------------ loss-rate screen
RATE_HEADERS = {"rule": "rule", "losses": "losses", "runs": "runs", "rate": "loss rate",
                "low": "95% low", "high": "95% high", "p_at_least_1": "P(≥1 in 8)",
                "p_at_least_2": "P(≥2 in 8)", "p_at_least_3": "P(≥3 in 8)"}


def with_control_e1_share(results: pd.DataFrame, spectra: pd.DataFrame) -> pd.DataFrame:
    """The screen's results with each control's energy share along e₁ at the last slice."""
    e1 = spectra[(spectra.role == "control") & (spectra.basis == "axes") & (spectra.direction == 0)]
    return results.merge(e1[["run", "share"]].rename(columns={"share": "control_e1_share"}), on="run")


def _run_op(run: str, column: str) -> str:
    role, op = column.split("_score_")
    return f"{run if role == 'anchored' else run.replace('falloff', 'control')} on {op}"


def screen_facts(results: pd.DataFrame, rate: pd.DataFrame) -> dict[str, str]:
    """The screen page's figures: losses and their rate under each rule, the chance of losses in
    eight runs, the seeds that lost, spikes on e₁, and the calibration criteria at unseen seeds.
    ``results`` with ``control_e1_share`` (``with_control_e1_share``)."""
    rate = rate.set_index("rule")
    net, raw = rate.loc["net removal"], rate.loc["raw removal"]
    out = {"screen-losses": f"{int(net.losses)} of {int(net.runs)}",
           "screen-rate": f"{net.rate:.3f} (95% interval {net.low:.3f} to {net.high:.3f})",
           "screen-raw-losses": f"{int(raw.losses)} of {int(raw.runs)}"}
    for m in (1, 2, 3):
        out[f"screen-p{m}"] = chance_of_losses(net, m) + (
            f" {NO_LOSS_NOTE}" if m == 3 and net.losses == 0 else "")
    lost = ~results.kept
    out["screen-lost-seeds"] = ", ".join(map(str, results.seed[lost].sort_values())) or "none"
    has = results.control_has_spike_axes  # a spike stands out at the syntax positions
    on_e1 = has & (results.control_cos_e1_spike_axes > 0.5)  # along the axes, cos(e₁, spike) is 1 or 0
    out["screen-spikes"] = count(has)
    out["screen-spike-lost"] = (f"{on_e1[lost].sum()} of the {has[lost].sum()} with a spike among the "
                                f"{lost.sum()} seeds that lost" if lost.any()
                                else "none of the seeds that lost (no seed lost)")
    out["screen-spike-kept"] = (f"{on_e1[~lost].sum()} of the {has[~lost].sum()} with a spike among "
                                f"the {(~lost).sum()} seeds that kept")
    r, n = pearson(results.control_e1_share, results.net_removal)
    out["screen-r"] = f"r = {r:.2f} (n = {n})"
    scores = results.set_index("run")[[c for c in results.columns if "_score_" in c]].stack()
    below = scores[scores < criteria.SCORE_MIN]  # every op in every run
    out["screen-below"] = ", ".join(f"{_run_op(r, c)} ({v:.3f})" for (r, c), v in below.items()) or "none"
    short = results.raw_removal < criteria.REMOVAL_MIN
    out["screen-raw-below"] = count(short)
    out["screen-raw-min"] = f"{results.raw_removal.min():.2f}"
    out["screen-raw-short-lost"] = (f"{(short & lost).sum()} of them also crossed the kept/lost threshold"
                                    if (short & lost).any() else
                                    "though none crossed the kept/lost threshold")
    out["screen-score-min"] = str(criteria.SCORE_MIN)
    out["screen-removal-min"] = str(criteria.REMOVAL_MIN)
    return out


def rate_table(rate: pd.DataFrame):
    return captioned(rate, RATE_HEADERS,
                     "Loss rate under each kept/lost rule with its exact (Clopper–Pearson) 95% "
                     "interval, and the probability of at least m losses among eight runs at that rate.")


NO_LOSS_NOTE = "(at the upper end of the interval: with no loss seen, the rate itself is 0)"


def chance_of_losses(rate_row, m: int) -> str:
    """The probability of at least m losses in a study, from a row of the screen's rate table:
    ``p (low to high ...)`` at the rate and at the ends of its interval; with no loss observed
    the rate is 0, so only the upper end says anything: ``at most high`` (``NO_LOSS_NOTE`` says
    why, once per sentence)."""
    p, low, high = (float(rate_row[f"p_at_least_{m}{k}"]) for k in ("", "_low", "_high"))
    if float(rate_row["losses"]) == 0:
        return f"at most {high:.2f}"
    return f"{p:.2f} ({low:.2f} to {high:.2f} at the interval's ends)"


def screen_scope(rate: pd.DataFrame | None, earlier_definitions: bool = False) -> str:
    """The report's scope sentence on lost anchors, from the loss-rate screen's ``rate`` table
    (its net-removal row), or, without one, a sentence that makes no claim; with
    ``earlier_definitions`` it says that the screen was measured under the earlier ones."""
    if rate is None:
        return ("The loss-rate screen that would provide it has not been run yet, so this page "
                "makes no claim that a given number of losses is, or is not, an effect of the "
                "rotation.")
    r = rate.set_index("rule").loc["net removal"]
    n = int(r["study_runs"])

    def p(m: int) -> str:
        return chance_of_losses(r, m)

    return (f"The loss-rate screen ({int(r['runs'])} seeds of falloff under plain Adam, "
            f"{int(r['losses'])} lost) puts the loss rate at {r['rate']:.3f} (exact 95% interval "
            f"{r['low']:.3f} to {r['high']:.3f}); at that rate {n} runs show at least one loss "
            f"with probability {p(1)}, at least two with {p(2)} and at least three with {p(3)}"
            + (f" {NO_LOSS_NOTE}." if int(r["losses"]) == 0 else ".") + (
                " These counts use the earlier removal, against the evidence null "
                "(see the screen's page)." if earlier_definitions else ""))


def measured_before_bounded_removal(results: pd.DataFrame) -> bool:
    """Whether a study's ``results`` table predates removal against the null of another op (it
    has no over-removal column): its removals are ratios to the evidence null."""
    return "over_removal" not in results.columns


EARLIER_DEFINITIONS = (
    "This screen's tables were measured before removal was taken against the null of another op "
    "and before the spike needed to stand out: its removals are ratios to the evidence null and "
    "its spike is the largest-share axis. Its runs' weights are not in the repository (too large "
    "to publish), so re-measuring it means retraining them.")


def rerun_verdict(comparison: pd.DataFrame, prov: dict) -> str:
    """What a re-run from scratch showed, from its comparison table and its provenance record
    (``scripts.rerun_compare``): the machine and kernels it ran on, whether the retrained weights
    equal the published ones bit for bit, and how many values of the results table agree."""
    k = prov.get("kernels")
    where = ("on a machine that was not recorded" if not k else
             f"on {cpu_name(k['cpu'])} "
             f"({', '.join(k['vector_extensions']) or 'no vector extensions'}; torch "
             f"kernels {k['capability']}, "
             + ("pinned to AVX2" if k.get("pinned") else "the machine's own, not pinned")
             + f"; {k['threads']} thread{'s' * (k['threads'] != 1)})")
    n, out = len(comparison), int((~comparison.within_tolerance).sum())
    tol = prov["tolerance"]
    weights = prov.get("weights_bitwise_equal")
    largest = number(float(comparison.difference.abs().max()), ".2g") if n else "–"
    values = (f"all {n} values of its results table agree within {tol:g}" if out == 0 else
              f"{out} of {n} values of its results table differ beyond {tol:g} (largest {largest})")
    if weights is None:
        w = "whether its weights equal the published ones was not recorded"
    elif all(weights.values()):
        w = (f"its final weights equal the published ones bit for bit ({len(weights)} of "
             f"{len(weights)} runs)")
    else:
        w = (f"its final weights differ from the published ones ({sum(weights.values())} of "
             f"{len(weights)} runs equal): training here rounded differently from the machine "
             "that trained them")
    return f"Retrained from scratch {where}, {w}; {values}."


def kernels_text(prov: dict) -> str:
    """How a table's torch CPU kernels ran, from its provenance record: ``AVX2, pinned`` (the
    pin that aims at the same float32 results across x86-64 machines; the re-runs say where it
    holds), the machine's own capability when not pinned, or ``not recorded`` (tables written
    before the record)."""
    k = prov.get("kernels")
    if not k:
        return "not recorded"
    return f"{k['capability']}, pinned" if k.get("pinned") else f"{k['capability']}, machine's own"


def provenance_table(reports_dir) -> tuple[pd.DataFrame, set[str]]:
    """One row per ``provenance.json`` under ``reports_dir`` (where each table folder comes
    from: study, regime, seeds, epochs, runs, commit, date, machine, kernels, wall minutes), and
    the profiles they were computed at."""
    rows, profiles = [], set()
    for f in sorted(Path(reports_dir).glob("**/provenance.json")):
        if any(part.startswith(".") for part in f.relative_to(reports_dir).parts):
            continue  # a killed writer's folder, not a table folder
        p = check_manifest(f.parent)
        profiles.add(p["profile"])
        regime = ("several" if p["study"] == "optimizer-scout"
                  else regime_of(p.get("regime")).title.removesuffix(" regime"))
        rows.append({"tables": str(f.parent.relative_to(reports_dir)) + "/", "study": p["study"],
                     "regime": regime, "seeds": seed_text(p["seeds"]), "epochs": p["epochs"],
                     "runs": len(p["runs"]), "commit": (p["commit"] or "")[:10],
                     "computed": p["date"][:16].replace("T", " "),
                     "machine": cpu_name(p.get("machine") or "not recorded"),
                     "kernels": kernels_text(p), "minutes": round(p["wall_seconds"] / 60, 1)})
    return pd.DataFrame(rows), profiles


def rerun_summaries(reports_dir) -> list[tuple[str, pd.DataFrame]]:
    """Each re-run from scratch (``reports/rerun/<cpu>/``, ``scripts.rerun_compare``), oldest
    first: a sentence (which study and seeds, when, from which commit, and ``rerun_verdict``) and a
    table per run of the values compared, how many agree and the largest difference."""
    out = []
    for f in sorted(Path(reports_dir).glob("rerun/*/provenance.json")):
        prov, tables = read_study(f.parent)
        cmp = tables["comparison"]
        table = (cmp.groupby(["run", "seed"])
                 .agg(values=("column", "size"), within=("within_tolerance", "sum"),
                      largest=("difference", lambda d: d.abs().max()))
                 .reset_index()
                 .rename(columns={"values": "values compared", "within": "within the tolerance",
                                  "largest": "largest difference"}))
        sentence = (f"Study *{prov['study']}*, seeds {', '.join(map(str, prov['seeds']))}, re-run on "
                    f"{prov['date'][:10]} from commit `{(prov['commit'] or '')[:10]}`; tolerance "
                    f"{prov['tolerance']:g}. " + rerun_verdict(cmp, prov))
        out.append((prov["date"], sentence, table))
    return [(sentence, table) for _, sentence, table in sorted(out, key=lambda r: r[0])]


def cross_cpu_text(reports_dir) -> str:
    """How far a retraining on another CPU moved the results, from the re-run records: the record
    with the most values beyond its tolerance, its count and its largest difference."""
    worst = None
    for f in sorted(Path(reports_dir).glob("rerun/*/provenance.json")):
        prov, tables = read_study(f.parent)
        cmp = tables["comparison"]
        out = int((~cmp.within_tolerance).sum())
        if worst is None or out > worst[0]:
            worst = (out, len(cmp), float(cmp.difference.abs().max()), prov)
    if worst is None:
        return "no re-run on another CPU is recorded yet"
    out, n, largest, prov = worst
    k = prov.get("kernels") or {}
    where = cpu_name(k["cpu"]) if k else "a machine that was not recorded"
    if out == 0:
        return (f"every re-run recorded so far agrees with the published tables within its "
                f"tolerance (largest difference {number(largest, '.2g')})")
    return (f"a retraining on {where} changed {out} of the {n} values compared beyond the "
            f"tolerance of {prov['tolerance']:g}, by up to {number(largest, '.2g')}: another CPU "
            f"can train another model of the same configuration, not just other last bits")
