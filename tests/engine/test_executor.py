"""The executor: a study's tables do not depend on where its tasks ran, nor on a worker lost
midway; the graph trains only unfinished runs and answers only uncached ones."""

import os
import signal
import threading
import time

import pandas as pd
import pytest

from anchorkit.engine import executor
from anchorkit.core.store import RunStore
from anchorkit.engine.profiles import QUICK
from anchorkit.engine.protocol import run_study
from anchorkit.engine.registry import study, study_pairs, study_runs
from anchorkit.engine.provenance import read_tables

STUDY, SEEDS = "reference-baseline", [3]  # a pair with the direction sweep: every kind of task
KW = dict(profile="quick", epochs=2, progress=False)


def tables_equal(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True, obj=name)


@pytest.fixture(scope="module")
def reference_tables(tmp_path_factory):
    where = tmp_path_factory.mktemp("in-process")
    run_study(STUDY, SEEDS, reports_dir=where / "reports", store=RunStore(where / "store"),
              scheduler=executor.IN_PROCESS, **KW)
    return read_tables(where / "reports" / STUDY)


@pytest.mark.retrain
@pytest.mark.slow
def test_two_workers_write_the_tables_of_the_in_process_run_bitwise(reference_tables, tmp_path):
    with executor.local_cluster(2) as cluster:
        run_study(STUDY, SEEDS, reports_dir=tmp_path / "reports",
                  store=RunStore(tmp_path / "store"), scheduler=cluster.scheduler_address, **KW)
    tables_equal(read_tables(tmp_path / "reports" / STUDY), reference_tables)


@pytest.mark.retrain
@pytest.mark.slow
def test_a_worker_killed_midway_leaves_the_same_tables(reference_tables, tmp_path):
    from distributed import Client

    with executor.local_cluster(2) as cluster, Client(cluster) as client:
        study = threading.Thread(target=run_study, args=(STUDY, SEEDS), kwargs=dict(
            reports_dir=tmp_path / "reports", store=RunStore(tmp_path / "store"),
            scheduler=cluster.scheduler_address, **KW))
        study.start()
        killed = None
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and study.is_alive():
            busy = {w: keys for w, keys in client.processing().items()
                    if any(str(k).startswith("sweep-") for k in keys)}
            if busy:  # a worker is sweeping: kill its process outright
                worker = next(iter(busy))
                pid = client.run(os.getpid, workers=[worker])[worker]
                os.kill(pid, signal.SIGKILL)
                killed = pid
            time.sleep(0.05)
        study.join(timeout=600)
        assert killed is not None, "no worker was caught sweeping"
        assert not study.is_alive()
    tables_equal(read_tables(tmp_path / "reports" / STUDY), reference_tables)


def test_the_graph_trains_only_unfinished_runs_in_ensembles_of_one_optimizer(tmp_path):
    store = RunStore(tmp_path / "store", published=None)
    runs = study_runs("rotated-basis", [1, 2, 3], "quick")
    groups = executor.ensembles(runs, store, size=4)
    assert sorted(c.hash for g in groups for c in g) == sorted(c.hash for c in runs)
    assert all(len(g) <= 4 and len({(c.optimizer, c.shape_key()) for c in g}) == 1
               for g in groups)
    assert len(groups) == 4  # 6 rotated runs, 6 plain: 4 + 2 each


def test_the_graph_of_a_finished_and_answered_study_only_measures(tmp_path):
    store = RunStore(tmp_path / "store", published=None)
    run_study("control", [4], profile="quick", epochs=1, store=store, progress=False,
              scheduler=executor.IN_PROCESS)
    graph = study("control").graph(study_pairs("control", [4], "quick", epochs=1), store)
    assert not graph.trains and list(graph.tasks) == graph.outputs == ["pair-0"]


def test_sweep_slices_concatenate_to_the_whole_sweep(tmp_path):
    import torch

    from anchorkit.measures.measure import edited_predictions
    from anchorkit.measures.answers import sweep_answers, sweep_directions
    from anchorkit.engine.profiles import QUICK
    from anchorkit.engine.registry import run_config
    from anchorkit.core.task import probe_set
    from anchorkit.core.train import initial_state, load_model

    cfg = run_config(3, "control", "adam", QUICK, epochs=1)
    state = initial_state(cfg)
    whole = sweep_answers(cfg, state, 56, 72)  # axes, then rotated axes from index 63
    parts = [sweep_answers(cfg, state, a, b) for a, b in ((56, 63), (63, 64), (64, 72))]
    assert torch.equal(torch.cat(parts), whole)
    model, batch = load_model([cfg], [state]), probe_set(cfg.task).clean
    alone = edited_predictions(model, batch, sweep_directions(cfg)[2][56:72], 1.0, chunk=1)[0]
    assert torch.equal(alone.to(torch.uint8), whole)  # all contexts at once, no slicing


@pytest.mark.cluster
def test_an_unknown_scheduler_address_fails_with_its_address():
    import dask

    from anchorkit.core.config import ParameterError
    from anchorkit.engine.executor import Graph, execute

    g = Graph()
    g.add("x", int, "1")
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        with pytest.raises(ParameterError, match="'scheduler' = 'tcp://127.0.0.1:9': no Dask"):
            execute(g, scheduler="tcp://127.0.0.1:9", progress=False)


def test_each_is_a_task_per_item_in_the_items_order():
    out = executor.each(divmod, [7, 9, 11], 4, scheduler=executor.IN_PROCESS, progress=False)
    assert out == [(1, 3), (2, 1), (2, 3)]
    assert executor.each(divmod, [], 4, scheduler=executor.IN_PROCESS, progress=False) == []


def test_the_essays_tables_through_the_executor_are_its_measures_run_by_run(tmp_path):
    """The essay's tables (``essay.measuring.run_geometry``, a task per stored run) hold, run by
    run, what the essay's measures give on each run's stored weights, every kind of map's rows
    after the heads', in the runs' order."""
    from anchorkit.core.train import load_run
    from anchorkit.measures import geometry
    from anchorkit.studies.essay.measuring import essay_runs, run_geometry
    from anchorkit.engine.request import request

    store = RunStore(tmp_path / "store", published=None)
    run_study("control", [4, 5], profile="quick", epochs=1, store=store, progress=False,
              scheduler=executor.IN_PROCESS)
    runs = essay_runs([4, 5], QUICK, 1, store)
    assert len(runs) == 2
    got = run_geometry(request([4, 5], "quick", 1, store_dir=store, progress=False,
                               scheduler=executor.IN_PROCESS))
    loaded = [load_run(c, store) for c in runs]
    with executor.threads(executor.THREADS):
        heads = pd.concat([geometry.head_table([r]) for r in loaded], ignore_index=True)
        layers = pd.concat([geometry.layer_table([r], kind=k) for k in geometry.MAP_KINDS
                            for r in loaded], ignore_index=True)
    pd.testing.assert_frame_equal(got["heads"], heads, check_exact=True)
    pd.testing.assert_frame_equal(got["layers"], layers, check_exact=True)
