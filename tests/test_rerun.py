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



def test_the_rerun_verdict_says_what_it_ran_on_and_gives_each_outcome():
    from anchorkit.supporting import rerun_verdict

    cmp = pd.DataFrame({"within_tolerance": [True, True], "difference": [0.0, 1e-8]})
    k = {"cpu": "AMD EPYC", "vector_extensions": ["avx2", "avx512f"], "capability": "AVX2",
         "pinned": {"ATEN_CPU_CAPABILITY": "avx2"}, "threads": 1}
    same = rerun_verdict(cmp, {"tolerance": 1e-6, "kernels": k,
                               "weights_bitwise_equal": {"control-adam-704": True}})
    assert "AMD EPYC" in same and "pinned to AVX2" in same and "bit for bit" in same
    assert "all 2 values" in same
    bad = cmp.assign(within_tolerance=[False, True], difference=[0.36, 0.0])
    differ = rerun_verdict(bad, {"tolerance": 1e-6, "kernels": {**k, "pinned": {}},
                                 "weights_bitwise_equal": {"control-adam-704": False}})
    assert "differ from the published" in differ and "1 of 2 values" in differ
    assert "0.36" in differ and "not pinned" in differ
    old = rerun_verdict(cmp, {"tolerance": 1e-9})
    assert "not recorded" in old
