import math

import pytest

from anchorkit import RunConfig
from anchorkit.core.config import ParameterError, check_dose, check_doses, check_seeds
from anchorkit.core.edit import projection_edit
from anchorkit.core.train import train
from tests.conftest import SMALL_TRAIN, small


@pytest.mark.parametrize("kwargs, name", [
    ({"seed": 1, "recipe": "falloffx"}, "recipe"),
    ({"seed": 1, "optimizer": "sgd"}, "optimizer"),
    ({"seed": 1.5}, "seed"),
    ({"seed": "704"}, "seed"),
    ({"seed": True}, "seed"),
    ({"seed": 1, "epochs": 0}, "epochs"),
    ({"seed": 1, "epochs": 2.0}, "epochs"),
])
def test_bad_run_parameters_name_the_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=f"parameter '{name}'") as e:
        RunConfig(**kwargs)
    assert e.value.name == name


@pytest.mark.parametrize("dose", [-0.1, 1.01, math.nan, "1", None])
def test_dose_outside_unit_interval_is_refused(dose):
    with pytest.raises(ParameterError, match="parameter 'dose'"):
        check_dose(dose)
    with pytest.raises(ParameterError, match="parameter 'dose'"):
        projection_edit(__import__("torch").eye(4)[0], dose, 5)


@pytest.mark.parametrize("seeds", ["704", [704, 7.5], [], [1, 1], 704])
def test_bad_seed_lists_are_refused(seeds):
    with pytest.raises(ParameterError, match="parameter 'seeds'"):
        check_seeds(seeds)


def test_good_values_pass():
    assert check_seeds([704, 705]) == [704, 705]
    assert check_dose(0) == 0.0 and check_dose(1) == 1.0


def test_hash_changes_with_any_field_and_round_trips():
    a = RunConfig(seed=704)
    assert RunConfig.from_dict(a.to_dict()) == a
    assert RunConfig.from_dict(a.to_dict()).hash == a.hash
    others = [a.replace(seed=705), a.replace(recipe="falloff"), a.replace(optimizer="rotated"),
              a.replace(epochs=399), a.replace(train=SMALL_TRAIN)]
    assert len({a.hash, *(o.hash for o in others)}) == 6


def test_nan_in_training_stops_with_run_and_step_named():
    cfg = small(seed=3, train=SMALL_TRAIN.__class__(contexts_per_epoch=64, batch_size=32,
                                                    lr=1e30, warmup_steps=0))
    with pytest.raises(FloatingPointError) as e:
        train([cfg], progress=False)
    msg = str(e.value)
    assert cfg.name in msg and cfg.hash in msg and "step" in msg


def test_fields_at_their_hash_neutral_value_keep_every_published_name():
    """Fields added after publishing (the training step, the regime options) stay out of the hash
    at the value every earlier run had, and enter it at any other value."""
    import dataclasses
    import json

    from anchorkit import ModelConfig, TrainConfig
    from anchorkit.core.config import HASH_NEUTRAL
    from anchorkit.core.store import PUBLISHED

    a = RunConfig(seed=704)
    # the published control-adam-704 was named before any of these fields existed
    assert (PUBLISHED / "runs" / a.hash / "final.safetensors").exists()
    stored = json.loads((PUBLISHED / "runs" / a.hash / "config.json").read_text())
    assert all(name not in stored[part] for part, name in HASH_NEUTRAL)
    assert RunConfig.from_dict(stored) == a
    parts = {"train": TrainConfig, "model": ModelConfig}
    changed = {"step": "compiled", "learned_positions": False, "residual_biases": False,
               "lr_decay": 0.25, "flush_denormals": True}
    hashes = {a.hash}
    for part, name in HASH_NEUTRAL:
        assert getattr(getattr(a, part), name) == HASH_NEUTRAL[part, name]
        other = a.replace(**{part: dataclasses.replace(parts[part](), **{name: changed[name]})})
        hashes.add(other.hash)
    assert len(hashes) == 1 + len(HASH_NEUTRAL)


@pytest.mark.parametrize("kwargs, name", [
    ({"learned_positions": 0}, "learned_positions"), ({"residual_biases": "no"}, "residual_biases")])
def test_regime_options_are_booleans(kwargs, name):
    from anchorkit import ModelConfig

    with pytest.raises(ParameterError, match=f"parameter '{name}'"):
        ModelConfig(**kwargs)


@pytest.mark.parametrize("value", [1.0, -0.1, True, "late"])
def test_a_decay_fraction_outside_zero_to_one_is_refused(value):
    from anchorkit import TrainConfig

    with pytest.raises(ParameterError, match="parameter 'lr_decay'"):
        TrainConfig(lr_decay=value)


def test_an_unknown_training_step_is_refused():
    from anchorkit import TrainConfig

    with pytest.raises(ParameterError, match="parameter 'step'"):
        TrainConfig(step="jit")


@pytest.mark.parametrize("doses", [[], "1", [0.5], [1, 0.5], [0.5, 0.5, 1], [0, 1], [0.5, 1.5],
                                   [True, 1], [math.nan, 1], None, 1.0])
def test_bad_dose_lists_name_the_parameter(doses):
    with pytest.raises(ParameterError, match="parameter 'doses'"):
        check_doses(doses)


def test_a_dose_list_ends_at_the_full_dose_and_is_kept_in_order():
    assert check_doses([0.25, 0.5, 1]) == (0.25, 0.5, 1.0)
    assert check_doses((1,)) == (1.0,)
