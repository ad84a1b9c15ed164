"""Executing a study's work on Dask distributed, on one machine or a cluster.

A study's work is a graph of tasks: train each ensemble of unfinished runs, compute each run's
query answers (``anchorkit.measures.answers``; a sweep in slices of directions), then measure each pair
once the answers of its two runs exist. The run store is the single source of truth: a task reads
its inputs from it and writes its outputs to it atomically, so a task whose run is finished is a
load, a task lost with its worker is run again (a training task resumes from its run's last
checkpoint), and the tables are the same wherever the tasks ran.

Where the tasks run (``scheduler``, else ``$ANCHORKIT_SCHEDULER``):

- unset: a ``LocalCluster`` on this machine, one single-thread worker process per core, created
  for the study and closed after it, listening on 127.0.0.1 over TLS with temporary credentials
  that only this process holds (no other account of the machine can connect and run code);
- ``tcp://host:8786``: an existing Dask cluster (``dask scheduler`` and ``dask worker`` processes,
  or ``dask-jobqueue`` on Slurm/PBS) whose workers import the same anchorkit and see the store
  at the same path; on a shared machine give it TLS (``tls://``) and credentials of its own,
  which the client reads from Dask's configuration (``distributed.comm.tls.*``);
- ``in-process``: no Dask; the same tasks one after another in this process.

Every task runs with ``THREADS`` torch threads wherever it runs, so that a table does not depend
on where it was computed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator

import torch
from tqdm.std import tqdm

from anchorkit.core import progress as tracking
from anchorkit.core.config import ParameterError, RunConfig
from anchorkit.core.store import RunStore
from anchorkit.core.train import train

SCHEDULER_ENV = "ANCHORKIT_SCHEDULER"
# where the local cluster's dashboard listens: this machine only, unless this variable names
# another address (e.g. 0.0.0.0:8787 to reach it from other machines)
DASHBOARD_ENV = "ANCHORKIT_DASHBOARD"
IN_PROCESS = "in-process"
THREADS = 1  # torch threads of every task (fp32 rounding of a GEMM may depend on it)
ENSEMBLE_RUNS = 4  # runs per training task (on a CPU an ensemble is no faster per run)


@contextlib.contextmanager
def threads(n: int):
    """Run the block with ``n`` torch threads (restored after)."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------------- tasks (pure, store-backed)
def train_task(configs: list[RunConfig], store, device: str = "cpu", snapshots=()) -> list[str]:
    """Train (or resume, or load) one ensemble into the store, keeping the weights at the epochs
    ``snapshots`` too; its runs' hashes."""
    with threads(THREADS):
        train(configs, store, device=device, progress=False, snapshots=snapshots,
              on_epoch_end=tracking.EpochReport(tracking.training_track(store, configs)))
    return [c.hash for c in configs]


# ---------------------------------------------------------------------- the graph
@dataclass(frozen=True)
class Ref:
    """An argument that stands for the result of another task of the graph (by its key)."""

    key: str


@dataclass
class Graph:
    """The tasks of a study, as (function, arguments) by key; an argument that is a ``Ref``
    stands for that task's result (and orders the tasks). Training tasks count the runs they
    train; the output tasks (a study's pairs, the scout's measurements) are what ``execute``
    returns, in order. ``tracks``: what a task reports of its progress (``anchorkit.core.progress``),
    by key."""

    tasks: dict[str, tuple[Callable, tuple]] = field(default_factory=dict)
    trains: dict[str, int] = field(default_factory=dict)  # training task → runs it trains
    outputs: list[str] = field(default_factory=list)  # tasks whose results come back, in order
    tracks: dict[str, tracking.Track] = field(default_factory=dict)  # task → its progress

    def add(self, key: str, fn: Callable, *args) -> Ref:
        if key in self.tasks:
            raise ValueError(f"task {key!r} is in the graph already")
        self.tasks[key] = (fn, args)
        return Ref(key)

    def output(self, key: str, fn: Callable, *args) -> Ref:
        """A task whose result ``execute`` returns."""
        ref = self.add(key, fn, *args)
        self.outputs.append(key)
        return ref


def ensembles(runs: list[RunConfig], store, size: int = ENSEMBLE_RUNS) -> list[list[RunConfig]]:
    """The unfinished runs, grouped into ensembles of at most ``size`` runs that share a shape,
    an optimizer and the epoch they resume from (their last checkpoint's, or 0), in the order
    given: one task trains one ensemble from one epoch, so that its plan and its bar count the
    epochs it trains (runs resumed from different epochs would train one after the other)."""
    groups: dict[tuple, list[RunConfig]] = {}
    for c in runs:
        if not store.has_final(c):
            ckpt = store.load_checkpoint(c)
            start = ckpt["epoch"] if ckpt else 0
            groups.setdefault((c.shape_key(), c.optimizer, start), []).append(c)
    return [g[i:i + size] for g in groups.values() for i in range(0, len(g), size)]


def add_training(g: Graph, runs: list[RunConfig], store, device: str = "cpu", snapshots=(),
                 size: int = ENSEMBLE_RUNS) -> dict[str, Ref]:
    """Add a training task per ensemble of the unfinished runs (keeping their weights at the
    epochs ``snapshots``); returns, by run hash, the task that trains each."""
    trained_by: dict[str, Ref] = {}
    for i, group in enumerate(ensembles(runs, store, size)):
        ref = g.add(f"train-{i}", train_task, group, store, device, tuple(snapshots))
        g.trains[ref.key] = len(group)
        g.tracks[ref.key] = tracking.training_track(store, group)
        trained_by.update({c.hash: ref for c in group})
    return trained_by


def training_graph(runs: list[RunConfig], store, size: int = ENSEMBLE_RUNS,
                   device: str = "cpu", snapshots=()) -> Graph:
    """Train the unfinished runs only (keeping their weights at the epochs ``snapshots``)."""
    g = Graph()
    add_training(g, runs, store, device, snapshots, size)
    return g


# ---------------------------------------------------------------------- running a graph
@contextlib.contextmanager
def local_cluster(n_workers: int | None = None) -> Iterator:
    """A LocalCluster of ``n_workers`` (default: one per core) single-thread worker processes,
    listening on this machine only (the dashboard too, unless ``$ANCHORKIT_DASHBOARD`` names
    another address), its workers' scratch space inside the run store."""
    import dask  # Dask loads only where a cluster is started (its import costs about a second)
    from distributed import LocalCluster

    logging.getLogger("distributed").setLevel(logging.WARNING)
    # Dask's workers trim freed memory back to the OS at 64 KiB (MALLOC_TRIM_THRESHOLD_), so every
    # step's activations are page-faulted in again: several times slower training. Not here.
    environ = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ").items()
               if k != "MALLOC_TRIM_THRESHOLD_"}
    # security=True: TLS with temporary credentials made for this cluster and held in this
    # process only, so that no other account of the machine can connect to it and run code
    with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}), LocalCluster(
            n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
            host="127.0.0.1", dashboard_address=os.environ.get(DASHBOARD_ENV) or "127.0.0.1:0",
            local_directory=str(RunStore().root / "dask-scratch-space"),
            security=True) as cluster:
        _CREDENTIALS[cluster.scheduler_address] = cluster.security
        try:
            yield cluster
        finally:
            _CREDENTIALS.pop(cluster.scheduler_address, None)


# the credentials of the local clusters this process started, by scheduler address: a client of
# this process connects to them by address (``connect``); nothing outside this process has them
_CREDENTIALS: dict[str, object] = {}


CONNECT_SECONDS = 10  # how long to wait for a named scheduler before saying it is not there


def check_scheduler(scheduler: str | None) -> str | None:
    """None (a LocalCluster), ``in-process``, or a scheduler's address (``tcp://host:port``, or
    another Dask protocol); a near miss of ``in-process`` is named with a hint."""
    if scheduler is None or scheduler == IN_PROCESS:
        return scheduler
    if not isinstance(scheduler, str) or not re.fullmatch(r"(tcp|tls|inproc|ucx|ws|wss)://\S+",
                                                          scheduler):
        hint = (f"; did you mean {IN_PROCESS!r}?" if isinstance(scheduler, str) and
                scheduler.replace("_", "").replace("-", "").lower() == "inprocess" else "")
        raise ParameterError("scheduler", scheduler, f"expected {IN_PROCESS!r} or a scheduler "
                             f"address such as 'tcp://host:8786'{hint}")
    return scheduler


@contextlib.contextmanager
def connect(scheduler: str | None = None) -> Iterator:
    """A Dask client for ``scheduler`` (see the module's docstring), or None in-process. A
    LocalCluster made here is closed on leaving."""
    if not scheduler:  # the parameter was checked where it was read (``request``); this is read here
        scheduler = check_scheduler(os.environ.get(SCHEDULER_ENV) or None)
    if scheduler == IN_PROCESS:
        yield None
        return
    from distributed import Client  # only for a cluster (see local_cluster)

    if scheduler:
        try:
            # a local cluster of this process: its credentials; any other: Dask's configured
            # security (``distributed.comm.tls.*``, none unless set)
            client = Client(scheduler, timeout=CONNECT_SECONDS,
                            security=_CREDENTIALS.get(scheduler))
        except (OSError, TimeoutError) as e:
            raise ParameterError("scheduler", scheduler, f"no Dask scheduler answered there "
                                 f"within {CONNECT_SECONDS} s ({type(e).__name__})") from None
        with client:
            yield client
    else:
        with local_cluster() as cluster, Client(cluster) as client:
            yield client


def describe(client) -> str:
    """One line: where the tasks run and the dashboard's address."""
    if client is None:
        return "executing in-process"
    n = len(client.scheduler_info().get("workers", {}))
    link = getattr(client, "dashboard_link", None)
    return (f"executing on Dask: {client.scheduler.address}, {n} worker{'s' * (n != 1)}"
            + (f"; dashboard {link}" if link else ""))


def execute(graph: Graph, scheduler: str | None = None, progress: bool = True,
            desc: str = "study", measured: str = "pairs") -> dict[str, object]:
    """Run every task of ``graph`` (in-process, or on Dask) and return the results of its output
    tasks by key. The tasks' tracks move a bar per kind of work (``anchorkit.core.progress``: epochs,
    directions, pairs); a bar counts the output tasks without a track (``measured`` finished)."""
    if not graph.tasks:
        return {}
    untracked = [k for k in graph.outputs if k not in graph.tracks]
    bar = None

    def tick(key: str):
        nonlocal bar
        if key in untracked:
            if bar is None:  # drawn once the first one is done, not beside the training bars
                bar = tqdm(total=len(untracked), desc=f"{desc}: {measured} measured",
                           disable=not progress)
            bar.update()

    try:
        with connect(scheduler) as client, tracking.Watch(graph.tracks.values(), progress):
            if progress:
                tqdm.write(describe(client))
            if client is None:
                results: dict[str, object] = {}
                for key, (fn, args) in graph.tasks.items():
                    results[key] = fn(*(results[a.key] if isinstance(a, Ref) else a for a in args))
                    tick(key)
                return {k: results[k] for k in graph.outputs}
            return _on_dask(client, graph, tick)
    finally:
        if bar is not None:
            bar.close()


def each(fn: Callable, items, *shared, scheduler: str | None = None, progress: bool = True,
         desc: str = "work", measured: str = "runs") -> list:
    """``fn(item, *shared)`` for every item, one output task each, through ``execute`` (in-process
    or on Dask, as ``scheduler`` says): the results in the items' order. For work that is a task
    per run and no training (the essay's measurements, the diagnosis's parts)."""
    g = Graph()
    for i, item in enumerate(items):
        g.output(f"{desc}-{i}", fn, item, *shared)
    return list(execute(g, scheduler, progress, desc=desc, measured=measured).values())


def _on_dask(client, graph: Graph, tick) -> dict[str, object]:
    from distributed import as_completed  # only for a cluster (see local_cluster)

    futures = {}
    for key, (fn, args) in graph.tasks.items():
        args = tuple(futures[a.key] if isinstance(a, Ref) else a for a in args)
        # pure=False: a task is named by its key in this graph, not by hashing its arguments
        futures[key] = client.submit(fn, *args, key=f"{key}-{os.getpid()}-{id(graph)}",
                                     pure=False)
    watched = [futures[k] for k in graph.tasks if k in graph.trains or k in graph.outputs]
    name = {f.key: k for k, f in futures.items()}
    for f in as_completed(watched):
        f.result()  # raise a task's error here
        tick(name[f.key])
    return {k: futures[k].result() for k in graph.outputs}


def resumable(main):
    """Run a command's ``main``; Ctrl-C says in one line that the finished runs are kept and the
    same command resumes, and exits with status 130 (no traceback)."""
    import sys

    try:
        return main()
    except KeyboardInterrupt:
        print("\ninterrupted: every finished run is in the store and an unfinished one at its "
              "last checkpoint; the same command resumes", file=sys.stderr)
        raise SystemExit(130)
