"""Typed parameters mean what they say: a yes/no flag read from papermill's strings, an
optimizer's values and the seeds kept within their bounds, each refused by name."""

import pytest

from anchorkit.core.config import ParameterError, TrainConfig, check_flag, check_seeds


# ---------------------------------------------------------------------- typed parameters
@pytest.mark.parametrize("value, expected", [
    (True, True), (False, False), ("false", False), ("False", False), ("NO", False), ("0", False),
    (0, False), ("true", True), ("Yes", True), ("1", True), (1, True), (" true ", True)])
def test_a_flag_reads_what_it_says(value, expected):
    assert check_flag("reuse", value) is expected


@pytest.mark.parametrize("value", ["", "off", "nope", 2, -1, None, 0.5, [True]])
def test_anything_else_is_not_a_flag(value):
    with pytest.raises(ParameterError, match="'reuse'.*expected true or false"):
        check_flag("reuse", value)


@pytest.mark.parametrize("setting, named", [
    ({"beta1": 5.0}, "'beta1' = 5.0: expected a number in [0, 1)"),
    ({"beta2": -3.0}, "'beta2' = -3.0: expected a number in [0, 1)"),
    ({"beta2": 1.0}, "'beta2' = 1.0: expected a number in [0, 1)"),
    ({"eps": -1.0}, "'eps' = -1.0: expected a number > 0"),
    ({"eps": 0.0}, "'eps' = 0.0: expected a number > 0"),
    ({"lr": float("inf")}, "'lr' = inf: expected a finite number"),
    ({"lr": float("nan")}, "'lr' = nan: expected a finite number"),
])
def test_optimizer_values_out_of_bounds_are_refused(setting, named):
    with pytest.raises(ParameterError) as e:
        TrainConfig(**setting)
    assert named in str(e.value)


def test_seeds_beyond_64_bits_are_refused():
    with pytest.raises(ParameterError, match="64-bit"):
        check_seeds([2**63])
    assert check_seeds([2**63 - 1]) == [2**63 - 1]
