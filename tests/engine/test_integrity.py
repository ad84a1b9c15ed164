"""Nothing lost, nothing mixed: the store refuses what it cannot vouch for, cached answers follow
the weights, and a study's tables land as one unit."""

import json

import pandas as pd
import pytest
import torch

from anchorkit.core.store import DIGEST, RunStore, StoreError
from anchorkit.core.train import train
from tests.conftest import small


def flip_a_bit(f, at: int = -9):
    data = bytearray(f.read_bytes())
    data[at] ^= 0x01
    f.write_bytes(bytes(data))


@pytest.fixture
def finished(store, monkeypatch):
    import anchorkit.core.train as tr

    monkeypatch.setattr(tr, "SNAPSHOT_EPOCHS", (0, 1))
    cfg = small(seed=3, epochs=2)
    train([cfg], store, progress=False)
    return cfg


@pytest.mark.parametrize("name", ["final.safetensors", "initial.safetensors",
                                  "snapshots/epoch-1.safetensors", "trajectory.parquet",
                                  "meta.json", "config.json"])
def test_a_flipped_bit_in_any_file_of_a_run_is_refused_naming_the_file(store, finished, name):
    f = store.path(finished) / name
    flip_a_bit(f)
    load = {"final.safetensors": store.load_final, "initial.safetensors": store.load_initial,
            "snapshots/epoch-1.safetensors": lambda c: store.load_snapshot(c, 1),
            "trajectory.parquet": store.load_trajectory, "meta.json": store.load_meta,
            "config.json": store.load_final}[name]
    with pytest.raises(StoreError, match=rf"{f.name}: .*expected [0-9a-f]+, found [0-9a-f]+"):
        load(finished)


def test_a_flipped_bit_in_a_checkpoint_is_refused_not_resumed(store):
    cfg = small(seed=4, epochs=4)

    def stop(epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train([cfg], store, progress=False, on_epoch_end=stop)
    flip_a_bit(store.path(cfg) / "checkpoint.pt", at=len((store.path(cfg) / "checkpoint.pt")
                                                        .read_bytes()) // 2)
    with pytest.raises(StoreError, match="checkpoint.pt: contents changed"):
        train([cfg], store, progress=False)


def test_a_flipped_bit_in_cached_answers_is_refused(store):
    answers = {"clean": torch.arange(12, dtype=torch.uint8)}
    store.save_answers("k", answers)
    flip_a_bit(store.root / "answers" / "k.safetensors")
    with pytest.raises(StoreError, match="k.safetensors: contents changed"):
        store.load_answers("k")


def test_a_file_without_its_digest_is_refused(store, finished):
    (store.path(finished) / ("final.safetensors" + DIGEST)).unlink()
    with pytest.raises(StoreError, match="no digest beside it"):
        store.load_final(finished)


@pytest.mark.parametrize("name", ["final.safetensors", "snapshots/epoch-1.safetensors",
                                  "trajectory.parquet", "meta.json"])
@pytest.mark.parametrize("where", ["store", "published"])
def test_another_runs_file_copied_with_its_digest_is_refused_by_name(tmp_path, finished, name,
                                                                    where, store):
    """Seed 3's file and its (valid) digest copied into seed 5's folder, in the store or in the
    published directory: the digest proves the file whole, and its run's name proves it is not
    seed 5's, so the store refuses it naming both runs instead of computing seed 5's row from it."""
    other = finished.replace(seed=5)
    train([other], store, progress=False)
    if where == "published":
        for cfg in (finished, other):
            store.publish(cfg, where=tmp_path / "pub", snapshots=(1,))
        store = RunStore(tmp_path / "empty", published=tmp_path / "pub")
    src, dst = (store._final_dir(c) if where == "published" else store.path(c)
                for c in (finished, other))
    for f in (name, name + DIGEST):
        (dst / f).write_bytes((src / f).read_bytes())
    load = {"final.safetensors": store.load_final, "trajectory.parquet": store.load_trajectory,
            "snapshots/epoch-1.safetensors": lambda c: store.load_snapshot(c, 1),
            "meta.json": store.load_meta}[name]
    with pytest.raises(StoreError, match=rf"{dst.name}/{name}: it is run {finished.hash}'s, "
                                         rf"not run {other.hash}'s"):
        load(other)
    assert load(finished) is not None  # the original still reads


def test_a_digest_naming_no_run_is_refused_until_adopted(store, finished):
    """A store written before digests named their run: its run files are refused with the command
    that adopts them, and read once adopted (the name taken from the folder's configuration)."""
    from anchorkit.commands.adopt_store import adopt

    final = store.path(finished) / "final.safetensors"
    side = final.with_name(final.name + DIGEST)
    side.write_text(side.read_text().split()[0] + "\n")  # as an earlier anchorkit wrote it
    with pytest.raises(StoreError, match="names no run.*python -m anchorkit adopt"):
        store.load_final(finished)
    written, _ = adopt(store.root)
    assert written == 1 and side.read_text().split()[1] == f"run={finished.hash}"
    assert store.load_final(finished)
    assert adopt(store.root)[0] == 0  # nothing left to name


def test_new_weights_under_an_old_configuration_get_new_answers(store, finished):
    from anchorkit.measures.answers import cached_answers

    state = store.load_final(finished)
    first = cached_answers(finished, state, ("base",), store)
    other = {k: v.clone() for k, v in state.items()}
    other["W_U"] = -other["W_U"]  # other weights, same configuration (as if retrained elsewhere)
    second = cached_answers(finished, other, ("base",), store)
    assert not torch.equal(first["clean"], second["clean"])
    again = cached_answers(finished, state, ("base",), store)
    assert torch.equal(again["clean"], first["clean"])
    assert len(list((store.root / "answers").glob("*.safetensors"))) == 2


def test_store_files_are_readable_by_the_group(store, finished):
    for f in store.path(finished).rglob("*"):
        if f.is_file():
            assert f.stat().st_mode & 0o044 == 0o044, f


def test_under_umask_077_the_store_s_folders_and_files_stay_readable_by_the_group(tmp_path):
    """A user whose umask is 077 would make every folder 0700, and the group could not reach the
    files inside; the store makes its folders 0755 and its files 0644 whatever the umask."""
    import os

    old = os.umask(0o077)
    try:
        store = RunStore(tmp_path / "shared" / "store")
        train([small(seed=8, epochs=1)], store, progress=False)
    finally:
        os.umask(old)
    found = [f for f in (tmp_path / "shared").rglob("*") if f.name != ".lock"]
    assert any(f.is_dir() for f in found) and any(f.is_file() for f in found)
    for f in [tmp_path / "shared", *found]:
        want = 0o055 if f.is_dir() else 0o044
        assert f.stat().st_mode & want == want, (f, oct(f.stat().st_mode))


def test_an_interrupted_study_write_leaves_the_old_study_whole(tmp_path, monkeypatch):
    """Killed between two table writes, a study directory still holds the old execution whole,
    and reuse reads it; tables edited or left behind are refused by name."""
    import anchorkit.engine.provenance as provenance  # where the study's tables are written from
    import anchorkit.engine.protocol as protocol

    kw = dict(profile="quick", epochs=1, reports_dir=tmp_path / "reports",
              store=RunStore(tmp_path / "store"), progress=False)
    first = protocol.run_study("control", [6], **kw)
    where = tmp_path / "reports" / "control"
    real, writes = provenance.write_table, []

    def dies_on_the_third(path, df, **k):
        writes.append(path)
        if len(writes) == 3:
            raise KeyboardInterrupt
        return real(path, df, **k)

    monkeypatch.setattr(provenance, "write_table", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        protocol.run_study("control", [6, 7], **kw)
    monkeypatch.setattr(provenance, "write_table", real)
    prov = json.loads((where / "provenance.json").read_text())
    assert prov["seeds"] == [6]
    again = protocol.run_study("control", [6], reuse=True, **kw)
    pd.testing.assert_frame_equal(again["results"], first["results"])
    # a table that does not match the manifest is refused, named
    flip_a_bit(where / "dose.parquet", at=-20)
    with pytest.raises(StoreError, match="dose.parquet: does not match the manifest"):
        protocol.run_study("control", [6], reuse=True, **kw)


def test_a_store_from_before_digests_is_adopted_once_and_a_changed_file_is_not(store, finished):
    from anchorkit.commands.adopt_store import adopt

    final = store.path(finished) / "final.safetensors"
    final.with_name(final.name + DIGEST).unlink()  # as an earlier anchorkit left it
    written, checked = adopt(store.root)
    assert written == 1 and checked > 0
    assert store.load_final(finished)
    flip_a_bit(final)
    with pytest.raises(StoreError, match="contents changed"):
        adopt(store.root)
