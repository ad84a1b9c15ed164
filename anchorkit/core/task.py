"""The in-context arithmetic task (book/methods.md, *The task*): vocabulary, ops, context streams, probe and null sets.

A context is ``?`` then ``k`` example lines ``a , b = c ⏎`` made with one hidden op, then the
query line ``a , b =``. The model predicts each answer at the ``=`` before it; the loss covers
the answers of examples 2..k and the query. Every draw comes from a generator derived from a
seed, so a stream is a pure function of (data seed, epoch).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from anchorkit.core.config import TaskConfig, generator

OPS = ("sum", "difference", "max", "min")
DIFFERENCE = OPS.index("difference")
SYNTAX = ("?", ",", "=", "⏎")


def n_numbers(task: TaskConfig) -> int:
    """Number tokens 0..2*max_operand (every answer of every op fits)."""
    return 2 * task.max_operand + 1


def vocab(task: TaskConfig) -> list[str]:
    return [str(i) for i in range(n_numbers(task))] + list(SYNTAX)


def token_id(task: TaskConfig, symbol: str) -> int:
    return vocab(task).index(symbol)


def vocab_size(task: TaskConfig) -> int:
    return n_numbers(task) + len(SYNTAX)


def context_length(task: TaskConfig) -> int:
    return 1 + 6 * task.k + 4


def apply_op(op: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The answer of op (index into OPS, broadcast against a and b) on operands a, b."""
    answers = torch.stack([a + b, (a - b).abs(), torch.maximum(a, b), torch.minimum(a, b)])
    return answers.gather(0, op.expand_as(a).unsqueeze(0)).squeeze(0)


@dataclass(frozen=True)
class Positions:
    """Where things sit in a context (the same for every context of a task)."""

    equals: list[int]  # the '=' of every line, examples then query
    example_answers: list[int]  # the c tokens of the example lines
    loss_equals: list[int]  # '=' positions whose next answer is in the loss (examples 2..k, query)
    query: int  # the final '=' (the query answer is predicted here)


def positions(task: TaskConfig) -> Positions:
    k = task.k
    equals = [4 + 6 * i for i in range(k + 1)]
    return Positions(
        equals=equals,
        example_answers=[5 + 6 * i for i in range(k)],
        loss_equals=equals[1:],
        query=equals[-1],
    )


@dataclass
class Batch:
    """Contexts (B, T), their op (B,), and the answers predicted at ``loss_equals`` (B, k)."""

    tokens: torch.Tensor
    ops: torch.Tensor
    targets: torch.Tensor
    a: torch.Tensor  # operands of every line (B, k+1)
    b: torch.Tensor


def build_contexts(task: TaskConfig, ops: torch.Tensor, a: torch.Tensor, b: torch.Tensor,
                   answers: torch.Tensor | None = None) -> Batch:
    """Lay out contexts for ops (B,) and operands (B, k+1); example answers may be overridden."""
    k = task.k
    true = apply_op(ops[:, None].expand_as(a), a, b)
    shown = true[:, :k] if answers is None else answers
    B = ops.shape[0]
    T = context_length(task)
    tok = torch.empty(B, T, dtype=torch.long)
    comma, eq, nl, q = (token_id(task, s) for s in (",", "=", "⏎", "?"))
    tok[:, 0] = q
    for i in range(k + 1):
        s = 1 + 6 * i
        tok[:, s] = a[:, i]
        tok[:, s + 1] = comma
        tok[:, s + 2] = b[:, i]
        tok[:, s + 3] = eq
        if i < k:
            tok[:, s + 4] = shown[:, i]
            tok[:, s + 5] = nl
    targets = torch.cat([shown[:, 1:], true[:, k:]], dim=1)
    return Batch(tokens=tok, ops=ops, targets=targets, a=a, b=b)


def draw_contexts(task: TaskConfig, ops: torch.Tensor, gen: torch.Generator) -> Batch:
    """Fresh contexts for the given ops, operands uniform on 0..max_operand."""
    shape = (ops.shape[0], task.k + 1)
    a = torch.randint(0, task.max_operand + 1, shape, generator=gen)
    b = torch.randint(0, task.max_operand + 1, shape, generator=gen)
    return build_contexts(task, ops, a, b)


def epoch_batches(task: TaskConfig, data_seed: int, epoch: int, contexts: int,
                  batch_size: int) -> list[Batch]:
    """The batches of one epoch of the seeded stream: balanced over ops, shuffled.

    Depends only on (data_seed, epoch), so a resumed run sees the same stream.
    """
    gen = generator("data", data_seed, epoch)
    ops = torch.arange(contexts) % len(OPS)
    ops = ops[torch.randperm(contexts, generator=gen)]
    full = draw_contexts(task, ops, gen)
    return [
        Batch(*(t[i:i + batch_size] for t in (full.tokens, full.ops, full.targets, full.a, full.b)))
        for i in range(0, contexts, batch_size)
    ]


@dataclass
class ProbeSet:
    """Per op, fixed contexts (clean) and the same contexts with random example answers (null)."""

    clean: Batch
    null: Batch

    def op_mask(self, op: int) -> torch.Tensor:
        return self.clean.ops == op


def probe_set(task: TaskConfig) -> ProbeSet:
    """The probe and null sets, drawn once from the task's fixed seeds (the same for every run)."""
    ops = torch.arange(len(OPS)).repeat_interleave(task.probe_per_op)
    clean = draw_contexts(task, ops, generator("probe", task.probe_seed))
    g = generator("null", task.null_seed)
    random_answers = torch.randint(0, n_numbers(task), (ops.shape[0], task.k), generator=g)
    null = build_contexts(task, ops, clean.a, clean.b, answers=random_answers)
    return ProbeSet(clean=clean, null=null)
