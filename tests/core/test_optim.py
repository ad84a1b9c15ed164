import pytest
import torch
import torch.nn.functional as F

from anchorkit import ModelConfig, TaskConfig
from anchorkit.core.model import Transformer, haar_rotation, residual_axis
from anchorkit.core.optim import BasisAdam
from anchorkit.core.task import epoch_batches, positions
from tests.core.test_model import rotate_state

TASK = TaskConfig()
CFG = ModelConfig()
LR, BETAS, EPS = 3e-3, (0.9, 0.98), 1e-8


def ce_loss(model, batch):
    logits = model(batch.tokens)[:, :, positions(TASK).loss_equals]
    return F.cross_entropy(logits.flatten(0, 2), batch.targets.flatten())


def batches(n):
    return [b for e in range(n) for b in epoch_batches(TASK, 11, e, 32, 32)]


def ours(model, R):
    params = dict(model.named_parameters())
    return BasisAdam(params, {k: residual_axis(k) for k in params}, R, lr=LR, betas=BETAS, eps=EPS)


def step(model, opt, batch):
    opt.zero_grad()
    ce_loss(model, batch).backward()
    opt.step()


@pytest.mark.parametrize("identity", [None, "eye"])
def test_identity_rotation_equals_torch_adam_step_for_step(identity):
    a = Transformer(1, CFG, TASK).initialise([2]).double()
    b = Transformer(1, CFG, TASK).double()
    b.load_state_dict(a.state_dict())
    R = None if identity is None else torch.eye(64, dtype=torch.float64)[None]
    opt_a = ours(a, R)
    opt_b = torch.optim.Adam(b.parameters(), lr=LR, betas=BETAS, eps=EPS)
    for batch in batches(12):
        step(a, opt_a, batch)
        step(b, opt_b, batch)
        for (name, pa), pb in zip(a.named_parameters(), b.parameters()):
            torch.testing.assert_close(pa, pb, rtol=1e-10, atol=1e-12, msg=name)


def test_random_rotation_equals_plain_adam_on_the_reparameterised_model():
    R = haar_rotation(7, 64, torch.float64)
    a = Transformer(1, CFG, TASK).initialise([7]).double()
    b = Transformer(1, CFG, TASK).double()
    b.load_state_dict(rotate_state(a.state_dict(), R))  # W' = Rᵀ W on every residual axis
    opt_a = ours(a, R[None])
    opt_b = torch.optim.Adam(b.parameters(), lr=LR, betas=BETAS, eps=EPS)
    for batch in batches(12):
        step(a, opt_a, batch)
        step(b, opt_b, batch)
    rotated_a = rotate_state(a.state_dict(), R)
    for name, pb in b.state_dict().items():
        torch.testing.assert_close(rotated_a[name], pb, rtol=1e-8, atol=1e-10, msg=name)
    # and it is not plain Adam in the original basis
    c = Transformer(1, CFG, TASK).initialise([7]).double()
    opt_c = ours(c, None)
    for batch in batches(12):
        step(c, opt_c, batch)
    assert not torch.allclose(c.W_E, a.W_E, atol=1e-6)


def test_haar_rotation_has_the_moments_of_a_haar_orthogonal_matrix():
    """Over many seeds, R's entries have mean 0, E[x²] = 1/d and E[x⁴] = 3/(d(d+2)); its trace
    has mean 0 and E[tr²] = 1; both determinants occur. QR without the sign fix fails these
    (its diagonal is biased)."""
    d, n = 4, 4000
    Rs = torch.stack([haar_rotation(s, d, torch.float64) for s in range(n)])
    torch.testing.assert_close(Rs @ Rs.transpose(1, 2), torch.eye(d, dtype=torch.float64).expand(n, -1, -1))
    x = Rs.flatten(1)
    assert x.mean(0).abs().max() < 4 * (1 / d / n) ** 0.5
    assert abs(float(x.pow(2).mean()) - 1 / d) < 0.01
    assert abs(float(x.pow(4).mean()) - 3 / (d * (d + 2))) < 0.01
    tr = Rs.diagonal(dim1=1, dim2=2).sum(-1)
    assert abs(float(tr.mean())) < 4 / n ** 0.5 and abs(float(tr.pow(2).mean()) - 1) < 0.1
    det = torch.linalg.det(Rs)
    assert 0.45 < float((det > 0).double().mean()) < 0.55
