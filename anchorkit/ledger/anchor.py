"""The readers of what the anchor does (E1, E2): whether it holds, and what projecting e₁ out
removes, spills and where it lands.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anchorkit.formatting import number, summary
from anchorkit.measures.verdicts import (INF, NOT_COMPARABLE, about_share, every, none_of, relation_interval,
                                         relation_verdict)
from anchorkit.core.optimizers import ROTATED_ADAM
from anchorkit.ledger.base import (Figure, KEPT_LINE, Part, RESOLUTION, SOURCE, Tables, _results,
                                   counted, judged, removal_se, sized)


# ------------------------------------------------------------------------------ E1
def _kept_count(r: pd.DataFrame, name: str, column: str, source: tuple[int, int], says,
                what: str, lost: bool = False) -> Part:
    """A count of runs kept (or ``lost``) by the kept/lost rule on ``column`` ("kept": net
    removal, "kept_raw": raw), each run within one standard error of the line counted both ways."""
    net = column == "kept"
    flags = r[column].astype(bool).to_numpy()
    counted_flags = ~flags if lost else flags
    values = (r.net_removal if net else r.raw_removal).to_numpy()
    near = np.abs(values - KEPT_LINE) <= removal_se(r, net).to_numpy()
    seeds = r.seed.to_numpy()
    k = int(counted_flags.sum())
    return counted(name, k, len(r), source, says, f"{what} {k} of {len(r)}",
                   (seeds[near & counted_flags].tolist(), seeds[near & ~counted_flags].tolist()))


def e1a(t):
    r = _results(t, "rotated")
    kept = SOURCE["E1a"]["kept"]
    return judged([_kept_count(r, "every seed", "kept", (kept.k, kept.n), every,
                               "kept (net removal ≥ 0.5) on")])


def _alignment(t: Tables) -> pd.DataFrame:
    a = t.need("rotated-basis", "alignment")
    return a[a.role == "anchored"]


E1B_SOURCE = SOURCE["E1b"]["alignment"].value  # the source's alignment at slices 3–4 (rotated)


def e1b(t):
    a = _alignment(t)
    diff = a[a.context == "difference"]
    deep = diff[diff.slice >= 3].groupby(["optimizer", "seed"]).alignment.mean()
    by = diff[diff.slice >= 1].pivot_table(index=["seed", "slice"], columns="optimizer",
                                             values="alignment")
    gap = (by["rotated"] - by["adam"]).abs().groupby("seed").max()
    src = SOURCE["E1b"]
    close = int((gap <= src["gap"].region()[1]).sum())
    return judged([
        sized(f"about {src['alignment']}", deep["rotated"], src["alignment"].region(), ".2f",
              "slices 3–4, rotated "),
        counted("on top of the twins", close, len(gap), (src["close"].k, src["close"].n), every,
                f"largest gap to the twin {number(float(gap.max()), '.3f')}; within "
                f"{src['gap']} + {src['gap'].tol} on {close} of {len(gap)} seeds")])


def e1c(t):
    a = _alignment(t)
    other = a[(a.context == "other") & (a.slice >= 1) & (a.optimizer == ROTATED_ADAM.name)]
    src = SOURCE["E1c"]["alignment"]
    return judged([sized(str(src), other.groupby("seed").alignment.mean(), src.region(), ".2f",
                         "slices 1–4, rotated ")])


def e1d(t):
    a = _alignment(t)
    emb = a[(a.context == "difference") & (a.slice == 0)].pivot_table(
        index="seed", columns="optimizer", values="alignment")
    d = (emb["rotated"] - emb["adam"]).dropna()
    return judged([sized("rotated higher", d, (RESOLUTION, INF), ".3f",
                         "at the embedding, rotated minus its twin "),
                   sized(f"by a few hundredths ({SOURCE['E1d']['few']})", d,
                         SOURCE["E1d"]["few"].region(), ".3f")])


# ------------------------------------------------------------------------------ E2
E2A_SOURCE = (SOURCE["E2a"]["rotated"].low, SOURCE["E2a"]["rotated"].high)  # rotated raw removal
E2A_MEDIAN = SOURCE["E2a"]["rotated_median"].value  # its median


def e2a(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    both = pd.concat([rot, sto])
    src = SOURCE["E2a"]
    high = int((both.raw_removal >= src["lowest"].region()[0]).sum())
    return judged([
        sized(f"rotated {src['rotated']}", rot.raw_removal, src["rotated"].region(), ".2f",
              "rotated "),
        counted("high on every run", high, len(both), (src["high"].k, src["high"].n), every,
                f"at least {src['lowest']} − {src['lowest'].tol} on {high} of {len(both)} runs "
                f"(stored {summary(sto.raw_removal)})")])


E2B_LOST = SOURCE["E2b"]["lost"].k  # the source's runs lost by net removal (its figures agree)
# "about a quarter": midway between the source's two groups of rotated controls (0.18)
COS_QUARTER = round((SOURCE["E2c"]["low_group"].value + SOURCE["E2c"]["high_group"].low) / 2, 2)


def e2b(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    lost = rot[~rot.kept.astype(bool)]
    held = int(lost.kept_raw.astype(bool).sum())
    n, drop = SOURCE["E2b"]["lost"].n, SOURCE["E2b"]["stored_drop"]
    return judged([
        _kept_count(rot, f"lost on about {E2B_LOST} of {n}", "kept", (E2B_LOST, n),
                    about_share(E2B_LOST / n, 1 / 8), "lost by net removal on", lost=True),
        counted("the shortfall in the control", held, len(lost), (E2B_LOST, E2B_LOST), every,
                f"raw removal at least half on {held} of the {len(lost)} runs lost by net "
                "removal", unit="lost runs") if len(lost) else
        Part("the shortfall in the control", "no run lost by net removal", NOT_COMPARABLE),
        sized(f"stored controls lose {drop}", sto.control_drop, drop.region(), ".2f",
              "stored controls' drop ")])


def _quarter(t: Tables) -> pd.DataFrame:
    """The rotated controls with their cos(e₁, syntax-holding vector), drop and largest drop on
    another op (the diagnosis study's ``overlap_targets`` beside the results)."""
    o, rot = t.need("diagnosis", "overlap_targets"), _results(t, "rotated")
    o = o[o.optimizer == ROTATED_ADAM.name].merge(
        rot[["control_run", "raw_spill", "control_other_ops"]], left_on="run",
        right_on="control_run")
    return o


def e2c(t):
    o, rel = _quarter(t), t.need("diagnosis", "relation")
    at = o[o.cos_e1_syntax >= COS_QUARTER]
    big = int((at.control_drop >= KEPT_LINE).sum())
    src = SOURCE["E2c"]
    def row(measure):
        rows = rel[(rel.optimizer == ROTATED_ADAM.name) & (rel.measure == measure)
                   & (rel.against == "cos_e1_syntax")]
        return rows.iloc[0] if len(rows) else None

    def r_text(row):
        low, high = relation_interval(float(row.pearson), int(row.n))
        return (f"Pearson r {number(float(row.pearson))} (95% interval {number(low)} to "
                f"{number(high)}, n = {int(row.n)})")

    drop, shortfall = row("control_drop"), row("shortfall")
    # the source's mechanism is the control's own drop; the shortfall (1 − net removal) is shown
    # beside, unjudged: where the anchored run's own raw removal falls short, it measures the run
    beside = "" if shortfall is None else f"; the shortfall in net removal: {r_text(shortfall)}"
    tracks = (Part(f"the control's drop tracks the cosine (r = {src['r']})", "not measured",
                   NOT_COMPARABLE) if drop is None else
              Part(f"the control's drop tracks the cosine (r = {src['r']})",
                   f"{r_text(drop)}{beside}",
                   relation_verdict(float(drop.pearson), int(drop.n), src["r"].value)))
    return judged([
        counted("half or more where the cosine is about a quarter", big, len(at),
                (src["big"].k, src["big"].n), every,
                f"drop at least half on {big} of the {len(at)} rotated controls with cos ≥ "
                f"{COS_QUARTER} (drops {summary(at.control_drop)})", unit="such controls")
        if len(at) else
        Part("half or more where the cosine is about a quarter",
             f"no rotated control with cos ≥ {COS_QUARTER}", NOT_COMPARABLE),
        tracks])


def e2d(t):
    o, sto = _quarter(t), _results(t, "adam")
    src = SOURCE["E2d"]
    other, anchored, stored_max = src["other"], src["anchored"], src["stored"]
    at = o[o.cos_e1_syntax >= COS_QUARTER]
    big = int((at.control_other_ops >= other.region()[0]).sum())
    calm = int((at.raw_spill <= anchored.region()[1]).sum())
    stored = int((sto.control_other_ops <= stored_max.region()[1]).sum())
    seeds = (src["seeds"].k, src["seeds"].n)
    parts = [
        counted("the control loses on another op", big, len(at), seeds, every,
                f"largest other-op drop at least {other.printed[0]} − {other.tol} on {big} of the "
                f"{len(at)} rotated controls with cos ≥ {COS_QUARTER} "
                f"({summary(at.control_other_ops)})", unit="such controls"),
        counted("the anchored run does not", calm, len(at), seeds, every,
                f"the anchored run's raw spill at most {anchored} + {anchored.tol} on {calm} of "
                f"{len(at)}", unit="such controls")]
    if not len(at):  # not comparable either way (a count of none); said in words
        parts = [Part(p.name, f"no rotated control with cos ≥ {COS_QUARTER}", NOT_COMPARABLE)
                 for p in parts]
    return judged(parts + [counted(
        f"stored controls at most {stored_max}", stored, len(sto),
        (src["stored_runs"].k, src["stored_runs"].n), every,
        f"at most {stored_max} + {stored_max.tol} on {stored} of {len(sto)} stored controls "
        f"({summary(sto.control_other_ops)})")])


def e2e(t):
    rot = _results(t, "rotated")
    src = SOURCE["E2e"]
    ok = int((rot.spill <= src["spill"].value).sum())
    return judged([counted(f"every rotated run within {src['spill']}", ok, len(rot),
                           (src["within"].k, src["within"].n), every,
                           f"net spill rotated {summary(rot.spill, '.3f')}; raw spill "
                           f"{summary(rot.raw_spill, '.3f')}; within {src['spill']} on {ok} of "
                           f"{len(rot)} rotated runs")])


def _rotated_size(t, column, figure: Figure, fmt=".2f"):
    rot, sto = _results(t, "rotated"), _results(t, "adam", optional=True)
    part = sized(str(figure), rot[column], figure.region(), fmt, "rotated ")
    stored = "" if sto is None else f"; stored {summary(sto[column], fmt)}"
    return judged([Part(part.name, part.text + stored, part.verdict)])


def e2f(t):
    return _rotated_size(t, "landing", SOURCE["E2f"]["landing"])


def e2g(t):
    return _rotated_size(t, "task_change", SOURCE["E2g"]["change"], ".3f")


def e2h(t):
    r = _results(t, "rotated")
    lost = SOURCE["E2h"]["lost"]
    return judged([_kept_count(r, "none lost", "kept_raw", (lost.k, lost.n), none_of,
                               "below half by raw removal on", lost=True)])
