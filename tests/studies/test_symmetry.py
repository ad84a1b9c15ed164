"""The arms as mirror images by construction (the diagnosis study, part 3): plain Adam from
rotated initial weights equals rotated Adam from the original ones, rotated back, step for step
in float64 — for controls; the anchor's pull onto e₁ breaks it for falloff."""

import pytest
import torch

from anchorkit.studies.diagnosis import MIRROR_STEPS, MIRROR_TOL
from anchorkit.core.model import haar_rotation
from anchorkit.engine.profiles import PAPER
from anchorkit.engine.regimes import REPORT
from anchorkit.engine.registry import run_config
from anchorkit.studies.diagnosis.symmetry import mirror_gap, rotate
from anchorkit.core.train import initial_state
from tests.conftest import small


def test_rotating_the_residual_axes_and_back_is_the_identity_in_float64():
    cfg = small(seed=3, optimizer="rotated")
    R = haar_rotation(3, cfg.model.d_model, torch.float64)
    start = {k: v.double() for k, v in initial_state(cfg).items()}
    there = rotate(start, R)
    assert any((there[k] - start[k]).abs().max() > 1e-3 for k in start)  # it does rotate
    back = rotate(there, R, back=True)
    assert max(float((back[k] - start[k]).abs().max()) for k in start) < 1e-14


def test_the_check_starts_from_a_rotated_run():
    with pytest.raises(ValueError, match="rotated-Adam run"):
        mirror_gap(small(seed=1), 2)


def test_a_short_control_is_its_own_mirror_and_a_falloff_run_is_not():
    """The quick form of the check, on the test's small stream (a few steps)."""
    control = mirror_gap(small(seed=2, optimizer="rotated"), 4)
    falloff = mirror_gap(small(seed=2, recipe="falloff", optimizer="rotated", epochs=4), 4)
    assert control <= MIRROR_TOL < falloff


@pytest.mark.retrain
@pytest.mark.slow
@pytest.mark.parametrize("regime", REPORT)
def test_the_mirror_check_in_each_report_regime(regime):
    """The paper runs' configuration in each report regime, a full loop of MIRROR_STEPS steps."""
    assert MIRROR_STEPS >= 20
    control = mirror_gap(run_config(704, "control", "rotated", PAPER, regime),
                         MIRROR_STEPS)
    falloff = mirror_gap(run_config(704, "falloff", "rotated", PAPER, regime),
                         MIRROR_STEPS)
    assert control <= MIRROR_TOL
    assert falloff > 1e3 * MIRROR_TOL
