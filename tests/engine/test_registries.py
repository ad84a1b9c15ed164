"""Studies, regimes and profiles are values: a new regime or study is one entry in its registry,
and everything below the entry points follows from the value (no list of names elsewhere)."""

import math
from pathlib import Path

import pandas as pd
import pytest

from anchorkit.judging import claims, ledger
import anchorkit.studies as package  # the folders the registry searches
from anchorkit.engine import protocol, regimes, registry
from anchorkit.pages import report_page
from anchorkit.core.config import ParameterError
from anchorkit.engine.profiles import PAPER, PROFILES, QUICK, profile
from anchorkit.engine.provenance import read_provenance, read_tables
from anchorkit.engine.regimes import RECALIBRATED, REPORT, SECOND, WEAK, Regime, regime
from anchorkit.core.store import RunStore
from anchorkit.engine.registry import STUDIES, Study, study

ROOT = Path(__file__).resolve().parents[2]

# a third regime and a study the house has never heard of
TOY_REGIME = Regime("toy-regime", {"train": {"beta2": 0.99}}, epochs=2, title="toy regime",
                    glue="-toy")
TOY_STUDY = Study("toy-study", (("falloff", "adam"),), seeds=(3,),
                  derive=lambda t: {"toy": t["results"][["seed", "net_removal"]]})


@pytest.fixture
def registered(monkeypatch):
    """The toy regime and study in temporary registries (restored after the test)."""
    monkeypatch.setitem(regimes.REGIMES, TOY_REGIME.name, TOY_REGIME)
    monkeypatch.setitem(registry.STUDIES, TOY_STUDY.name, TOY_STUDY)
    monkeypatch.setitem(registry.EVERY, TOY_STUDY.name, TOY_STUDY)


def test_a_toy_study_in_a_toy_regime_is_computed_and_written_under_the_regimes_folder(
        registered, tmp_path):
    out = protocol.run_study("toy-study", [3], "quick", epochs=1, reports_dir=tmp_path,
                            store=RunStore(tmp_path / "store"), progress=False,
                            scheduler="in-process", regime="toy-regime")
    where = tmp_path / "toy-regime" / "toy-study"
    assert set(read_tables(where)) == set(out)
    assert "toy" in out and list(out["toy"].seed) == [3]  # the study's own derived table
    prov = read_provenance(where)
    assert prov["regime"] == "toy-regime" and prov["profile"] == "quick"
    runs = registry.study_runs("toy-study", [3], "quick", 1, "toy-regime")
    assert sorted(prov["runs"]) == sorted(c.name for c in runs)
    assert all(c.train.beta2 == 0.99 and c.epochs == 1 for c in runs)


def test_a_toy_regimes_page_figures_carry_its_glue_key(registered):
    """The report page's figures for a regime it has never named: every glue key suffixed by
    the regime's key, every table titled by its title (the committed weak-basis tables stand in
    for the toy regime's)."""
    tables = read_tables(ROOT / "reports" / "rotated-basis")
    claims = ledger.ledger(ROOT / "reports", WEAK.title)
    shown = {WEAK: tables, TOY_REGIME: tables}
    glued, plain = report_page.summary_figures(shown, {WEAK: claims, TOY_REGIME: claims})
    for key in ("answer-e1", "answer-e2", "answer-e3", "answer-discussion"):
        assert glued[key] == glued[key + "-toy"]  # the same tables, the same answer
        assert glued[SECOND.key(key)].startswith("The second regime's tables are not computed")
    assert "Toy regime:" in plain["answer-e1-text"]
    later = report_page.later_figures(ROOT / "reports", shown)
    assert set(later) == {"later-moved", "later-moved-toy",
                          *(r.key("later-moved") for r in REPORT[1:])}
    table = report_page.question_table(shown, "E1", "E1.").data
    assert "Toy regime" in table.columns


def test_a_regime_added_to_the_report_is_one_more_line_of_every_per_regime_list(monkeypatch):
    """The report's and the reference baseline's per-regime findings are lists the page's markdown
    places whole: a third regime of the report (here the toy one, its tables not computed) is one
    more line in each, in the report's order, and the sentence naming the regimes counts it."""
    from anchorkit.pages import page, supporting

    monkeypatch.setattr(page, "REPORT", (*REPORT, TOY_REGIME))
    tables = read_tables(ROOT / "reports" / "rotated-basis")
    shown = {WEAK: tables}
    glued, _ = report_page.summary_figures(shown, {WEAK: ledger.ledger(ROOT / "reports", WEAK.title)})
    glued |= report_page.later_figures(ROOT / "reports", shown)
    lists = report_page.each_lists(glued, shown)
    assert set(lists) == {"moved-rotated-each", "later-moved-each"}  # the predictions come later
    for md in lists.values():
        lines = md.split("\n")
        assert [line.split(":*")[0] for line in lines] == [
            f"- *{r.title[0].upper() + r.title[1:]}" for r in (*REPORT, TOY_REGIME)]
        assert "not computed yet" in lines[-1] or "not measured yet" in lines[-1]
    said = report_page.regimes_text(shown, {WEAK: {"epochs": 400}})
    assert said.startswith(f"We did so in {len(REPORT) + 1} ") and "**toy regime** (Adam's β₂ at 0.99; 2 epochs)" in said
    others = supporting.other_regimes([*REPORT[1:], TOY_REGIME], {})
    assert len(others.split("\n")) == len(REPORT) and f"--regime {TOY_REGIME.name}" in others
    assert "{download}" not in others.split("\n")[-1]  # no link to a file that is not there
    files = page.files_text("rotated-basis", ["e2", "results"], (WEAK, TOY_REGIME))
    weak, toy = files.split("; ")
    assert weak.count("{download}") == 2 and "{download}" not in toy
    assert toy.startswith("toy regime: not computed yet") and f"--regime {TOY_REGIME.name}" in toy


def test_registries_resolve_names_once_and_refuse_unknown_ones():
    assert study("control") is STUDIES["control"] and study(STUDIES["control"]) is STUDIES["control"]
    assert regime(None) is WEAK and regime(SECOND.name) is SECOND and regime(SECOND) is SECOND
    assert profile("quick") is QUICK and profile(PAPER) is PAPER
    for resolve, name in ((study, "study"), (regime, "regime"), (profile, "profile")):
        with pytest.raises(ParameterError, match=f"'{name}'"):
            resolve("no-such")
    assert set(PROFILES) == {"paper", "quick", "scout"}


def test_a_regime_names_its_folder_and_glue_keys():
    assert WEAK.reports("r") == Path("r") and WEAK.key("answer-e1") == "answer-e1"
    assert SECOND.reports("r") == Path("r") / SECOND.name
    assert SECOND.key("answer-e1") == "answer-e1-second"
    other = Regime("beta2-0.999", {"train": {"beta2": 0.999}})  # defaults from its name
    assert other.title == "beta2-0.999 regime" and other.key("x") == "x-beta2-0.999"
    assert other.reports("r") == Path("r") / "beta2-0.999"
    assert REPORT == (WEAK, SECOND, RECALIBRATED)


def test_a_profile_sets_what_it_names_and_leaves_the_rest_to_the_regime():
    weak_paper = registry.run_config(704, "control", "adam", PAPER, WEAK)
    second_paper = registry.run_config(704, "control", "adam", PAPER, SECOND)
    assert (weak_paper.epochs, weak_paper.train.step) == (400, "eager")
    assert (second_paper.epochs, second_paper.train.step) == (SECOND.epochs, "compiled")
    for r in (WEAK, SECOND):
        quick = registry.run_config(704, "control", "adam", QUICK, r)
        assert (quick.epochs, quick.train.step, quick.task) == (4, "eager", QUICK.task)
        assert registry.run_config(704, "control", "adam", QUICK, r, epochs=9).epochs == 9


def test_every_study_pairs_each_arm_with_the_control_of_its_optimizer():
    for s in STUDIES.values():
        pairs = s.pairs([704, 705])
        assert len(pairs) == 2 * len(s.arms)
        for p in pairs:
            assert p.control.recipe == "control"
            assert p.control.optimizer == p.anchored.optimizer
            assert p.control.seed == p.anchored.seed
    frame = pd.DataFrame([(p.anchored.recipe, p.anchored.optimizer)
                          for p in STUDIES["rotated-basis"].pairs([704])])
    assert frame.values.tolist() == [["falloff", "rotated"], ["falloff", "adam"]]


def test_no_notebook_spells_a_regimes_folder_or_glue_key_by_its_name():
    """Paths and glue keys come from the ``Regime`` value (``Regime.reports``, ``Regime.key``),
    so that a regime added to the report needs no notebook's text rewritten."""
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        text = nb.read_text()
        for r in regimes.REGIMES.values():
            if r.folder is not None:
                assert f"{r.folder}/" not in text, (nb.name, r.name)
                assert f"-{r.name}`" not in text and f'-{r.name}"' not in text, (nb.name, r.name)


@pytest.mark.parametrize("r", REPORT, ids=lambda r: r.name)
def test_every_committed_study_follows_from_its_registry_entry(r, tmp_path):
    """The committed tables of each study in each report regime are those its ``Study`` value
    names: the same runs (by hash) and, derived again from its measured tables, the same derived
    tables (bitwise, after the Parquet round trip the tables were written with)."""
    seen = 0
    for s in STUDIES.values():
        where = r.reports(ROOT / "reports") / s.name
        if not (where / "provenance.json").exists():
            continue
        seen += 1
        prov, tables = read_provenance(where), read_tables(where)
        assert {c.name: c.hash for c in s.runs(list(s.seeds), PAPER, r)} == prov["runs"]
        for name, table in s.derive(tables).items():
            table.to_parquet(tmp_path / "t.parquet", index=False)
            pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), tables[name],
                                          check_exact=True)
    assert seen >= 2


def test_a_pages_seeds_are_checked_once_on_their_way_to_training(tmp_path, monkeypatch):
    """From a notebook's parameters cell to the runs trained: the seeds, the device and the
    scheduler checked once, where the request is built (``pages.page.from_cell``,
    ``request.request``); the study looked up once; the modules below read the request's checked
    values."""
    import anchorkit.core.config as config
    import anchorkit.engine.request as request
    import anchorkit.engine.study as study_module
    from anchorkit.pages import page

    import anchorkit.core.train as train_module
    import anchorkit.engine.executor as executor

    calls = {"seeds": 0, "study": 0, "device": 0, "scheduler": 0}

    def counted(what, real):
        def check(value, **options):
            calls[what] += 1
            return real(value, **options)
        return check

    checks = {"check_seeds": counted("seeds", config.check_seeds),
              "check_device": counted("device", config.check_device),
              "check_scheduler": counted("scheduler", executor.check_scheduler)}
    for module in (config, request, page, registry, protocol, study_module, executor, train_module):
        for name, check in checks.items():
            monkeypatch.setattr(module, name, check, raising=False)
    monkeypatch.setattr(registry, "study", counted("study", registry.study))
    monkeypatch.setattr(page, "glue", lambda *a, **k: None)  # no notebook here
    cell = dict(seeds=[3], profile="quick", epochs=1, reports_dir=tmp_path / "r",
                store_dir=tmp_path / "s", progress=False, scheduler="in-process",
                page=page)  # ``page``: not a parameter
    shown = page.study_page("control", page.from_cell(cell))
    assert calls == {"seeds": 1, "study": 1, "device": 1, "scheduler": 1}
    assert list(shown.shown) == [WEAK] and list(shown.tables["results"].seed) == [3]


def test_a_seeds_trip_is_counted_from_the_parameters_cell_to_training():
    """``scripts.seed_trip`` follows the seed from a page's parameters cell to the call that trains:
    it starts in the page, is checked in the request, and training is called from the page
    through the protocol and the executor only; the regime hands out a run's settings but its
    seed and never sees it, so the seed passes at most 8 modules on its way (9 when the regime
    built the whole run)."""
    from scripts.seed_trip import Trip, trip

    t = trip()
    assert t.steps[:2] == ["pages.page", "engine.request"] and t.steps[-1] == "core.train"
    assert t.stack == ["pages.page", "engine.protocol", "engine.executor", "core.train"]
    assert {"engine.study", "core.config"} <= set(t.path) and t.calls["core.train"] == 1
    assert "engine.regimes" not in t.calls and len(t.path) <= 8
    # the store and the progress bars read a run's configuration and answer something else
    assert {"core.store", "core.progress"} <= set(t.side) and not set(t.side) & set(t.stack)
    planted = Trip({"a": 2, "b": 1, "c": 1}, onward={"a"}, steps=["a", "b", "a", "c"], stack=["c"])
    assert (planted.path, planted.side) == (["a", "c"], ["b"])


def test_a_parameters_cell_is_read_by_name_and_checked_once():
    """``from_cell`` reads the parameters a cell sets (the rest keep their defaults) and names a
    bad one before any work; a page that shows one regime refuses ``regimes``."""
    from anchorkit.pages.page import from_cell, study_page
    from anchorkit.engine.request import PARAMETERS, request

    assert from_cell({"seeds": [3], "unrelated": 1}).profile == PAPER
    got = from_cell({"seeds": [3], "profile": "quick", "doses": [0.5, 1], "reuse": "no",
                     "regimes": [SECOND.name]})
    assert (got.profile, got.doses, got.reuse, got.regimes) == (QUICK, (0.5, 1.0), False,
                                                               (SECOND,))
    assert set(PARAMETERS) >= {"seeds", "profile", "epochs", "doses", "regimes", "scheduler"}
    for bad in ({"seeds": "3"}, {"seeds": [3], "epochs": 0}, {"seeds": [3], "device": "gpu"},
                {"seeds": [3], "scheduler": "inprocess"}, {"seeds": [3], "reuse": "maybe"},
                {"seeds": [3], "regimes": "second"}):
        with pytest.raises(ParameterError, match=f"parameter '{next(reversed(bad))}'"):
            from_cell(bad)
    with pytest.raises(ParameterError, match="parameter 'regimes'.*one regime only"):
        study_page("control", request([3], regimes=[SECOND.name]))


def test_a_misspelt_or_mistyped_papermill_parameter_is_named():
    """``-p sedes 2`` (a name no cell before papermill's injected one sets) is named as unknown
    instead of running the page's defaults; ``-p store_dir 5`` names the folder parameter; a
    correct injection, or none (the book's build), passes."""
    from anchorkit.engine.request import check_injected, request

    cell = "seeds = [704]\nprofile = 'paper'\nlengths = [400]\n"
    ok = ["import sys", cell, "# Parameters\nseeds = [712]\nlengths = [800]\n", "x = 1"]
    check_injected({"In": ok})
    check_injected({"In": ["", cell, "page = 1"]})
    check_injected({})
    with pytest.raises(ParameterError, match=r"parameter 'sedes' = 2: not a parameter of this "
                                             r"page \(misspelt\?\); it reads lengths, profile, seeds"):
        check_injected({"In": ["", cell, "# Parameters\nsedes = 2\n"], "sedes": 2})
    for name in ("store_dir", "reports_dir"):
        with pytest.raises(ParameterError, match=f"parameter '{name}' = 5: expected a folder"):
            request([3], **{name: 5})


def test_a_page_refuses_a_parameter_it_does_not_use(monkeypatch):
    """Every page opens through ``study_page`` and reads the same parameters cell names; one its
    study does not use, set away from its default, is named instead of ignored (before any
    work): the essay's and the scout's by their survey protocol, ``lengths`` (the scout's) by a
    study of paired runs."""
    import torch

    from anchorkit.pages.page import study_page
    from anchorkit.engine.request import request

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # as on a GPU machine

    for req, name in ((request([704], doses=[0.5, 1]), "doses"),
                      (request([704], regimes=[SECOND.name]), "regimes"),
                      (request([704], lengths=[2]), "lengths")):
        with pytest.raises(ParameterError, match=f"parameter '{name}'.*essay page does not use"):
            study_page("geometry-of-anchors", req)
    for req, name in ((request([1], "scout", epochs=3), "epochs"),
                      (request([1], "scout", device="cuda"), "device"),
                      (request([1], "scout", doses=[0.5, 1]), "doses")):
        with pytest.raises(ParameterError, match=f"parameter '{name}'.*scout page does not use"):
            study_page("optimizer-scout", req)
    with pytest.raises(ParameterError, match="parameter 'lengths'.*control page does not use"):
        study_page("control", request([704], lengths=[2]))
    outside = regimes.RECALIBRATED.name  # a regime, but not one of the scout's catalogue
    with pytest.raises(ParameterError, match=f"parameter 'regimes' = '{outside}'"):
        study_page("optimizer-scout", request([1], "scout", regimes=[outside]))
    with pytest.raises(ParameterError, match="diagnosis.*reads the committed tables only"):
        study_page("diagnosis", request([704]))


# a study the house has never heard of, as a folder of its own: its value and its derived table
TOY_FOLDER = '''
"""A toy study: plain-Adam falloff at one seed, with a table of its own and a claim of its own."""

from anchorkit.judging.rules import AtLeast, Claim, Size
from anchorkit.engine.study import Study


def toy_tables(tables):
    return {"toy": tables["results"][["seed", "raw_removal"]]}


REMOVES = Claim("T1", "the toy removes", "later", "The toy's edit removes the op.", "some",
                (Size("removal", lambda t: t.need("toy-folder-study", "toy").raw_removal,
                      AtLeast(0.0), "the toy runs' raw removal"),))
STUDY = Study("toy-folder-study", (("falloff", "adam"),), seeds=(3,), derive=toy_tables, place=99,
              claims=(REMOVES,))
'''
TOY_FINDINGS = '''
"""The toy study's page texts."""


def toy_facts(toy):
    return {"toy-seeds": ", ".join(str(s) for s in toy.seed)}
'''


def test_a_toy_study_is_one_folder_that_the_registry_finds_and_computes(tmp_path, monkeypatch):
    """A new study is a folder (``anchorkit/studies/<name>/``, here one placed beside the package's
    own on its search path): the registry finds it, and its tables, its own derived one among
    them, are computed through the one graph path without another module naming it; the ledger
    judges its claim on them, and its page finds its texts through the registry."""
    import sys

    folder = tmp_path / "pkg" / "toy_folder_study"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(TOY_FOLDER)
    (folder / "findings.py").write_text(TOY_FINDINGS)
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(folder.parent)])
    monkeypatch.setattr(registry, "FOLDERS", dict(registry.FOLDERS))
    for m in ("", ".findings"):
        monkeypatch.delitem(sys.modules, f"anchorkit.studies.toy_folder_study{m}", raising=False)
    found = registry.discover()
    assert list(found)[:len(STUDIES)] == list(STUDIES)  # the package's own first, in place
    assert list(found)[-1] == "toy-folder-study"
    from anchorkit.pages.catalogue import catalogue

    page = catalogue(found)["toy-folder-study"]  # a page of the book, executed like the others
    assert page.computes and not page.written(tmp_path)
    monkeypatch.setattr(registry, "EVERY", found)
    monkeypatch.setattr(registry, "STUDIES", {n: s for n, s in found.items() if isinstance(s, Study)})
    out = protocol.run_study("toy-folder-study", [3], "quick", epochs=1, reports_dir=tmp_path,
                             store=RunStore(tmp_path / "store"), progress=False,
                             scheduler="in-process")
    assert list(out["toy"].seed) == [3] and set(read_tables(tmp_path / "toy-folder-study")) == set(out)
    assert registry.findings("toy-folder-study").toy_facts(out["toy"]) == {"toy-seeds": "3"}
    gathered = claims.gathered(found.values())
    assert [c.id for c in gathered][-2:] == ["T1", "S1"]  # its section's place, "later"
    monkeypatch.setattr(ledger, "CLAIMS", gathered)
    row = ledger.ledger(tmp_path).set_index("id").loc["T1"]
    # one seed: our median with no interval, which no size can decide
    assert row.verdict == ledger.UNDECIDED and row.ours.endswith("(too few seeds for a 95% interval, n = 1)")
    for m in ("", ".findings"):
        sys.modules.pop(f"anchorkit.studies.toy_folder_study{m}", None)


TOY_SURVEY = '''
"""A toy survey: a study whose work is its own graph; its page's protocol is this module."""
from anchorkit.engine.study import Survey


def written(reports, req=None):
    return (reports / "toy-survey" / "provenance.json").exists()


STUDY = Survey("toy-survey", place=98, protocol=__name__,
               pending="Its rule, fixed before its runs.")
'''


def test_a_toy_survey_is_one_folder_that_becomes_a_page(tmp_path, monkeypatch):
    """A study whose work is not paired runs (``Survey``, as the essay, the scout and the
    diagnosis) is a folder too: the registry finds it among every study, in its place, not among
    the studies of paired runs, and the catalogue makes it a page that says whether its tables
    are written and what its stand-in adds, nothing else naming it."""
    import sys

    from anchorkit.pages.catalogue import catalogue

    folder = tmp_path / "pkg" / "toy_survey"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(TOY_SURVEY)
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(folder.parent)])
    monkeypatch.setattr(registry, "FOLDERS", dict(registry.FOLDERS))
    monkeypatch.delitem(sys.modules, "anchorkit.studies.toy_survey", raising=False)
    found = registry.discover()
    assert list(found) == [*registry.EVERY, "toy-survey"]  # place 98: after every study here
    assert not isinstance(found["toy-survey"], Study)
    page = catalogue(found)["toy-survey"]
    assert page.computes and not page.written(tmp_path) and page.pending.startswith("Its rule")
    (tmp_path / "toy-survey").mkdir()
    (tmp_path / "toy-survey" / "provenance.json").write_text("{}")
    assert page.written(tmp_path)
    with pytest.raises(LookupError, match="toy-survey"):
        registry.findings(found["toy-survey"])  # no findings.py in its folder
    sys.modules.pop("anchorkit.studies.toy_survey", None)


def test_the_essay_the_scout_and_the_diagnosis_are_studies_of_the_registry():
    from anchorkit.studies import diagnosis, essay, scout
    from anchorkit.studies.essay import measuring

    assert [s.name for s in registry.EVERY.values() if not isinstance(s, Study)] == [
        measuring.ESSAY, scout.SCOUT, "diagnosis"]
    assert registry.EVERY[measuring.ESSAY] is essay.STUDY and scout.STUDY.pending == scout.PENDING
    assert not diagnosis.STUDY.computes  # its page reads the tables its script commits
    assert registry.findings("diagnosis").__name__ == "anchorkit.studies.diagnosis.findings"
    assert set(registry.STUDIES) == {n for n, s in registry.EVERY.items() if isinstance(s, Study)}


def test_two_folders_naming_one_study_are_refused(tmp_path, monkeypatch):
    import sys

    for name in ("twin_a", "twin_b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            "from anchorkit.engine.study import Study\nSTUDY = Study('control', (('control', 'adam'),))\n")
        monkeypatch.delitem(sys.modules, f"anchorkit.studies.{name}", raising=False)
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    with pytest.raises(ValueError, match="'control' is defined by two folders"):
        registry.discover()
    for name in ("twin_a", "twin_b"):
        sys.modules.pop(f"anchorkit.studies.{name}", None)


def test_every_study_folder_has_its_notebook_and_its_line_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text()
    for s in registry.EVERY.values():
        assert (ROOT / "notebooks" / f"{s.page}.ipynb").exists(), s.name
        assert f"file: book/studies/{s.page}\n" in toc, s.name


def test_every_notebook_is_one_page_of_the_catalogue_and_a_line_of_the_table_of_contents():
    """The book's pages are the catalogue's (``pages.catalogue``): every study of the registry in
    its place (the studies of paired runs, then the essay, the scout and the diagnosis), then the
    report's pages that read committed tables only; nothing else lists them."""
    from anchorkit.pages.catalogue import CATALOGUE, READ_ONLY

    toc = (ROOT / "_toc.yml").read_text()
    assert set(CATALOGUE) == {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert all(f"file: book/studies/{name}\n" in toc for name in CATALOGUE)
    assert list(CATALOGUE)[:len(STUDIES)] == list(STUDIES)
    assert list(CATALOGUE) == [s.page for s in registry.EVERY.values()] + list(READ_ONLY)
    assert [n for n, p in CATALOGUE.items() if not p.computes] == ["diagnosis", *READ_ONLY]


def test_a_studys_claim_joins_the_ledger_from_the_studys_folder_alone(monkeypatch, tmp_path):
    """A claim is data in its study's value (``Study.claims``): the ledger gathers it in its
    section's place and judges it on the study's committed tables, nothing else naming it."""
    from dataclasses import replace

    from anchorkit.engine.provenance import write_study
    from anchorkit.judging.rules import AtLeast, Claim, Size

    holds = Claim("T1", "the toy holds", "later", "The toy's anchor holds.", "about 1",
                  (Size("net removal", lambda t: t.need("toy-study", "toy").net_removal,
                        AtLeast(0.5), "the toy runs' net removal"),))
    toy = replace(TOY_STUDY, claims=(holds,))
    gathered = claims.gathered([*STUDIES.values(), toy])
    ids = [c.id for c in gathered]
    assert ids.index("L1") < ids.index("T1") < ids.index("S1")  # its section, "later"
    assert [c.id for c in claims.gathered(STUDIES.values())] == [c.id for c in ledger.CLAIMS]
    monkeypatch.setattr(ledger, "CLAIMS", gathered)
    seeds = list(range(8))
    write_study(tmp_path / "toy-study", {"toy": pd.DataFrame(
        {"seed": seeds, "net_removal": [0.8, 0.9, 0.85, 0.95, 0.9, 0.88, 0.92, 0.87]})},
        "toy-study", seeds, "quick", TOY_STUDY.runs([3], QUICK), 0.0, {})
    row = ledger.ledger(tmp_path).set_index("id").loc["T1"]
    assert row.verdict == ledger.REPRODUCED and row["name"] == "the toy holds"
    assert row.rule == "our median's 95% interval of the toy runs' net removal: at least 0.5"
    with pytest.raises(ValueError, match="section 'nowhere'"):
        claims.gathered([replace(toy, claims=(replace(holds, section="nowhere"),))])
    with pytest.raises(ValueError, match="claimed twice"):
        claims.gathered([toy, toy])


def test_a_studys_page_texts_are_found_through_the_registry(registered):
    """A page reads its study's texts from the study's folder through the registry
    (``registry.findings``), so no module but the registry names a folder; a study whose folder
    has none says so, an unknown study names the parameter."""
    assert registry.findings("control").control_facts.__module__ == "anchorkit.studies.control.findings"
    assert registry.findings("loss-rate-screen").__name__.startswith(registry.FOLDERS["loss-rate-screen"])
    assert all(registry.findings(name) for name in registry.FOLDERS)  # every folder has them
    with pytest.raises(LookupError, match="toy-study.*no page texts"):
        registry.findings("toy-study")  # a value registered without a folder
    with pytest.raises(ParameterError, match="study"):
        registry.findings("no-such-study")


@pytest.mark.slow
def test_a_toy_optimizer_with_no_own_basis_is_one_value_that_a_study_trains_and_measures(
        monkeypatch, tmp_path):
    """Adding an optimizer touches its registries alone: a toy with no own basis (its update
    rule one entry of ``UPDATES``, the optimizer one of ``optimizers.REGISTRY``) is trained and
    measured by a toy study through the one graph path, its reference the random directions (no
    basis of its own), with no other module told of it (its sweep: test_optimizers.py)."""
    from anchorkit.core import optimizers
    from anchorkit.core.optim import UPDATES, SharedAdam

    toy = optimizers.Optimizer("toy-none", "a toy with no own basis", None, update="toy-none")
    monkeypatch.setitem(UPDATES, "toy-none", SharedAdam)
    monkeypatch.setitem(optimizers.REGISTRY, toy.name, toy)
    s = Study("toy-none-study", (("falloff", "toy-none"),), seeds=(3,))
    monkeypatch.setitem(registry.STUDIES, s.name, s)
    out = protocol.run_study(s.name, [3], "quick", epochs=1, reports_dir=tmp_path,
                             store=RunStore(tmp_path / "store"), progress=False,
                             scheduler="in-process")
    row = out["results"].iloc[0]
    assert len(out["results"]) == 1 and row.optimizer == "toy-none"
    assert {c.optimizer for c in s.runs([3], QUICK, regimes.DEFAULT, 1)} == {"toy-none"}
    assert math.isfinite(row["raw_removal"]) and "toy-none" in str(row["run"])


def test_a_regime_that_only_swaps_a_recipe_is_said_as_its_parent_s_settings_with_the_swap():
    """The report's regime sentence: the recalibrated regime (the second's model and training,
    its own falloff) is said as the second regime's settings with the swap, not its changes
    again; a regime with changes of its own lists them; the weak-basis one has none to list."""
    said = report_page.regimes_text({WEAK: {}, SECOND: {}, RECALIBRATED: {}}, {})
    assert "the **weak-basis regime** (400 epochs)" in said
    assert f"the **second regime** ({SECOND.describe()}; " in said
    assert ("the **second regime, recalibrated** (the second regime's settings, falloff-pull-0.3 "
            "in place of falloff; ") in said
    alone = report_page._described(RECALIBRATED, [WEAK])  # its parent not named before it
    assert alone == f"{RECALIBRATED.describe()}; " and report_page._described(WEAK, []) == ""


def test_seeds_of_a_fixed_set_name_the_strays_and_the_set():
    from anchorkit.engine.request import check_seeds_of

    assert check_seeds_of([720, 721], range(720, 744), "the confirmation's") == [720, 721]
    with pytest.raises(ParameterError, match=r"\[3, 800\].*the confirmation's seeds are 720–743"):
        check_seeds_of([720, 3, 800], range(720, 744), "the confirmation's")
    with pytest.raises(ParameterError, match="distinct"):  # check_seeds' checks first
        check_seeds_of([720, 720], range(720, 744), "the confirmation's")
