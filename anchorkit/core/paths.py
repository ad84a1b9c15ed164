"""Where a path really is, however a user spells it: the one test that the writers of tables, the
run store and the re-run command share before they write.

A folder can be named with ``..`` (``../reports`` from ``notebooks/``), through a link, or, on a
file system that folds case, in another case. ``inside`` and ``same`` compare the folders the file
system means, not the strings; ``check_outside_tracked`` refuses a folder for a store or an
output inside the repository's tracked tree (one that git would show as untracked files), and
allows the folders git ignores (``.runs/``, ``_build/``, ``logs/``); ``check_writable``, that a
folder can be written before any work starts. ``remedy`` says what a reader can do about a file
there that does not verify.
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from pathlib import Path

from anchorkit.core.config import ParameterError

REPO = Path(__file__).resolve().parents[2]  # anchorkit/core/paths.py
REPORTS = REPO / "reports"  # the committed tables
PUBLISHED = REPO / "published"  # the committed weights
DIGEST = ".sha256"  # the suffix of the digest written beside every file of the store


def resolved(path) -> Path:
    """``path`` as the file system sees it: absolute, with ``~``, ``..`` and links resolved (a
    path that does not exist yet keeps its missing part as written)."""
    return Path(path).expanduser().resolve()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def same(path, folder) -> bool:
    """Whether ``path`` and ``folder`` name one folder (resolved, or the same file on disk)."""
    p, f = resolved(path), resolved(folder)
    return p == f or (p.exists() and f.exists() and _same_file(p, f))


def inside(path, folder) -> bool:
    """Whether ``path`` is ``folder`` or lies in it: compared resolved, and, where the file system
    folds case or a folder is reached twice, by the nearest existing ancestor being ``folder``
    itself on disk."""
    p, f = resolved(path), resolved(folder)
    if p.is_relative_to(f):
        return True
    if not f.exists():
        return False
    return any(_same_file(a, f) for a in (p, *p.parents) if a.exists())


def in_repository(path) -> Path | None:
    """``path`` relative to the repository when it lies in it (however spelled), else None."""
    p = resolved(path)
    if p.is_relative_to(REPO):
        return p.relative_to(REPO)
    for a in (p, *p.parents):
        if a.exists() and _same_file(a, REPO):
            return p.relative_to(a)
    return None


@functools.lru_cache(maxsize=256)
def _ignored(relative: str) -> bool | None:
    """Whether git ignores a path of the repository (None when git cannot say: no git, or no
    repository, as in an unpacked archive)."""
    try:
        r = subprocess.run(["git", "check-ignore", "-q", relative], cwd=REPO,
                           capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return {0: True, 1: False}.get(r.returncode)


def tracked_tree(path) -> Path | None:
    """Where ``path`` lies in the repository's tracked tree (relative), or None: outside the
    repository, or in a folder git ignores. Without git, only ``.runs/`` counts as ignored."""
    rel = in_repository(path)
    if rel is None:
        return None
    ignored = _ignored(str(rel / ".anchorkit-probe"))  # a child: dir-only patterns match it
    if ignored is None:
        ignored = rel.parts[:1] == (".runs",)
    return None if ignored else rel


def check_outside_tracked(name: str, path) -> Path:
    """``path`` resolved, or a ``ParameterError`` naming the parameter when it lies in the
    repository's tracked tree (its files would show as untracked, or overwrite committed ones)."""
    rel = tracked_tree(path)
    if rel is not None:
        raise ParameterError(name, str(path), f"inside the repository's tracked tree ({rel}/); "
                             "name a folder outside the repository (or leave it out)")
    return resolved(path)


DIR_MODE = 0o755  # folders readable by the group and others, whatever the umask (077: 0700)


def make_folder(folder: Path) -> Path:
    """``folder`` and its missing parents, each made readable by the group and others."""
    folder = Path(folder)
    missing = [d for d in (folder, *folder.parents) if not d.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    for d in missing:
        os.chmod(d, DIR_MODE)
    return folder


def check_writable(name: str, folder) -> Path:
    """``folder`` (made if missing) once a file can be created in it; else a ``ParameterError``
    naming the parameter, before any work starts."""
    folder = resolved(folder)
    try:
        make_folder(folder)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".writable-"):
            pass
    except OSError as e:
        raise ParameterError(name, str(folder), f"expected a folder this process can write "
                             f"({e.strerror or e})") from None
    return folder


def remedy(path: Path, digest_missing: bool = False) -> str:
    """What a reader can do about a file that does not verify: a committed file (published
    weights, a committed table) is restored from git (its digest, when that is what is missing);
    a store file is deleted and recomputed."""
    path = resolved(path)
    rel = in_repository(path)
    if rel is not None and (inside(path, PUBLISHED) or inside(path, REPORTS)):
        name = rel.with_name(rel.name + DIGEST) if digest_missing else rel
        restore = f"it is committed: restore it with `git checkout -- {name}`"
        if inside(path, PUBLISHED):
            return restore + " (deleting a published run's file means retraining the run)"
        return restore + (" (a committed table is recomputed only on purpose: `python -m "
                          "anchorkit compute <study>`)")
    if path.name == "provenance.json":
        return "delete its folder to recompute the tables (or run the study without reuse)"
    if path.name.startswith("checkpoint.pt"):
        return "delete it to resume from the start (the run retrains from epoch 0)"
    if path.parent.name == "answers":
        return "delete it to recompute the answers (a sweep of the run's directions)"
    return "delete the run's directory to retrain it"
