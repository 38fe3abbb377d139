"""Fixed positional encodings: the sinusoidal table of Vaswani et al. (2017) and binary codes.

References
- Vaswani et al., "Attention Is All You Need" (2017), section 3.5: the interleaved sin/cos table.
- Dive into Deep Learning, "Self-Attention and Positional Encoding": ``PositionalEncoding``,
  whose ``P`` has rows = positions and columns = encoding dimensions.
- tensor2tensor ``get_timing_signal_1d``: all sines, then all cosines, timescales log-spaced
  from 1 to ``max_timescale`` inclusive.

Accuracy. The book computes the angle ``i / 10000**(2j/d)`` in float32, whose rounding grows
with the position (about 7e-3 off at position 100 000). Here every angle comes from the sum
formula ``sin(a + b) = sin a cos b + cos a sin b`` with ``a`` a multiple of a block length and
``b`` the offset inside the block; both small tables are evaluated in float64, and the full table
costs only multiply-adds. Far positions: a float64 angle ``p * ω`` itself drifts (the frequency
and the product are rounded: 0.2 rad at ``p = 2**52``), so past the range where it is within
~5e-10 (``|p| · ω (3 + 2|ln ω|) <= 2**22``, about ``|p| <= 1.4e6`` at the usual bases) the two
small tables come from angles reduced modulo 2π exactly (:mod:`pekit._angles`). Every entry is
then, in float64, within 1e-9 of the exact value (the frequency as a real number) at every
position accepted, ``|start|`` up to ``2**52``; in float32 within a few ulps.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Literal

from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn

from ._checks import (
    FLOAT_DTYPES,
    MAX_ELEMENTS,
    check_elements,
    check_float,
    check_float_dtype,
    check_int,
    check_probability,
    check_tensor,
)
from ._angles import exact_sincos, needs_exact
from .devices import resolve_device

if TYPE_CHECKING:  # pandas is imported by the functions that return tables
    import pandas as pd

__all__ = [
    "LAYOUTS",
    "frequencies",
    "wavelengths",
    "sinusoidal_encoding",
    "sinusoidal_columns",
    "interleaved_to_concatenated",
    "concatenated_to_interleaved",
    "frequency_table",
    "compare_layouts",
    "PositionalEncoding",
    "binary_encoding",
]

Layout = Literal["interleaved", "tensor2tensor"]
MAX_DIM = 1 << 20  # encoding width
LAYOUTS: tuple[str, ...] = ("interleaved", "tensor2tensor")


MAX_COLUMNS = 1 << 12  # columns sinusoidal_columns reads (a few columns of a table too large to build)
MAX_POSITION = 1 << 52  # beyond this, float64 positions are no longer whole numbers


def check_base(base: object) -> float:
    """The base of the frequencies as a float: positive, and within ``[1e-6, 1e300]`` so that
    every angle stays a finite float64 at any position."""
    return check_float("base", base, positive=True, minimum=1e-6, maximum=1e300)


def _check_layout(layout: object) -> str:
    if not isinstance(layout, str) or layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r} must be one of {LAYOUTS}")
    return layout  # type: ignore[return-value]


def frequencies(dim: int, *, base: float = 10000.0, layout: Layout = "interleaved") -> Tensor:
    r"""Angular frequencies :math:`\omega_j` of the column pairs, float64 on the CPU.

    - ``interleaved``: :math:`\omega_j = \text{base}^{-2j/\text{dim}}` for
      ``j = 0 .. ceil(dim/2) - 1`` (an odd ``dim`` has a last pair with only its sine).
    - ``tensor2tensor``: ``dim // 2`` timescales log-spaced from 1 to ``base`` inclusive,
      :math:`\omega_j = \text{base}^{-j/(k-1)}` with ``k = dim // 2`` (``k = 1`` gives 1).
    """
    dim = check_int("dim", dim, minimum=1, maximum=MAX_DIM)
    base = check_base(base)
    layout = _check_layout(layout)
    return _frequencies(dim, base, layout)


def _frequencies(dim: int, base: float, layout: str, device: torch.device | None = None) -> Tensor:
    """:func:`frequencies` of checked arguments, float64, made on ``device`` (an accelerator's
    table then needs no copy from the host, which would wait for the device's queue)."""
    if layout == "interleaved":
        j = torch.arange(0, dim, 2, dtype=torch.float64, device=device)
        return torch.exp(-math.log(base) * j / dim)
    k = dim // 2
    step = math.log(base) / max(k - 1, 1)
    return torch.exp(-step * torch.arange(k, dtype=torch.float64, device=device))


def wavelengths(dim: int, *, base: float = 10000.0, layout: Layout = "interleaved") -> Tensor:
    r"""Wavelength :math:`2\pi/\omega_j` of each column pair, in positions (float64)."""
    return 2 * math.pi / frequencies(dim, base=base, layout=layout)


def _check_table_args(num_positions, dim, start, layout, dtype, device):
    """Validate the arguments shared by the table builders; returns them normalised."""
    num_positions = check_int("num_positions", num_positions, minimum=0)
    dim = check_int("dim", dim, minimum=1)
    check_elements({"num_positions": num_positions, "dim": dim})
    start = check_int("start", start, minimum=-MAX_POSITION, maximum=MAX_POSITION)
    layout = _check_layout(layout)
    dtype = check_float_dtype(dtype)
    dev = resolve_device(device)
    if dev.type == "mps" and dtype == torch.float64:
        raise ValueError("dtype=torch.float64 is not supported on Apple's MPS device")
    return num_positions, dim, start, layout, dtype, dev


_DIRECT_CHUNK = 1 << 23  # angles computed at once on an accelerator (64 MiB of float64)


def _sincos_direct(sin_out: Tensor, cos_out: Tensor, start: int, omega: Tensor,
                   exact: tuple[int, float, str, Tensor | None] | None = None) -> None:
    """Fill ``sin_out``/``cos_out`` (views of shape (blocks, block, pairs)) with
    sin/cos((start + row) * omega), each angle in float64 on the tables' device, a chunk of rows
    at a time: on a GPU a few large kernels beat the angle-sum formula's many small steps and
    copies (float64 angles are as exact here as in the formula's own tables)."""
    pairs = omega.numel()
    rows = sin_out.shape[0] * sin_out.shape[1]
    s_rows, c_rows = sin_out.view(rows, pairs), cos_out.view(rows, pairs)
    if exact is not None and exact[3] is None:  # every pair of the table: made on its device, once
        w = _device_frequencies(exact[0], exact[1], exact[2], sin_out.device)
    else:
        w = omega.to(device=sin_out.device, dtype=torch.float64)
    step = max(1, _DIRECT_CHUNK // max(pairs, 1))
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        theta = (start + torch.arange(r0, r1, dtype=torch.float64, device=sin_out.device))[:, None] * w
        # each kernel rounds its float64 result straight into the table (no float64 copy of it)
        torch.sin(theta, out=s_rows[r0:r1])
        torch.cos(theta, out=c_rows[r0:r1])


@functools.lru_cache(maxsize=64)
def _device_frequencies(dim: int, base: float, layout: str, device: torch.device) -> Tensor:
    """:func:`_frequencies` on ``device``, made once per table shape and device: a table on an
    accelerator then starts its angles at once, without the frequencies' own small kernels.
    Read only (the tables' code never writes to it)."""
    return _frequencies(dim, base, layout, device=device)


def _sincos_into(sin_out: Tensor, cos_out: Tensor, start: int, omega: Tensor, block: int,
                 exact: tuple[int, float, str, Tensor | None]) -> None:
    """Fill ``sin_out``/``cos_out`` (views of shape (blocks, block, pairs)) with
    sin/cos((start + row) * omega) by the angle-sum formula over float64 tables.

    ``exact`` is ``(dim, base, layout, pairs)``, naming the frequencies: where float64 angles
    could drift (far positions, :func:`pekit._angles.needs_exact`), the two small tables come
    from the exactly reduced angles instead."""
    blocks = sin_out.shape[0]
    dtype, device = sin_out.dtype, sin_out.device
    last = start + block * (blocks - 1)
    if needs_exact(max(abs(start), abs(last)), omega) or needs_exact(block - 1, omega):
        inner_s, inner_c = exact_sincos(torch.arange(block), *exact)
        outer_s, outer_c = exact_sincos(start + block * torch.arange(blocks), *exact)
    elif device.type != "cpu":
        _sincos_direct(sin_out, cos_out, start, omega, exact)
        return
    else:
        inner = torch.arange(block, dtype=torch.float64)[:, None] * omega  # (block, pairs)
        outer = (start + block * torch.arange(blocks, dtype=torch.float64))[:, None] * omega
        inner_s, inner_c, outer_s, outer_c = torch.sin(inner), torch.cos(inner), torch.sin(outer), torch.cos(outer)
    s_in = inner_s.to(device=device, dtype=dtype)  # (block, pairs)
    c_in = inner_c.to(device=device, dtype=dtype)
    s_out = outer_s.to(device=device, dtype=dtype)[:, None, :]  # (blocks, 1, pairs)
    c_out = outer_c.to(device=device, dtype=dtype)[:, None, :]
    torch.mul(s_out, c_in, out=sin_out)
    sin_out.addcmul_(c_out, s_in)  # sin(a+b) = sin a cos b + cos a sin b
    torch.mul(c_out, c_in, out=cos_out)
    cos_out.addcmul_(s_out, s_in, value=-1.0)  # cos(a+b) = cos a cos b - sin a sin b


def sinusoidal_encoding(
    num_positions: int,
    dim: int,
    *,
    base: float = 10000.0,
    start: int = 0,
    layout: Layout = "interleaved",
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    r"""The sinusoidal positional encoding table ``P`` of shape ``(num_positions, dim)``.

    Row ``i`` encodes position ``start + i``. With :math:`\omega_j` from :func:`frequencies`:

    - ``interleaved``: :math:`P_{i,2j} = \sin((s+i)\omega_j)`, :math:`P_{i,2j+1} = \cos((s+i)\omega_j)`;
      an odd ``dim`` ends with the sine column of the last pair.
    - ``tensor2tensor``: columns ``0..k-1`` are the sines, ``k..2k-1`` the cosines
      (``k = dim // 2``); an odd ``dim`` gets a zero last column.
    """
    num_positions, dim, start, layout, dtype, dev = _check_table_args(num_positions, dim, start, layout, dtype, device)
    base = check_base(base)
    omega = frequencies(dim, base=base, layout=layout)
    pairs = omega.numel()
    block = max(1, math.isqrt(max(num_positions, 1)))
    blocks = -(-num_positions // block)  # ceil
    rows = blocks * block
    if layout == "interleaved":
        buf = torch.empty(blocks, block, pairs, 2, device=dev, dtype=dtype)
        _sincos_into(buf[..., 0], buf[..., 1], start, omega, block, (dim, base, layout, None))
        table = buf.view(rows, 2 * pairs)
    else:
        alloc = torch.zeros if dim % 2 else torch.empty
        buf = alloc(blocks, block, dim, device=dev, dtype=dtype)
        _sincos_into(buf[..., :pairs], buf[..., pairs : 2 * pairs], start, omega, block, (dim, base, layout, None))
        table = buf.view(rows, dim)
    table = table[:num_positions, :dim]  # (num_positions, dim)
    return table if table.is_contiguous() else table.contiguous()


def sinusoidal_columns(
    num_positions: int,
    dim: int,
    columns: list[int] | tuple[int, ...],
    *,
    base: float = 10000.0,
    start: int = 0,
    layout: Layout = "interleaved",
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """Only the chosen columns of :func:`sinusoidal_encoding`, shape ``(num_positions, len(columns))``,
    equal to ``sinusoidal_encoding(...)[:, columns]`` without building the whole table. At most
    :data:`MAX_COLUMNS` (4,096) columns, repeats allowed; more raise ``ValueError``."""
    num_positions, dim, start, layout, dtype, dev = _check_table_args(num_positions, dim, start, layout, dtype, device)
    if isinstance(columns, (str, bytes)) or not hasattr(columns, "__iter__"):
        raise ValueError(f"columns must be a list of column numbers; got {type(columns).__name__}")
    count = len(columns) if hasattr(columns, "__len__") else None
    if count is not None and count > MAX_COLUMNS:  # before reading them one by one
        raise ValueError(f"columns holds {count:,} column numbers; at most {MAX_COLUMNS:,} are read "
                         "(sinusoidal_encoding builds a whole table)")
    columns = list(itertools.islice(columns, MAX_COLUMNS + 1))
    if len(columns) > MAX_COLUMNS:
        raise ValueError(f"columns holds more than {MAX_COLUMNS:,} column numbers; at most {MAX_COLUMNS:,} are read "
                         "(sinusoidal_encoding builds a whole table)")
    columns = [check_int("columns", c, minimum=0) for c in columns]
    if any(c >= dim for c in columns):
        raise ValueError(f"columns={max(columns)} is past the last column of the table, dim - 1 = {dim - 1}")
    check_elements({"num_positions": num_positions, "columns": max(len(columns), 1)})
    if num_positions == 0:
        return torch.zeros(0, len(columns), device=dev, dtype=dtype)
    base = check_base(base)
    omega = frequencies(dim, base=base, layout=layout)
    pairs = omega.numel()
    # which pair each column belongs to, and whether it is the sine (0) or the cosine (1)
    if layout == "interleaved":
        where = [(c // 2, c % 2) for c in columns]
    else:
        where = [(c % pairs, c // pairs) if c < 2 * pairs else (None, None) for c in columns]  # None: zero column
    used = sorted({p for p, _ in where if p is not None})
    block = max(1, math.isqrt(max(num_positions, 1)))
    blocks = -(-num_positions // block)
    buf = torch.zeros(blocks, block, max(len(used), 1), 2, device=dev, dtype=dtype)
    if used:
        _sincos_into(buf[..., 0], buf[..., 1], start, omega[used], block, (dim, base, layout, torch.tensor(used)))
    table = buf.view(blocks * block, -1, 2)[:num_positions]  # (positions, used pairs, 2)
    slot = {p: k for k, p in enumerate(used)}
    flat = table.reshape(num_positions, -1)  # (positions, 2 * used pairs): sin, cos of each
    picked = [2 * slot[p] + kind if p is not None else -1 for p, kind in where]  # -1: a zero column
    index = torch.tensor([max(c, 0) for c in picked], device=dev, dtype=torch.long)
    out = flat.index_select(1, index)  # (positions, columns)
    if -1 in picked:
        out[:, torch.tensor([c < 0 for c in picked], device=dev)] = 0
    return out.contiguous()


def interleaved_to_concatenated(P: Tensor) -> Tensor:
    """Reorder columns ``sin0, cos0, sin1, cos1, ...`` into ``sin0, sin1, ..., cos0, cos1, ...``.

    ``P``: ``(..., dim)`` with even ``dim``. Inverse: :func:`concatenated_to_interleaved`.
    """
    check_tensor("P", P, what="(..., dim)")
    if P.dim() == 0:
        raise ValueError("P must have shape (..., dim); got a single number")
    dim = P.shape[-1]
    if dim % 2:
        raise ValueError(f"P has dim={dim} columns; reordering needs an even number of columns")
    pairs = P.unflatten(-1, (dim // 2, 2))  # (..., pairs, 2)
    return pairs.transpose(-1, -2).flatten(-2)  # (..., 2 * pairs)


def concatenated_to_interleaved(P: Tensor) -> Tensor:
    """Reorder columns ``sin0, ..., sin_{k-1}, cos0, ..., cos_{k-1}`` into sin/cos pairs.

    ``P``: ``(..., dim)`` with even ``dim``. Inverse: :func:`interleaved_to_concatenated`.
    """
    check_tensor("P", P, what="(..., dim)")
    if P.dim() == 0:
        raise ValueError("P must have shape (..., dim); got a single number")
    dim = P.shape[-1]
    if dim % 2:
        raise ValueError(f"P has dim={dim} columns; reordering needs an even number of columns")
    halves = P.unflatten(-1, (2, dim // 2))  # (..., 2, pairs)
    return halves.transpose(-1, -2).flatten(-2)  # (..., pairs * 2)


def frequency_table(dim: int, *, base: float = 10000.0, layout: Layout = "interleaved") -> pd.DataFrame:
    """One row per column pair ``j``: ``pair``, the columns holding its sine and cosine
    (``sin_column``, ``cos_column``; ``-1`` where an odd width has no cosine column), its
    frequency ``omega`` and ``wavelength = 2*pi/omega``."""
    import pandas as pd

    omega = frequencies(dim, base=base, layout=layout)
    pairs = omega.numel()
    j = torch.arange(pairs)
    if layout == "interleaved":
        sin_col, cos_col = 2 * j, torch.where(2 * j + 1 < dim, 2 * j + 1, -1)
    else:
        sin_col, cos_col = j, pairs + j
    return pd.DataFrame(
        {
            "pair": j.numpy(),
            "sin_column": sin_col.numpy(),
            "cos_column": cos_col.numpy(),
            "omega": omega.numpy(),
            "wavelength": (2 * math.pi / omega).numpy(),
        }
    )


def compare_layouts(num_positions: int, dim: int, *, base: float = 10000.0, start: int = 0) -> pd.DataFrame:
    """How tensor2tensor's table differs from the interleaved one, pair by pair.

    Both are sines and cosines of ``position * omega_j``; tensor2tensor stores all sines first
    and spaces its ``dim // 2`` frequencies from 1 to ``1/base`` inclusive
    (``base**(-j/(k-1))``) where the paper uses ``base**(-2j/dim)``. After moving the columns
    into the same order, the tables differ only through that spacing: ``max_abs_difference``
    is the largest gap between the two pairs' values over the positions. An odd width's extra
    column (an unpaired sine, or tensor2tensor's zero column) is left out. Columns: ``pair``,
    ``omega_interleaved``, ``omega_tensor2tensor``, ``wavelength_interleaved``,
    ``wavelength_tensor2tensor``, ``max_abs_difference``.
    """
    import pandas as pd

    k = check_int("dim", dim, minimum=2) // 2
    inter = sinusoidal_encoding(num_positions, dim, base=base, start=start, device="cpu")[:, : 2 * k]
    t2t = sinusoidal_encoding(num_positions, dim, base=base, start=start, layout="tensor2tensor", device="cpu")
    diff = (interleaved_to_concatenated(inter) - t2t[:, : 2 * k]).abs()  # (positions, 2k): sines, cosines
    per_pair = torch.maximum(diff[:, :k], diff[:, k:]).amax(dim=0) if num_positions else torch.zeros(k)
    w_inter = frequencies(dim, base=base)[:k]
    w_t2t = frequencies(dim, base=base, layout="tensor2tensor")
    return pd.DataFrame(
        {
            "pair": range(k),
            "omega_interleaved": w_inter.numpy(),
            "omega_tensor2tensor": w_t2t.numpy(),
            "wavelength_interleaved": (2 * math.pi / w_inter).numpy(),
            "wavelength_tensor2tensor": (2 * math.pi / w_t2t).numpy(),
            "max_abs_difference": per_pair.double().numpy(),
        }
    )


class PositionalEncoding(nn.Module):
    """Drop-in for the book's ``PositionalEncoding(num_hiddens, dropout, max_len=1000)``.

    ``P`` has shape ``(1, max_len, num_hiddens)`` and is a non-persistent buffer, so
    ``.to(device)`` moves it and state dicts stay the same as the book's. ``forward(X)`` with
    ``X`` of shape ``(batch, steps, num_hiddens)`` returns ``dropout(X + P[:, :steps])``.
    """

    P: Tensor

    def __init__(
        self,
        num_hiddens: int,
        dropout: float,
        max_len: int = 1000,
        *,
        base: float = 10000.0,
        layout: Layout = "interleaved",
        device: str | torch.device | None = None,
    ) -> None:
        super().__init__()
        self.num_hiddens = check_int("num_hiddens", num_hiddens, minimum=1, maximum=MAX_DIM)
        self.max_len = check_int("max_len", max_len, minimum=1)
        check_elements({"max_len": self.max_len, "num_hiddens": self.num_hiddens})
        self.dropout = nn.Dropout(check_probability("dropout", dropout))
        P = sinusoidal_encoding(max_len, num_hiddens, base=base, layout=layout, device=device)
        self.register_buffer("P", P.unsqueeze(0), persistent=False)  # (1, max_len, num_hiddens)

    def forward(self, X: Tensor) -> Tensor:
        # Shape of X: (batch, steps, num_hiddens)
        check_tensor("X", X, what=f"(batch, steps, {self.num_hiddens})")
        if not X.dtype.is_floating_point:
            raise ValueError(f"X must hold floating-point numbers (P would be cut to integers); got dtype {X.dtype}")
        if X.dim() != 3 or X.shape[-1] != self.num_hiddens:
            raise ValueError(
                f"X must have shape (batch, steps, {self.num_hiddens}); got {tuple(X.shape)}"
            )
        steps = X.shape[1]
        if steps > self.max_len:
            raise ValueError(f"X has steps={steps} positions but max_len={self.max_len}")
        return self.dropout(X + self.P[:, :steps].to(dtype=X.dtype, device=X.device))


def binary_encoding(
    num_positions: int,
    bits: int | None = None,
    *,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """Binary codes of positions ``0 .. num_positions-1``, shape ``(num_positions, bits)``.

    Column ``b`` is bit ``b`` of the position, least significant first, as 0/1 values.
    ``bits=None`` uses the fewest bits that represent ``num_positions - 1`` (at least 1); with
    fewer bits than that the codes wrap around after ``2**bits`` positions. At most
    ``num_positions × bits`` = 2**28 entries (``num_positions`` up to 2**28).
    """
    num_positions = check_int("num_positions", num_positions, minimum=0, maximum=MAX_ELEMENTS)  # >= 1 bit each
    if bits is None:
        bits = max(1, (num_positions - 1).bit_length())
    bits = check_int("bits", bits, minimum=1, maximum=62)
    check_elements({"num_positions": num_positions, "bits": bits})
    if not isinstance(dtype, torch.dtype) or (
        dtype not in FLOAT_DTYPES and dtype not in (torch.int64, torch.int32, torch.uint8, torch.bool)
    ):
        raise ValueError(f"dtype={dtype!r} must be a float, integer or bool torch dtype (e.g. torch.float32)")
    dev = resolve_device(device)
    positions = torch.arange(num_positions, device=dev)[:, None]  # (num_positions, 1)
    shifts = torch.arange(bits, device=dev)  # (bits,)
    return ((positions >> shifts) & 1).to(dtype)  # (num_positions, bits)
