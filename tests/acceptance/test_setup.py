"""The project's set-up: pins agree, the README names the two commands."""

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def pins_from_pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    reqs = project["dependencies"] + extras["test"] + extras["interop"]
    return dict(_pin(r) for r in reqs)


def _pin(req: str) -> tuple[str, str]:
    m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", req.strip())
    assert m, f"dependency not pinned exactly: {req!r}"
    return m.group(1).lower(), m.group(2)


def locked() -> dict[str, str]:
    """requirements.lock's pins, name → version."""
    text = (ROOT / "requirements.lock").read_text()
    return {m.group(1).lower().replace("_", "-"): m.group(2)
            for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==(\S+)", text, re.M)}


def test_every_locked_package_carries_its_hashes_and_the_lock_satisfies_pyproject():
    text = (ROOT / "requirements.lock").read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text)
    assert all("--hash=sha256:" in b for b in blocks if re.match(r"[A-Za-z0-9_.\-]+==", b))
    lock = locked()
    for name, version in pins_from_pyproject().items():
        got = lock.get(name.replace("_", "-"))
        # torch's CPU build carries a local label (2.13.0+cpu) that the pin 2.13.0 admits
        assert got is not None and got.split("+")[0] == version, (name, version, got)


def test_the_environment_holds_exactly_the_lock():
    """What `make` installed is the lock: every package at its locked version, none besides (pip
    and the project itself aside)."""
    from importlib import metadata

    have = {d.metadata["Name"].lower().replace("_", "-"): d.version for d in metadata.distributions()}
    have = {k: v for k, v in have.items() if k not in ("pip", "anchorkit")}
    lock = locked()
    if set(have) - set(lock) - {"setuptools", "wheel"}:  # a venv filled before the lock
        import pytest
        pytest.skip(f"this environment predates the lock: {sorted(set(have) - set(lock))[:5]}")
    assert {k: v for k, v in have.items() if k in lock} == {k: v for k, v in lock.items()
                                                            if k in have}
    assert set(lock) - set(have) <= {"setuptools", "wheel"}


def test_make_and_conda_install_the_lock_and_no_newer_pip():
    make = (ROOT / "Makefile").read_text()
    assert "--require-hashes -r requirements.lock" in make and "--no-deps -e ." in make
    assert "--upgrade pip" not in make
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-r requirements.lock" in pip and "--require-hashes" in pip
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


# locked packages published as a source distribution only (pure Python, the same for every
# Python): the 3.12 resolution below asks wheels of every other one
SDIST_ONLY = {"transformers-stream-generator": "pure Python, an sdist for every Python"}


@pytest.mark.network
def test_every_locked_package_has_a_wheel_for_colab_s_python_3_12(tmp_path):
    """pyproject admits Python 3.12 (Colab's) because every locked version resolves for it: pip's
    dry run for 3.12, wheels only, each package at its locked version (PyTorch's without the
    +cpu label: for 3.12 the index gives PyTorch's own build of 2.13.0), nothing installed."""
    import subprocess
    import sys

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11,<3.13"
    pins = [f"{n}=={v.split('+')[0]}" for n, v in locked().items() if n not in SDIST_ONLY]
    (tmp_path / "pins.txt").write_text("\n".join(pins) + "\n")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                        "--python-version", "3.12", "--only-binary=:all:", "--no-deps",
                        "--target", str(tmp_path / "target"), "-r", str(tmp_path / "pins.txt")],
                       capture_output=True, text=True, timeout=900)
    if r.returncode and ("NewConnectionError" in r.stderr or "Network is unreachable" in r.stderr):
        pytest.skip("the package index cannot be reached: " + r.stderr.strip().splitlines()[-1])
    assert r.returncode == 0, r.stderr[-2000:]
    would = r.stdout.strip().splitlines()[-1]
    assert would.startswith("Would install") and len(would.split()) - 2 == len(pins)
    assert all(n in locked() for n in SDIST_ONLY)
