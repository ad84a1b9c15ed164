"""The rules as values: each part of a claim is a rule object that both judges our tables
(``judge``, a ``Part``) and writes its own text (``text``) from the one set of thresholds, so a
rule's words cannot drift from what it does. A ``Claim`` is its parts (with, where the claim
presumes another, the premise it needs); its rule's text is its parts' texts joined.

The kinds: ``Size`` (our median's 95% interval against what the claim allows, ``Inside`` a
figure's region or ``AtLeast`` a bound), ``Tally`` (a count against the source's, by Fisher's exact
test and our share's interval), ``Given`` (a part not comparable where a ``Premise``, another
claim's finding, fails),
``Moved`` (a spike that moved on some seeds, comparable where most seeds have one); E2c's relation
and the loss rate are rules of their own, in their studies' folders. Every claim lives in the
folder of the study whose tables it is judged on (``Study.claims``); ``anchorkit.judging.ledger`` gathers
them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import pandas as pd

from anchorkit.measures.verdicts import (INF, NOT_COMPARABLE, NOT_REPRODUCED, VERDICTS, Claimed, Region,
                                         about_share, every, most, none_of)
from anchorkit.judging.base import Count, Figure, Part, Tables, counted, judged, sized

I = "our median's 95% interval"  # what a size compares


@dataclass(frozen=True)
class Inside:
    """A size inside the source's figure widened by its tolerance (with its margin)."""

    figure: Figure

    def region(self) -> Region:
        return self.figure.region()

    def __str__(self) -> str:
        tol = f" (±{self.figure.tol:g})" if self.figure.tol else ""
        return f"inside {self.figure}{tol}"


@dataclass(frozen=True)
class AtLeast:
    """A size at least a bound: a number (a resolution, a tolerance), or the low end of the
    source's figure less its tolerance."""

    bound: float | Figure

    def region(self) -> Region:
        b = self.bound
        return Region(b.low - b.tol, INF) if isinstance(b, Figure) else Region(b, INF)

    def __str__(self) -> str:
        b = self.bound
        if not isinstance(b, Figure):
            return f"at least {b:g}"
        low = b.printed[0] if isinstance(b.printed, tuple) else b.printed
        return f"at least {low}" + (f" (−{b.tol:g})" if b.tol else "")


def says_words(says: Claimed) -> str:
    """What a count claim says, in words (``verdicts.every``, ``most``, ``none_of``,
    ``about_share``)."""
    if says is every:
        return "every one, within 1/8"
    if says is none_of:
        return "none, within 1/8"
    if says is most:
        return "more than half"
    low, high = says.allows
    share, tol = (Fraction((low + high) / 2).limit_denominator(64),
                  Fraction((high - low) / 2).limit_denominator(64))
    return f"within {tol} of {share}"


Reader = Callable[[Tables], pd.Series]
Beside = Callable[[Tables], str]


@dataclass(frozen=True)
class Size:
    """A size part: our median of ``values`` (read from the tables), with its 95% interval,
    against what the claim ``allows``. ``of``: the values in the rule's words; ``what``: their
    lead in our figure's text; ``beside``: a clause added after the figure (a chance level, the
    other arm), never judged; ``none``: the words where there are no values."""

    name: str
    values: Reader
    allows: Inside | AtLeast
    of: str
    fmt: str = ".2f"
    what: str = ""
    beside: Beside | None = None
    none: str = ""

    def judge(self, t: Tables) -> Part:
        values = self.values(t)
        if self.none and not len(values):
            return Part(self.name, self.none, NOT_COMPARABLE)
        part = sized(self.name, values, self.allows.region(), self.fmt, self.what)
        if self.beside is None:
            return part
        return Part(part.name, part.text + self.beside(t), part.verdict)

    def text(self) -> str:
        return f"{I} of {self.of}: {self.allows}"


# what a count reader returns: our k of n, our figure's words, and the seeds near the line (those
# counted and the others); None where the table it counts is not measured
Counted = tuple[int, int, str, tuple[list, list]]


@dataclass(frozen=True)
class Tally:
    """A count part: ``count`` reads our k of n (``Counted``), judged against the source's
    ``source`` count by what the claim ``says`` (Fisher's exact test, our share's interval).
    ``of``: what is counted, in the rule's words; ``none``: the words where nothing is counted
    (the part is then not comparable); ``unit``: what the count is out of."""

    name: str
    count: Callable[[Tables], Counted | None]
    source: Count
    says: Claimed
    of: str
    none: str = ""
    unit: str = "seeds"

    def judge(self, t: Tables) -> Part:
        got = self.count(t)
        if got is None:
            return Part(self.name, "not measured", NOT_COMPARABLE)
        k, n, words, near = got
        if self.none and n == 0:
            return Part(self.name, self.none, NOT_COMPARABLE)
        return counted(self.name, k, n, (self.source.k, self.source.n), self.says, words, near,
                       self.unit)

    def text(self) -> str:
        return (f"{self.of} against the source's {self.source} (Fisher's exact test): "
                f"{says_words(self.says)}")


def about(count: Count) -> Claimed:
    """"About k of n": within one seed in eight of the source's share."""
    return about_share(count.k / count.n, 1 / 8)


@dataclass(frozen=True)
class Moved:
    """A "spike moved on 3 of 8 seeds" claim: not comparable unless at least half the seeds have
    a spike in both runs; then a count against the source's (our share within 1/8 of it)."""

    name: str
    study: str
    column: str
    where: str
    source: Count
    optimizer: str | None = None

    def judge(self, t: Tables) -> Part:
        r = t.need(self.study, "results")
        if self.optimizer is not None:
            r = r[r.optimizer == self.optimizer]
        m = pd.Series(r[self.column], dtype="boolean")
        n, k = int(m.notna().sum()), int(m.fillna(False).sum())
        text = (f"moved on {k} of the {n} seeds where {self.where} ({len(m) - n} without)" if n
                else f"no seed where {self.where} (all {len(m)} without)")
        if n < len(m) / 2:
            return Part(self.name, text, NOT_COMPARABLE)
        return counted(self.name, k, n, (self.source.k, self.source.n), about(self.source),
                       text, unit="such seeds")

    def text(self) -> str:
        return (f"not comparable unless at least half the seeds have a spike in both runs; then "
                f"the seeds where it moved against the source's {self.source} (Fisher's exact "
                f"test): within 1/8 of {self.source.k}/{self.source.n}")


@dataclass(frozen=True)
class Premise:
    """Another claim's finding that a part, or a whole claim, presumes: ``rule``, that claim's own
    rule; ``why``, its failure in the rule's words; ``cite``, that claim's id. It holds unless its
    rule's verdict is not reproduced or not comparable."""

    rule: Size
    why: str
    cite: str

    def holds(self, t: Tables) -> bool:
        return self.rule.judge(t).verdict not in (NOT_REPRODUCED, NOT_COMPARABLE)


@dataclass(frozen=True)
class Given:
    """A part that presumes another claim's finding (``premise``): not comparable, with ``lost``
    added to our figure's text, where the premise does not hold."""

    rule: Size
    premise: Premise
    lost: str

    @property
    def name(self) -> str:
        return self.rule.name

    def judge(self, t: Tables) -> Part:
        part = self.rule.judge(t)
        if self.premise.holds(t):
            return part
        return Part(part.name, part.text + self.lost, NOT_COMPARABLE)

    def text(self) -> str:
        return f"{self.rule.text()}, not comparable where {self.premise.why}"


@dataclass(frozen=True)
class Claim:
    """One claim of the source: its id, short name, section, words and the source's figure (as
    quoted), and the rules of its parts. ``premise``: another claim's finding the whole claim
    presumes, with ``lost``, the words our figure takes where it does not hold; ``beside``: a clause
    after our figure, never judged; ``lead``: the rule text's opening (default: how many parts)."""

    id: str
    name: str  # its short name, in words (the lead picture labels its row with it)
    section: str
    claim: str
    source: str
    parts: tuple
    premise: Premise | None = None
    lost: str = ""
    beside: Beside | None = None
    lead: str = ""

    def ours(self, t: Tables) -> tuple[str, str]:
        """Our figure's text and the verdict on the tables ``t`` (``Missing`` where a table its
        rules need is not committed)."""
        if self.premise is not None and not self.premise.holds(t):
            plain = self.premise.rule.judge(t)
            return (f"{plain.text}{self.lost} ({self.premise.cite} {plain.verdict})",
                    NOT_COMPARABLE)
        text, verdict = judged([p.judge(t) for p in self.parts])
        return (text if self.beside is None else text + self.beside(t)), verdict

    @property
    def rule(self) -> str:
        """The rule in words, written by its parts (a part repeated for several tokens once; where
        every part is a size, what a size compares said once, in the lead)."""
        texts = list(dict.fromkeys(p.text() for p in self.parts))
        lead = self.lead
        if not lead and len(texts) > 1:
            n, sizes = NUMBERS.get(len(texts), len(texts)), f"{I} of "
            if all(t.startswith(sizes) for t in texts):  # said once for every part
                lead, texts = f"{n} parts, each {I}: ", [t[len(sizes):] for t in texts]
            else:
                lead = f"{n} parts: "
        said = f"{lead}{'; '.join(texts)}"
        if self.premise is not None:
            said = f"not comparable where {self.premise.why}; else {said}"
        return said + self.margins()

    def margins(self) -> str:
        """The equivalence margins its sizes carry (``Figure.margin``), as the rule's last
        clause."""
        sizes = [p.rule if isinstance(p, Given) else p for p in self.parts]
        m = sorted({s.allows.figure.margin for s in sizes
                    if isinstance(getattr(s, "allows", None), Inside) and s.allows.figure.margin})
        if not m:
            return ""
        return f"; equivalence margin ±{' and ±'.join(f'{v:g}' for v in m)}"


NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five"}


# ------------------------------------------------------------------------------ a table of verdicts
def tally(table: pd.DataFrame) -> dict[str, int]:
    """How many claims got each verdict."""
    return {v: int((table.verdict == v).sum()) for v in VERDICTS}


def verdict_list(table: pd.DataFrame, verdict: str) -> str:
    """The ids with that verdict, e.g. ``E1a, E2e``, or ``none``."""
    ids = table[table.verdict == verdict].id.tolist()
    return ", ".join(ids) if ids else "none"
