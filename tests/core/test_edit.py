import pytest
import torch

from anchorkit import ModelConfig, TaskConfig
from anchorkit.core.edit import (coordinate_axes, e1, project_out, projection_edit, random_directions,
                                 rotated_axes)
from anchorkit.core.model import Transformer, haar_rotation, slice_states
from anchorkit.core.task import epoch_batches

TASK = TaskConfig()


@pytest.fixture(scope="module")
def model_and_tokens():
    m = Transformer(2, ModelConfig(), TASK).initialise([1, 2])
    return m, epoch_batches(TASK, 3, 0, 16, 16)[0].tokens


@pytest.mark.parametrize("direction", ["e1", "rotated", "random"])
def test_full_dose_leaves_no_component_along_d_at_every_slice(model_and_tokens, direction):
    m, tokens = model_and_tokens
    d = {"e1": e1(64), "rotated": rotated_axes(haar_rotation(1, 64))[5],
         "random": random_directions(3, 64)[2]}[direction]
    clean = slice_states(m.run_with_cache(tokens, m.hook_names("resid"))[1])
    edit = projection_edit(d, 1.0, m.n_slices)
    assert list(edit) == m.hook_names("resid")  # keyed by the slices' names
    edited = slice_states(m.run_with_cache(tokens, m.hook_names("resid"), edit)[1])
    assert len(edited) == 5
    for x, x0 in zip(edited, clean):
        assert (x @ d).abs().max() < 1e-5 * x.norm(dim=-1).max()
        assert (x0 @ d).abs().max() > 1e-3  # the clean state did have a component


def test_dose_zero_changes_nothing(model_and_tokens):
    m, tokens = model_and_tokens
    torch.testing.assert_close(m(tokens, hooks=projection_edit(e1(64), 0.0, 5)), m(tokens),
                               rtol=0, atol=0)


def test_partial_dose_scales_the_component():
    x = torch.randn(2, 3, 4, 64)
    d = random_directions(1, 64)[0]
    for dose in (0.25, 0.5, 0.75):
        torch.testing.assert_close(project_out(x, d, dose) @ d, (1 - dose) * (x @ d))
    # the orthogonal remainder is untouched
    rest = x - (x @ d)[..., None] * d
    y = project_out(x, d, 0.5)
    torch.testing.assert_close(y - (y @ d)[..., None] * d, rest)


def test_one_direction_per_run():
    x = torch.randn(2, 3, 4, 64)
    d = torch.stack([e1(64), coordinate_axes(64)[7]])
    y = project_out(x, d, 1.0)
    assert y[0, ..., 0].abs().max() == 0 and y[1, ..., 7].abs().max() == 0
    torch.testing.assert_close(y[0, ..., 7], x[0, ..., 7])


def test_direction_sets_are_unit_and_fixed():
    r = random_directions(16, 64)
    torch.testing.assert_close(r.norm(dim=1), torch.ones(16))
    assert torch.equal(r, random_directions(16, 64))
    R = haar_rotation(704, 64)
    torch.testing.assert_close(rotated_axes(R) @ rotated_axes(R).T, torch.eye(64), atol=1e-5, rtol=0)
