import pytest
import torch
import torch.nn.functional as F

from anchorkit import ModelConfig, TaskConfig
from anchorkit.model import Transformer, haar_rotation, residual_axis
from anchorkit.optim import BasisAdam
from anchorkit.task import epoch_batches, positions
from tests.test_model import rotate_state

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
