"""What a person watches while a study runs: epochs trained, directions swept and pairs measured,
each with its ETA, wherever the tasks run.

A task reports how far it has come in a small file of the run store, ``<store>/progress/``: a
training task after every epoch of its ensemble, a sweep task after every direction, a pair task
when its pair is measured. The file is JSON written atomically (a temporary name, then a rename),
carries no digest and is never read as data: it only moves a bar. A ``Watch`` polls those files
from a thread of the process that waits for the work, so the same bars move whether the tasks run
in that process, on a LocalCluster's workers or on a remote cluster that shares the store, and
whether that process is the notebook's kernel (the papermill route) or the re-run command that
executes the notebook (``anchorkit/commands/rerun_study.py``).

A ``Track`` is what one task will report: its kind, the runs it is about, how many units it will
count and its file. Reporting never fails a task: a file that cannot be written is skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from tqdm.std import tqdm

from anchorkit.core.paths import make_folder

PROGRESS = "progress"  # the folder in the run store
POLL_SECONDS = 0.5
KINDS = {"training": "epoch", "sweep": "direction", "pairs": "pair"}  # kind → its unit


@dataclass(frozen=True)
class Track:
    """What one task reports: ``total`` units of ``kind`` about the runs ``names``, in ``file``."""

    kind: str
    names: tuple[str, ...]
    total: int
    file: Path


def _file(store, kind: str, parts: Iterable[str]) -> Path:
    digest = hashlib.sha256("/".join(parts).encode()).hexdigest()[:24]
    return Path(store.root) / PROGRESS / f"{kind}-{digest}.json"


def training_track(store, configs: Sequence) -> Track:
    """The track of a training task: the epochs of its ensemble (trained together)."""
    return Track("training", tuple(c.name for c in configs), configs[0].epochs,
                 _file(store, "training", (c.hash for c in configs)))


def sweep_track(store, cfg, start: int, stop: int) -> Track:
    """The track of a sweep task: directions ``start:stop`` of a run's sweep."""
    return Track("sweep", (cfg.name,), stop - start,
                 _file(store, "sweep", (cfg.hash, str(start), str(stop))))


def pair_track(store, pair) -> Track:
    """The track of a pair task: one pair measured."""
    return Track("pairs", (pair.anchored.name,), 1,
                 _file(store, "pairs", (pair.anchored.hash, pair.control.hash)))


def report(track: Track, done: int, start: int = 0) -> None:
    """Say that ``done`` of the track's units are done, ``start`` of them before this task began
    (epochs of a resumed run)."""
    tmp = track.file.with_name(f".{track.file.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        make_folder(track.file.parent)
        tmp.write_text(json.dumps({"done": done, "start": start, "total": track.total}))
        os.replace(tmp, track.file)
    except OSError:
        tmp.unlink(missing_ok=True)


class EpochReport:
    """``train``'s ``on_epoch_end`` for a training task: reports each epoch done (the first
    epoch it sees tells where a resumed ensemble started)."""

    def __init__(self, track: Track):
        self.track, self.start = track, None

    def __call__(self, epoch: int) -> None:
        if self.start is None:
            self.start = epoch - 1
        report(self.track, epoch, self.start)


def reported(track: Track) -> dict | None:
    """What the track's file says, or None (not written yet, or unreadable)."""
    try:
        got = json.loads(track.file.read_text())
        return got if isinstance(got, dict) else None
    except (OSError, ValueError):
        return None


def clear(tracks: Iterable[Track]) -> None:
    for t in tracks:
        t.file.unlink(missing_ok=True)


def label(kind: str, names: Sequence[str], groups: int, shown: int = 3) -> str:
    """A bar's description: what it counts, naming the runs (the first ``shown`` of them);
    ``groups``: the tracks it sums (ensembles, pairs)."""
    names = list(dict.fromkeys(names))
    runs = ", ".join(names[:shown]) + (f" +{len(names) - shown} more" if len(names) > shown else "")
    if kind == "training":
        side = f", {groups} ensembles" if groups > 1 else ""
        return f"training {runs}{side}"
    if kind == "sweep":
        return f"sweeping {runs}"
    return f"measuring {groups} pair{'s' * (groups != 1)}"  # a track per pair


class Watch:
    """Bars for every kind of ``tracks`` (one bar per kind: epochs of every ensemble, directions
    of every sweep, pairs), moved by polling the tracks' files from a thread, each with tqdm's ETA.

    Entering clears the tracks' files left by an earlier, interrupted execution; leaving after a
    success fills the bars (a task may finish between two polls), and removes the files. With
    ``enabled`` False nothing is drawn and the files are left at the end, for a watch in another
    process (the re-run command's, around the notebook that executes the tasks).
    """

    def __init__(self, tracks: Iterable[Track], enabled: bool = True, poll: float = POLL_SECONDS,
                 file=None):
        self.tracks = list(tracks)
        self.enabled, self.poll, self.file = enabled, poll, file
        self.bars: dict[str, object] = {}
        self.closed: set[str] = set()  # kinds whose bar is full
        self.seen: dict[Path, tuple[int, int]] = {}  # file → (done, start) last read
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def kinds(self) -> list[str]:
        return [k for k in KINDS if any(t.kind == k for t in self.tracks)]

    def __enter__(self) -> "Watch":
        clear(self.tracks)
        if self.enabled and self.tracks:
            self._thread = threading.Thread(target=self._run, daemon=True, name="progress-watch")
            self._thread.start()
        return self

    def __exit__(self, etype, value, tb) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.update(finished=etype is None)
            for bar in self.bars.values():
                bar.close()
        if not self.enabled:
            return
        clear(self.tracks)
        for folder in {t.file.parent for t in self.tracks}:
            with contextlib.suppress(OSError):
                folder.rmdir()  # when empty

    def _run(self) -> None:
        while not self._stop.wait(self.poll):
            self.update()

    def _bar(self, kind: str):
        if kind not in self.bars:
            mine = [t for t in self.tracks if t.kind == kind]
            names = [n for t in mine for n in t.names]
            self.bars[kind] = tqdm(total=sum(t.total for t in mine), unit=KINDS[kind],
                                   desc=label(kind, names, len(mine)), file=self.file,
                                   mininterval=self.poll, dynamic_ncols=True)
        return self.bars[kind]

    def update(self, finished: bool = False) -> None:
        """Read every track's file and move the bars (with ``finished``, to their ends)."""
        for kind in self.kinds():
            if kind in self.closed:
                continue
            done = total = 0
            for t in (t for t in self.tracks if t.kind == kind):
                got = reported(t)
                if got is not None:
                    self.seen[t.file] = (int(got.get("done", 0)), int(got.get("start", 0)))
                d, s = self.seen.get(t.file, (0, 0))
                if finished:
                    d = t.total
                done, total = done + d - s, total + t.total - s
            trained = "training" not in self.kinds() or "training" in self.closed
            if not (done or trained or finished or kind == "training"):
                continue  # a bar appears when its work begins: training at once, the rest after
            bar = self._bar(kind)
            bar.total = total
            if done > bar.n:
                bar.update(done - bar.n)
            if total and done >= total:  # this kind of work is over: its bar stops (its time kept)
                bar.close()
                self.closed.add(kind)
