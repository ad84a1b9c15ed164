"""The repository's URL, written once in ``_config.yml`` (``repository.url``): read it, or set it.

The publishing workflow sets it to the repository it builds before ``make book``, so the
published site's Binder and Colab buttons open that repository (a fork publishes links to
itself); a local build keeps the committed value. Standard library only: the workflow runs this
before the book's environment exists.

usage: python -m scripts.repository [URL]   (no URL: print the current one)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CONFIG = Path(__file__).resolve().parent.parent / "_config.yml"
# the `url:` line of the top-level `repository:` block (its other lines are indented or comments)
URL = re.compile(r"^(repository:[ \t]*\n(?:(?:[ \t]+.*|[ \t]*#.*)?\n)*?[ \t]+url:[ \t]*)(\S+)", re.M)


def url(config: Path = CONFIG) -> str:
    found = URL.search(config.read_text())
    if found is None:
        raise SystemExit(f"{config}: no repository.url")
    return found.group(2)


def set_url(new: str, config: Path = CONFIG) -> None:
    if not re.fullmatch(r"https://\S+", new):
        raise SystemExit(f"expected the repository's https URL, got {new!r}")
    url(config)  # there is one to replace
    config.write_text(URL.sub(lambda m: m.group(1) + new.rstrip("/"), config.read_text(), count=1))


def main(argv=None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or any(a.startswith("-") for a in args):
        raise SystemExit(__doc__.strip().splitlines()[-1])
    if args:
        set_url(args[0])
    print(url())


if __name__ == "__main__":
    main()
