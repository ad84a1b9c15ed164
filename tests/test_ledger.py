"""The reproduction ledger's rules on constructed tables whose verdict is known by hand."""

from pathlib import Path

import pandas as pd
import pytest

from anchorkit import ledger
from anchorkit.studies import rate_table

ROOT = Path(__file__).resolve().parent.parent


class Given(ledger.Tables):
    def __init__(self, **tables):
        super().__init__("/nonexistent")
        self._cache = {tuple(k.split("__")): v for k, v in tables.items()}

    def get(self, study, table):
        return self._cache.get((study, table))


def results(**columns):
    n = len(next(iter(columns.values())))
    base = {"optimizer": ["rotated"] * n, "seed": list(range(n))}
    return pd.DataFrame({**base, **columns})


@pytest.mark.parametrize("kept, verdict", [([True] * 8, ledger.REPRODUCED),
                                           ([True] * 7 + [False], ledger.NOT_REPRODUCED)])
def test_e1a_counts_kept_rotated_runs(kept, verdict):
    assert ledger.e1a(Given(**{"rotated-basis__results": results(kept=kept)}))[1] == verdict


@pytest.mark.parametrize("share, verdict", [(0.5, ledger.REPRODUCED), (0.3, ledger.PARTLY),
                                            (0.1, ledger.NOT_REPRODUCED)])
def test_p2_reads_the_plain_controls_top_axis_share(share, verdict):
    r = results(control_top_share_axes=[share] * 8).assign(optimizer="adam")
    assert ledger.p2(Given(**{"rotated-basis__results": r}))[1] == verdict


def test_moved_counts_are_not_comparable_without_spikes_and_compared_with_them():
    few = pd.array([True] + [pd.NA] * 7, dtype="boolean")
    given = Given(**{"rotated-basis__results": results(moved_rotated=few)})
    assert ledger.e3d(given)[1] == ledger.NOT_COMPARABLE
    three = pd.array([True] * 3 + [False] * 5, dtype="boolean")
    assert ledger.e3d(Given(**{"rotated-basis__results": results(moved_rotated=three)}))[1] == \
        ledger.REPRODUCED
    none = pd.array([False] * 8, dtype="boolean")
    assert ledger.e3d(Given(**{"rotated-basis__results": results(moved_rotated=none)}))[1] == \
        ledger.NOT_REPRODUCED


@pytest.mark.parametrize("lost, verdict", [(1, ledger.REPRODUCED), (20, ledger.NOT_REPRODUCED)])
def test_s1_asks_whether_one_in_forty_is_inside_our_interval(lost, verdict):
    kept = [False] * lost + [True] * (40 - lost)
    rate = rate_table(pd.DataFrame({"kept": kept, "kept_raw": kept}))
    assert ledger.s1(Given(**{"loss-rate-screen__rate": rate}))[1] == verdict


def test_a_missing_table_makes_a_claim_not_comparable_not_an_error():
    text, verdict = ledger.p1(Given())
    assert verdict == ledger.NOT_COMPARABLE and "not measured" in text


def test_the_committed_ledger_has_every_claim_once_with_a_verdict():
    table = ledger.ledger(ROOT / "reports")
    assert table.id.is_unique and len(table) == len(ledger.CLAIMS)
    assert set(table.verdict) <= set(ledger.VERDICTS) and table.ours.str.len().gt(0).all()
    assert sum(ledger.tally(table).values()) == len(table)
