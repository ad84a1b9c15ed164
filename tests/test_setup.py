"""The project's set-up: pins agree, the README names the two commands."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def pins_from_pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    reqs = project["dependencies"] + extras["test"] + extras["interop"]
    return dict(_pin(r) for r in reqs)


def _pin(req: str) -> tuple[str, str]:
    m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", req.strip())
    assert m, f"dependency not pinned exactly: {req!r}"
    return m.group(1).lower(), m.group(2)


def test_environment_yml_has_the_same_pins_as_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    conda_pins = dict(_pin(r) for r in pip if not r.startswith("-e"))
    assert conda_pins == pins_from_pyproject()
    assert "python=3.11" in env["dependencies"]


def test_torch_is_pinned_to_the_cpu_build_on_disk():
    assert pins_from_pyproject()["torch"] == "2.13.0"


def test_readme_names_the_two_commands_and_ci_calls_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert "make book" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def _readme_command(target: str) -> str:
    """The README's command line for ``make <target>`` (from its code block of the two commands)."""
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "README.md").read_text().splitlines()]
    found = [ln for ln in lines if ln.startswith(f"make {target}")]
    assert found, f"the README names no `make {target}` command"
    return found[0]


def test_the_site_workflow_builds_the_book_as_the_readme_does_and_deploys_it_to_pages():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    steps = [s for job in wf["jobs"].values() for s in job["steps"]]
    runs = [s["run"].strip() for s in steps if "run" in s]
    assert _readme_command("book") in runs  # the same make target, not a command of its own
    assert not any("train" in r or "pytest" in r for r in runs)  # committed tables, no training
    uses = {s["uses"].split("@")[0]: s for s in steps if "uses" in s}
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == "_build/html"
    assert "actions/deploy-pages" in uses
    assert wf["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert wf[True]["push"]["branches"] == ["main"]  # YAML reads the key `on` as true
    # the book command writes where the workflow uploads from
    assert "jupyter-book build" in (ROOT / "Makefile").read_text()
    assert "_build/html" in (ROOT / "Makefile").read_text()
