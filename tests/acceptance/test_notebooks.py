"""Study notebooks execute end to end at the quick profile with the seeds they are given."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from anchorkit.engine.registry import STUDIES

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
STUDY_NOTEBOOKS = [n for n in NOTEBOOKS if n.stem in STUDIES]
EXTRA_TABLES = {"rotated-basis": {"e2", "e3", "basis", "directions"},
                "reference-baseline": {"spikes", "directions"}}


def test_every_study_has_a_notebook():
    assert sorted(n.stem for n in STUDY_NOTEBOOKS) == sorted(STUDIES)


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", STUDY_NOTEBOOKS, ids=[n.stem for n in STUDY_NOTEBOOKS])
def test_notebook_runs_at_quick_profile_with_new_seeds(notebook, tmp_path):
    reports = tmp_path / "reports"
    cmd = [sys.executable, "-m", "papermill", str(notebook), str(tmp_path / "out.ipynb"),
           "-y", "seeds: [712, 713]", "-p", "profile", "quick", "-p", "reports_dir", str(reports),
           "-p", "store_dir", str(tmp_path / "store"), "--cwd", str(notebook.parent),
           "--no-progress-bar"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    study = notebook.stem
    results = pd.read_parquet(reports / study / "results.parquet")
    assert sorted(results["seed"].unique()) == [712, 713]
    prov = json.loads((reports / study / "provenance.json").read_text())
    assert prov["seeds"] == [712, 713] and prov["profile"] == "quick" and prov["study"] == study
    assert prov["epochs"] == 4 and all(len(h) == 16 for h in prov["runs"].values())
    written = {f.stem for f in (reports / study).glob("*.parquet")}
    assert {"results", "dose", "alignment", "spectra", "trajectories"} <= written
    assert EXTRA_TABLES.get(study, set()) <= written
    if study == "rotated-basis":  # every rotated run beside its stored twin, per seed
        e2 = pd.read_parquet(reports / study / "e2.parquet")
        assert list(e2["seed"]) == [712, 713]
        assert {"net_removal_rotated", "net_removal_stored", "spill_rotated"} <= set(e2.columns)


def test_source_notebooks_are_stored_clean_with_a_parameters_cell():
    for nb_path in NOTEBOOKS:
        nb = json.loads(nb_path.read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), nb_path
        tagged = [c for c in code if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, nb_path


@pytest.mark.notebook
def test_essay_notebook_measures_every_head_of_every_stored_run(tmp_path):
    from anchorkit.core.store import RunStore
    from anchorkit.engine.profiles import QUICK
    from anchorkit.engine.registry import run_config
    from anchorkit.core.train import train

    store = tmp_path / "store"
    runs = [run_config(712, r, "adam", QUICK, epochs=1) for r in ("control", "falloff")]
    train(runs, RunStore(store), progress=False)
    reports = tmp_path / "reports"
    notebook = ROOT / "notebooks" / "geometry-of-anchors.ipynb"
    cmd = [sys.executable, "-m", "papermill", str(notebook), str(tmp_path / "out.ipynb"),
           "-y", "seeds: [712]", "-p", "profile", "quick", "-p", "epochs", "1",
           "-p", "reports_dir", str(reports), "-p", "store_dir", str(store),
           "--cwd", str(notebook.parent), "--no-progress-bar"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    heads = pd.read_parquet(reports / "geometry-of-anchors" / "heads.parquet")
    per_run = heads.groupby(["run", "stage"]).size()
    assert set(heads["run"]) == {c.name for c in runs}
    assert (per_run == 16).all() and len(per_run) == 4  # 4 blocks x 4 heads, initial and final


@pytest.mark.notebook
def test_scout_notebook_runs_at_quick_profile(tmp_path):
    notebook = ROOT / "notebooks" / "optimizer-scout.ipynb"
    reports = tmp_path / "reports"
    cmd = [sys.executable, "-m", "papermill", str(notebook), str(tmp_path / "out.ipynb"),
           "-y", "seeds: [3]", "-y", "regimes: [weak-basis]", "-y", "lengths: [2, 3]",
           "-p", "profile", "quick", "-p", "reports_dir", str(reports),
           "-p", "store_dir", str(tmp_path / "store"), "--cwd", str(notebook.parent),
           "--no-progress-bar"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    premise = pd.read_parquet(reports / "optimizer-scout" / "premise.parquet")
    assert sorted(premise["epochs"].unique()) == [2, 3] and set(premise["seed"]) == {3}
    assert set(premise["optimizer"]) == {"adam", "rotated"}
    out = json.loads((tmp_path / "out.ipynb").read_text())
    text = json.dumps(out)
    assert "functional spike" in text and "Levels reached" in text


@pytest.mark.notebook
@pytest.mark.parametrize("given, line", [
    (["-y", "seeds: [1, 1]"], "parameter 'seeds' = [1, 1]: expected distinct seeds"),
    (["-p", "sedes", "2"], "parameter 'sedes' = 2: not a parameter of this page (misspelt?)"),
    (["-p", "store_dir", "5"], "parameter 'store_dir' = 5: expected a folder's path")])
def test_a_bad_parameter_fails_the_page_in_one_line_and_tables_go_to_the_repository(tmp_path,
                                                                                    given, line):
    """Executed from another working directory (no --cwd), a page still reads the repository's
    reports/; a bad parameter (a bad value, a misspelt name, a folder given as a number) is the
    error's one line, not a traceback, and never the page run on its defaults."""
    out = tmp_path / "out.ipynb"
    cmd = [sys.executable, "-m", "papermill", str(ROOT / "notebooks" / "control.ipynb"), str(out),
           *given, "--no-progress-bar"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode != 0
    errors = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert len(errors) == 1 and len(errors[0]["traceback"]) == 1
    assert errors[0]["traceback"][0].startswith(f"ParameterError: {line}")
    assert not (tmp_path.parent / "reports").exists() or tmp_path.parent == ROOT.parent


@pytest.mark.notebook
def test_a_tweak_of_the_analysis_rereads_the_published_weights_and_trains_nothing(tmp_path):
    """The Reproducibility page's one step: a page executed with the e₁ edit at other doses, an
    empty run store and the published weights, measures again, trains nothing and writes its
    tables to the scratch folder; they differ from the committed ones where the doses do."""
    from anchorkit.pages.rerun import TWEAK

    store, out = tmp_path / "store", tmp_path / "out.ipynb"
    cmd = [sys.executable, "-m", "papermill", str(ROOT / "notebooks" / "control.ipynb"), str(out),
           "-y", f"doses: {TWEAK}", "-y", "seeds: [704, 705]", "-p", "store_dir", str(store),
           "-p", "scheduler", "in-process", "--cwd", str(ROOT / "notebooks"), "--no-progress-bar"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    assert not list(store.glob("runs/*/*.safetensors")) and not list(store.glob("runs/*/*.pt"))
    assert list(store.glob("answers/*")), "the runs' answers were computed from their weights"
    where = store / "reports" / "control"
    prov = json.loads((where / "provenance.json").read_text())
    assert prov["doses"] == [float(d) for d in TWEAK] and prov["seeds"] == [704, 705]
    assert "the e₁ edit at doses 0.5, 1" in out.read_text()  # the page's provenance line says so
    dose = pd.read_parquet(where / "dose.parquet")
    committed = pd.read_parquet(ROOT / "reports" / "control" / "dose.parquet")
    committed = committed[committed.seed.isin([704, 705])]
    assert sorted(committed.dose.unique()) == [0.25, 0.5, 0.75, 1.0]  # the method's
    assert sorted(dose.dose.unique()) == [0.5, 1.0]
    kept = committed[committed.dose.isin(TWEAK)].sort_values(["seed", "dose"]).reset_index(drop=True)
    dose = dose.sort_values(["seed", "dose"]).reset_index(drop=True)
    # the same weights give the same answers at the doses both hold; on another CPU a near tie of
    # two logits may flip one answer (BENCHMARKS.md: 2 of 4608), which moves a removal by ~1e-3
    for col in ("raw_removal", "control_drop", "net_removal", "spill"):
        assert (dose[col] - kept[col]).abs().max() < 0.01, col
    results = pd.read_parquet(where / "results.parquet")  # read at the full dose, as before
    ref = pd.read_parquet(ROOT / "reports" / "control" / "results.parquet").set_index("seed")
    got = results.set_index("seed").raw_removal
    assert list(got.index) == [704, 705] and (got - ref.raw_removal[got.index]).abs().max() < 0.01
