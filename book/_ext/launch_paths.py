"""A Sphinx extension of the book's: the launch buttons open the source notebook, in a
repository that is known, or are not shown.

A study page is built from ``book/studies/<name>.ipynb``, the notebook executed by
``scripts/execute_studies``; that folder is a build output (gitignored), so it is not in the
repository the buttons open. sphinx-book-theme builds each Binder and Colab link from the
page's own path (``path_to_book`` + page + ``.ipynb``) and offers no other mapping, so after it
has made the links this points them at ``notebooks/<name>.ipynb``, the committed notebook the
page was executed from (stored without outputs; its first cell sets Colab up, see
``scripts/colab_cell.py``).

Which repository: the URL in ``_config.yml`` may be a placeholder (a build made anywhere but the
publishing workflow would ship it, and on GitHub a placeholder can resolve to an unrelated
project), so the buttons open only a repository the build can confirm (``known_repository``): the
one the publishing workflow runs in (``$GITHUB_REPOSITORY``), else the checkout's ``origin``
remote where it is a GitHub repository. A build that can confirm none shows no Binder or Colab
button rather than a wrong one. Colab opens the committed notebook, whose first cell clones the
repository written into it (``scripts/colab_cell.py``); so the Colab button is shown only where
every committed notebook's cell clones the confirmed repository (``cloned``): a fork that has not
rewritten its cells keeps its Binder button and loses its Colab one.
"""

import json
import os
import re
import subprocess
from pathlib import Path

PAGES = "book/studies/"
SOURCES = "notebooks/"
CLONE = re.compile(r'"([^"]+)", _repo\]')  # the URL the Colab cell's `git clone` line names
GITHUB = re.compile(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)"
                    r"([\w.-]+/[\w.-]+?)(?:\.git)?/?$")


def github_url(remote: str | None) -> str | None:
    """A git remote's URL as the https URL of its GitHub repository; None for any other."""
    found = GITHUB.match((remote or "").strip())
    return f"https://github.com/{found.group(1)}" if found else None


def origin(root) -> str | None:
    """The checkout's ``origin`` remote URL, or None (no git, no remote)."""
    try:
        return subprocess.run(["git", "remote", "get-url", "origin"], cwd=root, text=True,
                              capture_output=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def known_repository(env, remote: str | None) -> str | None:
    """The repository the buttons may open: the publishing workflow's (``GITHUB_REPOSITORY`` on
    ``GITHUB_SERVER_URL``), else the ``remote``'s where it is on GitHub, else None."""
    if env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        return f"{server}/{env['GITHUB_REPOSITORY']}"
    return github_url(remote)


def cloned(root) -> set[str]:
    """The repositories the committed notebooks' Colab cells clone (one, when they agree; a
    notebook without the cell adds the empty string)."""
    found = set()
    for path in sorted((Path(root) / SOURCES).glob("*.ipynb")):
        cells = [c for c in json.loads(path.read_text())["cells"]
                 if "colab-setup" in c.get("metadata", {}).get("tags", [])]
        found |= {m.group(1) for c in cells for m in CLONE.finditer("".join(c["source"]))} or {""}
    return found


def _confirm_repository(app, config):
    options = config.html_theme_options
    repo = known_repository(os.environ, origin(app.srcdir))
    if repo is None:  # no Binder or Colab button rather than one into a placeholder
        options["launch_buttons"] = {}
        return
    options["repository_url"] = repo
    if cloned(app.srcdir) != {repo}:  # Colab would run a cell that clones another repository
        options["launch_buttons"] = {k: v for k, v in options.get("launch_buttons", {}).items()
                                     if k != "colab_url"}


def _to_source(app, pagename, templatename, context, doctree):
    name = pagename[len(PAGES):]
    if not pagename.startswith(PAGES) or not (Path(app.srcdir) / SOURCES / f"{name}.ipynb").exists():
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "launch-buttons":
            for button in group["buttons"]:
                if "url" in button:
                    button["url"] = button["url"].replace(f"{pagename}.ipynb", f"{SOURCES}{name}.ipynb")


def setup(app):
    app.connect("config-inited", _confirm_repository)
    # after sphinx-book-theme adds the launch buttons (priority 501), before the page is written
    app.connect("html-page-context", _to_source, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
