"""What the other pages read from the diagnosis: its first screen, its why in one sentence, the
regimes it shows (``anchorkit.studies.diagnosis.findings``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.studies import diagnosis
from anchorkit.engine.formatting import and_list, summary
from anchorkit.judging.base import E1B_SOURCE, E2A_MEDIAN, E2A_SOURCE
from anchorkit.engine.provenance import has_tables
from anchorkit.studies.diagnosis.rank import beyond_input
from anchorkit.core.optimizers import ROTATED_ADAM
from anchorkit.studies.diagnosis.findings.tables import (dissociation, load, pending, pooled, read_beyond_input,
                                                   rescued_by_rank)
from anchorkit.studies.diagnosis.findings.words import mirror_holds, overlap_weak_count


def column_text(regime, t, d: pd.DataFrame) -> str:
    """What the first screen says of the focus, said of a regime shown beyond the required two
    (the recalibrated column): its rotated runs' alignment and raw removal, the probe after the
    e₁ edit on its falloff runs, and what more erasure directions rescue."""
    rot = d[(d.regime == regime.title) & (d.optimizer == ROTATED_ADAM.name)]
    read = beyond_input(t["probe"][t["probe"].recipe != "control"])
    short, rescued = rescued_by_rank(t)
    return (f"In the {regime.title}, rotated falloff runs align difference with e₁ "
            f"({summary(rot.alignment)}) and projecting e₁ out removes "
            f"{summary(rot.raw_removal)}; after the edit a probe still reads difference beyond "
            f"the input on {int(read.sum())} of {len(read)} of its falloff runs, and "
            f"{diagnosis.RANKS[-1] - 1} more erasure directions, of either family, rescue "
            f"{rescued} of the {short} runs e₁ leaves short.")


def shown_text(tables, reports_dir) -> str:
    """The regimes the page shows, in order (for each beyond the required two, ``column_text``),
    and those of the diagnosis not shown yet (their parts not all committed) with how they are
    computed."""
    said = f"It shows {and_list([f'the {r.title}' for r in tables])}."
    extra = [r for r in tables if r not in diagnosis.REQUIRED]
    if extra:
        d = dissociation(tables)
        said += " " + " ".join(column_text(r, tables[r], d) for r in extra)
    todo = pending(reports_dir)
    if todo:
        said += (f" Not shown yet, its parts not all computed (`anchorkit.studies.diagnosis.running`, the "
                 f"page's Re-running section): {and_list([f'the {r.title}' for r in todo])}.")
    return said


def first_screen(tables) -> str:
    """At most about 120 words, no claim ids: what explains the differences and what does not."""
    d = dissociation(tables)
    # the rotated arm, the one the report's first screen quotes (one form per number)
    second = d[(d.regime == diagnosis.FOCUS.title) & (d.optimizer == ROTATED_ADAM.name)]
    short, rescued = rescued_by_rank(tables[diagnosis.FOCUS])
    read, runs = read_beyond_input(tables)
    words = [
        f"In the {diagnosis.FOCUS.title} rotated falloff runs align difference with e₁ "
        f"({summary(second.alignment)}; the source's about {E1B_SOURCE}), "
        f"yet projecting e₁ out removes {summary(second.raw_removal)}, the source's "
        f"{E2A_MEDIAN} (range {E2A_SOURCE[0]} to {E2A_SOURCE[1]}).",
        f"A probe still reads difference beyond the input on "
        f"{read} of {runs} falloff runs ({pooled(tables)}), and "
        f"{diagnosis.RANKS[-1] - 1} more erasure directions (two families) rescue {rescued} "
        f"of the {short} {diagnosis.FOCUS.title} runs e₁ leaves short: the op is computed, "
        + ("on no small subspace of the families tried." if rescued * 2 < short
           else "on a few directions more."),
        f"Our controls barely show the source's collateral damage "
        f"({overlap_weak_count(tables)}).",
        (f"The arms' controls mirror each other by construction (float64 check: "
         f"{diagnosis.MIRROR_STEPS} steps).") if mirror_holds(tables) else
        (f"A float64 check over {diagnosis.MIRROR_STEPS} steps finds the arms' controls are not "
         f"mirror images."),
    ]
    return " ".join(words)


def why_of(reports_dir) -> str:
    """``why_sentence`` from the diagnosis tables under ``reports_dir``; where they are not (a
    scratch re-run at another profile), a sentence that only points to them, with no figure."""
    if not all(has_tables(Path(r.reports(reports_dir)) / "diagnosis") for r in diagnosis.REQUIRED):
        return "Why the numbers differ is tested on the published weights"
    return why_sentence(load(reports_dir))


def why_sentence(tables) -> str:
    """The one-sentence why the other pages' first screens give (before its link to this page):
    the falloff runs only (the controls were never anchored), and a conclusion limited to the
    erasure families tried."""
    read, runs = read_beyond_input(tables)
    short, rescued = rescued_by_rank(tables[diagnosis.FOCUS])
    return (f"Why: with e₁ projected out, a probe still reads difference beyond the input on "
            f"{read} of {runs} falloff runs; two erasure families, {diagnosis.RANKS[-1] - 1} "
            f"more directions each, rescue {rescued} of the {short} {diagnosis.FOCUS.title} "
            f"runs e₁ leaves short")
