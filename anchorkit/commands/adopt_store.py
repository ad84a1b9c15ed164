"""Write the missing digests of a run store written before the store recorded them.

Since the store verifies every file it reads against the SHA-256 written beside it, the files of a
store made by an earlier anchorkit (no ``.sha256`` beside them) are refused. This writes the digest
of every such file as it is now: run it only on a store you trust (one this repository's code
wrote, intact); a file that already has its digest is checked, not rewritten. A run's weights,
trajectory and meta written before their digests named their run get the name of the run whose
folder holds them (its ``config.json`` must hash to the folder's name), so that the store reads
them again and refuses another run's files copied in later.

A table folder (``reports/<study>/``, or the scratch tables in ``<store>/reports/``) written
before ``provenance.json`` carried its own digest is adopted the same way with ``--reports``: its
tables are checked against the manifest in its provenance and the provenance's digest is written
(a folder whose tables do not match is refused, not adopted).

usage: python -m anchorkit adopt [STORE]   (default: $ANCHORKIT_STORE or .runs/)
       python -m anchorkit adopt --reports FOLDER   (every table folder under FOLDER)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from anchorkit.core.config import RunConfig
from anchorkit.core.files import StoreError, digest, digest_line, read_digests, read_verified
from anchorkit.core.store import DIGEST, LOCK, RunStore

RUN_FILES = ("initial.safetensors", "final.safetensors", "trajectory.parquet", "meta.json")


def run_of(f: Path, root: Path) -> str | None:
    """The run a file of a run's folder belongs to (its weights, trajectory, meta), read from its
    folder's ``config.json`` (whose hash must be the folder's name); None for any other file."""
    rel = f.relative_to(root).parts
    own = len(rel) == 3 and rel[2] in RUN_FILES
    snapshot = len(rel) == 4 and rel[2] == "snapshots" and f.suffix == ".safetensors"
    if rel[0] != "runs" or not (own or snapshot):
        return None
    folder = root / "runs" / rel[1]
    cfg = RunConfig.from_dict(json.loads(read_verified(folder / "config.json")))
    if cfg.hash != folder.name:
        raise StoreError(f"{folder / 'config.json'}: configuration does not match its folder's "
                         f"hash {folder.name}; not adopted")
    return cfg.hash


def adopt(root: Path, runs_only: bool = False) -> tuple[int, int]:
    """(digest files written, files already with a matching digest naming their run): a missing
    digest is written, and a run's file whose digest names no run gets its run's name."""
    written = checked = 0
    for f in sorted((root / "runs" if runs_only else root).rglob("*")):
        if (not f.is_file() or f.name.endswith(DIGEST) or f.name.endswith(".tmp")
                or f.name == LOCK):
            continue
        side, run = f.with_name(f.name + DIGEST), run_of(f, root)
        if side.exists():
            read_verified(f)  # a digest that does not match is an error, not adopted
            expected, owners = read_digests(f)
            if run is None or owners:
                read_verified(f, run=run)  # another run's name is an error too
                checked += 1
                continue
        side.write_text(digest_line(digest(f.read_bytes()), run) + "\n")
        written += 1
    return written, checked


def adopt_reports(folder: Path) -> tuple[int, int]:
    """(provenance digests written, table folders already with one), every table checked."""
    from anchorkit.engine.provenance import check_manifest

    written = checked = 0
    for f in sorted(Path(folder).rglob("provenance.json")):
        side = f.with_name(f.name + DIGEST)
        if not side.exists():
            side.write_text(digest(f.read_bytes()) + "\n")
            try:
                check_manifest(f.parent)
            except Exception:
                side.unlink()  # not adopted: its tables do not match the manifest
                raise
            written += 1
        else:
            check_manifest(f.parent)
            checked += 1
    return written, checked


def main(argv=None):
    args = list(argv if argv is not None else sys.argv[1:])
    if args[:1] == ["--reports"]:
        if len(args) != 2 or not Path(args[1]).is_dir():
            raise SystemExit("--reports FOLDER: name one folder of table folders")
        written, checked = adopt_reports(Path(args[1]))
        print(f"{args[1]}: {written} provenance digests written, {checked} table folders checked")
        return
    if len(args) > 1 or any(a.startswith("-") for a in args):
        raise SystemExit(__doc__.strip().splitlines()[-1])
    root = RunStore(args[0] if args else None).root
    if not (root / "runs").is_dir():
        raise SystemExit(f"{root}: not a run store (no runs/ folder in it)")
    written, checked = adopt(root)
    print(f"{root}: {written} digests written, {checked} files checked")


if __name__ == "__main__":
    main()
