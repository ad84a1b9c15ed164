"""The book's figures (the pages' figures): one altair builder per figure kind, each taking a tidy table as
the studies write it, so that a reader can redraw any figure inline from ``reports/<study>/``.

Every chart is interactive: hovering a mark shows its run, seed and value.

The package's modules: ``base`` (what the figures share), ``answer`` (the picture of the report's
answer), ``runs`` (the figures of runs),
``grids`` (the grids at a glance), ``heads`` (the heads the essay names, shown) and
``context`` (a context's layout); every builder is read
from here (``charts.verdict_grid``).
"""

from anchorkit.pages.charts.answer import *  # noqa: F401,F403
from anchorkit.pages.charts.base import *  # noqa: F401,F403
from anchorkit.pages.charts.context import *  # noqa: F401,F403
from anchorkit.pages.charts.grids import *  # noqa: F401,F403
from anchorkit.pages.charts.heads import *  # noqa: F401,F403
from anchorkit.pages.charts.runs import *  # noqa: F401,F403
