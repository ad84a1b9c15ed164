"""The command lines refuse what they cannot honour and name a bad value in one line, before any
work starts (no traceback)."""

import subprocess
import sys
from pathlib import Path

import pytest

from anchorkit.core.config import ParameterError
from anchorkit.engine.executor import check_scheduler, connect

ROOT = Path(__file__).resolve().parents[2]


def train_runs(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "anchorkit.commands.train_runs", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "ANCHORKIT_STORE": "/nonexistent/store"})


@pytest.mark.parametrize("argv, named", [
    (["--study", "control", "--seeds", "950", "--epochs", "3"], "--epochs would be ignored"),
    (["--study", "control", "--set", "lr=0.1"], "--set would be ignored"),
    (["--set", "lr=abc"], "'lr' = 'abc': expected a value of type float"),
    (["--set", "lr"], "'--set' = 'lr': expected key=value"),
    (["--set", "learned_positions=yes"], "'learned_positions' = 'yes': expected true or false"),
    (["--set", "nope=1"], "unknown setting 'nope'"),
    (["--seeds", "1", "1"], "expected distinct seeds"),
    (["--seeds", "-3"], "expected seeds >= 0"),
    (["--scheduler", "inprocess"], "did you mean 'in-process'?"),
    (["--epochs", "0"], "'epochs' = 0: expected an integer >= 1"),
    (["--recipes", "faloff"], "'recipe' = 'faloff'"),
    (["--regime", "no-positions-no-biases-lr-decayed-pull-0.3", "--seeds", "720"],
     "names runs by --recipes, --optimizers too"),
    (["--regime", "no-positions-no-biases-lr-decayed-pull-0.3", "--seeds", "720", "--recipes",
      "falloff", "--optimizers", "adam", "--set", "lr=0.1"], "take the regime's settings"),
])
def test_a_bad_command_line_is_refused_in_one_line_naming_the_value(argv, named, monkeypatch,
                                                                   capsys):
    """In-process (``main(argv)``, the code ``python -m`` runs; an uncaught error fails the test
    as a traceback would): exit status 2 and the value named, nothing planned."""
    from anchorkit.commands.train_runs import main

    monkeypatch.setenv("ANCHORKIT_STORE", "/nonexistent/store")
    monkeypatch.delenv("ANCHORKIT_SCHEDULER", raising=False)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out, err = capsys.readouterr()
    assert stop.value.code == 2, out + err
    last = err.strip().splitlines()[-1]  # argparse's usage, then the one line that names it
    assert named in last and ": error: " in last and "Traceback" not in err
    assert out == ""  # nothing was planned, let alone trained


def test_a_bad_command_line_from_the_shell_is_one_line_without_a_traceback():
    """The same through ``python -m`` once, the way a reader types it."""
    r = train_runs("--seeds", "1", "1")
    assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
    assert "expected distinct seeds" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("script", ["anchorkit.commands.train_runs", "anchorkit.commands.confirm"])
def test_a_store_that_cannot_be_written_is_named_in_one_line(tmp_path, script, monkeypatch,
                                                             capsys):
    """A store path that is a file, or a folder that cannot be made (here under /proc, refused
    even to root), is named in one line before anything is planned or trained (in-process:
    ``main(argv)``, what ``python -m`` runs)."""
    import importlib

    main = importlib.import_module(script).main
    (tmp_path / "a-file").write_text("")
    monkeypatch.delenv("ANCHORKIT_SCHEDULER", raising=False)
    for where in (tmp_path / "a-file", Path("/proc/anchorkit-store")):
        monkeypatch.setenv("ANCHORKIT_STORE", str(where))
        argv = ["--seeds", "720"] + (["--optimizers", "adam"] if "train" in script else [])
        with pytest.raises(SystemExit) as stop:
            main([*(["train"] * ("confirm" in script)), *argv])
        out, err = capsys.readouterr()
        assert stop.value.code == 2 and out == "", out + err
        assert (f"parameter 'ANCHORKIT_STORE' = '{where}': expected a folder this process can "
                f"write" in err and "Traceback" not in err), err


def test_a_regime_s_runs_are_its_published_runs_at_their_seeds():
    """``--regime R --seeds … --recipes falloff --optimizers adam rotated`` plans regime R's own
    runs (its recipe for falloff, its length and step): at a published seed, the published hash."""
    import argparse

    import pandas as pd

    from anchorkit.commands.train_runs import plan

    args = argparse.Namespace(study=None, regime="no-positions-no-biases-lr-decayed-pull-0.3",
                              seeds=[704, 720], recipes=["falloff"], optimizers=["adam", "rotated"],
                              epochs=None, set=None, scheduler="in-process")
    cfgs = plan(args)
    assert [(c.seed, c.optimizer) for c in cfgs] == [(704, "adam"), (720, "adam"),
                                                     (704, "rotated"), (720, "rotated")]
    index = pd.read_csv(ROOT / "published" / "index.csv")
    published = set(index[index.regime == args.regime].hash)
    assert {c.hash for c in cfgs if c.seed == 704} <= published
    assert all(c.recipe == "falloff-pull-0.3" and c.epochs == 1600 for c in cfgs)


@pytest.mark.cluster
def test_an_unreachable_scheduler_is_named_quickly():
    with pytest.raises(ParameterError, match="tcp://127.0.0.1:9"):
        with connect("tcp://127.0.0.1:9"):
            pass


def test_scheduler_values():
    assert check_scheduler(None) is None and check_scheduler("in-process") == "in-process"
    assert check_scheduler("tcp://host:8786") == "tcp://host:8786"
    with pytest.raises(ParameterError, match="did you mean"):
        check_scheduler("in_process")


def test_a_cuda_device_on_a_torch_without_cuda_is_named_before_any_work(monkeypatch):
    import torch

    from anchorkit.engine.request import request

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ParameterError, match="'device' = 'cuda:1': this torch .* sees no CUDA"):
        request([1], device="cuda:1")
    assert request([1], device="cpu").device == "cpu"


def test_a_device_typo_is_named_before_torch_sees_it():
    from anchorkit.engine.request import request

    with pytest.raises(ParameterError, match="'device' = 'cpuu'"):
        request([1], device="cpuu")


def test_the_scout_refuses_a_length_below_one_before_training():
    from anchorkit.studies import scout

    with pytest.raises(ParameterError, match="lengths"):
        scout.run_scout(["weak-basis"], lengths=[-1, 2], profile="quick", progress=False)


def test_execute_studies_computes_what_its_regime_flag_names(monkeypatch):
    """``--compute --regime R`` computes regime R only, then executes the pages on the committed
    tables (reuse); ``--compute`` alone executes the pages without reuse, so that a page computes
    every regime it shows. Nothing is trained or executed here: both steps are recorded."""
    import anchorkit.engine.protocol as protocol
    import anchorkit.commands.execute_studies as ex
    from anchorkit.engine.regimes import SECOND, WEAK

    ran, executed = [], []
    monkeypatch.setattr(protocol, "run_study",
                        lambda study, seeds, profile, regime=None, **kw: ran.append((study, regime.name)))
    monkeypatch.setattr(ex.pm, "execute_notebook",
                        lambda src, dst, parameters, **kw: executed.append((Path(src).stem,
                                                                            parameters["reuse"])))
    monkeypatch.setattr(ex, "hide_injected_parameters", lambda path: None)
    ex.main(["--compute", "--regime", WEAK.name, "rotated-basis"])
    assert (ran, executed) == ([("rotated-basis", WEAK.name)], [("rotated-basis", True)])
    ran.clear(), executed.clear()
    ex.main(["--compute", "--regime", SECOND.name, "reference-baseline"])
    assert (ran, executed) == ([("reference-baseline", SECOND.name)], [("reference-baseline", True)])
    ran.clear(), executed.clear()
    ex.main(["--compute", "rotated-basis"])
    assert (ran, executed) == ([], [("rotated-basis", False)])
    with pytest.raises(SystemExit, match="--regime R: name one regime, with --compute"):
        ex.main(["--regime", SECOND.name, "rotated-basis"])


def test_publish_runs_names_a_regime_s_own_runs_as_train_runs_does():
    import argparse

    from anchorkit.commands.publish_runs import planned
    from anchorkit.commands.train_runs import plan

    regime = "no-positions-no-biases-lr-decayed-pull-0.3"
    args = argparse.Namespace(studies=None, regime=regime, seeds=[720, 721], recipes=["falloff"],
                              optimizers=["adam", "rotated"])
    trained = plan(argparse.Namespace(study=None, regime=regime, seeds=[720, 721],
                                      recipes=["falloff"], optimizers=["adam", "rotated"],
                                      epochs=None, set=None, scheduler="in-process"))
    assert [c.hash for c in planned(args)] == [c.hash for c in trained]
    with pytest.raises(ParameterError, match="not both"):
        planned(argparse.Namespace(**{**vars(args), "studies": ["control"]}))


def test_the_viability_command_writes_the_committed_record_only_with_publish(monkeypatch, tmp_path):
    """Issue 67: anchorkit.studies.scout.commands.viability wrote reports/ on every call. Now the committed folder only
    with --publish; by default the run store's scratch folder (nothing trained here: the check
    itself is recorded)."""
    import anchorkit.studies.scout.commands.viability as command
    from anchorkit.engine.provenance import scratch_root
    from anchorkit.studies.scout import viability

    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    calls = []
    monkeypatch.setattr(viability, "run_viability",
                        lambda where, scheduler=None, publish=False: calls.append((where, publish)))
    monkeypatch.setattr(viability, "decision_text", lambda tables: "")
    command.main([])
    command.main(["--publish"])
    assert calls == [(scratch_root(), False), (ROOT / "reports", True)]


@pytest.mark.slow
def test_ctrl_c_under_train_runs_says_one_line_and_no_traceback(tmp_path):
    """Issue 67 (Low): Ctrl-C printed a traceback. Now one line saying that the same command
    resumes, and exit status 130."""
    import signal
    import time

    env = {"PATH": "/usr/bin:/bin", "ANCHORKIT_STORE": str(tmp_path / "store")}
    p = subprocess.Popen([sys.executable, "-m", "anchorkit.commands.train_runs", "--seeds", "5", "--recipes",
                          "control", "--epochs", "400", "--scheduler", "in-process"], cwd=ROOT,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (tmp_path / "store" / "runs").exists() and time.monotonic() < deadline:
        time.sleep(0.5)  # training has begun
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err[-500:]
    assert "interrupted: every finished run is in the store" in err and "Traceback" not in err


def test_confirm_essay_refuses_seeds_it_would_ignore(monkeypatch, capsys):
    from anchorkit.commands.confirm import main

    monkeypatch.setenv("ANCHORKIT_STORE", "/nonexistent/store")
    with pytest.raises(SystemExit) as stop:
        main(["essay", "--seeds", "720"])
    assert stop.value.code == 2
    assert "'--seeds' = [720]: essay measures the whole set" in capsys.readouterr().err


@pytest.mark.parametrize("argv, named", [
    (["anchorkit.commands.publish_runs", "--seeds", "-1"], "expected seeds >= 0"),
    (["anchorkit.commands.rerun_compare", "--threads", "0"], "'threads' = 0: expected an integer >= 1"),
    (["anchorkit.commands.rerun_compare", "--seeds", "-2"], "expected seeds >= 0"),
    (["anchorkit.commands.adopt_store", "/nonexistent"], "/nonexistent: not a run store"),
    (["anchorkit.commands.execute_studies", "--bogus"], "unknown option --bogus"),
])
def test_the_smaller_commands_refuse_bad_values_in_one_line(argv, named, capsys):
    """In-process (each script's ``main(argv)``, what ``python -m`` runs; an uncaught error fails
    the test as a traceback would); test_commands.py and test_rerun_study.py try ``python -m``."""
    import importlib

    main = importlib.import_module(argv[0]).main
    with pytest.raises(SystemExit) as stop:
        main(argv[1:])
    err = capsys.readouterr().err + (stop.value.code if isinstance(stop.value.code, str) else "")
    assert stop.value.code not in (0, None) and named in err, err


def test_execute_studies_help_is_its_usage(capsys):
    from anchorkit.commands.execute_studies import main

    main(["--help"])  # prints its usage and does nothing else
    assert "usage: python -m anchorkit pages" in capsys.readouterr().out
