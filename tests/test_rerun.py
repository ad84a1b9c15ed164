import pandas as pd
import pytest

from scripts.rerun_compare import compare


def test_compare_pairs_runs_and_flags_what_differs():
    pub = pd.DataFrame({"run": ["a", "b"], "control_run": ["c", "d"], "seed": [1, 2],
                        "net_removal": [0.5, 0.7], "kept": [True, True], "landing": [float("nan")] * 2,
                        "spike": pd.array([3, pd.NA], dtype="Int64")})
    re = pub.iloc[[1]].copy()
    re.loc[:, "net_removal"] = 0.6
    out = compare(pub, re, tolerance=1e-9)
    assert set(out["run"]) == {"b"}
    assert set(out["column"]) == {"net_removal", "kept", "landing", "spike"}
    flags = out.set_index("column")["within_tolerance"]
    assert not flags["net_removal"] and flags["kept"] and flags["landing"] and flags["spike"]
    assert out.set_index("column").loc["net_removal", "difference"] == pytest.approx(-0.1)

