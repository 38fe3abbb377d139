r"""Toy sequence tasks drawn from a seed, to show what position information does for a model.

Every example is ``seq_len`` tokens drawn uniformly (with replacement) from ``0 .. vocab-1``,
and an answer of the same length, one output per input position:

- ``reverse``: :math:`y_i = x_{L-1-i}` (the input read backwards);
- ``sort``: :math:`y = \mathrm{sorted}(x)` (ascending);
- ``shift``: :math:`y_i = x_{(i+1) \bmod L}` (the token one place to the right, wrapping round);
- ``histogram``: :math:`y_i = \#\{j : x_j = x_i\}` (how often position ``i``'s token occurs).

The first three depend on order. ``histogram`` is the control: permuting the input permutes its
answer the same way, so a model that is permutation-equivariant (self-attention without
positions) can learn it, while it cannot reverse, sort or shift. How well an order-blind model
can do at best (:func:`order_blind_ceiling`) is computed from the task, not assumed.

References: the reversal/sorting/histogram probes of Weiss, Goldberg and Yahav, "Thinking Like
Transformers" (ICML 2021); the equivariance argument of Haviv et al., "Transformer Language
Models without Positional Encodings Still Learn Positional Information" (Findings of EMNLP 2022).
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import check_int, check_tensor

__all__ = ["TASKS", "answers", "make_examples", "order_blind_ceiling", "mirror_ceiling"]

TASKS: tuple[str, ...] = ("reverse", "sort", "shift", "histogram")
MAX_VOCAB = 64
MAX_SEQ_LEN = 64
MAX_EXAMPLES = 1 << 16


def check_task(task: object) -> str:
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task={str(task)[:40]!r} must be one of {', '.join(TASKS)}")
    return task


def num_classes(task: str, vocab: int, seq_len: int) -> int:
    """How many answers the output layer chooses from: the ``vocab`` tokens, or for
    ``histogram`` the counts ``0 .. 2*seq_len`` (so the model can also be asked about inputs up
    to twice as long as it was trained on)."""
    task = check_task(task)
    vocab = check_int("vocab", vocab, minimum=2, maximum=MAX_VOCAB)
    seq_len = check_int("seq_len", seq_len, minimum=2, maximum=MAX_SEQ_LEN)
    return 2 * seq_len + 1 if task == "histogram" else vocab


def check_inputs(inputs: object, *, name: str = "inputs") -> Tensor:
    """``inputs`` as a ``(batch, steps)`` tensor of token ids (an integer dtype), or
    ``ValueError`` naming it."""
    check_tensor(name, inputs, dims=2, what="(batch, steps) of token ids")
    if inputs.dtype.is_floating_point or inputs.dtype == torch.bool:
        raise ValueError(f"{name} must hold token ids in an integer dtype; got dtype {inputs.dtype}")
    return inputs


def answers(task: str, inputs: Tensor) -> Tensor:
    """The answer of ``task`` for each row of ``inputs`` ``(batch, steps)`` int64 -> same shape."""
    task = check_task(task)
    inputs = check_inputs(inputs)
    if task == "reverse":
        return inputs.flip(-1)
    if task == "sort":
        return inputs.sort(dim=-1).values
    if task == "shift":
        return inputs.roll(-1, dims=-1)
    # count of x_i in x: where x_i's run starts and ends in the sorted row (memory (batch, steps))
    ordered = inputs.sort(dim=-1).values.contiguous()
    after = torch.searchsorted(ordered, inputs.contiguous(), right=True)
    return after - torch.searchsorted(ordered, inputs.contiguous())  # (batch, steps)


def make_examples(task: str, num_examples: int, seq_len: int, vocab: int, *, seed: int = 0,
                  generator: torch.Generator | None = None) -> tuple[Tensor, Tensor]:
    """``num_examples`` examples of ``task`` on the CPU: inputs and answers, each
    ``(num_examples, seq_len)`` int64. Drawn from ``generator`` (which advances) or, when none is
    given, from a fresh one seeded with ``seed``: the same arguments give the same examples on
    every machine. ``seed`` is a whole number (``None`` is refused, as any other non-number: it
    would silently mean one fixed seed)."""
    task = check_task(task)
    num_examples = check_int("num_examples", num_examples, minimum=1, maximum=MAX_EXAMPLES)
    seq_len = check_int("seq_len", seq_len, minimum=2, maximum=2 * MAX_SEQ_LEN)
    vocab = check_int("vocab", vocab, minimum=2, maximum=MAX_VOCAB)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    if generator is None:
        generator = torch.Generator().manual_seed(seed)
    elif not isinstance(generator, torch.Generator) or generator.device.type != "cpu":
        raise ValueError(f"generator must be a CPU torch.Generator or None; got {str(generator)[:40]!r}")
    inputs = torch.randint(0, vocab, (num_examples, seq_len), generator=generator)
    return inputs, answers(task, inputs)


def order_blind_ceiling(task: str, inputs: Tensor) -> float:
    r"""The best expected token accuracy of any permutation-equivariant model on ``inputs``
    ``(batch, steps)`` (e.g. an encoder without positions).

    Such a model's output at position ``i`` can depend only on :math:`x_i` and the multiset of
    all tokens. Given those, the inputs are equally likely in every order, so the answer's
    distribution is known and the best guess is its mode:

    - ``shift``, and ``reverse`` of an even length: the answer is one of the other ``L-1``
      tokens, each equally likely: best :math:`\max_v c'_v / (L-1)`, :math:`c'` the counts of
      the tokens other than :math:`x_i`;
    - ``sort``, and ``reverse`` of an odd length (whose middle token is its own answer):
      position ``i`` is equally likely to be any of the ``L`` places: best
      :math:`\max_v c_v / L`, :math:`c` the counts of all tokens;
    - ``histogram``: the answer is a function of :math:`x_i` and the multiset: 1.
    Averaged over positions and examples.
    """
    task = check_task(task)
    inputs = check_inputs(inputs)
    batch, steps = inputs.shape
    if batch < 1 or steps < 2:
        raise ValueError(f"inputs of shape {tuple(inputs.shape)} must hold at least one example of 2 tokens or more")
    if int(inputs.min()) < 0 or int(inputs.max()) >= MAX_VOCAB:
        raise ValueError(f"inputs must be token ids from 0 to {MAX_VOCAB - 1} (MAX_VOCAB={MAX_VOCAB})")
    if task == "histogram":
        return 1.0
    inputs = inputs.long().cpu()
    counts = torch.zeros(batch, MAX_VOCAB, dtype=torch.long).scatter_add_(1, inputs, torch.ones_like(inputs))
    most = counts.max(dim=1).values  # (batch,)
    if task == "sort" or (task == "reverse" and steps % 2):
        return float(most.double().mean() / steps)
    # the largest count of the other tokens at each position (one copy of x_i removed): one less
    # than the largest count where x_i is the only token that common, the largest count otherwise
    alone = (counts == most[:, None]).sum(dim=1) == 1  # (batch,)
    own = counts.gather(1, inputs)  # (batch, steps): the count of x_i
    others = most[:, None] - ((own == most[:, None]) & alone[:, None]).long()
    return float(others.double().mean() / (steps - 1))


def mirror_ceiling(task: str, inputs: Tensor) -> float:
    r"""The best expected token accuracy on ``inputs`` ``(batch, steps)`` of any model that
    cannot tell left from right: one whose answers to an input read backwards are its answers to
    the input, read backwards (an encoder whose only position signal is a bias symmetric in
    :math:`i-j`, such as ALiBi's :math:`-m|i-j|`).

    An input :math:`x` and its mirror image :math:`\bar x` are equally likely. Such a model gives
    the same answer at position ``j`` of :math:`x` and at position ``L-1-j`` of :math:`\bar x`,
    so where the two right answers differ it gets at most one of them: the bound is the mean of
    :math:`(1 + [a_j = b_j]) / 2`, :math:`a` the answers to :math:`x` and :math:`b` those to
    :math:`\bar x` read backwards. ``reverse`` and ``histogram`` answer mirror images with mirror
    images (the bound is 1: the symmetry does not stand in their way); ``shift`` needs the right
    neighbour, which the mirror image turns into the left one.
    """
    task = check_task(task)
    inputs = check_inputs(inputs)
    if inputs.shape[0] < 1 or inputs.shape[1] < 2:
        raise ValueError(f"inputs of shape {tuple(inputs.shape)} must hold at least one example of 2 tokens or more")
    inputs = inputs.long().cpu()
    here = answers(task, inputs)
    mirrored = answers(task, inputs.flip(-1)).flip(-1)
    return float(((1 + (here == mirrored).double()) / 2).mean())
