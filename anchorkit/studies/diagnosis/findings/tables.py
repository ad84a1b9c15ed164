"""The diagnosis page's tables as it reads them: the committed parts of every regime, checked
against their manifests, and the counts the other modules share (``anchorkit.studies.diagnosis.findings``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.studies import diagnosis
from anchorkit.core.optimizers import ARMS
from anchorkit.engine.pairs import deep_alignment
from anchorkit.judging.base import SOURCE
from anchorkit.engine.provenance import has_tables, read_provenance, read_tables
from anchorkit.studies.diagnosis.rank import beyond_input


FAMILY = diagnosis.SECOND_FAMILY  # part 1's second family of erasure directions


TABLES = ("rank_curves", "probe", "ranks", "rank_verdicts", "probe_verdicts", "overlap",
          "overlap_targets", "overlap_verdicts", "relation", "mirror", "notable",
          f"{FAMILY}_curves", f"{FAMILY}_ranks", f"{FAMILY}_verdicts")


FITTED = {"answers": "at the answers", FAMILY: "at the query"}  # a family, in a few words


SOURCE_R = SOURCE["E2c"]["r"].value  # the source's overlap relation, Pearson r


TARGET_NAMES = {"spike": "energy spike", "syntax": "syntax-holding vector",
                "costliest": "costliest direction"}


def load(reports_dir) -> dict[str, dict[str, pd.DataFrame]]:
    """Per regime of the diagnosis (``diagnosis.REGIMES``) whose every part is committed (the
    ``REQUIRED`` ones must be; ``pending`` names the others): its diagnosis tables, with the
    rotated-basis study's ``results`` and ``alignment`` and, in the second regime, the viability
    check's ``anchors`` (every read checked against its folder's manifest)."""
    out = {}
    for regime in diagnosis.REGIMES:
        home = regime.reports(reports_dir)
        if regime not in diagnosis.REQUIRED and not complete(reports_dir, regime):
            continue
        tables = dict(read_tables(Path(home) / "diagnosis"))
        missing = [t for t in TABLES if t not in tables]
        if missing:
            raise FileNotFoundError(f"{home}/diagnosis lacks {missing}: compute them with "
                                    f"anchorkit.studies.diagnosis.running (the page's Re-running section)")
        study = read_tables(Path(home) / "rotated-basis")
        tables.update(results=study["results"], alignment=study["alignment"])
        if has_tables(Path(home) / "viability"):  # the regime the viability check judged
            tables["anchors"] = read_tables(Path(home) / "viability")["anchors"]
        out[regime] = tables
    return out


def complete(reports_dir, regime) -> bool:
    """Whether a regime's diagnosis folder lists every table the page reads (its verified
    provenance's manifest; ``load`` then reads and checks the tables themselves, once)."""
    where = Path(regime.reports(reports_dir)) / "diagnosis"
    if not has_tables(where):
        return False
    listed = read_provenance(where).get("tables") or {}
    return all(f"{t}.parquet" in listed for t in TABLES)


def pending(reports_dir) -> list:
    """The diagnosis's regimes whose parts are not all committed yet (the page says so)."""
    return [r for r in diagnosis.REGIMES if not complete(reports_dir, r)]


def pooled(tables) -> str:
    """The regimes a pooled count is over, in words."""
    return "both regimes" if len(tables) == 2 else f"the {len(tables)} regimes"


def dissociation(tables: dict[str, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """One row per falloff run of each regime: its alignment at slices 3–4 and raw removal."""
    rows = []
    for regime, t in tables.items():
        deep = deep_alignment(t["alignment"]).rename("alignment").reset_index()
        r = t["results"][["seed", "optimizer", "run", "raw_removal", "net_removal"]]
        rows.append(r.merge(deep, on=["optimizer", "seed"]).assign(regime=regime.title))
    out = pd.concat(rows, ignore_index=True)
    out["arm"] = out.optimizer.map(ARMS)
    return out


def rank_long(tables) -> pd.DataFrame:
    """The rank curves of every falloff run, erasure and random subspaces as rows."""
    rows = []
    for regime, t in tables.items():
        c = t["rank_curves"]
        c = c[c.recipe != "control"]
        q = t[f"{FAMILY}_curves"]
        for which, d, col in ((f"erasure, {FITTED['answers']}", c, ""),
                              (f"erasure, {FITTED[FAMILY]}", q, ""), ("random", c, "random_")):
            rows.append(d[["run", "seed", "optimizer", "k"]].assign(
                subspace=which, removal=d[f"{col}removal"].to_numpy(),
                spill=d[f"{col}spill"].to_numpy(), regime=regime.title))
    out = pd.concat(rows, ignore_index=True)
    out["arm"] = out.optimizer.map(ARMS)
    return out


def read_beyond_input(tables) -> tuple[int, int]:
    """Falloff runs of every report regime on which, after the e₁ edit, the probe reads the op
    above the input's own level at slices 1–4 (``rank.beyond_input``), and how many there are."""
    read = pd.concat([beyond_input(t["probe"][t["probe"].recipe != "control"])
                      for t in tables.values()], ignore_index=True)  # run names repeat by regime
    return int(read.sum()), len(read)


def rescued_by_rank(t) -> tuple[int, int]:
    """Falloff runs whose e₁ edit alone misses the criteria (effective rank not 1), and how many
    of them reach the criteria with further erasure directions (an effective rank of 2–8) of
    either family tried."""
    r = t["ranks"][t["ranks"].recipe != "control"].set_index("run")
    q = t[f"{FAMILY}_ranks"].set_index("run").effective_rank.reindex(r.index)
    short = r.effective_rank != 1
    return int(short.sum()), int((short & (r.effective_rank.notna() | q.notna())).sum())
