import json

import pandas as pd
import pytest
import torch

from anchorkit.core.store import RunStore, StoreError, atomic_write, write_json, write_table
from anchorkit.core.train import train
from tests.conftest import small


def test_finished_run_round_trips_through_the_store(store):
    cfg = small(seed=2, epochs=2)
    run = train([cfg], store, progress=False)[0]
    assert store.has_final(cfg)
    loaded = store.load_final(cfg)
    for k, v in run.final.items():
        assert torch.equal(v, loaded[k])
    assert store.load_trajectory(cfg).equals(run.trajectory)
    init = store.load_initial(cfg)
    assert all(torch.equal(init[k], run.initial[k]) for k in init)
    assert not (store.path(cfg) / "checkpoint.pt").exists()


def test_configuration_not_matching_its_hash_is_reported_with_its_path(store):
    cfg = small(seed=2, epochs=2)
    train([cfg], store, progress=False)
    f = store.path(cfg) / "config.json"
    d = json.loads(f.read_text())
    d["seed"] = 3
    write_json(f, d)  # another run's configuration, with its own digest: read, and refused
    with pytest.raises(StoreError, match=str(f)):
        store.has_final(cfg)
    with pytest.raises(StoreError, match="does not match"):
        train([cfg], store, progress=False)


def test_unreadable_weights_are_reported_not_retrained(store):
    cfg = small(seed=2, epochs=2)
    train([cfg], store, progress=False)
    (store.path(cfg) / "final.safetensors").write_bytes(b"not weights")
    with pytest.raises(StoreError, match="final.safetensors"):
        train([cfg], store, progress=False)


def test_atomic_write_leaves_the_old_file_when_interrupted(tmp_path):
    f = tmp_path / "t.parquet"
    write_table(f, pd.DataFrame({"a": [1, 2]}))

    def fail(p):
        p.write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(f, fail)
    assert pd.read_parquet(f)["a"].tolist() == [1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet", "t.parquet.sha256"]


def test_store_root_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path))
    assert RunStore().root == tmp_path


def test_a_published_run_loads_without_retraining_and_with_its_initial_weights(tmp_path):
    from anchorkit.core.train import initial_state

    cfg = small(seed=4, epochs=2)
    run = train([cfg], RunStore(tmp_path / "a"), progress=False)[0]
    RunStore(tmp_path / "a").publish(cfg, tmp_path / "published")
    assert sorted(p.name for p in (tmp_path / "published" / "runs" / cfg.hash).iterdir()) == [
        f"{n}{s}" for n in ("config.json", "final.safetensors", "meta.json", "trajectory.parquet")
        for s in ("", ".sha256")]
    fresh = RunStore(tmp_path / "b", published=tmp_path / "published")
    assert fresh.has_final(cfg) and not fresh.has_initial(cfg)
    epochs = []
    loaded = train([cfg], fresh, progress=False, on_epoch_end=epochs.append)[0]
    assert epochs == []  # nothing trained
    assert all(torch.equal(loaded.final[k], run.final[k]) for k in run.final)
    assert all(torch.equal(loaded.initial[k], v) for k, v in initial_state(cfg).items())
    assert loaded.trajectory.equals(run.trajectory)
    assert not RunStore(tmp_path / "c", published=None).has_final(cfg)


def test_cached_answers_round_trip_and_a_broken_one_is_named(store):
    from anchorkit.core.store import StoreError

    answers = {"clean": torch.arange(12, dtype=torch.uint8), "e1": torch.ones(4, 12, dtype=torch.uint8)}
    assert store.load_answers("k") is None
    store.save_answers("k", answers)
    got = store.load_answers("k")
    assert got.keys() == answers.keys() and all(torch.equal(got[k], v) for k, v in answers.items())
    f = store.root / "answers" / "k.safetensors"
    f.write_bytes(f.read_bytes()[:20])  # a truncated file
    with pytest.raises(StoreError, match="k.safetensors"):
        store.load_answers("k")


def test_a_taken_lock_names_its_holder_and_a_writer_gives_up_after_its_wait(tmp_path):
    """Issue 67: a stopped lock holder made the next writer wait forever, silently. Now the
    waiter says which lock and whose (pid and host), waits, and gives up after its wait with the
    holder named; a lock freed in time is taken."""
    import os
    import threading
    import time

    from anchorkit.core import lock

    path = tmp_path / "run" / ".lock"
    taken, release = threading.Event(), threading.Event()

    def hold():
        with lock.held(path):
            taken.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    taken.wait(5)
    said = []
    with pytest.raises(lock.LockTimeout, match=f"held by pid {os.getpid()} on .* for more than"):
        with lock.held(path, wait=0.6, say=said.append):
            pass
    assert said and f"waiting for {path}, held by pid {os.getpid()}" in said[0]
    threading.Timer(0.5, release.set).start()
    t0 = time.monotonic()
    with lock.held(path, wait=10, say=said.append):
        assert time.monotonic() - t0 >= 0.4  # it waited for the holder, then took the lock
    t.join()
