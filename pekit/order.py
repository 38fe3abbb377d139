r"""Why self-attention "ignores order", measured; and ``valid_lens`` masking, step by step.

Without positions, self-attention is permutation equivariant: shuffling the input rows
shuffles the output rows and the weight matrix the same way and changes nothing else,
:math:`f(\Pi X) = \Pi f(X)`, so no output can depend on where a token stood. Adding the
positional table breaks this, because a token's vector then depends on its slot.

Also here, for a page that shows one layer at work: one query of one head through its three
steps (scores, softmax, weighted sum of values), and the numbers of the masking lab per
sequence of a padded batch.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_bool, check_elements, check_int, check_tensor
from .attention import MultiHeadAttention, _masked_softmax, _scores, _valid_lengths
from .encodings import sinusoidal_encoding

__all__ = ["self_attention", "positional_effect", "OrderCheck", "order_check", "MaskingSteps", "masking_steps",
           "causal_lengths", "padded_batch", "book_masked_softmax", "self_attention_weights", "HeadEffect",
           "head_effect", "QueryTrace", "query_trace", "query_key", "MaskedSequence", "MaskingLab", "masking_lab"]


class OrderCheck(NamedTuple):
    """``output``/``weights``: for the tokens as given, ``(n, num_hiddens)`` and
    ``(heads, n, n)``; ``shuffled_back``: the weights of the shuffled run with its queries and
    keys moved back to the original order ``(heads, n, n)`` (equal to ``weights`` exactly when
    the layer ignores order); ``output_gap``/``weights_gap``: the largest difference between the
    shuffled run and the original one moved into the shuffled order; ``output_scale``: the
    largest ``|output|``, the scale the output gap is measured against; ``shuffled_output``: the
    shuffled run's output ``(n, num_hiddens)``, its rows in the shuffled order (row ``i`` is the
    output of token ``perm[i]``); ``rounding``: the largest output gap float rounding alone can
    make at this setting, measured: each run's largest difference from the same run in float64
    (a float64 copy of the layer), the two added, plus a float64 margin (the triangle
    inequality: an order-blind layer's gap is at most this); ``weights_rounding``: the same for
    the weights' gap; ``unmoved_weights_gap``: the largest difference between the shuffled run's
    weights and the original ones as they stand, neither moved (how much the map as drawn changed)."""

    output: Tensor
    weights: Tensor
    shuffled_back: Tensor
    output_gap: float
    weights_gap: float
    output_scale: float
    shuffled_output: Tensor | None = None
    rounding: float = 0.0
    weights_rounding: float = 0.0
    unmoved_weights_gap: float = 0.0

    @property
    def shared_scale(self) -> float:
        """The largest ``|output|`` of either run: one colour range for both runs' outputs."""
        if self.shuffled_output is None or not self.shuffled_output.numel():
            return self.output_scale
        return max(self.output_scale, float(self.shuffled_output.abs().max()))

    @property
    def relative_output_gap(self) -> float:
        """``output_gap / output_scale``: 1e-7 is float round-off, 0.1 is a tenth of the output."""
        return self.output_gap / self.output_scale if self.output_scale else 0.0

    @property
    def relative_rounding(self) -> float:
        """``rounding / output_scale``: the reference :attr:`relative_output_gap` is read against."""
        return self.rounding / self.output_scale if self.output_scale else 0.0


def _check_model_input(model: object, X: object) -> None:
    if not isinstance(model, MultiHeadAttention):
        raise ValueError(f"model must be a pekit MultiHeadAttention; got a {type(model).__name__}")
    check_tensor("X", X, dims=2, floating=True, what="(n, num_hiddens)")
    if X.shape[1] != model.W_q.in_features:
        raise ValueError(f"X has {X.shape[1]} features per token; the model expects {model.W_q.in_features}")
    if X.dtype != model.W_q.weight.dtype or X.device != model.W_q.weight.device:
        raise ValueError(f"X is {X.dtype} on {X.device}; the model is {model.W_q.weight.dtype} on {model.W_q.weight.device}")


def self_attention(model: MultiHeadAttention, X: Tensor, *, positional: bool, base: float = 10000.0) -> tuple[Tensor, Tensor]:
    """Self-attention of one sequence ``X`` (``(n, num_hiddens)``), optionally with the sinusoidal
    table added by slot; returns the output ``(n, num_hiddens)`` and weights ``(heads, n, n)``."""
    _check_model_input(model, X)
    positional = check_bool("positional", positional)
    n, d = X.shape
    if positional:
        X = X + sinusoidal_encoding(n, d, base=base, device=X.device, dtype=X.dtype)
    with torch.inference_mode():
        inp = X[None]  # (1, n, d)
        out = model(inp, inp, inp)[0]
        return out, model.attention_weights[0]


def order_check(model: MultiHeadAttention, X: Tensor, perm: Tensor, *, positional: bool, base: float = 10000.0) -> OrderCheck:
    """Run self-attention on ``X`` (``(n, num_hiddens)`` token embeddings) and on ``X[perm]``,
    optionally adding the sinusoidal table (by slot, so it is not shuffled), and compare the
    shuffled results with the original ones shuffled."""
    _check_model_input(model, X)
    positional = check_bool("positional", positional)
    check_tensor("perm", perm, dims=1, what="(n,)")
    n = X.shape[0]
    if perm.dtype.is_floating_point or perm.shape[0] != n or not torch.equal(perm.sort().values.cpu(), torch.arange(n)):
        raise ValueError(f"perm must be a permutation of 0 .. {n - 1}, one entry per row of X")
    perm = perm.to(X.device)
    out, weights = self_attention(model, X, positional=positional, base=base)
    out_s, weights_s = self_attention(model, X[perm], positional=positional, base=base)
    output_gap = float((out_s - out[perm]).abs().max()) if n else 0.0
    weights_gap = float((weights_s - weights[:, perm][:, :, perm]).abs().max()) if n else 0.0
    back = torch.argsort(perm)  # the shuffled run's slot of each original token
    shuffled_back = weights_s[:, back][:, :, back]  # (heads, n, n) in the original order
    scale = float(out.abs().max()) if n else 0.0
    rounding, weights_rounding = _rounding(model, X, perm, positional, base, (out, weights), (out_s, weights_s),
                                           scale) if n else (0.0, 0.0)
    unmoved = float((weights_s - weights).abs().max()) if n else 0.0
    return OrderCheck(out, weights, shuffled_back, output_gap, weights_gap, scale, out_s, rounding, weights_rounding,
                      unmoved)


def _rounding(model: MultiHeadAttention, X: Tensor, perm: Tensor, positional: bool, base: float,
              run: tuple[Tensor, Tensor], shuffled: tuple[Tensor, Tensor], scale: float) -> tuple[float, float]:
    """:attr:`OrderCheck.rounding` and ``weights_rounding``: both runs again in float64, each
    run's largest difference from its float64 twin added, and 1e-12 of the size (the output's;
    1 for weights) for the float64 runs' own."""
    import copy

    wide = copy.deepcopy(model).double()
    X64 = X.double()
    twins = (self_attention(wide, X64, positional=positional, base=base),
             self_attention(wide, X64[perm], positional=positional, base=base))

    def apart(a: Tensor, b: Tensor) -> float:
        return float((a.double() - b).abs().max())

    outputs = apart(run[0], twins[0][0]) + apart(shuffled[0], twins[1][0]) + 1e-12 * scale
    weights = apart(run[1], twins[0][1]) + apart(shuffled[1], twins[1][1]) + 1e-12
    return outputs, weights


def positional_effect(model: MultiHeadAttention, X: Tensor, *, base: float = 10000.0) -> Tensor:
    """What adding the sinusoidal table changes in the attention weights: weights with P
    minus weights without, ``(heads, n, n)``."""
    return self_attention(model, X, positional=True, base=base)[1] - self_attention(model, X, positional=False)[1]


def causal_lengths(batch_lens: Tensor, queries: int) -> Tensor:
    """Per-query valid lengths ``(batch, queries)``: query ``i`` sees keys ``0 .. i``, never past
    its sequence's own length."""
    queries = check_int("queries", queries, minimum=0, maximum=1 << 20)
    if isinstance(batch_lens, (list, tuple)) or (isinstance(batch_lens, Tensor) and batch_lens.dim() == 1):
        lens = _valid_lengths(batch_lens, len(batch_lens), 1, 1 << 62, torch.device("cpu"), name="batch_lens")[:, 0]
    else:
        raise ValueError(f"batch_lens must be a list or 1-D tensor of lengths; got {type(batch_lens).__name__}")
    check_elements({"batch": len(lens), "queries": queries})
    i = torch.arange(1, queries + 1)[None, :]  # (1, queries)
    return torch.minimum(i, lens[:, None])


def padded_batch(sequences: list[Tensor], steps: int) -> Tensor:
    """Stack sequences ``(length_b, d)`` into one zero-padded batch ``(batch, steps, d)``."""
    if not isinstance(sequences, (list, tuple)) or not sequences:
        raise ValueError("sequences must be a non-empty list of (length, d) tensors")
    for b, seq in enumerate(sequences):
        check_tensor(f"sequences[{b}]", seq, dims=2, floating=True, what="(length, d)")
        if seq.shape[1] != sequences[0].shape[1] or seq.dtype != sequences[0].dtype:
            raise ValueError("all sequences must have the same width and dtype")
    steps = check_int("steps", steps, minimum=0)
    d = sequences[0].shape[1]
    check_elements({"batch": len(sequences), "steps": steps, "d": d})
    batch = torch.zeros(len(sequences), steps, d, dtype=sequences[0].dtype, device=sequences[0].device)
    for b, seq in enumerate(sequences):
        if seq.shape[0] > steps:
            raise ValueError(f"sequences[{b}] has {seq.shape[0]} steps, more than steps={steps}")
        batch[b, : seq.shape[0]] = seq
    return batch


class MaskingSteps(NamedTuple):
    """``scores`` before masking, ``masked`` (masked entries set to -inf, for display),
    ``weights`` after the masked softmax: each ``(batch, queries, keys)``;
    ``lengths``: the valid length of every query ``(batch, queries)``; ``masked_weight``: the
    total weight that fell on masked keys, per sequence ``(batch,)`` (0 exactly);
    ``row_sums``: the weights' sum per query ``(batch, queries)`` (1, or 0 for length 0)."""

    scores: Tensor
    masked: Tensor
    weights: Tensor
    lengths: Tensor
    masked_weight: Tensor
    row_sums: Tensor


def masking_steps(X: Tensor, valid_lens: Tensor, *, keys: Tensor | None = None) -> MaskingSteps:
    """Scaled dot-product self-attention scores of a padded batch ``X`` (``(batch, steps, d)``),
    the same scores with the keys beyond each valid length masked out, and the weights.
    ``keys`` (the same shape as ``X``, e.g. ``X`` through a key projection while ``X`` went
    through a query projection) are compared with ``X``'s rows; by default ``X`` itself."""
    check_tensor("X", X, dims=3, floating=True, what="(batch, steps, d)")
    if keys is None:
        keys = X
    check_tensor("keys", keys, dims=3, floating=True, what="(batch, steps, d)")
    if keys.shape != X.shape or keys.dtype != X.dtype or keys.device != X.device:
        raise ValueError(f"keys must have X's shape {tuple(X.shape)}, dtype and device; got {tuple(keys.shape)}, "
                         f"{keys.dtype} on {keys.device}")
    lens = _valid_lengths(valid_lens, X.shape[0], X.shape[1], X.shape[1], X.device)  # (batch, queries)
    scores = _scores(X, keys)  # (batch, queries, keys)
    weights = _masked_softmax(scores, lens, False)
    keep = torch.arange(X.shape[1], device=X.device)[None, None, :] < lens[..., None]  # (batch, queries, keys)
    masked = scores.masked_fill(~keep, float("-inf"))
    masked_weight = torch.where(keep, torch.zeros_like(weights), weights).abs().sum(dim=(1, 2))
    return MaskingSteps(scores, masked, weights, lens, masked_weight, weights.sum(dim=2))


def book_masked_softmax(X: Tensor, valid_lens: Tensor | list | tuple | None) -> Tensor:
    """The book's ``masked_softmax``, kept for comparison: masked scores are replaced by
    ``-1e6`` before an ordinary softmax. Masked keys get weight ``exp(-1e6 - max) = 0``; but a
    row whose valid length is 0 has every score at ``-1e6``, so it gets uniform weights
    ``1/keys`` over keys that are all padding, where :func:`pekit.masked_softmax` gives zeros.
    ``X``: ``(batch, queries, keys)``; ``valid_lens``: ``(batch,)`` or ``(batch, queries)``.
    In float16, whose numbers stop at -65504, the fill is that lowest number instead."""
    check_tensor("X", X, dims=3, floating=True, what="(batch, queries, keys)")
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    lens = _valid_lengths(valid_lens, X.shape[0], X.shape[1], X.shape[2], X.device)  # (batch, queries)
    keep = torch.arange(X.shape[2], device=X.device)[None, None, :] < lens[..., None]
    return torch.softmax(X.masked_fill(~keep, max(-1e6, torch.finfo(X.dtype).min)), dim=-1)


# one layer at work, for a page to show --------------------------------------------------------


def _check_projections(model: object, X: object, *, dims: int | tuple[int, ...] = 2) -> None:
    """``model`` a pekit MultiHeadAttention whose three projections all take ``X``'s rows."""
    if not isinstance(model, MultiHeadAttention):
        raise ValueError(f"model must be a pekit MultiHeadAttention; got a {type(model).__name__}")
    check_tensor("X", X, dims=dims, floating=True, what="(n, num_hiddens)" if dims == 2 else "(..., n, num_hiddens)")
    for W in (model.W_q, model.W_k, model.W_v):
        if X.shape[-1] != W.in_features:
            raise ValueError(f"X has {X.shape[-1]} features per token; the model's projections expect "
                             f"{model.W_q.in_features}, {model.W_k.in_features} and {model.W_v.in_features}")
    if X.dtype != model.W_q.weight.dtype or X.device != model.W_q.weight.device:
        raise ValueError(f"X is {X.dtype} on {X.device}; the model is {model.W_q.weight.dtype} on {model.W_q.weight.device}")


def self_attention_weights(model: MultiHeadAttention, X: Tensor, *, positional: bool,
                           base: float = 10000.0) -> Tensor:
    """The weights of :func:`self_attention` alone, ``(heads, n, n)``, on the CPU (where a chart
    reads them and a cache keeps them)."""
    return self_attention(model, X, positional=positional, base=base)[1].cpu()


class HeadEffect(NamedTuple):
    """What adding the sinusoidal table changes in one head's weights: ``change`` (weights with P
    minus weights without, ``(n, n)``, on the CPU) and ``largest``, the largest ``|change|``."""

    change: Tensor
    largest: float


def head_effect(model: MultiHeadAttention, X: Tensor, head: int, *, base: float = 10000.0) -> HeadEffect:
    """:func:`positional_effect` for head ``head`` (``0 .. heads - 1``) of ``model``, with its
    largest change (0 for an empty sequence)."""
    _check_model_input(model, X)
    head = check_int("head", head, minimum=0, maximum=model.num_heads - 1)
    change = positional_effect(model, X, base=base)[head].cpu()
    return HeadEffect(change, float(change.abs().max()) if change.numel() else 0.0)


class QueryTrace(NamedTuple):
    """One query of one head through the three steps, in float64 on the CPU: ``scores`` ``(n,)``,
    q·k_j / √d_h against every key j; ``weights`` ``(n,)``, their softmax; ``values``
    ``(n, columns)``, the first columns of every key's value row v_j; ``output`` ``(columns,)``,
    the same columns of Σ_j weight_j v_j; ``head_size``: d_h, the head's columns in all."""

    scores: Tensor
    weights: Tensor
    values: Tensor
    output: Tensor
    head_size: int

    @property
    def table(self) -> Tensor:
        """The value rows with the output as one more row below, ``(n + 1, columns)``."""
        return torch.cat([self.values, self.output[None]])

    def numbers(self) -> tuple[tuple[float, ...], tuple[float, ...], tuple[tuple[float, ...], ...], tuple[float, ...]]:
        """The scores, the weights, the value rows and the output as Python floats."""
        return (tuple(self.scores.tolist()), tuple(self.weights.tolist()), tuple(map(tuple, self.values.tolist())),
                tuple(self.output.tolist()))


def query_trace(model: MultiHeadAttention, X: Tensor, *, head: int, query: int, positional: bool,
                columns: int | None = None, base: float = 10000.0) -> QueryTrace:
    """Query ``query`` of head ``head`` of ``model`` on one sequence ``X`` (``(n, num_hiddens)``,
    the sinusoidal table added by slot when ``positional``), step by step from the layer's own
    projections: Q, K, V are ``X`` through W_q, W_k, W_v, cut to the head's columns as the layer
    splits them, in float64; the scores are ``K @ q / √d_h``, the weights their softmax, the
    output ``weights @ V``. ``columns``: how many of the head's value columns to keep (all of
    them by default, or when it has fewer)."""
    _check_projections(model, X)
    positional = check_bool("positional", positional)
    n, d = X.shape
    head = check_int("head", head, minimum=0, maximum=model.num_heads - 1)
    if not n:
        raise ValueError(f"query={query!r}: X has no token to ask from")
    query = check_int("query", query, minimum=0, maximum=n - 1)
    hs = model.num_hiddens // model.num_heads
    shown = hs if columns is None else min(hs, check_int("columns", columns, minimum=0, maximum=1 << 30))
    if positional:
        X = X + sinusoidal_encoding(n, d, base=base, device=X.device, dtype=X.dtype)
    cols = slice(head * hs, (head + 1) * hs)  # head h's columns, as the layer splits them
    Q, K, V = (W(X).detach()[:, cols].double().cpu() for W in (model.W_q, model.W_k, model.W_v))
    scores = K @ Q[query] / math.sqrt(hs)
    weights = scores.softmax(0)
    output = weights @ V
    return QueryTrace(scores, weights, V[:, :shown], output[:shown], hs)


def query_key(model: MultiHeadAttention, X: Tensor) -> tuple[Tensor, Tensor]:
    """``X`` (``(n, num_hiddens)`` or a batch ``(batch, n, num_hiddens)``) through the layer's
    query and key projections W_q and W_k, detached: the queries and keys its scores compare,
    before the heads are split. (Without bias, a zero padding row stays zero.)"""
    _check_projections(model, X, dims=(2, 3))
    return model.W_q(X).detach(), model.W_k(X).detach()


class MaskedSequence(NamedTuple):
    """The masking lab's numbers for one sequence of the batch: ``score_bound``, the largest
    ``|score|`` the mask keeps (1.0 when it keeps none: one colour range for the scores and the
    masked scores); ``masked_weight``, the total weight on masked keys (0 exactly); ``moved``,
    the largest change the mask makes to a weight against the softmax over every key;
    ``hidden_pairs``, the query–key pairs masked; ``zero_rows``, the queries of valid length 0;
    ``zero_row`` and ``book_row``, pekit's and the book's weights for the first of them (empty
    when none)."""

    score_bound: float
    masked_weight: float
    moved: float
    hidden_pairs: int
    zero_rows: tuple[int, ...]
    zero_row: tuple[float, ...]
    book_row: tuple[float, ...]


class MaskingLab(NamedTuple):
    """:func:`masking_steps` of a batch (``steps``), the book's masked softmax of the same scores
    (``book``, ``(batch, queries, keys)``) and each sequence's numbers (``sequences``)."""

    steps: MaskingSteps
    book: Tensor
    sequences: tuple[MaskedSequence, ...]


def masking_lab(X: Tensor, valid_lens: Tensor | list | tuple, *, keys: Tensor | None = None) -> MaskingLab:
    """The masking lab of a padded batch ``X`` (``(batch, steps, d)``, queries) against ``keys``
    (the same shape; ``X`` itself by default) with ``valid_lens`` (``(batch,)`` or
    ``(batch, queries)``): the masked steps, the book's convention, and per sequence what the mask
    hides and moves (against the weights with every key valid)."""
    result = masking_steps(X, valid_lens, keys=keys)
    batch, steps = X.shape[0], X.shape[1]
    unmasked = masking_steps(X, [steps] * batch, keys=keys).weights
    book = book_masked_softmax(result.scores, valid_lens)
    sequences = []
    for i in range(batch):
        kept = result.masked[i][result.masked[i].isfinite()]
        bound = float(kept.abs().max()) if kept.numel() else 1.0
        zero_rows = tuple(q for q, total in enumerate(result.row_sums[i].tolist()) if total == 0)
        moved = float((result.weights[i] - unmasked[i]).abs().max()) if result.weights[i].numel() else 0.0
        sequences.append(MaskedSequence(
            bound, float(result.masked_weight[i]), moved, int(result.masked[i].isinf().sum()), zero_rows,
            tuple(result.weights[i][zero_rows[0]].tolist()) if zero_rows else (),
            tuple(book[i][zero_rows[0]].tolist()) if zero_rows else ()))
    return MaskingLab(result, book, tuple(sequences))
