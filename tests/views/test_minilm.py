"""The MiniLM tab's sentences, each made from the real views (all-MiniLM-L6-v2 on a few texts, at
layers and heads over the whole model) and checked against the numbers they state."""

from __future__ import annotations

import math
import re
import string

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.views import minilm as mini
from lab.views import minilm_lookups as lookups
from pekit.text import MAX_CHARS
from pekit import pretrained as pt
from tests.test_pretrained import missing

pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")

TEXTS = ["The animal didn't cross the street because it was too tired.", "unbelievably tokenization", "dog"]
LAYER_HEADS = [(0, 0), (2, 7), (5, 11)]


WORDS = st.sampled_from(["didn't", "well-known", "2024", "3.14", "café", "naïve", "Zürich", "東京", "tokenization",
                         "unbelievably", "dog", "it's", "e-mail", "#1", "a*b_c", "$5", "x", "🙂", "—", "l'été", "[CLS]",
                         "rock'n'roll", "don’t", "ﬁne", "α-β"])
TYPED = st.lists(st.one_of(WORDS, st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                                          min_size=1, max_size=8)), min_size=1, max_size=8)
SPACES = st.sampled_from([" ", "  ", "\t", "\n", "\u00a0"])


@settings(max_examples=30, deadline=None)
@given(TYPED, SPACES)
@example(["The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired."], " ")
@example(["dog"], " ")
@example(["unbelievably", "tokenization"], " ")
@example(["extraordinarily"] * 60, " ")
@example([f"w{i}" for i in range(70)], " ")  # the cut falls inside the 63rd word: w | (##6 | ##2 cut)
@example(["a"] * 125 + ["extraordinarily"], " ")  # no whole word split; the cut word's ## pieces read
@example(["a"] * 126 + ["extraordinarily"], " ")  # the cut word's first piece only
@example([".".join(["a"] * 100)], " ")  # one written word of 199 pieces, cut
@example(["a"] * 126, " ")  # the cut falls between words
@example(["0\x1fA"], " ")  # the tokenizer drops the control character \x1f and reads one word: 0 | ##a
def test_pieces_statement_follows_the_word_pieces(words, space):
    """Written words (runs of characters between white space, found here with a regular
    expression) against the pieces' character offsets: how many became several pieces, the
    first of them with its pieces, the ## pieces, and whether 'same word' is empty."""
    text = space.join(words)
    try:
        pieces = mini.pieces_view(text)
    except ValueError:
        with pytest.raises(ValueError):
            pt.encode_text(text)
        return
    encoded = pt.encode_text(text)
    read = text[:MAX_CHARS]
    spans = [m.span() for m in re.finditer(r"\S+", read)]
    # a piece belongs to the runs it overlaps (one, unless the tokenizer dropped a white-space
    # control character inside it); runs that share a piece are one written word
    root = list(range(len(spans)))

    def find(k: int) -> int:
        while root[k] != k:
            k = root[k]
        return k

    of_piece, of_word = {}, {}
    for i, (a, b) in enumerate(encoded.offsets):
        if encoded.word_ids[i] is None:
            continue
        ks = [k for k, (s, e) in enumerate(spans) if s < max(b, a + 1) and a < e]
        assert ks, (text, encoded.tokens[i], (a, b))
        # runs the tokenizer reads as one word (it drops a control character between them) are one
        ks += [of_word[encoded.word_ids[i]]] if encoded.word_ids[i] in of_word else []
        for k in ks[1:]:
            root[find(k)] = find(ks[0])
        of_piece[i] = ks[0]
        of_word.setdefault(encoded.word_ids[i], ks[0])
    by_span: dict[int, list[int]] = {}
    for i, k in of_piece.items():
        by_span.setdefault(find(k), []).append(i)
    # the last written word read is cut when the text's pieces, counted word by word with nothing cut,
    # go on past it with more pieces of the same written word
    last = max(by_span)
    group = [k for k in range(len(spans)) if find(k) == last]
    whole_word = read[spans[min(group)][0]:spans[max(group)][1]]
    partial = 0
    alone = pt.encode_text(whole_word)
    if encoded.cut and len(alone.tokens) - 2 + alone.cut > len(by_span[last]):
        partial = len(by_span.pop(last))
    split = [k for k in sorted(by_span) if len(by_span[k]) > 1]
    hashes = sum(1 for i, t in enumerate(encoded.tokens) if encoded.word_ids[i] is not None and t.startswith("##"))
    said = mini.pieces_statement(pieces)
    inner = len(encoded.tokens) - 2
    written = len(by_span)
    assert inner == sum(len(v) for v in by_span.values()) + partial
    # the claims, against the counts made here
    claims = {c.what: c.value for c in said.claims}  # a count of 0 that the sentence does not state is not claimed
    assert claims == {"word pieces": len(encoded.tokens), "pieces between [CLS] and [SEP]": inner,
                      "written words read whole": written, "pieces continuing a word": hashes,
                      **({"pieces read of the cut word": partial} if partial else {}),
                      **({"written words read as several pieces": len(split)} if split else {})}
    # the numbers written, and the language: which case the sentence tells
    # the first sentence writes the pieces, those between [CLS] and [SEP], the written words read whole (when there
    # are any), and how many pieces of a cut word were read (where more than one): no typed text in it
    start, rest = said.split(". ", 1)
    assert re.findall(r"\d+", start) == [str(x) for x in (len(encoded.tokens), inner) + (
        (written,) if written else ()) + ((partial,) if partial > 1 or (partial and not written) else ())]
    # "whose other pieces are cut" only with a cut word: its claim is there only then (the claims above)
    # 'same word' is empty when no word of the tokenizer has two pieces read (pekit.pretrained.head_patterns): the
    # sentence says so exactly when it claims no piece continuing a word (##)
    ids = [w for w in encoded.word_ids if w is not None]
    same_word_empty = len(set(ids)) == len(ids)
    assert (claims["pieces continuing a word"] == 0) == same_word_empty
    if not split:  # no "became several pieces": no such claim (the claims above)
        assert re.findall(r"\d+", rest) == ([str(hashes)] if hashes else [])  # the pieces continuing a word (##)
        assert not hashes or partial
    else:
        # their count written (whether a word was cut, the sentence's "whole", is the cut word's claim, above)
        assert f"{len(split)} " in said
        first = by_span[split[0]]
        word = read[encoded.offsets[first[0]][0]:encoded.offsets[first[-1]][1]]
        # the example: the first written word that became several pieces, and its pieces (as the page writes words)
        parts = [encoded.tokens[i] for i in first]
        shown = word if len(word) <= 40 else word[:39] + "…"
        example = f"{mini._plain(shown)} → {mini._plain(' | '.join(parts[:12]))}{' …' if len(parts) > 12 else ''}"
        assert example in said
        # after it, the pieces continuing a word (##) are counted, or said to be none
        assert re.findall(r"\d+", said.split(example, 1)[1]) == ([str(hashes)] if hashes else [])


TEXTS_ANY = st.one_of(st.sampled_from(TEXTS + ["x y", "[CLS] it", "a.b-c 12,5 l'été", "it it it"]),
                      st.lists(WORDS, min_size=1, max_size=6).map(" ".join))


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 40), st.sampled_from(["extraordinarily", "dog", "l'été", "2024"]))
@example(60, "extraordinarily")
def test_cut_statement_counts_what_the_model_does_not_read(repeat, word):
    text = " ".join([word] * repeat)
    run = mini.minilm_run(text)
    total = len(pt.encode_text(text).tokens) - 2 + pt.encode_text(text).cut
    every = len(_all_pieces(text))
    assert total == every
    assert len(run.tokens) == min(every + 2, pt.MAX_PIECES) and run.cut == max(0, every + 2 - pt.MAX_PIECES)
    if run.cut:
        said = mini.cut_statement(run)
        assert said.holds() and said.claim("word pieces of the text").value == every
        assert said.claim("pieces read").value == pt.MAX_PIECES
        assert said.claim("pieces cut").value == every + 2 - pt.MAX_PIECES
        assert said.startswith(f"The text has {every} word pieces; the model reads {pt.MAX_PIECES} ")
        assert said.endswith(f"so the last {run.cut} {'is' if run.cut == 1 else 'are'} cut.")


def _all_pieces(text: str) -> list[str]:
    """Every word piece of the text, none cut (the tokenizer run word by word)."""
    out = []
    for word in text.split():
        out += list(pt.encode_text(word).tokens[1:-1])
    return out


def _shares(run, layer: int, head: int) -> dict[str, float]:
    """The head's pattern shares, recomputed with loops over the word pieces from its weights."""
    A = run.result.attentions[layer, head].double()
    T = len(run.tokens)
    words = run.word_ids
    prev = nxt = cls = sep = itself = 0.0
    same, same_n = 0.0, 0
    for q in range(1, T - 1):
        prev += float(A[q, q - 1])
        nxt += float(A[q, q + 1])
        cls += float(A[q, 0])
        sep += float(A[q, T - 1])
        itself += float(A[q, q])
        mates = [k for k in range(T) if k != q and words[k] is not None and words[k] == words[q]]
        if mates:
            same += sum(float(A[q, k]) for k in mates)
            same_n += 1
    n = T - 2
    if n == 1:  # one word piece: no other piece before or after it ([CLS] and [SEP] count as themselves)
        prev = nxt = math.nan
    return {"previous token": prev / n, "next token": nxt / n, "[CLS]": cls / n, "[SEP]": sep / n,
            "same word": same / same_n if same_n else math.nan, "itself": itself / n}


@settings(max_examples=15, deadline=None)
@given(TEXTS_ANY, st.integers(0, mini.LAYERS - 1), st.integers(0, mini.HEADS - 1))
@example(TEXTS[0], 0, 0)
@example("dog", 5, 11)
def test_head_statement_states_the_shares_and_the_verdict(text, layer, head):
    run = mini.minilm_run(text)
    said = mini.head_statement(run.patterns, layer, head)
    shares = _shares(run, layer, head)
    assert said.holds() and said.claim("largest share").reference.value == 0.5
    largest = max(v for v in shares.values() if not math.isnan(v))
    assert said.claim("largest share").value == pytest.approx(largest, abs=1e-6)
    assert said.startswith(f"Layer {layer}, head {head}:")
    assert said.claim("layer").value == layer and said.claim("head").value == head
    claimed = {c.what.removeprefix("share on "): c.value for c in said.claims if c.what.startswith("share on ")}
    assert claimed == pytest.approx({n: v for n, v in shares.items() if not math.isnan(v)}, abs=1e-6)
    for name, share in shares.items():
        if math.isnan(share):
            assert f"{name} " not in said.split(" of their weight")[0]
        else:
            m = re.search(re.escape(name) + r" ([0-9.]+)", said)
            assert m and abs(float(m.group(1)) - share) <= 0.0051, (name, share, said)
    best = max((s, n) for n, s in shares.items() if not math.isnan(s))
    if best[0] >= mini.THRESHOLD:
        from lab.views.minilm_patterns import NAMED

        assert NAMED[best[1]] in said
    else:
        m = re.search(r"\(the most, ([0-9.]+), goes to (.+)\)\.", said)
        assert m and abs(float(m.group(1)) - best[0]) <= 0.0051 and m.group(2) == best[1]


def test_every_pattern_has_its_own_message_in_each_sentence():
    """Each of pekit's patterns has a whole message of its own in every sentence that names one
    (lab.views.minilm_patterns), and in English each reads as the pattern's name in its place."""
    from lab.views import minilm_patterns as kinds

    fields = {"SHARE": {"share"}, "NAMED": set(), "MOST": {"share"}, "COUNT": {"count"},
              "TOP": {"layer", "head", "share"}}
    for name, wanted in fields.items():
        table = getattr(kinds, name)
        assert set(table) == set(pt.PATTERNS), name
        for pattern, message in table.items():
            assert {f for _, f, _, _ in string.Formatter().parse(message) if f} == wanted, (name, pattern)
            # the pattern is named in its own message ("itself" is a "self" head)
            assert (pattern if pattern != "itself" else "self") in message, (name, pattern)
    assert {p for p in pt.PATTERNS if not p.startswith("[")} == set(kinds.PATTERN_LABELS)


@settings(max_examples=5, deadline=None)
@given(TEXTS_ANY)
@example("dog")
def test_gallery_notes_name_each_heads_strongest_pattern(text):
    """Each tile's hover note in the gallery of 72 heads: its strongest pattern and share."""
    spec = mini.gallery_chart(text, 0, 0)
    rows = [r for v in spec["datasets"].values() for r in v if "note" in r]
    run = mini.minilm_run(text)
    assert len(rows) == mini.LAYERS * mini.HEADS
    for r in rows:
        shares = {n: v for n, v in _shares(run, r["layer"], r["head"]).items() if not math.isnan(v)}
        name, share = r["note"].rsplit(" ", 1)
        assert abs(float(share) - shares[name]) <= 0.0051 and shares[name] >= max(shares.values()) - 1e-6
        assert mini._strongest(run.patterns.shares[r["layer"], r["head"]].tolist(), run.patterns.names) == r["note"]


@settings(max_examples=8, deadline=None)
@given(TEXTS_ANY)
@example(TEXTS[0])
@example("dog")  # one word piece: its previous and next token are [CLS] and [SEP] themselves
def test_named_statement_counts_the_named_heads(text):
    run = mini.minilm_run(text)
    said = mini.named_statement(run.named)
    if len(run.tokens) == 3:  # the degenerate text: a head resting on [CLS] is named after [CLS], not a neighbour
        assert not any(h.pattern in ("previous token", "next token") for h in run.named), said
        assert not {"heads named previous token", "heads named next token"} & {c.what for c in said.claims}
    named = []
    for layer in range(mini.LAYERS):
        for head in range(mini.HEADS):
            shares = {n: s for n, s in _shares(run, layer, head).items() if not math.isnan(s)}
            best = max(shares.items(), key=lambda kv: kv[1])
            if best[1] >= mini.THRESHOLD - 1e-6:
                named.append((layer, head, best[0], best[1]))
    assert abs(len(named) - len(run.named)) <= 1  # a share within float32 round-off of the threshold may tip
    assert len(run.named) == int((run.frame["named"] != "").sum())
    assert said.holds() and said.claim("heads").value == 72 and said.claim("named heads").value == len(run.named)
    if run.named:
        assert said.startswith(f"{len(run.named)} of the 72 heads")
        for pattern in {h.pattern for h in run.named}:
            count = sum(h.pattern == pattern for h in run.named)
            assert said.claim(f"heads named {pattern}").value == count
            assert abs(count - sum(h[2] == pattern for h in named)) <= 1  # the loop's, to the threshold's round-off
            assert f"{count} on {pattern}" in said
        top = max(named, key=lambda h: h[3])
        assert said.claim("most single-minded head").value == (top[0], top[1])
        assert said.claim("most single-minded head's share").value == pytest.approx(top[3], abs=1e-5)
        assert said.claim("smallest share of a named head").value == pytest.approx(
            min(h[3] for h in named if (h[0], h[1]) in {(n.layer, n.head) for n in run.named}), abs=1e-5)
        assert f"layer {top[0]}, head {top[1]}: {top[3]:.2f} on {top[2]}." in said
    else:
        assert said.startswith("None of the 72 heads") and not named


@settings(max_examples=10, deadline=None)
@given(TEXTS_ANY, st.sampled_from(["it", "street", "zebra", "[CLS]", "[SEP]", "dog", "."]), st.integers(0, 5))
@example("dog", "dog", 0)
@example(TEXTS[0], "it", 5)
@example("red green blue", "blue", 0)  # 'green' and 'red' lead in 3 of the 6 layers each: a tie
def test_follow_statement_names_the_top_piece_of_every_layer(text, word, layer):
    run = mini.minilm_run(text)
    followed = mini.followed_piece(run, word)
    assert followed.found == (pt.find_token(run.tokens, word) is not None)
    view = mini.follow_view(text, followed.index, layer)
    said = mini.follow_statement(view)
    T, i = len(run.tokens), followed.index
    others = [k for k in range(T) if k not in (0, T - 1, i)]
    mean = run.result.attentions[:, :, i, :].double().mean(dim=1)  # (layers, T)
    assert said.holds() and said.claim("heads averaged").value == mini.HEADS
    if not others:
        assert f"{run.tokens[i]!r}" in said and "[CLS]" in said and "[SEP]" in said  # the one piece between them
        assert "piece with the most weight per layer" not in {c.what for c in said.claims}
        assert said.claim("weight on itself per layer").value == pytest.approx(mean[:, i].tolist(), abs=1e-6)
        for lay in range(mini.LAYERS):
            assert f"{float(mean[lay, i]):.3f}" in said
        return
    tops = []
    for lay in range(mini.LAYERS):
        j = max(others, key=lambda k: (float(mean[lay, k]), -k))
        tops.append(j)
        assert f"layer {lay}: {run.tokens[j]!r} {float(mean[lay, j]):.3f}" in said
    assert said.claim("piece with the most weight per layer").value == tuple(tops)
    assert said.claim("its weight per layer").value == pytest.approx([float(mean[lay, j]) for lay, j in enumerate(tops)],
                                                                      abs=1e-6)
    counts = {j: tops.count(j) for j in tops}
    best = max(counts.values())
    leaders = sorted(k for k, n in counts.items() if n == best)
    runner_up = max([n for n in counts.values() if n < best], default=0)
    if len(leaders) == 1:
        j = leaders[0]
        assert said.claim("favoured piece").value == j
        lead = said.claim("layers the favoured piece leads")
        assert (lead.value, lead.reference.value) == (best, runner_up)
        assert f"{run.tokens[j]!r} (piece {j})" in said and "leading pieces" not in {c.what for c in said.claims}
    else:  # a tie is said as one: every leader named, none favoured
        assert said.claim("leading pieces").value == tuple(leaders)
        lead = said.claim("layers each leading piece leads")
        assert (lead.value, lead.reference.value) == (best, runner_up)
        assert "favoured piece" not in {c.what for c in said.claims}, f"a tie of {leaders} said as one piece favoured: {said}"
        assert all(f"{run.tokens[j]!r} (piece {j})" in said for j in leaders)


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(TEXTS + ["x y", "it it it", ". . .", "a a b"]), st.sampled_from([1, 7, 3]))
@example("dog", 1)
@example("...", 1)  # the audit's setting: three identical pieces, the shuffle swaps them only
@example("a a", 1)
def test_order_and_positions_statements_state_the_gaps(text, seed):
    view = mini.order_view(text, seed, 0, 0)
    order, positions = view.order, view.positions
    said = mini.order_statement(order)
    # the gaps recomputed: each piece's weights followed to its slot in the shuffled text (float64,
    # numpy's fancy indexing: slot s of the shuffled text holds piece perm[s] of the original)
    encoded = pt.encode_text(text)
    moved = pt.shuffle_words(encoded, seed)
    perm = moved.order.tolist()
    P = np.array(perm)
    typed = {kind: pt.pretrained_attention(encoded, positions=kind).attentions.double().numpy()
             for kind in ("learned", "zero")}
    shuffled = {kind: pt.pretrained_attention(moved.encoded, positions=kind).attentions.double().numpy()
                for kind in ("learned", "zero")}
    gaps = {kind: np.abs(shuffled[kind] - typed[kind][:, :, P][:, :, :, P]).max(axis=(1, 2, 3)).tolist()
            for kind in typed}
    assert order.gap_learned == pytest.approx(gaps["learned"], abs=1e-6)
    assert order.gap_zero == pytest.approx(gaps["zero"], abs=1e-6)
    learned, zero = max(gaps["learned"]), max(gaps["zero"])
    same = list(moved.encoded.tokens) == list(encoded.tokens)
    identity = perm == list(range(len(perm)))
    # the largest weight difference between copies of one piece, following the shuffle
    copies = {kind: float(np.abs(a - a[:, :, P][:, :, :, P]).max()) for kind, a in typed.items()}
    layers = ", ".join(f"{g:.2f}" for g in order.gap_learned)
    if identity:
        assert len({w for w in encoded.word_ids if w is not None}) == 1 and learned == 0 and zero == 0
        # one word, nothing to move: the case, and both differences written 0 (the only numbers)
        assert said.cases == ("one word",) and re.findall(r"\d+(?:[.,]\d+)?", said) == ["0", "0"]
    elif same:
        # the shuffled text is the text as typed: its weights are those typed, compared at other slots
        assert np.array_equal(shuffled["learned"], typed["learned"])
        assert learned == pytest.approx(copies["learned"], abs=1e-6) and zero == pytest.approx(copies["zero"], abs=1e-6)
        assert said.cases[0] == "identical words" and "words moved" not in said.cases
        assert "the model reads the order" not in said and "new place" not in said
        if learned >= mini.ROUND_OFF:
            assert f"{max(order.gap_learned):.2f}" in said and f"{layers})" in said
        assert (" 0: exactly the same." in said) == (zero == 0)
    elif learned >= mini.ROUND_OFF:
        assert said.cases[:2] == ("words moved", "learned: changes")  # "the model reads the order"
        # the largest change and the last layer's, in that order (each layer's: in the table)
        assert said.index(f"{max(order.gap_learned):.2f}") < said.index(f"{order.hidden_learned:.2f}", said.index(
            f"{max(order.gap_learned):.2f}") + 1)
        # "the model reads the order": the learned change above its control (checked below) and round-off
        assert said.claim("learned positions: largest weight change").relation == "at least"
        assert "identical words" not in said.cases
    else:  # "nothing to reorder": the learned change below round-off, and not compared with its control
        assert said.cases[:2] == ("words moved", "learned: round-off")
        assert said.claim("learned positions: largest weight change").relation == "below"
        assert "learned positions: largest weight change, against the control" not in {c.what for c in said.claims}
    # the case for the change with the positions zeroed: within round-off (its number written), exactly 0, or more
    zeroed = "zeroed: changes" if zero >= mini.ROUND_OFF else "zeroed: round-off" if zero else "zeroed: exactly the same"
    assert (zeroed in said.cases) != identity and [c for c in said.cases if c.startswith("zeroed:")] == [zeroed] * (
        not identity)
    if zeroed == "zeroed: round-off" and not identity:
        assert number(said.claim("positions zeroed: largest weight change").value, ".1e") in said
    # the claims: each change against round-off, the learned model's against its control (the same
    # shuffle with the positions zeroed), with the gaps recomputed here
    assert said.holds()
    assert said.claim("positions zeroed: largest weight change").value == pytest.approx(zero, abs=1e-6)
    if learned >= mini.ROUND_OFF:
        control = said.claim("learned positions: largest weight change, against the control")
        assert control.reference.value == pytest.approx(zero, abs=1e-6) and control.value > control.reference.value
    assert all(c.reference.value == mini.ROUND_OFF for c in said.comparisons if "round-off" in c.reference.how)
    assert "e-" not in said and "-0" not in said
    assert list(view.frame["shuffle, learned positions: largest change"]) == pytest.approx(order.gap_learned)
    said = mini.positions_statement(positions)
    # per layer: half the summed |difference| of a query's weights, averaged over queries and heads
    change = (np.abs(typed["learned"] - typed["zero"]).sum(-1).mean(axis=(1, 2)) / 2).tolist()
    assert positions.layer_change == pytest.approx(change, abs=1e-4)
    assert said.claim("mean change per layer").value == pytest.approx(change, abs=1e-4)
    assert said.claim("smallest mean change of a layer").value == pytest.approx(min(change), abs=1e-4)
    assert said.claim("largest mean change of a layer").value == pytest.approx(max(change), abs=1e-4)
    assert f"between {min(positions.layer_change):.2f} and {max(positions.layer_change):.2f} of each query's weight" \
        in said
    assert said.holds()
    T = len(encoded.tokens)
    if T == 3:  # one word piece: no piece before it (its previous token would be [CLS]); no head is named
        assert math.isnan(positions.before) and said.endswith("there is no previous piece for a head to find.")
        assert "nan" not in said and "previous-token head" not in [c.what for c in said.claims]
        return

    def previous(A):  # (layers, heads): the mean weight a word piece (queries 1 to T - 2) puts on the piece before it
        return np.diagonal(A, offset=-1, axis1=-2, axis2=-1)[..., :T - 2].mean(-1)

    with_positions, without = previous(typed["learned"]), previous(typed["zero"])
    lay, h = np.unravel_index(with_positions.argmax(), with_positions.shape)
    before, after = float(with_positions[lay, h]), float(without[lay, h])
    assert (positions.layer, positions.head) == (lay, h) == said.claim("previous-token head").value
    assert said.claim("its share on the previous token").value == pytest.approx(before, abs=1e-5)
    assert said.claim("its share without positions").value == pytest.approx(after, abs=1e-5)
    assert f"(layer {lay}, head {h}, {before:.2f}) puts {after:.2f}" in said
    needs = said.claim("its share without positions").relation == "below"
    assert said.endswith("find its neighbour.") == needs == (after < before / 2)
    assert list(view.frame["zeroing positions: mean change"]) == pytest.approx(positions.layer_change)


def test_picked_head_reads_a_click():
    assert lookups.picked_head(None) is None and lookups.picked_head({"selection": {}}) is None
    assert lookups.picked_head({"selection": {lookups.PICK: [{"layer": 3, "head": 5}]}}) == lookups.HeadChoice(3, 5)


@settings(max_examples=3, deadline=None)
@given(TEXTS_ANY)
@example(TEXTS[0])
def test_shown_tables_name_their_columns_as_column_label_does(text):
    """The tables as the reader reads them: in English the records' own frames; in Portuguese
    every header through column_label and every named pattern translated, the numbers untouched."""
    from lab.i18n import use

    run = mini.minilm_run(text)
    frames = (run.frame, mini.follow_view(text, 1, 0).frame, mini.order_view(text, 1, 0, 0).frame)
    for frame in frames:
        assert mini.shown_frame(frame) is frame
        assert [mini.column_label(c) for c in frame.columns] == list(frame.columns)
        with use("pt"):
            shown = mini.shown_frame(frame)
            headers = [mini.column_label(c) for c in frame.columns]
        assert list(shown.columns) == headers and len(set(headers)) == len(headers)
        assert "layer" not in headers and "camada" in headers
        for english, portuguese in zip(frame.columns, headers):
            if english == "named":
                with use("pt"):
                    assert list(shown[portuguese]) == [mini._pattern_label(p) for p in frame[english]]
                assert all((p == "") == (q == "") for p, q in zip(frame[english], shown[portuguese]))
            else:
                assert shown[portuguese].equals(frame[english])


@given(st.one_of(st.none(), st.booleans()), st.booleans(), st.one_of(st.none(), st.booleans()))
def test_minilm_s_expander_follows_the_reader_unless_the_link_changed(shown, linked, last):
    """MiniLM's expander (under "Explore further"): on the page's first run a link naming MiniLM
    opens it; later the link decides only when its setting changed since the last run (a link,
    a presenter followed, a reset); otherwise it stays as the reader left it."""
    is_open = lookups.expander_open(shown, linked, last)
    if last is None:
        assert is_open == (bool(shown) or linked)
    elif linked != last:
        assert is_open == linked
    else:
        assert is_open == bool(shown)
    assert lookups.expander_open(None, True, None) and not lookups.expander_open(None, False, None)
    assert not lookups.expander_open(False, True, True)  # the reader closed it: the link (still naming it) follows
    assert lookups.expander_open(False, True, False)  # a presenter opened it: the follower's opens too
