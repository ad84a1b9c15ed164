"""Where difference lives when e₁ is gone (the diagnosis, part 1): the subspace edit is the usual
edit at rank 1 and removes what it should, the erasure directions are orthonormal and find a
planted concept, the probe reads a planted label and not a random one with an interval that says
so, and the rank rule gives each of its verdicts on constructed runs (rank 1, rank 2, none)."""

import pandas as pd
import pytest
import torch

from anchorkit import ModelConfig, TaskConfig
from anchorkit.measures import criteria
from anchorkit.studies.diagnosis import LOW_RANK, RANKS
from anchorkit.core.edit import e1, project_out, project_out_subspace, random_directions
from anchorkit.measures.measure import edited_predictions, subspace_predictions
from anchorkit.core.model import Transformer
from anchorkit.studies.diagnosis.rank import (DIFFUSE, LOW_RANK_VERDICT, NEITHER, balanced_accuracy,
                            e1_spill_cap, effective_rank, effective_rank_at, erasure_directions, fitted_at,
                            nested, orthonormal_next, probe_fit, pulled_states, random_subspaces, rank_verdict, rank_verdicts, ranks_table,
                            read_direction, readable)
from anchorkit.core.task import DIFFERENCE, positions, probe_set

TASK = TaskConfig(probe_per_op=16)


@pytest.fixture(scope="module")
def model():
    return Transformer(1, ModelConfig(), TASK).initialise([5])


def test_the_subspace_edit_is_the_usual_edit_at_rank_one_and_removes_its_span():
    x = torch.randn(3, 7, 64, dtype=torch.float64)
    d = random_directions(1, 64)[0].double()
    assert torch.allclose(project_out_subspace(x, d[:, None]), project_out(x, d, 1.0))
    Q = torch.linalg.qr(torch.randn(64, 3, dtype=torch.float64))[0]
    out = project_out_subspace(x, Q)
    assert (out @ Q).abs().max() < 1e-12  # nothing left along the subspace
    rest = torch.eye(64, dtype=torch.float64) - Q @ Q.T
    assert torch.allclose(out, x @ rest)  # and everything else kept
    padded = torch.cat([Q, torch.zeros(64, 2, dtype=torch.float64)], 1)
    assert torch.allclose(project_out_subspace(x, padded), out)  # zero columns: no direction


def test_subspace_predictions_at_rank_one_answer_as_the_e1_edit(model):
    probe = probe_set(TASK).clean
    ref = edited_predictions(model, probe, e1(64)[None], 1.0)[0, 0]
    sub = torch.zeros(3, 2, 64)
    sub[:, 0] = e1(64)  # the same subspace thrice, once padded
    sub[2, 1] = 0.0
    got = subspace_predictions(model, probe, sub, chunk=2)
    assert got.shape == (3, probe.tokens.shape[0])
    assert torch.equal(got[0], ref) and torch.equal(got[2], ref)
    with pytest.raises(ValueError, match="one run"):
        subspace_predictions(Transformer(2, ModelConfig(), TASK).initialise([1, 2]), probe, sub)


def test_nested_subspaces_grow_one_direction_at_a_time():
    basis = torch.linalg.qr(torch.randn(64, 4))[0].T
    n = nested(basis)
    assert n.shape == (4, 4, 64)
    for j in range(4):
        assert torch.equal(n[j, : j + 1], basis[: j + 1])
        assert not n[j, j + 1:].any()


def test_random_subspaces_start_at_e1_are_orthonormal_and_seeded():
    r = random_subspaces(e1(64), seed=3, draws=2)
    assert r.shape == (2, RANKS[-1], 64)
    for s in r:
        assert torch.equal(s[0], e1(64))
        assert torch.allclose(s @ s.T, torch.eye(RANKS[-1]), atol=1e-6)
    assert not torch.allclose(r[0], r[1])
    assert torch.equal(r, random_subspaces(e1(64), seed=3, draws=2))


def test_the_read_direction_finds_a_planted_concept_behind_a_dominant_shared_direction():
    """The concept sits on d; a large shared direction m varies (and its mean differs a little
    between the classes in scale): the whitened read direction is d, the class-mean difference
    would not be."""
    g = torch.Generator().manual_seed(0)
    basis = torch.linalg.qr(torch.randn(64, 2, generator=g, dtype=torch.float64))[0].T
    d, m = basis
    z = torch.arange(4000) % 4 == 1
    x = 0.3 * torch.randn(4000, 64, generator=g, dtype=torch.float64)
    scale = 10 + 3 * torch.randn(4000, generator=g, dtype=torch.float64) + 1.0 * z
    x = x + scale[:, None] * m + 0.5 * z[:, None] * d
    found = read_direction(x, z)
    assert abs(float(found @ d)) > 0.9
    mean_diff = x[z].mean(0) - x[~z].mean(0)
    assert abs(float(mean_diff / mean_diff.norm() @ d)) < 0.5  # the naive finder is misled


def test_erasure_directions_are_orthonormal_and_start_at_e1(model):
    probe = probe_set(TASK).clean
    dirs = erasure_directions(model, probe, e1(64), k=3)
    assert dirs.shape == (3, 64) and torch.equal(dirs[0], e1(64))
    assert torch.allclose(dirs @ dirs.T, torch.eye(3), atol=1e-5)
    again = orthonormal_next(dirs.double(), torch.randn(64, dtype=torch.float64))
    assert (dirs.double() @ again).abs().max() < 1e-12


def test_the_second_family_is_fitted_at_the_query_position_only(model):
    probe = probe_set(TASK).clean
    where = positions(TASK)
    assert fitted_at(TASK, "answers") == where.example_answers
    assert fitted_at(TASK, "query") == [where.query]
    B, L = probe.tokens.shape[0], model.n_slices - 1
    x, z = pulled_states(model, probe, None, "query")
    assert x.shape == (L * B, 64) and int(z.sum()) == L * int((probe.ops == DIFFERENCE).sum())
    answers, query = (erasure_directions(model, probe, e1(64), k=3, family=f)
                      for f in ("answers", "query"))
    assert torch.equal(query[0], e1(64)) and torch.allclose(query @ query.T, torch.eye(3), atol=1e-5)
    assert (answers[1] @ query[1]).abs() < 0.99  # another place, another direction
    with pytest.raises(ValueError, match="family must be one of"):
        fitted_at(TASK, "everywhere")


def test_the_probe_reads_a_planted_label_and_not_a_random_one():
    g = torch.Generator().manual_seed(1)
    labels = torch.arange(4).repeat_interleave(512) == 1  # as the probe set lays out its ops
    x = torch.randn(2048, 64, generator=g)
    planted = x + 1.5 * labels[:, None] * torch.eye(64)[7]
    acc, low, high = balanced_accuracy(probe_fit(planted, labels), labels[1::2])
    assert acc > 0.75 and low > 0.5 and low <= acc <= high and readable(acc, low)
    acc, low, high = balanced_accuracy(probe_fit(x, labels), labels[1::2])
    assert abs(acc - 0.5) < 0.08 and low < 0.5 < high and not readable(acc, low)
    with pytest.raises(ValueError, match="both classes"):  # no positive among the even rows
        probe_fit(x, torch.arange(2048) % 4 == 1)


def test_the_balanced_accuracys_interval_on_known_counts():
    truth = torch.tensor([True] * 10 + [False] * 30)
    perfect = balanced_accuracy(truth.clone(), truth)
    assert perfect[0] == 1.0 and perfect[2] == 1.0 and 0.6 < perfect[1] < 1.0
    none = balanced_accuracy(~truth, truth)
    assert none[0] == 0.0 and none[1] == 0.0
    always = balanced_accuracy(torch.ones(40, dtype=torch.bool), truth)
    assert always[0] == 0.5 and always[1] < 0.5 < always[2]  # says "yes" to everything: chance
    assert not readable(*always[:2])


def curve(run, removal_at, spill_at=lambda k: 0.0, random_at=lambda k: 0.0, recipe="falloff",
          optimizer="rotated"):
    return pd.DataFrame([{"run": run, "seed": 1, "optimizer": optimizer, "recipe": recipe,
                          "k": k, "removal": removal_at(k), "spill": spill_at(k),
                          "random_removal": random_at(k), "random_spill": 0.0} for k in RANKS])


def test_the_effective_rank_of_constructed_runs():
    on_e1 = curve("a", lambda k: 0.95)  # the op on e₁ alone
    on_two = curve("b", lambda k: 0.4 if k == 1 else 0.9)  # on e₁ and one more direction
    diffuse = curve("c", lambda k: 0.05 * k)  # a little more with every direction, never enough
    assert effective_rank(on_e1) == 1 and effective_rank(on_two) == 2
    assert effective_rank(diffuse) is None
    # reaching the removal only with spill beyond the criterion is not a rank
    spilling = curve("d", lambda k: 0.9, spill_at=lambda k: 2 * criteria.SPILL_MAX)
    assert effective_rank(spilling) is None
    edge = curve("e", lambda k: criteria.REMOVAL_MIN, spill_at=lambda k: criteria.SPILL_MAX)
    assert effective_rank(edge) == 1


def test_at_matched_spill_a_subspace_is_compared_with_the_e1_edits_own_spill():
    cap = criteria.SPILL_MAX
    # e₁ spills 0.05 and removes 0.5; three directions remove 0.85 at spill 0.04: short at the
    # criterion's spill, rescued at e₁'s own
    rescued = curve("a", lambda k: 0.5 if k < 3 else 0.85, spill_at=lambda k: 0.05 if k == 1 else 0.04)
    assert e1_spill_cap(rescued) == 0.05 and effective_rank(rescued) is None
    assert effective_rank_at(rescued, e1_spill_cap(rescued)) == 3
    # e₁ within the criterion: matched spill is the criterion's, the same rank
    calm = curve("b", lambda k: 0.4 if k == 1 else 0.9, spill_at=lambda k: 0.01 if k == 1 else 0.03)
    assert e1_spill_cap(calm) == cap and effective_rank_at(calm, cap) is None
    # more directions that spill more than e₁ did are not rescued at matched spill
    worse = curve("c", lambda k: 0.5 if k == 1 else 0.9, spill_at=lambda k: 0.03 * k)
    assert effective_rank_at(worse, e1_spill_cap(worse)) is None
    ranks = ranks_table(pd.concat([rescued, calm, worse, curve("d", lambda k: 0.95)]))
    assert list(ranks.effective_rank_at_e1_spill.fillna(0)) == [3, 0, 0, 1]
    assert list(ranks.removal_at_e1_spill) == [0.85, 0.4, 0.5, 0.95]
    v = rank_verdicts(ranks)
    assert int(v.short.iloc[0]) == 3 and int(v.rescued_at_e1_spill.iloc[0]) == 1


def arm(removal_at, random_at, n=8, **kw):
    return pd.concat([curve(f"r{i}", removal_at, random_at=random_at, **kw) for i in range(n)],
                     ignore_index=True)


@pytest.mark.parametrize("removal_at, random_at, expected, median_rank", [
    (lambda k: 0.3 if k < 2 else 0.9, lambda k: 0.3, LOW_RANK_VERDICT, 2),  # rank 2, far beyond
    (lambda k: 0.3 if k < 2 else 0.9, lambda k: 0.75, NEITHER, 2),  # rank 2, random does as well
    (lambda k: 0.3 + 0.02 * k, lambda k: 0.3 + 0.01 * k, DIFFUSE, RANKS[-1] + 1),
    (lambda k: 0.3 + 0.06 * k, lambda k: 0.3, NEITHER, RANKS[-1] + 1),  # none, yet beyond random
    (lambda k: 0.3 if k < LOW_RANK + 1 else 0.9, lambda k: 0.3, NEITHER, LOW_RANK + 1),
])
def test_the_rank_rule_gives_every_verdict(removal_at, random_at, expected, median_rank):
    curves = pd.concat([arm(removal_at, random_at),
                        arm(lambda k: 0.0, lambda k: 0.0, recipe="control")], ignore_index=True)
    v = rank_verdicts(ranks_table(curves))
    assert list(v.verdict) == [expected] and int(v.runs.iloc[0]) == 8  # controls not counted
    assert v.median_rank.iloc[0] == median_rank


def test_the_rank_rule_counts_half_the_runs():
    assert rank_verdict([1, 2, 3, 4, None, None, None, None], [0.5] * 4, [0.5] * 8) \
        == LOW_RANK_VERDICT
    assert rank_verdict([1, 2, 3, None, None, None, None, None], [0.5] * 3, [0.5] * 8) == NEITHER
    assert rank_verdict([1, None, None, None], [0.5], [0.1] * 4) == DIFFUSE
    assert rank_verdict([2, 2, None, None], [0.1, 0.1], [0.1] * 4) == DIFFUSE
    # e₁ alone meets the criteria on half the runs: low rank, though its excess over a random
    # subspace of rank 1 (e₁ itself) is 0 by construction
    assert rank_verdict([1, 1, None, None], [0.0, 0.0], [0.1] * 4) == LOW_RANK_VERDICT
    assert rank_verdict([1, 1, 1, 1, None, None, None, None], [0.0] * 4, [-0.01] * 8) \
        == LOW_RANK_VERDICT


def test_the_op_is_read_beyond_the_input_only_above_the_runs_own_slice_0_level():
    import pandas as pd

    from anchorkit.studies.diagnosis.rank import beyond_input

    def rows(run, level, deep_low):
        out = [{"run": run, "edit": e, "slice": 0, "accuracy": level, "low": level - 0.05}
               for e in ("before", "after")]
        out += [{"run": run, "edit": "after", "slice": s, "accuracy": deep_low + 0.04,
                 "low": deep_low} for s in range(1, 5)]
        return out

    # both read above the old bar (0.6); only the first above what the input alone gives
    probes = pd.DataFrame(rows("a", 0.73, 0.80) + rows("b", 0.73, 0.70))
    got = beyond_input(probes)
    assert got["a"] and not got["b"]
