"""The optimizer as a value: the registry, the own-basis rule in one place, a new optimizer as one
registry entry."""

import pytest
import torch

from anchorkit.core import optimizers
from anchorkit.core.config import ParameterError
from anchorkit.core.edit import coordinate_axes, measured_bases, own_basis, rotated_axes, seed_rotation
from anchorkit.core.optim import UPDATES, BasisAdam
from anchorkit.core.optimizers import AXES, ROTATED_AXES, Optimizer
from anchorkit.core.train import rotation, train
from tests.conftest import small
from tests.test_train import assert_same_weights

TOY_AXES = Optimizer("toy-axes", "toy Adam along the axes", AXES)
TOY_ROTATED = Optimizer("toy-rotated", "toy Adam along the rotated axes", ROTATED_AXES)
BASIS_FREE = Optimizer("toy-free", "a basis-free toy", None, update="toy-free")


@pytest.fixture
def toys(monkeypatch):
    for o in (TOY_AXES, TOY_ROTATED, BASIS_FREE):
        monkeypatch.setitem(optimizers.REGISTRY, o.name, o)


def test_the_registry_holds_the_two_arms_and_refuses_other_names():
    assert optimizers.names() == ("adam", "rotated")
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
    with pytest.raises(ValueError, match="no basis of its own"):
        own_basis(cfg.replace(optimizer="toy-free"))


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
