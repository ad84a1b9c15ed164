"""What every study page does first: find where its tables live, and show a bad parameter as one
line instead of a traceback."""

from __future__ import annotations

from pathlib import Path

from anchorkit.config import ParameterError
from anchorkit.store import REPO

REPORTS = REPO / "reports"


def reports_root(reports_dir=None) -> Path:
    """The folder of committed tables: the repository's ``reports/`` when None, so that a page
    executed from any working directory writes there; a given path as the user gave it."""
    return REPORTS if reports_dir is None else Path(reports_dir).absolute()


def shown(where: Path) -> str:
    """A tables folder as a reader should see it: relative to the repository when inside it."""
    where = Path(where).absolute()
    try:
        return f"{where.relative_to(REPO)}/"
    except ValueError:
        return f"{where}/"


def one_line_parameter_errors() -> None:
    """In a notebook, a ``ParameterError`` prints as the one line that names the parameter (other
    errors keep their tracebacks)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return

    def handler(self, etype, value, tb, tb_offset=None):
        line = f"ParameterError: {value}"
        self._showtraceback(etype, value, [line])  # the cell's error output: this line only
        return [line]

    shell.set_custom_exc((ParameterError,), handler)
