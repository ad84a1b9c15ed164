"""The launch buttons: every notebook page of the built book opens its notebook on Binder and on
Colab, in the repository ``_config.yml`` names (``check_launch_buttons``, run on the book
tests/acceptance/test_book.py builds); the Colab cell (scripts/colab_cell.py) is the
notebook's first code cell, written once, and does nothing outside Colab."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
import yaml

from scripts import colab_cell, repository
from tests.acceptance.test_setup import locked

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a" and dict(attrs).get("href"):
            self.hrefs.append(dict(attrs)["href"])


def _links(page: Path) -> list[str]:
    parser = _Links()
    parser.feed(page.read_text())
    return parser.hrefs


def _launch_paths():
    """The book's extension that confirms the repository (book/_ext/launch_paths.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("launch_paths",
                                                  ROOT / "book" / "_ext" / "launch_paths.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_launch_buttons(html: Path) -> None:
    """Every notebook page of the book built in ``html`` opens its notebook on Binder and on
    Colab in the repository the build could confirm (the workflow's, or the checkout's GitHub
    origin; Colab only where the committed notebooks' cells clone that one), or, where it could
    confirm none, shows no Binder or Colab link at all (run by tests/acceptance/test_book.py on the book it
    builds)."""
    ext = _launch_paths()
    known = ext.known_repository(os.environ, ext.origin(ROOT))
    branch = CONFIG["repository"]["branch"]
    launch = CONFIG["launch_buttons"]
    pages = sorted((ROOT / "book" / "studies").glob("*.ipynb"))  # the executed notebooks
    assert pages, "no notebook pages in book/studies/"
    wrong = {}
    for page in pages:
        source = f"notebooks/{page.stem}.ipynb"  # what the buttons open (book/_ext/launch_paths.py)
        tracked = subprocess.run(["git", "ls-files", source], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout.strip()
        assert tracked == source, f"{source} is not in the repository"
        hrefs = _links(html / "book" / "studies" / f"{page.stem}.html")
        for provider in ("binderhub_url", "colab_url"):
            found = [h for h in hrefs if h.startswith(launch[provider])]
            if known is None or (provider == "colab_url" and ext.cloned(ROOT) != {known}):
                ok = found == []  # nothing behind a button that could open a placeholder
            else:
                slug = known.removeprefix("https://github.com/")
                ok = found and all(slug in h and f"/{branch}" in h and h.endswith(source)
                                   for h in found)
            if not ok:
                wrong[f"{page.stem} {provider}"] = found
    assert wrong == {}, f"(repository confirmed: {known}; built before? `make book` rebuilds)"


@pytest.mark.parametrize("env, remote, known", [
    ({"GITHUB_REPOSITORY": "someone/fork", "GITHUB_SERVER_URL": "https://github.com"},
     "git@github.com:other/clone.git", "https://github.com/someone/fork"),
    ({}, "git@github.com:someone/anchorkit.git", "https://github.com/someone/anchorkit"),
    ({}, "https://github.com/someone/anchorkit.git", "https://github.com/someone/anchorkit"),
    ({}, "https://github.com/someone/anchorkit", "https://github.com/someone/anchorkit"),
    ({}, "/srv/git/anchorkit.git", None),  # a local clone: no repository a reader can open
    ({}, "https://gitlab.com/someone/anchorkit.git", None),
    ({}, None, None),  # no remote at all
])
def test_the_buttons_open_a_confirmed_repository_or_none(env, remote, known):
    ext = _launch_paths()
    assert ext.known_repository(env, remote) == known


def test_a_build_that_confirms_no_repository_drops_the_launch_buttons(monkeypatch, tmp_path):
    """The extension's hook on the configuration: with a confirmed repository the theme's
    repository URL is that one (not the configured placeholder), and Colab is kept only where the
    committed notebooks' cells clone it; without one, no launch provider is left, so
    sphinx-book-theme draws no Binder or Colab button."""
    ext = _launch_paths()
    for key in ("GITHUB_REPOSITORY", "GITHUB_SERVER_URL"):
        monkeypatch.delenv(key, raising=False)
    app = types.SimpleNamespace(srcdir=tmp_path)  # not a git checkout: no origin
    config = types.SimpleNamespace(html_theme_options={
        "repository_url": CONFIG["repository"]["url"],
        "launch_buttons": dict(CONFIG["launch_buttons"])})
    ext._confirm_repository(app, config)
    assert config.html_theme_options["launch_buttons"] == {}
    # confirmed: the repository is the fork's; Colab is offered only where every committed
    # notebook's cell clones the fork (Colab runs the committed cell), Binder in every case
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/fork")
    fork = tmp_path / "_config.yml"
    fork.write_text((ROOT / "_config.yml").read_text())
    repository.set_url("https://github.com/someone/fork", fork)
    (tmp_path / "notebooks").mkdir()
    pages = [_notebook(tmp_path / "notebooks" / f"{n}.ipynb") for n in ("a", "b")]
    offered = {}
    for cells in ("none", "placeholder", "one of two", "fork"):
        if cells != "none":
            colab_cell.add_cell(pages[0], colab_cell.source(fork if cells != "placeholder" else
                                                            ROOT / "_config.yml"))
        if cells == "fork":
            colab_cell.add_cell(pages[1], colab_cell.source(fork))
        config.html_theme_options["launch_buttons"] = dict(CONFIG["launch_buttons"])
        ext._confirm_repository(app, config)
        assert config.html_theme_options["repository_url"] == "https://github.com/someone/fork"
        offered[cells] = sorted(k for k in config.html_theme_options["launch_buttons"]
                                if k.endswith("_url"))
    assert offered == {"none": ["binderhub_url"], "placeholder": ["binderhub_url"],
                       "one of two": ["binderhub_url"], "fork": ["binderhub_url", "colab_url"]}


# ------------------------------------------------------------------------ the Colab cell
def _notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A page"),
        nbformat.v4.new_code_cell("seeds = [1, 2]", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("print(seeds)"),
    ])
    nbformat.write(nb, path)
    return path


def _colab_cells(path: Path) -> list:
    return [c for c in nbformat.read(path, as_version=4).cells
            if colab_cell.TAG in c.metadata.get("tags", [])]


def test_the_colab_cell_is_the_first_code_cell_written_once(tmp_path):
    path = _notebook(tmp_path / "page.ipynb")
    colab_cell.main([str(path)])
    once = path.read_bytes()
    colab_cell.main([str(path)])
    assert path.read_bytes() == once  # idempotent, byte for byte
    cells = nbformat.read(path, as_version=4).cells
    code = [c for c in cells if c.cell_type == "code"]
    assert cells[0].cell_type == "markdown" and code[0].metadata.tags == ["remove-cell", "colab-setup"]
    assert code[0].source == colab_cell.source()
    assert [c.source for c in code if "parameters" in c.metadata.get("tags", [])] == ["seeds = [1, 2]"]
    colab_cell.add_cell(path, "# changed")  # an update replaces the cell in place
    assert [c.source for c in _colab_cells(path)] == ["# changed"]
    assert nbformat.read(path, as_version=4).cells[1].source == "# changed"


def test_the_colab_cell_does_nothing_outside_colab(monkeypatch):
    assert "google.colab" not in sys.modules
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail(f"ran {a}"))
    cwd, path = os.getcwd(), list(sys.path)
    names = {}
    exec(colab_cell.source(), names)
    assert os.getcwd() == cwd and sys.path == path
    assert set(names) - {"__builtins__"} == {"sys"}


# the cell as Colab runs it: Colab stubbed, pip asked for a dry run, everything else real
DRIVER = """
import json, os, subprocess, sys, types
sys.modules["google.colab"] = types.ModuleType("google.colab")
ran, real = [], subprocess.run
def run(cmd, **kw):
    ran.append(list(cmd))
    pip = list(cmd[1:4]) == ["-m", "pip", "install"]
    return real(list(cmd) + ["--dry-run"] if pip else cmd, **kw)
subprocess.run = run
exec(open(sys.argv[1]).read(), {})
import anchorkit
print(json.dumps({"ran": ran, "cwd": os.getcwd(), "package": anchorkit.__file__}))
"""


@pytest.mark.network
def test_on_colab_the_cell_clones_installs_and_works_from_the_notebooks_folder(tmp_path):
    """The cell run against a ``file://`` clone of this repository, a scratch folder standing for
    Colab's /content: it clones the configured branch, resolves the project with every package at
    the lock's version (pip's dry run: nothing is installed here), and leaves the kernel in the
    clone's notebooks/ with the clone's package the one imported."""
    origin, content = tmp_path / "origin", tmp_path / "content"
    subprocess.run(["git", "clone", "--quiet", "--no-local", str(ROOT), str(origin)], check=True)
    branch = CONFIG["repository"]["branch"]
    subprocess.run(["git", "-C", str(origin), "checkout", "--quiet", "-B", branch], check=True)
    content.mkdir()
    url = repository.url()
    cell = colab_cell.source().replace(url, f"file://{origin}").replace("/content/", f"{content}/")
    (tmp_path / "cell.py").write_text(cell)
    (tmp_path / "driver.py").write_text(DRIVER)
    r = subprocess.run([sys.executable, "driver.py", "cell.py"], cwd=tmp_path, text=True,
                       capture_output=True, timeout=600)
    if r.returncode and "Could not find a version" in r.stderr + r.stdout:
        pytest.skip("the package index cannot be reached: " + r.stderr.strip().splitlines()[-1])
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    here = str(content / url.rsplit("/", 1)[-1])
    assert out["ran"] == [
        ["git", "clone", "--depth=1", f"--branch={branch}", f"file://{origin}", here],
        [sys.executable, "-m", "pip", "install", "-q", "-e", here, "-c", here + ".constraints.txt"]]
    assert out["cwd"] == here + "/notebooks" and out["package"] == here + "/anchorkit/__init__.py"
    # the constraints are the lock's versions, every one, PyTorch's without its local label
    pins = (content / (url.rsplit("/", 1)[-1] + ".constraints.txt")).read_text().split()
    assert {p.split("==")[0].lower().replace("_", "-") for p in pins} == set(locked())
    assert "torch==" + locked()["torch"].split("+")[0] in pins
    assert subprocess.run(["git", "-C", here, "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""  # the clone is left as cloned


def test_every_notebook_with_a_colab_cell_clones_the_repository_the_config_names():
    stale = [p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
             if any(c.source != colab_cell.source() for c in _colab_cells(p))]
    assert stale == [], "python -m scripts.colab_cell notebooks/<name>.ipynb updates them"


# ------------------------------------------------------------------- the repository's URL
def test_the_repository_url_is_set_in_one_place_and_nothing_else_changes(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text((ROOT / "_config.yml").read_text())
    before = yaml.safe_load(config.read_text())
    repository.set_url("https://github.com/someone/fork/", config)
    after = yaml.safe_load(config.read_text())
    assert repository.url(config) == after["repository"]["url"] == "https://github.com/someone/fork"
    before["repository"]["url"] = after["repository"]["url"]
    assert after == before
    assert (ROOT / "_config.yml").read_text().count(repository.url()) == 1
    with pytest.raises(SystemExit, match="https URL"):
        repository.set_url("someone/fork", config)


def test_the_workflow_builds_with_the_repository_it_runs_in():
    steps = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert runs.index('python -m scripts.repository "${{ github.server_url }}/${{ github.repository }}"') \
        < runs.index("make book")
    assert CONFIG["launch_buttons"]["binderhub_url"] and CONFIG["launch_buttons"]["colab_url"]
