"""The encoding families page's section past the training length: each sentence states the numbers
of its view, checked against references recomputed here."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.views import encoding_families as fam
from lab.views import families_beyond as past

from tests.views.families_helpers import (
    WIDTHS, get_slopes, no_hyphen_minus, rows_drawn, sinusoid, t5_bucket, t5_buckets, with_examples)


# past the training length ------------------------------------------------------------------------


def check_alibi_claims(said, view, p, train, heads, slopes):
    """The ALiBi line's claims hold, and their references are the bias recomputed here: the
    quoted heads' bias at p and at L − 1 (float64 from the authors' slopes), a line that falls
    over every offset drawn, and the trend word the sentence uses is the direction of the
    numbers it quotes (bias at the shorter distance first)."""
    assert said.holds()
    for h in sorted({0, heads - 1}):
        at_p, at_last = said.claim(f"head {h + 1}: bias at p"), said.claim(f"head {h + 1}: bias at L − 1")
        assert at_p.reference.value == pytest.approx(-slopes[h] * p, rel=2 ** -22)
        assert at_last.reference.value == pytest.approx(-slopes[h] * (train - 1), rel=2 ** -22, abs=1e-300)
        series = said.claim(f"head {h + 1}: bias over the offsets drawn")
        assert series.relation == "falls" and series.value == pytest.approx(
            [-slopes[h] * o for o in view.alibi_offsets], rel=1e-12)
        assert view.alibi_offsets[0] == 0 and view.alibi_offsets[-1] == max(p, train)
    quoted = [float(x.replace("−", "-").replace(",", "")) for x in re.findall(r"−[\d,]+(?:\.\d+)?", said)]
    at_p, at_last = quoted[0], quoted[1 if heads == 1 else 2]  # head 1's: at p, then at L − 1
    near, far = (at_last, at_p) if p > train - 1 else (at_p, at_last)  # by distance
    if p != train - 1 and near != far:
        # the quoted numbers are biases (negative): they fall with the distance, as the claims above say
        assert far < near, f"the sentence says the bias falls with the distance while the numbers it quotes go from " \
                           f"{near} to {far}"


@st.composite
def beyond_settings(draw):
    """(p, train, d, heads, k) over the page's whole range, p up to the slider's top for that L."""
    train = draw(st.integers(fam.TRAIN.minimum, fam.TRAIN.maximum))
    p = draw(st.integers(fam.POSITION.minimum, past.offset_limit(train)))
    d, heads = draw(st.sampled_from(WIDTHS))
    return p, train, d, heads, draw(st.integers(fam.SHAW_K.minimum, fam.SHAW_K.maximum))


def test_the_offset_reaches_sixteen_training_lengths_within_its_range():
    assert [past.offset_limit(t) for t in (2, 64, 1023, 1024)] == [32, 1024, 16368, 16383]
    assert past.offset_limit(fam.TRAIN.maximum) == fam.POSITION.maximum
    past.beyond(fam.POSITION.maximum, fam.TRAIN.maximum, 64, 8, 4)  # the largest offset offered is served


BEYOND_CORNERS = [(16383, 1024, 512, 1, 64), (16383, 1024, 32, 16, 1), (1, 2, 32, 16, 1), (2, 2, 32, 16, 1),
                  (3, 2, 512, 1, 64), (32, 2, 64, 8, 4), (63, 64, 64, 8, 4), (64, 64, 64, 8, 64), (100, 64, 64, 1, 4),
                  (300, 64, 128, 2, 4), (256, 64, 64, 8, 4), (1024, 1024, 256, 2, 1)]


def test_t5_buckets_written_out_agree_one_by_one_and_all_at_once():
    """The vectorized bucket the checks below read agrees with HF's written out, offset by offset;
    an encoder's keys after the query take the upper half, mirroring those before; every distance
    from max_distance on shares the last bucket of its half."""
    offsets = np.arange(-3000, 3001)
    for bidirectional in (True, False):
        assert t5_buckets(offsets, bidirectional).tolist() == [t5_bucket(int(o), bidirectional) for o in offsets]
    before, after = t5_buckets(-np.arange(1, 3001), True), t5_buckets(np.arange(1, 3001), True)
    assert (after == before + 16).all() and set(before[127:].tolist()) == {15}


def check_heading_and_learned(view, p, train) -> None:
    inside = p < train
    said = past.offset_heading(view)
    assert said.holds() and said.claim("offset p").value == p and said.claim("training length L").value == train
    assert said.claim("offset p").relation == ("below" if inside else "at least")
    assert f"p = {p:,}" in said and f"L = {train:,}" in said
    said = past.learned_line(view)
    assert said.holds()
    if inside:  # rows 0 .. L − 1: row p is one of them
        assert said.claim("row p").value == p and said.claim("row p").reference.value == train
        assert f"row {p:,} " in said
    else:
        assert said.claim("last row").value == train - 1 and said.claim("last row").reference.value == p
        assert f"row {train - 1:,}." in said


def check_sinusoidal_and_binary(view, p, train, d) -> None:
    table, row = sinusoid(range(train), d), sinusoid([p], d)[0]
    nearest, step = float(np.linalg.norm(table - row, axis=1).min()), float(np.linalg.norm(table[1] - table[0]))
    said = past.sinusoidal_line(view)
    assert said.holds() and said.claim("row p").value == p and f"row {p:,} " in said
    assert said.claim("step between neighbouring rows").value == pytest.approx(step, rel=1e-9)
    assert number(step, ".3g") in said
    claim = said.claim("distance to the nearest row seen in training")
    assert claim.value == pytest.approx(nearest, abs=1e-9)
    if p < train:  # row p is one of the rows seen: no distance but float rounding
        assert nearest < 1e-9 and claim.relation == "at most" and claim.reference.value == 1e-9
        assert said.claim("rows seen in training").value == train and f"{train:,} rows" in said
    else:
        assert claim.relation is None and number(claim.value, ".3g") in said

    bits_p, bits_train = max(1, p.bit_length()), max(1, (train - 1).bit_length())
    said = past.binary_line(view)
    assert said.holds() and said.claim("position p").value == p
    assert said.claim("bits p needs").value == bits_p and said.claim("bits training used").value == bits_train
    assert said.claim("bits p needs").relation == ("above" if bits_p > bits_train else "at most")
    assert f"position {p:,} needs {bits_p} bit{'' if bits_p == 1 else 's'}; training used {bits_train}" in said
    set_in_training = {c for i in range(train) for c in range(i.bit_length()) if (i >> c) & 1}
    if bits_p > bits_train:  # p's top bit was never set by a position below L
        assert (bits_p - 1) not in set_in_training and (p >> (bits_p - 1)) & 1


def runs(items: list[int]) -> int:
    """How many runs of consecutive numbers ``items`` (sorted) holds."""
    return sum(1 for i, x in enumerate(items) if i == 0 or x != items[i - 1] + 1)


def check_pairs_named(said, pairs: list[int]) -> None:
    """The pairs a RoPE sentence names: every run up to three, else their count, first and last."""
    if runs(pairs) <= 3:
        assert f" {fam.runs_of(pairs)}" in said
    else:  # their count, then the first and the last
        written_in_order(said, [f" {len(pairs)} ", f" {pairs[0]} ", f" {pairs[-1]}"])


def written_in_order(text: str, numbers: list[str]) -> None:
    """Each of ``numbers`` is written in ``text``, one after another."""
    at = 0
    for written in numbers:
        assert written in text[at:], f"{written!r} not after {text[:at]!r} in {text!r}"
        at = text.index(written, at) + len(written)


def check_rope(view, p, train, d, heads) -> None:
    """Per pair, the largest angle of training (L − 1)·ω and the angle at p mod 2π, from ω_j."""
    inside = p < train
    hw = d // heads
    omega = [10000.0 ** (-2 * j / hw) for j in range(hw // 2)]
    full = [j for j, w in enumerate(omega) if (train - 1) * w >= 2 * math.pi]
    short = [j for j in range(len(omega)) if j not in full]
    new = [j for j in short if not inside and math.fmod(p * omega[j], 2 * math.pi) > (train - 1) * omega[j]]
    back = [j for j in short if not inside and j not in new]
    said = past.rope_line(view)
    assert said.holds()  # each pair's angles against a full turn and the largest angle met, as the record has them
    assert said.claim("pairs per head").value == len(omega) and said.claim(
        "pairs that turned a full circle within L").value == len(full)
    for j, w in enumerate(omega):
        claim = said.claim(f"pair {j}: largest angle met in training, (L − 1)·ω")
        assert claim.value == pytest.approx((train - 1) * w, rel=1e-9)
        assert claim.relation == ("at least" if j in full else "below") and claim.reference.value == 2 * math.pi
    if len(omega) > 1:
        assert f" {len(omega)} " in said and (not full or len(full) == len(omega) or f"{len(full)} " in said)
    if inside:
        assert said.claim("offset p").value == p and said.claim("offset p").reference.value == train
    if new:
        assert said.claim("pairs past the largest angle met in training").value == tuple(new)
        for j in new:
            claim = said.claim(f"pair {j}: angle at p, mod 2π")
            assert claim.value == pytest.approx(math.fmod(p * omega[j], 2 * math.pi), rel=1e-9, abs=1e-9)
            assert claim.reference.value == pytest.approx((train - 1) * omega[j], rel=1e-9)
        check_pairs_named(said, new)
    else:
        assert "pairs past the largest angle met in training" not in [c.what for c in said.claims]
    if back:  # come round: the angle passed 2π, and mod 2π lies inside the arc met in training
        assert said.claim("pairs come round into the arc met in training").value == tuple(back)
        for j in back:
            assert p * omega[j] >= 2 * math.pi and math.fmod(p * omega[j], 2 * math.pi) <= (train - 1) * omega[j]
            assert said.claim(f"pair {j}: angle at p").value == pytest.approx(p * omega[j], rel=1e-9)
        check_pairs_named(said, back)
    else:
        assert "pairs come round into the arc met in training" not in [c.what for c in said.claims]

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


def check_alibi(view, p, train, heads) -> None:
    slopes = get_slopes(heads)
    b = view.b
    assert b.alibi_bias == pytest.approx([-m * p for m in slopes], rel=1e-12)
    assert b.alibi_bias_seen == pytest.approx([-m * (train - 1) for m in slopes], rel=1e-12, abs=1e-300)
    said = past.alibi_line(view)
    now, seen = [-m * p for m in slopes], [-m * (train - 1) for m in slopes]
    # every bias is negative and written with a minus sign ("L − 1" has a space after its minus)
    quoted = [float(x.replace("−", "-").replace(",", "")) for x in re.findall(r"−[\d,]+(?:\.\d+)?", said)]
    if heads == 1:  # the numbers quoted: the bias at p, then at L − 1
        expected = [now[0], seen[0]]
    else:  # head 1 and the last head at p, then at L − 1
        expected = [now[0], now[-1], seen[0], seen[-1]]
    # the heads quoted: the one head, or head 1 and the last; and the longest distance seen, L − 1
    assert {c.what.split(":")[0] for c in said.claims if c.what.startswith("head ")} == {f"head {h + 1}" for h in {0, heads - 1}}
    assert f"L − 1 = {train - 1:,}" in said
    assert quoted == pytest.approx(expected, rel=6e-4)  # 4 significant digits, or whole numbers from 1,000 on
    written = [past.bias_text(x) for x in expected]
    assert written == re.findall(r"−[\d,]+(?:\.\d+)?", said)
    assert [w.claim("bias").value for w in written] == expected
    if p >= train:  # past L − 1 the penalty is larger than any met in training, in every head
        assert all(a < b_ for a, b_ in zip(now, seen))
    check_alibi_claims(said, view, p, train, heads, slopes)

    # the chart under it: "one line per head: a straight line", drawn from offset 0 to max(p, L)
    rows = rows_drawn(view.alibi_spec, "bias")
    assert sorted({r["head"] for r in rows}) == sorted(f"head {h}" for h in range(1, heads + 1))
    assert all(r["bias"] == pytest.approx(-slopes[int(r["head"].split()[1]) - 1] * r["offset"], rel=1e-12, abs=0)
               and not (r["bias"] == 0 and math.copysign(1, r["bias"]) < 0) for r in rows)
    assert {r["offset"] for r in rows} >= {0, max(p, train)}


def check_t5(view, p, train) -> None:
    top = max(p, train)
    row = t5_buckets(-np.arange(max(top, 512) + 1), True)  # the encoder's bucket of distances 0 .. before the query
    bucket, reached = int(row[p]), set(row[:train].tolist())
    # the T5 chart: the encoder's bucket of each distance before the query, from 0 to max(p, L); the keys
    # after the query mirror them (the same distance, the upper half of the buckets)
    drawn = rows_drawn(view.t5_spec, "bucket")
    if len(drawn) == top + 1:  # every distance drawn (larger ranges are drawn as bands, labelled so)
        assert [r["bucket"] for r in sorted(drawn, key=lambda r: r["offset"])] == row[:top + 1].tolist()
    said = past.t5_line(view)
    # p and its bucket, the buckets distances below L reach, and max_distance (128), as written; whether p's bucket was
    # trained is the relation of "distances below L in the bucket of p" (below)
    written_in_order(said, [f" {p:,} ", f" {bucket}", f" {len(reached)} ", " 128 "])
    assert said.holds()  # each claim against the row drawn; the references against HF's bucket written out
    assert said.claim("bucket of p").reference.value == bucket
    assert said.claim("buckets distances 0 .. L − 1 reach").reference.value == len(reached)
    sharing = int((row[:train] == bucket).sum())
    assert said.claim("distances below L in the bucket of p").value == sharing
    assert said.claim("distances below L in the bucket of p").relation == ("above" if sharing else "equal")
    assert said.claim("buckets of the distances from max_distance on").value == len(set(row[128:].tolist())) == 1


def check_shaw(view, p, train, k) -> None:
    said = past.shaw_line(view)
    used = min(p, k) + k
    assert said.holds() and said.claim("vector index").value == used and said.claim("last vector index, 2k").value == 2 * k
    assert said.startswith("**Shaw**") and f" {p:,} " in said and f" {used} " in said and f" {2 * k}" in said
    assert said.claim("offset p").relation == ("above" if p > k else "at most")  # clipped to the edge vector
    assert said.claim("offset p").reference.value == k and (f"±{k}:" in said) == (p > k)
    # the offsets a training of L positions meets are −(L − 1) .. L − 1: their vectors are the trained ones
    met = {min(max(i - j, -k), k) + k for i in range(min(train, 2 * k + 3)) for j in range(min(train, 2 * k + 3))}
    claim = said.claim("offset of the vector used")
    assert claim.value == min(p, k) and claim.reference.value == train - 1
    assert claim.relation == ("at most" if used in met else "above")
    assert said.claim("largest offset training reaches, L − 1").value == train - 1 and f"±{train - 1:,}" in said
    if used not in met:
        assert said.claim("vectors trained").value == (k - (train - 1), k + (train - 1))
        assert f"vectors {k - (train - 1)} to {k + (train - 1)})" in said


def check_past(setting) -> None:
    p, train, d, heads, k = setting
    view = past.beyond(*setting)
    check_heading_and_learned(view, p, train)
    check_sinusoidal_and_binary(view, p, train, d)
    check_rope(view, p, train, d, heads)
    check_alibi(view, p, train, heads)
    check_t5(view, p, train)
    check_shaw(view, p, train, k)
    for line in (past.offset_heading, past.learned_line, past.sinusoidal_line, past.binary_line, past.rope_line,
                 past.alibi_line, past.t5_line, past.shaw_line):
        no_hyphen_minus(line(view))


@settings(max_examples=10, deadline=None)
@given(beyond_settings())
@with_examples(BEYOND_CORNERS)
def test_past_the_training_length_sentences_state_each_schemes_numbers(setting):
    check_past(setting)


@pytest.mark.slow  # the whole range drawn at random: the slow tier's sweep
@settings(max_examples=40, deadline=None)
@given(beyond_settings())
def test_past_the_training_length_sentences_over_the_whole_range(setting):
    check_past(setting)
