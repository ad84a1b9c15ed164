"""The recalibration's candidates (the Methods page, *Recalibration in the second regime*; issue
44): the recipes tried in the second regime, in the order they are tried, each a named change of
the recipe of record (falloff).

Fixed on 2026-12-03, before any calibration run of the recalibration. Simplest first: one of the
recipe's calibrate values (the pull weight, the hold weight, the light anti's scale) at a time,
then one combination of them, then the named variants: a pull at more positions (the query's
``=`` as well as the example answers), and last an anchor made causally used (a term that
penalises the op surviving the e₁ edit in training, in the spirit of gradient routing). Each is a
new recipe name, so its runs have new hashes; falloff and the control keep theirs.

This module has no torch: the configuration validates a recipe's name against it
(``config.RECIPES``); ``recipes.recipe`` builds a candidate's weights from it.
"""

from __future__ import annotations

# the recipe of record's weights, which a candidate changes (recipes.py builds them)
PULL, HOLD = 0.1, 1.0

# name → the change from falloff: ``pull`` and ``hold`` (weights), ``light_scale`` (a factor on the
# falloff's light anti weight at every slice), ``at_query`` (the query's '=' is an answer position
# too: pulled in difference contexts, held in the others), ``routed`` (the weight of the routed
# term, ``recipes.routed_loss``)
CANDIDATES: dict[str, dict] = {
    "falloff-pull-0.3": {"pull": 0.3},
    "falloff-pull-1": {"pull": 1.0},
    "falloff-light-0.25": {"light_scale": 0.25},
    "falloff-pull-1-hold-3": {"pull": 1.0, "hold": 3.0},
    "falloff-query": {"at_query": True},
    "falloff-query-pull-1": {"at_query": True, "pull": 1.0},
    "falloff-routed-0.1": {"routed": 0.1},
    "falloff-routed-1": {"routed": 1.0},
}
ORDER = tuple(CANDIDATES)  # the order they are tried in

WHY = {
    "falloff-pull-0.3": "the pull three times stronger: the anchored state closer to e₁, less of "
                        "it left for the op elsewhere",
    "falloff-pull-1": "the pull ten times stronger",
    "falloff-light-0.25": "the light anti a quarter as strong: e₁ allowed at the other positions "
                          "(the query among them), where the answer is read",
    "falloff-pull-1-hold-3": "the stronger pull with a hold three times stronger, should the pull "
                             "leak e₁ onto the other ops",
    "falloff-query": "the query's '=' pulled as well (held in the other ops' contexts): the "
                     "position where the answer is computed",
    "falloff-query-pull-1": "the query's '=' pulled as well, with the stronger pull",
    "falloff-routed-0.1": "a routed term (weight 0.1): under the e₁ edit in training, the "
                          "difference answer is penalised and the other ops' answers kept",
    "falloff-routed-1": "the routed term at weight 1",
}


def change(name: str) -> dict:
    """A candidate's change from falloff (a copy); KeyError for a name that is none."""
    return dict(CANDIDATES[name])
