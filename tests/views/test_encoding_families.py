"""The encoding families page's sentences state the numbers of the views they are written from:
each record is built by the real (cached) view over the page's range of settings, and each
sentence is checked against numbers computed here from pekit."""

import math
import time

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from lab.jobs import job_board
from lab.views import encoding_families as fam
from pekit import families, shipped

# the side-by-side section ------------------------------------------------------------------------

# (n, d, heads, causal, k, head) over the page's range: smallest and largest n, width and heads,
# cells and images, encoder and decoder, Shaw's k below and above n
SIDE_BY_SIDE = [(2, 32, 1, False, 1, 1), (12, 64, 4, True, 3, 2), (20, 64, 4, False, 3, 1),
                (33, 128, 8, True, 4, 8), (100, 256, 2, False, 64, 2), (256, 512, 16, True, 64, 16)]


@pytest.fixture(scope="module", params=SIDE_BY_SIDE, ids=lambda s: "n={}, d={}, heads={}, causal={}, k={}, head={}".format(*s))
def side(request):
    return request.param, fam.side_by_side(*request.param)


def blocks_said(view) -> bool:
    return "Each pixel is the mean of a block of entries." in fam.caption(view)


def test_the_panels_follow_the_families_and_only_none_has_nothing_to_draw(side):
    _, view = side
    assert [p.scheme for p in view.panels] == list(families.FAMILIES)
    assert [p.scheme for p in view.panels if p.view is None] == ["none"]
    assert all(view.panel(p.scheme) is p for p in view.panels)


def test_learns_sentence_states_pekits_count_and_its_breakdown(side):
    (n, d, heads, causal, k, head), view = side
    for scheme in families.FAMILIES:
        count = families.scheme_parameters(scheme, num_hiddens=d, num_heads=heads, max_len=512, max_distance=k)
        said = fam.learns_sentence(view.params, scheme)
        assert said.startswith(f"Learns {count:,} numbers (")
        assert list(view.params.summary["learned numbers"]) == list(view.params.counts)
    assert f"(a table of 512 rows of width {d})" in fam.learns_sentence(view.params, "learned")
    assert view.params.count("learned") == 512 * d
    assert f"(32 buckets × {heads} heads)" in fam.learns_sentence(view.params, "t5")
    assert view.params.count("t5") == 32 * heads
    assert f"(2 × (2·{k} + 1) vectors of the head width {d // heads}, per layer)" in fam.learns_sentence(view.params,
                                                                                                         "shaw")
    assert view.params.count("shaw") == 2 * (2 * k + 1) * (d // heads)
    assert fam.learns_sentence(view.params, "none") == "Learns 0 numbers (there is nothing to learn)."
    assert fam.learns_sentence(view.params, "rope") == "Learns 0 numbers (a fixed formula)."


def test_table_captions_state_the_tables_shape_and_order(side):
    (n, d, *_), view = side
    for scheme in ("sinusoidal", "tensor2tensor"):
        table = view.panel(scheme).view
        assert tuple(families.scheme_matrix(scheme, n, 1, num_hiddens=d).shape) == (n, d)
        said = fam.caption(table)
        assert said.startswith(f"The added table, {n} × {d}: ")
        assert blocks_said(table) == (not table.exact)
    assert "sine and cosine columns alternate" in fam.caption(view.panel("sinusoidal").view)
    assert f"all {d // 2} sines first, then their cosines" in fam.caption(view.panel("tensor2tensor").view)


def test_learned_caption_states_the_rows_drawn_and_the_colour_range(side):
    (n, *_), view = side
    learned = view.panel("learned").view
    table, name = fam.learned_table()
    rows = min(n, table.shape[0])
    said = fam.caption(learned)
    assert said.startswith(f"The first {rows} rows of {name} ({table.shape[0]} × {table.shape[1]}).")
    assert (f"It has no rows for positions {rows} to {n - 1}." in said) == (rows < n)
    drawn = table[:rows]
    beyond = int((drawn.abs() > learned.scale.high).sum())
    assert f"Colours span ±{learned.scale.high:.3g}; the {beyond} larger of the {drawn.numel():,} entries" in said
    assert blocks_said(learned) == (not learned.exact)


def test_binary_caption_states_the_bits_of_the_last_position(side):
    (n, *_), view = side
    binary = view.panel("binary").view
    bits = max(1, (n - 1).bit_length())
    assert fam.caption(binary).startswith(f"Positions 0 to {n - 1} in {bits} bit{'' if bits == 1 else 's'},")
    assert blocks_said(binary) == (not binary.exact)


def test_rope_caption_states_the_pairs_of_one_head(side):
    (n, d, heads, *_), view = side
    rope = view.panel("rope").view
    assert (f"each of the {d // heads // 2} pairs of a head of width {d // heads} turns at position m"
            in fam.caption(rope))
    assert blocks_said(rope) == (not rope.exact)


def test_alibi_caption_states_the_heads_slope_and_how_masked_keys_look(side):
    (n, d, heads, causal, k, head), view = side
    alibi = view.panel("alibi").view
    said = fam.caption(alibi)
    assert said.startswith(f"Head {head} of {heads}: slope m = {2.0 ** (-8 * head / heads):.6g}, ")
    if causal:
        assert "Keys after the query are masked (grey)." in said
        # and grey they are: the map carries the grey's legend entry, and drawn as cells, every cell is there
        layers = alibi.spec.get("layer", [alibi.spec])
        assert any(layer.get("encoding", {}).get("fill", {}).get("scale", {}).get("domain") == ["masked"]
                   for layer in layers)
    else:
        assert "masked" not in said
    assert blocks_said(alibi) == (not alibi.exact)


def test_t5_caption_counts_the_buckets_that_occur(side):
    (n, d, heads, causal, *_), view = side
    t5 = view.panel("t5").view
    used = int(pekit.t5_relative_buckets(n, n, bidirectional=not causal).unique().numel())
    assert f"({used} of the 32 buckets occur at n = {n})" in fam.caption(t5)
    assert blocks_said(t5) == (not t5.exact)


def test_shaw_caption_counts_the_vectors_that_occur(side):
    (n, d, heads, causal, k, head), view = side
    shaw = view.panel("shaw").view
    said = fam.caption(shaw)
    assert f"2k + 1 = {2 * k + 1} learned vectors" in said
    assert f"({min(2 * k + 1, 2 * n - 1)} occur at n = {n})" in said and f"beyond ±{k} uses" in said
    assert blocks_said(shaw) == (not shaw.exact)


# conventions --------------------------------------------------------------------------------------

# (n, d, heads): the smallest and largest n and head widths from 2 to 512 columns
CONVENTIONS = [(2, 32, 16), (24, 128, 2), (37, 64, 1), (256, 512, 1), (256, 32, 8)]


@pytest.fixture(scope="module", params=CONVENTIONS, ids=lambda s: "n={}, d={}, heads={}".format(*s))
def conventions(request):
    return request.param, fam.conventions(*request.param)


def test_every_width_on_the_page_has_even_heads_and_odd_ones_are_named():
    widths = [(int(d), int(h)) for d in fam.WIDTH.options for h in fam.HEADS.options]
    assert all(fam.head_width_is_even(d, h) for d, h in widths)
    assert not fam.head_width_is_even(48, 16) and fam.head_width_is_even(48, 8)


def test_permutation_sentence_shows_the_permutation_that_turns_adjacent_pairs_into_halves(conventions):
    (n, d, heads), view = conventions
    head_dim = d // heads
    perm = list(range(0, head_dim, 2)) + list(range(1, head_dim, 2))  # even columns first, then odd
    assert list(view.permutation) == perm
    x = torch.randn(3, head_dim, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(pekit.apply_rope(x)[..., perm], pekit.apply_rope(x[..., perm], pairing="halves"))
    said = fam.permutation_sentence(view)
    assert said.startswith(f"Permutation for a head of width {head_dim}: ")
    shown = said.split("[..., [")[1].split("]]")[0]
    if head_dim <= 32:
        assert shown == ", ".join(map(str, perm))
    else:
        assert shown == ", ".join(map(str, perm[:16])) + ", …, " + ", ".join(map(str, perm[-4:]))


def test_pairing_sentence_states_the_check(conventions):
    (n, d, heads), view = conventions
    check = families.rope_pairing_check(d // heads, n, seed=0)
    said = fam.pairing_sentence(view)
    assert f"at {n} positions" in said and f"up to {check.largest_score:.3g} in size" in said
    assert f"agree to {check.score_difference:.1e}: only rounding" in said
    assert check.score_difference <= 1e-9 * max(1.0, check.largest_score)
    assert f"disagree by {check.mismatched_score_difference:.3g}:" in said
    if d // heads > 2:  # one pair: adjacent pairs and halves are the same columns
        assert check.mismatched_score_difference > 1e3 * check.score_difference


def test_slope_sentences_state_the_tables(conventions):
    _, view = conventions
    eight = list(view.slopes8["slope"])
    assert eight == [2.0 ** -i for i in range(1, 9)]
    assert all(b / a == 0.5 for a, b in zip(eight, eight[1:]))  # halving from head to head
    assert fam.slopes8_sentence(view) == f"8 heads: slopes from {eight[0]:g} down to {eight[-1]:g}, halving from head to head."
    four = list(view.slopes4["slope"])
    assert list(view.slopes6["slope"]) == four + [eight[0], eight[2]]  # then heads 1 and 3 of 8
    assert f"the 4 slopes of 4 heads ({', '.join(f'{x:g}' for x in four)})" in fam.slopes6_sentence(view)


def test_bias_sentence_states_head_1_of_8_and_the_positions_drawn(conventions):
    (n, *_), view = conventions
    said = fam.bias_sentence(view)
    assert said.endswith(f"Head 1 of 8 (m = {2.0 ** -1:g}), {min(n, 12)} positions:")


def test_t5_sentence_states_where_buckets_are_exact_and_where_they_stop(conventions):
    _, view = conventions
    t5 = view.t5
    offsets, both, causal = t5.offsets.tolist(), t5.bidirectional.tolist(), t5.causal.tolist()
    before = {-o: b for o, b in zip(offsets, both) if o <= 0}  # distance -> bucket, keys before the query
    exact = sorted(d for d in before if list(before.values()).count(before[d]) == 1)
    said = fam.t5_sentence(view)
    assert f"distances 0 to {max(exact)} get a bucket each" in said and exact == list(range(max(exact) + 1))
    assert len({before[d] for d in before if d > max(exact)}) < len([d for d in before if d > max(exact)])
    causal_before = {-o: b for o, b in zip(offsets, causal) if o <= 0}
    assert set(causal_before.values()) == set(range(32)) and "all 32 buckets for keys at or before" in said
    causal_exact = sorted(d for d in causal_before if list(causal_before.values()).count(causal_before[d]) == 1)
    assert f"{len(causal_exact)} exact distances" in said and causal_exact == list(range(len(causal_exact)))
    assert all(b == 0 for o, b in zip(offsets, causal) if o > 0) and "falls in bucket 0" in said
    assert f"max_distance = {t5.max_distance}" in said and f"From ±{t5.max_distance} on" in said
    assert len({b for o, b in zip(offsets, both) if o >= t5.max_distance}) == 1
    assert len({b for o, b in zip(offsets, both) if o <= -t5.max_distance}) == 1
    assert len({b for o, b in zip(offsets, causal) if o <= -t5.max_distance}) == 1


def test_layouts_sentence_states_the_slowest_pairs_and_the_gap(conventions):
    (n, d, heads), view = conventions
    half = d // 2
    said = fam.layouts_sentence(view)
    assert f"At d = {d} the slowest pair has ω = {1e4 ** -1:.4g} in tensor2tensor" in said
    assert f"against {1e4 ** (-2 * (half - 1) / d):.4g} in the book" in said
    inter = pekit.sinusoidal_encoding(n, d, dtype=torch.float64)
    t2t = pekit.sinusoidal_encoding(n, d, layout="tensor2tensor", dtype=torch.float64)
    gap = float((torch.cat([inter[:, 0::2], inter[:, 1::2]], dim=1) - t2t).abs().max())
    assert f"the two tables at {n} positions differ by up to {view.largest_gap:.3g}." in said
    assert view.largest_gap == pytest.approx(gap, abs=1e-5)


# past the training length ------------------------------------------------------------------------

WIDTHS = [(int(d), int(h)) for d in fam.WIDTH.options for h in fam.HEADS.options]


@st.composite
def beyond_settings(draw):
    """(p, train, d, heads, k) over the page's range; p = 16384 is left out: pekit's
    beyond_training stops at 16,384 keys, one short of it (the page shows that error there)."""
    train = draw(st.integers(fam.TRAIN.minimum, fam.TRAIN.maximum))
    p = draw(st.integers(fam.POSITION.minimum, min(fam.offset_limit(train), fam.POSITION.maximum - 1)))
    d, heads = draw(st.sampled_from(WIDTHS))
    return p, train, d, heads, draw(st.integers(fam.SHAW_K.minimum, fam.SHAW_K.maximum))


def test_the_offset_reaches_sixteen_training_lengths_within_its_range():
    assert [fam.offset_limit(t) for t in (2, 64, 1023, 1024, 1025)] == [32, 1024, 16368, 16384, 16384]
    assert fam.offset_limit(fam.TRAIN.maximum) == fam.POSITION.maximum


@settings(max_examples=60, deadline=None)
@given(beyond_settings())
def test_past_the_training_length_sentences_state_each_schemes_numbers(setting):
    p, train, d, heads, k = setting
    view = fam.beyond(*setting)
    inside = p < train

    assert fam.offset_heading(view) == (f"**At offset p = {p:,}, after training on L = {train:,} positions**"
                                        + (" (inside the training length: nothing here is new)" if inside else "") + ":")
    assert fam.learned_line(view) == (f"**Learned**: row {p} exists." if inside
                                      else f"**Learned**: no row: the table stops at row {train - 1}.")

    table = pekit.sinusoidal_encoding(train, d, dtype=torch.float64)
    row = pekit.sinusoidal_encoding(1, d, start=p, dtype=torch.float64)
    nearest, step = float((table - row).norm(dim=1).min()), float((table[1] - table[0]).norm())
    said = fam.sinusoidal_line(view)
    assert view.b.sinusoidal_nearest == pytest.approx(nearest, abs=1e-9)
    assert f"is {view.b.sinusoidal_nearest:.3g} away" in said
    assert f"neighbouring rows are {step:.3g} apart" in said

    bits_p, bits_train = max(1, p.bit_length()), max(1, (train - 1).bit_length())
    said = fam.binary_line(view)
    assert f"position {p:,} needs {bits_p} bit{'' if bits_p == 1 else 's'}; training used {bits_train}" in said
    assert said.endswith(", so a bit that was never set turns on.") == (bits_p > bits_train)

    head_dim = d // heads
    omega = [10000.0 ** (-2 * j / head_dim) for j in range(head_dim // 2)]
    full = [j for j, w in enumerate(omega) if (train - 1) * w >= 2 * math.pi]
    new = [j for j in range(len(omega)) if j not in full and not inside]
    said = fam.rope_line(view)
    assert said.startswith(f"**RoPE**: {len(full)} of the {len(omega)} pairs of a head turned a full circle")
    if new:
        assert new == list(range(new[0], new[-1] + 1))  # the slow pairs, one run of them
        assert f"the other {len(new)} (pairs {new[0]} to {new[-1]}) now turn by angles never seen" in said
    else:
        assert said.endswith("no pair meets an angle it never saw.")

    b = view.b  # ALiBi's bias at p and at L − 1, for the first and the last head: −m·distance
    slopes = [2.0 ** (-8 * h / heads) for h in (1, heads)]
    assert [b.alibi_bias[0], b.alibi_bias[-1]] == pytest.approx([-m * p for m in slopes], rel=1e-12)
    assert [b.alibi_bias_seen[0], b.alibi_bias_seen[-1]] == pytest.approx([-m * (train - 1) for m in slopes],
                                                                          rel=1e-12, abs=1e-300)
    said = fam.alibi_line(view)
    assert f"{b.alibi_bias[0]:,.4g} (head 1) to {b.alibi_bias[-1]:,.4g} (head {heads})" in said
    assert f"L − 1 = {train - 1}, it was {b.alibi_bias_seen[0]:,.4g} to {b.alibi_bias_seen[-1]:,.4g}." in said

    distance = pekit.t5_relative_buckets(1, max(train, p + 1))[0].flip(0).tolist()  # bucket of each distance
    bucket, seen = distance[p], set(distance[:train])
    said = fam.t5_line(view)
    assert f"distance {p:,} falls in bucket {bucket}, " in said and f"(they reach {len(seen)} buckets)" in said
    assert ("one trained on" in said) == (bucket in seen) and ("**never trained**" in said) == (bucket not in seen)

    said = fam.shaw_line(view)
    assert said.startswith(f"**Shaw**: offset {p:,} uses vector {min(p, k) + k} of 0 to {2 * k}")
    assert said.endswith(f", clipped to the edge vector of ±{k}." if p > k else f"of 0 to {2 * k}.")


@pytest.mark.parametrize("kind", fam.KIND.options)
def test_shipped_sentence_states_the_training_length_and_the_longest_test(kind):
    view = fam.shipped_extrapolation(kind)
    records = shipped.recorded_metrics()
    lengths = [e["seq_len"] for name, r in records.items() if name.startswith(f"{kind}-") for e in r["extrapolation"]]
    said = fam.shipped_sentence(view)
    assert said.startswith(f"The tiny {kind}s shipped with pekit (reversal, trained on {shipped.DEFAULTS['seq_len']} "
                           f"tokens), tested on lengths up to {max(lengths)}:")


def test_server_runs_sentence_counts_the_trainings_finished_here():
    from lab.views.train import Run

    job_board.clear()
    assert fam.server_runs() == (0, None)
    assert fam.server_runs_sentence(fam.server_runs()).startswith("No training has finished on this server yet")
    rows = [{"seq_len": 8, "token_accuracy": 1.0}, {"seq_len": 16, "token_accuracy": 0.5}]
    board = job_board()
    for positions in ("rope", "alibi"):
        job = board.submit(Run("reverse", "encoder", 8, 64, 2, 4, 10, 0).key(positions), positions,
                           lambda job: {"extrapolation": rows})
        while not job.over:
            time.sleep(0.01)
    board.submit(("another page's job",), "other", lambda job: {"extrapolation": rows})
    view = fam.server_runs()
    assert view.count == 2 and view.spec is not None
    assert fam.server_runs_sentence(view) == "2 training(s) finished on this server's **Train it yourself** page."
    job_board.clear()


# context extension -------------------------------------------------------------------------------


@st.composite
def extension_settings(draw):
    """(head width, base, s, L₀) over the page's range: s from 1 to 64 in the slider's steps of 0.5."""
    factor = fam.FACTOR.minimum + 0.5 * draw(st.integers(0, int((fam.FACTOR.maximum - fam.FACTOR.minimum) / 0.5)))
    return (int(draw(st.sampled_from(fam.HEAD_DIM.options))), float(draw(st.sampled_from(fam.THETA.options))),
            factor, int(draw(st.sampled_from(fam.ORIGINAL.options))))


@settings(max_examples=40, deadline=None)
@given(extension_settings())
@pytest.mark.filterwarnings("ignore")
def test_context_extension_sentences_state_each_rules_numbers(setting):
    hd, base, s, original = setting
    view = fam.extension(*setting)
    target = round(s * original)
    assert view.seq_len == target
    assert fam.extension_caption(view) == (
        f"Head width {hd} ({hd // 2} pairs), base {base:g}, trained on L₀ = {original:,}, scale s = {s:g} (target "
        f"length s·L₀ = {target:,}), computed as Hugging Face's `modeling_rope_utils.py` does.")

    plain = pekit.rope_frequencies(hd, base=base)
    linear = pekit.rope_frequencies(hd, base=base, scaling="linear", factor=s) / plain
    assert linear.tolist() == pytest.approx([1 / s] * (hd // 2))
    assert fam.linear_line(view).endswith(f"slows every pair by s: ratio {view.linear_ratio:.4g} for all.")
    assert view.linear_ratio == pytest.approx(1 / s)

    ntk_base = base * s ** (hd / (hd - 2))
    ntk = pekit.rope_frequencies(hd, base=base, scaling="ntk", factor=s) / plain
    said = fam.ntk_line(view)
    assert view.ntk.base == pytest.approx(ntk_base) and f"b' = {view.ntk.base:,.6g}:" in said
    assert float(ntk[0]) == 1.0 and f"keeps its speed (ratio {1.0:.4g})" in said
    assert 1 / float(ntk[-1]) == pytest.approx(s) and said.endswith(f"the slowest is slowed by {1 / view.ntk_last_ratio:.4g}.")
    assert 1 / view.ntk_last_ratio == pytest.approx(s)

    scale = s * target / original - (s - 1)  # s' at L = s·L₀
    said = fam.dynamic_line(view)
    assert view.dynamic.scale == pytest.approx(scale) and f"its scale is s' = {view.dynamic.scale:.6g}" in said
    assert view.dynamic.base == pytest.approx(base * scale ** (hd / (hd - 2)))
    assert said.endswith(f"base {view.dynamic.base:,.6g}.") and f"at L = s·L₀ = {target:,}" in said

    low = max(math.floor(hd * math.log(original / (32 * 2 * math.pi)) / (2 * math.log(base))), 0)
    high = min(math.ceil(hd * math.log(original / (2 * math.pi)) / (2 * math.log(base))), hd - 1)
    yarn = (pekit.rope_frequencies(hd, base=base, scaling="yarn", factor=s, original_max_len=original) / plain).tolist()
    said = fam.yarn_line(view)
    assert f"pairs 0 to {low} keep their frequency" in said
    assert yarn[: low + 1] == pytest.approx([1.0] * (low + 1))
    if high < hd // 2:
        assert f"pairs from {high} on are divided by s, a linear ramp in between" in said
        assert yarn[high:] == pytest.approx([1 / s] * (hd // 2 - high))
    else:
        assert "the ramp to full interpolation runs past the last pair" in said
        assert s == 1 or yarn[-1] > 1 / s * (1 + 1e-9)  # the last pair is not fully interpolated
    factor = 0.1 * math.log(s) + 1 if s > 1 else 1.0
    assert view.yarn.attention_factor == pytest.approx(factor)
    assert said.endswith(f"0.1·ln s + 1 = {view.yarn.attention_factor:.4g}.")


def test_runs_that_share_a_label_are_each_drawn_under_a_number():
    rows = ({"seq_len": 8, "token_accuracy": 1.0}, {"seq_len": 16, "token_accuracy": 0.5})
    runs = [fam.ExtrapolationRun("reverse, encoder, L = 8, d = 64, rope", "rope", rows) for _ in range(3)]
    spec = fam.extrapolation_chart(runs)
    tables = [*spec.get("datasets", {}).values(), spec.get("data", {}).get("values", [])]
    drawn = {row["run"] for data in tables for row in data if "run" in row}
    assert drawn == {"reverse, encoder, L = 8, d = 64, rope", "reverse, encoder, L = 8, d = 64, rope (2)",
                     "reverse, encoder, L = 8, d = 64, rope (3)"}
