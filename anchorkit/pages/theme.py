"""The book's chart theme: every figure's smallest legend text and axis title at ``LEGIBLE`` px,
on altair's default view. Importing this module registers and enables it (``charts`` and
``diagnosis_charts`` do, so a page that draws a figure has it)."""

from __future__ import annotations

import altair as alt

LEGIBLE = 12  # px: the smallest text of a legend and of an axis title


@alt.theme.register("anchorkit", enable=True)
def _theme() -> alt.theme.ThemeConfig:
    return alt.theme.ThemeConfig({"config": {
        "view": {"continuousWidth": 300, "continuousHeight": 300},
        "legend": {"labelFontSize": LEGIBLE, "titleFontSize": LEGIBLE},
        "axis": {"titleFontSize": LEGIBLE}}})
