"""Where a study's tables come from and how they land: the provenance record (commit, date,
profile, seeds, runs, machine and kernels), written with a manifest of the tables' digests; the
tables written as one unit (a fresh directory renamed into place) and read back only once checked
against that manifest.
"""

from __future__ import annotations

import datetime
import importlib.metadata as md
import json
import os
import platform
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import torch

from anchorkit.core import kernels
from anchorkit.core.config import RunConfig
from anchorkit.engine.executor import THREADS
from anchorkit.core.paths import REPORTS, inside, make_folder
from anchorkit.core.store import (REPO, RunStore, StoreError, digest, read_verified, write_json,
                                  write_table)

# tables written as CSV too, for a person to read
CSV_TABLES = ("results", "dose", "e2", "e3", "spikes", "rate", "comparison")
SCRATCH = "reports"  # the scratch tables' folder inside the run store
# the analysis values a reader may change without retraining, recorded in the provenance only
# where they are not the method's (``studies.analysis``)
ANALYSIS_FIELDS = frozenset({"doses"})


def scratch_root(store_root=None):
    """Where a study's tables go when they are not the committed ones (a re-run with other seeds,
    another profile or epoch count): ``reports/`` inside the run store (``.runs/reports/`` by
    default), outside the tracked tree."""
    return RunStore(store_root).root / SCRATCH


def source_state() -> dict:
    """The repository's commit and whether tracked files other than the result tables differ from
    it (taken when a study starts, so that edits made while it runs are not attributed to it)."""
    root = Path(__file__).resolve().parent.parent

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    # the tables a study writes (reports/) are its output, not its source
    return {"commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no", "--", ".",
                              ":(exclude)reports"))}


def machine() -> str:
    """The CPU the tables were computed on (fp32 rounding, hence a retrained run's weights,
    depends on it); ``kernels.record`` gives the rest."""
    return f"{kernels.cpu_model()}, {platform.machine()}"


def run_names(runs: list[RunConfig]) -> dict[str, str]:
    """Name → hash of every run; a name that several runs share (the same seed, recipe and
    optimizer in two regimes) is qualified by the run's hash, so that no run is left out."""
    names = [c.name for c in runs]
    return {(f"{c.name} {c.hash}" if names.count(c.name) > 1 else c.name): c.hash for c in runs}


def provenance(study: str, seeds, profile: str, runs: list[RunConfig], wall_seconds: float,
               source: dict | None = None, regime: str | None = None) -> dict:
    """What produced a study's tables: commit, date, profile, seeds, epochs, hashes, versions."""
    versions = {}
    for pkg in ("anchorkit", "torch", "numpy", "pandas", "pyarrow", "altair", "papermill"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            versions[pkg] = None
    return {
        "study": study,
        **(source if source is not None else source_state()),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "profile": profile,
        "seeds": list(seeds),
        "epochs": runs[0].epochs,
        **({"regime": regime} if regime is not None else {}),
        "runs": run_names(runs),
        "python": platform.python_version(),
        "machine": machine(),
        "kernels": kernels.record(threads=THREADS),  # every task computes with THREADS
        "versions": versions,
        "threads": torch.get_num_threads(),
        "wall_seconds": round(wall_seconds, 1),
    }


class UnpublishedWrite(PermissionError):
    """A write into the committed ``reports/`` that was not asked for (``publish``)."""


def committed(where) -> bool:
    """Whether ``where`` lies in the repository's committed ``reports/``."""
    return inside(where, REPORTS)


def read_provenance(where) -> dict:
    """A table folder's ``provenance.json``, checked against its digest (``provenance.json.sha256``)
    and parsed; ``StoreError`` in one line naming the file when it is missing, changed or not JSON."""
    f = Path(where) / "provenance.json"
    if not f.exists():
        raise StoreError(f"{f}: missing; the folder holds no study's tables")
    data = read_verified(f)
    try:
        prov = json.loads(data)
    except ValueError as e:
        raise StoreError(f"{f}: not valid JSON ({e})") from None
    if not isinstance(prov, dict):
        raise StoreError(f"{f}: not a provenance record (a JSON object)")
    return prov


def check_manifest(where) -> dict:
    """A study directory's provenance, after checking it against its digest and every table
    against its manifest; ``StoreError`` naming the file that is missing, changed or not in the
    manifest."""
    where = Path(where)
    prov = read_provenance(where)
    manifest = prov.get("tables")
    if not isinstance(manifest, dict):
        raise StoreError(f"{where / 'provenance.json'}: lists no manifest of its tables; the "
                         "tables cannot be vouched for (re-run the study without reuse)")
    for name, expected in manifest.items():
        f = where / name
        if not f.exists():
            raise StoreError(f"{f}: in the manifest but missing")
        if digest(f.read_bytes()) != expected:
            raise StoreError(f"{f}: does not match the manifest in provenance.json (another "
                             "execution wrote it, or it was edited): "
                             + ("restore it with `git checkout`" if committed(f) else
                                "delete the directory or run without reuse"))
    extra = sorted(f.name for f in where.glob("*.parquet") if f.name not in manifest)
    if extra:
        raise StoreError(f"{where / extra[0]}: not in the manifest in provenance.json (left by "
                         "another execution)")
    return prov


def read_tables(where) -> dict[str, pd.DataFrame]:
    """Every table a study wrote to ``where`` (``reports/<study>/``), by name, once checked
    against its manifest: the one way a table folder is read."""
    return read_study(where)[1]


def read_study(where) -> tuple[dict, dict[str, pd.DataFrame]]:
    """A table folder's provenance and every table in it, once checked (``check_manifest``)."""
    prov = check_manifest(where)
    return prov, {Path(n).stem: pd.read_parquet(Path(where) / n) for n in sorted(prov["tables"])
                  if n.endswith(".parquet")}


def has_tables(where) -> bool:
    """Whether ``where`` holds a study's tables (a ``provenance.json``; read them with
    ``read_tables``, which checks them)."""
    return (Path(where) / "provenance.json").exists()


def written_for(where, study: str, seeds, profile: str, runs: list[RunConfig],
                analysis: dict | None = None) -> bool:
    """Whether ``where`` holds the tables of exactly this study, seeds, profile and runs, with
    the same ``analysis`` values recorded (none: the method's; checked: a folder whose provenance
    or tables do not verify is an error, never a reason to recompute)."""
    if not has_tables(where):
        return False
    prov = check_manifest(where)
    return (prov.get("study") == study and prov.get("seeds") == list(seeds)
            and prov.get("profile") == profile
            and sorted(prov.get("runs", {}).values()) == sorted(c.hash for c in runs)
            and all(prov.get(k) == v for k, v in (analysis or {}).items())
            and not ANALYSIS_FIELDS.difference(analysis or {}).intersection(prov))


def write_study(where, tables: dict[str, pd.DataFrame], study: str, seeds, profile: str,
                runs, wall_s: float, source: dict, regime: str | None = None,
                publish: bool = False, extra: dict | None = None) -> None:
    """Write a study's tables to ``where`` as one unit: every table (Parquet; CSV beside those in
    ``CSV_TABLES``) and ``provenance.json`` (with ``extra`` fields), whose ``tables`` entry is the
    manifest (the SHA-256 of every file) and which has its own digest beside it, go to a fresh
    sibling directory that then replaces ``where`` by a rename. An interrupted write leaves the
    old study whole (or, between the two renames, none), never tables of two executions side by
    side; what killed writers left beside it is removed first. Into the committed ``reports/``
    only with ``publish`` (``UnpublishedWrite`` otherwise)."""
    where = Path(where)
    if committed(where) and not publish:
        raise UnpublishedWrite(f"{where}: the committed tables are written only on purpose "
                               "(publish=True, or python -m anchorkit compute)")
    make_folder(where.parent)
    clean_stale(where)
    fresh = where.parent / f".{where.name}.{os.getpid()}.new"
    shutil.rmtree(fresh, ignore_errors=True)
    make_folder(fresh)
    for name, df in tables.items():
        write_table(fresh / f"{name}.parquet", df, csv=name in CSV_TABLES, verified=False)
    manifest = {f.name: digest(f.read_bytes()) for f in sorted(fresh.iterdir())}
    write_json(fresh / "provenance.json",
               {**provenance(study, seeds, profile, runs, wall_s, source, regime), **(extra or {}),
                "tables": manifest})
    old = where.parent / f".{where.name}.{os.getpid()}.old"
    if where.exists():
        os.replace(where, old)
    os.replace(fresh, where)
    shutil.rmtree(old, ignore_errors=True)


def clean_stale(where) -> list:
    """Remove the ``.<name>.<pid>.new`` and ``.old`` folders that killed writers of ``where``
    left beside it (those of a live process are left alone); the folders removed."""
    where = Path(where)
    gone = []
    for d in where.parent.glob(f".{where.name}.*"):
        pid, kind = d.name[len(where.name) + 2:].rpartition(".")[::2]
        if kind not in ("new", "old") or not pid.isdigit() or not d.is_dir():
            continue
        try:
            os.kill(int(pid), 0)
            alive = int(pid) != os.getpid()
        except ProcessLookupError:
            alive = False
        except PermissionError:  # another user's live process
            alive = True
        if not alive:
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
    return gone
