import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_train_speed_prints_per_run_ensemble_and_gflops():
    out = subprocess.run(
        [sys.executable, "bench/train_speed.py", "--runs", "2", "--epochs", "3", "--contexts", "32",
         "--threads", "1"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    gflops = float(re.search(r"matmul GFLOP/s .*: ([\d.]+)", out).group(1))
    per_run = float(re.search(r"per-run loop: ([\d.]+) s per run-epoch", out).group(1))
    ens = float(re.search(r"ensemble of 2: ([\d.]+) s per run-epoch", out).group(1))
    assert gflops > 0 and per_run > 0 and ens > 0


def test_train_speed_refuses_too_few_epochs():
    r = subprocess.run([sys.executable, "bench/train_speed.py", "--epochs", "2"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode != 0 and "--epochs" in r.stderr


def test_sweep_speed_prints_both_timings_and_agrees():
    out = subprocess.run(
        [sys.executable, "bench/sweep_speed.py", "--per-op", "16", "--directions", "6", "--chunk", "4",
         "--threads", "1"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert re.search(r"batched: [\d.]+ s", out) and re.search(r"one at a time: [\d.]+ s", out)
    assert "same predictions: True" in out


def test_rederive_speed_refuses_to_sweep_when_answers_are_not_cached(tmp_path):
    import os

    env = {**os.environ, "ANCHORKIT_STORE": str(tmp_path / "empty-store")}
    r = subprocess.run([sys.executable, "bench/rederive_speed.py", "control"], cwd=ROOT,
                       capture_output=True, text=True, env=env)
    assert r.returncode != 0 and "answers not cached" in (r.stdout + r.stderr)
