"""The committed tables are safe from a reader's experiment, and every read of them is checked:
a re-run with other seeds writes to a scratch folder, an edited table or provenance is refused by
name wherever it is read (and never recomputed over), a yes/no parameter means what it says, and
a run's files land with their digests whatever moment a writer is killed at."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from anchorkit.engine.regimes import WEAK
from anchorkit.core.config import ParameterError
from anchorkit.engine.provenance import UnpublishedWrite, check_manifest, clean_stale, write_study
from anchorkit.core.store import DIGEST, REPO, StoreError
from tests.conftest import small

ROOT = REPO
REPORTS = ROOT / "reports"


def reports_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--", "reports"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout


def copy_reports(tmp_path) -> Path:
    """A copy of the committed tables, to edit."""
    where = tmp_path / "reports"
    shutil.copytree(REPORTS, where)
    return where


# ---------------------------------------------------------------------- writes on purpose only
@pytest.mark.retrain
@pytest.mark.slow
def test_a_quick_rerun_without_reports_dir_leaves_the_committed_tables_alone(tmp_path):
    """The re-run the book invites (other seeds, the quick profile, no reports_dir) writes to the
    scratch folder in the run store, and says so on its provenance line."""
    before = reports_status()
    store = tmp_path / "store"
    out = tmp_path / "out.ipynb"
    cmd = [sys.executable, "-m", "papermill", str(ROOT / "notebooks" / "control.ipynb"), str(out),
           "-y", "seeds: [1]", "-p", "profile", "quick", "-p", "store_dir", str(store),
           "--cwd", str(ROOT / "notebooks"), "--no-progress-bar"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    assert reports_status() == before
    scratch = store / "reports" / "control"
    prov = check_manifest(scratch)
    assert prov["seeds"] == [1] and prov["profile"] == "quick"
    text = json.dumps(json.loads(out.read_text()))
    assert str(scratch) in text and "not the committed tables" in text


def test_write_study_refuses_the_committed_folder_unless_published():
    before = {p.name: p.read_bytes() for p in (REPORTS / "control").iterdir()}
    with pytest.raises(UnpublishedWrite, match="written only on purpose"):
        write_study(REPORTS / "control", {"results": pd.DataFrame({"a": [1]})}, "control", [1],
                    "quick", [small()], 0.0, {"commit": None, "dirty": False})
    assert {p.name: p.read_bytes() for p in (REPORTS / "control").iterdir()} == before


def test_a_page_writes_the_committed_tables_only_for_the_paper_set_or_when_forced(tmp_path):
    from anchorkit.pages.page import REPORTS as PAGE_REPORTS, tables_home

    scratch = tmp_path / "store"
    never = lambda root: pytest.fail("publishing does not read the tables first")  # noqa: E731
    home = lambda **kw: tables_home(kw.pop("reports_dir", None), scratch, written=lambda r: True,  # noqa: E731
                                    **kw)
    assert home(paper=True) == PAGE_REPORTS  # the book: reads the committed tables
    assert home(paper=False) == scratch / "reports"  # another seed: the scratch folder
    assert home(paper=True, reuse=False) == scratch / "reports"  # recomputed: scratch, not reports/
    assert home(paper=False, reports_dir=tmp_path / "mine") == tmp_path / "mine"
    assert tables_home(None, scratch, True, never, publish=True) == PAGE_REPORTS
    with pytest.raises(ParameterError, match="'publish'.*not the study's paper set.*force=True"):
        tables_home(None, scratch, False, never, publish=True)
    assert tables_home(None, scratch, False, never, publish=True, force=True) == PAGE_REPORTS
    with pytest.raises(ParameterError, match="'publish'.*leave reports_dir out"):
        tables_home(tmp_path / "mine", scratch, True, never, publish=True)
    with pytest.raises(ParameterError, match="'reports_dir'.*inside the committed"):
        tables_home(REPORTS / "control", scratch, True, never)


def test_an_unwritable_folder_is_named_before_any_work(tmp_path):
    from anchorkit.pages.page import study_page
    from anchorkit.engine.request import request

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with pytest.raises(ParameterError, match="'reports_dir'.*expected a folder this process can write"):
        study_page("control", request([1], "quick", reports_dir=blocked / "reports",
                                      store_dir=tmp_path / "store"))
    with pytest.raises(ParameterError, match="'store_dir'.*expected a folder this process can write"):
        study_page("control", request([1], "quick", store_dir=blocked / "store"))
    assert not (tmp_path / "store" / "runs").exists()  # nothing trained


# ---------------------------------------------------------------------- one checked reader
def edit_a_table(where: Path, table: str) -> Path:
    f = where / f"{table}.parquet"
    df = pd.read_parquet(f)
    col = next(c for c in df.columns if pd.api.types.is_float_dtype(df[c]))
    df.loc[0, col] = 0.123456  # an edit that still reads as a table
    df.to_parquet(f, index=False)
    return f


READERS = {
    "ledger": ("rotated-basis", "results",
               lambda r: __import__("anchorkit.judging.ledger", fromlist=["x"]).regimes_ledger(r)),
    "report-page later figure": ("reference-baseline", "results", lambda r: __import__(
        "anchorkit.pages.report_page", fromlist=["x"]).later_figures(r, {WEAK: {}})),
    "report-page screen scope": ("loss-rate-screen", "rate", lambda r: __import__(
        "anchorkit.pages.report_page", fromlist=["x"]).screen_scope(r)),
    "provenance table": ("split-anti-seeds", "dose", lambda r: __import__(
        "anchorkit.pages.supporting", fromlist=["x"]).provenance_table(r)),
    "re-run summaries": ("rerun/amd-epyc", "comparison", lambda r: __import__(
        "anchorkit.pages.supporting", fromlist=["x"]).rerun_summaries(r)),
}


@pytest.mark.parametrize("reader", READERS)
def test_an_edited_committed_table_is_refused_by_every_reader_naming_it(tmp_path, reader):
    study, table, read = READERS[reader]
    where = copy_reports(tmp_path)
    read(where)  # the committed tables read cleanly
    f = edit_a_table(where / study, table)
    with pytest.raises(StoreError, match=rf"{f.name}: does not match the manifest"):
        read(where)


def test_an_edited_table_is_refused_by_a_study_page_reading_it(tmp_path):
    from anchorkit.engine.protocol import run_study
    from anchorkit.engine.registry import PAPER_SEEDS

    where = copy_reports(tmp_path)
    f = edit_a_table(where / "control", "results")
    with pytest.raises(StoreError, match="results.parquet: does not match the manifest"):
        run_study("control", PAPER_SEEDS, reports_dir=where, reuse=True)


@pytest.mark.notebook
@pytest.mark.slow
def test_the_ledger_page_refuses_an_edited_table_in_one_line(tmp_path):
    where = copy_reports(tmp_path)
    f = edit_a_table(where / "rotated-basis", "results")
    out = tmp_path / "out.ipynb"
    cmd = [sys.executable, "-m", "papermill", str(ROOT / "notebooks" / "reproduction-ledger.ipynb"),
           str(out), "-p", "reports_dir", str(where), "--no-progress-bar"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT / "notebooks")
    assert r.returncode != 0
    errors = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert len(errors) == 1 and len(errors[0]["traceback"]) == 1
    assert errors[0]["traceback"][0].startswith(f"StoreError: {f}: does not match the manifest")


@pytest.mark.parametrize("change, named", [
    (lambda t: t.replace('"704"', '"705"', 1) if '"704"' in t else t.replace("704", "705", 1),
     "provenance.json: contents changed since written"),
    (lambda t: t[:-3], "provenance.json: contents changed since written"),
])
def test_a_changed_provenance_is_refused_and_nothing_is_recomputed(tmp_path, change, named):
    from anchorkit.engine.protocol import run_study
    from anchorkit.engine.registry import PAPER_SEEDS

    where = copy_reports(tmp_path)
    f = where / "control" / "provenance.json"
    f.write_text(change(f.read_text()))
    before = {p.name: p.read_bytes() for p in (where / "control").iterdir()}
    with pytest.raises(StoreError, match=named):
        run_study("control", PAPER_SEEDS, reports_dir=where, reuse=True)
    assert {p.name: p.read_bytes() for p in (where / "control").iterdir()} == before


def test_an_unreadable_provenance_is_one_line_naming_the_file(tmp_path):
    from anchorkit.engine.provenance import read_provenance
    from anchorkit.core.store import digest

    where = tmp_path / "t"
    where.mkdir()
    (where / "provenance.json").write_text("{not json")
    (where / f"provenance.json{DIGEST}").write_text(digest(b"{not json") + "\n")
    with pytest.raises(StoreError, match=rf"{where / 'provenance.json'}: not valid JSON"):
        read_provenance(where)
    (where / f"provenance.json{DIGEST}").unlink()
    with pytest.raises(StoreError, match="provenance.json: no digest beside it"):
        read_provenance(where)


def test_execute_studies_stops_on_a_changed_provenance_without_executing(tmp_path, monkeypatch):
    import anchorkit.commands.execute_studies as ex

    root = tmp_path / "repo"
    shutil.copytree(REPORTS, root / "reports")
    (root / "notebooks").symlink_to(ROOT / "notebooks")
    f = root / "reports" / "control" / "provenance.json"
    f.write_text(f.read_text().replace("704", "705", 1))
    monkeypatch.setattr(ex, "ROOT", root)
    monkeypatch.setattr(ex, "PAGES", tmp_path / "pages")
    monkeypatch.setattr(ex.pm, "execute_notebook",
                        lambda *a, **k: pytest.fail("executed over a changed provenance"))
    with pytest.raises(SystemExit, match=rf"StoreError: {f}: contents changed"):
        ex.main(["control"])


def test_every_committed_table_folder_verifies():
    folders = [f.parent for f in REPORTS.glob("**/provenance.json")]
    assert len(folders) >= 12
    for where in folders:
        assert (where / f"provenance.json{DIGEST}").exists(), where
        check_manifest(where)


def test_killed_writers_folders_are_cleaned_and_ignored_by_git(tmp_path):
    where = tmp_path / "control"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = [tmp_path / f".control.{dead.pid}.new", tmp_path / f".control.{dead.pid}.old"]
    live = tmp_path / f".control.{os.getppid()}.new"  # a live writer's: left alone
    for d in stale + [live]:
        d.mkdir()
    write_study(where, {"results": pd.DataFrame({"a": [1.0]})}, "control", [1], "quick",
                [small()], 0.0, {"commit": None, "dirty": False})
    assert not any(d.exists() for d in stale) and live.exists()
    assert clean_stale(where) == []
    ignored = subprocess.run(["git", "check-ignore", "reports/.control.123.new/results.parquet",
                              "reports/x/.rotated-basis.9.old/e2.csv"], cwd=ROOT,
                             capture_output=True, text=True).stdout.split()
    assert len(ignored) == 2
