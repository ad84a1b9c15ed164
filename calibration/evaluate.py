"""Evaluate calibration runs against the acceptance criteria of SPEC §6.

For each seed and optimizer: every op's clean score (control and falloff), falloff's alignment
profile, raw removal and spill of the e₁ edit at every dose, and the control's privileged basis
(top energy share along the coordinate axes and along R's axes at the last slice, syntax cosines).

usage: python calibration/evaluate.py --seeds 1 2 --optimizers adam rotated [--set key=value ...]
       [--out calibration/results.csv]
"""

from __future__ import annotations

import argparse

import pandas as pd
import torch

from anchorkit.edit import DOSES, coordinate_axes, e1, projection_edit, rotated_axes
from anchorkit.measure import (alignment_profile, energy_shares, last_slice_states,
                               linear_probe_accuracy, op_scores, syntax_cosines)
from anchorkit.task import positions
from anchorkit.model import haar_rotation
from anchorkit.store import RunStore
from anchorkit.task import DIFFERENCE, OPS, probe_set
from anchorkit.train import load_model
from scripts.train_runs import configs_from_args


def evaluate(args) -> pd.DataFrame:
    store = RunStore()
    rows, probe_rows = [], []
    args.recipes = ["control", "falloff"]
    cfgs = configs_from_args(args)
    by = {(c.optimizer, c.seed, c.recipe): c for c in cfgs}
    for opt in args.optimizers:
        for seed in args.seeds:
            ctrl, anch = by[(opt, seed, "control")], by[(opt, seed, "falloff")]
            if not (store.has_final(ctrl) and store.has_final(anch)):
                print("missing", opt, seed)
                continue
            model = load_model([ctrl, anch], [store.load_final(ctrl), store.load_final(anch)])
            probe = probe_set(ctrl.task)
            D = ctrl.model.d_model
            clean = op_scores(model, probe.clean)
            null = op_scores(model, probe.null)
            span = clean - null
            row = {"optimizer": opt, "seed": seed, "epochs": ctrl.epochs}
            for j, op in enumerate(OPS):
                row[f"control_{op}"] = float(clean[0, j])
                row[f"falloff_{op}"] = float(clean[1, j])
            row["span_difference"] = float(span[1, DIFFERENCE])
            spill = 0.0
            for dose in DOSES:
                edited = op_scores(model, probe.clean, projection_edit(e1(D), dose, model.n_slices))
                drop = clean - edited
                row[f"raw_removal_{dose}"] = float(drop[1, DIFFERENCE] / span[1, DIFFERENCE])
                row[f"control_drop_{dose}"] = float(drop[0, DIFFERENCE] / span[0, DIFFERENCE])
                others = [j for j in range(len(OPS)) if j != DIFFERENCE]
                spill = max(spill, float((drop[1, others] - drop[0, others]).max()))
                if dose == 1.0:
                    row["raw_spill"] = float(drop[1, others].max())
            row["spill"] = spill
            diff, other = alignment_profile(model, probe.clean)
            for s in range(diff.shape[1]):
                row[f"align_diff_{s}"] = float(diff[1, s])
                row[f"align_other_{s}"] = float(other[1, s])
            states = last_slice_states(model, probe.clean)
            axes = energy_shares(states, coordinate_axes(D))
            R = haar_rotation(seed, D)
            rot = energy_shares(states, rotated_axes(R))
            for i, name in enumerate(["control", "falloff"]):
                row[f"{name}_top_axis_share"] = float(axes[i].max())
                row[f"{name}_top_axis"] = int(axes[i].argmax())
                row[f"{name}_top_rotated_share"] = float(rot[i].max())
            for sym, cos in syntax_cosines(model, coordinate_axes(D)).items():
                row[f"control_syntax_cos_{sym}"] = float(cos[0])
            rows.append(row)
            probe_rows.extend(decodability(model, probe.clean, opt, seed))
    return pd.DataFrame(rows), pd.DataFrame(probe_rows)


@torch.inference_mode(False)
def decodability(model, batch, opt, seed) -> list[dict]:
    """Can a linear probe still read "is difference" from the states at the query's '=' after
    the full-dose e₁ edit? Balanced accuracy by slice, clean and edited, for both runs."""
    q = positions(model.task).query
    labels = batch.ops == DIFFERENCE
    with torch.inference_mode():
        _, clean = model(batch.tokens, return_slices=True)
        _, edited = model(batch.tokens, hooks=projection_edit(e1(model.cfg.d_model), 1.0,
                                                              model.n_slices), return_slices=True)
    out = []
    for s in range(1, model.n_slices):
        for i, name in enumerate(["control", "falloff"]):
            out.append({"optimizer": opt, "seed": seed, "run": name, "slice": s,
                        "probe_clean": round(linear_probe_accuracy(clean[s][i, :, q].clone(), labels), 3),
                        "probe_edited": round(linear_probe_accuracy(edited[s][i, :, q].clone(), labels), 3)})
    return out


def acceptance(df: pd.DataFrame) -> pd.DataFrame:
    """One row per criterion of SPEC §6 and run pair, with its value and whether it passes."""
    rows = []
    for _, r in df.iterrows():
        def add(criterion, value, rule, ok):
            rows.append({"optimizer": r["optimizer"], "seed": int(r["seed"]), "criterion": criterion,
                         "value": round(float(value), 3), "rule": rule, "pass": bool(ok)})
        lowest = min(r[f"{run}_{op}"] for run in ("control", "falloff") for op in OPS)
        add("lowest op score (control and falloff)", lowest, "≥ 0.95", lowest >= 0.95)
        high = min(r["align_diff_3"], r["align_diff_4"])
        add("falloff alignment, difference answers, slices 3-4 (lower)", high, "≥ 0.8 (high)", high >= 0.8)
        low = max(abs(r[f"align_other_{s}"]) for s in range(5))
        add("falloff |alignment|, other-op answers, any slice (largest)", low, "≤ 0.2 (low)", low <= 0.2)
        add("raw removal at full dose", r["raw_removal_1.0"], "≥ 0.8", r["raw_removal_1.0"] >= 0.8)
        add("spill (max over doses)", r["spill"], "≤ 0.02", r["spill"] <= 0.02)
    return pd.DataFrame(rows)


def probe_summary(probes: pd.DataFrame) -> str:
    """A computed sentence on what a linear probe reads from the edited falloff states."""
    last = probes[(probes.run == "falloff") & (probes.slice == probes.slice.max())]
    lo, hi = last.probe_edited.min(), last.probe_edited.max()
    clean_lo, clean_hi = last.probe_clean.min(), last.probe_clean.max()
    verdict = ("still reads the op well above chance" if lo >= 0.75 else
               "reads the op only weakly" if lo > 0.6 else "no longer reads the op")
    return (f"A logistic-regression probe for \"is this a difference context?\", fitted on half of "
            f"the probe contexts and scored on the other half (balanced accuracy, 0.5 is chance), "
            f"reads the falloff runs' states at the query's `=` at the last slice with "
            f"{clean_lo:.3f} to {clean_hi:.3f} clean and {lo:.3f} to {hi:.3f} after the full-dose "
            f"e₁ edit: after the edit it {verdict}.\n")


def summary(df: pd.DataFrame, acc: pd.DataFrame) -> str:
    """Sentences for the Methods page, computed from the tables (nothing typed by hand)."""
    def rng(values):
        lo, hi = min(values), max(values)
        return f"{lo:.3f}" if round(lo, 3) == round(hi, 3) else f"{lo:.3f} to {hi:.3f}"

    failed = acc[~acc["pass"]]
    if failed.empty:
        verdict = (f"Every criterion passed for every calibration pair ({len(acc)} checks over "
                   f"{len(df)} pairs of runs), so the method was frozen as described above.")
    else:
        items = "; ".join(f"{r.optimizer} seed {r.seed}: {r.criterion} = {r.value}"
                          for r in failed.itertuples())
        verdict = f"Criteria that failed: {items}. The calibration is not accepted."
    plain, rot = df[df.optimizer == "adam"], df[df.optimizer == "rotated"]
    lines = [verdict, ""]
    if len(plain) and len(rot):
        p_axis, r_axis = plain["control_top_axis_share"], rot["control_top_axis_share"]
        p_rot = plain["control_top_rotated_share"]
        syntax = plain[[c for c in df if c.startswith("control_syntax")]].to_numpy().ravel()
        forms = p_axis.min() > max(r_axis.max(), p_rot.max())
        lines.append(
            f"Under plain Adam the controls' largest energy share along a coordinate axis at the "
            f"last slice was {rng(p_axis)}, against {1 / 64:.3f} for an even spread and "
            f"{rng(p_rot)} along the (for plain Adam arbitrary) rotated axes of the same runs; "
            f"under rotated Adam the controls' largest coordinate-axis share was {rng(r_axis)}. "
            f"The syntax tokens' largest |cos| with a coordinate axis under plain Adam was "
            f"{rng(syntax)} (a one-hot embedding would give 1). "
            + ("So a coordinate preference forms under plain Adam and not under rotated Adam"
               if forms else
               "So on these seeds the coordinate axes are not clearly preferred under plain Adam")
            + ("; it is modest: no axis holds a quarter of the energy and no syntax token's "
               "embedding comes within a cosine of 0.9 of an axis."
               if p_axis.max() < 0.25 and syntax.max() < 0.9 else "."))
    return {"verdict": lines[0] + "\n", "basis": lines[-1] + "\n"}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    p.add_argument("--optimizers", nargs="+", default=["adam", "rotated"])
    p.add_argument("--epochs", type=int, default=400)
    p.add_argument("--set", nargs="*")
    p.add_argument("--out")
    args = p.parse_args()
    torch.set_num_threads(1)
    df, probes = evaluate(args)
    pd.set_option("display.width", 200)
    print(df.T.to_string())
    if args.out:
        df.to_csv(args.out, index=False)
        acc = acceptance(df)
        print(acc.to_string())
        acc.to_csv(args.out.replace(".csv", "-acceptance.csv"), index=False)
        basis_cols = ["optimizer", "seed", "control_top_axis_share", "control_top_axis",
                      "control_top_rotated_share"] + [c for c in df if c.startswith("control_syntax")]
        df[basis_cols].round(3).to_csv(args.out.replace(".csv", "-basis.csv"), index=False)
        probes.to_csv(args.out.replace(".csv", "-probe.csv"), index=False)
        with open(args.out.replace(".csv", "-probe.md"), "w") as f:
            f.write(probe_summary(probes))
        for part, text in summary(df, acc).items():
            with open(args.out.replace(".csv", f"-{part}.md"), "w") as f:
                f.write(text)
            print(text)
        dose_cols = ["optimizer", "seed"] + [c for c in df if c.startswith("raw_removal")] + ["spill"]
        df[dose_cols].round(3).to_csv(args.out.replace(".csv", "-dose.csv"), index=False)


if __name__ == "__main__":
    main()
