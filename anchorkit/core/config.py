"""The frozen configuration that names a run.

A run is a pure function of its ``RunConfig``. The configuration's hash names the run in the
store, and every random draw of the run (initialisation, data stream, rotation) comes from
generators derived from it, never from global state.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anchorkit.core import optimizers
from anchorkit.core.candidates import ORDER as _CANDIDATES

if TYPE_CHECKING:
    import torch

# the recipes of record, then the second regime's recalibration candidates (anchorkit.core.candidates)
RECIPES = ("control", "falloff", "split-anti") + _CANDIDATES
NORMS = ("rms", "layer")
INITS = ("gpt2", "scaled")
STEPS = ("eager", "compiled")

# Fields added after runs were published, with the value every earlier run had. A field at that
# value is left out of the hash, so adding it renames no stored or published run; at any other
# value it is part of the hash like every other field.
HASH_NEUTRAL = {("train", "step"): "eager", ("model", "learned_positions"): True,
                ("model", "residual_biases"): True, ("train", "lr_decay"): 0.0,
                ("train", "flush_denormals"): False}


class ParameterError(ValueError):
    """A parameter is outside what anchorkit accepts; the message names the parameter."""

    def __init__(self, name: str, value, expected: str):
        self.name = name
        super().__init__(f"parameter '{name}' = {value!r}: {expected}")


SEED_MAX = 2**63 - 1  # seeds are 64-bit signed integers (torch's generators, numpy, Parquet)


def check_int(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` if it is an integer (not a bool) in [``minimum``, ``maximum``], else raise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(name, value, "expected an integer")
    if minimum is not None and value < minimum:
        raise ParameterError(name, value, f"expected an integer >= {minimum}")
    if maximum is not None and value > maximum:
        raise ParameterError(name, value, f"expected an integer <= {maximum}")
    return value


def check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ParameterError(name, value, "expected True or False")
    return value


FLAG_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def check_flag(name: str, value) -> bool:
    """A yes/no parameter as a notebook or a command line passes it: a bool, the integers 0 and 1,
    or one of true/false/yes/no/1/0 in any case (papermill's ``-p reuse false`` arrives as the
    string "false", which Python would read as true); anything else is refused."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in FLAG_WORDS:
        return FLAG_WORDS[value.strip().lower()]
    raise ParameterError(name, value, "expected true or false (or yes/no, 1/0)")


def check_number(name: str, value, low: float | None = None, high: float | None = None,
                 low_open: bool = False, high_open: bool = False) -> float:
    """A finite real number (not a bool) within the bounds, an open end where said."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParameterError(name, value, "expected a finite number")
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        lo = "" if low is None else f"{'(' if low_open else '['}{low:g}"
        hi = "" if high is None else f"{high:g}{')' if high_open else ']'}"
        span = (f"in {lo}, {hi}" if low is not None and high is not None
                else f"{'>' if low_open else '>='} {low:g}" if low is not None
                else f"{'<' if high_open else '<='} {high:g}")
        raise ParameterError(name, value, f"expected a number {span}")
    return float(value)


def check_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise ParameterError(name, value, f"expected one of {', '.join(map(repr, choices))}")
    return value


def check_seeds(seeds) -> list[int]:
    """A list of integer seeds, as a study notebook receives them."""
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise ParameterError("seeds", seeds, "expected a list of integers")
    seeds = list(seeds)
    if not seeds:
        raise ParameterError("seeds", seeds, "expected at least one seed")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int):
            raise ParameterError("seeds", seeds, f"expected a list of integers, got {s!r}")
        if s < 0:
            raise ParameterError("seeds", seeds, f"expected seeds >= 0, got {s}")
        if s > SEED_MAX:
            raise ParameterError("seeds", seeds, f"expected seeds <= {SEED_MAX} (64-bit), got {s}")
    if len(set(seeds)) != len(seeds):
        raise ParameterError("seeds", seeds, "expected distinct seeds")
    return seeds


def check_device(device) -> str:
    """``cpu``, ``cuda``, ``cuda:<n>`` or ``mps`` (a typo is named here, not deep in torch), and
    one this torch can reach (a CUDA device on a CPU build is named here, before any work)."""
    if not isinstance(device, str) or not re.fullmatch(r"cpu|mps|cuda(:\d+)?", device):
        raise ParameterError("device", device, "expected 'cpu', 'cuda', 'cuda:<n>' or 'mps'")
    if device != "cpu":
        import torch  # only where a device other than the CPU is asked for

        if device.startswith("cuda") and not torch.cuda.is_available():
            raise ParameterError("device", device, f"this torch ({torch.__version__}) sees no "
                                 "CUDA device; use 'cpu', or a CUDA build on a GPU machine")
        if device == "mps" and not torch.backends.mps.is_available():
            raise ParameterError("device", device, "this torch sees no MPS device; use 'cpu'")
    return device


def check_lengths(lengths) -> list[int]:
    """Training lengths (epochs): distinct integers >= 1."""
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__") or not list(lengths):
        raise ParameterError("lengths", lengths, "expected a list of integers >= 1")
    for x in lengths:
        check_int("lengths", x, 1)
    if len(set(lengths)) != len(list(lengths)):
        raise ParameterError("lengths", lengths, "expected distinct lengths")
    return list(lengths)


def check_dose(dose) -> float:
    if isinstance(dose, bool) or not isinstance(dose, (int, float)) or not 0.0 <= float(dose) <= 1.0:
        raise ParameterError("dose", dose, "expected a number in [0, 1]")
    return float(dose)


def check_doses(doses) -> tuple[float, ...]:
    """The doses of the e₁ edit a study measures at: distinct numbers in (0, 1], increasing, the
    last 1 (the full dose, at which the results table is read); a ``ParameterError`` naming
    ``doses`` otherwise."""
    why = "expected an increasing list of numbers in (0, 1] ending with 1 (the full dose)"
    if isinstance(doses, (str, bytes)) or not hasattr(doses, "__iter__"):
        raise ParameterError("doses", doses, why)
    values = list(doses)
    if not values or any(isinstance(d, bool) or not isinstance(d, (int, float)) for d in values):
        raise ParameterError("doses", doses, why)
    values = [float(d) for d in values]
    if (any(not 0.0 < d <= 1.0 for d in values) or values[-1] != 1.0
            or any(a >= b for a, b in zip(values, values[1:]))):
        raise ParameterError("doses", doses, why)
    return tuple(values)


class NewerConfigError(ValueError):
    """A stored configuration has fields this version of anchorkit does not know."""

    def __init__(self, fields: list[str]):
        self.fields = fields
        super().__init__(f"fields unknown to this anchorkit: {', '.join(fields)} (written by a "
                         "newer version: update anchorkit to read it)")


@dataclass(frozen=True)
class TaskConfig:
    """The in-context arithmetic task (book/methods.md, *The task*)."""

    k: int = 3  # example lines per context
    max_operand: int = 9  # operands 0..max_operand, answers 0..2*max_operand
    probe_per_op: int = 512  # probe contexts per op
    probe_seed: int = 12345  # the same for every run and study
    null_seed: int = 54321

    def __post_init__(self):
        check_int("k", self.k, 2)
        check_int("max_operand", self.max_operand, 1)
        check_int("probe_per_op", self.probe_per_op, 1)


@dataclass(frozen=True)
class ModelConfig:
    """The transformer (book/methods.md, *The model and its slices*): residual width, blocks, heads, MLP width, norm, init."""

    d_model: int = 64
    n_blocks: int = 4
    n_heads: int = 4
    d_mlp: int = 256
    norm: str = "rms"
    init: str = "gpt2"
    learned_positions: bool = True  # a learned positional embedding W_pos (else none: only the
    #   causal mask orders the tokens)
    residual_biases: bool = True  # the biases of the blocks' residual writes, b_O and b_out (else
    #   fixed at zero)

    def __post_init__(self):
        check_int("d_model", self.d_model, 2)
        check_int("n_blocks", self.n_blocks, 1)
        check_int("n_heads", self.n_heads, 1)
        check_int("d_mlp", self.d_mlp, 1)
        if self.d_model % self.n_heads:
            raise ParameterError("n_heads", self.n_heads, "must divide d_model")
        check_choice("norm", self.norm, NORMS)
        check_choice("init", self.init, INITS)
        check_bool("learned_positions", self.learned_positions)
        check_bool("residual_biases", self.residual_biases)


WIDTH = ModelConfig().d_model  # the residual stream's width, which every regime's model shares


@dataclass(frozen=True)
class TrainConfig:
    """Optimiser and data-stream settings shared by every run of a study."""

    contexts_per_epoch: int = 512
    batch_size: int = 128
    lr: float = 3e-3
    beta1: float = 0.9
    beta2: float = 0.98
    eps: float = 1e-8
    warmup_steps: int = 100
    # the final fraction of the run's steps over which the learning rate falls linearly towards
    # zero (0: constant after the warm-up, as in every published run)
    lr_decay: float = 0.0
    trajectory_every: int = 20  # epochs between trajectory points
    checkpoint_every: int = 50  # epochs between resumable checkpoints
    # how a training step is computed: "eager" (the reference, every published run) or
    # "compiled" (torch.compile of the forward and loss, attention as matmuls: faster, with
    # different rounding, hence a different run)
    step: str = "eager"
    # whether training flushes denormal floats to zero (``torch.set_flush_denormal``): late in
    # training sharp attention and GELU's tail make denormal intermediates that slow a CPU step
    # several times (BENCHMARKS.md); flushing them changes the arithmetic, hence a different run
    flush_denormals: bool = False

    def __post_init__(self):
        check_bool("flush_denormals", self.flush_denormals)
        check_int("contexts_per_epoch", self.contexts_per_epoch, 1)
        check_int("batch_size", self.batch_size, 1)
        if self.contexts_per_epoch % self.batch_size:
            raise ParameterError("batch_size", self.batch_size, "must divide contexts_per_epoch")
        check_int("warmup_steps", self.warmup_steps, 0)
        check_int("trajectory_every", self.trajectory_every, 1)
        check_int("checkpoint_every", self.checkpoint_every, 1)
        check_number("lr", self.lr, 0.0, low_open=True)
        check_number("beta1", self.beta1, 0.0, 1.0, high_open=True)
        check_number("beta2", self.beta2, 0.0, 1.0, high_open=True)
        check_number("eps", self.eps, 0.0, low_open=True)
        check_choice("step", self.step, STEPS)
        if (isinstance(self.lr_decay, bool) or not isinstance(self.lr_decay, (int, float))
                or not 0.0 <= self.lr_decay < 1.0):
            raise ParameterError("lr_decay", self.lr_decay, "expected a number in [0, 1)")


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines one run. Its ``hash`` names the run in the store."""

    seed: int
    recipe: str = "control"
    optimizer: str = "adam"
    epochs: int = 400
    task: TaskConfig = field(default_factory=TaskConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def __post_init__(self):
        check_int("seed", self.seed, 0, SEED_MAX)
        check_choice("recipe", self.recipe, RECIPES)
        check_choice("optimizer", self.optimizer, optimizers.names())
        check_int("epochs", self.epochs, 1)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "RunConfig":
        """The configuration a ``to_dict`` wrote; ``NewerConfigError`` naming the fields this
        anchorkit does not know (a configuration written by a newer one)."""
        d = dict(d)
        unknown = sorted(set(d) - {f.name for f in dataclasses.fields(cls)})
        for part, kind in (("task", TaskConfig), ("model", ModelConfig), ("train", TrainConfig)):
            if isinstance(d.get(part), dict):
                known = {f.name for f in dataclasses.fields(kind)}
                unknown += [f"{part}.{k}" for k in sorted(set(d[part]) - known)]
        if unknown:
            raise NewerConfigError(unknown)
        return cls(
            task=TaskConfig(**d.pop("task")),
            model=ModelConfig(**d.pop("model")),
            train=TrainConfig(**d.pop("train")),
            **d,
        )

    def hashed_dict(self) -> dict:
        """``to_dict`` without the fields at their hash-neutral value (``HASH_NEUTRAL``)."""
        d = self.to_dict()
        for (part, name), value in HASH_NEUTRAL.items():
            if d[part][name] == value:
                del d[part][name]
        return d

    @property
    def hash(self) -> str:
        blob = json.dumps(self.hashed_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @property
    def name(self) -> str:
        return f"{self.recipe}-{self.optimizer}-{self.seed}"

    def replace(self, **changes) -> "RunConfig":
        return dataclasses.replace(self, **changes)

    def shape_key(self) -> tuple:
        """Fields that every member of one ensemble must share."""
        return (self.epochs, self.task, self.model, self.train)


def derive_seed(*parts) -> int:
    """A 63-bit seed derived from the given parts (stable across processes and platforms)."""
    blob = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "little") >> 1


def generator(*parts) -> "torch.Generator":
    import torch  # the configuration itself needs no torch: only where a generator is made

    g = torch.Generator()
    g.manual_seed(derive_seed(*parts))
    return g
