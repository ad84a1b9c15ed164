"""A run's write lock that says whose it is (``RunStore.writing``): an exclusive ``flock`` on
``<run>/.lock``, whose holder writes its pid and host into the file, so that a second writer that
finds it taken says once which lock it waits on and who holds it, and gives up after ``WAIT``
seconds with a line that names the holder (a holder that is stopped, not gone, keeps its lock:
``flock`` frees only the locks of a process that ended).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

from anchorkit.core.paths import make_folder

WAIT = 3600.0  # seconds a writer waits for a run's lock before it gives up
POLL = 0.5


class LockTimeout(TimeoutError):
    """A run's lock was held by another writer for longer than the wait allowed."""


def _take(fd) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def holder(path: Path) -> str:
    """Who holds (or last held) the lock, as its holder wrote it."""
    try:
        return Path(path).read_text().strip() or "a writer that did not say"
    except OSError:
        return "a writer that did not say"


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@contextlib.contextmanager
def held(path, wait: float = WAIT, say: Callable[[str], None] = _say) -> Iterator[None]:
    """Hold the lock at ``path`` for the block; where another writer holds it, say so once and
    wait up to ``wait`` seconds (``LockTimeout`` naming the holder after that)."""
    path = Path(path)
    make_folder(path.parent)
    with open(path, "a+") as fd:
        if not _take(fd):
            say(f"waiting for {path}, held by {holder(path)} (giving up after {wait:g} s)")
            deadline = time.monotonic() + wait
            while not _take(fd):
                if time.monotonic() > deadline:
                    raise LockTimeout(f"{path}: held by {holder(path)} for more than {wait:g} s; "
                                      f"if that process is stopped or hung, end it and run again")
                time.sleep(POLL)
        try:
            fd.seek(0)
            fd.truncate()
            fd.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
            fd.flush()
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
