import torch
from hypothesis import given
from hypothesis import strategies as st

from anchorkit.core.config import TaskConfig
from anchorkit.core.task import (OPS, apply_op, context_length, epoch_batches, positions, probe_set,
                                 token_id, vocab)

TASK = TaskConfig()


@given(st.integers(0, 9), st.integers(0, 9))
def test_ops_compute_their_answers(a, b):
    ta, tb = torch.tensor([a] * 4), torch.tensor([b] * 4)
    got = apply_op(torch.arange(4), ta, tb).tolist()
    assert got == [a + b, abs(a - b), max(a, b), min(a, b)]


def test_context_layout_reads_as_text():
    batch = epoch_batches(TASK, 7, 0, 8, 8)[0]
    words = vocab(TASK)
    T = context_length(TASK)
    pos = positions(TASK)
    for row, op, tgt in zip(batch.tokens, batch.ops, batch.targets):
        text = [words[t] for t in row]
        assert len(text) == T and text[0] == "?"
        assert [text[p] for p in pos.equals] == ["="] * (TASK.k + 1)
        lines = " ".join(text[1:]).split("⏎")
        assert len(lines) == TASK.k + 1
        for i, line in enumerate(lines[:-1]):
            a, comma, b, eq, c = line.split()
            assert int(c) == apply_op(op.view(1), torch.tensor([int(a)]), torch.tensor([int(b)]))
            if i >= 1:
                assert int(c) == tgt[i - 1]
        a, _, b, _ = lines[-1].split()
        assert tgt[-1] == apply_op(op.view(1), torch.tensor([int(a)]), torch.tensor([int(b)]))


def test_stream_is_seeded_balanced_and_epoch_dependent():
    e0 = epoch_batches(TASK, 5, 0, 512, 128)
    again = epoch_batches(TASK, 5, 0, 512, 128)
    e1 = epoch_batches(TASK, 5, 1, 512, 128)
    other = epoch_batches(TASK, 6, 0, 512, 128)
    assert all(torch.equal(a.tokens, b.tokens) for a, b in zip(e0, again))
    assert not torch.equal(e0[0].tokens, e1[0].tokens)
    assert not torch.equal(e0[0].tokens, other[0].tokens)
    counts = torch.cat([b.ops for b in e0]).bincount()
    assert counts.tolist() == [128] * len(OPS)


def test_probe_set_is_fixed_and_null_set_removes_evidence():
    p, q = probe_set(TASK), probe_set(TASK)
    assert torch.equal(p.clean.tokens, q.clean.tokens) and torch.equal(p.null.tokens, q.null.tokens)
    pos = positions(TASK)
    ans = pos.example_answers
    # same operands and query, different example answers
    keep = [i for i in range(context_length(TASK)) if i not in ans]
    assert torch.equal(p.clean.tokens[:, keep], p.null.tokens[:, keep])
    assert (p.clean.tokens[:, ans] != p.null.tokens[:, ans]).float().mean() > 0.8
    assert torch.equal(p.clean.targets[:, -1], p.null.targets[:, -1])
    assert p.clean.ops.bincount().tolist() == [TASK.probe_per_op] * len(OPS)
    assert int(p.null.tokens[:, ans].max()) < token_id(TASK, "?")
