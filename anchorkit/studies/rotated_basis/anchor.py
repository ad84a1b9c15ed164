"""The rotated-basis study's claims of what the anchor does (E1, E2): whether it holds, and what projecting e₁ out
removes, spills and where it lands; each claim's parts are rules (``anchorkit.judging.rules``) over the
readers here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from anchorkit.engine.formatting import number, summary
from anchorkit.measures.verdicts import (NOT_COMPARABLE, every, none_of, relation_interval,
                                         relation_verdict)
from anchorkit.core.optimizers import ROTATED_ADAM
from anchorkit.judging.base import (Count, KEPT_LINE, Part, RESOLUTION, SHARE_TOL, SOURCE, Tables,
                                   _results, removal_se)
from anchorkit.judging.rules import AtLeast, Claim, Inside, Size, Tally, about

_ = SOURCE  # the figures each claim's text quotes, read from the one table
T = f"(tolerance ±{SHARE_TOL})"


def kept_count(optimizer: str, column: str, what: str, lost: bool = False):
    """A reader of the runs of one arm kept (or ``lost``) by the kept/lost rule on ``column``
    ("kept": net removal, "kept_raw": raw), each run within one standard error of the line
    counted both ways (``Tally``'s count)."""
    def count(t: Tables):
        r = _results(t, optimizer)
        net = column == "kept"
        flags = r[column].astype(bool).to_numpy()
        counted_flags = ~flags if lost else flags
        values = (r.net_removal if net else r.raw_removal).to_numpy()
        near = np.abs(values - KEPT_LINE) <= removal_se(r, net).to_numpy()
        seeds = r.seed.to_numpy()
        k = int(counted_flags.sum())
        return (k, len(r), f"{what} {k} of {len(r)}",
                (seeds[near & counted_flags].tolist(), seeds[near & ~counted_flags].tolist()))
    return count


NEAR = "each run within one standard error of 0.5 counted both ways"


# ------------------------------------------------------------------------------ E1
def _alignment(t: Tables) -> pd.DataFrame:
    a = t.need("rotated-basis", "alignment")
    return a[a.role == "anchored"]


def _deep(t: Tables) -> pd.Series:
    """The rotated runs' mean alignment at difference's example answers, slices 3–4, per seed."""
    a = _alignment(t)
    diff = a[(a.context == "difference") & (a.slice >= 3)]
    return diff.groupby(["optimizer", "seed"]).alignment.mean()["rotated"]


def _close(t: Tables):
    """The seeds whose largest alignment gap to the twin (slices 1–4) is within the source's."""
    a = _alignment(t)
    diff = a[a.context == "difference"]
    by = diff[diff.slice >= 1].pivot_table(index=["seed", "slice"], columns="optimizer",
                                           values="alignment")
    gap = (by["rotated"] - by["adam"]).abs().groupby("seed").max()
    src = _["E1b"]
    close = int((gap <= src["gap"].region()[1]).sum())
    return (close, len(gap), f"largest gap to the twin {number(float(gap.max()), '.3f')}; within "
            f"{src['gap']} + {src['gap'].tol} on {close} of {len(gap)} seeds", ((), ()))


def _other(t: Tables) -> pd.Series:
    a = _alignment(t)
    other = a[(a.context == "other") & (a.slice >= 1) & (a.optimizer == ROTATED_ADAM.name)]
    return other.groupby("seed").alignment.mean()


def _at_embedding(t: Tables) -> pd.Series:
    """At the embedding, the rotated run's alignment minus its twin's, per seed."""
    a = _alignment(t)
    emb = a[(a.context == "difference") & (a.slice == 0)].pivot_table(
        index="seed", columns="optimizer", values="alignment")
    return (emb["rotated"] - emb["adam"]).dropna()


ROTATED_ALIGNMENT = "the rotated runs' alignment at difference's example answers"

E1 = [
    Claim("E1a", "the anchor holds", "E1",
          "The anchor holds on every seed under rotated Adam.", str(_["E1a"]["kept"]),
          (Tally("every seed", kept_count("rotated", "kept", "kept (net removal ≥ 0.5) on"),
                 _["E1a"]["kept"], every, f"the rotated falloff runs kept (net removal at least "
                 f"{KEPT_LINE}; {NEAR})"),)),
    Claim("E1b", "alignment rises late", "E1",
          f"Alignment at difference's example answers rises to about "
          f"{_['E1b']['alignment']} at slices 3–4, rotated runs on top of their twins.",
          f"about {_['E1b']['alignment']}; largest gap {_['E1b']['gap']}",
          (Size(f"about {_['E1b']['alignment']}", _deep, Inside(_["E1b"]["alignment"]),
                f"{ROTATED_ALIGNMENT}, slices 3–4", what="slices 3–4, rotated "),
           Tally("on top of the twins", _close, _["E1b"]["close"], every, "the seeds whose "
                 f"largest alignment gap to the twin (slices 1–4) is at most {_['E1b']['gap']} "
                 f"(+{_['E1b']['gap'].tol:g})"))),
    Claim("E1c", "other ops stay low", "E1",
          f"In the other ops' contexts alignment stays near {_['E1c']['alignment']} "
          "from slice 1.", f"about {_['E1c']['alignment']}",
          (Size(str(_["E1c"]["alignment"]), _other, Inside(_["E1c"]["alignment"]),
                "the rotated runs' alignment in the other ops' contexts, slices 1–4",
                what="slices 1–4, rotated "),)),
    Claim("E1d", "rotated higher at embedding", "E1",
          "At the embedding the rotated runs sit a few hundredths higher.",
          f"{_['E1d']['rotated']} against {_['E1d']['twin']}",
          (Size("rotated higher", _at_embedding, AtLeast(RESOLUTION),
                "the rotated run's alignment at the embedding minus its twin's, per seed", ".3f",
                "at the embedding, rotated minus its twin "),
           Size(f"by a few hundredths ({_['E1d']['few']})", _at_embedding,
                Inside(_["E1d"]["few"]), "the same difference", ".3f"))),
]


# ------------------------------------------------------------------------------ E2
def _column(optimizer: str, column: str):
    """A column of one arm's results."""
    return lambda t: _results(t, optimizer)[column]


def _high(t: Tables):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    both = pd.concat([rot, sto])
    high = int((both.raw_removal >= _["E2a"]["lowest"].region()[0]).sum())
    return (high, len(both), f"at least {_['E2a']['lowest']} − {_['E2a']['lowest'].tol} on "
            f"{high} of {len(both)} runs (stored {summary(sto.raw_removal)})", ((), ()))


E2B_LOST = _["E2b"]["lost"].k  # the source's runs lost by net removal (its figures agree)
# "about a quarter": midway between the source's two groups of rotated controls (0.18)
COS_QUARTER = round((_["E2c"]["low_group"].value + _["E2c"]["high_group"].low) / 2, 2)


def _held(t: Tables):
    """Of the rotated runs lost by net removal, those whose raw removal is at least half."""
    rot = _results(t, "rotated")
    lost = rot[~rot.kept.astype(bool)]
    held = int(lost.kept_raw.astype(bool).sum())
    return (held, len(lost), f"raw removal at least half on {held} of the {len(lost)} runs lost "
            "by net removal", ((), ()))


def _quarter(t: Tables) -> pd.DataFrame:
    """The rotated controls with their cos(e₁, syntax-holding vector), drop and largest drop on
    another op (the diagnosis study's ``overlap_targets`` beside the results), those with the
    cosine at least ``COS_QUARTER``."""
    o, rot = t.need("diagnosis", "overlap_targets"), _results(t, "rotated")
    o = o[o.optimizer == ROTATED_ADAM.name].merge(
        rot[["control_run", "raw_spill", "control_other_ops"]], left_on="run",
        right_on="control_run")
    return o[o.cos_e1_syntax >= COS_QUARTER]


def _big(t: Tables):
    at = _quarter(t)
    big = int((at.control_drop >= KEPT_LINE).sum())
    return (big, len(at), f"drop at least half on {big} of the {len(at)} rotated controls with "
            f"cos ≥ {COS_QUARTER} (drops {summary(at.control_drop)})", ((), ()))


def _r_text(row) -> str:
    low, high = relation_interval(float(row.pearson), int(row.n))
    return (f"Pearson r {number(float(row.pearson))} (95% interval {number(low)} to "
            f"{number(high)}, n = {int(row.n)})")


@dataclass(frozen=True)
class Tracks:
    """E2c's relation: Pearson r of the rotated control's own drop against cos(e₁, the
    syntax-holding vector) (the source's mechanism; the diagnosis study's ``relation``), judged
    by its Fisher-z interval against the source's r (``verdicts.relation_verdict``); the
    shortfall in net removal's r beside, unjudged (where the anchored run's own raw removal falls
    short, it measures the run)."""

    name: str
    r: object  # the source's Figure

    def judge(self, t: Tables) -> Part:
        rel = t.need("diagnosis", "relation")

        def row(measure):
            rows = rel[(rel.optimizer == ROTATED_ADAM.name) & (rel.measure == measure)
                       & (rel.against == "cos_e1_syntax")]
            return rows.iloc[0] if len(rows) else None

        drop, shortfall = row("control_drop"), row("shortfall")
        if drop is None:
            return Part(self.name, "not measured", NOT_COMPARABLE)
        beside = ("" if shortfall is None else
                  f"; the shortfall in net removal: {_r_text(shortfall)}")
        return Part(self.name, f"{_r_text(drop)}{beside}",
                    relation_verdict(float(drop.pearson), int(drop.n), self.r.value))

    def text(self) -> str:
        return ("Pearson r of the control's own drop against the cosine (the source's mechanism; "
                "the diagnosis study's relation): reproduced if its Fisher-z 95% interval lies "
                f"above 0 and holds {self.r}, not if it excludes {self.r}; the shortfall's r "
                "beside")


def _other_ops(t: Tables):
    at, other = _quarter(t), _["E2d"]["other"]
    big = int((at.control_other_ops >= other.region()[0]).sum())
    return (big, len(at), f"largest other-op drop at least {other.printed[0]} − {other.tol} on "
            f"{big} of the {len(at)} rotated controls with cos ≥ {COS_QUARTER} "
            f"({summary(at.control_other_ops)})", ((), ()))


def _calm(t: Tables):
    at, anchored = _quarter(t), _["E2d"]["anchored"]
    calm = int((at.raw_spill <= anchored.region()[1]).sum())
    return (calm, len(at), f"the anchored run's raw spill at most {anchored} + {anchored.tol} on "
            f"{calm} of {len(at)}", ((), ()))


def _stored_calm(t: Tables):
    sto, stored_max = _results(t, "adam"), _["E2d"]["stored"]
    stored = int((sto.control_other_ops <= stored_max.region()[1]).sum())
    return (stored, len(sto), f"at most {stored_max} + {stored_max.tol} on {stored} of {len(sto)} "
            f"stored controls ({summary(sto.control_other_ops)})", ((), ()))


def _within(t: Tables):
    rot, spill = _results(t, "rotated"), _["E2e"]["spill"]
    ok = int((rot.spill <= spill.value).sum())
    return (ok, len(rot), f"net spill rotated {summary(rot.spill, '.3f')}; raw spill "
            f"{summary(rot.raw_spill, '.3f')}; within {spill} on {ok} of {len(rot)} rotated runs",
            ((), ()))


def _stored(column: str, fmt: str = ".2f"):
    """The stored arm's summary of ``column`` beside a rotated size (none where not committed)."""
    def beside(t: Tables) -> str:
        sto = _results(t, "adam", optional=True)
        return "" if sto is None else f"; stored {summary(sto[column], fmt)}"
    return beside


NO_QUARTER = f"no rotated control with cos ≥ {COS_QUARTER}"
QUARTER = f"the rotated controls with cos ≥ {COS_QUARTER} (midway between the source's two groups)"

E2 = [
    Claim("E2a", "removal near complete", "E2",
          f"Raw removal at full dose is about {_['E2a']['rotated'].printed[0]} on "
          f"every run.", f"{_['E2a']['rotated_median']} ({_['E2a']['rotated']}) rotated, "
          f"{_['E2a']['stored_median']} ({_['E2a']['stored']}) stored",
          (Size(f"rotated {_['E2a']['rotated']}", _column("rotated", "raw_removal"),
                Inside(_["E2a"]["rotated"]), "the rotated runs' raw removal", what="rotated "),
           Tally("high on every run", _high, _["E2a"]["high"], every, "the runs of both arms "
                 f"with raw removal at least {_['E2a']['lowest']} (−{_['E2a']['lowest'].tol:g})"))),
    Claim("E2b", "shortfall in the control", "E2",
          f"Net of the control, removal falls short on {_['E2b']['lost']} rotated "
          "seeds; the shortfall sits in the control; stored controls lose about a tenth of the op.",
          f"lost on {_['E2b']['lost']}; raw about {_['E2b']['raw']} on every "
          f"run; stored controls {_['E2b']['stored_drop']}",
          (Tally(f"lost on about {_['E2b']['lost']}",
                 kept_count("rotated", "kept", "lost by net removal on", lost=True),
                 _["E2b"]["lost"], about(_["E2b"]["lost"]),
                 f"the rotated runs lost by net removal ({NEAR})"),
           Tally("the shortfall in the control", _held, Count(E2B_LOST, E2B_LOST), every,
                 "the rotated runs lost by net removal whose raw removal is at least half",
                 none="no run lost by net removal", unit="lost runs"),
           Size(f"stored controls lose {_['E2b']['stored_drop']}", _column("adam", "control_drop"),
                Inside(_["E2b"]["stored_drop"]), "the stored controls' drop",
                what="stored controls' drop "))),
    Claim("E2c", "the cosine drives the loss", "E2",
          "The rotated control loses half or more of the op where cos(e₁, the "
          "vector holding its syntax tokens) is about a quarter, and the shortfall in net removal "
          "tracks that cosine.", f"{_['E2c']['drop']}; half or more on the "
          f"{_['E2c']['big'].n} seeds at {_['E2c']['high_group']}; r = {_['E2c']['r']}",
          (Tally("half or more where the cosine is about a quarter", _big, _["E2c"]["big"], every,
                 f"{QUARTER} dropping at least half", none=NO_QUARTER, unit="such controls"),
           Tracks(f"the control's drop tracks the cosine (r = {_['E2c']['r']})", _["E2c"]["r"]))),
    Claim("E2d", "control loses other ops", "E2",
          "On those seeds the rotated control loses on other ops too, the anchored "
          f"run does not, and stored controls lose at most {_['E2d']['stored']} on any other op.",
          f"up to {_['E2d']['other_median']} ({_['E2d']['other']}); anchored at most "
          f"{_['E2d']['anchored']}; stored at most {_['E2d']['stored']}",
          (Tally("the control loses on another op", _other_ops, _["E2d"]["seeds"], every,
                 f"{QUARTER} whose largest other-op drop is at least "
                 f"{_['E2d']['other'].printed[0]} (−{_['E2d']['other'].tol:g})", none=NO_QUARTER,
                 unit="such controls"),
           Tally("the anchored run does not", _calm, _["E2d"]["seeds"], every,
                 f"their anchored runs with raw spill at most {_['E2d']['anchored']} "
                 f"(+{_['E2d']['anchored'].tol:g})", none=NO_QUARTER, unit="such controls"),
           Tally(f"stored controls at most {_['E2d']['stored']}", _stored_calm,
                 _["E2d"]["stored_runs"], every, "the stored controls whose largest other-op drop "
                 f"is at most {_['E2d']['stored']} (+{_['E2d']['stored'].tol:g})"))),
    Claim("E2e", "spill within criterion", "E2",
          f"Every rotated run is within the {_['E2e']['spill']} spill criterion.",
          f"net spill {_['E2e']['net']} ({_['E2e']['net_range']}); raw {_['E2e']['raw']}",
          (Tally(f"every rotated run within {_['E2e']['spill']}", _within, _["E2e"]["within"],
                 every, f"the rotated runs with spill at most {_['E2e']['spill']}"),)),
    Claim("E2f", "half land on another op", "E2",
          "About half of the edited difference answers land on another op.",
          f"{_['E2f']['median']} ({_['E2f']['landing']}) rotated, {_['E2f']['stored']} stored",
          (Size(str(_["E2f"]["landing"]), _column("rotated", "landing"),
                Inside(_["E2f"]["landing"]), "the rotated runs' landing", what="rotated ",
                beside=_stored("landing")),)),
    Claim("E2g", "task scores unchanged", "E2",
          "The recipe barely changes the task's clean scores.",
          f"{_['E2g']['median']} ({_['E2g']['change']})",
          (Size(str(_["E2g"]["change"]), _column("rotated", "task_change"),
                Inside(_["E2g"]["change"]), "the rotated runs' change in task score", ".3f",
                "rotated ", beside=_stored("task_change", ".3f")),)),
    Claim("E2h", "no run lost (raw)", "E2",
          "By raw removal no rotated run lost the anchor.",
          f"{_['E2h']['lost'].k} below half",
          (Tally("none lost", kept_count("rotated", "kept_raw", "below half by raw removal on",
                                         lost=True), _["E2h"]["lost"], none_of,
                 f"the rotated falloff runs with raw removal below {KEPT_LINE} ({NEAR})"),)),
]
