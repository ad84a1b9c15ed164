"""The committed record's guard holds for every path a user can type (issue 48): ``..``, links and
folded case resolve to the folder they mean (anchorkit.core.paths), and the writers, the store and the
re-run command refuse the committed reports/ and the repository's tracked tree in one line."""

import json
import subprocess
import sys

import pytest

from anchorkit.core import paths
from anchorkit.core.config import ParameterError
from anchorkit.core.paths import REPO, REPORTS
from anchorkit.engine.provenance import committed
from anchorkit.core.store import RunStore, StoreError, read_verified, remedy
from anchorkit.core.train import train
from tests.conftest import SMALL_TRAIN


def git_status(*where) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", *where],
                          cwd=REPO, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def link_to_reports(tmp_path):
    link = tmp_path / "my-reports"
    link.symlink_to(REPORTS, target_is_directory=True)
    return link


def test_dot_dot_and_links_resolve_to_the_folder_they_mean(monkeypatch, link_to_reports):
    monkeypatch.chdir(REPO / "notebooks")
    for spelling in ("../reports", "../reports/control", "../notebooks/../reports/control",
                     link_to_reports, link_to_reports / "control"):
        assert committed(spelling), spelling
        assert paths.inside(spelling, REPORTS)
    assert paths.same("../reports", REPORTS) and paths.same(link_to_reports, REPORTS)
    assert not committed("../reports-copy") and not committed("../.runs/reports")
    assert not paths.inside("/tmp", REPORTS)


def test_a_folder_reached_twice_counts_as_itself_on_disk(tmp_path, monkeypatch):
    """Where a file system folds case (``Reports`` for ``reports``) or a folder is mounted twice,
    resolving the string does not give the same path, but the folder on disk is the same: the
    nearest existing ancestor is compared by identity. Simulated here by a resolve that leaves a
    second name as it is."""
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    twice = tmp_path / "twice"
    twice.symlink_to(real)
    monkeypatch.setattr(paths, "resolved", lambda p: paths.Path(p).absolute())
    assert not paths.resolved(twice / "sub").is_relative_to(real)  # the strings differ
    assert paths.inside(twice / "sub" / "new", real) and paths.same(twice, real)
    assert not paths.inside(tmp_path, real)


def test_the_tracked_tree_is_told_from_what_git_ignores(tmp_path):
    assert paths.tracked_tree(REPO / "notebooks" / "out") == paths.Path("notebooks/out")
    assert paths.tracked_tree(REPO / "c") == paths.Path("c")
    assert paths.tracked_tree(REPO / ".runs" / "mine") is None  # git ignores .runs/
    assert paths.tracked_tree(REPO / "_build" / "x") is None
    assert paths.tracked_tree(tmp_path) is None  # outside the repository


def test_a_page_refuses_reports_dir_as_dot_dot_reports_from_notebooks(monkeypatch, tmp_path):
    from anchorkit.pages.page import study_page
    from anchorkit.engine.request import request

    monkeypatch.chdir(REPO / "notebooks")
    before = git_status("reports")
    for spelling in ("../reports", "../reports/"):
        with pytest.raises(ParameterError, match="'reports_dir'.*names the committed"):
            study_page("control", request([1], "quick", reports_dir=spelling,
                                          store_dir=tmp_path / "s", scheduler="in-process",
                                          progress=False))
    with pytest.raises(ParameterError, match="'reports_dir'.*inside the committed"):
        study_page("control", request([1], "quick", reports_dir="../reports/control",
                                      store_dir=tmp_path / "s", scheduler="in-process",
                                      progress=False))
    assert not (tmp_path / "s" / "runs").exists()  # refused before any training
    assert git_status("reports") == before


def test_a_page_refuses_a_link_to_reports_and_a_folder_in_the_tracked_tree(tmp_path,
                                                                           link_to_reports):
    from anchorkit.pages.page import study_page
    from anchorkit.engine.request import request

    kw = dict(store_dir=tmp_path / "s", scheduler="in-process", progress=False)
    with pytest.raises(ParameterError, match="'reports_dir'.*names the committed"):
        study_page("control", request([1], "quick", reports_dir=link_to_reports, **kw))
    with pytest.raises(ParameterError, match="'reports_dir'.*tracked tree \\(notebooks/out/\\)"):
        study_page("control", request([1], "quick", reports_dir=REPO / "notebooks" / "out", **kw))
    assert not (REPO / "notebooks" / "out").exists()


def test_a_store_in_the_tracked_tree_is_refused_and_an_ignored_one_is_not(monkeypatch):
    monkeypatch.chdir(REPO / "notebooks")
    with pytest.raises(ParameterError, match="'store'.*tracked tree \\(c/\\)"):
        RunStore("../c")
    assert RunStore("../.runs").root == REPO / ".runs"
    assert not (REPO / "c").exists()


@pytest.mark.parametrize("flag, value", [("--store", "../c"), ("--out", "../c"),
                                         ("--out", "../reports/control")])
def test_rerun_study_refuses_a_store_or_out_inside_the_repository(flag, value, monkeypatch,
                                                                  capsys):
    """In-process from the notebooks' folder (``main(argv)``, what ``python -m`` runs; an
    uncaught error fails the test as a traceback would)."""
    from anchorkit.commands.rerun_study import main

    before = git_status()
    monkeypatch.chdir(REPO / "notebooks")
    with pytest.raises(SystemExit) as stop:
        main(["control", "--seeds", "712", "--profile", "quick", "--scheduler", "in-process",
              flag, value])
    assert stop.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()
    assert "tracked tree" in last[-1] and f"'{flag}'" in last[-1]
    assert git_status() == before and not (REPO / "c").exists()


def test_two_reruns_with_other_seeds_keep_separate_folders(tmp_path):
    from anchorkit.commands.rerun_study import rerun_folder

    a, b = rerun_folder("control", "quick", [712]), rerun_folder("control", "quick", [713])
    assert a != b and a == "control-quick-seeds-712"
    assert rerun_folder("control", "paper", [712]) != a
    many = rerun_folder("loss-rate-screen", "paper", list(range(800, 840)))
    assert many.startswith("loss-rate-screen-paper-seeds-800-to-839-40-") and len(many) < 60
    assert many != rerun_folder("loss-rate-screen", "paper", list(range(800, 839)) + [900])


@pytest.mark.notebook
@pytest.mark.slow
def test_two_reruns_with_different_seeds_both_leave_their_tables(tmp_path):
    store = tmp_path / "store"
    out = []
    for seed in ("712", "713"):
        r = subprocess.run([sys.executable, "-m", "anchorkit.commands.rerun_study", "control", "--seeds",
                            seed, "--profile", "quick", "--scheduler", "in-process", "--store",
                            str(store)], cwd=REPO, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
        out.append(r.stdout)
    for seed in ("712", "713"):
        where = store / "reports" / f"control-quick-seeds-{seed}" / "control"
        prov = json.loads((where / "provenance.json").read_text())
        assert prov["seeds"] == [int(seed)] and (where / "results.parquet").exists()
    assert "replaces" not in out[1]


@pytest.mark.notebook
@pytest.mark.slow
def test_papermill_with_reports_dir_dot_dot_reports_is_refused_in_one_line(tmp_path):
    """The natural relative path from the notebook's folder (issue 48's High finding)."""
    before = git_status("reports")
    out = tmp_path / "out.ipynb"
    r = subprocess.run([sys.executable, "-m", "papermill", str(REPO / "notebooks" / "control.ipynb"),
                        str(out), "--cwd", str(REPO / "notebooks"), "-p", "profile", "quick",
                        "-p", "scheduler", "in-process", "-p", "reports_dir", "../reports",
                        "-p", "store_dir", str(tmp_path / "s"), "--no-progress-bar"],
                       capture_output=True, text=True, cwd=REPO / "notebooks")
    assert r.returncode != 0
    errors = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert len(errors) == 1 and "names the committed" in errors[0]["evalue"]
    assert git_status("reports") == before


def test_a_missing_digest_of_a_committed_file_names_the_digest_to_restore(tmp_path):
    f = REPORTS / "control" / "provenance.json"
    assert "git checkout -- reports/control/provenance.json.sha256" in remedy(f, digest_missing=True)
    assert "retraining" not in remedy(f)  # tables are not runs
    assert "retraining the run" in remedy(REPO / "published" / "index.csv")
    lone = tmp_path / "provenance.json"
    lone.write_text("{}")
    with pytest.raises(StoreError, match="no digest beside it.*delete its folder"):
        read_verified(lone)


def test_train_runs_says_a_truncated_checkpoint_in_one_line(tmp_path, monkeypatch, capsys):
    sets = [f"{k}={getattr(SMALL_TRAIN, k)}" for k in ("contexts_per_epoch", "batch_size",
                                                      "warmup_steps", "trajectory_every",
                                                      "checkpoint_every")]
    from anchorkit import RunConfig, TaskConfig

    cfg = RunConfig(seed=5, epochs=4, train=SMALL_TRAIN, task=TaskConfig())
    store = RunStore(tmp_path / "store")

    def stop(epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train([cfg], store, progress=False, on_epoch_end=stop)
    ck = store.path(cfg) / "checkpoint.pt"
    ck.write_bytes(ck.read_bytes()[: len(ck.read_bytes()) // 2])  # truncated
    from anchorkit.commands.train_runs import main

    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    monkeypatch.delenv("ANCHORKIT_SCHEDULER", raising=False)
    with pytest.raises(SystemExit) as stop:  # in-process: what ``python -m`` runs
        main(["--seeds", "5", "--recipes", "control", "--epochs", "4", "--scheduler",
              "in-process", "--set", *sets])
    assert stop.value.code == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert ": error: " in last and "checkpoint.pt: contents changed" in last
