"""Re-running a study with other seeds (``scripts/rerun_study.py``): parameters checked before any
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
from anchorkit.executor import execute, train_task, training_graph

from conftest import small

ROOT = Path(__file__).resolve().parent.parent


def rerun(*argv, store: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANCHORKIT_STORE": str(store)}
    return subprocess.run([sys.executable, "-m", "scripts.rerun_study", *argv], cwd=ROOT,
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
def test_a_bad_parameter_is_one_line_before_any_work(tmp_path, argv, named):
    r = rerun(*argv, store=tmp_path / "store", timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and named in errors[0], r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""  # nothing planned, let alone trained
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


def test_a_sweep_task_reports_each_direction_and_answers_as_one_sweep(store):
    from anchorkit.measures.answers import sweep_answers
    from anchorkit.pairs import SWEEP_CHUNK
    from anchorkit.pipeline import sweep_task
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
    from anchorkit.plan import FIGURES, contexts, study_plan
    from anchorkit.profiles import PAPER
    from anchorkit.regimes import WEAK
    from anchorkit.studies import STUDIES

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
