"""The run store: every run under a directory named by its configuration's hash.

``<root>/runs/<hash>/`` holds ``config.json``, ``initial.safetensors``, ``final.safetensors``,
``trajectory.parquet``, ``meta.json``, ``snapshots/epoch-<n>.safetensors`` (the weights at a few
fixed epochs) and, while a run is unfinished, ``checkpoint.pt`` (model and optimizer state at the
last checkpoint epoch). A changed configuration field is a different
hash, so a stale run is never read as a fresh one. Every write is atomic (temporary file, then
rename). A file that fails to load or whose configuration does not match its hash raises
``StoreError`` with its path; nothing silently retrains over it.

Two more places are read:

- ``published/runs/<hash>/`` in the repository: the committed final weights, trajectory and
  configuration of the paper's runs (no initial weights: they are re-derived from the seed). A
  run found there counts as finished, so a fresh clone measures the paper's runs without
  retraining. The store's own directory comes first.
- ``<root>/predictions/<key>.safetensors``: a run's cached query answers, clean and edited
  (``anchorkit.predictions``), keyed by its hash and the code that makes them, so that runs shared
  between studies are swept once and a measure's definition can change without a sweep.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Callable

import pandas as pd
import torch
from safetensors.torch import load_file, save_file

from anchorkit.config import RunConfig

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO / ".runs"
PUBLISHED = REPO / "published"
PUBLISHED_FILES = ("config.json", "final.safetensors", "trajectory.parquet", "meta.json")


class StoreError(RuntimeError):
    """A stored file is unreadable or belongs to another configuration."""


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it onto ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, obj) -> None:
    atomic_write(path, lambda p: p.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n"))


def write_table(path: Path, df: pd.DataFrame, csv: bool = False) -> None:
    """A tidy table as Parquet (and a CSV beside it where a person reads it), atomically."""
    path = Path(path)
    atomic_write(path, lambda p: df.to_parquet(p, index=False))
    if csv:
        atomic_write(path.with_suffix(".csv"), lambda p: df.to_csv(p, index=False))


class RunStore:
    def __init__(self, root: str | Path | None = None, published: str | Path | None = PUBLISHED):
        # absolute: the workers of a cluster read the same paths from another directory
        self.root = Path(root or os.environ.get("ANCHORKIT_STORE") or DEFAULT_ROOT).absolute()
        self.published = Path(published).absolute() if published is not None else None

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
        try:
            stored = json.loads(f.read_text())
        except FileNotFoundError:
            raise StoreError(f"{f}: missing; the run directory has no configuration") from None
        except (OSError, ValueError) as e:
            raise StoreError(f"{f}: unreadable ({e})") from None
        try:  # fields added since the run was written read as their hash-neutral defaults
            same = RunConfig.from_dict(stored) == cfg
        except (TypeError, ValueError, KeyError):
            same = False
        if not same:
            raise StoreError(f"{f}: configuration does not match its hash {cfg.hash}")
        return d

    def has_final(self, cfg: RunConfig) -> bool:
        d = self._final_dir(cfg)
        if not (d / "final.safetensors").exists():
            return False
        self._check_config(cfg, d)
        return True

    def has_initial(self, cfg: RunConfig) -> bool:
        return (self.path(cfg) / "initial.safetensors").exists()

    # ------------------------------------------------------------------ weights
    def _load_weights(self, f: Path) -> dict[str, torch.Tensor]:
        try:
            return load_file(f)
        except Exception as e:  # noqa: BLE001 - report any failure with its path
            raise StoreError(f"{f}: cannot load weights ({e})") from None

    def save_initial(self, cfg: RunConfig, state: dict) -> None:
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        atomic_write(d / "initial.safetensors", lambda p: save_file(_contiguous(state), p))

    def save_final(self, cfg: RunConfig, state: dict, trajectory: pd.DataFrame, meta: dict) -> None:
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        write_table(d / "trajectory.parquet", trajectory)
        write_json(d / "meta.json", meta)
        atomic_write(d / "final.safetensors", lambda p: save_file(_contiguous(state), p))
        (d / "checkpoint.pt").unlink(missing_ok=True)

    def load_final(self, cfg: RunConfig) -> dict[str, torch.Tensor]:
        d = self._check_config(cfg, self._final_dir(cfg))
        return self._load_weights(d / "final.safetensors")

    def load_initial(self, cfg: RunConfig) -> dict[str, torch.Tensor]:
        d = self._check_config(cfg)
        return self._load_weights(d / "initial.safetensors")

    def load_trajectory(self, cfg: RunConfig) -> pd.DataFrame:
        f = self._check_config(cfg, self._final_dir(cfg)) / "trajectory.parquet"
        try:
            return pd.read_parquet(f)
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"{f}: cannot load trajectory ({e})") from None

    def load_meta(self, cfg: RunConfig) -> dict:
        return json.loads((self._check_config(cfg, self._final_dir(cfg)) / "meta.json").read_text())

    def publish(self, cfg: RunConfig, where: str | Path | None = None) -> Path:
        """Copy a finished run's configuration, final weights, trajectory and meta to the
        published directory (``where``, default the store's); returns the run's directory there."""
        where = Path(where) if where is not None else self.published
        if where is None or not self.has_final(cfg):
            raise StoreError(f"{self.path(cfg)}: no finished run {cfg.name} to publish")
        src, dst = self._final_dir(cfg), where / "runs" / cfg.hash
        if src == dst:
            return dst
        for name in PUBLISHED_FILES:
            data = (src / name).read_bytes()
            atomic_write(dst / name, lambda p, data=data: p.write_bytes(data))
        return dst

    # ------------------------------------------------------------------ snapshots
    def save_snapshot(self, cfg: RunConfig, epoch: int, state: dict) -> None:
        """The weights at ``epoch`` of training (``train.SNAPSHOT_EPOCHS``), kept beside the run."""
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        atomic_write(d / "snapshots" / f"epoch-{epoch}.safetensors",
                     lambda p: save_file(_contiguous(state), p))

    def snapshot_epochs(self, cfg: RunConfig) -> list[int]:
        """The epochs whose weights the store keeps for this run (none for a published run)."""
        d = self.path(cfg) / "snapshots"
        return sorted(int(f.stem.split("-")[1]) for f in d.glob("epoch-*.safetensors"))

    def load_snapshot(self, cfg: RunConfig, epoch: int) -> dict[str, torch.Tensor]:
        d = self._check_config(cfg)
        return self._load_weights(d / "snapshots" / f"epoch-{epoch}.safetensors")

    # ------------------------------------------------------------------ cached answers
    def load_predictions(self, key: str) -> dict[str, torch.Tensor] | None:
        """The answers cached under ``key`` (``anchorkit.predictions``), or None when there are none."""
        f = self.root / "predictions" / f"{key}.safetensors"
        if not f.exists():
            return None
        try:
            return load_file(f)
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"{f}: cannot load cached predictions ({e})") from None

    def save_predictions(self, key: str, tensors: dict[str, torch.Tensor]) -> None:
        atomic_write(self.root / "predictions" / f"{key}.safetensors",
                     lambda p: save_file(_contiguous(tensors), p))

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self, cfg: RunConfig, payload: dict) -> None:
        d = self.path(cfg)
        write_json(d / "config.json", cfg.to_dict())
        atomic_write(d / "checkpoint.pt", lambda p: torch.save(payload, p))

    def load_checkpoint(self, cfg: RunConfig) -> dict | None:
        f = self.path(cfg) / "checkpoint.pt"
        if not f.exists():
            return None
        self._check_config(cfg)
        try:
            payload = torch.load(f, weights_only=True)
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"{f}: cannot load checkpoint ({e})") from None
        if payload.get("hash") != cfg.hash:
            raise StoreError(f"{f}: checkpoint belongs to {payload.get('hash')}, not {cfg.hash}")
        return payload


def _contiguous(state: dict) -> dict:
    return {k: v.detach().contiguous().cpu() for k, v in state.items()}
