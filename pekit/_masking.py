r"""Which keys each query may see: checked ``valid_lens``, the keep mask and the masked softmax
(:func:`masked_softmax`, public as :func:`pekit.attention.masked_softmax`).

Reading a tensor's values from Python (``bool(t.any())``, ``t.item()``) makes the host wait until
a GPU has finished all the work queued before it. Nothing on the path of an attention call does
that on such a device: masks are built with tensor operations whatever the data holds. A check
whose only purpose is to pick a faster path, with the same result either way, is made only where
reading costs no wait (:func:`_reads_are_free`: the CPU).

The one read left is the contract's: lengths that are negative or not whole numbers raise
``ValueError``, so a ``valid_lens`` tensor on a GPU is read once, and remembered as checked
until it is changed in place (its version counter moves); the layers of a model that share one
``valid_lens`` tensor wait for it once, not once per layer.

Shapes: ``X`` and the keep mask are ``(batch, queries, keys)``; checked lengths are int64
``(batch, queries)``.
"""

from __future__ import annotations

import numbers
import weakref
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from ._checks import check_bool, check_data

ValidLens = Tensor | Sequence | None

# devices whose tensors Python reads without waiting for queued work
_FREE_READS: frozenset[str] = frozenset({"cpu"})
# id(tensor) -> (weak reference, version) of valid_lens tensors whose values passed the check
_CHECKED: dict[int, tuple[weakref.ref, int]] = {}


def _reads_are_free(t: Tensor) -> bool:
    """Whether reading ``t``'s values from Python costs no wait for a device (on the CPU)."""
    return t.device.type in _FREE_READS


def _describe(t: object) -> str:
    return f"shape {tuple(t.shape)}" if isinstance(t, Tensor) else f"a {type(t).__name__}"


def _check_3d(name: str, t: object, what: str) -> Tensor:
    if not isinstance(t, Tensor) or t.dim() != 3:
        raise ValueError(f"{name} must be a tensor of shape {what}; got {_describe(t)}")
    if not t.dtype.is_floating_point:
        raise ValueError(f"{name} must hold floating-point numbers; got dtype {t.dtype} (convert with .float())")
    return check_data(name, t)


def _version(t: Tensor) -> int | None:
    try:
        return None if t.is_inference() else t._version
    except RuntimeError:  # a tensor without a version counter
        return None


def _checked_before(t: Tensor) -> bool:
    entry = _CHECKED.get(id(t))
    return entry is not None and entry[0]() is t and entry[1] == _version(t)


def _remember_checked(t: Tensor) -> None:
    version = _version(t)
    if version is None:
        return
    key = id(t)

    def forget(ref: weakref.ref, key: int = key) -> None:
        if _CHECKED.get(key, (None,))[0] is ref:
            _CHECKED.pop(key, None)

    _CHECKED[key] = (weakref.ref(t, forget), version)


def _check_length_values(lens: Tensor, name: str) -> None:
    """``ValueError`` unless every length in ``lens`` is a whole number >= 0: one read of the values."""
    if not lens.dtype.is_floating_point and not lens.is_signed():
        return  # unsigned integers: whole and never negative
    negative = (lens < 0).any()
    if lens.dtype.is_floating_point:
        not_whole = (~torch.isfinite(lens) | (lens != lens.round())).any()
        not_whole, negative = torch.stack((not_whole, negative)).tolist()
        if not_whole:
            raise ValueError(f"{name} must hold whole numbers (lengths of sequences)")
    if negative:
        raise ValueError(f"{name} must be >= 0; got minimum {lens.min().item()}")


def _valid_lengths(valid_lens: object, batch: int, queries: int, keys: int, device: torch.device,
                   against: str = "X", name: str = "valid_lens") -> Tensor:
    """Validate ``valid_lens`` and return it as int64 of shape ``(batch, queries)``, each
    length at most ``keys`` (a longer length masks nothing, as in the book); ``against`` names
    the tensor whose shape gives ``batch`` and ``queries``, ``name`` the lengths' argument."""
    given = valid_lens
    if isinstance(valid_lens, Tensor):
        lens = valid_lens.detach()
        if lens.dtype == torch.bool or lens.is_complex():
            raise ValueError(f"{name} must hold whole numbers; got dtype {lens.dtype}")
        check_data(name, lens)
    else:
        if isinstance(valid_lens, (str, bytes, dict, set)) or not isinstance(valid_lens, (Sequence, numbers.Real)):
            raise ValueError(f"{name} must be a tensor or a list of whole numbers; got {type(valid_lens).__name__}")
        try:  # float64 keeps 2.0000001 apart from 2 (float32 would round it away)
            lens = torch.tensor(valid_lens, dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError, OverflowError) as err:
            raise ValueError(f"{name} must be a list of whole numbers; got {str(valid_lens)[:60]!r}") from err
    wrong = (f"{name} of shape {tuple(lens.shape)} must have shape ({batch},) or ({batch}, {queries}): one length "
             f"per sequence or per query of {against}")
    if lens.dim() == 1:
        if lens.shape[0] != batch:
            raise ValueError(wrong)
        lens = lens[:, None].expand(batch, queries)
    elif lens.dim() != 2 or tuple(lens.shape) != (batch, queries):
        raise ValueError(wrong)
    if not isinstance(given, Tensor) or _reads_are_free(lens):  # a list is on the host already
        _check_length_values(lens, name)
    elif not _checked_before(given):
        _check_length_values(lens, name)
        if lens.numel() or not given.numel():  # every value was looked at (not a (batch,) one for 0 queries)
            _remember_checked(given)
    return lens.clamp(max=keys).to(device=device, dtype=torch.int64)


def _keep_mask(X: Tensor, lens: Tensor | None, causal: bool) -> Tensor | None:
    """Which keys each query may see, ``(batch, queries, keys)``; ``lens`` are checked lengths
    ``(batch, queries)`` (from :func:`_valid_lengths`) or None. None means all, and is given
    only where reading ``X`` is free; elsewhere the mask is always built (no read of ``X``)."""
    batch, queries, keys = X.shape
    keep = None
    if lens is not None:
        keep = torch.arange(keys, device=X.device) < lens[..., None]
    if causal:
        # query i sees keys up to i, aligned at the end when there are more keys than queries
        q = torch.arange(queries, device=X.device)[:, None] + (keys - queries)
        seen = torch.arange(keys, device=X.device)[None, :] <= q  # (queries, keys)
        keep = seen.expand(batch, queries, keys) if keep is None else keep & seen
    # a -inf score (e.g. from a bias) masks its key; an all-True mask gives the plain softmax's result
    if not _reads_are_free(X) or bool((X == float("-inf")).any()):
        finite = X != float("-inf")
        keep = finite if keep is None else keep & finite
    return keep


def masked_softmax(X: Tensor, valid_lens: ValidLens = None, *, causal: bool = False) -> Tensor:
    r"""Softmax over the last axis of ``X`` that gives masked keys weight exactly 0.

    ``X``: ``(batch, queries, keys)``. ``valid_lens``: ``None``, ``(batch,)`` (one length per
    sequence) or ``(batch, queries)`` (one per query); keys at index ``>= valid_len`` are
    masked. ``causal=True`` also masks the keys after each query. A score of ``-inf`` masks
    its key too. A row with no visible key is all zeros, never NaN (the book's code, which
    fills with ``-1e6``, gives such a row uniform weights instead).
    """
    X = _check_3d("X", X, "(batch, queries, keys)")
    causal = check_bool("causal", causal)
    lens = None if valid_lens is None else _valid_lengths(valid_lens, *X.shape, X.device)  # (batch, queries)
    return _masked_softmax(X, lens, causal)


def _masked_softmax(X: Tensor, lens: Tensor | None, causal: bool) -> Tensor:
    """:func:`masked_softmax` of checked arguments: ``lens`` ``(batch, queries)`` int64 or None."""
    keep = _keep_mask(X, lens, causal)
    if keep is None:
        return F.softmax(X, dim=-1)
    # A finite fill keeps fully masked rows free of NaN (also in the backward pass);
    # exp(min - max) underflows to exactly 0, and torch.where zeroes those rows outright.
    filled = X.masked_fill(~keep, torch.finfo(X.dtype).min)
    return torch.where(keep, F.softmax(filled, dim=-1), torch.zeros((), dtype=X.dtype, device=X.device))
