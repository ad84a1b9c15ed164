"""The claims as data, gathered from the studies whose tables they are judged on (each study's
folder holds its claims: ``Study.claims``, ``Survey.claims``), in the ledger's order of sections;
and judging one claim.
"""

from __future__ import annotations

from anchorkit.judging.rules import Claim
from anchorkit.judging.base import Missing, Tables, _missing
from anchorkit.engine.registry import EVERY

# the ledger's sections, in order, with their titles
SECTIONS = (("premise", "Premise: the privileged basis under plain Adam"),
            ("E1", "E1: does the anchor hold?"), ("E2", "E2: removal, spill and landing"),
            ("E3", "E3: where the privileged basis went"), ("later", "A later finding"),
            ("scope", "Scope"))
_ORDER = [s for s, _ in SECTIONS]


def gathered(studies) -> list[Claim]:
    """Every claim of these studies, section by section (a study's own order within one); a
    section no ledger section names, or an id claimed twice, is refused."""
    claims = [c for s in studies for c in s.claims]
    for c in claims:
        if c.section not in _ORDER:
            raise ValueError(f"claim {c.id}: section {c.section!r} is none of {_ORDER}")
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"a claim id is claimed twice: {sorted(i for i in ids if ids.count(i) > 1)}")
    return sorted(claims, key=lambda c: _ORDER.index(c.section))


CLAIMS: list[Claim] = gathered(EVERY.values())  # every study's, a survey's too
CLAIM: dict[str, Claim] = {c.id: c for c in CLAIMS}  # by id
# each claim's short name, in words, for the pictures that show every claim at once (the lead
# picture labels its rows with them; the id stays beside as the key to the ledger's table)
NAMES: dict[str, str] = {c.id: c.name for c in CLAIMS}


def judge(claim: Claim, t: Tables) -> tuple[str, str]:
    """Our figure and the verdict of one claim on the tables ``t``; a table its rule needs that
    is not committed makes the claim not comparable (said once here, for every rule)."""
    try:
        return claim.ours(t)
    except Missing:
        return _missing()
