"""scripts/same_bits: the comparison says equal only for the same bits, and a bad commit is named."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import torch

from anchorkit.commands.same_bits import differences

ROOT = Path(__file__).resolve().parents[2]


def test_the_comparison_names_every_output_whose_bits_differ():
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    weights = {"W": torch.arange(4.0), "n": torch.tensor([1, 2])}
    nan = torch.tensor([1.0, float("nan")])
    old = {"t": frame, "w": weights, "nan": nan, "gone": torch.zeros(1)}
    same = {"t": frame.copy(), "w": {k: v.clone() for k, v in weights.items()}, "nan": nan.clone(),
            "gone": torch.zeros(1)}
    assert differences(old, same) == []  # NaN where both are undefined is equal
    one_ulp = torch.nextafter(torch.tensor(2.0), torch.tensor(3.0))
    new = {"t": frame.assign(a=[1.0, float(one_ulp)]),  # one float32 unit, in a float64 column
           "w": {"W": torch.tensor([0.0, 1.0, one_ulp, 3.0]), "n": torch.tensor([1, 2])},
           "nan": torch.tensor([1.0, 0.0]), "new": torch.zeros(1)}
    assert differences(old, new) == ["gone (in one record only)", "new (in one record only)",
                                     "t", "w", "nan"]
    assert differences({"x": torch.zeros(2)}, {"x": torch.zeros(2, dtype=torch.float64)}) == ["x"]


def test_a_commit_that_is_not_there_is_named_in_one_line():
    r = subprocess.run([sys.executable, "-m", "anchorkit.commands.same_bits", "--against", "no-such-rev"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "'no-such-rev' names no commit" in r.stderr
    assert "Traceback" not in r.stderr
