import pytest
import torch

from anchorkit import RunConfig, TaskConfig, TrainConfig

torch.set_num_threads(2)

# A short training profile for tests: the real model and task, a small data stream.
SMALL_TRAIN = TrainConfig(contexts_per_epoch=64, batch_size=32, warmup_steps=4,
                          trajectory_every=2, checkpoint_every=2)


SMALL_TASK = TaskConfig(probe_per_op=64)


def small(seed: int = 1, recipe: str = "control", optimizer: str = "adam", epochs: int = 4,
          **kw) -> RunConfig:
    return RunConfig(seed=seed, recipe=recipe, optimizer=optimizer, epochs=epochs,
                     train=kw.pop("train", SMALL_TRAIN), task=kw.pop("task", SMALL_TASK), **kw)


def pytest_collection_modifyitems(items):
    """A test that uses the built book (the ``html`` fixture) or Chromium (``browser``) is marked
    so by what it does: `make test` leaves those out, `make test-all` runs them."""
    for item in items:
        used = getattr(item, "fixturenames", ())
        for fixture, mark in (("html", "book"), ("browser", "browser")):
            if fixture in used:
                item.add_marker(getattr(pytest.mark, mark))


@pytest.fixture(autouse=True)
def in_process(monkeypatch):
    """Studies execute in-process in tests (what a test patches must be where the tasks run);
    tests/engine/test_executor.py runs them on LocalClusters explicitly."""
    monkeypatch.setenv("ANCHORKIT_SCHEDULER", "in-process")


@pytest.fixture
def store(tmp_path):
    from anchorkit.core.store import RunStore

    return RunStore(tmp_path / "store")
