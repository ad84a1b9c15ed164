"""The project's set-up: pins agree, the README names the two commands."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def pins_from_pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["test"]
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
