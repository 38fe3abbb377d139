"""The encoding families page's sentences state the numbers of the views they are written from:
each record is built by the real (cached) view over the page's whole range of settings (hypothesis,
with the corners as explicit examples), and each claim is checked against numbers recomputed here
independently: float64 formulas, naive loops over the matrices drawn, the authors' reference code
(T5's bucket, ALiBi's ``get_slopes``) written out again."""

import json
import math
import re

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.display import number
from lab.views import encoding_families as fam
from pekit import families
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
    (halves), turned by m·10000^(−2j/d) at row m."""
    m, d = x.shape
    omega = 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    angle = torch.arange(m, dtype=torch.float64)[:, None] * omega
    a, b = (torch.arange(0, d, 2), torch.arange(1, d, 2)) if pairing == "adjacent" else (
        torch.arange(d // 2), torch.arange(d // 2, d))
    out = x.clone()
    out[:, a] = x[:, a] * angle.cos() - x[:, b] * angle.sin()
    out[:, b] = x[:, a] * angle.sin() + x[:, b] * angle.cos()
    return out


def no_hyphen_minus(said: str) -> None:
    """Numbers carry a true minus sign (−), never a hyphen, and no 1e-05 notation."""
    assert not re.search(r"-\s?\d|\de[+-]?\d", said), said


def drawn_exactly(rows: int, cols: int) -> bool:
    """Whether a rows × cols matrix is drawn entry by entry (cells, or one pixel per entry)."""
    return rows * cols <= fam.MAX_MARKS or (rows <= MAX_PIXELS[0] and cols <= MAX_PIXELS[1])


def marks_drawn(spec: dict) -> set[str]:
    found = set()

    def walk(node):
        if isinstance(node, dict):
            mark = node.get("mark")
            if mark is not None:
                found.add(mark if isinstance(mark, str) else mark.get("type"))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(spec)
    return found


def rows_drawn(spec: dict, field: str) -> list[dict]:
    """Every data row of a Vega-Lite spec (its datasets, or inline values anywhere) holding ``field``."""
    found, seen = [], set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("datasets",) and isinstance(value, dict):
                    for name, data in value.items():
                        if name not in seen:
                            seen.add(name)
                            found.extend(r for r in data if isinstance(r, dict) and field in r)
                elif key == "values" and isinstance(value, list):
                    found.extend(r for r in value if isinstance(r, dict) and field in r)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(spec)
    return found


def colour_domain(spec: dict) -> list[float]:
    """The domain of a heatmap's colour scale (its legend): the colour of the values drawn, or of
    the unmasked ones where masked cells take a grey of their own."""
    found = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            colour = node.get("color")
            if isinstance(colour, dict):
                colour = colour.get("condition", colour)
                domain = colour.get("scale", {}).get("domain") if isinstance(colour, dict) else None
                if domain and all(isinstance(v, (int, float)) for v in domain):
                    found.append([float(v) for v in domain])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert found, "no colour scale"
    return found[0]


def check_blocks(view, rows: int, cols: int) -> None:
    """The caption says block means exactly when the matrix is too large to draw entry by entry,
    and names what is drawn: image pixels or chart cells (as the spec draws them)."""
    image = "image" in marks_drawn(view.spec)
    assert view.image == image and (image or "rect" in marks_drawn(view.spec))
    said = f"Each {'pixel' if image else 'cell'} is the mean of a block of entries."
    assert (said in fam.caption(view)) == (not drawn_exactly(rows, cols)) == (fam._blocks(view) != "")
    assert "is the mean of a block" not in fam.caption(view).replace(said, "")


def read_back(text: str) -> float:
    """A number as the lab writes it, read back: minus sign, thousands commas, ``a × 10ⁿ``."""
    text = text.replace("−", "-").replace(",", "")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        return float(f"{mantissa}e{power.translate(str.maketrans('⁰¹²³⁴⁵⁶⁷⁸⁹⁻', '0123456789-'))}")
    return float(text)


@settings(max_examples=40, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
       st.sampled_from([".3g", ".4g", ".6g", ",.4g", ",.6g", ".1e", ",.0f"]))
@example(-0.390625, ",.4g")
@example(1.8e-15, ".1e")
@example(4.22243e7, ",.6g")
@example(0.0, ".1e")
@example(-0.0, ".3g")
@example(-11584.6, ",.0f")
def test_numbers_are_written_with_a_minus_sign_and_powers_of_ten(value, spec):
    said = number(value, spec)
    no_hyphen_minus(said)
    assert "e" not in said and said.startswith("−") == (value < 0 and said != "0")
    assert read_back(said) == pytest.approx(float(format(value, spec).replace(",", "")), rel=1e-12, abs=0)
    assert number(-0.390625, ",.4g") == "−0.3906" and number(1.8e-15, ".1e") == "1.8 × 10⁻¹⁵"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=0, max_size=40, unique=True).map(sorted))
@example([]).via("none")
@example([0]).via("one pair")
@example([3, 4]).via("two neighbours")
@example([1, 2, 5, 6, 7]).via("three runs")
@example([1, 3, 5, 7]).via("four runs")
def test_runs_of_names_every_item_once_as_ranges(items):
    said = fam.runs_of(items)
    if not items:
        assert said == "no pair"
        return
    runs = [[items[0]]]
    for x in items[1:]:
        runs[-1].append(x) if x == runs[-1][-1] + 1 else runs.append([x])
    parts = [p for r in runs for p in ([str(r[0])] if len(r) == 1 else [str(r[0]), str(r[1])] if len(r) == 2
                                      else [f"{r[0]} to {r[-1]}"])]
    if len(parts) > 3:
        assert said == f"{len(items)} pairs between {items[0]} and {items[-1]}"
    else:
        assert said.startswith("pair " if len(items) == 1 else "pairs ")
        named = said.split(" ", 1)[1].replace(" and ", ", ").split(", ")
        assert named == parts
        covered = [x for p in named for x in (range(int(p.split(" to ")[0]), int(p.split(" to ")[1]) + 1)
                                             if " to " in p else [int(p)])]
        assert covered == items


# the side-by-side section ------------------------------------------------------------------------


@st.composite
def side_settings(draw):
    """(n, d, heads, causal, k, head) over the page's whole range."""
    d, heads = draw(st.sampled_from(WIDTHS))
    return (draw(st.integers(fam.N.minimum, fam.N.maximum)), d, heads, draw(st.booleans()),
            draw(st.integers(fam.SHAW_K.minimum, fam.SHAW_K.maximum)), draw(st.integers(1, heads)))


SIDE_CORNERS = [(2, 32, 16, True, 1, 16), (2, 32, 1, False, 64, 1), (256, 512, 16, True, 64, 16),
                (256, 512, 1, False, 1, 1), (12, 64, 4, True, 3, 2), (20, 64, 4, False, 3, 1), (3, 128, 2, True, 2, 2),
                (32, 64, 8, True, 4, 1), (32, 64, 1, False, 4, 1), (2, 64, 1, True, 4, 1)]


def with_examples(corners):
    def wrap(test):
        for corner in corners:
            test = example(corner)(test)
        return test
    return wrap


def parameters_of(scheme: str, d: int, heads: int, k: int) -> int:
    """What each scheme learns for one layer, from its definition."""
    return {"learned": 512 * d, "t5": 32 * heads, "shaw": 2 * (2 * k + 1) * (d // heads)}.get(scheme, 0)


@settings(max_examples=25, deadline=None)
@given(side_settings())
@with_examples(SIDE_CORNERS)
def test_side_by_side_sentences_state_each_matrix_drawn(setting):
    n, d, heads, causal, k, head = setting
    view = fam.side_by_side(*setting)
    assert [p.scheme for p in view.panels] == list(families.FAMILIES)
    assert [p.scheme for p in view.panels if p.view is None] == ["none"]

    counts = [parameters_of(s, d, heads, k) for s in families.FAMILIES]
    assert [view.params.count(s) for s in families.FAMILIES] == counts
    for scheme, count in zip(families.FAMILIES, counts):
        said = fam.learns_sentence(view.params, scheme)
        assert said.startswith(f"Learns {count:,} number{'' if count == 1 else 's'} (")
    assert f"(a table of 512 rows of width {d})" in fam.learns_sentence(view.params, "learned")
    assert f"(32 buckets × {heads} head{'' if heads == 1 else 's'})" in fam.learns_sentence(view.params, "t5")
    assert (f"(2 × (2·{k} + 1) vectors of the head width {d // heads}, per layer)"
            in fam.learns_sentence(view.params, "shaw"))
    assert fam.learns_sentence(view.params, "none") == "Learns 0 numbers (there is nothing to learn)."
    # the page's first picture: the same panels, one scheme of each place position enters
    first = fam.side_by_side(*setting, schemes=fam.KEY_IDEA)
    assert [p.scheme for p in first.panels] == list(fam.KEY_IDEA) and first.params == view.params
    assert all(p == view.panel(p.scheme) for p in first.panels)

    for scheme in ("sinusoidal", "tensor2tensor"):
        table = view.panel(scheme).view
        drawn = families.scheme_matrix(scheme, n, 1, num_hiddens=d).double().numpy()
        assert np.abs(drawn - sinusoid(range(n), d, "interleaved" if scheme == "sinusoidal" else "t2t")).max() < 1e-5
        assert fam.caption(table).startswith(f"The added table, {n} × {d}: ")
        check_blocks(table, n, d)
    # interleaved: column 2j is a sine, 2j + 1 its cosine; tensor2tensor: the d/2 sines, then the cosines
    assert "sine and cosine columns alternate" in fam.caption(view.panel("sinusoidal").view)
    assert f"all {d // 2} sines first, then their cosines" in fam.caption(view.panel("tensor2tensor").view)

    learned = view.panel("learned").view
    table, name = fam.learned_table()
    rows = min(n, table.shape[0])
    said = fam.caption(learned)
    assert said.startswith(f"The first {rows} row{'' if rows == 1 else 's'} of {name} ({table.shape[0]} × "
                           f"{table.shape[1]}).")
    assert (f"It has no rows for positions {rows} to {n - 1}." in said) == (rows < n)
    drawn = table[:rows].double()
    high = learned.scale.high
    assert learned.scale.low == -high and f"Colours span ±{number(high, '.3g')};" in said
    beyond = int((drawn.abs() > high).sum())
    assert beyond <= 0.01 * drawn.numel() + 1  # 99 % of the entries inside the colour range
    if beyond == 0:
        assert f"none of the {drawn.numel():,} entries lies beyond them." in said
    elif beyond == 1:
        assert f"the one larger entry of the {drawn.numel():,} takes the end colour." in said
    else:
        assert f"the {beyond:,} larger of the {drawn.numel():,} entries take the end colours." in said
    check_blocks(learned, rows, table.shape[1])

    binary = view.panel("binary").view
    bits = max(1, (n - 1).bit_length())
    matrix = families.scheme_matrix("binary", n, 1)
    assert matrix.tolist() == [[(i >> c) & 1 for c in range(bits)] for i in range(n)]  # least significant first
    assert fam.caption(binary).startswith(f"Positions 0 to {n - 1} in {bits} bit{'' if bits == 1 else 's'}, "
                                          "least significant first.")
    check_blocks(binary, n, bits)

    rope_view = view.panel("rope").view
    hw = d // heads
    angles = families.scheme_matrix("rope", n, heads, num_hiddens=d).double().numpy()
    omega = 10000.0 ** (-2 * np.arange(hw // 2) / hw)
    expected = np.mod(np.arange(n)[:, None] * omega, 2 * np.pi)
    assert np.abs(np.angle(np.exp(1j * (angles - expected)))).max() < 1e-4  # equal mod 2π
    which = "the one pair" if hw == 2 else f"each of the {hw // 2} pairs"
    assert f"by which {which} of a head of width {hw} turns at position m" in fam.caption(rope_view)
    check_blocks(rope_view, n, hw // 2)

    alibi = view.panel("alibi").view
    slope = get_slopes(heads)[head - 1]
    bias = families.scheme_matrix("alibi", n, heads, causal=causal)[head - 1].double().numpy()
    said = fam.caption(alibi)
    assert said.startswith(f"Head {head} of {heads}: slope m = {number(slope, '.6g')}, the bias falls by that much "
                           "per step of distance.")
    for i in range(n):
        for j in range(n):
            if causal and j > i:
                assert bias[i, j] == -math.inf
            else:
                assert bias[i, j] == pytest.approx(-slope * abs(i - j), rel=1e-6)
    assert colour_domain(alibi.spec) == pytest.approx([-slope * (n - 1), slope * (n - 1)])  # 0 in the middle
    if causal:
        assert "Keys after the query are masked (grey)." in said
        # and grey they are: the map carries the grey's legend entry, and drawn as cells, every cell is there
        layers = alibi.spec.get("layer", [alibi.spec])
        assert any(layer.get("encoding", {}).get("fill", {}).get("scale", {}).get("domain") == ["masked"]
                   for layer in layers)
    else:
        assert "masked" not in said
    check_blocks(alibi, n, n)

    t5 = view.panel("t5").view
    used = len({t5_bucket(j - i, not causal) for i in range(n) for j in range(n)})
    assert f"({used} of the 32 buckets {'occurs' if used == 1 else 'occur'} at n = {n})" in fam.caption(t5)
    check_blocks(t5, n, n)

    shaw = view.panel("shaw").view
    # a decoder's query sees the keys at or before it only: offsets j − i ≤ 0
    used = len({min(max(j - i, -k), k) for i in range(n) for j in range(n) if not (causal and j > i)})
    said = fam.caption(shaw)
    occur = "occurs" if used == 1 else "occur"
    assert f"2k + 1 = {2 * k + 1} learned vectors" in said and f"({used} {occur} at n = {n})" in said
    if causal:
        assert used <= k + 1
        assert f"so only the {k + 1} vectors of the offsets −{k} to 0 can be used" in said
        assert f"beyond −{k} uses the edge vector" in said and "masked (grey)" in said
        assert "±" not in said
        layers = shaw.spec.get("layer", [shaw.spec])  # the masked cells are drawn grey, with their legend entry
        assert any(layer.get("encoding", {}).get("fill", {}).get("scale", {}).get("domain") == ["masked"]
                   for layer in layers)
    else:
        assert f"beyond ±{k} uses the edge vector" in said and "masked" not in said
    check_blocks(shaw, n, n)
    direct = {"sinusoidal": fam.table_caption, "tensor2tensor": fam.table_caption, "learned": fam.learned_caption,
              "binary": fam.binary_caption, "rope": fam.rope_caption, "alibi": fam.alibi_caption,
              "t5": fam.t5_caption, "shaw": fam.shaw_caption}
    for p in view.panels:
        if p.view is not None:  # caption() is each scheme's own caption function
            assert direct[p.scheme](p.view) == fam.caption(p.view)
        no_hyphen_minus(fam.learns_sentence(view.params, p.scheme))
        if p.view is not None:
            no_hyphen_minus(fam.caption(p.view))


# conventions --------------------------------------------------------------------------------------


def test_every_width_on_the_page_has_even_heads_and_odd_ones_are_named():
    assert all(fam.head_width_is_even(d, h) for d, h in WIDTHS)
    assert not fam.head_width_is_even(48, 16) and fam.head_width_is_even(48, 8)


@st.composite
def conventions_settings(draw):
    d, heads = draw(st.sampled_from(WIDTHS))
    return draw(st.integers(fam.N.minimum, fam.N.maximum)), d, heads


@settings(max_examples=25, deadline=None)
@given(conventions_settings())
@with_examples([(2, 32, 16), (256, 32, 16), (256, 64, 16), (2, 512, 1), (256, 512, 1), (37, 64, 1), (24, 128, 2)])
def test_conventions_sentences_state_the_measured_check(setting):
    n, d, heads = setting
    view = fam.conventions(*setting)
    hw = d // heads

    perm = list(range(0, hw, 2)) + list(range(1, hw, 2))  # even columns first, then odd
    said = fam.permutation_sentence(view)
    assert said.startswith(f"Permutation for a head of width {hw}: ")
    shown = said.split("[..., [")[1].split("]]")[0]
    assert shown == (", ".join(map(str, perm)) if hw <= 32
                     else ", ".join(map(str, perm[:16])) + ", …, " + ", ".join(map(str, perm[-4:])))
    assert ("the identity" in said) == (perm == list(range(hw))) == (hw == 2)

    g = torch.Generator().manual_seed(0)
    q = torch.randn(n, hw, generator=g, dtype=torch.float64)
    k = torch.randn(n, hw, generator=g, dtype=torch.float64)
    scores = rope(q, "adjacent") @ rope(k, "adjacent").T
    permuted = rope(q[:, perm], "halves") @ rope(k[:, perm], "halves").T
    wrong = rope(q, "halves") @ rope(k, "halves").T
    largest, agree, disagree = float(scores.abs().max()), float((scores - permuted).abs().max()), float(
        (scores - wrong).abs().max())
    vectors = float((rope(q, "adjacent") - rope(q, "halves")).abs().max())
    c = view.check
    assert c.largest_score == pytest.approx(largest, rel=1e-9)
    assert c.score_difference <= 1e-9 * largest and agree <= 1e-9 * largest  # only rounding, both ways computed
    assert c.mismatched_score_difference == pytest.approx(disagree, rel=1e-6, abs=1e-9 * largest)
    assert c.vector_difference == pytest.approx(vectors, rel=1e-6, abs=1e-12)
    assert fam.metric_values(view) == (number(c.vector_difference, ".3g"), number(c.score_difference, ".1e"),
                                       number(c.mismatched_score_difference, ".3g"))

    said = fam.pairing_sentence(view)
    assert f"at {n} position{'' if n == 1 else 's'}" in said and f"up to {number(c.largest_score, '.3g')} in size" in said
    assert ("agree exactly" in said) if c.score_difference == 0 else (
        f"agree to {number(c.score_difference, '.1e')}: only rounding" in said)
    if hw == 2:  # one pair: adjacent pairs and halves are the same two columns
        assert disagree <= 1e-9 * largest and vectors == 0
        assert f"Unpermuted they agree too (difference {number(c.mismatched_score_difference, '.1e')})" in said
        assert "disagree" not in said
        # "from a head width of 4 on" they disagree: measured at width 4
        q4, k4 = torch.randn(n, 4, generator=g, dtype=torch.float64), torch.randn(n, 4, generator=g, dtype=torch.float64)
        s4 = rope(q4, "adjacent") @ rope(k4, "adjacent").T
        assert float((s4 - rope(q4, "halves") @ rope(k4, "halves").T).abs().max()) > 1e-3 or n == 1
    else:
        assert disagree > 1e3 * max(agree, 1e-12)
        assert f"Unpermuted, they disagree by {number(c.mismatched_score_difference, '.3g')}:" in said

    eight, six, four = get_slopes(8), get_slopes(6), get_slopes(4)
    assert list(view.slopes8["slope"]) == eight and list(view.slopes6["slope"]) == six
    assert all(b / a == 0.5 for a, b in zip(eight, eight[1:]))  # halving from head to head
    assert fam.slopes8_sentence(view) == f"8 heads: slopes from {eight[0]:g} down to {eight[-1]:g}, halving from head to head."
    assert six == four + [eight[0], eight[2]]  # the 4 of 4 heads, then heads 1 and 3 of 8
    assert fam.slopes6_sentence(view) == (f"6 heads: the 4 slopes of 4 heads ({', '.join(f'{x:g}' for x in four)}), "
                                          "then heads 1 and 3 of the 8-head sequence.")

    said = fam.t5_sentence(view)
    before = {dist: t5_bucket(-dist, True) for dist in range(161)}  # keys before the query
    exact = [dist for dist in before if list(before.values()).count(before[dist]) == 1]
    assert exact == list(range(len(exact))) and f"distances 0 to {len(exact) - 1} get a bucket each" in said
    assert {t5_bucket(r, True) for r in range(1, 161)} <= set(range(16, 32))  # keys after: the upper half
    causal_before = {dist: t5_bucket(-dist, False) for dist in range(161)}
    causal_exact = [dist for dist in causal_before if list(causal_before.values()).count(causal_before[dist]) == 1]
    assert set(causal_before.values()) == set(range(32)) and "all 32 buckets for keys at or before" in said
    assert f"{len(causal_exact)} exact distances" in said and causal_exact == list(range(len(causal_exact)))
    assert {t5_bucket(r, False) for r in range(1, 161)} == {0} and "falls in bucket 0" in said
    assert "max_distance = 128" in said and "From ±128 on, every distance shares the last bucket" in said
    assert {t5_bucket(-x, True) for x in range(128, 161)} == {15} and {t5_bucket(x, True) for x in range(128, 161)} == {31}
    assert {t5_bucket(-x, False) for x in range(128, 161)} == {31}
    assert view.t5.bidirectional.tolist() == [t5_bucket(o, True) for o in range(-160, 161)]  # the curve drawn
    assert view.t5.causal.tolist() == [t5_bucket(o, False) for o in range(-160, 161)]

    said = fam.layouts_sentence(view)
    t2t_last, inter_last = 10000.0 ** -1, 10000.0 ** (-2 * (d // 2 - 1) / d)
    assert f"At d = {d} the slowest pair has ω = {number(t2t_last, '.4g')} in tensor2tensor" in said
    assert f"against {number(inter_last, '.4g')} in the book" in said
    inter, t2t = sinusoid(range(n), d), sinusoid(range(n), d, "t2t")
    gap = float(np.abs(np.concatenate([inter[:, 0::2], inter[:, 1::2]], axis=1) - t2t).max())
    assert view.largest_gap == pytest.approx(gap, abs=1e-5)
    assert f"the two tables at {n} positions differ by up to {number(view.largest_gap, '.3g')}." in said
    for text in (fam.pairing_sentence(view), fam.layouts_sentence(view), *fam.metric_values(view)):
        no_hyphen_minus(text)


# past the training length ------------------------------------------------------------------------


@st.composite
def beyond_settings(draw):
    """(p, train, d, heads, k) over the page's whole range, p up to the slider's top for that L."""
    train = draw(st.integers(fam.TRAIN.minimum, fam.TRAIN.maximum))
    p = draw(st.integers(fam.POSITION.minimum, fam.offset_limit(train)))
    d, heads = draw(st.sampled_from(WIDTHS))
    return p, train, d, heads, draw(st.integers(fam.SHAW_K.minimum, fam.SHAW_K.maximum))


def test_the_offset_reaches_sixteen_training_lengths_within_its_range():
    assert [fam.offset_limit(t) for t in (2, 64, 1023, 1024)] == [32, 1024, 16368, 16383]
    assert fam.offset_limit(fam.TRAIN.maximum) == fam.POSITION.maximum
    fam.beyond(fam.POSITION.maximum, fam.TRAIN.maximum, 64, 8, 4)  # the largest offset offered is served


BEYOND_CORNERS = [(16383, 1024, 512, 1, 64), (16383, 1024, 32, 16, 1), (1, 2, 32, 16, 1), (2, 2, 32, 16, 1),
                  (3, 2, 512, 1, 64), (32, 2, 64, 8, 4), (63, 64, 64, 8, 4), (64, 64, 64, 8, 64), (100, 64, 64, 1, 4),
                  (300, 64, 128, 2, 4), (256, 64, 64, 8, 4), (1024, 1024, 256, 2, 1)]


@settings(max_examples=40, deadline=None)
@given(beyond_settings())
@with_examples(BEYOND_CORNERS)
def test_past_the_training_length_sentences_state_each_schemes_numbers(setting):
    p, train, d, heads, k = setting
    view = fam.beyond(*setting)
    inside = p < train

    assert fam.offset_heading(view) == (f"**At offset p = {p:,}, after training on L = {train:,} positions**"
                                        + (" (inside the training length: nothing here is new)" if inside else "") + ":")
    assert fam.learned_line(view) == (f"**Learned**: row {p:,} exists." if inside
                                      else f"**Learned**: no row: the table stops at row {train - 1:,}.")

    table, row = sinusoid(range(train), d), sinusoid([p], d)[0]
    nearest, step = float(np.linalg.norm(table - row, axis=1).min()), float(np.linalg.norm(table[1] - table[0]))
    said = fam.sinusoidal_line(view)
    assert f"(neighbouring rows are {number(step, '.3g')} apart)" in said
    if inside:
        assert nearest < 1e-9 and f"row {p:,} is one of the {train:,} rows seen in training" in said
    else:
        assert view.b.sinusoidal_nearest == pytest.approx(nearest, abs=1e-9)
        assert f"the nearest row seen in training is {number(view.b.sinusoidal_nearest, '.3g')} away" in said

    bits_p, bits_train = max(1, p.bit_length()), max(1, (train - 1).bit_length())
    said = fam.binary_line(view)
    assert f"position {p:,} needs {bits_p} bit{'' if bits_p == 1 else 's'}; training used {bits_train}" in said
    set_in_training = {c for i in range(train) for c in range(i.bit_length()) if (i >> c) & 1}
    assert said.endswith(", so a bit that was never set turns on.") == (bits_p > bits_train)
    if bits_p > bits_train:  # p's top bit was never set by a position below L
        assert (bits_p - 1) not in set_in_training and (p >> (bits_p - 1)) & 1

    hw = d // heads  # RoPE: per pair, the largest angle of training (L − 1)·ω and the angle at p mod 2π
    omega = [10000.0 ** (-2 * j / hw) for j in range(hw // 2)]
    full = [j for j, w in enumerate(omega) if (train - 1) * w >= 2 * math.pi]
    short = [j for j in range(len(omega)) if j not in full]
    new = [j for j in short if not inside and math.fmod(p * omega[j], 2 * math.pi) > (train - 1) * omega[j]]
    back = [j for j in short if not inside and j not in new]
    said = fam.rope_line(view)
    pairs = len(omega)
    if pairs == 1:
        assert said.startswith("**RoPE**: the one pair of a head " + (
            "turned a full circle within L, so it met" if full else "never turned a full circle within L;"))
    else:
        assert said.startswith(f"**RoPE**: {f'all {pairs}' if len(full) == pairs else f'{len(full)} of the {pairs}'} "
                               "pairs of a head turned a full circle within L")
    assert ("all round the circle" in said) == bool(full)
    if inside:
        assert said.endswith("inside the training length every angle at p was met in training.")
    elif not short:
        assert said.endswith("no pair meets an angle it never saw.")
    else:
        assert (f"{fam.runs_of(new)} now turn" in said) if new else "now turn" not in said
        assert (f"{fam.runs_of(back)}, short of a full turn in training," in said) if back else "come round" not in said
        for j in back:  # come round: the angle mod 2π lies inside the arc met in training
            assert p * omega[j] >= 2 * math.pi and math.fmod(p * omega[j], 2 * math.pi) <= (train - 1) * omega[j]

    # the chart beside it: per pair, (L − 1)·ω_j, p·ω_j and one full turn; many pairs are drawn as bands
    # (each the range of its run of pairs), which must hold exactly the values of their pairs
    curves = {"largest in training": [(train - 1) * w for w in omega], f"at offset p = {p}": [p * w for w in omega],
              "one full turn": [2 * math.pi] * len(omega)}
    points, bands = rows_drawn(view.rope_spec, "angle"), rows_drawn(view.rope_spec, "low")
    assert sorted((r["what"].split(",")[0], r["pair"]) for r in points) == sorted(
        (what, j) for what in curves for j in range(len(omega))) if points else len(bands) > 0
    for r in points:
        assert r["angle"] == pytest.approx(curves[r["what"].split(",")[0]][r["pair"]], rel=1e-9)
    for r in bands:
        values = curves[r["what"].split(",")[0]][int(r["first"]): int(r["last"]) + 1]
        assert (r["low"], r["high"]) == pytest.approx((min(values), max(values)), rel=1e-9)

    slopes = get_slopes(heads)
    b = view.b
    assert b.alibi_bias == pytest.approx([-m * p for m in slopes], rel=1e-12)
    assert b.alibi_bias_seen == pytest.approx([-m * (train - 1) for m in slopes], rel=1e-12, abs=1e-300)
    said = fam.alibi_line(view)
    now, seen = [-m * p for m in slopes], [-m * (train - 1) for m in slopes]
    # every bias is negative and written with a minus sign ("L − 1" has a space after its minus)
    quoted = [float(x.replace("−", "-").replace(",", "")) for x in re.findall(r"−[\d,]+(?:\.\d+)?", said)]
    if heads == 1:  # the numbers quoted: the bias at p, then at L − 1
        assert "at p (the one head)" in said and "head 1)" not in said and f"L − 1 = {train - 1:,}, it was" in said
        expected = [now[0], seen[0]]
    else:  # head 1 and the last head at p, then at L − 1
        assert "(head 1) to " in said and f" (head {heads}) at p" in said and f"L − 1 = {train - 1:,}, it was" in said
        expected = [now[0], now[-1], seen[0], seen[-1]]
    assert quoted == pytest.approx(expected, rel=6e-4)  # 4 significant digits, or whole numbers from 1,000 on
    assert [fam.bias_text(x) for x in expected] == re.findall(r"−[\d,]+(?:\.\d+)?", said)
    if not inside:  # past L − 1 the penalty is larger than any met in training, in every head
        assert all(a < b_ for a, b_ in zip(now, seen))

    # the chart under it: "one line per head: a straight line", drawn from offset 0 to max(p, L)
    rows = rows_drawn(view.alibi_spec, "bias")
    assert sorted({r["head"] for r in rows}) == sorted(f"head {h}" for h in range(1, heads + 1))
    assert all(r["bias"] == pytest.approx(-slopes[int(r["head"].split()[1]) - 1] * r["offset"], rel=1e-12, abs=0)
               and not (r["bias"] == 0 and math.copysign(1, r["bias"]) < 0) for r in rows)
    assert {r["offset"] for r in rows} >= {0, max(p, train)}

    bucket, reached = t5_bucket(-p, True), {t5_bucket(-x, True) for x in range(train)}
    # the T5 chart: the encoder's bucket of each distance before the query, from 0 to max(p, L); the keys
    # after the query mirror them (the same distance, the upper half of the buckets)
    top = max(p, train)
    drawn = rows_drawn(view.t5_spec, "bucket")
    if len(drawn) == top + 1:  # every distance drawn (larger ranges are drawn as bands, labelled so)
        assert [r["bucket"] for r in sorted(drawn, key=lambda r: r["offset"])] == [t5_bucket(-x, True)
                                                                                   for x in range(top + 1)]
    assert all(t5_bucket(x, True) == t5_bucket(-x, True) + 16 for x in range(1, min(top, 3000) + 1))
    said = fam.t5_line(view)
    assert f"distance {p:,} falls in bucket {bucket}, " in said
    assert f"(they reach {len(reached)} bucket{'' if len(reached) == 1 else 's'})" in said
    assert ("one trained on" in said) == (bucket in reached) and ("**never trained**" in said) == (bucket not in reached)
    assert {t5_bucket(-x, True) for x in range(128, 400)} == {15} and "every distance from 128 on shares one bucket" in said

    said = fam.shaw_line(view)
    assert said.startswith(f"**Shaw**: offset {p:,} uses vector {min(p, k) + k} of 0 to {2 * k}")
    assert (f", clipped to the edge vector of ±{k}:" in said) == (p > k)
    # the offsets a training of L positions meets are −(L − 1) .. L − 1: their vectors are the trained ones
    met = {min(max(i - j, -k), k) + k for i in range(min(train, 2 * k + 3)) for j in range(min(train, 2 * k + 3))}
    used = min(p, k) + k
    assert ("one trained on" in said) == (used in met) and ("**never trained**" in said) == (used not in met)
    for line in (fam.offset_heading, fam.learned_line, fam.sinusoidal_line, fam.binary_line, fam.rope_line,
                 fam.alibi_line, fam.t5_line, fam.shaw_line):
        no_hyphen_minus(line(view))


# context extension -------------------------------------------------------------------------------


@st.composite
def extension_settings(draw):
    """(head width, base, s, L₀) over the page's range: s from 1 to 64 in the slider's steps of 0.5."""
    factor = fam.FACTOR.minimum + 0.5 * draw(st.integers(0, int((fam.FACTOR.maximum - fam.FACTOR.minimum) / 0.5)))
    return (int(draw(st.sampled_from(fam.HEAD_DIM.options))), float(draw(st.sampled_from(fam.THETA.options))),
            factor, int(draw(st.sampled_from(fam.ORIGINAL.options))))


@settings(max_examples=40, deadline=None)
@given(extension_settings())
@with_examples([(32, 10000.0, 1.0, 512), (32, 500000.0, 64.0, 512), (256, 10000.0, 1.5, 8192),
                (256, 500000.0, 64.0, 8192), (128, 10000.0, 4.0, 2048), (32, 10000.0, 1.0, 8192)])
@pytest.mark.filterwarnings("ignore")
def test_context_extension_sentences_state_each_rules_numbers(setting):
    hd, base, s, original = setting
    view = fam.extension(*setting)
    target = round(s * original)
    pairs = hd // 2
    omega = np.array([base ** (-2 * j / hd) for j in range(pairs)])
    assert fam.extension_caption(view) == (
        f"{pairs} pairs per head, target length s·L₀ = {target:,}; computed as Hugging Face's "
        "`modeling_rope_utils.py` does.")

    linear = pekit.rope_frequencies(hd, base=base, scaling="linear", factor=s).double().numpy() / omega
    assert linear == pytest.approx([1 / s] * pairs) and view.linear_ratio == pytest.approx(1 / s)
    if s == 1:
        assert fam.linear_line(view) == "**Linear** (position interpolation) at s = 1 leaves every pair as it is: ratio 1."
    else:
        assert fam.linear_line(view).endswith(f"slows every pair by s: ratio {number(1 / s, '.4g')} for all.")

    ntk_base = base * s ** (hd / (hd - 2))
    ntk = np.array([ntk_base ** (-2 * j / hd) for j in range(pairs)]) / omega
    assert pekit.rope_frequencies(hd, base=base, scaling="ntk", factor=s).double().numpy() / omega == pytest.approx(ntk)
    said = fam.ntk_line(view)
    assert view.ntk.base == pytest.approx(ntk_base) and f"b' = {number(view.ntk.base, ',.6g')}:" in said
    assert ntk[0] == 1.0 and 1 / ntk[-1] == pytest.approx(s)
    if s == 1:
        assert "every pair keeps its speed (ratios 1 and 1 for the fastest and the slowest)" in said
    else:
        assert "the fastest pair keeps its speed (ratio 1)" in said
        assert said.endswith(f"the slowest is slowed by {number(1 / view.ntk_last_ratio, '.4g')}.")
        assert number(1 / view.ntk_last_ratio, ".4g") == number(s, ".4g")

    scale = s * target / original - (s - 1)  # s' at L = s·L₀
    said = fam.dynamic_line(view)
    assert view.dynamic.scale == pytest.approx(scale) and f"its scale is s' = {number(view.dynamic.scale, '.6g')}" in said
    assert view.dynamic.base == pytest.approx(base * scale ** (hd / (hd - 2)))
    assert said.endswith(f"base {number(view.dynamic.base, ',.6g')}.") and f"at L = s·L₀ = {target:,}" in said

    low = max(math.floor(hd * math.log(original / (32 * 2 * math.pi)) / (2 * math.log(base))), 0)
    high = min(math.ceil(hd * math.log(original / (2 * math.pi)) / (2 * math.log(base))), hd - 1)
    yarn = pekit.rope_frequencies(hd, base=base, scaling="yarn", factor=s, original_max_len=original).double().numpy()
    yarn = (yarn / omega).tolist()
    said = fam.yarn_line(view)
    assert yarn[: low + 1] == pytest.approx([1.0] * (low + 1))
    if s == 1:
        assert yarn == pytest.approx([1.0] * pairs) and "at s = 1 every pair keeps its frequency" in said
    else:
        assert (f"pair 0 keeps its frequency" if low == 0 else f"{fam.runs_of(list(range(low + 1)))} keep their frequency") in said
        if high < pairs:
            divided, between = list(range(high, pairs)), list(range(low + 1, high))
            assert yarn[high:] == pytest.approx([1 / s] * len(divided))
            assert f"{fam.runs_of(divided)} {'is' if len(divided) == 1 else 'are'} divided by s" in said
            assert (f"{fam.runs_of(between)} on a linear ramp in between" in said) if between else (
                "with no pair in between" in said)
            assert all(1 / s < r < 1 for r in yarn[low + 1: high])  # the ramp: strictly between
        else:
            assert "the ramp to full interpolation runs past the last pair" in said
            assert yarn[-1] > 1 / s * (1 + 1e-9)  # the last pair is not fully interpolated
    factor = 0.1 * math.log(s) + 1
    assert view.yarn.attention_factor == pytest.approx(factor)
    assert said.endswith(f"0.1·ln s + 1 = {number(factor, '.4g')}.")
    for line in (fam.extension_caption, fam.linear_line, fam.ntk_line, fam.dynamic_line, fam.yarn_line):
        no_hyphen_minus(line(view))
