"""The live attention page's computed views: an untrained layer's weights, the effect of P,
shuffling, masking."""

import streamlit as st

from pekit import charts, order, seeded, text

LAB_STEPS = 8  # the masking lab pads two short sequences to this many steps


# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Nothing here or on the page changes a result after it is made.


def _layer(tokens: tuple[str, ...], hidden: int, heads: int, seed: int):
    model = seeded.seeded_attention(hidden, heads, seed=seed)
    return model, text.token_embeddings(list(tokens), hidden, seed=seed, device=model.W_q.weight.device)


@st.cache_resource(max_entries=64, show_spinner=False)
def attention_view(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool):
    model, X = _layer(tokens, hidden, heads, seed)
    return order.self_attention(model, X, positional=positional)[1].cpu()  # (heads, n, n)


@st.cache_resource(max_entries=64, show_spinner=False)
def head_chart(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool, head: int, scale: str):
    weights = attention_view(tokens, hidden, heads, seed, positional)
    return charts.token_heatmap(weights[head], tokens, tokens, x_title="key token", y_title="query token",
                                value_title="weight", scale=scale).spec()


@st.cache_resource(max_entries=64, show_spinner=False)
def gallery(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool, scale: str):
    """Every head as a small map, on one colour scale per map as chosen."""
    weights = attention_view(tokens, hidden, heads, seed, positional)
    # small pictures (max_marks=0): quick to send and draw; a click on "enlarge" gives the values
    return [charts.token_heatmap(weights[h], tokens, tokens, scale=scale, compact=True, title=f"head {h}",
                                 max_marks=0).spec() for h in range(heads)]


@st.cache_resource(max_entries=64, show_spinner=False)
def effect_chart(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, head: int):
    model, X = _layer(tokens, hidden, heads, seed)
    change = order.positional_effect(model, X)[head].cpu()  # (n, n)
    chart = charts.token_heatmap(change, tokens, tokens, x_title="key token", y_title="query token",
                                 value_title="weight with P − without P", palette="diverging", domain="symmetric")
    return chart.spec(), float(change.abs().max())


@st.cache_resource(max_entries=64, show_spinner=False)
def order_view(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, shuffle: int, head: int):
    model, X = _layer(tokens, hidden, heads, seed)
    perm = seeded.permutation(len(tokens), shuffle)
    checks = {positional: order.order_check(model, X, perm, positional=positional) for positional in (False, True)}
    maps = {}
    for positional, check in checks.items():
        for name, weights in (("original", check.weights), ("shuffled, put back", check.shuffled_back)):
            title = f"{'with' if positional else 'without'} P: {name}"
            maps[(positional, name)] = charts.token_heatmap(weights[head].cpu(), tokens, tokens, scale="max",
                                                            compact=True, title=title, max_marks=0).spec()
    gaps = {positional: (c.output_gap, c.relative_output_gap, c.weights_gap) for positional, c in checks.items()}
    return perm.tolist(), maps, gaps


@st.cache_resource(max_entries=64, show_spinner=False)
def masking_view(first: tuple[str, ...], hidden: int, seed: int, len_a: str, len_b: str, form: str, show: str):
    """Two sequences from the sentence's first LAB_STEPS tokens ``first`` (A: all of them, B:
    half as many), padded to LAB_STEPS. Keyed on those tokens only, so editing the end of a
    long sentence does not redraw the lab. A valid length of "own" is the sequence's number of
    real tokens (padding never counted)."""
    a = list(first)
    b = list(first[: max(1, len(a) // 2)])
    batch = order.padded_batch([text.token_embeddings(a, hidden, seed=seed),
                                text.token_embeddings(b, hidden, seed=seed)], LAB_STEPS)
    lens = [len(a) if len_a == "own" else int(len_a), len(b) if len_b == "own" else int(len_b)]
    valid = lens if form == "one per sequence" else order.causal_lengths(lens, LAB_STEPS).tolist()
    result = order.masking_steps(batch, valid)
    book = order.book_masked_softmax(result.scores, valid)
    i = 0 if show == "A" else 1
    names = (a if show == "A" else b) + ["<pad>"] * (LAB_STEPS - len(a if show == "A" else b))
    # the scores and the masked scores share one colour scale: that of the scores the mask keeps
    kept = result.masked[i][result.masked[i].isfinite()]
    bound = float(kept.abs().max()) if kept.numel() else 1.0
    score_range = (-bound, bound)
    specs = [charts.token_heatmap(result.scores[i], names, names, value_title="score", palette="diverging",
                                  domain=score_range, title="1. scores XXᵀ/√d").spec(),
             charts.token_heatmap(result.masked[i], names, names, value_title="score", palette="diverging",
                                  domain=score_range, title="2. masked (grey)").spec(),
             charts.token_heatmap(result.weights[i], names, names, title="3. weights (pekit)").spec(),
             charts.token_heatmap(book[i], names, names, title="the book's masked_softmax").spec()]
    zero_rows = [q for q, total in enumerate(result.row_sums[i].tolist()) if total == 0]
    book_row = book[i][zero_rows[0]].tolist() if zero_rows else None
    return specs, valid, lens[i], len(a if show == "A" else b), float(result.masked_weight[i]), zero_rows, book_row


@st.cache_resource(max_entries=4, show_spinner=False)
def book_example():
    return seeded.book_example()
