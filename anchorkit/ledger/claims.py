"""The claims as data: each source claim with its section, its words, the source's figure, our
reader and its rule's text (``CLAIMS``), the claims' short names, and judging one claim.
"""

from __future__ import annotations


from anchorkit.ledger.base import (Claim, Figure, KURTOSIS_TOL, Missing, RESOLUTION, SHARE_TOL,
                                   SOURCE, Tables, _missing)
from anchorkit.ledger.premise import p0, p1, p2, p3, p4
from anchorkit.ledger.anchor import (COS_QUARTER, e1a, e1b, e1c, e1d, e2a, e2b, e2c, e2d, e2e, e2f,
                                     e2g, e2h)
from anchorkit.ledger.basis import e3a, e3b, e3c, e3d, e3e, e3e_e1, l1, s1


T = f"(tolerance ±{SHARE_TOL})"
I = "our median's 95% interval"
_ = SOURCE  # the figures each claim's text quotes, read from the one table
CLAIMS = [
    Claim("P0", "premise", "Plain Adam builds a privileged basis: its controls' energy gathers on "
          "the coordinate axes more than a rotated-Adam twin's, to which those axes are arbitrary.",
          f"plain about {_['P0']['plain']}; rotated runs' coordinate axes "
          f"{_['P0']['axes_median']} ({_['P0']['axes']})",
          f"existence apart from size: {I} of the plain control's top-axis share minus its "
          f"rotated twin's along the same axes, per seed, at least {SHARE_TOL} (the share "
          "tolerance): reproduced; wholly below it: not reproduced; the exact sign test beside",
          p0),
    Claim("P1", "premise", "Plain Adam parks each syntax token's embedding on a coordinate axis.",
          f"largest |cos| with an axis {_['P1']['cos']}", f"one part per syntax token (plain-Adam "
          f"controls): {I} at least {_['P1']['cos'].printed[0]} {T}", p1),
    Claim("P2", "premise", "One coordinate holds about half the stream's energy at the last slice.",
          f"about {_['P2']['share']}", f"{I} (plain-Adam controls' top-axis share) inside "
          f"{_['P2']['share']} ± {_['P2']['share'].tol}", p2),
    Claim("P3", "premise", "A coordinate axis is cheaper to project out than a random direction.",
          f"axis about {_['P3']['axis']}, random {_['P3']['random']} (controls)", "three parts, "
          f"plain-Adam controls: {I} of random minus axis cost, per control, at least "
          f"{RESOLUTION}; {I} of each inside the source's figure ±{_['P3']['axis'].tol}", p3),
    Claim("P4", "premise", "Adam in a rotated basis builds the same structure on the rotated axes.",
          "same structure, rotated", "not comparable where plain Adam builds no privileged basis "
          f"(P0 not reproduced); else two parts: {I} of the rotated "
          f"controls' top rotated minus top axis share at least {SHARE_TOL}; of the rotated minus "
          f"the plain twin's share inside ±{SHARE_TOL}", p4),
    Claim("E1a", "E1", "The anchor holds on every seed under rotated Adam.", str(_["E1a"]["kept"]),
          "the count of rotated falloff runs kept (net removal ≥ 0.5) against "
          f"{_['E1a']['kept']}: Fisher's exact test; reproduced at {_['E1a']['kept']} or more "
          "seeds kept, each run within one standard error of 0.5 counted both ways", e1a),
    Claim("E1b", "E1", f"Alignment at difference's example answers rises to about "
          f"{_['E1b']['alignment']} at slices 3–4, rotated runs on top of their twins.",
          f"about {_['E1b']['alignment']}; largest gap {_['E1b']['gap']}",
          f"two parts: {I} (rotated, slices 3–4) inside {_['E1b']['alignment']} ± "
          f"{_['E1b']['alignment'].tol}; the seeds whose largest gap to the twin is at most "
          f"{_['E1b']['gap']} + {_['E1b']['gap'].tol}, against {_['E1b']['close']}", e1b),
    Claim("E1c", "E1", f"In the other ops' contexts alignment stays near {_['E1c']['alignment']} "
          "from slice 1.", f"about {_['E1c']['alignment']}",
          f"{I} (rotated, slices 1–4) inside {_['E1c']['alignment']} {T}", e1c),
    Claim("E1d", "E1", "At the embedding the rotated runs sit a few hundredths higher.",
          f"{_['E1d']['rotated']} against {_['E1d']['twin']}", "two parts, on the rotated minus "
          f"twin difference per seed: {I} at least {RESOLUTION}; inside {_['E1d']['few']}", e1d),
    Claim("E2a", "E2", f"Raw removal at full dose is about {_['E2a']['rotated'].printed[0]} on "
          f"every run.", f"{_['E2a']['rotated_median']} ({_['E2a']['rotated']}) rotated, "
          f"{_['E2a']['stored_median']} ({_['E2a']['stored']}) stored", f"two parts: {I} "
          f"(rotated) inside {_['E2a']['rotated']} (±{_['E2a']['rotated'].tol}); the runs of "
          f"both arms at least {_['E2a']['lowest']} (−{_['E2a']['lowest'].tol}) against "
          f"{_['E2a']['high']}", e2a),
    Claim("E2b", "E2", f"Net of the control, removal falls short on {_['E2b']['lost']} rotated "
          "seeds; the shortfall sits in the control; stored controls lose about a tenth of the op.",
          f"lost on {_['E2b']['lost']}; raw about {_['E2b']['raw']} on every "
          f"run; stored controls {_['E2b']['stored_drop']}",
          f"three parts: the rotated runs lost by net removal against {_['E2b']['lost']} "
          "(within 1/8, each run within one standard error of 0.5 "
          "counted both ways); of those, raw removal at least half on every one; "
          f"{I} of the stored controls' drop inside {_['E2b']['stored_drop']} "
          f"(±{_['E2b']['stored_drop'].tol})", e2b),
    Claim("E2c", "E2", "The rotated control loses half or more of the op where cos(e₁, the "
          "vector holding its syntax tokens) is about a quarter, and the shortfall in net removal "
          "tracks that cosine.", f"{_['E2c']['drop']}; half or more on the "
          f"{_['E2c']['big'].n} seeds at {_['E2c']['high_group']}; r = {_['E2c']['r']}",
          f"two parts: the rotated controls with cos ≥ {COS_QUARTER} (midway between the "
          "source's two groups) dropping at least half, against "
          f"{_['E2c']['big']} (Fisher's exact test and our share's interval); Pearson r of the "
          "control's own drop against the cosine (the source's mechanism; the diagnosis study's "
          "relation): reproduced if its Fisher-z 95% interval lies above 0 and holds "
          f"{_['E2c']['r']}, not if it excludes {_['E2c']['r']}; the shortfall's r beside", e2c),
    Claim("E2d", "E2", "On those seeds the rotated control loses on other ops too, the anchored "
          f"run does not, and stored controls lose at most {_['E2d']['stored']} on any other op.",
          f"up to {_['E2d']['other_median']} ({_['E2d']['other']}); anchored at most "
          f"{_['E2d']['anchored']}; stored at most {_['E2d']['stored']}",
          f"three parts, each a count against the source's (every one): the rotated controls "
          f"with cos ≥ {COS_QUARTER} whose largest other-op drop is at least "
          f"{_['E2d']['other'].printed[0]} (−{_['E2d']['other'].tol}); their anchored runs' raw "
          f"spill at most {_['E2d']['anchored']} (+{_['E2d']['anchored'].tol}); the stored "
          f"controls' largest other-op drop at most {_['E2d']['stored']} "
          f"(+{_['E2d']['stored'].tol})", e2d),
    Claim("E2e", "E2", f"Every rotated run is within the {_['E2e']['spill']} spill criterion.",
          f"net spill {_['E2e']['net']} ({_['E2e']['net_range']}); raw {_['E2e']['raw']}",
          f"the rotated runs with spill at most {_['E2e']['spill']} against "
          f"{_['E2e']['within']} (Fisher's exact test)", e2e),
    Claim("E2f", "E2", "About half of the edited difference answers land on another op.",
          f"{_['E2f']['median']} ({_['E2f']['landing']}) rotated, {_['E2f']['stored']} stored",
          f"{I} (rotated) inside {_['E2f']['landing']} (±{_['E2f']['landing'].tol})", e2f),
    Claim("E2g", "E2", "The recipe barely changes the task's clean scores.",
          f"{_['E2g']['median']} ({_['E2g']['change']})",
          f"{I} (rotated) inside {_['E2g']['change']} (±{_['E2g']['change'].tol})", e2g),
    Claim("E2h", "E2", "By raw removal no rotated run lost the anchor.",
          f"{_['E2h']['lost'].k} below half", "the rotated falloff runs with raw removal below "
          f"0.5 against {_['E2h']['lost']} (Fisher's exact test), each run within one standard "
          "error of 0.5 counted both ways", e2h),
    Claim("E3a", "E3", "Under rotated Adam one rotated direction holds about half the energy; the "
          "coordinate axes stay flat.", f"{_['E3a']['rotated_median']} ({_['E3a']['rotated']}); "
          f"axes {_['E3a']['axes_median']} ({_['E3a']['axes']})",
          f"two parts (rotated controls): {I} of the top rotated share inside "
          f"{_['E3a']['rotated']} {T}; of the top axis share inside {_['E3a']['axes']} {T}, not "
          "comparable where plain Adam builds no privileged basis (P0 not reproduced)", e3a),
    Claim("E3b", "E3", "Kurtosis reverses: near 3 along the axes, above it along the rotated "
          "basis, the opposite of the stored runs.", f"axes {_['E3b']['axes_median']} "
          f"({_['E3b']['axes']}), rotated {_['E3b']['rotated_median']} ({_['E3b']['rotated']})",
          f"four parts: {I} of the paired difference at least {KURTOSIS_TOL}, rotated controls "
          "(rotated basis above axes) and plain controls (axes above rotated basis); the rotated "
          f"controls' medians inside the source's ranges (±{_['E3b']['axes'].tol})", e3b),
    Claim("E3c", "E3", "Syntax embeddings lie along a rotated basis vector, on most seeds the "
          "spike's.", f"|cos| {_['E3c']['cos_median']} ({_['E3c']['cos']}); about a third "
          "(chance) with the axes",
          f"two parts: {I} of each rotated control's mean |cos| over the four tokens at least "
          f"{_['E3c']['cos'].printed[0]} {T}, the chance levels beside; the controls whose "
          "syntax-holding vector is the top-energy direction against "
          f"{_['E3c']['most']} (the fewest that is most), reproduced on more than half", e3c),
    Claim("E3d", "E3", "Falloff's spike sits on another rotated axis than its control's on some "
          "seeds.", str(_["E3d"]["moved"]), "not comparable unless at least half the seeds have "
          f"a spike in both runs; then the count against {_['E3d']['moved']} (Fisher's exact "
          f"test), reproduced within 1/8 of {_['E3d']['moved'].k}/{_['E3d']['moved'].n} on "
          f"{_['E3d']['moved'].n} seeds or more", e3d),
    Claim("E3e", "E3", "In rotated controls the rotated axes off the spike are the cheap "
          "directions, and the spike's axis is costly.", f"axes {_['E3e']['axes']}, rotated "
          f"off-spike {_['E3e']['off']}, spike {_['E3e']['spike']}", f"two parts: {I} of the "
          f"spike's axis cost inside {_['E3e']['spike']} ± {_['E3e']['spike'].tol}; of the "
          f"coordinate axes minus the rotated axes off the spike, per control, at least "
          f"{RESOLUTION}", e3e),
    Claim("E3e′", "E3", "In falloff e₁ costs about 0.1 on every seed.",
          f"{_['E3e′']['median']} ({_['E3e′']['e1']})", "the rotated falloff runs whose e₁ cost "
          f"lies inside {_['E3e′']['e1']} (±{_['E3e′']['e1'].tol}) against "
          f"{_['E3e′']['every']} (Fisher's exact test)", e3e_e1),
    Claim("L1", "later", "Under plain Adam too, falloff's spike moves on some seeds.",
          str(_["L1"]["moved"]), "not comparable unless at least half the seeds have a spike in "
          f"both runs; then the count against {_['L1']['moved']} (Fisher's exact test), "
          f"reproduced within 1/8 of {_['L1']['moved'].k}/{_['L1']['moved'].n} on "
          f"{_['L1']['moved'].n} seeds or more", l1),
    Claim("S1", "scope", f"The loss rate is near 1 in {_['S1']['rate'].printed.split('/')[1]}, "
          f"with an upper bound near 1 in {_['S1']['bound'].printed.split('/')[1]}.",
          f"about {_['S1']['rate']} (up to {_['S1']['bound']})", f"not reproduced if "
          f"{_['S1']['rate']} lies outside our exact 95% interval; reproduced if inside and the "
          f"interval's top is at most {_['S1']['bound']}", s1),
]


# each claim's short name, in words, for the pictures that show every claim at once (the lead
# picture labels its rows with them; the id stays beside as the key to the ledger's table)
NAMES = {
    "P0": "a privileged basis forms", "P1": "syntax tokens on axes", "P2": "one axis holds half",
    "P3": "an axis is cheap to remove", "P4": "rotated Adam mirrors it",
    "E1a": "the anchor holds", "E1b": "alignment rises late", "E1c": "other ops stay low",
    "E1d": "rotated higher at embedding", "E2a": "removal near complete",
    "E2b": "shortfall in the control", "E2c": "the cosine drives the loss",
    "E2d": "control loses other ops", "E2e": "spill within criterion",
    "E2f": "half land on another op", "E2g": "task scores unchanged",
    "E2h": "no run lost (raw)", "E3a": "a rotated axis holds half", "E3b": "kurtosis reverses",
    "E3c": "syntax on a rotated axis", "E3d": "falloff's spike moves",
    "E3e": "the spike's axis is costly", "E3e′": "e₁ costs about a tenth",
    "L1": "plain spikes move too", "S1": "the loss rate",
}


def margins_text(claim: str) -> str:
    """The equivalence margins a claim's sizes carry (``SOURCE``), as the rule's last clause."""
    m = sorted({f.margin for f in SOURCE.get(claim, {}).values()
                if isinstance(f, Figure) and f.margin > 0})
    if not m:
        return ""
    return f"; equivalence margin ±{' and ±'.join(f'{v:g}' for v in m)}"


def judge(claim: Claim, t: Tables) -> tuple[str, str]:
    """Our figure and the verdict of one claim on the tables ``t``; a table its rule needs that
    is not committed makes the claim not comparable (said once here, for every rule)."""
    try:
        return claim.ours(t)
    except Missing:
        return _missing()
