"""The reproduction ledger's rules on constructed tables whose verdict is known by hand: every rule
gives each verdict it can give (and a size claim fails on either side)."""

import re
from pathlib import Path

import pandas as pd
import pytest

from anchorkit import ledger
from anchorkit.derived import rate_table
from anchorkit.task import SYNTAX

ROOT = Path(__file__).resolve().parent.parent
R, P, N, NC = ledger.REPRODUCED, ledger.PARTLY, ledger.NOT_REPRODUCED, ledger.NOT_COMPARABLE


class Given(ledger.Tables):
    def __init__(self, **tables):
        super().__init__("/nonexistent")
        self._cache = {tuple(k.split("__")): v for k, v in tables.items()}

    def get(self, study, table):
        return self._cache.get((study, table))


def results(rotated: dict | None = None, adam: dict | None = None, n: int = 8) -> Given:
    """rotated-basis results: 8 seeds per optimizer, each column constant (or a list)."""
    rows = []
    for opt, cols in (("rotated", rotated or {}), ("adam", adam or {})):
        for i in range(n):
            row = {"optimizer": opt, "seed": 700 + i, "run": f"falloff-{opt}-{i}",
                   "control_run": f"control-{opt}-{i}"}
            row.update({k: (v[i] if isinstance(v, list) else v) for k, v in cols.items()})
            rows.append(row)
    return Given(**{"rotated-basis__results": pd.DataFrame(rows)})


def verdict(rule, given) -> str:
    return rule(given)[1]


def syntax(v, basis):
    return {f"control_syntax_cos_{s}_{basis}": v for s in SYNTAX}


@pytest.mark.parametrize("cos, expected", [
    ({s: 0.95 for s in SYNTAX}, R), ({"?": 0.95, ",": 0.3, "=": 0.3, "⏎": 0.3}, P),
    ({s: 0.32 for s in SYNTAX}, N)])
def test_p1_one_part_per_syntax_token(cos, expected):
    cols = {f"control_syntax_cos_{s}_axes": v for s, v in cos.items()}
    text, v = ledger.p1(results(adam=cols))
    assert v == expected and "chance 0.32" in text


@pytest.mark.parametrize("share, expected", [(0.5, R), (0.3, N), (0.75, N)])
def test_p2_about_half_either_side(share, expected):
    assert verdict(ledger.p2, results(adam={"control_top_share_axes": share})) == expected


def basis(rows) -> pd.DataFrame:
    return pd.DataFrame([{"optimizer": o, "role": role, "basis": b, "direction": d, "cost": c,
                          "control_run": run}
                         for o, role, b, d, c, run in rows])


def costs(optimizer, axes, random=None, rotated=None, spike=None, role="control"):
    rows = [(optimizer, role, "axes", d, axes, f"control-{optimizer}-0") for d in range(1, 64)]
    if random is not None:
        rows += [(optimizer, role, "random", d, random, f"control-{optimizer}-0")
                 for d in range(16)]
    if rotated is not None:
        rows += [(optimizer, role, "rotated", d, spike if (spike is not None and d == 5)
                  else rotated, f"control-{optimizer}-0") for d in range(64)]
    return basis(rows)


@pytest.mark.parametrize("axes, rand, expected", [(0.03, 0.10, R), (0.001, 0.05, P),
                                                  (0.04, 0.045, N), (0.0015, 0.0020, N)])
def test_p3_ordering_needs_a_resolvable_difference(axes, rand, expected):
    given = Given(**{"rotated-basis__basis": costs("adam", axes, rand)})
    assert verdict(ledger.p3, given) == expected


@pytest.mark.parametrize("rot_top, rot_axes, plain_top, expected", [
    (0.5, 0.07, 0.5, R), (0.5, 0.07, 0.3, P), (0.3, 0.28, 0.3, P), (0.1, 0.3, 0.5, N),
    (0.085, 0.05, 0.10, NC)])
def test_p4_needs_a_structure_to_mirror(rot_top, rot_axes, plain_top, expected):
    given = results(rotated={"control_top_share_rotated": rot_top,
                             "control_top_share_axes": rot_axes, "control_has_spike_rotated": True},
                    adam={"control_top_share_axes": plain_top, "control_has_spike_axes": True})
    assert verdict(ledger.p4, given) == expected


@pytest.mark.parametrize("kept, expected", [([True] * 8, R), ([True] * 7 + [False], N)])
def test_e1a_counts_kept_rotated_runs(kept, expected):
    assert verdict(ledger.e1a, results(rotated={"kept": kept})) == expected


def alignment(diff_deep_rot, diff_deep_adam=None, other_rot=0.15, emb_rot=0.06, emb_adam=0.02):
    diff_deep_adam = diff_deep_rot if diff_deep_adam is None else diff_deep_adam
    rows = []
    for opt in ("rotated", "adam"):
        for seed in range(8):
            for s in range(5):
                deep = diff_deep_rot if opt == "rotated" else diff_deep_adam
                d = (emb_rot if opt == "rotated" else emb_adam) if s == 0 else deep
                rows.append({"role": "anchored", "optimizer": opt, "seed": seed, "slice": s,
                             "context": "difference", "alignment": d})
                rows.append({"role": "anchored", "optimizer": opt, "seed": seed, "slice": s,
                             "context": "other", "alignment": other_rot if s else 0.0})
    return Given(**{"rotated-basis__alignment": pd.DataFrame(rows)})


@pytest.mark.parametrize("rot, adam, expected", [(0.6, 0.6, R), (0.9, 0.9, P), (0.6, 0.5, P),
                                                 (0.9, 0.7, N)])
def test_e1b_size_and_twins(rot, adam, expected):
    assert verdict(ledger.e1b, alignment(rot, adam)) == expected


@pytest.mark.parametrize("other, expected", [(0.15, R), (0.02, N), (0.4, N)])
def test_e1c_fails_on_either_side(other, expected):
    assert verdict(ledger.e1c, alignment(0.6, other_rot=other)) == expected


@pytest.mark.parametrize("rot, adam, expected", [(0.06, 0.02, R), (0.5, 0.02, P), (0.02, 0.06, N)])
def test_e1d_direction_and_size(rot, adam, expected):
    assert verdict(ledger.e1d, alignment(0.6, emb_rot=rot, emb_adam=adam)) == expected


@pytest.mark.parametrize("rot, adam, expected", [(0.98, 0.96, R), (0.98, 0.5, P), (0.9, 0.9, P),
                                                 (0.6, 0.5, N)])
def test_e2a_median_and_every_run(rot, adam, expected):
    given = results(rotated={"raw_removal": rot}, adam={"raw_removal": adam})
    assert verdict(ledger.e2a, given) == expected


@pytest.mark.parametrize("spill, expected", [(0.01, R), (0.03, N)])
def test_e2e_every_run_within_the_criterion(spill, expected):
    assert verdict(ledger.e2e, results(rotated={"spill": spill, "raw_spill": spill},
                                       adam={"spill": 0.0, "raw_spill": 0.0})) == expected


@pytest.mark.parametrize("landing, expected", [(0.5, R), (0.3, N), (0.7, N)])
def test_e2f_landing_either_side(landing, expected):
    assert verdict(ledger.e2f, results(rotated={"landing": landing},
                                       adam={"landing": landing})) == expected


@pytest.mark.parametrize("change, expected", [(0.0, R), (-0.05, N), (0.05, N)])
def test_e2g_task_change_either_side(change, expected):
    assert verdict(ledger.e2g, results(rotated={"task_change": change},
                                       adam={"task_change": change})) == expected


@pytest.mark.parametrize("kept_raw, expected", [([True] * 8, R), ([False] + [True] * 7, N)])
def test_e2h_none_lost_by_raw_removal(kept_raw, expected):
    assert verdict(ledger.e2h, results(rotated={"kept_raw": kept_raw})) == expected


@pytest.mark.parametrize("top, axes, expected", [(0.48, 0.07, R), (0.1, 0.07, P), (0.48, 0.3, P),
                                                 (0.2, 0.3, N), (0.9, 0.07, P)])
def test_e3a_two_sizes(top, axes, expected):
    given = results(rotated={"control_top_share_rotated": top, "control_top_share_axes": axes})
    assert verdict(ledger.e3a, given) == expected


@pytest.mark.parametrize("ra, rr, sa, sr, expected", [
    (3.2, 4.2, 4.0, 3.0, R), (2.84, 3.44, 3.51, 2.85, P), (3.2, 4.2, 3.0, 3.0, P),
    (3.0, 3.0, 3.0, 3.0, N)])
def test_e3b_reversal_and_sizes(ra, rr, sa, sr, expected):
    given = results(rotated={"control_kurtosis_axes": ra, "control_kurtosis_rotated": rr},
                    adam={"control_kurtosis_axes": sa, "control_kurtosis_rotated": sr})
    assert verdict(ledger.e3b, given) == expected


@pytest.mark.parametrize("cos, expected", [(0.88, R), (0.38, N)])
def test_e3c_judged_against_the_source_with_chance_beside(cos, expected):
    text, v = ledger.e3c(results(rotated={**syntax(cos, "rotated"), **syntax(0.32, "axes")}))
    assert v == expected and f"chance {ledger.chance_cos():.2f}" in text


def test_chance_level_of_the_largest_cos_in_64_dimensions_is_about_a_third():
    assert 0.30 <= ledger.chance_cos(64) <= 0.34
    assert ledger.chance_cos(4) > ledger.chance_cos(64)


def test_moved_counts_are_not_comparable_without_spikes_and_compared_with_them():
    few = pd.array([True] + [pd.NA] * 7, dtype="boolean")
    assert verdict(ledger.e3d, results(rotated={"moved_rotated": list(few)})) == NC
    three = [True] * 3 + [False] * 5
    assert verdict(ledger.e3d, results(rotated={"moved_rotated": three})) == R
    assert verdict(ledger.e3d, results(rotated={"moved_rotated": [False] * 8})) == N
    assert verdict(ledger.e3d, results(rotated={"moved_rotated": [True] * 8})) == N


@pytest.mark.parametrize("axes, off, spike, expected", [
    (0.07, 0.03, 0.57, R), (0.0020, 0.0015, 0.57, P), (0.07, 0.03, 0.0, P),
    (0.0020, 0.0015, -0.0001, N)])
def test_e3e_spike_cost_and_cheap_rotated_axes(axes, off, spike, expected):
    given = Given(**{"rotated-basis__basis": costs("rotated", axes, rotated=off, spike=spike),
                     "rotated-basis__results": results(rotated={
                         "control_spike_rotated": 5})._cache[("rotated-basis", "results")]})
    text, v = ledger.e3e(given)
    assert v == expected and not re.search(r"-0\.0+(?![0-9])", text)


@pytest.mark.parametrize("cost, expected", [(0.095, R), (0.16, N), (0.03, N)])
def test_e3e_e1_cost_of_e1_either_side(cost, expected):
    rows = basis([("rotated", "anchored", "axes", 0, cost, f"control-rotated-{i}")
                  for i in range(8)])
    assert verdict(ledger.e3e_e1, Given(**{"rotated-basis__basis": rows})) == expected


def test_l1_reads_the_reference_baseline_study():
    r = pd.DataFrame({"moved_axes": pd.array([True] * 3 + [False] * 5, dtype="boolean")})
    assert verdict(ledger.l1, Given(**{"reference-baseline__results": r})) == R
    r = pd.DataFrame({"moved_axes": pd.array([pd.NA] * 8, dtype="boolean")})
    assert verdict(ledger.l1, Given(**{"reference-baseline__results": r})) == NC


@pytest.mark.parametrize("lost, expected", [(1, R), (20, N)])
def test_s1_asks_whether_one_in_forty_is_inside_our_interval(lost, expected):
    kept = [False] * lost + [True] * (40 - lost)
    rate = rate_table(pd.DataFrame({"kept": kept, "kept_raw": kept}))
    assert verdict(ledger.s1, Given(**{"loss-rate-screen__rate": rate})) == expected


def test_every_claim_has_a_rule_test_here():
    tested = {ledger.p1, ledger.p2, ledger.p3, ledger.p4, ledger.e1a, ledger.e1b, ledger.e1c,
              ledger.e1d, ledger.e2a, ledger.e2e, ledger.e2f, ledger.e2g, ledger.e2h, ledger.e3a,
              ledger.e3b, ledger.e3c, ledger.e3d, ledger.e3e, ledger.e3e_e1, ledger.l1, ledger.s1}
    assert {c.ours for c in ledger.CLAIMS} == tested


def test_partly_names_the_parts_that_held_and_those_that_did_not():
    text, v = ledger.judged("x", {"a": True, "b": False})
    assert v == P and "held: a" in text and "not: b" in text
    assert ledger.judged("x", {"a": False})[1] == N and ledger.judged("x", {"a": True})[1] == R


def test_a_missing_table_makes_a_claim_not_comparable_not_an_error():
    text, v = ledger.p1(Given())
    assert v == NC and "not measured" in text


def test_the_committed_ledger_has_every_claim_once_with_a_verdict():
    table = ledger.ledger(ROOT / "reports")
    assert table.id.is_unique and len(table) == len(ledger.CLAIMS)
    assert set(table.verdict) <= set(ledger.VERDICTS) and table.ours.str.len().gt(0).all()
    assert sum(ledger.tally(table).values()) == len(table)
    assert not table.ours.str.contains(r"-0\.0+(?![0-9])").any()  # no negative zero
