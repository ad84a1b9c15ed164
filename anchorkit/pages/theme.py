"""The book's chart theme: every text of every figure at ``LEGIBLE`` px at least (axis labels and
titles, legend labels and titles, facet headers, chart titles, text marks: Vega's own defaults
are 10–11 px), on altair's default view. Importing this module registers and enables it
(``charts`` and ``diagnosis_charts`` do, so a page that draws a figure has it)."""

from __future__ import annotations

import altair as alt

LEGIBLE = 12  # px: the smallest text of any figure


@alt.theme.register("anchorkit", enable=True)
def _theme() -> alt.theme.ThemeConfig:
    return alt.theme.ThemeConfig({"config": {
        "view": {"continuousWidth": 300, "continuousHeight": 300},
        "legend": {"labelFontSize": LEGIBLE, "titleFontSize": LEGIBLE},
        "axis": {"labelFontSize": LEGIBLE, "titleFontSize": LEGIBLE},
        "header": {"labelFontSize": LEGIBLE, "titleFontSize": LEGIBLE},
        "title": {"fontSize": LEGIBLE + 1, "subtitleFontSize": LEGIBLE},
        "text": {"fontSize": LEGIBLE}}})
