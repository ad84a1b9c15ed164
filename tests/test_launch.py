"""The launch buttons: every notebook page of the built book opens its notebook on Binder and on
Colab, in the repository ``_config.yml`` names (``check_launch_buttons``, run on the book
tests/test_book.py builds); the Colab cell (scripts/colab_cell.py) is the
notebook's first code cell, written once, and does nothing outside Colab."""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parent.parent
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
    origin), or, where it could confirm none, shows no Binder or Colab link at all (run by
    tests/test_book.py on the book it builds)."""
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
            if known is None:
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
    repository URL is that one (not the configured placeholder); without one, no launch provider
    is left, so sphinx-book-theme draws no Binder or Colab button."""
    ext = _launch_paths()
    for key in ("GITHUB_REPOSITORY", "GITHUB_SERVER_URL"):
        monkeypatch.delenv(key, raising=False)
    app = types.SimpleNamespace(srcdir=tmp_path)  # not a git checkout: no origin
    config = types.SimpleNamespace(html_theme_options={
        "repository_url": CONFIG["repository"]["url"],
        "launch_buttons": dict(CONFIG["launch_buttons"])})
    ext._confirm_repository(app, config)
    assert config.html_theme_options["launch_buttons"] == {}
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/fork")
    config.html_theme_options["launch_buttons"] = dict(CONFIG["launch_buttons"])
    ext._confirm_repository(app, config)
    assert config.html_theme_options["repository_url"] == "https://github.com/someone/fork"
    assert config.html_theme_options["launch_buttons"]["colab_url"]


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


def test_on_colab_the_cell_clones_installs_and_works_from_the_notebooks_folder(monkeypatch):
    ran, went = [], []
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setattr(subprocess, "run", lambda cmd, **k: ran.append(cmd))
    monkeypatch.setattr(os, "chdir", went.append)
    monkeypatch.setattr(os.path, "isdir", lambda p: False)
    monkeypatch.setattr(sys, "path", list(sys.path))
    exec(colab_cell.source(), {})
    url, branch = repository.url(), CONFIG["repository"]["branch"]
    here = "/content/" + url.rsplit("/", 1)[-1]
    assert ran == [["git", "clone", "--depth=1", f"--branch={branch}", url, here],
                   [sys.executable, "-m", "pip", "install", "-q", "-e", here]]
    assert went == [here + "/notebooks"] and sys.path[0] == here


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
