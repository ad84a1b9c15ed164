"""What the supporting pages show beyond one study's texts: the reference baseline's list of
the report's other regimes (each its sentence from the study's folder, or the command that
computes its tables) and the reproducibility page (``provenance_table``, the re-runs'
``rerun_summaries``). Each study's own figures and tables are its folder's
(``registry.findings(name)``: the control, split-anti, the reference baseline, the loss-rate
screen). Nothing here knows a result.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.engine.regimes import regime as regime_of
from anchorkit.engine.formatting import cpu_name, number, seed_text
from anchorkit.pages.page import compute_command, regime_list
from anchorkit.engine.provenance import check_manifest, read_study
from anchorkit.engine.registry import findings


# ------------------------------------------------------------------------------ reference baseline
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
        sentence = findings("reference-baseline").reference_sentence(facts[r])
        lines[r] = (f"{sentence} The table as a file: {{download}}`spikes.csv "
                    f"<{r.reports('../../reports') / study / 'spikes'}.csv>` (every table of the "
                    f"study in this regime, as Parquet, is in `{r.reports('reports') / study}/`).")
    return regime_list(lines)


# ------------------------------------------------------------------------------ reproducibility
def rerun_verdict(comparison: pd.DataFrame, prov: dict) -> str:
    """What a re-run from scratch showed, from its comparison table and its provenance record
    (``python -m anchorkit check``): the machine and kernels it ran on, whether the retrained weights
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
    """Each re-run from scratch (``reports/rerun/<cpu>/``, ``python -m anchorkit check``), oldest
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
