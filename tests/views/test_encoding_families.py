"""The encoding families page's sentences state the numbers of the views they are written from:
each record is built by the real (cached) view over the page's range of settings, and each
sentence is checked against numbers computed here from pekit."""

import pytest

import pekit
from lab.views import encoding_families as fam
from pekit import families

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
    assert fam.caption(binary).startswith(f"Positions 0 to {n - 1} in {max(1, (n - 1).bit_length())} bits,")
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
        assert f"Keys after the query are masked ({'grey' if alibi.image else 'blank'})." in said
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
