"""Seeded demo inputs: the same numbers for everyone with the same settings.

A lab shown to a room must give every attendee the same picture, so the random layers and
vectors it demonstrates with depend only on their arguments and a seed, never on the global
random state (which is left untouched).
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import check_int
from .attention import MultiHeadAttention
from .devices import resolve_device

__all__ = ["seeded_attention", "permutation", "seeded_query_key", "book_example"]

MAX_SEED = 2**63 - 1


def seeded_attention(
    num_hiddens: int, num_heads: int, *, seed: int = 0, device: str | torch.device | None = None
) -> MultiHeadAttention:
    """A ``MultiHeadAttention(num_hiddens, num_heads, 0.0)`` in eval mode whose weights depend
    only on the arguments."""
    seed = check_int("seed", seed, minimum=0, maximum=MAX_SEED)
    dev = resolve_device(device)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = MultiHeadAttention(num_hiddens, num_heads, 0.0)
    return model.to(dev).eval()


def permutation(n: int, seed: int) -> Tensor:
    """A permutation of ``0 .. n-1`` drawn from ``seed``; seed 0 is the identity (no shuffle)."""
    n = check_int("n", n, minimum=0, maximum=1 << 26)
    seed = check_int("seed", seed, minimum=0, maximum=MAX_SEED)
    if seed == 0:
        return torch.arange(n)
    return torch.randperm(n, generator=torch.Generator().manual_seed(seed))


def seeded_query_key(dim: int, seed: int, *, device: str | torch.device | None = None) -> tuple[Tensor, Tensor]:
    """A query and a key vector (``(dim,)`` each, standard normal, float32) that depend only on
    ``dim`` and ``seed``."""
    dim = check_int("dim", dim, minimum=1, maximum=1 << 24)
    seed = check_int("seed", seed, minimum=0, maximum=MAX_SEED)
    dev = resolve_device(device)
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, dim, generator=g)
    return q.to(dev), k.to(dev)


def book_example(seed: int = 0) -> tuple[tuple[int, ...], tuple[int, ...], list, list]:
    """The chapter's run: ``MultiHeadAttention(100, 5, 0.5)`` (eval) on ``ones(2, 4, 100)`` with
    ``valid_lens = [3, 2]``. Returns the output shape, the weights' shape and head 0's weights
    for both sequences (all inputs equal, so each valid key gets 1/3 resp. 1/2)."""
    seed = check_int("seed", seed, minimum=0, maximum=MAX_SEED)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        attention = MultiHeadAttention(100, 5, 0.5)
    attention.eval()
    X = torch.ones((2, 4, 100))
    with torch.inference_mode():
        out = attention(X, X, X, torch.tensor([3, 2]))
    w = attention.attention_weights
    return tuple(out.shape), tuple(w.shape), w[0, 0].tolist(), w[1, 0].tolist()
