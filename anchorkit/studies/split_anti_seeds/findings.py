"""The split-anti page's texts: per recipe, the figures its prose quotes and its reader's tables,
from the study's committed results (``registry.findings("split-anti-seeds")``)."""

from __future__ import annotations

import pandas as pd

from anchorkit.engine.formatting import by_seed, count, paired, summary

SPLIT_RECIPES = ("split-anti", "falloff")
SPLIT_HEADERS = {
    "seed": "seed", "raw_removal": "raw removal ↑", "control_drop": "control drop ↓",
    "net_removal": "net removal ↑", "over_removal": "over-removal", "spill": "spill ↓",
    "raw_spill": "raw spill ↓", "landing": "landing", "task_change": "task change"}


def _by_recipe(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {r: results[results.recipe == r].sort_values("seed") for r in SPLIT_RECIPES}


def split_facts(results: pd.DataFrame) -> dict[str, str]:
    """Per recipe: net removal, kept, over-removal, spill and the seeds that lost; and the two
    recipes seed by seed."""
    by = _by_recipe(results)
    out = {}
    for r, df in by.items():
        out.update({f"{r}-net": summary(df.net_removal), f"{r}-kept": count(df.kept),
                    f"{r}-over": count(df.over_removal), f"{r}-spill": summary(df.spill, ".3f"),
                    f"{r}-lost": ", ".join(str(s) for s in df.seed[~df.kept]) or "none"})
    out["falloff-vs-split"] = paired(by["falloff"].net_removal.values,
                                     by["split-anti"].net_removal.values)
    return out


def split_tables(results: pd.DataFrame) -> list:
    return [by_seed(df, SPLIT_HEADERS, f"{r} per seed (columns) at full dose, paired with the "
                    "control at its seed (definitions as in the report's E2 table).")
            for r, df in _by_recipe(results).items()]
