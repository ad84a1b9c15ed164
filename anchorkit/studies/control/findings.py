"""The control page's texts: the figures its prose quotes (glue key → text) and its reader's
table, from the study's committed results (``registry.findings("control")``)."""

from __future__ import annotations

import pandas as pd

from anchorkit.core.task import OPS
from anchorkit.engine.formatting import captioned, count, summary

CONTROL_HEADERS = {
    "seed": "seed", "control_score_sum": "sum ↑", "control_score_difference": "difference ↑",
    "control_score_max": "max ↑", "control_score_min": "min ↑",
    "control_top_share_axes": "top-axis share", "control_spike_axes": "spike axis",
    "control_spike_share_axes": "spike share", "control_kurtosis_axes": "kurtosis"}


def control_facts(results: pd.DataFrame) -> dict[str, str]:
    """The control page's figures: lowest op score, top-axis share, kurtosis, spikes."""
    return {
        "control-lowest": summary(results[[f"control_score_{op}" for op in OPS]].min(axis=1), ".3f"),
        "control-topaxis": summary(results.control_top_share_axes, ".3f"),
        "control-hasspike": count(results.control_has_spike_axes),
        "control-kurt": summary(results.control_kurtosis_axes)}


def control_table(results: pd.DataFrame):
    return captioned(results, CONTROL_HEADERS,
                     "Per seed: each op's clean score on the probe set; the largest energy share along a "
                     "coordinate axis at the last slice; the spike axis (at least twice the share of any "
                     "other axis at the syntax positions; – where there is none) and its share over all "
                     "positions; the kurtosis of the components along the coordinate axes.")
