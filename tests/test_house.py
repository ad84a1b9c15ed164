"""The house rules a test can see: anchorkit's modules import each other without a cycle (every
import statement counts, function-level ones too), and data flows one way."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def import_graph() -> dict[str, set[str]]:
    mods = {p.stem: p for p in (ROOT / "anchorkit").glob("*.py") if p.stem != "__init__"}
    graph = {}
    for name, path in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("anchorkit"):
                parts = node.module.split(".")
                deps |= {parts[1]} if len(parts) > 1 else {a.name for a in node.names}
            elif isinstance(node, ast.Import):
                deps |= {a.name.split(".")[1] for a in node.names if a.name.startswith("anchorkit.")}
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
    assert not import_graph()["executor"] & {"studies", "pairs", "pipeline", "scout", "derived"}
