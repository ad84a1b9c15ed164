"""The calibration's acceptance table on constructed measure_pair rows."""

import pandas as pd
import pytest

from anchorkit.core.task import OPS
from calibration.evaluate import acceptance, basis, verdict


def pair_row(**kw):
    """A results row as calibration.evaluate builds it: passes every criterion by default."""
    row = {"optimizer": "adam", "seed": 1, "raw_removal": 0.9, "raw_removal_vs_evidence_null": 1.1,
           "spill": 0.01}
    row.update({f"{role}_score_{op}": 0.99 for role in ("anchored", "control") for op in OPS})
    row.update({f"alignment_anchored_difference_{s}": 0.9 for s in range(5)})
    row.update({f"alignment_anchored_other_{s}": 0.05 for s in range(5)})
    row.update(kw)
    return row


@pytest.mark.parametrize("bad, criterion", [
    ({"raw_removal": 0.79}, "removal at full dose (bounded)"),
    ({"spill": 0.03}, "spill (max over doses)"),
    ({"control_score_max": 0.94}, "lowest op score (control and falloff)"),
    ({"alignment_anchored_difference_4": 0.7}, "falloff alignment, difference answers, slices 3-4 (lower)"),
    ({"alignment_anchored_other_2": -0.3}, "falloff |alignment|, other-op answers, any slice (largest)")])
def test_each_criterion_fails_alone_on_its_own_miss(bad, criterion):
    acc = acceptance(pd.DataFrame([pair_row(), pair_row(seed=2, **bad)]))
    assert acc[acc.seed == 1]["pass"].all()
    failed = acc[~acc["pass"]]
    assert failed["criterion"].tolist() == [criterion] and (failed["seed"] == 2).all()


def test_the_verdict_names_the_failures_and_the_earlier_ratio():
    df = pd.DataFrame([pair_row(), pair_row(seed=2, raw_removal=0.5, raw_removal_vs_evidence_null=1.3)])
    text = verdict(df, acceptance(df))
    assert "1 of 10 checks" in text and "adam seed 2: removal at full dose (bounded) = 0.5" in text
    assert "1.100 to 1.300 at full dose (2 of 2 pairs at least 0.8)" in text
    assert "null of another op is 0.500 to 0.900" in text
    ok = pd.DataFrame([pair_row()])
    assert verdict(ok, acceptance(ok)).startswith("Every criterion passes")


def basis_row(optimizer, axes, rotated, cos=0.5):
    row = {"optimizer": optimizer, "control_top_share_axes": axes, "control_top_share_rotated": rotated}
    row.update({f"control_syntax_cos_{s}_axes": cos for s in ("?", ",", "=", "⏎")})
    return row


def test_the_basis_sentence_claims_a_coordinate_preference_only_above_both_references():
    """Plain Adam's top axis must beat its own (arbitrary) rotated axes and rotated Adam's axes."""
    clear = pd.DataFrame([basis_row("adam", 0.12, 0.04), basis_row("rotated", 0.05, 0.10)])
    assert "a coordinate preference forms under plain Adam" in basis(clear)
    # rotated Adam's controls reach as large a coordinate-axis share: no preference claimed
    tie = pd.DataFrame([basis_row("adam", 0.07, 0.04), basis_row("rotated", 0.072, 0.10)])
    assert "not clearly preferred" in basis(tie) and "forms under" not in basis(tie)
