"""The optimizer as a value: the registry, the own-basis rule in one place, a new optimizer as one
registry entry."""

import pytest
import torch

from anchorkit.core import optimizers
from anchorkit.core.config import ModelConfig, ParameterError
from anchorkit.core.edit import coordinate_axes, measured_bases, own_basis, rotated_axes, seed_rotation
from anchorkit.core.optim import UPDATES, BasisAdam
from anchorkit.core.optimizers import AXES, ROTATED_AXES, Optimizer
from anchorkit.core.train import rotation, train
from tests.conftest import small
from tests.core.test_train import assert_same_weights

TOY_AXES = Optimizer("toy-axes", "toy Adam along the axes", AXES)
TOY_ROTATED = Optimizer("toy-rotated", "toy Adam along the rotated axes", ROTATED_AXES)
BASIS_FREE = Optimizer("toy-free", "a basis-free toy", None, update="toy-free")


@pytest.fixture
def toys(monkeypatch):
    for o in (TOY_AXES, TOY_ROTATED, BASIS_FREE):
        monkeypatch.setitem(optimizers.REGISTRY, o.name, o)


def test_the_registry_holds_the_three_arms_and_refuses_other_names():
    assert optimizers.names() == ("adam", "rotated", "shared")
    assert optimizers.optimizer("adam").basis == AXES and not optimizers.PLAIN_ADAM.rotated
    assert optimizers.optimizer("rotated").basis == ROTATED_AXES and optimizers.ROTATED_ADAM.rotated
    with pytest.raises(ParameterError, match="optimizer"):
        small(optimizer="sgd")
    with pytest.raises(KeyError, match="sgd.*adam"):
        optimizers.optimizer("sgd")
    with pytest.raises(ValueError, match="basis"):
        Optimizer("diag", "diagonal", "diagonal")
    with pytest.raises(ValueError, match="registered already"):
        optimizers.register(Optimizer("adam", "another Adam", ROTATED_AXES))
    assert optimizers.register(optimizers.PLAIN_ADAM) is optimizers.PLAIN_ADAM  # the same value


def test_the_own_basis_rule_names_each_optimizer_its_basis(toys):
    cfg = small(seed=7)
    bases = measured_bases(cfg)
    assert torch.equal(bases[AXES], coordinate_axes(cfg.model.d_model))
    assert torch.equal(bases[ROTATED_AXES], rotated_axes(seed_rotation(cfg)))
    for name, basis in (("adam", AXES), ("rotated", ROTATED_AXES), ("toy-axes", AXES),
                        ("toy-rotated", ROTATED_AXES)):
        got, vectors = own_basis(cfg.replace(optimizer=name))
        assert got == basis and torch.equal(vectors, bases[basis])
    # only an optimizer that scales in the rotated axes trains with R; the seed's R is the same
    assert torch.equal(rotation(cfg.replace(optimizer="toy-rotated")), seed_rotation(cfg))
    assert torch.equal(rotation(cfg.replace(optimizer="toy-axes")), torch.eye(cfg.model.d_model))
    assert own_basis(cfg.replace(optimizer="toy-free"))[0] is None  # no basis of its own


def test_a_new_optimizer_is_one_registry_entry_and_trains_as_its_rule_says(toys):
    """A toy optimizer with Adam's update along the axes trains the very weights plain Adam does
    at the same seed (and along the rotated axes, rotated Adam's), under its own name and hash."""
    for toy, twin in ((TOY_AXES, "adam"), (TOY_ROTATED, "rotated")):
        mine, theirs = train([small(seed=3, recipe="falloff", optimizer=toy.name, epochs=1),
                              small(seed=3, recipe="falloff", optimizer=twin, epochs=1)],
                             progress=False)
        assert mine.config.hash != theirs.config.hash
        assert_same_weights(mine.final, theirs.final)


def test_runs_of_another_update_rule_train_in_an_ensemble_of_their_own(toys, monkeypatch):
    made = []

    class Toy(BasisAdam):  # Adam's update, counted: the basis-free toy's rule
        def __init__(self, params, *args, **kw):
            made.append(len(next(iter(params.values()))))  # the ensemble's size
            super().__init__(params, *args, **kw)

    monkeypatch.setitem(UPDATES, "toy-free", Toy)
    plain, toy = train([small(seed=3, epochs=1), small(seed=3, optimizer="toy-free", epochs=1)],
                       progress=False)
    assert made == [1]  # one ensemble, of the toy's run alone
    alone = train([small(seed=3, epochs=1)], progress=False)[0]
    assert_same_weights(plain.final, alone.final)
    assert_same_weights(toy.final, alone.final)  # Adam's rule without R: plain Adam's weights


# ---------------------------------------------------------------------- the basis-free arm
def _one_update(opt_cls, params, grads, axes, steps=3):
    """The weights after ``steps`` steps of ``opt_cls`` from ``params`` with the gradients
    ``grads[t]`` (float64 copies)."""
    ps = {k: torch.nn.Parameter(v.clone()) for k, v in params.items()}
    opt = opt_cls(ps, axes, lr=1e-2, betas=(0.9, 0.98), eps=1e-8)
    for g in grads:
        for k, p in ps.items():
            p.grad = g[k].clone()
        opt.step()
    return {k: p.detach() for k, p in ps.items()}


def _rotate(t, axis, R):
    """t's residual axis (``axis`` of the per-run tensor, after the run dimension) in R's basis."""
    moved = t.movedim(axis + 1, -1)
    return (moved @ R).movedim(-1, axis + 1)


def test_shared_adam_commutes_with_any_rotation_of_the_residual_axis():
    """The basis-free arm's update rotated equals the update of the rotated problem (float64, to
    rounding), for parameters with the residual axis first, last and absent; plain Adam's does
    not (the control that the test can fail)."""
    from anchorkit.core.optim import SharedAdam

    g = torch.Generator().manual_seed(0)
    D = 8
    shapes = {"embed": ((1, 11, D), 1), "w_in": ((1, D, 5), 0), "w_out": ((1, 5, D), 1),
              "other": ((1, 5, 3), None)}
    axes = {k: a for k, (_, a) in shapes.items()}
    params = {k: torch.randn(*s, generator=g, dtype=torch.float64) for k, (s, _) in shapes.items()}
    grads = [{k: torch.randn(*s, generator=g, dtype=torch.float64) for k, (s, _) in shapes.items()}
             for _ in range(3)]
    R = torch.linalg.qr(torch.randn(D, D, generator=g, dtype=torch.float64))[0]

    def rot(d):
        return {k: v if axes[k] is None else _rotate(v, axes[k], R) for k, v in d.items()}

    for cls, commutes in ((SharedAdam, True), (BasisAdam, False)):
        direct = rot(_one_update(cls, params, grads, axes))
        rotated = _one_update(cls, rot(params), [rot(x) for x in grads], axes)
        gaps = [float((direct[k] - rotated[k]).abs().max()) for k in params if axes[k] is not None]
        assert (max(gaps) < 1e-12) == commutes, (cls.__name__, gaps)


def test_shared_adam_with_a_residual_axis_of_size_one_or_none_is_adam():
    from anchorkit.core.optim import SharedAdam

    g = torch.Generator().manual_seed(1)
    params = {"a": torch.randn(2, 1, 6, generator=g), "b": torch.randn(2, 4, 3, generator=g)}
    grads = [{k: torch.randn(*v.shape, generator=g) for k, v in params.items()} for _ in range(4)]
    axes = {"a": 0, "b": None}
    shared = _one_update(SharedAdam, params, grads, axes)
    adam = _one_update(BasisAdam, params, grads, axes)
    assert all(torch.equal(shared[k], adam[k]) for k in params)
    with pytest.raises(ValueError, match="no rotation"):
        SharedAdam({}, {}, torch.eye(3)[None])


def test_the_basis_free_arm_is_one_registry_value_with_no_own_basis(toys):
    """The third arm trains as its rule says, under a hash of its own that its hyperparameters
    are part of; every measure asking for its own basis has a defined answer (no vectors, the
    random directions as reference, no directions of note, no mirror row)."""
    import dataclasses

    import pandas as pd

    from anchorkit.studies.rotated_basis import mirror
    from anchorkit.core.optimizers import RANDOM_KIND, SHARED_ADAM
    from anchorkit.measures.directions import notable_table

    assert optimizers.optimizer("shared") is SHARED_ADAM and SHARED_ADAM.basis is None
    assert UPDATES[SHARED_ADAM.update].__name__ == "SharedAdam"
    cfg = small(seed=3, optimizer="shared")
    name, vectors = own_basis(cfg)
    assert name is None and vectors.shape == (0, cfg.model.d_model)
    assert SHARED_ADAM.reference_kind == RANDOM_KIND and optimizers.PLAIN_ADAM.reference_kind == "axis"
    assert len({cfg.hash, small(seed=3).hash, small(seed=3, optimizer="rotated").hash}) == 3
    tweaked = cfg.replace(train=dataclasses.replace(cfg.train, beta2=0.95))
    assert tweaked.hash != cfg.hash
    assert torch.equal(rotation(cfg), torch.eye(cfg.model.d_model))
    run = train([cfg.replace(epochs=1)], progress=False)[0]
    assert all(torch.isfinite(v).all() for v in run.final.values())
    # the read-outs along an own basis leave its runs out rather than fail
    results = pd.DataFrame([{"seed": 3, "optimizer": "shared", "run": "x", "control_run": "y"}])
    assert mirror.own_basis_measures(results, pd.DataFrame(), pd.DataFrame()).empty
    basis = pd.DataFrame([{"run": cfg.name, "role": "control", "control_run": cfg.name,
                           "basis": "axes", "direction": 0, "cost": 0.1}])
    assert notable_table([cfg], pd.DataFrame(), basis, store=None).empty


@pytest.mark.slow
def test_a_basis_free_pair_is_measured_with_the_random_directions_as_its_reference():
    """A pair under the basis-free arm goes through the one measuring path (``pairs``) with no
    module told about it: its reference baseline is the median share of difference removed by
    the sweep's random directions."""
    import numpy as np

    from anchorkit.engine.pairs import Pair, measure_pair

    narrow = ModelConfig(d_model=16, d_mlp=64)  # a third of the sweep's directions: quicker
    a_cfg = small(seed=5, recipe="falloff", optimizer="shared", epochs=2, model=narrow)
    c_cfg = small(seed=5, optimizer="shared", epochs=2, model=narrow)
    a, c = train([a_cfg, c_cfg], progress=False)
    t = measure_pair(Pair(a_cfg, c_cfg), a.final, c.final, sweep=True, chunk=32)
    res = t["results"].iloc[0]
    d = t["directions"]
    mine = d[(d.role == "anchored") & (d.kind == "random")].difference_share
    assert res["anchored_reference_baseline"] == pytest.approx(float(np.median(mine)), abs=1e-6)
    assert res["removal_net_of_reference"] == pytest.approx(
        res["raw_removal"] - res["anchored_reference_baseline"])
