"""The statistics the pages quote: how often runs lose their anchor (with its exact binomial
interval), the chance of at least m losses at a rate, Pearson r over defined pairs, and a
family of signed-rank tests' Holm–Bonferroni adjustment with the smallest p one can give."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binom, binomtest


def loss_rate(kept_flags, confidence: float = 0.95) -> dict:
    """How often runs lost their anchor: losses k of n, the rate k/n and its exact binomial
    (Clopper–Pearson) interval."""
    kept = pd.Series(kept_flags).astype(bool)
    n, k = len(kept), int((~kept).sum())
    if n == 0:
        raise ValueError("kept_flags: expected at least one run")
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    return {"losses": k, "runs": n, "rate": k / n, "low": float(ci.low), "high": float(ci.high)}


def at_least(m: int, n: int, rate: float) -> float:
    """The probability of at least ``m`` losses in ``n`` runs when each loses with ``rate``."""
    return float(binom.sf(m - 1, n, rate))


def pearson(x, y) -> tuple[float, int]:
    """Pearson r and n over the pairs where both are defined."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan"), int(ok.sum())
    return float(np.corrcoef(x[ok], y[ok])[0, 1]), int(ok.sum())


def holm(p: dict[str, float]) -> dict[str, float]:
    """Holm–Bonferroni adjusted p-values (monotone, capped at 1); NaN stays NaN and is not
    counted in the family."""
    keys = sorted((k for k, v in p.items() if not np.isnan(v)), key=lambda k: p[k])
    m, out, running = len(keys), {k: float("nan") for k in p}, 0.0
    for i, k in enumerate(keys):
        running = max(running, min(1.0, (m - i) * p[k]))
        out[k] = running
    return out


def best_p(n: int, alternative: str) -> float:
    """The smallest p a Wilcoxon signed-rank test on n units can give (all on one side)."""
    return (1 if alternative != "two-sided" else 2) / 2 ** n if n else float("nan")
