"""Measurements on constructed cases whose answer is known by hand."""

import pytest
import torch

from anchorkit import ModelConfig, TaskConfig
from anchorkit.core.edit import coordinate_axes, e1, projection_edit, random_directions, rotated_axes
from anchorkit.core.scores import last_slice_states, op_scores, scores_of_predictions
from anchorkit.measures.measure import (contexts_per_op, cos_e1, direction_cost, drop,
                                        edited_predictions, energy_shares, kept, kurtosis, landing,
                                        moved, null_of_other_ops, other_ops_drop, over_removal,
                                        reference_baseline, removal, removal_error, span, spike,
                                        spill, syntax_cosines, syntax_positions, task_change)
from anchorkit.core.model import Transformer, haar_rotation, residual_axis
from anchorkit.core.task import DIFFERENCE, OPS, apply_op, probe_set, token_id

TASK = TaskConfig(probe_per_op=32)


@pytest.fixture(scope="module")
def probe():
    return probe_set(TASK)


@pytest.fixture(scope="module")
def model():
    return Transformer(2, ModelConfig(), TASK).initialise([1, 2])


def blind_to_e1(model):
    """Zero every weight that writes to (or reads from) coordinate 0 of the residual stream."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            axis = residual_axis(name)
            if axis is not None:
                p.select(axis + 1, 0).zero_()
    return model


def test_a_model_that_never_uses_e1_has_zero_drop(probe):
    m = blind_to_e1(Transformer(1, ModelConfig(), TASK).initialise([3]))
    clean = op_scores(m, probe.clean)
    edited = op_scores(m, probe.clean, projection_edit(e1(64), 1.0, m.n_slices))
    assert torch.equal(drop(clean, edited), torch.zeros_like(clean))


def test_dose_zero_edit_has_zero_drop(model, probe):
    clean = op_scores(model, probe.clean)
    edited = scores_of_predictions(edited_predictions(model, probe.clean, random_directions(3, 64),
                                                      0.0), probe.clean)
    assert torch.equal(drop(clean, edited[:, 0]), torch.zeros_like(clean))


def test_batched_sweep_matches_one_direction_at_a_time(model, probe):
    R = torch.stack([haar_rotation(1, 64), haar_rotation(2, 64)])
    dirs = torch.cat([coordinate_axes(64)[:3].expand(2, -1, -1),
                      rotated_axes(R[0]).expand(2, -1, -1)[:, :2],
                      torch.stack([rotated_axes(R[1])[5:7], rotated_axes(R[0])[5:7]])], dim=1)
    batched = edited_predictions(model, probe.clean, dirs, 0.75, chunk=3)
    for e in range(2):
        for i in range(dirs.shape[1]):
            one = edited_predictions(model, probe.clean, dirs[:, i:i + 1], 0.75)[e, 0]
            assert torch.equal(batched[e, i], one)
    single = Transformer.from_members([model.member_state(0)], model.cfg, TASK)
    direct = op_scores(single, probe.clean, projection_edit(dirs[0, 4], 0.75, 5))
    torch.testing.assert_close(scores_of_predictions(batched[0, 4], probe.clean), direct[0])


def test_contexts_in_batches_answer_as_all_at_once(model, probe):
    dirs = torch.cat([coordinate_axes(64)[1:4], random_directions(2, 64)])
    whole = edited_predictions(model, probe.clean, dirs, 1.0, chunk=1)
    for contexts in (1, 7, 100, 10 ** 6):  # 7 and 100 leave a short last batch
        assert torch.equal(edited_predictions(model, probe.clean, dirs, 1.0, chunk=2,
                                              contexts=contexts), whole)


def test_removal_spill_and_friends_on_known_numbers():
    clean = torch.tensor([0.9, 1.0, 0.8, 0.7])
    null = torch.tensor([0.5, 0.2, 0.3, 0.2])
    s = span(clean, null)
    torch.testing.assert_close(s, torch.tensor([0.4, 0.8, 0.5, 0.5]))
    edited = torch.tensor([0.85, 0.4, 0.8, 0.72])
    d = drop(clean, edited)
    torch.testing.assert_close(removal(d, s), torch.tensor(0.75))
    torch.testing.assert_close(other_ops_drop(d), torch.tensor(0.05))
    torch.testing.assert_close(direction_cost(d), d.mean())
    doses_anch = torch.stack([torch.zeros(4), d])
    doses_ctrl = torch.stack([torch.zeros(4), torch.tensor([0.01, 0.0, 0.0, -0.02])])
    torch.testing.assert_close(spill(doses_anch, doses_ctrl), torch.tensor(0.04))
    torch.testing.assert_close(task_change(clean, clean - 0.1), torch.tensor(0.1))
    assert kept(0.5) and not kept(0.49)
    torch.testing.assert_close(reference_baseline(torch.tensor([0.3, -0.1, 0.0, 0.2, 0.1])),
                               torch.tensor(0.1))


def test_landing_counts_answers_of_other_ops(probe):
    b = probe.clean
    a, bb = b.a[:, -1], b.b[:, -1]
    is_diff = b.ops == DIFFERENCE
    as_max = apply_op(torch.full_like(a, OPS.index("max")), a, bb)
    truth = b.targets[:, -1]
    assert landing(truth.clone(), b) == 0  # answering difference correctly lands nowhere else
    assert landing(as_max, b) == 1  # answering max everywhere always lands
    nonsense = torch.full_like(truth, 18)  # 18 = 9+9 is only sum's answer at (9, 9)
    diff_ctx = is_diff.nonzero().flatten()
    assert float(landing(nonsense, b)) < 0.1
    both = torch.stack([as_max, truth])
    torch.testing.assert_close(landing(both, b), torch.tensor([1.0, 0.0]))
    assert len(diff_ctx) == TASK.probe_per_op


def test_planted_spike_is_found_with_its_share_and_kurtosis():
    g = torch.Generator().manual_seed(0)
    states = torch.randn(1, 4000, 64, generator=g)
    flat = energy_shares(states, coordinate_axes(64))
    torch.testing.assert_close(flat.sum(-1), torch.ones(1))
    assert flat.max() < 0.03
    torch.testing.assert_close(kurtosis(states, coordinate_axes(64)), torch.tensor([3.0]), atol=0.15,
                               rtol=0)
    planted = states.clone()
    planted[..., 7] += 20.0
    shares = energy_shares(planted, coordinate_axes(64))
    index, has = spike(shares)
    assert int(index) == 7 and bool(has)
    assert 0.8 < float(shares[0, 7]) < 0.9  # 400 / (400 + 64) ≈ 0.86
    assert float(kurtosis(planted, coordinate_axes(64))) > 40
    # in a random rotated basis the same energy spreads out
    R = haar_rotation(5, 64)
    assert float(energy_shares(planted, rotated_axes(R)).max()) < 0.3
    assert float(cos_e1(coordinate_axes(64), index)) == 0.0
    assert float(cos_e1(coordinate_axes(64), torch.tensor(0))) == 1.0


def test_a_flat_spectrum_has_no_spike():
    """The argmax of a flat spectrum is some axis; it is not a spike."""
    g = torch.Generator().manual_seed(2)
    shares = energy_shares(torch.randn(3, 4000, 64, generator=g), coordinate_axes(64))
    index, has = spike(shares)
    assert not has.any()
    # a leader at 1.5 times the second is not one either; at 2 times it is
    shares = torch.full((64,), 1.0)
    shares[5] = 1.5
    assert not bool(spike(shares)[1])
    shares[5] = 2.0
    assert bool(spike(shares)[1]) and int(spike(shares)[0]) == 5


def test_an_anchored_run_never_reports_e1_as_its_spike():
    """The anchor puts energy on e₁ by design: excluded, the spike is the next axis if that one
    stands out, else there is none."""
    shares = torch.full((64,), 1.0)
    shares[0], shares[9] = 12.0, 4.0
    index, has = spike(shares, exclude=0)
    assert (int(index), bool(has)) == (9, True)
    assert int(spike(shares)[0]) == 0  # what the old argmax called the spike
    shares[9] = 1.0
    assert not bool(spike(shares, exclude=0)[1])


def test_the_spike_is_found_at_the_syntax_positions(probe):
    """Energy planted only at number positions makes no syntax spike; at `=` it does."""
    B, T = probe.clean.tokens.shape
    g = torch.Generator().manual_seed(3)
    states = torch.randn(1, B * T, 64, generator=g)
    at_syntax = syntax_positions(TASK, probe.clean)
    eq = (probe.clean.tokens == token_id(TASK, "=")).flatten()
    numbers = states.clone()
    numbers[0, ~at_syntax, 11] += 10.0
    assert int(spike(energy_shares(numbers, coordinate_axes(64)))[0]) == 11
    assert not bool(spike(energy_shares(numbers, coordinate_axes(64), at_syntax))[1])
    syntax = states.clone()
    syntax[0, eq, 11] += 10.0
    index, has = spike(energy_shares(syntax, coordinate_axes(64), at_syntax))
    assert (int(index), bool(has)) == (11, True)


def test_moved_is_undefined_without_two_spikes():
    assert moved(7, 3, True, True) is True and moved(7, 7, True, True) is False
    assert moved(7, 3, True, False) is None and moved(7, 3, False, True) is None


BIG = TaskConfig(probe_per_op=512)


def answers_as(op_of_context: torch.Tensor, batch) -> torch.Tensor:
    """The query answers of a model that does ``op_of_context`` on each context."""
    return apply_op(op_of_context, batch.a[:, -1], batch.b[:, -1])


def test_removal_is_bounded_when_the_edit_switches_the_run_to_another_op():
    """A perfect run edited into doing another op (sum, or any other op at random) has removal
    at most 1 + sampling error; the old evidence-null ratio of a run that falls back on sum
    when the examples are random reads above 1 for the same edit."""
    batch = probe_set(BIG).clean
    clean_answers = answers_as(batch.ops, batch)
    clean = scores_of_predictions(clean_answers, batch)
    null = null_of_other_ops(clean_answers, batch)
    assert 0.12 < float(null[DIFFERENCE]) < 0.2  # about 0.16 for a perfect run
    n = contexts_per_op(batch)
    n_scored, n_null = n[DIFFERENCE], n.sum() - n[DIFFERENCE]
    spans = span(clean, null)
    err = removal_error(null[DIFFERENCE], spans[DIFFERENCE], n_scored, n_null)
    g = torch.Generator().manual_seed(4)
    others = torch.tensor([j for j in range(len(OPS)) if j != DIFFERENCE])
    random_other = others[torch.randint(0, 3, batch.ops.shape, generator=g)]
    is_diff = batch.ops == DIFFERENCE
    for switched in (torch.full_like(batch.ops, OPS.index("sum")), random_other):
        edited_answers = answers_as(torch.where(is_diff, switched, batch.ops), batch)
        edited = scores_of_predictions(edited_answers, batch)
        r = removal(drop(clean, edited), spans)
        assert 0.8 < float(r) <= 1 + float(err)
        assert not bool(over_removal(edited[DIFFERENCE], null[DIFFERENCE], n_scored, n_null))
    # the old ratio, against the evidence null of a run that falls back on a default op when
    # the examples are random and so still answers difference on 0.3 of them (0.2 to 0.5 seen)
    evidence_null = torch.full_like(clean, 0.3)
    old = removal(drop(clean, edited), span(clean, evidence_null))
    assert float(old) > 1 + float(err)


def test_over_removal_fires_when_the_edit_steers_away_from_the_op():
    """An edited run that never gives difference's answer scores below any model doing another
    op: flagged, with removal above 1 + error."""
    batch = probe_set(BIG).clean
    clean_answers = answers_as(batch.ops, batch)
    truth = clean_answers
    is_diff = batch.ops == DIFFERENCE
    never = torch.where(is_diff, (truth + 1) % 19, truth)
    # + 1 lands on another op's answer only by chance; it is never difference's own answer
    clean = scores_of_predictions(clean_answers, batch)
    null = null_of_other_ops(clean_answers, batch)
    edited = scores_of_predictions(never, batch)
    n = contexts_per_op(batch)
    assert float(edited[DIFFERENCE]) == 0.0
    assert bool(over_removal(edited[DIFFERENCE], null[DIFFERENCE], n[DIFFERENCE],
                             n.sum() - n[DIFFERENCE]))
    spans = span(clean, null)
    err = removal_error(null[DIFFERENCE], spans[DIFFERENCE], n[DIFFERENCE], n.sum() - n[DIFFERENCE])
    assert float(removal(drop(clean, edited), spans)) > 1 + float(err)


def test_syntax_cosines_see_a_one_hot_embedding(model):
    m = Transformer.from_members([model.member_state(0)], model.cfg, TASK)
    with torch.no_grad():
        m.W_E[0, token_id(TASK, ",")] = 3 * e1(64)
    cos = syntax_cosines(m, coordinate_axes(64))
    assert float(cos[","]) == pytest.approx(1.0)
    assert float(cos["="]) < 0.6


def test_last_slice_states_cover_every_position(model, probe):
    x = last_slice_states(model, probe.clean)
    assert x.shape == (2, probe.clean.tokens.numel(), 64)


def test_linear_probe_reads_a_planted_label_and_not_noise():
    from anchorkit.measures.probe import linear_probe_accuracy

    g = torch.Generator().manual_seed(1)
    x = torch.randn(800, 16, generator=g)
    labels = torch.rand(800, generator=g) < 0.25
    assert linear_probe_accuracy(x, labels) < 0.6
    x[labels, 3] += 4.0
    assert linear_probe_accuracy(x, labels) > 0.95
