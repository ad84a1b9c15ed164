"""A Sphinx extension of the book's: the launch buttons open the source notebook.

A study page is built from ``book/studies/<name>.ipynb``, the notebook executed by
``scripts/execute_studies``; that folder is a build output (gitignored), so it is not in the
repository the buttons open. sphinx-book-theme builds each Binder and Colab link from the
page's own path (``path_to_book`` + page + ``.ipynb``) and offers no other mapping, so after it
has made the links this points them at ``notebooks/<name>.ipynb``, the committed notebook the
page was executed from (stored without outputs; its first cell sets Colab up, see
``scripts/colab_cell.py``).
"""

from pathlib import Path

PAGES = "book/studies/"
SOURCES = "notebooks/"


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
    # after sphinx-book-theme adds the launch buttons (priority 501), before the page is written
    app.connect("html-page-context", _to_source, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
