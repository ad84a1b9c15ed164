import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.retrain
def test_train_speed_sets_the_compiled_step_beside_the_eager_reference():
    out = subprocess.run(
        [sys.executable, "bench/train_speed.py", "--runs", "2", "--epochs", "3", "--contexts", "32",
         "--threads", "1"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    ceiling = float(re.search(r"matmul ceiling .*: ([\d.]+) GFLOP/s", out).group(1))
    floor = float(re.search(r"GEMM floor .*: ([\d.]+) s per run-epoch", out).group(1))
    eager = float(re.search(r"eager step: ([\d.]+) s per run-epoch", out).group(1))
    compiled = float(re.search(r"compiled step: ([\d.]+) s per run-epoch", out).group(1))
    ratio = float(re.search(r"compiled / eager speed-up: ([\d.]+)x", out).group(1))
    assert ceiling > 0 and floor > 0 and eager > 0 and compiled > 0
    # the printed ratio agrees with the printed times, up to their rounding (3 and 2 decimals)
    assert (eager - 5e-4) / (compiled + 5e-4) - 5e-3 <= ratio <= (eager + 5e-4) / (compiled - 5e-4) + 5e-3


def test_useful_flops_count_the_model_arithmetic():
    sys.path.insert(0, str(ROOT / "bench"))
    from train_speed import useful_flops

    from anchorkit import RunConfig

    # 4 blocks of (QKV + O: 4·64², MLP: 2·64·256) MACs per token, attention 2·23·64 per block,
    # unembedding 64·V (V = 23); 2 FLOPs a MAC, 3x for the backward; 23 tokens x 512 contexts
    cfg = RunConfig(seed=1)
    per_token = 4 * (2 * (4 * 64 ** 2 + 2 * 64 * 256) + 4 * 23 * 64) + 2 * 64 * 23
    assert useful_flops(cfg) == 3 * per_token * 23 * 512


def test_train_speed_refuses_too_few_epochs():
    r = subprocess.run([sys.executable, "bench/train_speed.py", "--epochs", "2"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode != 0 and "--epochs" in r.stderr


def test_sweep_speed_prints_both_timings_and_agrees():
    out = subprocess.run(
        [sys.executable, "bench/sweep_speed.py", "--per-op", "16", "--directions", "6",
         "--contexts", "24", "--threads", "1"], cwd=ROOT, capture_output=True, text=True,
        check=True).stdout
    assert re.search(r"reference\): [\d.]+ s", out)
    assert re.search(r"24 contexts per forward: [\d.]+ s", out)
    assert "same predictions: True" in out


def test_rederive_speed_refuses_to_sweep_when_answers_are_not_cached(tmp_path):
    import os

    env = {**os.environ, "ANCHORKIT_STORE": str(tmp_path / "empty-store")}
    r = subprocess.run([sys.executable, "bench/rederive_speed.py", "control"], cwd=ROOT,
                       capture_output=True, text=True, env=env)
    assert r.returncode != 0 and "answers not cached" in (r.stdout + r.stderr)
