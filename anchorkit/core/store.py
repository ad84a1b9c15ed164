"""The run store: every run under a directory named by its configuration's hash.

``<root>/runs/<hash>/`` holds ``config.json``, ``initial.safetensors``, ``final.safetensors``,
``trajectory.parquet``, ``meta.json``, ``snapshots/epoch-<n>.safetensors`` (the weights at a few
fixed epochs) and, while a run is unfinished, ``checkpoint.pt`` (model and optimizer state at the
last checkpoint epoch). A changed configuration field is a different
hash, so a stale run is never read as a fresh one. Every write is atomic (temporary file, then
rename). A file that fails to load or whose configuration does not match its hash raises
``StoreError`` with its path; nothing silently retrains over it.

**Integrity** (``anchorkit.core.files``): beside every file the store writes its SHA-256 and, for
a run's weights, trajectory and meta, the run they belong to; every read checks both, so a damaged
file, a file without its digest and another run's file are refused with their path.

Two more places are read:

- ``published/runs/<hash>/`` in the repository: the committed final weights, trajectory and
  configuration of the paper's runs (initial weights are re-derived from the seed), and for some
  their weights at a few epochs (``snapshots/``). A run found there counts as finished, so a fresh
  clone measures the paper's runs without retraining. The store's own directory comes first.
- ``<root>/answers/<key>.safetensors``: a run's cached query answers, clean and edited
  (``anchorkit.measures.answers``), keyed by its hash and the code that makes them, so that runs shared
  between studies are swept once and a measure's definition can change without a sweep.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from pathlib import Path
from typing import Iterator

import pandas as pd
import torch
from safetensors.torch import load, save_file

from anchorkit.core import lock
from anchorkit.core.config import NewerConfigError, RunConfig
from anchorkit.core.files import (FILE_MODE, StoreError, atomic_write, digest,  # noqa: F401
                                  read_table_bytes, read_verified, write_json, write_table,
                                  write_verified)
from anchorkit.core.paths import (DIGEST, PUBLISHED, REPO, check_outside_tracked,  # noqa: F401
                                  remedy, resolved)

DEFAULT_ROOT = REPO / ".runs"
PUBLISHED_FILES = ("config.json", "final.safetensors", "trajectory.parquet", "meta.json")
LOCK = ".lock"  # a run's write lock (``RunStore.writing``)


class RunStore:
    def __init__(self, root: str | Path | None = None, published: str | Path | None = PUBLISHED):
        # resolved: the workers of a cluster read the same paths from another directory; never
        # in the repository's tracked tree (its runs and answers would show as untracked files)
        self.root = check_outside_tracked(
            "store", root or os.environ.get("ANCHORKIT_STORE") or DEFAULT_ROOT)
        self.published = resolved(published) if published is not None else None

    def path(self, cfg: RunConfig) -> Path:
        return self.root / "runs" / cfg.hash

    def _final_dir(self, cfg: RunConfig) -> Path:
        """Where the run's final weights are: the store's own directory, else the published one."""
        own = self.path(cfg)
        if (own / "final.safetensors").exists() or self.published is None:
            return own
        pub = self.published / "runs" / cfg.hash
        return pub if (pub / "final.safetensors").exists() else own

    # ------------------------------------------------------------------ checks
    def _check_config(self, cfg: RunConfig, d: Path | None = None) -> Path:
        d = d if d is not None else self.path(cfg)
        f = d / "config.json"
        if not f.exists():
            raise StoreError(f"{f}: missing; the run directory has no configuration")
        try:
            stored = json.loads(read_verified(f))
        except ValueError as e:
            raise StoreError(f"{f}: unreadable ({e})") from None
        try:  # fields added since the run was written read as their hash-neutral defaults
            same = RunConfig.from_dict(stored) == cfg
        except NewerConfigError as e:
            raise StoreError(f"{f}: {e}") from None
        except (TypeError, ValueError, KeyError):
            same = False
        if not same:
            raise StoreError(f"{f}: configuration does not match its hash {cfg.hash}")
        return d

    def has_final(self, cfg: RunConfig) -> bool:
        """Whether the run is finished: its final weights, trajectory and meta are there and
        verify against their digests (``StoreError`` naming the file that does not)."""
        d = self._final_dir(cfg)
        if not (d / "final.safetensors").exists():
            return False
        self._check_config(cfg, d)
        for name in PUBLISHED_FILES[1:]:
            read_verified(d / name, run=cfg.hash)
        return True

    @contextlib.contextmanager
    def writing(self, cfgs) -> Iterator[None]:
        """Hold the write lock of every run in ``cfgs`` (``anchorkit.core.lock``): a second
        process training one of them says whose lock it waits on, waits until the first is done
        and finds the run finished, or gives up with a ``StoreError`` naming the holder. Taken in
        hash order, so two writers never wait on each other."""
        try:
            with contextlib.ExitStack() as taken:
                for cfg in sorted(cfgs, key=lambda c: c.hash):
                    taken.enter_context(lock.held(self.path(cfg) / LOCK))
                yield
        except lock.LockTimeout as e:
            raise StoreError(str(e)) from None

    def has_initial(self, cfg: RunConfig) -> bool:
        return (self.path(cfg) / "initial.safetensors").exists()

    # ------------------------------------------------------------------ weights
    def _load_weights(self, f: Path, cfg: RunConfig) -> dict[str, torch.Tensor]:
        data = read_verified(f, run=cfg.hash)
        try:
            return load(data)
        except Exception as e:  # noqa: BLE001 - report any failure with its path
            raise StoreError(f"{f}: cannot load weights ({e})") from None

    @staticmethod
    def weights_digest(state: dict[str, torch.Tensor]) -> str:
        """A digest of a weight set's values (names, dtypes, shapes and bytes, in name order):
        what cached answers are keyed by, so that other weights never read them."""
        h = hashlib.sha256()
        for k in sorted(state):
            v = state[k].detach().contiguous().cpu()
            h.update(f"{k}|{v.dtype}|{tuple(v.shape)}|".encode())
            h.update(v.view(torch.uint8).numpy().tobytes() if v.numel() else b"")
        return h.hexdigest()[:32]

    def save_initial(self, cfg: RunConfig, state: dict) -> None:
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        write_verified(d / "initial.safetensors", lambda p: save_file(_contiguous(state), p),
                       run=cfg.hash)

    def save_final(self, cfg: RunConfig, state: dict, trajectory: pd.DataFrame, meta: dict) -> None:
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        write_table(d / "trajectory.parquet", trajectory, run=cfg.hash)
        write_json(d / "meta.json", meta, run=cfg.hash)
        write_verified(d / "final.safetensors", lambda p: save_file(_contiguous(state), p),
                       run=cfg.hash)
        (d / "checkpoint.pt").unlink(missing_ok=True)
        (d / ("checkpoint.pt" + DIGEST)).unlink(missing_ok=True)

    def load_final(self, cfg: RunConfig) -> dict[str, torch.Tensor]:
        d = self._check_config(cfg, self._final_dir(cfg))
        return self._load_weights(d / "final.safetensors", cfg)

    def load_initial(self, cfg: RunConfig) -> dict[str, torch.Tensor]:
        d = self._check_config(cfg)
        return self._load_weights(d / "initial.safetensors", cfg)

    def load_trajectory(self, cfg: RunConfig) -> pd.DataFrame:
        f = self._check_config(cfg, self._final_dir(cfg)) / "trajectory.parquet"
        data = read_verified(f, run=cfg.hash)
        try:
            return read_table_bytes(data)
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"{f}: cannot load trajectory ({e})") from None

    def load_meta(self, cfg: RunConfig) -> dict:
        d = self._check_config(cfg, self._final_dir(cfg))
        return json.loads(read_verified(d / "meta.json", run=cfg.hash))

    def publish(self, cfg: RunConfig, where: str | Path | None = None, snapshots=()) -> Path:
        """Copy a finished run's configuration, final weights, trajectory and meta to the
        published directory (``where``, default the store's), and its weights at the epochs
        ``snapshots`` (each must be kept); returns the run's directory there."""
        where = Path(where) if where is not None else self.published
        if where is None or not self.has_final(cfg):
            raise StoreError(f"{self.path(cfg)}: no finished run {cfg.name} to publish")
        if missing := sorted(set(snapshots) - set(self.snapshot_epochs(cfg))):
            raise StoreError(f"{self.path(cfg)}: {cfg.name} keeps no weights at epoch(s) {missing}")
        dst = where / "runs" / cfg.hash
        files = {dst / n: self._final_dir(cfg) / n for n in PUBLISHED_FILES}
        files.update({dst / "snapshots" / f"epoch-{e}.safetensors": self._snapshot_path(cfg, e)
                      for e in snapshots})
        for to, src in files.items():
            if to != src:
                run = None if to.name == "config.json" else cfg.hash
                data = read_verified(src, run=run)
                write_verified(to, lambda p, data=data: p.write_bytes(data), run=run)
        return dst

    # ------------------------------------------------------------------ snapshots
    def save_snapshot(self, cfg: RunConfig, epoch: int, state: dict) -> None:
        """The weights at ``epoch`` of training (``train.SNAPSHOT_EPOCHS``), kept beside the run."""
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        write_verified(d / "snapshots" / f"epoch-{epoch}.safetensors",
                       lambda p: save_file(_contiguous(state), p), run=cfg.hash)

    def _snapshot_dirs(self, cfg: RunConfig) -> list[Path]:
        """Where a run's snapshots may be: its store directory, then its published one."""
        return [self.path(cfg)] + ([self.published / "runs" / cfg.hash]
                                   if self.published is not None else [])

    def _snapshot_path(self, cfg: RunConfig, epoch: int) -> Path:
        found = [d / "snapshots" / f"epoch-{epoch}.safetensors" for d in self._snapshot_dirs(cfg)]
        return next((f for f in found if f.exists()), found[0])  # the store's, else published

    def snapshot_epochs(self, cfg: RunConfig) -> list[int]:
        """The epochs whose weights are kept for this run, in the store or published."""
        return sorted({int(f.stem.split("-")[1]) for d in self._snapshot_dirs(cfg)
                       for f in (d / "snapshots").glob("epoch-*.safetensors")})

    def load_snapshot(self, cfg: RunConfig, epoch: int) -> dict[str, torch.Tensor]:
        f = self._snapshot_path(cfg, epoch)
        self._check_config(cfg, f.parent.parent)
        return self._load_weights(f, cfg)

    # ------------------------------------------------------------------ cached answers
    def load_answers(self, key: str) -> dict[str, torch.Tensor] | None:
        """The answers cached under ``key`` (``anchorkit.measures.answers``), or None when there are none."""
        f = self.root / "answers" / f"{key}.safetensors"
        if not f.exists():
            return None
        data = read_verified(f)
        try:
            return load(data)
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"{f}: cannot load cached answers ({e})") from None

    def save_answers(self, key: str, tensors: dict[str, torch.Tensor]) -> None:
        write_verified(self.root / "answers" / f"{key}.safetensors",
                       lambda p: save_file(_contiguous(tensors), p))

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self, cfg: RunConfig, payload: dict) -> None:
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        write_verified(d / "checkpoint.pt", lambda p: torch.save(payload, p))

    def load_checkpoint(self, cfg: RunConfig) -> dict | None:
        f = self.path(cfg) / "checkpoint.pt"
        if not f.exists():
            return None
        self._check_config(cfg)
        data = read_verified(f)
        try:
            payload = torch.load(io.BytesIO(data), weights_only=True)
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"{f}: cannot load checkpoint ({e})") from None
        if payload.get("hash") != cfg.hash:
            raise StoreError(f"{f}: checkpoint belongs to {payload.get('hash')}, not {cfg.hash}")
        return payload


def _contiguous(state: dict) -> dict:
    return {k: v.detach().contiguous().cpu() for k, v in state.items()}
