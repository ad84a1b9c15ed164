"""An executed study notebook as one standalone HTML page, to open in a browser offline.

The page is what the book would show of the notebook, without the book: its prose (MyST Markdown,
the book's roles read as their text and ``{glue:…}`` as the figure the notebook glued), the
outputs of its cells as the book's cell tags say (``remove-cell``, ``remove-input``,
``hide-input``), its tables and its altair charts. A chart's HTML (altair's ``text/html``
output) loads vega, vega-lite and vega-embed from a CDN unless they are on the page already: the
book's vendored copies (``book/_static/vendor/``, the files ``_config.yml`` serves, copied from npm
by ``python -m scripts.book_assets``) are inlined in the page's head, so nothing is fetched.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

import nbformat
import yaml
from markdown_it import MarkdownIt

from anchorkit.core.files import atomic_write
from anchorkit.core.store import REPO

CSS = REPO / "book" / "_static" / "anchorkit.css"
VEGALITE = re.compile(r"application/vnd\.vegalite\.v\d+\+json")
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
FENCE = re.compile(r"^(```+)\{([\w-]+)\}[ \t]*([^\n]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
pre { background: #f6f8fa; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
code { font-size: 0.9em; }
table { border-collapse: collapse; }
details.input summary { color: #666; font-size: 0.85em; cursor: pointer; }
.cell_output { margin: 0.8em 0; overflow-x: auto; }
.admonition { border-left: 4px solid #888; padding: 0.2em 1em; background: #fafafa; }
"""


def vendored_scripts() -> list[Path]:
    """The JavaScript the book's pages load (``_config.yml``'s ``html_js_files``), vendored."""
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    files = [REPO / "book" / "_static" / f for f in config["sphinx"]["config"]["html_js_files"]]
    missing = [f for f in files if not f.exists()]
    if missing:
        raise FileNotFoundError(f"{missing[0]} is missing: run `python -m scripts.book_assets` "
                                "(it copies the book's JavaScript from npm)")
    return files


def glued(nb) -> dict[str, dict]:
    """What the notebook glued (``myst_nb.glue``), by key: the output's data, record prefix off."""
    out = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            meta = o.get("metadata", {}).get("scrapbook")
            if meta:
                prefix = meta.get("mime_prefix", "")
                out[meta["name"]] = {k[len(prefix):]: v for k, v in o.get("data", {}).items()}
    return out


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def roles(text: str, glue: dict[str, dict]) -> str:
    """MyST roles as what a reader sees: a glued figure, else the role's text."""

    def one(m):
        name, body = m.group(1), m.group(2)
        if name.startswith("glue"):
            data = glue.get(body.strip(), {})
            if "text/markdown" in data and name != "glue:text":
                return _text(data["text/markdown"])
            return html.escape(_text(data.get("text/plain", f"[{body}: not glued]")).strip("'\""))
        shown = re.match(r"(.*?)\s*<[^>]*>\s*$", body, re.S)  # `text <target>` → text
        return shown.group(1) if shown else body

    return ROLE.sub(one, text)


def markdown(text: str, glue: dict[str, dict]) -> str:
    """A Markdown cell as HTML: directives as divs (``{container} cls`` → ``div.cls``), roles
    read, MyST targets dropped."""
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    text = re.sub(r"^\([\w-]+\)=\s*$", "", text, flags=re.M)

    def directive(m):
        name, arg, body = m.group(2), m.group(3).strip(), m.group(4)
        cls = arg if name == "container" else f"admonition {name}"
        title = ("" if name == "container" or not arg
                 else f"<p><strong>{html.escape(arg)}</strong></p>")
        return f'<div class="{html.escape(cls)}">{title}{md.render(roles(body, glue))}</div>\n'

    parts, last = [], 0
    for m in FENCE.finditer(text):
        parts.append(md.render(roles(text[last:m.start()], glue)))
        parts.append(directive(m))
        last = m.end()
    parts.append(md.render(roles(text[last:], glue)))
    return "".join(parts)


def stream_text(text: str) -> str:
    """A stream as a terminal leaves it: each line's last carriage-return segment, colours off."""
    lines = [line.rsplit("\r", 1)[-1] for line in ANSI.sub("", text).split("\n")]
    return "\n".join(lines)


def output(o, glue: dict[str, dict]) -> str:
    """One cell output as HTML (nothing for a glued record)."""
    kind = o.get("output_type")
    if kind == "stream":
        if o.get("name") == "stderr":
            return ""  # progress bars and kernel noise are not part of a page (as in the book)
        text = stream_text(_text(o.get("text", ""))).strip("\n")
        return f"<pre class=\"{o.get('name')}\">{html.escape(text)}</pre>" if text.strip() else ""
    if kind == "error":
        tb = ANSI.sub("", "\n".join(o.get("traceback", [])))
        tb = tb or f"{o.get('ename', '')}: {o.get('evalue', '')}"
        return f'<pre class="error">{html.escape(tb)}</pre>'
    data = o.get("data", {})
    lite = next((k for k in data if VEGALITE.fullmatch(k)), None)
    if lite:
        spec = json.dumps(data[lite]).replace("</", "<\\/")
        return ('<div class="vega-embed-target"></div><script>(function(div){'
                f"vegaEmbed(div, {spec});}})"
                "(document.currentScript.previousElementSibling);</script>")
    if "text/html" in data:
        return _text(data["text/html"])
    for image in ("image/png", "image/jpeg"):
        if image in data:
            b64 = _text(data[image]).replace("\n", "")
            base64.b64decode(b64, validate=True)
            return f'<img src="data:{image};base64,{b64}">'
    if "image/svg+xml" in data:
        return _text(data["image/svg+xml"])
    if "text/markdown" in data:
        return markdown(_text(data["text/markdown"]), glue)
    if "text/plain" in data:
        return f"<pre>{html.escape(_text(data['text/plain']))}</pre>"
    return ""


def cell(c, glue: dict[str, dict]) -> str:
    tags = set(c.get("metadata", {}).get("tags", []))
    if c.cell_type == "markdown":
        return markdown(c.source, glue)
    if c.cell_type != "code" or "remove-cell" in tags:
        return ""
    parts = []
    source = f"<pre><code>{html.escape(c.source)}</code></pre>"
    if "injected-parameters" in tags:
        parts.append(f'<details class="input"><summary>this execution\'s parameters</summary>'
                     f"{source}</details>")
    elif "hide-input" in tags:
        parts.append(f'<details class="input"><summary>show code</summary>{source}</details>')
    elif "remove-input" not in tags:
        parts.append(source)
    if "remove-output" not in tags:
        shown = [output(o, glue) for o in c.get("outputs", [])]
        parts.extend(f'<div class="cell_output">{s}</div>' for s in shown if s)
    return f'<div class="cell">{"".join(parts)}</div>\n'


def _script(path: Path) -> str:
    code = path.read_text().replace("</script", "<\\/script")  # cannot end the element early
    return f"<script>/* {path.name} */\n{code}\n</script>"


def render(notebook, title: str | None = None) -> str:
    """The page of an executed notebook (a path or an ``nbformat`` notebook), as one HTML string."""
    nb = (nbformat.read(str(notebook), as_version=4) if isinstance(notebook, (str, Path))
          else notebook)
    glue = glued(nb)
    if title is None:
        first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
        heading = re.search(r"^#\s+(.+)$", first, re.M)
        title = heading.group(1).strip() if heading else "study"
    head = "\n".join(_script(f) for f in vendored_scripts())
    body = "".join(cell(c, glue) for c in nb.cells)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{PAGE_CSS}\n{CSS.read_text()}</style>\n"
            f"{head}\n</head>\n<body>\n<article>\n{body}</article>\n</body>\n</html>\n")


def write(notebook, where) -> Path:
    """Render ``notebook`` to the HTML file ``where`` (written whole, then renamed into place)."""
    where, text = Path(where), render(notebook)
    atomic_write(where, lambda p: p.write_text(text))  # a failed write leaves no temporary file
    return where
