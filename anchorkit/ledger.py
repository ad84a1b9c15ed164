"""The reproduction ledger: each claim of the source report beside what our committed tables give.

Every claim carries the source's figure, a function that reads our tables (the ``reports/``
folder of one regime) and returns our figure with a verdict, and the rule that verdict follows,
written here before the tables are read. A rule is a list of named **parts** of the claim, each a
test that can fail on either side where the claim is a size, with its tolerance stated:

- ``reproduced``: every part holds;
- ``partly``: some named parts hold and others do not (our figure's text says which);
- ``not reproduced``: no part holds;
- ``not comparable``: our runs cannot answer the claim (the rule says why).

Tolerances (stated once, used by every rule): a size quoted as a range holds when our median lies
inside the range widened by ``SHARE_TOL`` (energy shares, |cos|, alignment) or ``SCORE_TOL``
(removal, landing, task scores); "about x" holds within ``ABOUT`` of x; an ordering of two costs
holds only when they differ by at least ``RESOLUTION`` (a few probe contexts), so that two costs
that are both near zero never order. Every |cos| claim is shown beside its chance level: the
median largest |cos| of a random unit vector with the 64 vectors of a basis (``chance_cos``).

The claims are the source report's, in our words, never tuned towards.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from anchorkit.measure import chance_cos
from anchorkit.provenance import has_tables, read_tables
from anchorkit.formatting import number, summary
from anchorkit.task import SYNTAX

REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_COMPARABLE = (
    "reproduced", "partly", "not reproduced", "not comparable")
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_COMPARABLE)
SHARE_TOL = 0.05  # energy shares, |cos|, alignment
SCORE_TOL = 0.03  # removal, landing, scores (about one run's sampling error of removal)
ABOUT = 0.1  # "about x": within 0.1 of x
RESOLUTION = 0.01  # the smallest difference of two costs (score units) that orders them
KURTOSIS_TOL = 0.2


class Tables:
    """The committed tables of one regime, read on demand (``reports/<study>/<table>.parquet``),
    each study's folder checked against its manifest once (``provenance.read_tables``): an edited
    table is refused by name, never judged."""

    def __init__(self, where):
        self.where = Path(where)
        self._cache: dict[str, dict[str, pd.DataFrame]] = {}

    def get(self, study: str, table: str) -> pd.DataFrame | None:
        if study not in self._cache:
            folder = self.where / study
            self._cache[study] = read_tables(folder) if has_tables(folder) else {}
        return self._cache[study].get(table)


@dataclass(frozen=True)
class Claim:
    id: str
    section: str
    claim: str
    source: str
    rule: str
    ours: Callable[[Tables], tuple[str, str]]


def within(value: float, low: float, high: float, tol: float = 0.0) -> bool:
    """Whether ``value`` lies in [low − tol, high + tol] (two-sided)."""
    return bool(low - tol <= value <= high + tol)


def judged(text: str, parts: dict[str, bool]) -> tuple[str, str]:
    """Our figure's text and the verdict of a rule of named parts; with more than one part, the
    text says which held."""
    held = [name for name, ok in parts.items() if ok]
    verdict = (REPRODUCED if len(held) == len(parts) else PARTLY if held else NOT_REPRODUCED)
    if len(parts) > 1 and verdict == PARTLY:
        missed = [name for name in parts if name not in held]
        text += f" — held: {'; '.join(held)}; not: {'; '.join(missed)}"
    return text, verdict


def _results(t: Tables, optimizer: str) -> pd.DataFrame | None:
    r = t.get("rotated-basis", "results")
    return None if r is None else r[r.optimizer == optimizer]


def _missing() -> tuple[str, str]:
    return "not measured (no committed table)", NOT_COMPARABLE


def _chance() -> str:
    return f"chance {chance_cos():.2f}"


# ------------------------------------------------------------------------------ premise
P1_LOW = 0.86


def p1(t):
    r = _results(t, "adam")
    if r is None:
        return _missing()
    med = {s: float(r[f"control_syntax_cos_{s}_axes"].median()) for s in SYNTAX}
    text = (f"median largest |cos| with an axis: {', '.join(f'“{s}” {v:.2f}' for s, v in med.items())}"
            f" ({_chance()})")
    return judged(text, {f"{s} on an axis": v >= P1_LOW - SHARE_TOL for s, v in med.items()})


def p2(t):
    r = _results(t, "adam")
    if r is None:
        return _missing()
    m = float(r.control_top_share_axes.median())
    return judged(f"top-axis share {summary(r.control_top_share_axes, '.3f')}",
                  {"about half": within(m, 0.5, 0.5, ABOUT)})


def _costs(t: Tables, optimizer: str, role: str = "control") -> pd.DataFrame | None:
    b = t.get("rotated-basis", "basis")
    return None if b is None else b[(b.optimizer == optimizer) & (b.role == role) & b.cost.notna()]


def p3(t):
    b = _costs(t, "adam")
    if b is None:
        return _missing()
    axes = float(b[(b.basis == "axes") & (b.direction != 0)].cost.median())
    rand = float(b[b.basis == "random"].cost.median())
    text = f"median cost: coordinate axes {axes:.4f}, random directions {rand:.4f}"
    return judged(text, {"axes cheaper": rand - axes >= RESOLUTION,
                         "sizes (axis about 0.03, random 0.08–0.13)":
                             within(axes, 0.03, 0.03, 0.02) and within(rand, 0.08, 0.13, 0.02)})


P4_STRUCTURE = 0.2  # a plain-Adam top-axis share below this is no structure (the scout's clear level)


def p4(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    rot_top = float(rot.control_top_share_rotated.median())
    sto_top = float(sto.control_top_share_axes.median())
    rot_axes = float(rot.control_top_share_axes.median())
    text = (f"rotated controls: top rotated share {rot_top:.3f}, top axis share {rot_axes:.3f}; "
            f"plain-Adam controls: top axis share {sto_top:.3f}; a spike (2× the next, at the "
            f"syntax positions) in {int(rot.control_has_spike_rotated.sum())} of {len(rot)} "
            f"rotated and {int(sto.control_has_spike_axes.sum())} of {len(sto)} plain controls")
    if sto_top < P4_STRUCTURE:
        return text + f" (plain Adam builds no structure to mirror: below {P4_STRUCTURE})", \
            NOT_COMPARABLE
    return judged(text, {"on the rotated axes": rot_top - rot_axes >= SHARE_TOL,
                         "as strong as plain Adam's": within(rot_top, sto_top, sto_top, SHARE_TOL)})


# ------------------------------------------------------------------------------ E1
def e1a(t):
    r = _results(t, "rotated")
    if r is None:
        return _missing()
    k = int(r.kept.sum())
    return judged(f"kept on {k} of {len(r)} (net removal ≥ 0.5)", {"every seed": k == len(r)})


def _alignment(t: Tables) -> pd.DataFrame | None:
    a = t.get("rotated-basis", "alignment")
    return None if a is None else a[a.role == "anchored"]


E1B_GAP = 0.04  # the source's largest gap between a rotated run and its twin


def e1b(t):
    a = _alignment(t)
    if a is None:
        return _missing()
    diff = a[a.context == "difference"]
    deep = diff[diff.slice >= 3].groupby(["optimizer", "seed"]).alignment.mean()
    by = diff[diff.slice >= 1].pivot_table(index=["seed", "slice"], columns="optimizer",
                                             values="alignment")
    gap = float((by["rotated"] - by["adam"]).abs().max())
    med = float(deep["rotated"].median())
    text = (f"slices 3–4, rotated: {summary(deep['rotated'])}; largest gap to the twin on any "
            f"seed and slice {gap:.3f}")
    return judged(text, {"about 0.6": within(med, E1B_SOURCE, E1B_SOURCE, ABOUT),
                         "on top of the twins": gap <= E1B_GAP + RESOLUTION})


def e1c(t):
    a = _alignment(t)
    if a is None:
        return _missing()
    other = a[(a.context == "other") & (a.slice >= 1) & (a.optimizer == "rotated")]
    per = other.groupby("seed").alignment.mean()
    return judged(f"slices 1–4, rotated: {summary(per)}",
                  {"0.1–0.2": within(float(per.median()), 0.1, 0.2, SHARE_TOL)})


def e1d(t):
    a = _alignment(t)
    if a is None:
        return _missing()
    emb = a[(a.context == "difference") & (a.slice == 0)].groupby("optimizer").alignment.median()
    d = float(emb["rotated"] - emb["adam"])
    text = (f"at the embedding: rotated {number(emb['rotated'], '.3f')}, stored "
            f"{number(emb['adam'], '.3f')}")
    return judged(text, {"rotated higher": d >= RESOLUTION,
                         "by a few hundredths (0.04 ± 0.02)": within(d, 0.04, 0.04, 0.02)})


# ------------------------------------------------------------------------------ E2
def _median_rule(t, column, low, high, name, fmt=".2f", tol=SCORE_TOL):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None:
        return _missing()
    text = f"rotated {summary(rot[column], fmt)}, stored {summary(sto[column], fmt)}"
    return judged(text, {name: within(float(rot[column].median()), low, high, tol)})


E2A_LOWEST = 0.87  # the source's lowest raw removal of any run (stored)
E1B_SOURCE = 0.6  # the source's alignment at slices 3–4, rotated runs ("about 0.6")
E2A_SOURCE = (0.97, 0.99)  # the source's rotated raw removal at full dose (its range)


def e2a(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    m = float(rot.raw_removal.median())
    lowest = float(pd.concat([rot.raw_removal, sto.raw_removal]).min())
    text = (f"rotated {summary(rot.raw_removal)}, stored {summary(sto.raw_removal)}")
    return judged(text, {"rotated median 0.97–0.99": within(m, *E2A_SOURCE, SCORE_TOL),
                         "high on every run": lowest >= E2A_LOWEST - SCORE_TOL})


def e2e(t):
    r = t.get("rotated-basis", "results")
    if r is None:
        return _missing()
    ok = int((r.spill <= 0.02).sum())
    rot = r[r.optimizer == "rotated"]
    return judged(f"net spill rotated {summary(rot.spill, '.3f')}; raw spill rotated "
                  f"{summary(rot.raw_spill, '.3f')}; within 0.02 on {ok} of {len(r)} runs",
                  {"every run within 0.02": ok == len(r)})


def e2f(t):
    return _median_rule(t, "landing", 0.42, 0.54, "0.42–0.54")


def e2g(t):
    return _median_rule(t, "task_change", -0.013, 0.006, "−0.013 to 0.006", ".3f", tol=0.01)


def e2h(t):
    r = _results(t, "rotated")
    if r is None:
        return _missing()
    lost = int((~r.kept_raw.astype(bool)).sum())
    return judged(f"{lost} of {len(r)} rotated runs below half by raw removal",
                  {"none lost": lost == 0})


# ------------------------------------------------------------------------------ E3
def e3a(t):
    rot = _results(t, "rotated")
    if rot is None:
        return _missing()
    top, axes = rot.control_top_share_rotated, rot.control_top_share_axes
    text = (f"rotated controls: top rotated share {summary(top, '.3f')}, top axis share "
            f"{summary(axes, '.3f')}")
    return judged(text, {"a rotated direction holds 0.46–0.50":
                             within(float(top.median()), 0.46, 0.50, SHARE_TOL),
                         "the axes stay at 0.05–0.10":
                             within(float(axes.median()), 0.05, 0.10, SHARE_TOL)})


def e3b(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    ra, rr = rot.control_kurtosis_axes.median(), rot.control_kurtosis_rotated.median()
    sa, sr = sto.control_kurtosis_axes.median(), sto.control_kurtosis_rotated.median()
    text = (f"rotated controls: axes {ra:.2f}, rotated basis {rr:.2f}; plain controls: axes "
            f"{sa:.2f}, rotated basis {sr:.2f}")
    return judged(text, {
        "the reversal": rr - ra >= KURTOSIS_TOL and sa - sr >= KURTOSIS_TOL,
        "the sizes (axes 2.9–3.4, rotated 4.0–4.4)":
            within(ra, 2.9, 3.4, KURTOSIS_TOL) and within(rr, 4.0, 4.4, KURTOSIS_TOL)})


E3C_LOW = 0.74


def e3c(t):
    rot = _results(t, "rotated")
    if rot is None:
        return _missing()
    cos = rot[[f"control_syntax_cos_{s}_rotated" for s in SYNTAX]].stack()
    axes = rot[[f"control_syntax_cos_{s}_axes" for s in SYNTAX]].stack()
    text = (f"rotated controls, all four tokens: with a rotated axis {summary(cos)}, with a "
            f"coordinate axis {summary(axes)} ({_chance()})")
    return judged(text, {"along a rotated vector": float(cos.median()) >= E3C_LOW - SHARE_TOL})


def _moved(t: Tables, study: str, column: str, optimizer: str | None = None):
    r = t.get(study, "results")
    if r is None:
        return None
    if optimizer is not None:
        r = r[r.optimizer == optimizer]
    return pd.Series(r[column], dtype="boolean")


def _moved_claim(m: pd.Series | None, where: str) -> tuple[str, str]:
    """A "spike moved on 3 of 8 seeds" claim: not comparable unless at least half the seeds have
    a spike in both runs, then reproduced when our share is within 1/8 of 3/8 (either side)."""
    if m is None:
        return _missing()
    n = int(m.notna().sum())
    text = (f"moved on {int(m.fillna(False).sum())} of the {n} seeds where {where} "
            f"({len(m) - n} without)" if n else f"no seed where {where} (all {len(m)} without)")
    if n < len(m) / 2:
        return text, NOT_COMPARABLE
    return judged(text, {"on about 3 of 8": abs(float(m.dropna().mean()) - 3 / 8) <= 1 / 8})


def e3d(t):
    return _moved_claim(_moved(t, "rotated-basis", "moved_rotated", "rotated"),
                        "falloff and its control both have a spike")


E3E_SPIKE = 0.57


def e3e(t):
    b = _costs(t, "rotated")
    rot = _results(t, "rotated")
    if b is None or rot is None:
        return _missing()
    spikes = rot.set_index("control_run").control_spike_rotated.dropna()
    axes = float(b[(b.basis == "axes") & (b.direction != 0)].cost.median())
    rotated = b[b.basis == "rotated"]
    is_spike = rotated.apply(lambda r: spikes.get(r.control_run) == r.direction, axis=1)
    off, on = float(rotated[~is_spike].cost.median()), rotated[is_spike].cost
    spike_text = (f"the spike's axis {summary(on, '.3f')} ({len(on)} controls with a spike)"
                  if len(on) else "no control has a spike")
    text = (f"rotated controls: other coordinate axes {axes:.4f}, rotated axes off the spike "
            f"{off:.4f}, {spike_text}")
    return judged(text, {
        "the spike's axis costs about 0.57": len(on) > 0 and within(float(on.median()),
                                                                   E3E_SPIKE, E3E_SPIKE, 0.2),
        "rotated axes off it cheaper than the coordinate axes": axes - off >= RESOLUTION})


def e3e_e1(t):
    b = _costs(t, "rotated", "anchored")
    if b is None:
        return _missing()
    e1 = b[(b.basis == "axes") & (b.direction == 0)].cost
    return judged(f"e₁'s cost in rotated falloff runs {summary(e1, '.3f')}",
                  {"0.09–0.10": within(float(e1.median()), 0.09, 0.10, SCORE_TOL)})


# ------------------------------------------------------------------------------ later, scope
def l1(t):
    return _moved_claim(_moved(t, "reference-baseline", "moved_axes"),
                        "both runs have a spike")


def s1(t):
    rate = t.get("loss-rate-screen", "rate")
    if rate is None:
        return _missing()
    r = rate.set_index("rule").loc["net removal"]
    text = (f"{int(r.losses)} of {int(r.runs)} lost; rate {r.rate:.3f}, exact 95% interval "
            f"{r.low:.3f} to {r.high:.3f}")
    return judged(text, {"1/40 inside our interval": bool(r.low <= 1 / 40 <= r.high)})


T = f"(tolerance ±{SHARE_TOL})"
CLAIMS = [
    Claim("P1", "premise", "Plain Adam parks each syntax token's embedding on a coordinate axis.",
          "largest |cos| with an axis 0.86–1.0", f"one part per syntax token: its median "
          f"(plain-Adam controls) at least {P1_LOW} {T}; partly if some tokens", p1),
    Claim("P2", "premise", "One coordinate holds about half the stream's energy at the last slice.",
          "about 0.5", f"the plain-Adam controls' median top-axis share within {ABOUT} of 0.5 "
          "(either side)", p2),
    Claim("P3", "premise", "A coordinate axis is cheaper to project out than a random direction.",
          "axis about 0.03, random 0.08–0.13 (controls)", "two parts, plain-Adam controls: the "
          f"random directions' median cost exceeds the axes' by at least {RESOLUTION}; both "
          "medians inside the source's figures ±0.02", p3),
    Claim("P4", "premise", "Adam in a rotated basis builds the same structure on the rotated axes.",
          "same structure, rotated", "not comparable unless the plain-Adam controls' median top "
          f"axis share is at least {P4_STRUCTURE}; then two parts: the rotated controls' top "
          "rotated share exceeds "
          f"their top axis share by at least {SHARE_TOL}; it is within {SHARE_TOL} of the plain "
          "controls' top axis share (either side)", p4),
    Claim("E1a", "E1", "The anchor holds on every seed under rotated Adam.", "8 of 8",
          "reproduced if every rotated falloff run keeps it (net removal ≥ 0.5)", e1a),
    Claim("E1b", "E1", "Alignment at difference's example answers rises to about 0.6 at slices "
          "3–4, rotated runs on top of their twins.", "about 0.6; largest gap 0.04",
          f"two parts: our rotated median within {ABOUT} of 0.6; no seed and slice differs from "
          f"its twin by more than {E1B_GAP} + {RESOLUTION}", e1b),
    Claim("E1c", "E1", "In the other ops' contexts alignment stays near 0.1–0.2 from slice 1.",
          "about 0.1–0.2", f"our rotated median (slices 1–4) inside 0.1–0.2 {T}, either side",
          e1c),
    Claim("E1d", "E1", "At the embedding the rotated runs sit a few hundredths higher.",
          "0.06 against 0.02", f"two parts: rotated above stored by at least {RESOLUTION} at "
          "the median; by 0.02–0.06", e1d),
    Claim("E2a", "E2", "Raw removal at full dose is about 0.97 on every run.",
          "0.98 (0.97–0.99) rotated, 0.96 (0.87–0.99) stored", "two parts: our rotated median "
          f"inside 0.97–0.99 (±{SCORE_TOL}); no run of either arm below {E2A_LOWEST} "
          f"(−{SCORE_TOL})", e2a),
    Claim("E2e", "E2", "Every run is within the 0.02 spill criterion.",
          "net spill 0.000 (−0.009 to 0.005); raw 0.017", "reproduced if every run's spill is at "
          "most 0.02", e2e),
    Claim("E2f", "E2", "About half of the edited difference answers land on another op.",
          "0.50 (0.42–0.54) rotated, 0.52 stored", "our rotated median inside 0.42–0.54 "
          f"(±{SCORE_TOL})", e2f),
    Claim("E2g", "E2", "The recipe barely changes the task's clean scores.",
          "−0.001 (−0.013 to 0.006)", "our rotated median inside −0.013 to 0.006 (±0.01)", e2g),
    Claim("E2h", "E2", "By raw removal no rotated run lost the anchor.", "0 below half",
          "reproduced if no rotated falloff run has raw removal below 0.5", e2h),
    Claim("E3a", "E3", "Under rotated Adam one rotated direction holds about half the energy; the "
          "coordinate axes stay flat.", "0.48 (0.46–0.50); axes 0.07 (0.05–0.10)",
          f"two parts (rotated controls): the top rotated share's median inside 0.46–0.50 {T}; "
          f"the top axis share's inside 0.05–0.10 {T}", e3a),
    Claim("E3b", "E3", "Kurtosis reverses: near 3 along the axes, above it along the rotated "
          "basis, the opposite of the stored runs.", "axes 3.2 (2.9–3.4), rotated 4.2 (4.0–4.4)",
          f"two parts: the reversal (rotated controls: rotated above axes, plain controls: axes "
          f"above rotated, each by at least {KURTOSIS_TOL}); the rotated controls' medians inside "
          f"the source's ranges (±{KURTOSIS_TOL})", e3b),
    Claim("E3c", "E3", "Syntax embeddings lie along a rotated basis vector.",
          "|cos| 0.88 (0.74–0.99); about a third (chance) with the axes",
          f"our median (rotated controls, four tokens) at least {E3C_LOW} {T}; the chance level "
          "is shown beside", e3c),
    Claim("E3d", "E3", "Falloff's spike sits on another rotated axis than its control's on some "
          "seeds.", "3 of 8", "not comparable unless at least half the seeds have a spike in "
          "both runs; then reproduced if our share is within 1/8 of 3/8", e3d),
    Claim("E3e", "E3", "In rotated controls the rotated axes off the spike are the cheap "
          "directions, and the spike's axis is costly.", "axes 0.07, rotated off-spike 0.03, "
          "spike 0.57", f"two parts: the spike's axis costs 0.57 ± 0.2 at the median; the "
          f"rotated axes off it cost less than the coordinate axes by at least {RESOLUTION}", e3e),
    Claim("E3e′", "E3", "In falloff e₁ costs about 0.1 on every seed.", "0.10 (0.09–0.10)",
          f"our median inside 0.09–0.10 (±{SCORE_TOL})", e3e_e1),
    Claim("L1", "later", "Under plain Adam too, falloff's spike moves on some seeds.", "3 of 8",
          "not comparable unless at least half the seeds have a spike in both runs; then "
          "reproduced if our share is within 1/8 of 3/8", l1),
    Claim("S1", "scope", "The loss rate is near 1 in 40, with an upper bound near 1 in 9.",
          "about 1/40 (up to 1/9)", "reproduced if 1/40 lies inside our exact 95% interval", s1),
]


def ledger(where, regime: str = "weak basis") -> pd.DataFrame:
    """One row per claim: id, section, claim, the source's figure, the rule, and for the regime
    whose tables are in ``where``: our figure and the verdict."""
    t = Tables(where)
    rows = []
    for c in CLAIMS:
        ours, verdict = c.ours(t)
        assert verdict in VERDICTS, (c.id, verdict)
        rows.append({"id": c.id, "section": c.section, "claim": c.claim, "source": c.source,
                     "rule": c.rule, "regime": regime, "ours": ours, "verdict": verdict})
    return pd.DataFrame(rows)


def tally(table: pd.DataFrame) -> dict[str, int]:
    """How many claims got each verdict."""
    return {v: int((table.verdict == v).sum()) for v in VERDICTS}


def verdict_list(table: pd.DataFrame, verdict: str) -> str:
    """The ids with that verdict, e.g. ``E1a, E2e``, or ``none``."""
    ids = table[table.verdict == verdict].id.tolist()
    return ", ".join(ids) if ids else "none"


GROUPS = (("the premise (P1–P4)", ("premise",)), ("what the anchor does (E1–E2)", ("E1", "E2")),
          ("where the basis goes under rotation (E3)", ("E3",)),
          ("the later finding and the scope (L1, S1)", ("later", "scope")))


def by_group(table: pd.DataFrame) -> str:
    """The verdicts counted per group of claims, as one sentence for a page."""
    parts = []
    for name, sections in GROUPS:
        rows = table[table.section.isin(sections)]
        counts = tally(rows)
        said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        parts.append(f"{name}: {said}")
    return "; ".join(parts)


def counts_text(table: pd.DataFrame) -> str:
    """One regime's ledger counted by verdict, with the ids, then by group: a sentence for a page."""
    n = tally(table)
    return (f"Of the {len(table)} claims, {n[REPRODUCED]} are reproduced "
            f"({verdict_list(table, REPRODUCED)}), {n[PARTLY]} partly ({verdict_list(table, PARTLY)}), "
            f"{n[NOT_REPRODUCED]} not reproduced ({verdict_list(table, NOT_REPRODUCED)}) and "
            f"{n[NOT_COMPARABLE]} not comparable ({verdict_list(table, NOT_COMPARABLE)}). By group, "
            f"{by_group(table)}.")


SECTIONS = (("premise", "Premise: the privileged basis under plain Adam"),
            ("E1", "E1: does the anchor hold?"), ("E2", "E2: removal, spill and landing"),
            ("E3", "E3: where the privileged basis went"), ("later", "A later finding"),
            ("scope", "Scope"))


def section_tables(wide: pd.DataFrame) -> list[tuple[str, str]]:
    """The side-by-side ledger (``side_by_side``) as one HTML table per section of claims, with
    its title: the claim, the source's figure, ours and the verdict per regime, the rule."""
    ours = [col for col in wide.columns if col.startswith(("ours (", "verdict ("))]
    out = []
    for section, title in SECTIONS:
        rows = wide[wide.section == section]
        html = (rows[["id", "claim", "source", *ours, "rule"]]
                .rename(columns={"source": "the source's figure", "rule": "rule for the verdict"})
                .to_html(index=False, classes="ledger", border=0, escape=True)
                .replace('<tr style="text-align: right;">', '<tr style="text-align: left;">'))
        out.append((title, html))
    return out


def regimes_ledger(reports_dir) -> pd.DataFrame:
    """The ledger of every regime whose report tables are committed: the weak-basis regime's in
    ``reports_dir``, the second regime's in ``reports_dir/<regime>/`` once its rotated-basis study
    is there (``regime`` names each row's)."""
    from anchorkit.regimes import SECOND, WEAK, reports_path

    tables = [ledger(reports_dir, WEAK)]
    second = reports_path(reports_dir, SECOND)
    if has_tables(second / "rotated-basis"):
        tables.append(ledger(second, SECOND))
    return pd.concat(tables, ignore_index=True)


def side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """One row per claim: the source's figure and rule, then ours and the verdict per regime."""
    first = table.drop_duplicates("id")[["id", "section", "claim", "source", "rule"]]
    out = first.set_index("id")
    for regime, rows in table.groupby("regime", sort=False):
        r = rows.set_index("id")
        out[f"ours ({regime})"] = r["ours"]
        out[f"verdict ({regime})"] = r["verdict"]
    return out.reset_index()
