"""The linear probe: does a binary label read linearly from a set of features (the diagnosis's
probe of whether difference is still written at a slice after an edit)."""

from __future__ import annotations

import torch


def probe_predictions(features: torch.Tensor, labels: torch.Tensor, steps: int = 200,
                      l2: float = 1e-3) -> torch.Tensor:
    """A logistic-regression probe for a binary label (features (N, D), labels (N,) bool), fitted
    on the even rows (standardised by them; classes weighted to balance), and its predictions
    (bool) on the odd rows."""
    x = features.double()
    x = (x - x[::2].mean(0)) / x[::2].std(0).clamp_min(1e-8)
    y = labels.double()
    w = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    b = torch.zeros((), dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=steps, line_search_fn="strong_wolfe")
    train = slice(0, None, 2)
    pos_weight = (1 - y[train]).sum() / y[train].sum().clamp_min(1)

    def closure():
        opt.zero_grad()
        logits = x[train] @ w + b
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            logits, y[train], pos_weight=pos_weight) + l2 * w.pow(2).sum()
        loss.backward()
        return loss

    with torch.enable_grad():
        opt.step(closure)
    with torch.no_grad():
        return (x[1::2] @ w + b) > 0


def linear_probe_accuracy(features: torch.Tensor, labels: torch.Tensor, steps: int = 200,
                          l2: float = 1e-3) -> float:
    """Balanced accuracy of ``probe_predictions`` on the odd rows."""
    pred, truth = probe_predictions(features, labels, steps, l2), labels[1::2]
    return float(0.5 * ((pred[truth]).double().mean() + (~pred[~truth]).double().mean()))
