"""What a run answers on the probe set, clean and edited: the definition-free half of measuring.

Measuring a run costs forwards: its query answers on the probe contexts, on the null set, with e₁
projected out at every dose and, for a sweep, with every other direction projected out at full
dose (≈ 140 forwards of the probe set). Every measure of book/methods.md, *Measurements* that reads scores (removal,
null, spill, landing, direction cost, baselines) is a pure function of these answers. So they are
cached per run in the store, never by the code of a measure: changing a definition re-derives
every table from the cache without a single edited forward.

The cache key is the run's hash (its configuration, hence the task and probe set), the part
(``base`` or ``sweep``), the digest of the **weights** the answers were computed from (so that
weights retrained on another machine, or replaced, never read answers of other weights) and
``ANSWERS_VERSION``, the version of what the answers are. A refactor that changes no answer keeps
the cache; a change that changes answers must bump the version, and ``tests/measures/test_answers.py``
holds a fingerprint of a published run's answers that fails until it does.
"""

from __future__ import annotations

import hashlib

import torch

from anchorkit.core.config import RunConfig, check_choice
from anchorkit.core.edit import DOSES, e1, measured_bases, random_directions
from anchorkit.core.scores import query_predictions
from anchorkit.measures.measure import edited_predictions
from anchorkit.core.optimizers import AXES, KIND, RANDOM_KIND, ROTATED_AXES
from anchorkit.core.store import RunStore
from anchorkit.core.task import probe_set
from anchorkit.core.train import load_model

PARTS = ("base", "sweep")
N_RANDOM = 16  # random directions in a sweep
# probe contexts per forward in a sweep: 128 measured fastest on this CPU, 1.7x faster than all
# 2048 at once (BENCHMARKS.md); the answers do not depend on it
SWEEP_CONTEXTS = 128


def sweep_directions(cfg: RunConfig) -> tuple[list[str], list[int], torch.Tensor]:
    """A run's swept directions, in order: the coordinate axes but e₁, the rotated axes of its
    seed's R (under either optimizer, so that twins are swept alike), and the random directions.
    Returns their kinds, their indices within each kind, and the directions as rows."""
    D = cfg.model.d_model
    bases = measured_bases(cfg)
    kinds = [KIND[AXES]] * (D - 1) + [KIND[ROTATED_AXES]] * D + [RANDOM_KIND] * N_RANDOM
    index = list(range(1, D)) + list(range(D)) + list(range(N_RANDOM))
    dirs = torch.cat([bases[AXES][1:], bases[ROTATED_AXES], random_directions(N_RANDOM, D)])
    return kinds, index, dirs


@torch.inference_mode()
def predict(cfg: RunConfig, state: dict, part: str, chunk: int = 1, doses=DOSES
            ) -> dict[str, torch.Tensor]:
    """The query answers (uint8) of one run, for one part:

    ``base``: ``clean`` (B,) on the probe contexts, ``null`` (B,) on the null set, ``e1``
    (doses, B) with e₁ projected out at each of ``doses`` (the method's ``DOSES`` by default);
    ``sweep``: ``sweep`` (directions, B) with each of ``sweep_directions`` projected out at full
    dose (``chunk`` directions per forward; the answers do not depend on it)."""
    check_choice("part", part, PARTS)
    model = load_model([cfg], [state])
    probe = probe_set(cfg.task)
    D = cfg.model.d_model
    if part == "base":
        out = {"clean": query_predictions(model, probe.clean)[0],
               "null": query_predictions(model, probe.null)[0],
               "e1": torch.stack([edited_predictions(model, probe.clean, e1(D)[None], d)[0, 0]
                                  for d in doses])}
    else:
        out = {"sweep": sweep_answers(cfg, state, 0, None, chunk, model)}
    return {k: v.to(torch.uint8).contiguous() for k, v in out.items()}


@torch.inference_mode()
def sweep_answers(cfg: RunConfig, state: dict, start: int = 0, stop: int | None = None,
                  chunk: int = 1, model=None) -> torch.Tensor:
    """The ``sweep`` answers (uint8) of directions ``start:stop`` of ``sweep_directions`` only:
    each direction is projected out on its own, so slices computed apart (on several workers)
    and concatenated equal the whole sweep."""
    model = model if model is not None else load_model([cfg], [state])
    dirs = sweep_directions(cfg)[2][start:stop]
    return edited_predictions(model, probe_set(cfg.task).clean, dirs, 1.0, chunk,
                              SWEEP_CONTEXTS)[0].to(torch.uint8).contiguous()


def n_sweep_directions(cfg: RunConfig) -> int:
    return len(sweep_directions(cfg)[0])


ANSWERS_VERSION = 1  # bump when the answers a run gives change (the fingerprint test says when)


def answers_key(cfg: RunConfig, part: str, state: dict, doses=DOSES) -> str:
    """The cache key of a run's answers: its hash, the part, the digest of the weights ``state``
    they come from, and the answers' version; a ``base`` part at other doses than the method's
    (a reader's tweak) names them too, so the method's keys are unchanged."""
    text = f"{cfg.hash}/{part}/{RunStore.weights_digest(state)}/{ANSWERS_VERSION}"
    if part == "base" and tuple(doses) != DOSES:
        text += "/doses=" + ",".join(repr(float(d)) for d in doses)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cached_part(cfg: RunConfig, part: str, store, state: dict | None = None, doses=DOSES
                ) -> dict[str, torch.Tensor] | None:
    """A run's cached answers for one part (of its stored final weights, unless ``state``; the
    ``base`` part at ``doses``), or None."""
    if state is None:
        if not store.has_final(cfg):
            return None
        state = store.load_final(cfg)
    return store.load_answers(answers_key(cfg, part, state, doses))


def cached_answers(cfg: RunConfig, state: dict, parts, store=None, chunk: int = 1, doses=DOSES
                   ) -> dict[str, torch.Tensor]:
    """A run's answers for the given parts (the ``base`` part at ``doses``), read from the store's
    cache or computed and cached (without a store, computed)."""
    out = {}
    for part in parts:
        key = answers_key(cfg, part, state, doses) if store is not None else None
        got = store.load_answers(key) if store is not None else None
        if got is None:
            got = predict(cfg, state, part, chunk, doses)
            if store is not None:
                store.save_answers(key, got)
        out.update(got)
    return out
