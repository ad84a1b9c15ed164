"""The reference baseline's page texts: one regime's figures, as glue and as one sentence, and
its spikes table (``registry.findings("reference-baseline")``; the list of the report's other
regimes is the pages' own, ``pages.supporting.other_regimes``)."""

from __future__ import annotations

import pandas as pd

from anchorkit.engine.formatting import captioned, count, count_moved, summary

SPIKE_HEADERS = {
    "run": "run", "seed": "seed", "top_share_axes": "top-axis share", "spike_axes": "spike axis",
    "spike_share_axes": "spike share", "cos_e1_spike_axes": "cos(e₁, spike)",
    "kurtosis_axes": "kurtosis", "reference_baseline": "reference baseline"}


def reference_facts(tables: dict[str, pd.DataFrame], epochs: int) -> dict[str, str]:
    """One regime's reference-baseline figures: spikes, moved, the baseline and removal net of it."""
    r = tables["results"]
    return {"rb-moved": count_moved(r.moved_axes, r.anchored_has_spike_axes, r.control_has_spike_axes),
            "rb-hasspike": count(tables["spikes"].has_spike_axes),
            "rb-ref": summary(r.anchored_reference_baseline, ".3f"),
            "rb-refnet": summary(r.removal_net_of_reference), "rb-net": summary(r.net_removal),
            "rb-epochs": str(epochs)}


def reference_sentence(facts: dict[str, str]) -> str:
    """The same figures as one sentence (for a regime shown after the first)."""
    return (f"Its runs trained for {facts['rb-epochs']} epochs. A spike formed in "
            f"{facts['rb-hasspike']} of these runs. Falloff's spike {facts['rb-moved']}. The "
            f"reference baseline of the falloff runs was {facts['rb-ref']}; raw removal net of it "
            f"was {facts['rb-refnet']}, against a control-netted removal of {facts['rb-net']}.")


def spike_table(tables: dict[str, pd.DataFrame], regime_title: str):
    return captioned(
        tables["spikes"], SPIKE_HEADERS,
        f"Per stored run, {regime_title}: the largest energy share along a coordinate axis at the "
        "last slice; the spike axis (at least twice the share of any other axis at the syntax "
        "positions, never e₁ in a falloff run; – where there is none), its share over all "
        "positions and its cosine with e₁; the kurtosis along the coordinate axes; and the "
        "reference baseline (median drop of difference, as a share of span, over coordinate axes "
        "other than e₁ and the spike).")
