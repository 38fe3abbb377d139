"""Checks for understanding: every page has at least two questions; each question's right answer is
the one an independent closed form or naive loop gives; every explanation states the numbers it
is computed from, over the whole range of its arguments."""

from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.registry import LAB_PAGES, OPTIONAL_PAGES
from lab.rooms import _NAME
from lab.views import questions as q
from lab.views.questions import binary_analogy as binary_q
from lab.views.questions import complexity_comparison as complexity_q
from lab.views.questions import encoding_families as families_q
from lab.views.questions import encoding_heatmap as heatmap_q
from lab.views.questions import fixed_or_learned as learned_q
from lab.views.questions import live_attention as live_q
from lab.views.questions import offset_rotation as rotation_q
from lab.views.questions import rope_in_a_real_model as rope_q
from lab.views.questions import train as train_q
from pekit.seeded import seeded_query_key
from lab.views import live_attention as live
from lab.views import live_order

EXAMPLES = settings(max_examples=25, deadline=None)
MISSING = pekit.smollm2_missing()
NUMBER = re.compile(r"−?\d[\d,]*(?:\.\d+)?(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?")


def numbers_in(text: str) -> list[str]:
    return NUMBER.findall(text)


def shown(value: float, spec: str) -> str:
    """A number as the explanation writes it (English)."""
    from lab.display import number

    return number(value, spec)


# -- the set of questions ------------------------------------------------------------------------

def test_every_page_has_at_least_two_questions():
    for page in LAB_PAGES + OPTIONAL_PAGES:
        assert len(q.of_page(page.url_path)) >= 2, page.url_path
    assert {check.page for check in tuple(q.page_checks().values())} == {page.url_path for page in LAB_PAGES + OPTIONAL_PAGES}


def test_questions_are_well_formed():
    assert len(q.page_checks()) == len(tuple(q.page_checks().values()))
    for check in tuple(q.page_checks().values()):
        assert _NAME.fullmatch(check.id) and _NAME.fullmatch(check.page)
        assert 2 <= len(check.options) <= 4 and len(set(check.options)) == len(check.options)
        assert check.prompt.endswith("?")
        assert all(_NAME.fullmatch(name) and isinstance(value, str) for name, value in check.settings.items())
        assert check.choice(str(len(check.options) - 1)) == len(check.options) - 1
        for bad in (None, "", "-1", str(len(check.options)), "1.0", "x", 3):
            assert check.choice(bad) is None


def test_question_settings_are_settings_of_their_page():
    """A question's link settings are settings its page binds to the link (declared in the page's
    script or its view module), so the picture can show the answer."""
    import pathlib

    for check in tuple(q.page_checks().values()):
        paths = (pathlib.Path("pages", f"{check.page}.py"), pathlib.Path("lab", "views", f"{check.page}.py"),
                 *sorted(pathlib.Path("lab", "views").glob(f"{check.page}_*.py")))  # and its sibling view modules
        sources = "".join(path.read_text(encoding="utf-8") for path in paths if path.exists())
        declared = set(re.findall(r'Setting\("([a-z_]+)"', sources))
        assert declared, check.page
        assert set(check.settings) <= declared, (check.id, set(check.settings) - declared)


REFERENCE = {  # each question's right option, from a closed form written out here
    "heatmap-fastest": "columns 0 and 1",  # ω₀ = 1, the largest of 1/base^(2j/d)
    "heatmap-offset": "the same",  # sin a sin b + cos a cos b = cos(a − b)
    "binary-flip": "every 4 positions",  # 2²
    "binary-bits": str((64 - 1).bit_length()),
    "rotation-shift": "it turns by an angle that depends on δ alone",
    "rotation-rope": "s again",
    "complexity-path": str(math.ceil((16 - 1) / (3 - 1))),
    "complexity-double": f"{(2000 ** 2 * 256) // (1000 ** 2 * 256)} times",
    "attention-permute": "they move with the tokens; nothing else changes",
    "attention-empty": "all zeros",
    "train-none": "almost none (under 5 %)",
    "train-map": "an anti-diagonal: output i reads input n − 1 − i",
    "families-alibi": "1/2",  # 2^(−8/8)
    "families-linear": "4 times smaller",
    "learned-params": f"{512 * 384:,}",
    "learned-near": "yes: overall, similarity falls with the distance",
    "rope-kv": "3",
    "rope-shift": "nothing, up to float rounding",
}


@pytest.mark.parametrize("check", tuple(q.page_checks().values()), ids=lambda c: c.id)
def test_right_answer_matches_an_independent_reference(check):
    if check.page == "rope_in_a_real_model" and MISSING:
        pytest.skip(str(MISSING))
    solved = check.solve()
    assert 0 <= solved.correct < len(check.options)
    assert check.options[solved.correct] == REFERENCE[check.id]
    assert q.correct(check) == solved.correct
    assert solved.explanation and "{" not in solved.explanation


# -- the explanations, over their arguments' ranges ---------------------------------------------

EVEN_D = st.integers(1, 512).map(lambda h: 2 * h)


@EXAMPLES
@given(st.integers(2, 4096), EVEN_D)
@example(60, 32)
@example(2, 2)
def test_pair_speeds_and_sentence(n, d):
    speeds = heatmap_q.pair_speeds(n, d)
    for j in (0, d // 2 - 1):
        omega = 1 / 10000 ** (2 * j / d)
        assert speeds.angles[j] == pytest.approx(omega, rel=1e-12)
        naive = sum(abs(math.sin((i + 1) * omega) - math.sin(i * omega)) + abs(math.cos((i + 1) * omega) - math.cos(i * omega))
                    for i in range(n - 1)) / (2 * (n - 1))
        assert speeds.steps[j] == pytest.approx(naive, rel=1e-9, abs=1e-12)
    text = heatmap_q.fastest_sentence(speeds)
    assert text.claim("first pair's mean change per step").value == speeds.steps[0]
    assert text.claim("last pair's wavelength").value == pytest.approx(2 * math.pi * 10000 ** ((d - 2) / d), rel=1e-9)
    assert text.claim("last pair's columns").value == (d - 2, d - 1) and text.claim("positions").value == n
    assert text.claim("last pair's frequency").value == pytest.approx(10000 ** (-(d - 2) / d), rel=1e-12)
    assert text.holds()  # "falls" read from every pair's frequency, the fastest against the other options
    if d > 2:
        assert text.claim("frequency of each pair, first to last").reference.value == pytest.approx(
            [10000 ** (-2 * j / d) for j in range(d // 2)], rel=1e-12)
    answer = heatmap_q.fastest_answer(speeds)
    pairs = heatmap_q._heatmap_pairs(d)
    if len({speeds.steps[p] for p in pairs}) > 1:
        assert speeds.steps[pairs[answer]] == max(speeds.steps[p] for p in pairs)


@EXAMPLES
@given(EVEN_D, st.integers(0, 64), st.integers(0, 500), st.integers(0, 500))
def test_offset_dots_depend_on_the_offset_only(d, offset, first, second):
    dots = heatmap_q.offset_dots(d, offset, first, second)
    closed = sum(math.cos(offset / 10000 ** (2 * j / d)) for j in range(d // 2))
    assert dots.near == pytest.approx(closed, abs=1e-9) and dots.far == pytest.approx(closed, abs=1e-9)
    assert heatmap_q.offset_answer(dots) == 2
    text = heatmap_q.offset_sentence(dots)
    assert text.claim("near dot product").value == pytest.approx(closed, abs=1e-9)
    assert text.claim("far dot product").value == pytest.approx(closed, abs=1e-9)
    assert [text.claim(w).value for w in ("first start", "second start", "offset")] == [first, second, offset]


def test_odd_width_refused_for_offset_dots():
    with pytest.raises(ValueError, match="d must be even"):
        heatmap_q.offset_dots(7, 1, 0, 2)


@EXAMPLES
@given(st.integers(0, 15), st.integers(2, 1024))
@example(2, 64)
@example(10, 64)
def test_bit_flips(bit, n):
    flips = binary_q.bit_flips(bit, n)
    naive = [i for i in range(1, n) if (i >> bit) & 1 != ((i - 1) >> bit) & 1]
    assert list(flips.flips) == naive
    text = binary_q.flip_sentence(flips)
    assert text.holds()
    if naive:
        assert flips.spacing == 2 ** bit
        assert text.claim("place value").value == 2 ** bit and text.claim("changes shown").value == tuple(naive[:6])
        assert "because" not in text  # the spacing is stated, not explained by a cause
        if bit:  # half as often: the previous bit's changes, counted by a loop, are twice as close
            previous = [i for i in range(1, n) if (i >> (bit - 1)) & 1 != ((i - 1) >> (bit - 1)) & 1]
            assert text.claim("spacing of the changes").reference.value == 2 * (previous[1] - previous[0]
                                                                                if len(previous) > 1 else previous[0])
    else:
        assert text.claim("first change").value == 2 ** bit >= n and text.claim("last position").value == n - 1
    assert binary_q.flip_answer(flips) == (binary_q.FLIP_OPTIONS.index(flips.spacing) if flips.spacing in binary_q.FLIP_OPTIONS else -1)


@EXAMPLES
@given(st.integers(2, 100_000))
@example(64)
@example(65)
@example(2)
def test_bits_sentence(n):
    bits = binary_q.bits_needed(n)
    assert bits == (n - 1).bit_length()
    text = binary_q.bits_sentence(n, bits)
    assert text.claim("bits").value == bits and text.claim("largest count").value == 2 ** bits - 1
    assert text.claim("positions").value == n and text.claim("last position").value == n - 1
    assert (" bits count from 0 to " in text) == (bits > 1)
    assert 2 ** bits >= n and (bits == 1 or 2 ** (bits - 1) < n)
    if bits > 1:
        assert text.claim("largest count with one bit fewer").value == 2 ** (bits - 1) - 1
    assert text.holds() and text.claim("largest count").reference.value == n - 1


@EXAMPLES
@given(st.integers(1, 32).map(lambda h: 2 * h), st.integers(-256, 256), st.integers(0, 255))
@example(16, 3, 1)
def test_shift_turn(d, delta, pair):
    pair %= d // 2
    turn, view = rotation_q.turn_views(d, delta, pair)
    assert turn.turn.radians == pytest.approx(delta / 10000 ** (2 * pair / d), rel=1e-12)
    assert rotation_q.turn_answer(turn, view) == 0
    text = rotation_q.turn_sentence(turn, view)
    assert text.holds() and shown(turn.turn.radians, ".6g") in text and re.search(r"\(0\D+11\)", text)


def test_the_turn_questions_numbers_are_those_of_the_page_it_opens():
    """The revealed page, at the question's settings, draws the circle and the residuals whose
    numbers the explanation states (not 64 positions in float64 of its own)."""
    from lab.views import offset_rotation as page

    check = next(c for c in rotation_q.QUESTIONS if c.id == "rotation-shift")
    d, delta, pair = (int(check.settings[k]) for k in ("d", "delta", "pair"))
    circle = page.circle_text(page.pair_turn(d, 10000, delta, pair, 12, 0))  # the page's defaults else
    residuals = page.rotation_view(d, 10000, delta, 0, 12)
    text = check.solve().explanation
    angle = re.search(r"δ·ω_1 = ([\d.]+) rad", text)[1]
    assert f"δ·ω_1 = {angle} rad" in circle
    assert shown(residuals.max_residual, ".1e") in text and shown(residuals.rounding, ".1e") in text


@EXAMPLES
@given(st.integers(1, 32).map(lambda h: 2 * h), st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
@example(16, 2, 5, 100 - 40)
def test_rope_scores(d, i, j, shift):
    count = 128
    scores = rotation_q.rope_scores(d, i, j, shift, count)
    qv, kv = (v.double() for v in seeded_query_key(d, 0))

    def naive(a: int, b: int) -> float:  # rotate each adjacent pair by hand
        total = 0.0
        for p in range(d // 2):
            w = 1 / 10000 ** (2 * p / d)
            q0, q1 = qv[2 * p].item(), qv[2 * p + 1].item()
            k0, k1 = kv[2 * p].item(), kv[2 * p + 1].item()
            total += (q0 * k0 + q1 * k1) * math.cos((b - a) * w) + (q1 * k0 - q0 * k1) * math.sin((b - a) * w)
        return total

    assert scores.before == pytest.approx(naive(i, j), abs=1e-4) and scores.after == pytest.approx(naive(i, j), abs=1e-4)
    assert rotation_q.rope_answer(scores) == 0
    text = rotation_q.rope_sentence(scores)
    assert text.holds() and shown(scores.before, ".6g") in text and f"offset {j - i}".replace("-", "−") in text


def test_the_rope_questions_numbers_are_those_of_the_map_it_opens():
    """The explanation's two scores are entries of the RoPE map the revealed page draws (its q and
    k, seed 0; 128 positions, the question's setting, so 102 and 105 are on the map)."""
    from pekit import rotation

    check = next(c for c in rotation_q.QUESTIONS if c.id == "rotation-rope")
    count = int(check.settings["count"])
    q_, k_ = seeded_query_key(16, 0)
    S = rotation.rope_scores(q_, k_, count, base=10000)  # what rope_view(16, 10000, count, 0) draws
    text = check.solve().explanation
    assert shown(float(S[2, 5]), ".6g") in text and shown(float(S[102, 105]), ".6g") in text


@EXAMPLES
@given(st.integers(2, 1_000_000), st.integers(2, 15))
@example(16, 3)  # the question's: the page's path picture at k = 3, path_n = 16
def test_cnn_path(n, k):
    path = complexity_q.cnn_path(n, k)
    assert path == -(-(n - 1) // (k - 1))
    text = complexity_q.cnn_path_sentence(n, k)
    assert text.claim("CNN layers").value == path and text.claim("RNN steps").value == n - 1
    assert text.claim("reach per layer").value == k - 1 and text.claim("self-attention steps").value == 1
    assert [text.claim(w).value for w in ("tokens", "kernel")] == [n, k]
    assert f"k = {k}" in text


def test_the_path_questions_numbers_are_those_of_the_picture_it_opens():
    from lab.views.complexity_comparison import path_sentence, path_view

    check = q.find("complexity-path")
    view = path_view(int(check.settings["path_n"]), int(check.settings["k"]))  # what the revealed page draws
    text, page = check.solve().explanation, path_sentence(view)
    for what in ("CNN layers", "RNN steps", "tokens", "reach per layer", "kernel", "self-attention steps"):
        assert text.claim(what).value == page.claim(what).value, what
    assert (text.claim("CNN layers").value, text.claim("RNN steps").value) == (view.cnn_layers, view.rnn_steps)
    assert (text.claim("tokens").value, text.claim("reach per layer").value) == (view.path_n, view.widening)


@EXAMPLES
@given(st.integers(1, 500_000), st.integers(1, 4096))
@example(1000, 256)  # the question's
@example(1, 1)
def test_growth(n, d):
    assert complexity_q.growth(n, d, "Self-attention") == pytest.approx(4)
    assert complexity_q.growth(n, d, "RNN") == pytest.approx(2)
    text = complexity_q.growth_sentence(n, d)
    assert text.holds()  # 4 times the n² terms, less counted whole, 2 times an RNN
    # the counts recomputed here: the chapter's two n²·d products, the whole layer, the RNN's 2·n·d²
    whole = {m: 2 * m * m * d + 4 * m * d * d for m in (n, 2 * n)}
    assert text.claim("n² terms at n").value == 2 * n * n * d and text.claim("n² terms at 2n").value == 2 * (2 * n) ** 2 * d
    assert text.claim("self-attention at n").value == whole[n] and text.claim("self-attention at 2n").value == whole[2 * n]
    assert text.claim("RNN at n").value == 2 * n * d * d and text.claim("RNN at 2n").value == 4 * n * d * d
    claim = text.claim("growth counted whole")
    assert claim.value == pytest.approx(whole[2 * n] / whole[n], rel=1e-12) and claim.value < 4
    assert "4 times" in text and "2 times" in text


def test_the_growth_questions_numbers_are_those_of_the_page_it_opens():
    """The reveal opens the complexity page at n = 2,000, d = 256: its table's self-attention
    count and its cost sentence's counted-whole numbers are the explanation's (once, it stated
    n²·d, half the table's 2·n²·d, and 4 times for the whole layer, which grows 3.32 times)."""
    from lab.views.complexity_comparison import cost_sentence, theory_view

    check = q.find("complexity-double")
    n, d = int(check.settings["n"]), int(check.settings["d"])
    page = theory_view(n, d, 3)  # the page's default k
    text = check.solve().explanation
    chapter = page.table.set_index("layer").loc["Self-attention", "multiply_adds"]
    assert chapter in text  # the table's count at the revealed n
    sentence = cost_sentence(page)
    for layer in ("Self-attention", "RNN"):
        from lab.display import big_number

        assert big_number(page.cost(layer)) in sentence and big_number(page.cost(layer)) in text
    assert f"{page.cost('Self-attention') / theory_view(n // 2, d, 3).cost('Self-attention'):.3g} times" in text


@EXAMPLES
@given(st.sampled_from(["The animal didn't cross the street because it was too tired.", "man bites dog",
                        "a a", "the cat the cat", ". . ."]), st.integers(0, 20))
@example("The animal didn't cross the street because it was too tired.", 1)  # the question's
@example("a a", 1)  # only identical tokens swap: the map as it stands does not change either
def test_shuffled(sentence, shuffle):
    from pekit import seeded

    result = live_q.shuffled(sentence, shuffle)
    gap = result.gap
    assert gap.weights <= gap.weights_rounding < 1e-6  # without P the weights move with their tokens
    text = live_q.shuffle_sentence(result)
    assert text.holds()
    assert text.claim("weights put back against the original").reference.value == gap.weights_rounding
    tokens = live.sentence_view(sentence).tokens
    perm = seeded.permutation(len(tokens), shuffle).tolist()
    unmoved = all(tokens[p] == tokens[i] for i, p in enumerate(perm))  # the sentence shuffled is the sentence
    assert live_q.shuffle_answer(result) == (2 if unmoved else 0)
    assert text.claim("tokens").value == len(tokens) and text.claim("shuffle").value == shuffle
    assert text.claim("weights as they stand against the original").value == gap.unmoved
    # the number, or, for a shuffle that moves nothing, the case: the map as it stands is within rounding
    stands = text.claim("weights as they stand against the original").relation
    assert (shown(gap.unmoved, ".2g") in text) or (unmoved and stands == "at most")


def test_the_shuffle_questions_numbers_are_those_of_the_tab_it_opens():
    check = q.find("attention-permute")
    assert check.settings == {"view": "Order"}  # the page's defaults otherwise
    tokens = live.sentence_view(live.DEFAULT_SENTENCE).tokens
    view = live_order.order_view(tokens, live.DEFAULT_HIDDEN, live.DEFAULT_HEADS, 0, live.DEFAULT_SHUFFLE, 0)
    text = check.solve().explanation
    assert shown(view.without.weights, ".1e") in text and shown(view.without.unmoved, ".2g") in text
    assert f"({len(tokens)} tokens)" in text and check.solve().correct == 0


@EXAMPLES
@given(st.sampled_from(["The animal didn't cross the street because it was too tired.", "x", "a b c d e f g h i"]))
def test_empty_rows(sentence):
    view = live_q.empty_view(sentence)
    row = view.zero_row
    assert row == (0.0,) * live.LAB_STEPS and live_q.empty_answer(row) == 0
    text = live_q.empty_sentence(view)
    assert text.holds() and text.claim("row").value == (0.0,) * live.LAB_STEPS and text.claim("row's total").value == 0
    assert text.claim("query").value == view.zero_rows[0]  # and the row's total, 0, above
    assert text.claim("book's weight").value == pytest.approx(1 / live.LAB_STEPS)
    assert live_q.empty_answer((float("nan"),)) == 1 and live_q.empty_answer((0.5, 0.5)) == 2 and live_q.empty_answer((1.0, 0.0)) == 3


def test_the_empty_questions_numbers_are_those_of_the_tab_it_opens():
    check = q.find("attention-empty")
    s = check.settings
    tokens = live.sentence_view(live.DEFAULT_SENTENCE).first
    view = live.masking_view(tokens, live.DEFAULT_HIDDEN, 0, s.get("len_a", "own"), s["len_b"],
                             s.get("form", "one per sequence"), s.get("show", "B"))
    assert view.zero_rows and view.zero_row == (0.0,) * live.LAB_STEPS  # the tab shows the row it explains
    text = check.solve().explanation
    assert text.claim("query").value == view.zero_rows[0] and f" {view.zero_rows[0]} " in text
    assert text.claim("book's weight").value == view.book_row[0] and f"{view.book_row[0]:.4f}" in text


@EXAMPLES
@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
@example(0.0, 0.27512499690055847, 1.0, 0.276125)  # the shipped ones
@example(0.0, 0.3, 1.0, 0.3)  # at the line: at most
def test_share_sentence(none, tokens, sinusoidal, guess):
    text = train_q.share_sentence(train_q.Shipped(none, tokens, sinusoidal, guess))
    for value in (none, tokens, sinusoidal, guess):
        assert shown(100 * value, ".3g") in text
    assert text.holds()
    assert text.claim("tokens right without positions").relation == ("above" if tokens > guess else "at most")
    answer = train_q.share_answer(none)
    assert answer == (0 if none > 0.9 else 2 if none < 0.05 else 1 if 0.25 <= none <= 0.75 else -1)


@EXAMPLES
@given(st.integers(1, 3), st.integers(1, 4), st.integers(2, 10), st.integers(0, 1000))
def test_pattern(layers, heads, T, seed):
    weights = torch.randn(layers, heads, T, T, generator=torch.Generator().manual_seed(seed)).mul(3).softmax(-1)
    p = train_q.pattern(weights)
    # each pattern's share per head, by loops over the map: the anti-diagonal, the diagonal, the first key
    per_head = {name: [(sum(weights[l, h, i, key(i)].item() for i in range(T)) / T, l, h)
                       for l in range(layers) for h in range(heads)]
                for name, key in (("anti", lambda i: T - 1 - i), ("diagonal", lambda i: i), ("first", lambda i: 0))}
    best_anti = max(per_head["anti"])
    assert p.anti[2] == pytest.approx(best_anti[0], abs=1e-6)
    text = train_q.pattern_sentence(p)
    assert text.claim("anti-diagonal share").value == pytest.approx(best_anti[0], abs=1e-6)
    runner_up = sorted(share for share, _l, _h in per_head["anti"])[-2] if layers * heads > 1 else -math.inf
    if runner_up < best_anti[0] - 1e-6:  # one head puts the most there: the sentence names it
        assert (text.claim("layer").value, text.claim("head").value) == (best_anti[1] + 1, best_anti[2] + 1)
    for name, what in (("diagonal", "largest diagonal share"), ("first", "largest first-key share")):
        assert text.claim(what).value == pytest.approx(max(per_head[name])[0], abs=1e-6)
    assert text.claim("even share").value == pytest.approx(1 / T, abs=1e-15)
    for claim in text.claims:  # each written: the shares as percents to three digits, the head and layer as counted
        written = shown(100 * claim.value, ".3g") if "share" in claim.what else str(claim.value)
        assert written in text, (claim, text)
    anti = torch.zeros(1, 1, T, T)
    anti[0, 0, torch.arange(T), T - 1 - torch.arange(T)] = 1
    assert train_q.pattern_answer(train_q.pattern(anti)) == 0
    assert train_q.pattern_answer(train_q.pattern(torch.full((1, 1, T, T), 1 / T))) == 3
    assert train_q.pattern_answer(train_q.pattern(torch.eye(T)[None, None])) == 1
    first = torch.zeros(1, 1, T, T)
    first[..., 0] = 1
    assert train_q.pattern_answer(train_q.pattern(first)) == (2 if T > 2 else train_q.pattern_answer(train_q.pattern(first)))


@EXAMPLES
@given(st.integers(1, 64))
@example(1)
@example(3)  # not a power of two: the last head is not the gentlest, the third the steepest
@example(8)  # the question's
def test_slopes_sentence(heads):
    from tests.views.families_helpers import get_slopes  # ALiBi's get_slopes, written out

    slopes = pekit.alibi_slopes(heads).tolist()
    text = families_q.slopes_sentence(heads)
    assert text.holds() and text.claim("heads").value == heads
    assert text.claim("slopes").value == pytest.approx(get_slopes(heads), rel=1e-6)
    assert f"alibi_slopes({heads})" in text and all(shown(s, ".4g") in text for s in slopes)
    if heads > 1:  # the steepest and the gentlest head, by the authors' slopes
        reference = get_slopes(heads)
        steep, gentle = reference.index(max(reference)), reference.index(min(reference))
        assert text.claim("steepest head").value == steep + 1 and text.claim("gentlest head").value == gentle + 1
        assert text.claim("largest slope").value == pytest.approx(reference[steep], rel=1e-6)
        assert text.claim("smallest slope").value == pytest.approx(reference[gentle], rel=1e-6)
        assert f"head {steep + 1} takes {shown(slopes[steep], '.4g')}" in text
        assert f"head {gentle + 1} only {shown(slopes[gentle], '.4g')}" in text
    if heads & (heads - 1) == 0:
        assert slopes[0] == pytest.approx(2 ** (-8 / heads))


@EXAMPLES
@given(st.integers(2, 128).map(lambda h: 2 * h), st.floats(1.0, 64.0))
@example(128, 4.0)  # the question's
def test_linear_sentence(dim, factor):
    assert families_q.linear_ratio(dim, factor) == pytest.approx(1 / factor, rel=1e-6)
    text = families_q.linear_sentence(dim, factor)
    assert text.holds()  # every pair's angle, scaled ÷ plain, is 1 / factor
    assert text.claim("dim").value == dim and text.claim("factor").value == factor
    plain = [10000.0 ** (-2 * j / dim) for j in range(dim // 2)]
    assert text.claim("first pair's angle per position, plain").value == pytest.approx(plain[0]) == 1.0
    assert text.claim("first pair's angle per position, scaled").value == pytest.approx(1 / factor, rel=1e-12)
    for end in ("smallest", "largest"):
        claim = text.claim(f"{end} ratio scaled ÷ plain")
        assert claim.value == pytest.approx(1 / factor, rel=1e-12) and claim.reference.value == pytest.approx(1 / factor)
    assert shown(1 / factor, ".4g") in text and f"by {shown(factor, 'g')}" in text


@EXAMPLES
@given(st.integers(1, 4096), st.integers(1, 4096))
def test_parameters_sentence(rows, width):
    text = learned_q.parameters_sentence(rows, width)
    assert f"{rows} rows of {width} numbers: {rows * width:,} numbers" in text
    assert text.holds() and text.claim("numbers learned").reference.value == rows * width
    assert not learned_q.parameters_sentence(rows, width, (rows + 1, width)).holds()  # "the same shape": measured
    assert learned_q.parameters_answer(rows * width) == (learned_q.PARAMETER_OPTIONS.index(rows * width)
                                                 if rows * width in learned_q.PARAMETER_OPTIONS else -1)


@EXAMPLES
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=40), st.data())
@example([0.9, 0.5, 0.6, 0.1], None).via("falls overall, with a rise")
@example([0.9, 0.5, 0.3, 0.1], None).via("falls at every step")
@example([0.5, 0.5], None).via("flat: a tie")
def test_near_sentence(series, data):
    """The trend words of the explanation are the whole series' (the chart's every δ), not the
    three offsets' it quotes: a series with rises on the way is said to fall only overall."""
    series = tuple(series)
    n = len(series)
    offsets = (1, max(1, n // 2), n) if data is None else tuple(sorted(set(data.draw(
        st.lists(st.integers(1, n), min_size=2, max_size=3)))))
    similarities = tuple(series[o - 1] for o in offsets)
    text = learned_q.near_sentence(offsets, similarities, series)
    assert text.holds()
    for o, s in zip(offsets, similarities):
        assert f"{shown(s, '.2f')} at δ = {o}" in text
    steps = [b - a for a, b in zip(series, series[1:])]
    rises = sum(step > 0 for step in steps)
    if steps and all(step <= 0 for step in steps) and series[-1] < series[0]:
        assert text.claim("mean similarity by δ").relation == "falls"
    elif rises and any(step < 0 for step in steps):
        assert f" {rises} " in text
        assert text.claim("mean similarity by δ").relation == "not monotone"
    else:
        assert "mean similarity by δ" not in [c.what for c in text.claims]
    falls = similarities[0] - similarities[-1] > 0.1
    assert (learned_q.near_answer(similarities) == 0) == falls


def test_the_learned_pages_questions_state_the_revealed_pages_numbers():
    """Each explanation's numbers are those of the page at the question's settings: the table it
    draws (its shape, and the sinusoidal beside it) and the similarities its chart draws."""
    from lab.views import fixed_or_learned as page

    checks = {c.id: c for c in learned_q.QUESTIONS}
    learned, sinusoidal = page.position_tables()
    rows, width = learned.shape
    said = checks["learned-params"].solve().explanation
    assert said.holds() and f"{rows} rows of {width} numbers: {rows * width:,} numbers" in said
    assert tuple(sinusoidal.shape) == (rows, width)
    near = checks["learned-near"]
    offset = int(near.settings["offset"])
    assert offset >= max(learned_q.NEAR_OFFSETS)  # the revealed chart reaches every δ the explanation quotes
    view = page.offsets_view(offset)  # what the page draws at the question's settings
    said = near.solve().explanation
    assert said.holds()
    for d in learned_q.NEAR_OFFSETS:
        assert f"{shown(view.learned.similarity_at(d), '.2f')} at δ = {d}" in said
    drawn = tuple(view.learned.similarity_at(d) for d in range(1, offset + 1))
    assert said.claim("mean similarity by δ").value == drawn
    assert said.claim("mean similarity by δ").relation == "not monotone"  # MiniLM's: falls overall, with rises


def test_the_families_pages_questions_state_the_revealed_pages_numbers():
    """ALiBi's slopes as the page's side-by-side panel and conventions table show them at 8 heads;
    linear interpolation's ratio and frequencies as the context extension section draws them at s = 4."""
    from lab.views import encoding_families as fam
    from lab.views import families_conventions as conv
    from lab.views import families_extension as ext

    checks = {c.id: c for c in families_q.QUESTIONS}
    alibi = checks["families-alibi"]
    heads = int(alibi.settings["heads"])
    said = alibi.solve().explanation
    panel = fam.side_by_side(fam.N.default, int(fam.WIDTH.default), heads, False, fam.SHAW_K.default, 1).panel("alibi")
    table = conv.conventions(fam.N.default, int(fam.WIDTH.default), heads).slopes8["slope"].tolist()
    assert panel.view.slope == pytest.approx(table[0]) and f"head 1 takes {shown(table[0], '.4g')} off" in said
    assert f"head {heads} only {shown(table[-1], '.4g')}" in said
    linear = checks["families-linear"]
    factor = float(linear.settings["s"])
    view = ext.extension(int(fam.HEAD_DIM.default), float(fam.THETA.default), factor, int(fam.ORIGINAL.default))
    said = linear.solve().explanation
    assert f"by {shown(factor, 'g')}" in said and view.linear_ratio == pytest.approx(1 / factor, rel=1e-6)
    plain = pekit.rope_frequencies(view.head_dim)
    assert f"turns {shown(float(plain[0]) * view.linear_ratio, '.4g')} radian per position instead of " \
           f"{shown(float(plain[0]), '.4g')}" in said
    assert int(fam.HEAD_DIM.default) == 128  # the explanation's rope_frequencies(128, ...)


@EXAMPLES
@given(st.sampled_from([(9, 3, 64), (8, 2, 32), (4, 4, 16), (12, 1, 128)]))
def test_kv_sentence(shape):
    heads, kv, dim = shape
    text = rope_q.kv_sentence(heads, kv, dim)
    assert text.holds() and "cache" not in text  # no cache is measured on the page
    assert f"{heads} query heads and {kv} key/value heads" in text and f"every {heads // kv} query heads" in text
    assert rope_q.kv_answer(kv) == (rope_q.KV_OPTIONS.index(kv) if kv in rope_q.KV_OPTIONS else -1)
    from lab.views.rope_in_a_real_model import ShiftView
    from pekit.llama import ShiftEffect

    def effect(gap, changed):
        return ShiftView(ShiftEffect(1000, 22, gap, 31.8, 2.7e-6, changed, torch.zeros(30)), 3.8e-5, 2.4e-6)
    # the page's own reading: within ten times the rounding-only control (3.8 × 10⁻⁴ here), no prediction changed
    assert rope_q.real_shift_answer(effect(1e-4, 0)) == 0 and rope_q.real_shift_answer(effect(2e-3, 0)) == 1
    assert rope_q.real_shift_answer(effect(0.0, 1)) == 1


@pytest.mark.skipif(MISSING is not None, reason=str(MISSING))
def test_the_real_model_questions_numbers_are_those_of_the_page_they_open():
    """The kv explanation states the three numbers of the model statement its reveal opens; the
    shift explanation is the shift statement the page writes at the question's shift."""
    from lab.views import rope_in_a_real_model as page

    kv, shift = (next(c for c in rope_q.QUESTIONS if c.id == qid) for qid in ("rope-kv", "rope-shift"))
    c = page.shared_model().config
    statement = page.model_statement(c)
    text = kv.solve().explanation
    assert f"{c.num_heads} query heads sharing {c.num_kv_heads} key/value heads of {c.head_dim} dimensions" in statement
    assert f"{c.num_heads} query heads and {c.num_kv_heads} key/value heads" in text and f"{c.head_dim} numbers" in text
    c_shift = int(shift.settings["shift"])
    assert shift.solve().explanation == page.shift_statement(page.shift_view(page.DEFAULT_TEXT, c_shift))


@pytest.mark.parametrize("page", q.PAGES)
def test_each_page_hands_its_own_questions_to_the_skeleton(page):
    """The skeleton knows no page: a page's questions reach ``lab_page`` as its argument, from the
    page's own module of this package."""
    import ast
    from pathlib import Path

    tree = ast.parse((Path(__file__).resolve().parents[2] / "pages" / f"{page}.py").read_text(encoding="utf-8"))
    alias = next(a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and node.module == "lab.views.questions" for a in node.names if a.name == page)
    handed = [ast.unparse(k.value) for node in ast.walk(tree) if isinstance(node, ast.Call)
              and getattr(node.func, "id", None) == "lab_page" for k in node.keywords if k.arg == "questions"]
    assert handed == [f"{alias}.QUESTIONS"]
    assert all(check.page == page for check in q.of_page(page))


# -- the training page: the revealed page's own numbers --------------------------------------------


def _percents(text: str) -> list[float]:
    return [float(v.replace(",", "")) for v in re.findall(r"([\d.,]+) %", text)]


def test_the_share_question_states_the_numbers_of_the_page_it_reveals():
    """train-none reveals the training page at its defaults: the table's sequences right (none,
    sinusoidal), the tokens right without positions and the bars' dashed line are the numbers the
    explanation states (each as the page rounds it, within the explanation's three digits)."""
    from lab.views.train import results_view, trainings
    from pekit.positions import SCHEMES
    from tests.views.train_common import shipped_run

    check = q.find("train-none")
    assert not check.settings  # the page at its defaults
    run = shipped_run("encoder")
    view = results_view(run, trainings(run, list(SCHEMES)).where)
    table = view.table.set_index("scheme")
    none_seq, none_tok, guess, sin_seq = _percents(check.solve().explanation)[:4]  # in the order it says them
    assert abs(float(table.loc["none", "sequences right"][:-1]) - none_seq) <= 0.05 + 1e-9
    assert abs(float(table.loc["none", "tokens right"][:-1]) - none_tok) <= 0.05 + 1e-9
    assert abs(float(table.loc["sinusoidal", "sequences right"][:-1]) - sin_seq) <= 0.05 + 1e-9
    assert abs(100 * view.guess - guess) <= 0.05 + 1e-9  # the bars' dashed line
    assert check.solve().explanation.holds()


def test_the_map_question_states_the_numbers_of_the_maps_it_opens():
    """train-map opens the maps at their defaults (sinusoidal, the clearest layer): the clearest head
    the page names, its share and the even share are the explanation's."""
    from lab.views.train import trainings
    from lab.views.train_maps import attention_view
    from lab.views.train_names import MAP_LAYER, MAP_SCHEME
    from tests.views.train_common import shipped_run

    check = q.find("train-map")
    assert check.opens == ("train.open_maps",) and not check.settings
    run = shipped_run("encoder")
    view = attention_view(run, trainings(run, [MAP_SCHEME.default]).source(MAP_SCHEME.default), MAP_LAYER.default)
    text = check.solve().explanation
    assert f"head {view.best.head} of layer {view.best.layer} puts" in text
    anti = _percents(text)[0]
    assert abs(100 * view.best.share - anti) <= 0.05 + 1e-9  # the page writes it as a whole percent
    assert abs(100 * view.even - _percents(text)[-1]) <= 0.05 + 1e-9
