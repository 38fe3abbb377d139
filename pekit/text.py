"""Text in, vectors out: a small documented tokenizer and deterministic token embeddings.

The tokenizer splits words (letters, digits and underscores, with an inner apostrophe as in
"didn't") and takes every other visible character (punctuation, symbols, emoji) as a token of
its own; whitespace separates, and invisible characters (control and format characters) are
dropped. Embeddings are drawn from a normal distribution seeded by a hash of
``(seed, token)``: the same word always gets the same vector for a given seed, on any machine,
so every attendee of a workshop sees the same picture.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_elements, check_float_dtype, check_int
from .devices import resolve_device

__all__ = ["Tokens", "tokenize", "token_embeddings"]

TOKEN_PATTERN = re.compile(r"\w+(?:'\w+)*|[^\w\s]")
MAX_CHARS = 20_000  # text beyond this is not read at all


class Tokens(NamedTuple):
    """``tokens``: at most ``max_tokens`` strings; ``dropped``: how many more the text had;
    ``clipped``: whether the text was longer than :data:`MAX_CHARS` and cut before reading."""

    tokens: list[str]
    dropped: int
    clipped: bool


def tokenize(text: str, *, max_tokens: int = 64) -> Tokens:
    """Split ``text`` into word and symbol tokens (see the module docstring), keeping the first
    ``max_tokens``."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    max_tokens = check_int("max_tokens", max_tokens, minimum=1)
    clipped = len(text) > MAX_CHARS
    visible = "".join(ch for ch in text[:MAX_CHARS] if ch.isspace() or not unicodedata.category(ch).startswith("C"))
    found = TOKEN_PATTERN.findall(visible)
    return Tokens(found[:max_tokens], max(0, len(found) - max_tokens), clipped)


def _token_seed(token: str, seed: int) -> int:
    digest = hashlib.blake2b(f"{seed}\x00{token}".encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") & ((1 << 63) - 1)


def token_embeddings(
    tokens: list[str], dim: int, *, seed: int = 0, device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """One standard-normal vector per token, ``(len(tokens), dim)``; identical tokens get
    identical rows, and the rows depend only on ``(seed, token, dim)``."""
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, (list, tuple)):
        raise ValueError(f"tokens must be a list of strings (e.g. from tokenize); got a {type(tokens).__name__}")
    if not all(isinstance(t, str) for t in tokens):
        raise ValueError("tokens must be a list of strings (e.g. from tokenize)")
    dim = check_int("dim", dim, minimum=1)
    check_elements({"tokens": len(tokens), "dim": dim})
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    dtype = check_float_dtype(dtype)
    rows = [torch.randn(dim, generator=torch.Generator().manual_seed(_token_seed(t, seed)), dtype=torch.float64)
            for t in tokens]
    table = torch.stack(rows) if rows else torch.zeros(0, dim, dtype=torch.float64)
    return table.to(device=resolve_device(device), dtype=dtype)
