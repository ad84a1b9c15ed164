"""The claims as data: each source claim with its section, its words, the source's figure and
the rules of its parts (``CLAIMS``, gathered from the sections' modules, each rule writing its own
text), the claims' short names, and judging one claim.
"""

from __future__ import annotations


from anchorkit.ledger.base import Missing, Tables, _missing
from anchorkit.ledger.premise import PREMISE
from anchorkit.ledger.anchor import E1, E2
from anchorkit.ledger.basis import E3, LATER
from anchorkit.ledger.rules import Claim

CLAIMS: list[Claim] = [*PREMISE, *E1, *E2, *E3, *LATER]
CLAIM: dict[str, Claim] = {c.id: c for c in CLAIMS}  # by id


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


def judge(claim: Claim, t: Tables) -> tuple[str, str]:
    """Our figure and the verdict of one claim on the tables ``t``; a table its rule needs that
    is not committed makes the claim not comparable (said once here, for every rule)."""
    try:
        return claim.ours(t)
    except Missing:
        return _missing()
