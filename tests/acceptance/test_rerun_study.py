"""Re-running a study with other seeds (``anchorkit/commands/rerun_study.py``): parameters checked before any
work, the plan and its estimate, progress in epochs, directions and pairs (``anchorkit.core.progress``)
wherever the tasks run, and a standalone page that draws its charts offline."""

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from anchorkit.core import progress
from anchorkit.engine.executor import execute, train_task, training_graph

from conftest import small

ROOT = Path(__file__).resolve().parents[2]


def rerun(*argv, store: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANCHORKIT_STORE": str(store)}
    return subprocess.run([sys.executable, "-m", "anchorkit.commands.rerun_study", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("argv, named", [
    (["contrl", "--seeds", "712"], "'study' = 'contrl'"),
    (["control", "--seeds", "x"], "'--seeds' = 'x': expected integers"),
    (["control", "--seeds", "712", "712"], "expected distinct seeds"),
    (["control", "--seeds", "712", "--profile", "fast"], "'--profile' = 'fast'"),
    (["control", "--seeds", "712", "--regime", "no-positions-no-biases-lr-decayed"],
     "the control page shows the weak-basis regime only"),
    (["rotated-basis", "--seeds", "712", "--regime", "second"], "'regime' = 'second'"),
    (["control", "--seeds", "712", "--scheduler", "inprocess"], "did you mean 'in-process'?"),
])
def test_a_bad_parameter_is_one_line_before_any_work(tmp_path, argv, named, monkeypatch, capsys):
    """In-process (``main(argv)``, what ``python -m`` runs; an uncaught error fails the test as a
    traceback would); ``python -m`` itself is tried once below."""
    from anchorkit.commands.rerun_study import main

    monkeypatch.setenv("ANCHORKIT_STORE", str(tmp_path / "store"))
    monkeypatch.delenv("ANCHORKIT_SCHEDULER", raising=False)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out, err = capsys.readouterr()
    assert stop.value.code == 2, out + err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and named in errors[0], err
    assert out == ""  # nothing planned, let alone trained
    assert not (tmp_path / "store").exists()


def test_a_bad_parameter_from_the_shell_is_one_line_without_a_traceback(tmp_path):
    r = rerun("contrl", "--seeds", "712", store=tmp_path / "store", timeout=120)
    assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "'study' = 'contrl'" in errors[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "store").exists()


@pytest.mark.slow
def test_a_quick_rerun_shows_epochs_and_ends_with_the_tables_the_notebook_and_a_page(tmp_path):
    store = tmp_path / "store"
    r = rerun("control", "--seeds", "1", "--profile", "quick", "--scheduler", "in-process",
              store=store)
    assert r.returncode == 0, r.stdout + r.stderr
    terminal = r.stdout + r.stderr
    # the plan names the run and says it is to be trained, with an estimate
    assert re.search(r"control-adam-1\s+4 epochs, to train", r.stdout)
    assert "estimate: about" in r.stdout
    # the progress: epochs of the named run
    assert re.search(r"training control-adam-1: .*\d/4 .*epoch", terminal.replace("\r", "\n"))
    last = [line for line in r.stdout.splitlines() if line.strip()][-3:]
    assert [line.split(":", 1)[0] for line in last] == ["tables", "notebook", "page"]
    tables, notebook, page = (Path(line.split(":", 1)[1].strip()) for line in last)
    # outside the committed reports/: in the run store's scratch folder, in a folder of its own
    assert tables == store / "reports" / "control-quick-seeds-1" / "control"
    assert (tables / "results.parquet").exists() and (tables / "provenance.json").exists()
    assert notebook.exists() and page.exists() and page.parent == notebook.parent

    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    charts = sum("vega-embed" in "".join(o.get("data", {}).get("text/html", ""))
                 for c in nb.cells for o in c.get("outputs", []))
    html = page.read_text()
    assert charts >= 1
    assert html.count('"$schema": "https://vega.github.io/schema/vega-lite/') == charts
    assert not re.search(r"<script[^>]*\bsrc\s*=\s*[\"']?https?:", html, re.I)
    assert "vega-embed.min.js */" in html  # the vendored library is in the page itself
    assert not (store / "progress").exists()  # the tracks' files are removed at the end

    from browser import chromium

    if chromium() is None:
        return
    from browser import Browser

    b = Browser()
    try:
        fetched = []
        b.page.on("request", lambda req: fetched.append(req.url))
        b.open(page)  # waits until every chart has drawn
        assert b.js("document.querySelectorAll('.vega-embed').length") == charts
        assert b.js("document.querySelectorAll('.vega-embed svg.marks').length") == charts
        assert [u for u in fetched if not u.startswith(("file:", "data:"))] == []
    finally:
        b.close()


def test_a_training_task_moves_an_epoch_bar_naming_its_runs(store):
    cfgs = [small(seed=1), small(seed=2)]
    out = io.StringIO()
    with progress.Watch([progress.training_track(store, cfgs)], poll=0.05, file=out):
        train_task(cfgs, store)
    text = out.getvalue()
    assert "training control-adam-1, control-adam-2" in text
    assert "4/4" in text and "epoch" in text
    assert not progress.training_track(store, cfgs).file.exists()


def test_a_resumed_ensemble_counts_only_the_epochs_it_trains(store):
    track = progress.training_track(store, [small(epochs=10)])
    report = progress.EpochReport(track)
    for epoch in (7, 8):  # resumed from a checkpoint at epoch 6
        report(epoch)
    w = progress.Watch([track], file=io.StringIO())
    w.update()
    bar = w.bars["training"]
    assert (bar.n, bar.total) == (2, 4)
    w.update(finished=True)
    assert bar.n == 4


def test_runs_resumed_from_different_epochs_are_ensembles_of_their_own(store):
    """Two runs stopped at epoch 2 and two never started: two training tasks, one resumed at
    epoch 2, so that each task trains one ensemble from one epoch and its bar counts its epochs
    (one task holding both trained them one after the other, and its bar stood still at the
    end of the first while the second trained)."""
    from anchorkit.core.train import train
    from anchorkit.engine.executor import ensembles

    stopped, fresh = [small(seed=s, epochs=6) for s in (1, 2)], [small(seed=s, epochs=6)
                                                                 for s in (3, 4)]

    def stop(epoch):
        if epoch == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(stopped, store, progress=False, on_epoch_end=stop)
    groups = ensembles(stopped + fresh, store)
    assert groups == [stopped, fresh]
    assert [store.load_checkpoint(c)["epoch"] for c in stopped] == [2, 2]
    assert store.load_checkpoint(fresh[0]) is None


def test_a_sweep_task_reports_each_direction_and_answers_as_one_sweep(store):
    from anchorkit.measures.answers import sweep_answers
    from anchorkit.engine.pairs import SWEEP_CHUNK
    from anchorkit.engine.pipeline import sweep_task
    from anchorkit.core.train import train

    cfg = small()
    train([cfg], store, progress=False)
    got = sweep_task(cfg, store, 3, 9)
    assert torch.equal(got, sweep_answers(cfg, store.load_final(cfg), 3, 9, SWEEP_CHUNK))
    assert progress.reported(progress.sweep_track(store, cfg, 3, 9)) == {
        "done": 6, "start": 0, "total": 6}


def test_quiet_execution_draws_nothing(store, capfd):
    execute(training_graph([small(seed=3)], store), "in-process", progress=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_the_plan_names_each_run_and_estimates_from_the_recorded_figures(store):
    from anchorkit.engine.plan import FIGURES, contexts, study_plan
    from anchorkit.engine.profiles import PAPER
    from anchorkit.engine.regimes import WEAK
    from anchorkit.engine.registry import STUDIES

    plan = study_plan(STUDIES["control"], [712], PAPER, [WEAK], store)
    lines = "\n".join(plan.lines(workers=2))
    assert re.search(r"control-adam-712\s+400 epochs, to train", lines)
    (cfg,) = plan.regimes[0].runs
    expected = (400 * FIGURES["run-epoch eager"] + contexts(cfg) * FIGURES["pair per context"] / 2
                + FIGURES["page"])
    assert plan.estimate(workers=2)[0] == pytest.approx(expected)
    published = study_plan(STUDIES["control"], [704], PAPER, [WEAK], store)
    assert "in published/" in "\n".join(published.lines(1))
    assert published.regimes[0].ensembles == []


def test_a_plan_of_many_seeds_names_a_few_counts_the_rest_and_says_it_is_long(store):
    """1000 seeds at the paper profile: the plan names the first runs one by one, counts the rest
    by where they come from, and says that the work is long (hours) and how to stop and resume it."""
    from anchorkit.engine.plan import LISTED, study_plan
    from anchorkit.engine.profiles import PAPER
    from anchorkit.engine.regimes import WEAK
    from anchorkit.engine.registry import STUDIES

    seeds = list(range(704, 1704))
    lines = study_plan(STUDIES["control"], seeds, PAPER, [WEAK], store).lines(workers=2)
    named = [ln for ln in lines if re.match(r"\s+control-adam-\d+\s+400 epochs", ln)]
    assert len(named) == LISTED and len(lines) < 4 * LISTED
    assert sum("in published/" in ln for ln in named) == 8
    more = next(ln for ln in lines if "more runs" in ln)
    counted = dict((w, int(n)) for n, w in re.findall(r"(\d+) (to train|in published/)", more))
    assert counted == {"to train": len(seeds) - LISTED}  # 704-711, published, are named above
    hours = float(re.search(r"long: about ([\d.]+) hours", lines[-1]).group(1))
    assert hours > 12 and "the same command resumes" in lines[-1]
    short = study_plan(STUDIES["control"], [712], PAPER, [WEAK], store).lines(workers=2)
    assert not any(ln.startswith("long:") for ln in short)


def test_the_page_reads_myst_roles_and_glued_figures():
    from anchorkit.pages.standalone import markdown

    glue = {"control-lowest": {"text/markdown": '<span class="glued">0.031</span>'}}
    text = ("The {term}`control <Control>` scored {glue:md}`control-lowest` "
            "({doc}`reproducibility`).\n\n```{container} figure-caption\n**Figure.** A.\n```\n")
    got = markdown(text, glue)
    assert "The control scored <span class=\"glued\">0.031</span> (reproducibility)" in got
    assert '<div class="figure-caption"><p><strong>Figure.</strong> A.</p>' in got
    assert "{term}" not in got and "```" not in got


def test_a_vega_lite_output_is_embedded_and_a_glued_record_is_not_shown():
    from anchorkit.pages.standalone import output

    spec = {"mark": "point", "data": {"values": [{"a": 1}]}, "description": "</script>"}
    got = output({"output_type": "display_data",
                  "data": {"application/vnd.vegalite.v5+json": spec}}, {})
    assert "vegaEmbed(div, {" in got and got.count("</script>") == 1
    record = {"output_type": "display_data", "metadata": {"scrapbook": {"name": "k"}},
              "data": {"application/papermill.record/text/plain": "1"}}
    assert output(record, {}) == ""


@pytest.mark.parametrize("stop", ["kernel", "cell", None])
def test_a_notebook_that_stops_keeps_the_previous_notebook_and_page(tmp_path, monkeypatch, stop):
    """Papermill writes the notebook as it executes: a kernel that dies (out of memory, killed) or
    a cell that fails leaves ``<study>.failed.ipynb`` beside the previous notebook, unchanged, and
    the command stops in one line; a notebook that runs through replaces it."""
    from types import SimpleNamespace

    import papermill
    from nbclient.exceptions import DeadKernelError

    from anchorkit.commands import rerun_study

    def executes(source, out, **kw):
        Path(out).write_text("partial")
        if stop == "kernel":
            raise DeadKernelError("Kernel died")
        if stop == "cell":
            raise papermill.PapermillExecutionError(3, 4, "boom", "ValueError", "bad", [])

    monkeypatch.setattr(papermill, "execute_notebook", executes)
    previous = tmp_path / "control.ipynb"
    previous.write_text("previous")
    rerun = SimpleNamespace(out=tmp_path, study=SimpleNamespace(name="control"),
                            notebook=tmp_path / "source.ipynb", parameters={})
    plan = SimpleNamespace(tracks=lambda: [])
    if stop is None:
        assert rerun_study.execute(rerun, plan) == previous and previous.read_text() == "partial"
        assert sorted(f.name for f in tmp_path.iterdir()) == ["control.ipynb"]
        return
    with pytest.raises(SystemExit) as e:
        rerun_study.execute(rerun, plan)
    line = str(e.value.code)
    assert "\n" not in line and str(tmp_path / "control.failed.ipynb") in line
    assert ("kernel died" in line) == (stop == "kernel") and ("ValueError: bad" in line) == (
        stop == "cell")
    assert previous.read_text() == "previous"
    assert (tmp_path / "control.failed.ipynb").read_text() == "partial"
    assert not (tmp_path / "control.running.ipynb").exists()


def test_a_page_that_cannot_be_written_leaves_the_old_page_and_no_temporary_file(tmp_path,
                                                                               monkeypatch):
    from anchorkit.pages import standalone

    page = tmp_path / "control.html"
    page.write_text("old page")
    monkeypatch.setattr(standalone, "render", lambda nb: "new page")
    real = Path.write_text

    def full_disk(self, text, *a, **k):
        real(self, text[:3], *a, **k)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full_disk)
    with pytest.raises(OSError, match="No space left"):
        standalone.write("nb.ipynb", page)
    monkeypatch.undo()
    assert page.read_text() == "old page" and [f.name for f in tmp_path.iterdir()] == [page.name]
