r"""Does the model know the order of the words? Shuffled words against the original, and the
attention maps with the learned positions against those with the positions removed.

Without positions self-attention is permutation equivariant, :math:`f(\Pi X) = \Pi f(X)`
(:mod:`pekit.order` measures it on the chapter's layer); this module measures it on the
pretrained model, where the learned positions break it.

References
- Devlin et al., "BERT" (2019): the learned absolute position embedding added to each word
  piece, which ``positions="zero"`` removes.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from .._checks import check_int
from ..devices import resolve_device
from .forward import POSITIONS, PretrainedAttention, _check_result, pretrained_attention
from .heads import HeadPatterns, head_patterns
from .wordpieces import Encoded, _check_encoded, encode_text

__all__ = ["ShuffledWords", "shuffle_words", "OrderEffect", "order_effect", "PositionsEffect", "positions_effect",
           "layer_effects_frame"]


class ShuffledWords(NamedTuple):
    """``encoded``: the same word pieces with the words in another order (each word's pieces
    stay together; ``[CLS]`` and ``[SEP]`` stay at the ends); ``order``: ``(T,)``, slot ``s``
    of the shuffled text holds piece ``order[s]`` of the original."""

    encoded: Encoded
    order: Tensor


def shuffle_words(encoded: Encoded, seed: int) -> ShuffledWords:
    """Shuffle the words of ``encoded`` with a seeded generator; a text of two words or more
    always comes out in another order (a shuffle that gives the original order is turned by
    one word)."""
    _check_encoded("encoded", encoded)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    groups: list[list[int]] = []
    for i, w in enumerate(encoded.word_ids):
        if w is None:
            continue
        if groups and encoded.word_ids[groups[-1][0]] == w:
            groups[-1].append(i)
        else:
            groups.append([i])
    perm = torch.randperm(len(groups), generator=torch.Generator().manual_seed(seed)).tolist()
    if len(groups) > 1 and perm == sorted(perm):
        perm = perm[1:] + perm[:1]
    order = [0] + [i for g in perm for i in groups[g]] + [len(encoded.ids) - 1]
    pick = lambda seq: tuple(seq[i] for i in order)  # noqa: E731
    new_word = {g: rank for rank, g in enumerate(perm)}
    word_of_group = [encoded.word_ids[g[0]] for g in groups]
    renumber = {word_of_group[g]: new_word[g] for g in range(len(groups))}
    word_ids = tuple(None if w is None else renumber[w] for w in pick(encoded.word_ids))
    shuffled = Encoded(pick(encoded.tokens), pick(encoded.ids), word_ids, pick(encoded.offsets), encoded.cut,
                       encoded.clipped)
    return ShuffledWords(shuffled, torch.tensor(order))


class OrderEffect(NamedTuple):
    """Shuffled words against the original, each piece's weights followed to its new slot.
    ``gap``: per value of :data:`POSITIONS`, ``(layers,)`` the largest
    ``|weight(shuffled) − weight(original, moved)|`` in each layer, over all heads and pairs;
    ``hidden_gap``: the same for the last hidden states; ``shuffled``: the shuffled text's
    result with learned positions."""

    order: Tensor
    shuffled: PretrainedAttention
    gap: dict[str, Tensor]
    hidden_gap: dict[str, float]


def order_effect(text: str | Encoded, seed: int, *, device: str | torch.device | None = None) -> OrderEffect:
    r"""Does the model know the order of the words? Without positions it cannot: a shuffle of
    the input only moves the outputs and the weights with the words,
    :math:`f(\Pi X) = \Pi f(X)`, so the gaps are float round-off. With the learned positions a
    word's vector depends on its slot, and the gaps are large."""
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    dev = resolve_device(device)
    encoded = _check_encoded("text", text) if isinstance(text, Encoded) else encode_text(text, device=dev)
    shuffled = shuffle_words(encoded, seed)
    order = shuffled.order.to(dev)
    gap, hidden_gap, first = {}, {}, None
    for positions in POSITIONS:
        a = pretrained_attention(encoded, positions=positions, device=dev)
        b = pretrained_attention(shuffled.encoded, positions=positions, device=dev)
        moved = a.attentions[:, :, order][:, :, :, order]  # (layers, heads, T, T) in the shuffled order
        gap[positions] = (b.attentions - moved).abs().amax(dim=(1, 2, 3)).float().cpu()
        hidden_gap[positions] = float((b.hidden_states[-1] - a.hidden_states[-1][order]).abs().max())
        first = first or b
    return OrderEffect(shuffled.order, first, gap, hidden_gap)


class PositionsEffect(NamedTuple):
    """What removing the position embeddings does to the attention maps. ``change``:
    ``(layers, num_heads)``, the mean over queries of the total variation distance
    :math:`\\tfrac12\\sum_k |a_k - b_k|` between a query's weights with and without positions
    (0: the same, 1: no overlap); ``learned``/``zero``: :class:`HeadPatterns` of both runs."""

    change: Tensor
    learned: HeadPatterns
    zero: HeadPatterns

    @property
    def layer_change(self) -> Tensor:
        """``(layers,)``: ``change`` averaged over heads."""
        return self.change.mean(dim=1)

    def strongest(self, pattern: str) -> tuple[int, int, float, float]:
        """The head with the largest share of ``pattern`` with learned positions: its layer,
        head, that share, and the same head's share with positions zeroed."""
        if pattern not in self.learned.names:
            raise ValueError(f"pattern={str(pattern)[:40]!r} must be one of {', '.join(self.learned.names)}")
        p = self.learned.names.index(pattern)
        shares = torch.nan_to_num(self.learned.shares[:, :, p], nan=-1.0)
        flat = int(shares.argmax())
        layer, head = divmod(flat, shares.shape[1])
        return layer, head, float(self.learned.shares[layer, head, p]), float(self.zero.shares[layer, head, p])


def positions_effect(learned: PretrainedAttention, zero: PretrainedAttention) -> PositionsEffect:
    """Compare a run with learned positions and one with them zeroed, on the same word pieces."""
    _check_result("learned", learned)
    _check_result("zero", zero)
    if learned.ids != zero.ids or learned.attentions.shape != zero.attentions.shape:
        raise ValueError("learned and zero must be runs of one model on the same word pieces")
    change = 0.5 * (learned.attentions.double() - zero.attentions.double()).abs().sum(-1).mean(-1)
    return PositionsEffect(change.float().cpu(), head_patterns(learned), head_patterns(zero))


def layer_effects_frame(order: OrderEffect, positions: PositionsEffect):
    """One row per layer: the largest weight change a word shuffle causes with learned and with
    zeroed positions, and the mean change (total variation) that zeroing the positions causes."""
    import pandas as pd

    if not isinstance(order, OrderEffect):
        raise ValueError(f"order must come from order_effect; got a {type(order).__name__}")
    if not isinstance(positions, PositionsEffect):
        raise ValueError(f"positions must come from positions_effect; got a {type(positions).__name__}")
    return pd.DataFrame({
        "layer": list(range(len(order.gap["learned"]))),
        "shuffle, learned positions: largest change": order.gap["learned"].double().numpy(),
        "shuffle, positions zeroed: largest change": order.gap["zero"].double().numpy(),
        "zeroing positions: mean change": positions.layer_change.double().numpy(),
    })
