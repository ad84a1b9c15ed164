"""Give a notebook the cell that sets Colab up: its first code cell, tagged ``colab-setup``.

Colab opens a notebook alone, in a bare Python without the repository. The cell, on Colab only
(``"google.colab" in sys.modules``), clones the repository (its URL and branch read from
``_config.yml`` now, when the cell is written), installs it with every package at the version
``requirements.lock`` gives (as constraints, without the lock's hashes: Colab's Python is 3.12
and the lock's PyTorch is this machine's CPU build, so Colab's index gives PyTorch's build of the
same version), and works from its ``notebooks/`` folder, as ``make book`` and Binder do; anywhere
else it does nothing. It is tagged
``remove-cell`` too, so the book does not show it. Running this again updates the cell in place
(after a change of the repository's URL, say): a notebook never gets two.

usage: python -m scripts.colab_cell NOTEBOOK.ipynb [...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
TAG = "colab-setup"
TAGS = ["remove-cell", TAG]
SOURCE = '''\
# On Colab only (elsewhere this cell does nothing): fetch the repository, install it at the
# versions of its requirements.lock, and work from its notebooks/ folder, as the book's build
# does (written by scripts/colab_cell.py)
import sys

if "google.colab" in sys.modules:
    import os, re, subprocess
    _repo = "/content/{name}"
    if not os.path.isdir(_repo):
        subprocess.run(["git", "clone", "--depth=1", "--branch={branch}", "{url}", _repo],
                       check=True)
    # the lock's versions as constraints: no hashes, and PyTorch's version without its +cpu
    # label, so that Colab's index gives its own build of that version
    with open(_repo + "/requirements.lock") as _f:
        _pins = re.findall(r"^([A-Za-z0-9_.-]+==[^\\s+]+)", _f.read(), re.M)
    with open(_repo + ".constraints.txt", "w") as _f:
        _f.write("\\n".join(_pins) + "\\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", _repo,
                    "-c", _repo + ".constraints.txt"], check=True)
    if _repo not in sys.path:
        sys.path.insert(0, _repo)  # the install's path is read at start-up only
    os.chdir(_repo + "/notebooks")
'''


def source(config: Path = ROOT / "_config.yml") -> str:
    repository = yaml.safe_load(config.read_text())["repository"]
    url = repository["url"].rstrip("/")
    return SOURCE.format(url=url, branch=repository.get("branch", "main"), name=url.rsplit("/", 1)[-1])


def add_cell(path: Path, text: str) -> None:
    """Put the cell before the notebook's first code cell, or update the one already there."""
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if TAG not in c.metadata.get("tags", [])]
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))
    cell = nbformat.v4.new_code_cell(text, metadata={"tags": list(TAGS)})
    cell.id = TAG  # a fixed id: writing the same cell again changes no byte
    nb.cells.insert(first, cell)
    nbformat.write(nb, path)


def main(argv=None) -> None:
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not paths or any(p.suffix != ".ipynb" or not p.is_file() for p in paths):
        raise SystemExit(__doc__.strip().splitlines()[-1])
    text = source()
    for path in paths:
        add_cell(path, text)
        print(f"{path}: Colab cell written")


if __name__ == "__main__":
    main()
