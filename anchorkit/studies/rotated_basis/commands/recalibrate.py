"""The second regime's recalibration (anchorkit.studies.rotated_basis.recalibration): train the next candidates in order
at the calibration seeds, measure every trained pair, write ``calibration/second-regime/`` and say
the rule's decision.

Each call trains the plain controls at the calibration seeds and the next ``--batch`` candidates
(in the rule's order) whose plain runs are unfinished; once a candidate is chosen, it trains that
candidate and the controls under rotated Adam instead. Finished runs are skipped and unfinished
ones resume from their last checkpoint, so the command is simply run again until it says
"Chosen" with the rotated count, or "No candidate passes". ``--measure-only`` trains nothing.

The committed record (``calibration/second-regime/``) is written only with ``--publish``, only
when something was measured, and only where a table or the decision changed; without
``--publish`` the grid and the decision go to ``--out`` (default: ``recalibration/`` in the run
store's scratch folder), so that running the command on a store without the calibration's runs
(a fresh clone) never rewrites the committed decision.

usage: python -m anchorkit recalibrate [--batch 2] [--measure-only] [--publish]
       [--scheduler in-process|tcp://host:8786] [--out FOLDER]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from anchorkit.core.paths import REPO
from anchorkit.core import candidates
from anchorkit.studies.rotated_basis import recalibration as rc
from anchorkit.core.config import ParameterError, check_int
from anchorkit.engine.executor import check_scheduler, execute, training_graph
from anchorkit.engine.pairs import Pair, measured
from anchorkit.core.paths import inside
from anchorkit.engine.provenance import machine, scratch_root, source_state
from anchorkit.core.store import RunStore
from anchorkit.core.optimizers import ARM_NAMES

ROOT = REPO  # the repository (a clone: its book, reports, calibration)
OUT = ROOT / "calibration" / "second-regime"


def measure_all(store) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Every candidate pair whose two runs are finished: criteria rows, results and dose rows."""
    crit, results, doses = [], [], []
    for name in rc.ORDER:
        for opt in ARM_NAMES:
            for a, c in rc.runs(name, opt):
                if not (store.has_final(a) and store.has_final(c)):
                    continue
                t = measured(Pair(a, c), False, store)
                row = t["results"].iloc[0].to_dict()
                crit.append(rc.criteria_row(row, t["alignment"], t["dose"]))
                results.append(t["results"])
                doses.append(t["dose"])
    if not crit:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    return pd.DataFrame(crit), pd.concat(results, ignore_index=True), pd.concat(doses, ignore_index=True)


def next_runs(decision: dict, store, batch: int) -> list:
    """What to train next: the plain controls and the next ``batch`` unfinished candidates in order,
    or, once a candidate is chosen, it and the controls under rotated Adam."""
    if decision["verdict"] == rc.NONE_PASSES:
        return []
    if decision["verdict"] == rc.CHOSEN:
        if decision["rotated"] is not None:
            return []
        ps = rc.runs(decision["recipe"], "rotated")
        return [c for _, c in ps] + [a for a, _ in ps]
    todo = [n for n in rc.ORDER[rc.ORDER.index(decision["waiting"]):]
            if not all(store.has_final(a) for a, _ in rc.runs(n, "adam"))][:batch]
    controls = [c for _, c in rc.runs(rc.ORDER[0], "adam")]
    return controls + [a for n in todo for a, _ in rc.runs(n, "adam")]


def write_rule(out: Path):
    """The rule and the candidates as the Methods page shows them (written before any run)."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [{"order": i + 1, "candidate": n, "change from falloff": ", ".join(
                f"{k} {v}" for k, v in candidates.change(n).items()), "why": candidates.WHY[n]}
            for i, n in enumerate(rc.ORDER)]
    pd.DataFrame(rows).to_csv(out / "candidates.csv", index=False)
    (out / "rule.md").write_text(rc.RULE + "\n")


def grid(crit: pd.DataFrame) -> pd.DataFrame:
    """The criteria table as the Methods page shows it: one row per run, in the rule's order, the
    figures to three decimals and how many of the five criteria each run meets."""
    order = {n: i for i, n in enumerate(rc.ORDER)}
    t = crit.assign(o=crit.recipe.map(order)).sort_values(["o", "optimizer", "seed"])
    figures = [k for k in rc.MET]
    out = t[["recipe", "optimizer", "seed", *figures, "criteria met", "meets all"]].copy()
    out[figures] = out[figures].round(3)
    out["optimizer"] = out.optimizer.map({"adam": "plain Adam", "rotated": "rotated Adam"})
    out["criteria met"] = out["criteria met"].map(lambda k: f"{k} of {len(figures)}")
    out["meets all"] = out["meets all"].map({True: "yes", False: "no"})
    return out


def rendered(crit: pd.DataFrame, results: pd.DataFrame, dose: pd.DataFrame,
             decision: dict) -> dict[str, str]:
    """The measured files' text by name (decision.json, which records the commit and the
    machine, apart)."""
    return {"criteria.csv": crit.to_csv(index=False), "results.csv": results.to_csv(index=False),
            "dose.csv": dose.to_csv(index=False), "grid.csv": grid(crit).to_csv(index=False),
            "decision.md": rc.decision_text(decision) + "\n"}


def changed(out: Path, files: dict[str, str]) -> bool:
    """Whether any measured file differs from what ``out`` holds."""
    return any(not (out / n).is_file() or (out / n).read_text() != text
               for n, text in files.items())


def write(out: Path, crit: pd.DataFrame, results: pd.DataFrame, dose: pd.DataFrame,
          decision: dict) -> bool:
    """Write the measured grid and decision to ``out`` where something was measured and a file
    would change; whether it wrote."""
    if not len(crit):
        return False
    files = rendered(crit, results, dose, decision)
    if not changed(out, files):
        return False
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)
    src = source_state()
    (out / "decision.json").write_text(json.dumps(
        {**decision, "text": rc.decision_text(decision), "seeds": list(rc.SEEDS),
         "regime": rc.REGIME.name, "commit": src.get("commit"), "machine": machine()},
        indent=1, ensure_ascii=False) + "\n")
    return True


def output(args) -> Path:
    """Where the grid and the decision go: the committed record with ``--publish``, else
    ``--out`` or the run store's scratch folder; a folder of the committed record without
    ``--publish`` is refused (a ParameterError)."""
    if args.publish:
        if args.out is not None and not inside(args.out, OUT):
            raise ParameterError("--out", str(args.out), "--publish writes the committed record, "
                                 f"{OUT.relative_to(ROOT)}; give one or the other")
        return OUT
    out = args.out if args.out is not None else scratch_root() / "recalibration"
    if inside(out, ROOT / "calibration"):
        raise ParameterError("--out", str(out), "is the committed record: add --publish to "
                             "rewrite it on purpose")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=2, help="candidates trained per call (default 2)")
    p.add_argument("--measure-only", action="store_true")
    p.add_argument("--scheduler")
    p.add_argument("--publish", action="store_true",
                   help="write the grid and the decision into calibration/second-regime/ (the "
                   "committed record), where something was measured and changed")
    p.add_argument("--out", type=Path, help="where the grid and the decision go without --publish "
                   "(default: recalibration/ in the run store's scratch folder)")
    args = p.parse_args(argv)
    try:
        check_int("--batch", args.batch, 1)
        check_scheduler(args.scheduler)
        out = output(args)
    except ParameterError as e:
        p.error(str(e))
    if args.publish:
        write_rule(out)  # the rule's own files, the same bytes while the rule stands
    store = RunStore()
    while True:
        crit, results, dose = measure_all(store)
        decision = rc.decide(crit)
        todo = [] if args.measure_only else next_runs(decision, store, args.batch)
        todo = [c for c in todo if not store.has_final(c)]
        if not todo:
            break
        for c in todo:
            print("train", c.name, c.hash, flush=True)
        execute(training_graph(todo, store), args.scheduler, desc="recalibration")
        if decision["verdict"] == rc.PENDING:  # one batch per call while pending
            crit, results, dose = measure_all(store)
            decision = rc.decide(crit)
            break
    wrote = write(out, crit, results, dose, decision)
    print(rc.decision_text(decision))
    if not len(crit):
        print(f"Nothing measured (no pair of the rule's runs is finished in {store.root}): "
              f"{out} left as it was.")
    elif not wrote:
        print(f"Measured; {out} already holds these tables and this decision: left as it was.")
    else:
        print(f"Written to {out}.")


if __name__ == "__main__":
    main()
