"""The house rules a test can see: anchorkit's modules import each other without a cycle (every
import statement counts, function-level ones too), and data flows one way."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def modules() -> dict[str, Path]:
    """Every module of the package by its name under ``anchorkit`` (``pages.charts``); a
    subpackage's ``__init__`` is the subpackage (``studies``, ``studies.rotated_basis``), the
    package's own and its ``__main__`` are left out."""
    pkg = ROOT / "anchorkit"
    out = {}
    for p in pkg.rglob("*.py"):
        parts = p.relative_to(pkg).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and parts != ("__main__",):  # the command line: it runs the commands, by name
            out[".".join(parts)] = p
    return out


def imported(node, mods) -> set[str]:
    """The package's modules an import statement names (``from anchorkit.pages import charts``
    names ``pages.charts``)."""
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("anchorkit"):
        base = node.module.split(".")[1:]
        named = {".".join([*base, a.name]) for a in node.names}
        return (named & set(mods)) or {".".join(base)}
    if isinstance(node, ast.Import):
        return {a.name.split(".", 1)[1] for a in node.names if a.name.startswith("anchorkit.")}
    return set()


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    graph = {}
    for name, path in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            deps |= imported(node, mods)
        graph[name] = (deps & set(mods)) - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_planted_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_anchorkit_has_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_executor_knows_graphs_and_tasks_not_studies():
    assert not import_graph()["engine.executor"] & {"engine.registry", "engine.pairs", "engine.pipeline",
                                                   "studies.scout", "engine.study"}


def trainers(sources: dict[str, str]) -> set[str]:
    """The modules (by name, from their source) that import ``train`` from ``core.train``: the
    ones that can train a run."""
    out = set()
    for name, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.ImportFrom) and node.module == "anchorkit.core.train"
                    and any(a.name == "train" for a in node.names)):
                out.add(name)
    return out


def test_the_trainer_finder_finds_a_planted_trainer():
    planted = {"essay": "from anchorkit.core.train import load_model, train\n",
               "rank": "from anchorkit.core.train import load_model\n"}
    assert trainers(planted) == {"essay"}


def test_every_run_is_trained_through_the_executor():
    """One graph path: a run is trained only by the executor's training task (a study's graph,
    the scout's); everything else loads stored runs (``core.train.load_run``)."""
    sources = {name: path.read_text() for name, path in modules().items()}
    assert trainers(sources) == {"engine.executor"}


# The layers, lowest first, one folder each: a module reads its own layer and those below it.
# ``core`` knows runs, ``measures`` functions of runs and tables, ``engine`` runs a study knowing
# none by name (its folders found by the registry at run time), ``judging`` judges the source's
# claims, ``studies`` are the folders (a study's own verbs in its ``commands/``), ``pages``
# presents them, and ``commands`` are the reader's verbs. A module's layer is its folder.
LAYERS = ("core", "measures", "engine", "judging", "studies", "pages", "commands")


def layer(module: str) -> int:
    """A module's layer, read from its path; one loose at the package's top has none."""
    first = module.split(".")[0]
    if first not in LAYERS:
        raise ValueError(f"{module} stands in no layer's folder")
    return LAYERS.index(first)


def upward(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Every module that imports one of a higher layer, with those it imports."""
    found = {m: sorted(d for d in deps if layer(d) > layer(m)) for m, deps in graph.items()}
    return {m: d for m, d in found.items() if d}


def test_the_layer_check_finds_a_planted_upward_import():
    planted = {"core.train": {"core.model", "measures.measure"}, "measures.measure": {"core.model"},
               "core.model": set(), "engine.protocol": {"core.train", "pages.page"},
               "judging.rules": {"studies.control"}, "pages.page": {"engine.protocol"}}
    assert upward(planted) == {"core.train": ["measures.measure"], "engine.protocol": ["pages.page"],
                               "judging.rules": ["studies.control"]}
    assert [layer(m) for m in ("core.task", "measures.geometry.maps", "engine.registry",
                               "judging.ledger", "studies.scout.rule", "pages.charts")] \
        == [0, 1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match="protocol stands in no layer"):
        layer("protocol")


def test_every_module_reads_its_own_layer_and_those_below():
    """The core never reads a measure, a study or a page; a measure never reads a study or a page;
    no study reads a page, so that what a page shows cannot change what is computed."""
    graph = import_graph()
    assert {"core.train", "measures.measure", "engine.registry", "judging.ledger", "studies",
            "pages.charts"} <= set(graph)  # seen
    assert {layer(m) for m in graph} == set(range(len(LAYERS)))
    assert upward(graph) == {}
    assert any(d.startswith("pages.") for d in graph["pages.report_page"])  # pages read pages


def test_the_tests_mirror_the_layers():
    """A folder of tests per layer, and ``acceptance`` for the whole repository (its commands,
    built pages, committed records and these rules); no test file loose at ``tests/``'s top."""
    tests = ROOT / "tests"
    assert not list(tests.glob("test_*.py"))
    folders = {p.name for p in tests.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert folders == {*LAYERS, "acceptance"}


def test_no_module_is_loose_at_the_package_top():
    """Every module stands in its layer's folder: the package's top holds ``__init__`` alone (and
    the command line's ``__main__``), so that a module's layer is read from its path."""
    loose = {p.name for p in (ROOT / "anchorkit").glob("*.py")} - {"__init__.py", "__main__.py"}
    assert loose == set()
    assert {m.split(".")[0] for m in import_graph()} == set(LAYERS)


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _cells(path, but_tag=None):
    import json

    return [(c["cell_type"], "".join(c["source"])) for c in json.loads(path.read_text())["cells"]
            if but_tag not in c.get("metadata", {}).get("tags", [])]


def test_every_page_notebook_is_mostly_prose():
    """A page reads like a lecture page: code is under 40% of each notebook's characters (the
    computations live in the library; a page has one call per table or figure, and its glue)."""
    heavy = {}
    for nb in NOTEBOOKS:
        # the Colab set-up cell (scripts/colab_cell.py) is machinery, removed from the page
        cells = _cells(nb, but_tag="colab-setup")
        code = sum(len(s) for t, s in cells if t == "code")
        total = sum(len(s) for t, s in cells if t in ("code", "markdown"))
        if code >= 0.4 * total:
            heavy[nb.name] = round(code / total, 2)
    assert heavy == {}


# a decimal typed into a page that is not a threshold, with the reason it may stay
NOT_THRESHOLDS = {"0.016": "1/64, an even spread of energy, said in words beside it"}


def test_no_threshold_is_typed_into_a_page():
    """Thresholds come from ``anchorkit.measures.criteria`` and the modules' constants, glued or imported:
    no decimal number is typed into a notebook's code or prose (a planted one is found)."""
    import re

    decimal = re.compile(r"(?<![\w.])\d+\.\d+")
    assert decimal.findall("spill at most 0.02 and seeds 704") == ["0.02"]
    typed = {nb.name: found for nb in NOTEBOOKS
             if (found := [d for _, s in _cells(nb) for d in decimal.findall(s)
                           if d not in NOT_THRESHOLDS])}
    assert typed == {}


# The modules over about 350 lines, each with the one idea it holds. A module that grows past the
# limit is split, or named here with its one idea; one that shrinks below it leaves the list.
LONG_LINES = 350
LONG_MODULES: dict[str, str] = {}  # none now (pages.page left it with the request, issue 49)


def long_modules() -> set[str]:
    return {p.stem for p in (ROOT / "anchorkit").rglob("*.py")
            if len(p.read_text().splitlines()) > LONG_LINES}


def test_every_long_module_is_one_named_idea():
    assert long_modules() == set(LONG_MODULES)


# The folders' modules that read the registry, each with the studies whose runs it reads: a study
# of studies (the essay measures the paper's studies' stored runs, the diagnosis probes the
# report's); never a folder's value (its ``__init__``), which the registry imports as it starts.
READS_THE_REGISTRY = {
    "studies.essay.measuring": "the essay measures the stored runs of the paper's studies",
    "studies.diagnosis.running": "the diagnosis probes the rotated-basis study's runs",
    "studies.diagnosis.overlap": "its overlap curves read the rotated-basis study's controls",
}


def test_a_study_folder_stands_on_the_layers_below_it():
    """A study's folder (``studies.<name>``, with its modules) reads the study value, the rules
    and the measures below it, and its own modules: never another study's folder, the protocol
    that runs it, the ledger that gathers its claims, or the pages, nor the registry but where it
    reads another study's runs (``READS_THE_REGISTRY``); and the value (``study``) knows no
    folder, so that adding or removing a folder touches no other module below the pages."""
    graph = import_graph()
    folders = {m for m in graph if m.startswith("studies.")}
    assert {"studies.rotated_basis", "studies.control", "studies.rotated_basis.anchor",
            "studies.essay", "studies.scout.rule", "studies.diagnosis.rank"} <= folders

    def folder(m):
        return ".".join(m.split(".")[:2])

    wrong = {m: sorted(d for d in graph[m] if (d == "engine.registry" and m not in READS_THE_REGISTRY)
                       or d == "engine.protocol" or d.startswith(("pages.", "judging.ledger",
                                                                  "judging.claims"))
                       or (d in folders and folder(d) != folder(m)))
             for m in folders}
    assert {m: d for m, d in wrong.items() if d} == {}
    assert {m for m in folders if "engine.registry" in graph[m]} == set(READS_THE_REGISTRY)
    assert not any(m == folder(m) for m in READS_THE_REGISTRY)  # no value reads the registry
    assert not any(d.startswith("studies") or d == "engine.registry" for d in graph["engine.study"])
    # below the pages, only the registry names a folder, by discovery (the pages present the
    # folders' texts: the report's pages read several studies')
    named = {m: sorted(d for d in deps if d in folders) for m, deps in graph.items()}
    assert {m: d for m, d in named.items() if d and m not in folders and layer(m) < LAYERS.index("pages")} == {}


# The modules that name a regime of the registry by its own name, each with the study it declares
# (a study about one regime says which); every other module but the registry itself reads ``regimes.DEFAULT``,
# ``regimes.REPORT`` or a regime passed down as a value.
REGIME_NAMES = ("WEAK", "SECOND", "RECALIBRATED")
DECLARES_A_REGIME = {
    "studies.scout.viability": "the second regime's viability check judges that regime",
    "studies.rotated_basis.recalibration": "the recalibration reopened in the second regime",
    "studies.diagnosis": "the diagnosis's focus and the regimes it is measured in",
    "studies.essay.measuring": "the essay measures the weak-basis regime's runs (ESSAY_REGIME)",
    "studies.rotated_basis.confirmation": "the confirmation asks the recalibrated regime's "
                                          "question again, on fresh seeds",
    "studies.rotated_basis.basis_free": "the basis-free arm is calibrated in the recalibrated "
                                        "regime",
}


def regimes_named(tree: ast.AST) -> set[str]:
    """The registry's regimes a module's code names: imported from ``anchorkit.engine.regimes`` or read
    as ``regimes.<NAME>``."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "anchorkit.engine.regimes":
            found |= {a.name for a in node.names if a.name in REGIME_NAMES}
        if (isinstance(node, ast.Attribute) and node.attr in REGIME_NAMES
                and isinstance(node.value, ast.Name) and node.value.id.lstrip("_") == "regimes"):
            found.add(node.attr)
    return found


def test_the_regime_name_finder_finds_both_spellings():
    code = "from anchorkit.engine.regimes import REPORT, SECOND\nx = regimes.WEAK\ny = _regimes.SCREENED"
    assert regimes_named(ast.parse(code)) == {"SECOND", "WEAK"}


def test_no_module_names_a_regime_but_those_declaring_one():
    named = {m for m, p in modules().items() if regimes_named(ast.parse(p.read_text()))}
    assert named == set(DECLARES_A_REGIME)
