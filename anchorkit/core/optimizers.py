"""The optimizers a run trains under, as values (book/methods.md, *The optimizers*).

An optimizer is its name (the configuration's value, part of the run's name and hash), its words
on the pages, the basis it scales in and its update rule (``optim.UPDATES``). The **own-basis
rule** is written here once: plain Adam scales along the coordinate axes, rotated Adam along the
rotated axes of its seed's Haar rotation R; a basis-free optimizer (basis-free Adam, whose second
moment is shared along the residual axis; SGD, Muon, …) has none. Every measure read "along the
run's own basis" takes the basis's name from here, and the tensors from ``edit.measured_bases``;
where there is none, each says what it gives instead: no vectors (``edit.own_basis``), the
random directions as the reference (``reference_kind``), no directions of note and no row of the
mirror image (``measures.directions``, ``mirror``).

This module has no torch: the configuration validates an optimizer's name against it
(``config.RunConfig``); ``train`` builds its update from it. A new optimizer is one ``register``
call (with its update rule in ``optim.UPDATES`` if it is not Adam's).
"""

from __future__ import annotations

from dataclasses import dataclass

# the two bases every run is measured along: the tables' ``basis`` column, and the suffix of the
# results' per-basis columns (``top_share_axes``, ``top_share_rotated``)
AXES, ROTATED_AXES = "axes", "rotated"
BASES = (AXES, ROTATED_AXES)
# a basis's directions as a sweep's ``kind`` column names them (one axis, one rotated axis)
KIND = {AXES: "axis", ROTATED_AXES: "rotated"}
RANDOM_KIND = "random"  # the sweep's random directions: the reference of a basis-free run


@dataclass(frozen=True)
class Optimizer:
    """One optimizer: ``name`` (the configuration's value), ``label`` (the pages' words),
    ``basis`` (the basis it scales in, one of ``BASES``, or None for a basis-free one) and
    ``update`` (its update rule's name in ``optim.UPDATES``)."""

    name: str
    label: str
    basis: str | None
    update: str = "adam"

    def __post_init__(self):
        if self.basis is not None and self.basis not in BASES:
            raise ValueError(f"optimizer {self.name!r}: basis {self.basis!r} is not one of "
                             f"{BASES} or None")

    @property
    def rotated(self) -> bool:
        """Whether its scaling is in the seed's rotated axes (training then draws R)."""
        return self.basis == ROTATED_AXES

    @property
    def reference_kind(self) -> str:
        """The swept directions a run's reference baseline is taken over: its own basis's (off
        the spike), or, with no basis of its own, the random directions (the Methods page,
        *Measurements*)."""
        return RANDOM_KIND if self.basis is None else KIND[self.basis]


PLAIN_ADAM = Optimizer("adam", "plain Adam", AXES)
ROTATED_ADAM = Optimizer("rotated", "rotated Adam", ROTATED_AXES)
# the third arm (issue 69): Adam with its second moment shared along the residual axis, so no
# direction of the residual stream is privileged by the optimizer (``optim.SharedAdam``)
SHARED_ADAM = Optimizer("shared", "basis-free Adam", None, update="shared-adam")

# the report's question compares these two arms (plain first, as the configurations list them)
QUESTION = (PLAIN_ADAM, ROTATED_ADAM)
ARM_NAMES = tuple(o.name for o in QUESTION)
ARMS = {o.name: o.label for o in reversed(QUESTION)}  # each arm's label, rotated first (as tables)

REGISTRY: dict[str, Optimizer] = {o.name: o for o in (PLAIN_ADAM, ROTATED_ADAM, SHARED_ADAM)}


def names() -> tuple[str, ...]:
    """The names a configuration accepts, in registry order."""
    return tuple(REGISTRY)


def optimizer(name: str) -> Optimizer:
    """The optimizer of that name (``KeyError`` naming the known ones for any other)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"optimizer {name!r}: expected one of {names()}") from None


def of(cfg) -> Optimizer:
    """The optimizer of a run's configuration."""
    return optimizer(cfg.optimizer)


def register(o: Optimizer) -> Optimizer:
    """Add an optimizer to the registry (a name already taken by another value is refused)."""
    if REGISTRY.get(o.name, o) != o:
        raise ValueError(f"optimizer {o.name!r} is registered already, as {REGISTRY[o.name]}")
    REGISTRY[o.name] = o
    return o
