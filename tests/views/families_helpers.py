"""What the encoding families page's view tests share: independent references (T5's bucket,
ALiBi's ``get_slopes``, the sinusoid, RoPE both ways written out again) and readers of the drawn
specs."""

import math
import re

import numpy as np
import torch
from hypothesis import example

from lab.views import encoding_families as fam
from pekit.charts.matrices import MAX_PIXELS

WIDTHS = [(int(d), int(h)) for d in fam.WIDTH.options for h in fam.HEADS.options]


# independent references ---------------------------------------------------------------------------


def t5_bucket(rel: int, bidirectional: bool, num_buckets: int = 32, max_distance: int = 128) -> int:
    """Hugging Face's ``_relative_position_bucket`` for one ``key − query`` offset, written out
    (its logarithm in float32, as the reference computes it)."""
    ret, n = 0, -rel
    if bidirectional:
        num_buckets //= 2
        ret += num_buckets if n < 0 else 0
        n = abs(n)
    else:
        n = max(n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    large = np.log(np.float32(n) / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact))
    return ret + min(max_exact + int(np.float32(large) * np.float32(num_buckets - max_exact)), num_buckets - 1)


def t5_buckets(rel: np.ndarray, bidirectional: bool, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """:func:`t5_bucket` of many offsets at once (numpy, the same float32 logarithm)."""
    n = -np.asarray(rel, dtype=np.int64)
    ret = np.zeros_like(n)
    if bidirectional:
        num_buckets //= 2
        ret += np.where(n < 0, num_buckets, 0)
        n = np.abs(n)
    else:
        n = np.maximum(n, 0)
    max_exact = num_buckets // 2
    with np.errstate(divide="ignore", invalid="ignore"):  # distances below max_exact are not read from the log
        large = np.log(n.astype(np.float32) / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact))
        large = max_exact + (large.astype(np.float32) * np.float32(num_buckets - max_exact)).astype(np.int64)
    return ret + np.where(n < max_exact, n, np.minimum(large, num_buckets - 1))


def get_slopes(n: int) -> list[float]:
    """ALiBi's ``get_slopes`` (ofirpress/attention_with_linear_biases), written out."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + get_slopes(2 * closest)[0::2][: n - closest]


def sinusoid(positions, d: int, layout: str = "interleaved") -> np.ndarray:
    """The sinusoidal table in float64 from its formula, ``(len(positions), d)``."""
    i = np.asarray(positions, dtype=np.float64)[:, None]
    if layout == "interleaved":
        omega = 10000.0 ** (-2 * np.arange(d // 2) / d)
        out = np.empty((len(i), d))
        out[:, 0::2], out[:, 1::2] = np.sin(i * omega), np.cos(i * omega)
        return out
    omega = 10000.0 ** (-np.arange(d // 2) / (d // 2 - 1))
    return np.concatenate([np.sin(i * omega), np.cos(i * omega)], axis=1)


def rope(x: torch.Tensor, pairing: str) -> torch.Tensor:
    """RoPE from its formula, float64: pair j is columns (2j, 2j + 1) (adjacent) or (j, j + d/2)
    (halves), turned by m·10000^(−2j/d) at row m (computed in numpy, handed back as a tensor)."""
    x = x.double().numpy()
    m, d = x.shape
    omega = 10000.0 ** (-2 * np.arange(d // 2, dtype=np.float64) / d)
    angle = np.arange(m, dtype=np.float64)[:, None] * omega
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = (slice(0, d, 2), slice(1, d, 2)) if pairing == "adjacent" else (slice(0, d // 2), slice(d // 2, d))
    out = np.empty_like(x)
    out[:, a] = x[:, a] * cos - x[:, b] * sin
    out[:, b] = x[:, a] * sin + x[:, b] * cos
    return torch.from_numpy(out)


def no_hyphen_minus(said: str) -> None:
    """Numbers carry a true minus sign (−), never a hyphen, and no 1e-05 notation."""
    assert not re.search(r"-\s?\d|\de[+-]?\d", said), said


def drawn_exactly(rows: int, cols: int) -> bool:
    """Whether a rows × cols matrix is drawn entry by entry (cells, or one pixel per entry)."""
    return rows * cols <= fam.MAX_MARKS or (rows <= MAX_PIXELS[0] and cols <= MAX_PIXELS[1])


def dicts(node: object):
    """Every dict of a Vega-Lite spec, at any depth (a node's own dict before those inside it)."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from dicts(value)
    elif isinstance(node, list):
        for value in node:
            yield from dicts(value)


def marks_drawn(spec: dict) -> set[str]:
    return {mark if isinstance(mark, str) else mark.get("type")
            for node in dicts(spec) if (mark := node.get("mark")) is not None}


def rows_drawn(spec: dict, field: str) -> list[dict]:
    """Every data row of a Vega-Lite spec (its datasets, or inline values anywhere) holding ``field``."""
    found, seen = [], set()
    for node in dicts(spec):
        datasets, values = node.get("datasets"), node.get("values")
        if isinstance(datasets, dict):
            for name, data in datasets.items():
                if name not in seen:
                    seen.add(name)
                    found.extend(r for r in data if isinstance(r, dict) and field in r)
        if isinstance(values, list):
            found.extend(r for r in values if isinstance(r, dict) and field in r)
    return found


def colour_domain(spec: dict) -> list[float]:
    """The domain of a heatmap's colour scale (its legend): the colour of the values drawn, or of
    the unmasked ones where masked cells take a grey of their own."""
    found = []
    for node in dicts(spec):
        colour = node.get("color")
        if isinstance(colour, dict):
            colour = colour.get("condition", colour)
            domain = colour.get("scale", {}).get("domain") if isinstance(colour, dict) else None
            if domain and all(isinstance(v, (int, float)) for v in domain):
                found.append([float(v) for v in domain])
    assert found, "no colour scale"
    return found[0]


def check_blocks(view, rows: int, cols: int) -> None:
    """The caption says block means exactly when the matrix is too large to draw entry by entry,
    and names what is drawn: image pixels or chart cells (as the spec draws them)."""
    image = "image" in marks_drawn(view.spec)
    assert view.image == image and (image or "rect" in marks_drawn(view.spec))
    said, other = ("pixel blocks", "cell blocks") if image else ("cell blocks", "pixel blocks")  # what is drawn, named
    cases = fam.caption(view).cases
    assert (said in cases) == (not drawn_exactly(rows, cols)) == (fam._blocks(view) != "")
    assert other not in cases


def read_back(text: str) -> float:
    """A number as the lab writes it, read back: minus sign, thousands commas, ``a × 10ⁿ``."""
    text = text.replace("−", "-").replace(",", "")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        return float(f"{mantissa}e{power.translate(str.maketrans('⁰¹²³⁴⁵⁶⁷⁸⁹⁻', '0123456789-'))}")
    return float(text)


def with_examples(corners):
    def wrap(test):
        for corner in corners:
            test = example(corner)(test)
        return test
    return wrap
