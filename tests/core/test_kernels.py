"""The CPU kernels are pinned to AVX2 paths, so that training is bitwise the same across x86-64
machines with AVX2 where the pin holds (the AMD EPYCs tried; not the Intel Xeon tried), and the
machine is recorded with every run."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anchorkit.core import kernels

ROOT = Path(__file__).resolve().parents[2]
X86_AVX2 = "avx2" in kernels.cpu_flags()


# On an Intel Xeon with AVX-512 (2026-12-01, reports/rerun/intel-xeon-processor/) the pinned
# retraining did not give the published weights, trained on an AMD EPYC. Strict: the day it does,
# this test fails, and the README and the Reproducibility page must say that the pin holds there.
PIN_FAILS_HERE = kernels.cpu_vendor() == "GenuineIntel"


@pytest.mark.skipif(not X86_AVX2, reason="the pin applies to x86-64 machines with AVX2")
def test_importing_anchorkit_pins_the_kernels_unless_native_ones_are_asked_for():
    code = ("import anchorkit, torch; torch.ones(2) @ torch.ones(2); "
            "print(torch.backends.cpu.get_cpu_capability())")
    env = {k: v for k, v in os.environ.items() if k not in kernels.PINS and k != kernels.NATIVE}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[-1] == "AVX2"
    if "avx512f" in kernels.cpu_flags():  # only such a machine has other kernels to fall back on
        native = subprocess.run([sys.executable, "-c", code], env={**env, kernels.NATIVE: "1"},
                                capture_output=True, text=True, check=True).stdout.split()
        assert native[-1] != "AVX2"


def test_the_record_names_the_cpu_its_extensions_and_the_pins():
    r = kernels.record(threads=1)
    assert r["cpu"] and r["capability"] and r["threads"] == 1
    assert set(r["pinned"]) <= set(kernels.PINS)
    json.dumps(r)  # it goes into meta.json and provenance.json


@pytest.mark.retrain
@pytest.mark.slow
@pytest.mark.skipif(not X86_AVX2, reason="the pin applies to x86-64 machines with AVX2")
@pytest.mark.xfail(PIN_FAILS_HERE, strict=True,
                   reason="the pin does not reproduce AMD-trained weights on the Intel Xeon tried")
def test_a_published_run_retrains_bitwise_on_this_machine(tmp_path):
    """control-adam-704 was trained on an AVX2-only AMD EPYC; with the pin, an AVX-512 EPYC
    retrains it to the same bits (about 2.5 min of one core); the Intel Xeon tried does not."""
    code = f"""
import torch, anchorkit
torch.set_num_threads(1)
from safetensors.torch import load_file
from anchorkit.core.store import RunStore
from anchorkit.engine.profiles import PAPER
from anchorkit.engine.registry import run_config
from anchorkit.core.train import train
cfg = run_config(704, "control", "adam", PAPER)
run = train([cfg], RunStore({str(tmp_path)!r}, published=None), progress=False)[0]
ref = load_file("published/runs/" + cfg.hash + "/final.safetensors")
print(all(torch.equal(ref[k], run.final[k]) for k in ref))
"""
    env = {k: v for k, v in os.environ.items() if k not in kernels.PINS and k != kernels.NATIVE}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[-1] == "True"
