import pandas as pd
import pytest

from anchorkit.commands.rerun_compare import compare


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
    from anchorkit.pages.supporting import rerun_verdict

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


def test_each_machines_rerun_is_shown_oldest_first(tmp_path):
    """Re-runs on several CPUs stand side by side (``reports/rerun/<cpu>/``): every record is read,
    and one machine's verdict does not hide another's."""
    from anchorkit.engine.provenance import write_study
    from anchorkit.engine.profiles import PAPER
    from anchorkit.engine.registry import run_config
    from anchorkit.pages.supporting import rerun_summaries
    from anchorkit.commands.rerun_compare import cpu_folder

    assert cpu_folder("Intel(R) Xeon(R) Processor") == "intel-xeon-processor"
    assert cpu_folder("AMD EPYC 7B13 64-Core Processor") == "amd-epyc-7b13-64-core-processor"
    assert rerun_summaries(tmp_path) == []
    for cpu, date, same in (("Intel(R) Xeon(R) Processor", "2026-12-02T00:00", False),
                            ("AMD EPYC", "2026-12-01T00:00", True)):
        d = tmp_path / "rerun" / cpu_folder(cpu)
        comparison = pd.DataFrame({"run": ["control-adam-704"], "seed": [704],
                                   "column": ["net_removal"], "difference": [0.0 if same else 0.1],
                                   "within_tolerance": [same]})
        k = {"cpu": cpu, "vector_extensions": ["avx2"], "capability": "AVX2",
             "pinned": {"MKL_CBWR": "AVX2"}, "threads": 1}
        write_study(d, {"comparison": comparison}, "control", [704], "paper",
                    [run_config(704, "control", "adam", PAPER)], 0.0,
                    {"commit": "abc", "dirty": False},
                    extra={"date": date, "tolerance": 1e-6, "kernels": k,
                           "weights_bitwise_equal": {"control-adam-704": same}})
    out = rerun_summaries(tmp_path)
    assert len(out) == 2
    assert "AMD EPYC" in out[0][0] and "bit for bit" in out[0][0]
    assert "Intel" in out[1][0] and "differ from the published" in out[1][0]
    assert list(out[1][1]["within the tolerance"]) == [0]
