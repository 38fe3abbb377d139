"""The live attention page's views: the sentence as tokens, an untrained layer's weights, the
effect of P, shuffling, masking; and the functions that turn each record into the sentences
stating its numbers. (The MiniLM tab's views are in ``lab.views.minilm``.)"""

from __future__ import annotations

from typing import NamedTuple

from pekit import charts, order, seeded, text
from lab.claims import Claim, Reference, Said
from lab.memo import shared
from lab.display import number, plain
from lab.i18n import N_, _, localized_resource, ngettext
from lab.settings import MAX_SEED

# the page's default sentence: an untrained layer has no language, so the reader gets it in theirs (12 tokens in both,
# the pronoun at position 7)
DEFAULT_SENTENCE = N_("The animal didn't cross the street because it was too tired.")
DEFAULT_HIDDEN, DEFAULT_HEADS, DEFAULT_SHUFFLE = 64, 4, 1  # the page's defaults (pages/live_attention.py)
LAB_STEPS = 8  # the masking lab pads two short sequences to this many steps
MAX_TOKENS = 64  # tokens of the sentence that are used
MAX_CHARS = text.MAX_CHARS  # characters of the text that are read


# records ---------------------------------------------------------------------------------------


class Sentence(NamedTuple):
    """The sentence as tokens: the first MAX_TOKENS, how many more were cut, and whether only
    the start of the text was read."""

    tokens: tuple[str, ...]
    dropped: int
    clipped: bool

    @property
    def count(self) -> int:
        return len(self.tokens)

    @property
    def first(self) -> tuple[str, ...]:
        """The tokens the masking lab uses (at most LAB_STEPS)."""
        return self.tokens[:LAB_STEPS]


class LayerShape(NamedTuple):
    """One sentence of ``n`` tokens through a layer of ``hidden`` units in ``heads`` heads."""

    n: int
    hidden: int
    heads: int

    @property
    def head_size(self) -> int:
        return self.hidden // self.heads

    @property
    def last_head(self) -> int:
        return self.heads - 1

    @property
    def last_token(self) -> int:
        return self.n - 1

    @property
    def several_heads(self) -> bool:
        return self.heads > 1

    @property
    def gallery_rows(self) -> tuple[tuple[int, ...], ...]:
        """The heads four to a row."""
        return tuple(tuple(range(row, min(row + 4, self.heads))) for row in range(0, self.heads, 4))


class Effect(NamedTuple):
    """One head's weights with P minus without P, and the largest change."""

    head: int
    chart: dict  # Vega-Lite spec
    biggest: float


class MaskingView(NamedTuple):
    """The masking lab for one sequence (``show``, A or B) of the padded batch."""

    show: str
    valid: tuple  # valid_lens as given to masked_softmax: one per sequence, or one per query (tuples)
    length: int  # the valid length of the sequence shown
    real: int  # its real tokens (padding not counted)
    masked_total: float  # the weight on masked keys (exactly 0)
    moved: float  # the largest change the mask makes to a weight (against the softmax over every key)
    hidden_pairs: int  # query-key pairs the mask hides (of LAB_STEPS × LAB_STEPS)
    zero_rows: tuple[int, ...]  # queries with a valid length of 0
    book_row: tuple[float, ...]  # the book's weights for the first such query (empty when none)
    scores: dict  # Vega-Lite specs: the three steps, and the book's masked softmax
    masked: dict
    weights: dict
    book_weights: dict
    other_hidden: int = 0  # query–key pairs the mask hides in the other sequence
    zero_row: tuple[float, ...] = ()  # pekit's weights for the first query of valid length 0 (empty when none)

    @property
    def other(self) -> str:
        """The sequence not shown."""
        return "B" if self.show == "A" else "A"

    @property
    def counts_padding(self) -> bool:
        return self.length > self.real


class QueryStep(NamedTuple):
    """One query of one head, step by step: its scores against every key, the softmax weights,
    and the output as the weighted sum of the value rows (``values``: the first SHOWN_DIMS
    columns of each key's value vector; ``output``: the same columns of the query's output)."""

    head: int
    query: int
    tokens: tuple[str, ...]
    head_size: int
    scores: tuple[float, ...]
    weights: tuple[float, ...]
    values: tuple[tuple[float, ...], ...]
    output: tuple[float, ...]
    score_chart: dict  # Vega-Lite specs
    weight_chart: dict
    value_chart: dict

    @property
    def top(self) -> int:
        """The key that gets the most weight (the first, on a tie)."""
        return max(range(len(self.weights)), key=lambda j: (self.weights[j], -j))

    @property
    def tops(self) -> tuple[int, ...]:
        """Every key whose weight ties the largest (identical tokens without P have identical keys,
        so identical scores): within 1e-12 of it, far below any difference of two distinct keys'."""
        most = self.weights[self.top]
        return tuple(j for j, w in enumerate(self.weights) if most - w <= 1e-12 * most)

    @property
    def shown_dims(self) -> int:
        return len(self.output)


SHOWN_DIMS = 8  # value columns drawn in the step-by-step picture


class BookExample(NamedTuple):
    """The chapter's MultiHeadAttention(100, 5, 0.5) on ones(2, 4, 100) with valid_lens = [3, 2]."""

    output_shape: tuple[int, ...]
    weights_shape: tuple[int, int, int, int]  # (batch, heads, queries, keys)
    first: tuple[tuple[float, ...], ...]  # head 0's weights, sequence 0
    second: tuple[tuple[float, ...], ...]  # and sequence 1


# sentences from numbers ------------------------------------------------------------------------

_plain = plain  # lab.display's, kept under this module's older name


def dropped_statement(sentence: Sentence) -> Said:
    total = sentence.count + sentence.dropped
    if not sentence.dropped:
        return Said(ngettext("The sentence has {count} token; all are used.",
                             "The sentence has {count} tokens; all are used.", total).format(count=total),
                    [Claim("tokens", total)])
    return Said(_("The sentence has {count} tokens; the first {kept} are used and {cut} are cut.").format(
        count=total, kept=MAX_TOKENS, cut=sentence.dropped),
        [Claim("tokens", total), Claim("used", MAX_TOKENS), Claim("cut", sentence.dropped)])


def tokens_line(sentence: Sentence) -> Said:
    """The tokens, counted (shown as code: it quotes the sentence)."""
    return Said(ngettext("{count} token: {tokens}", "{count} tokens: {tokens}", sentence.count).format(
        count=sentence.count, tokens=" | ".join(sentence.tokens)), [Claim("tokens", sentence.count)])


def shapes_statement(shape: LayerShape) -> Said:
    n, hidden, heads = shape
    return Said(ngettext(
        "Input: (1, {n}, {hidden}): one sentence of {n} token, {hidden} numbers each; the output has the same "
        "shape. Weights: (1, {heads}, {n}, {n}), one {n} × {n} map per head, a row per query token.",
        "Input: (1, {n}, {hidden}): one sentence of {n} tokens, {hidden} numbers each; the output has the same "
        "shape. Weights: (1, {heads}, {n}, {n}), one {n} × {n} map per head, a row per query token.",
        n).format(n=n, hidden=hidden, heads=heads), [Claim("tokens", n), Claim("hidden", hidden), Claim("heads", heads)])


def qkv_statement(shape: LayerShape) -> Said:
    n, hidden, heads = shape
    hs = shape.head_size
    start = _("In **self**-attention all three come from the same input X ({n} × {hidden}, a row per token), through "
              "three different {hidden} × {hidden} matrices (learned in training; random in this untrained layer): "
              "Q = XW_q, K = XW_k, V = XW_v. ").format(n=n, hidden=hidden)
    if heads > 1:
        heads_part = _("Each is cut into {heads} heads of {hs} columns; each head attends on its own (below: one "
                       "head's steps for one query), and the heads' outputs, side by side ({n} × {hidden}), are "
                       "projected by W_o. ")
    else:
        heads_part = _("Each is kept whole, one head of {hs} columns (below: its steps for one query); its output "
                       "({n} × {hidden}) is projected by W_o. ")
    return Said(start + heads_part.format(n=n, hidden=hidden, heads=heads, hs=hs)
                + _("So every token asks (query), advertises (key) and offers (value). (In **encoder–decoder** attention "
                    "the queries come from the decoder, the keys and values from the encoder.)"),
                [Claim("tokens", n), Claim("hidden", hidden), Claim("heads", heads), Claim("head size", hs)])


def query_step_statement(step: QueryStep) -> Said:
    """The three steps for one query, with its numbers; keys that tie for the most weight are
    named together, and a query whose scores are all equal is said to weigh every key alike."""
    q, hs, n = step.query, step.head_size, len(step.tokens)
    top, tops = step.top, step.tops
    lo, hi = min(step.scores), max(step.scores)
    fields = dict(query=q, token=_plain(step.tokens[q]), head=step.head, hs=hs, n=n, low=number(lo, ".3f"),
                  high=number(hi, ".3f"), weight=number(step.weights[top], ".3f"), top=top,
                  top_token=_plain(step.tokens[top]), shown=step.shown_dims, count=len(tops),
                  keys=", ".join(f"{j} ({_plain(step.tokens[j])})" for j in tops))
    by_score = sorted(range(n), key=lambda j: (step.scores[j], step.weights[j]))
    scores_sorted = tuple(step.scores[j] for j in by_score)
    order_claim = Claim("weights in the order of the scores", tuple(step.weights[j] for j in by_score), "rises",
                        Reference(scores_sorted, "the query's scores, sorted: softmax keeps their order"))
    claims = [Claim("largest weight", step.weights[top], "equal",
                    Reference(max(step.weights), "the largest of the query's weights")),
              Claim("keys tied for the most", len(tops)), Claim("query", q), Claim("head", step.head),
              Claim("head size", hs), Claim("keys", n), Claim("lowest score", lo), Claim("highest score", hi),
              Claim("key with the most weight", top), Claim("values shown", step.shown_dims)]
    if len(tops) > 1:  # "the same token, the same key": the tied keys are copies of one token
        claims.append(Claim("tokens among the tied keys", len({step.tokens[j] for j in tops}), "equal",
                            Reference(1, "one token: identical tokens have identical keys without P")))
    if n > 1 and len(tops) == n:  # every score equal: nothing is larger
        compare = _("**Query {query} ({token}), head {head}.** 1. Its query q = x W_q meets the key k_j = x_j W_k of "
                    "every token j: score_j = q·k_j / √{hs}, here {low} for every key (the same token's key each "
                    "time). ")
        weigh = _("2. A softmax turns the {n} equal scores into {n} equal weights of {weight} = 1/{n}, which sum to 1 "
                  "(orange: the query itself): no key gets more than another. ")
        claims.append(Claim("weight spread", max(step.weights) - min(step.weights), "equal",
                            Reference(0.0, "equal scores: equal weights, to float64 rounding", tolerance=1e-12)))
    elif n > 1:
        compare = _("**Query {query} ({token}), head {head}.** 1. Its query q = x W_q meets the key k_j = x_j W_k of "
                    "every token j: score_j = q·k_j / √{hs}, here from {low} to {high}. ")
        if len(tops) > 1:
            weigh = _("2. A softmax turns the {n} scores into {n} weights that sum to 1, a larger score a larger "
                      "weight (orange: the query itself); the most, {weight} each, goes to {count} keys tied (the same "
                      "token, the same key): {keys}. ")
        else:
            weigh = _("2. A softmax turns the {n} scores into {n} weights that sum to 1, a larger score a larger "
                      "weight (orange: the query itself); the most, {weight}, goes to key {top} ({top_token}). ")
        claims.append(order_claim)
    else:
        compare = _("**Query {query} ({token}), head {head}.** 1. Its query q = x W_q meets the key k_j = x_j W_k of "
                    "every token j: score_j = q·k_j / √{hs}, here {low}, its only key. ")
        weigh = _("2. A softmax turns the only score into a weight of exactly {weight}, whatever the score (orange: "
                  "the query itself, key {top} ({top_token}), the only key there is). ")
    if step.shown_dims == hs:
        output = ngettext("3. The output is the weighted sum of the values v_j = x_j W_v, Σ_j weight_j · v_j: {hs} "
                          "number, all {hs} of them shown (the third picture's last row).",
                          "3. The output is the weighted sum of the values v_j = x_j W_v, Σ_j weight_j · v_j: {hs} "
                          "numbers, all {hs} of them shown (the third picture's last row).", hs)
    else:
        output = ngettext("3. The output is the weighted sum of the values v_j = x_j W_v, Σ_j weight_j · v_j: {hs} "
                          "number, the first {shown} of {hs} shown (the third picture's last row).",
                          "3. The output is the weighted sum of the values v_j = x_j W_v, Σ_j weight_j · v_j: {hs} "
                          "numbers, the first {shown} of {hs} shown (the third picture's last row).", hs)
    return Said(compare.format(**fields) + weigh.format(**fields) + output.format(**fields), claims)


def effect_caption(effect: Effect) -> Said:
    return Said(_("The largest change here is {change}.").format(change=number(effect.biggest, ".3f")),
                [Claim("largest change", effect.biggest)])


def batch_statement(sentence: Sentence) -> Said:
    """How the masking lab's two sequences are made from the sentence."""
    a = len(sentence.first)
    return Said(ngettext(
        "`valid_lens` says how many keys of each padded sequence are real; the rest get weight exactly 0. Here "
        "sequence A is the first {count} token of your sentence, B the first {half}, both padded to {steps} steps "
        "with zero vectors. Queries and keys come from two different projections of the layer, so the weights "
        "change with each mask.",
        "`valid_lens` says how many keys of each padded sequence are real; the rest get weight exactly 0. Here "
        "sequence A is the first {count} tokens of your sentence, B the first {half}, both padded to {steps} steps "
        "with zero vectors. Queries and keys come from two different projections of the layer, so the weights "
        "change with each mask.", a).format(count=a, half=_half(a), steps=LAB_STEPS),
        [Claim("tokens of A", a), Claim("tokens of B", _half(a)), Claim("steps", LAB_STEPS)])


def valid_code(view: MaskingView) -> Said:
    """valid_lens as Python writes the list."""
    return Said(f"valid_lens = {[list(v) if isinstance(v, tuple) else v for v in view.valid]}",
                [Claim("valid lengths", view.valid)])


def padding_statement(view: MaskingView) -> Said:
    """When the valid length counts padding steps (``view.counts_padding``): how many."""
    extra = view.length - view.real
    real = ngettext("Sequence {show} has {count} real token; ", "Sequence {show} has {count} real tokens; ",
                    view.real).format(show=view.show, count=view.real)
    padding = ngettext("a valid length of {length} counts {count} padding step as if they were words.",
                       "a valid length of {length} counts {count} padding steps as if they were words.",
                       extra).format(length=view.length, count=extra)
    return Said(real + padding, [Claim("real tokens", view.real), Claim("valid length", view.length),
                                 Claim("padding steps counted", extra)])


def masked_statement(view: MaskingView) -> Said:
    """The mask of the sequence shown (``view.show``), and whether the other one masks keys."""
    rows = view.zero_rows
    pairs = LAB_STEPS * LAB_STEPS
    if not view.other_hidden:
        other = _("Sequence {other} has no key masked either. ")
    elif isinstance(view.valid[0], int):
        other = _("Sequence {other}'s valid length does hide {hidden} of its {pairs} pairs: show {other} to see them. ")
    else:
        other = _("Sequence {other}'s valid lengths do hide {hidden} of its {pairs} pairs: show {other} to see them. ")
    other = other.format(other=view.other, hidden=view.other_hidden, pairs=pairs)
    if view.hidden_pairs:
        moved = _("In sequence {show} the mask hides {hidden} of the {pairs} query–key pairs (grey cells, in place) "
                  "and moves a weight by up to {moved} from the softmax over all {steps} keys. ").format(
            show=view.show, hidden=view.hidden_pairs, pairs=pairs, moved=number(view.moved, ".3f"), steps=LAB_STEPS)
    else:
        moved = _("No key of sequence {show} is masked (its valid length covers all {steps} steps): its weights are "
                  "the softmax over all {steps} keys. ").format(show=view.show, steps=LAB_STEPS) + other
    if not rows:
        end = _("Every row sums to 1 over its valid keys.")
    else:
        end = ngettext("Row {rows} has a valid length of 0: pekit gives all zeros, never NaN (a plain softmax over "
                       "nothing would divide 0 by 0).",
                       "Rows {rows} have a valid length of 0: pekit gives all zeros, never NaN (a plain softmax over "
                       "nothing would divide 0 by 0).", len(rows)).format(rows=", ".join(map(str, rows)))
    claims = [Claim("weight on masked keys", view.masked_total, "equal", Reference(0.0, "exactly zero, as stated")),
              Claim("steps", LAB_STEPS)]
    if view.hidden_pairs:
        claims += [Claim("hidden pairs", view.hidden_pairs), Claim("pairs", pairs), Claim("largest move", view.moved)]
    elif view.other_hidden:
        claims += [Claim("other's hidden pairs", view.other_hidden), Claim("pairs", pairs)]
    claims += [Claim("rows of valid length 0", rows)] if rows else [Claim("each row's sum over its valid keys", 1)]
    return Said(_("Total weight on masked keys in sequence {show}: **{total}** (exactly zero). ").format(
        show=view.show, total=number(view.masked_total)) + moved + end, claims)


def book_statement(view: MaskingView) -> Said:
    """The book's convention for a query of valid length 0 (when ``view.zero_rows``)."""
    return Said(_("**Two conventions for a length of 0.** The book's `masked_softmax` replaces masked scores by −1e6 and "
             "applies an ordinary softmax. When every key of a row is masked, all its scores are −1e6, and the "
             "softmax spreads the weight evenly: row {row} gets {weight} = 1/{steps} on every key, padding included. "
             "pekit gives such a row zero weight, so a query with nothing to look at contributes nothing (and no "
             "gradient flows into keys that are only padding). Both maps, side by side:").format(
        row=view.zero_rows[0], weight=number(view.book_row[0], ".4f"), steps=LAB_STEPS),
        [Claim("row", view.zero_rows[0]), Claim("steps", LAB_STEPS),
         Claim("book's weight", view.book_row[0], "equal", Reference(1 / LAB_STEPS, "1/steps", 5e-5))])


def book_example_code(example: BookExample) -> Said:
    batch, heads, queries, keys = example.weights_shape
    # the rows as Python prints numbers: this is program output, in a code block
    rows0 = "\n".join("  " + "  ".join(f"{v:.4f}" for v in row) for row in example.first)
    rows1 = "\n".join("  " + "  ".join(f"{v:.4f}" for v in row) for row in example.second)
    return Said(_("output shape: {output_shape}\n"
             "attention weights, pekit's shape (batch, heads, queries, keys): {weights_shape}\n"
             "the same weights in the book's shape (batch·heads, queries, keys): ({merged}, {queries}, {keys})\n"
             "sequence 0, head 0 (3 valid keys):\n{rows0}\n"
             "sequence 1, head 0 (2 valid keys):\n{rows1}").format(
        output_shape=example.output_shape, weights_shape=example.weights_shape, merged=batch * heads,
        queries=queries, keys=keys, rows0=rows0, rows1=rows1),
        [Claim("output shape", example.output_shape), Claim("weights shape", example.weights_shape),
         Claim("batch times heads", batch * heads), Claim("sequence 0 weights", example.first),
         Claim("sequence 1 weights", example.second)])


ROUND_OFF = 1e-5  # the lesson's fixed bound (lab.views.lesson); this page measures its own, below
def next_shuffle(seed: int) -> int:
    """The seed after ``seed`` (a shuffle again): 1 .. MAX_SEED, never 0 (the original order)."""
    return seed % MAX_SEED + 1


# views -----------------------------------------------------------------------------------------


def sentence_view(sentence: str) -> Sentence:
    tok = text.tokenize(sentence, max_tokens=MAX_TOKENS)
    return Sentence(tuple(tok.tokens), tok.dropped, tok.clipped)


FIRST_SCREEN_MAP = 240  # px: the weight map of a short sentence, with its labels, fits a 720-px screen


def first_screen_cell(count: int) -> int:
    """Pixels per cell of the page's main map: at most 32, at least 16 (a 12-px label a row), and
    small enough that up to 15 tokens fit FIRST_SCREEN_MAP."""
    return max(16, min(32, FIRST_SCREEN_MAP // max(count, 1)))


def _half(count: int) -> int:
    """The tokens of sequence B in the masking lab, when A has ``count``."""
    return max(1, count // 2)


# Results are shared by every session as they are (lab.memo): a rerun that finds one
# neither unpickles nor copies it. Nothing here or on the page changes a result after it is made.


def _layer(tokens: tuple[str, ...], hidden: int, heads: int, seed: int):
    model = seeded.seeded_attention(hidden, heads, seed=seed)
    return model, text.token_embeddings(list(tokens), hidden, seed=seed, device=model.W_q.weight.device)


@shared(max_entries=64)
def attention_view(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool):
    model, X = _layer(tokens, hidden, heads, seed)
    return order.self_attention_weights(model, X, positional=positional)  # (heads, n, n)


@localized_resource(max_entries=64)
def head_chart(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool, head: int,
               scale: str) -> dict:
    weights = attention_view(tokens, hidden, heads, seed, positional)
    return charts.token_heatmap(weights[head], tokens, tokens, x_title=_("key token"), y_title=_("query token"),
                                value_title=_("weight"), scale=scale, cell=first_screen_cell(len(tokens)),
                                legend="right").spec()


@localized_resource(max_entries=64)
def gallery(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool,
            scale: str) -> tuple[dict, ...]:
    """Every head as a small map, on one colour scale per map as chosen."""
    weights = attention_view(tokens, hidden, heads, seed, positional)
    # small pictures (max_marks=0): quick to send and draw; a click on "enlarge" gives the values
    return tuple(charts.token_heatmap(weights[h], tokens, tokens, scale=scale, compact=True,
                                      title=_("head {head}").format(head=h), max_marks=0).spec() for h in range(heads))


@localized_resource(max_entries=64)
def query_step(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool, head: int,
               query: int) -> QueryStep:
    """One query of one head through the three steps, from the layer's own projections."""
    model, X = _layer(tokens, hidden, heads, seed)
    trace = order.query_trace(model, X, head=head, query=query, positional=positional, columns=SHOWN_DIMS)
    shown = trace.values.shape[1]
    names = list(tokens)
    score_chart = charts.token_bars(trace.scores, names, value_title=_("score q·k_j / √d_h"),
                                    label_title=_("key token"), highlight=query, title=_("1. scores")).spec()
    weight_chart = charts.token_bars(trace.weights, names, value_title=_("weight (softmax of the scores)"),
                                     label_title=_("key token"), highlight=query, title=_("2. weights")).spec()
    value_chart = charts.token_heatmap(trace.table, names + [_("output")], [""] * shown, x_title=_("column of v"),
                                       y_title=_("value vector v_j; last row: the output"), value_title=_("value"),
                                       palette="diverging", title=_("3. values and the output"), cell=20,
                                       legend="right").spec()
    return QueryStep(head, query, tuple(tokens), trace.head_size, *trace.numbers(), score_chart, weight_chart,
                     value_chart)


@localized_resource(max_entries=64)
def effect_chart(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, head: int) -> Effect:
    model, X = _layer(tokens, hidden, heads, seed)
    effect = order.head_effect(model, X, head)  # (n, n)
    chart = charts.token_heatmap(effect.change, tokens, tokens, x_title=_("key token"), y_title=_("query token"),
                                 value_title=_("weight with P − without P"), palette="diverging", domain="symmetric")
    return Effect(head, chart.spec(), effect.largest)


def _query_key(batch, hidden: int, seed: int):
    """The padded batch through the seeded layer's query and key projections (no bias: padding
    stays zero)."""
    return order.query_key(seeded.seeded_attention(hidden, 1, seed=seed, device=batch.device), batch)


@localized_resource(max_entries=64)
def masking_view(first: tuple[str, ...], hidden: int, seed: int, len_a: str, len_b: str, form: str,
                 show: str) -> MaskingView:
    """Two sequences from the sentence's first LAB_STEPS tokens ``first`` (A: all of them, B:
    half as many), padded to LAB_STEPS. Keyed on those tokens only, so editing the end of a
    long sentence does not redraw the lab. A valid length of "own" is the sequence's number of
    real tokens (padding never counted)."""
    a = list(first)
    b = list(first[: _half(len(a))])
    batch = order.padded_batch([text.token_embeddings(a, hidden, seed=seed),
                                text.token_embeddings(b, hidden, seed=seed)], LAB_STEPS)
    queries, keys = _query_key(batch, hidden, seed)
    lens = [len(a) if len_a == "own" else int(len_a), len(b) if len_b == "own" else int(len_b)]
    valid = lens if form == "one per sequence" else order.causal_lengths(lens, LAB_STEPS).tolist()
    lab = order.masking_lab(queries, valid, keys=keys)
    result, book = lab.steps, lab.book
    i = 0 if show == "A" else 1
    this = lab.sequences[i]
    names = (a if show == "A" else b) + ["<pad>"] * (LAB_STEPS - len(a if show == "A" else b))
    # the scores and the masked scores share one colour scale: that of the scores the mask keeps
    score_range = (-this.score_bound, this.score_bound)
    return MaskingView(
        show, tuple(tuple(v) if isinstance(v, list) else v for v in valid), lens[i], len(a if show == "A" else b),
        this.masked_weight, this.moved, this.hidden_pairs, this.zero_rows, this.book_row,
        charts.token_heatmap(result.scores[i], names, names, value_title=_("score"), palette="diverging",
                             domain=score_range, title=_("1. scores QKᵀ/√d"), legend="right").spec(),
        charts.token_heatmap(result.masked[i], names, names, value_title=_("score"), palette="diverging",
                             domain=score_range, title=_("2. masked (grey)"), legend="right").spec(),
        charts.token_heatmap(result.weights[i], names, names, title=_("3. weights (pekit)"), legend="right").spec(),
        charts.token_heatmap(book[i], names, names, title=_("the book's masked_softmax"), legend="right").spec(),
        lab.sequences[1 - i].hidden_pairs, this.zero_row)


@shared(max_entries=4)
def book_example() -> BookExample:
    output_shape, weights_shape, first, second = seeded.book_example()
    return BookExample(output_shape, weights_shape, tuple(map(tuple, first)), tuple(map(tuple, second)))
