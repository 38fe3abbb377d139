"""A text as the model reads it: word pieces from the model's own WordPiece tokenizer.

References
- Hugging Face ``tokenizers``: the tokenizer read from the ``tokenizer.json`` shipped with the
  model (:mod:`.loading`); nothing here splits text by hand.
- Devlin et al., "BERT" (2019): ``[CLS]`` first and ``[SEP]`` last around the word pieces.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from ..devices import resolve_device
from ..text import MAX_CHARS
from .loading import MAX_PIECES, _load

__all__ = ["Encoded", "encode_text", "find_token"]


class Encoded(NamedTuple):
    """A text as the model reads it. ``tokens``, ``ids``, ``word_ids`` (the word each piece
    belongs to; ``None`` for ``[CLS]``/``[SEP]``) and ``offsets`` (characters of the text) have
    one entry per word piece. ``cut``: word pieces beyond :data:`MAX_PIECES` that were dropped;
    ``clipped``: the text was longer than :data:`pekit.text.MAX_CHARS` characters and only its
    start was read."""

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    word_ids: tuple[int | None, ...]
    offsets: tuple[tuple[int, int], ...]
    cut: int
    clipped: bool


VOCAB = 30522  # word pieces in all-MiniLM-L6-v2's vocabulary (its config's vocab_size)


def _check_encoded(name: str, encoded: object) -> Encoded:
    """``encoded`` as the :class:`Encoded` it must be, or ``ValueError`` naming ``name`` and the
    field: a record built by hand is held to what :func:`encode_text` makes (one entry per word
    piece in every field, ``[CLS]`` first and ``[SEP]`` last, ids in the vocabulary, at most
    :data:`MAX_PIECES` pieces), so that no malformed one reaches the model."""
    if not isinstance(encoded, Encoded):
        raise ValueError(f"{name} must come from encode_text or shuffle_words; got a {type(encoded).__name__}")
    tokens, ids, word_ids, offsets, cut, clipped = encoded

    def bad(field: str, why: str) -> ValueError:
        return ValueError(f"{name}.{field} {why} (use encode_text to make one)")

    for field, value in (("tokens", tokens), ("ids", ids), ("word_ids", word_ids), ("offsets", offsets)):
        if not isinstance(value, (tuple, list)):
            raise bad(field, f"must be a tuple; got a {type(value).__name__}")
    pieces = len(ids)
    if not 3 <= pieces <= MAX_PIECES:
        raise bad("ids", f"must hold 3 to {MAX_PIECES} word pieces ([CLS], at least one, [SEP]); got {pieces}")
    for field, value in (("tokens", tokens), ("word_ids", word_ids), ("offsets", offsets)):
        if len(value) != pieces:
            raise bad(field, f"must have one entry per word piece ({pieces}); got {len(value)}")
    if not all(isinstance(t, str) for t in tokens) or tokens[0] != "[CLS]" or tokens[-1] != "[SEP]":
        raise bad("tokens", "must be strings, [CLS] first and [SEP] last")
    if not all(type(i) is int and 0 <= i < VOCAB for i in ids):
        raise bad("ids", f"must be whole numbers from 0 to {VOCAB - 1}, the vocabulary's")
    if word_ids[0] is not None or word_ids[-1] is not None or not all(
            type(w) is int and w >= 0 for w in word_ids[1:-1]):
        raise bad("word_ids", "must be None for [CLS] and [SEP] and whole numbers >= 0 between")
    if not all(isinstance(o, (tuple, list)) and len(o) == 2 and all(type(c) is int and c >= 0 for c in o)
               for o in offsets):
        raise bad("offsets", "must be pairs of whole numbers >= 0 (characters of the text)")
    if type(cut) is not int or cut < 0:
        raise bad("cut", f"must be a whole number >= 0; got {cut!r}")
    if type(clipped) is not bool:
        raise bad("clipped", f"must be True or False; got {clipped!r}")
    return encoded


def encode_text(text: str, *, device: str | torch.device | None = None) -> Encoded:
    """Word pieces of ``text`` from the model's own WordPiece tokenizer (lower-cased,
    accents kept, Chinese characters one piece each, control characters dropped, unknown
    symbols such as most emoji read as ``[UNK]``), ``[CLS]`` first and ``[SEP]`` last, at most
    :data:`MAX_PIECES` in all. Raises ``ValueError`` when the text has no word piece at all."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:  # a lone surrogate such as "\ud800": no character at all
        raise ValueError(f"text holds {ascii(text[err.start:err.end])} at index "
                         f"{err.start}, half of a surrogate pair and no character; the tokenizer reads only "
                         "valid Unicode text") from None
    loaded = _load(resolve_device(device))
    clipped = len(text) > MAX_CHARS
    text = text[:MAX_CHARS]
    encoding = loaded.tokenizer.encode(text)
    if len(encoding.ids) <= 2:
        raise ValueError("text has no word pieces: it is empty or holds only spaces and control characters")
    total = len(loaded.counter.encode(text, add_special_tokens=False).ids)
    kept = len(encoding.ids) - 2
    return Encoded(tuple(encoding.tokens), tuple(encoding.ids), tuple(encoding.word_ids),
                   tuple(tuple(o) for o in encoding.offsets), total - kept, clipped)


def find_token(tokens: tuple[str, ...] | list[str], word: str) -> int | None:
    """Index of the first word piece equal to ``word`` (compared lower-case, as the model's
    tokenizer lower-cases), or ``None``."""
    if not isinstance(word, str):
        raise ValueError(f"word must be a string; got {type(word).__name__}")
    _check_tokens("tokens", tokens)
    wanted = word.strip().lower()
    return next((i for i, t in enumerate(tokens) if t.lower() == wanted), None)


def _check_tokens(name: str, tokens: object) -> list[str]:
    if not isinstance(tokens, (tuple, list)) or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"{name} must be a list of word pieces (strings); got {str(tokens)[:40]!r}")
    return list(tokens)

