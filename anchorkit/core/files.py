"""Verified files: written atomically with their SHA-256 beside them, read only when it matches.

Beside every file it writes, the run store writes ``<file>.sha256``: the SHA-256 of its bytes
and, for a run's own files (weights, trajectory, meta), the run they belong to (``run=<hash>``).
Every read checks the digest, and a run's file is read only for the run its digest names: a
flipped bit, a truncated copy, a file without its digest or another run's file copied with its
digest is refused with its path (``StoreError``). Files and folders are created readable by the
group and others (whatever the umask), so that the users of a shared store or cluster can read them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow as pa

from anchorkit.core.paths import DIGEST, make_folder, remedy

FILE_MODE = 0o644  # readable by the group and others (mkstemp's default is 0600)
OWNER = "run="  # how a digest line names the run its file belongs to


class StoreError(RuntimeError):
    """A stored file is unreadable or belongs to another configuration."""


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it onto ``path``."""
    path = Path(path)
    make_folder(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest_line(data_digest: str, run: str | None = None) -> str:
    """One line of a digest file: the file's SHA-256 and, for a run's file, the run it is of."""
    return data_digest + (f" {OWNER}{run}" if run else "")


def write_verified(path: Path, write: Callable[[Path], None], run: str | None = None) -> None:
    """Write ``path`` and its digest (``<file>.sha256``, naming ``run`` where given) so that they
    land together: the data goes to a temporary file; the digest file lists the new digest and the
    old file's while the data is renamed into place, then the new one alone. A kill at any point
    leaves a file that verifies."""
    path = Path(path)
    make_folder(path.parent)
    side = path.with_name(path.name + DIGEST)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, FILE_MODE)
        found = digest(Path(tmp).read_bytes())
        current = digest(path.read_bytes()) if path.exists() else None
        if current != found:
            both = [found] + ([current] if current else [])
            atomic_write(side, lambda p: p.write_text(
                "\n".join(digest_line(d, run) for d in both) + "\n"))
            os.replace(tmp, path)
        else:  # the same bytes are there already
            Path(tmp).unlink()
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    atomic_write(side, lambda p: p.write_text(digest_line(found, run) + "\n"))


def read_digests(path: Path) -> tuple[list[str], set[str]]:
    """The digests written beside ``path`` (one, or two while it is being replaced) and the runs
    they name; ``OSError`` when there is no digest file."""
    entries = [line.split() for line in path.with_name(path.name + DIGEST).read_text().splitlines()
               if line.strip()]
    return ([e[0] for e in entries],
            {t[len(OWNER):] for e in entries for t in e[1:] if t.startswith(OWNER)})


def read_verified(path: Path, run: str | None = None) -> bytes:
    """The bytes of ``path`` after checking them against the digest written beside them, and,
    where ``run`` is given, that the digest names that run; ``StoreError`` naming the file (and the
    expected and found digests, or the run it belongs to) otherwise."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise StoreError(f"{path}: unreadable ({e})") from None
    try:
        expected, owners = read_digests(path)
    except OSError:
        raise StoreError(f"{path}: no digest beside it ({path.name}{DIGEST}); the store cannot "
                         f"vouch for it ({remedy(path, digest_missing=True)})") from None
    found = digest(data)
    if found not in expected:
        raise StoreError(f"{path}: contents changed since written (digest expected "
                         f"{expected[0] if expected else 'none'}, found {found}); {remedy(path)}")
    if run is not None and run not in owners:
        whose = (f"it is run {', '.join(sorted(owners))}'s, not run {run}'s (copied from another "
                 f"run?); {remedy(path)}" if owners else
                 f"its digest names no run, so the store cannot tell whose it is (written by an "
                 f"earlier anchorkit: `python -m anchorkit adopt` names the runs of a store "
                 f"you trust)")
        raise StoreError(f"{path}: {whose}")
    return data


def write_json(path: Path, obj, verified: bool = True, run: str | None = None) -> None:
    """JSON, atomically, with its digest beside it (``verified``; not for a study's tables,
    whose manifest is their provenance)."""
    text = json.dumps(obj, indent=2, sort_keys=True) + "\n"
    if verified:
        write_verified(path, lambda p: p.write_text(text), run=run)
    else:
        atomic_write(path, lambda p: p.write_text(text))


def write_table(path: Path, df: pd.DataFrame, csv: bool = False, verified: bool = True,
                run: str | None = None) -> None:
    """A tidy table as Parquet (and a CSV beside it where a person reads it), atomically, with
    its digest beside it (``verified``)."""
    path = Path(path)
    if verified:
        write_verified(path, lambda p: df.to_parquet(p, index=False), run=run)
    else:
        atomic_write(path, lambda p: df.to_parquet(p, index=False))
    if csv:
        atomic_write(path.with_suffix(".csv"), lambda p: df.to_csv(p, index=False))


def read_table_bytes(data: bytes) -> pd.DataFrame:
    """Parquet bytes as a table, via Arrow's own buffer: read from ``io.BytesIO``, Arrow may close
    it at interpreter exit without the GIL and abort the process (apache/arrow#33975, #34314)."""
    return pd.read_parquet(pa.BufferReader(data))
