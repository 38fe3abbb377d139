"""Colour maps and a dependency-free PNG encoder, for the matrices drawn as images.

The colour maps here are plain lists of stops interpolated linearly in RGB, so a chart
legend given the same stops (``Scale(range=stops, interpolate="rgb")``) matches the pixels.
"""

from __future__ import annotations

import functools

import base64
import math
import struct
import zlib

import torch
from torch import Tensor

from .style import DIVERGING

__all__ = ["PALETTES", "check_palette", "colorize", "png_bytes", "png_data_url"]

PALETTES: dict[str, tuple[str, ...]] = {
    "diverging": DIVERGING,  # for values in [-1, 1]: blue for negative, white at 0, orange-red for positive
    # sequential (viridis stops), for similarities
    "sequential": ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58",
                   "#b5de2b", "#fde725"),
}


def check_palette(palette: object) -> str:
    if not isinstance(palette, str) or palette not in PALETTES:
        raise ValueError(f"palette={palette!r} must be one of {sorted(PALETTES)}")
    return palette


def _stops(palette: str) -> Tensor:
    hexes = PALETTES[check_palette(palette)]
    return torch.tensor([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in hexes], dtype=torch.float64)


@functools.lru_cache(maxsize=16)
def _lut(palette: str, size: int = 1024) -> Tensor:
    """``size`` RGB colours evenly spaced along the palette, interpolated linearly in RGB (made
    once per palette; callers index it and never write into it)."""
    stops = _stops(palette)
    t = torch.linspace(0, len(stops) - 1, size, dtype=torch.float64)
    lo = t.floor().long().clamp(max=len(stops) - 2)
    frac = (t - lo)[:, None]
    return (stops[lo] * (1 - frac) + stops[lo + 1] * frac).round().to(torch.uint8)  # (size, 3)


def colorize(X: Tensor, *, vmin: float, vmax: float, palette: str = "diverging") -> Tensor:
    """Map a 2-D tensor to RGB ``uint8`` of shape ``(rows, cols, 3)``: ``vmin`` gets the first
    stop, ``vmax`` the last, linear in RGB in between (1024 levels); values outside are
    clipped, NaN is grey."""
    if not isinstance(X, Tensor) or X.dim() != 2:
        raise ValueError(f"X must be a 2-D tensor; got {tuple(X.shape) if isinstance(X, Tensor) else type(X).__name__}")
    if not (math.isfinite(vmin) and math.isfinite(vmax) and vmax > vmin):
        raise ValueError(f"vmax={vmax} must be greater than vmin={vmin}")
    lut = _lut(palette)
    levels = lut.shape[0] - 1
    t = (X.detach().float().cpu() - vmin) * (levels / (vmax - vmin))
    nan = torch.isnan(t)
    idx = torch.nan_to_num(t, nan=0.0).clamp_(0, levels).round_().long()
    rgb = lut[idx]  # (rows, cols, 3)
    rgb[nan] = 128
    return rgb


def png_bytes(rgb: Tensor) -> bytes:
    """Encode an RGB ``uint8`` tensor ``(rows, cols, 3)`` as PNG (8-bit, no interlace)."""
    if rgb.dim() != 3 or rgb.shape[2] != 3 or rgb.dtype != torch.uint8:
        raise ValueError("rgb must be a uint8 tensor of shape (rows, cols, 3)")
    height, width, _ = rgb.shape
    rows = torch.cat([torch.zeros(height, 1, dtype=torch.uint8), rgb.reshape(height, width * 3)], dim=1)
    raw = rows.contiguous().numpy().tobytes()  # filter byte 0 (none) before each row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")


def png_data_url(rgb: Tensor) -> str:
    """The PNG as a ``data:`` URL (works offline, no file server needed)."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(rgb)).decode("ascii")
