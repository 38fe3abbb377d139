"""Live attention: multi-head self-attention on your own sentence; masking; why order is lost."""

import pandas as pd
import streamlit as st

from pekit import charts, order, seeded, text
from pages import _minilm
from pages._display import show_chart
from pages._page import lab_page
from pages._settings import BoolSetting, ChoiceSetting, IntSetting, TextSetting

SENTENCE = TextSetting("text", "Your sentence", default="The animal didn't cross the street because it was too tired.",
                       max_chars=2000)
HIDDEN = ChoiceSetting("hidden", "Hidden units", default="64", options=("16", "32", "64", "128", "256"))
HEADS = ChoiceSetting("heads", "Heads", default="4", options=("1", "2", "4", "8"))
PE = BoolSetting("pe", "Add positional encoding", default=False)
SEED = IntSetting("seed", "Seed", default=0, minimum=0, maximum=2**31 - 1)
HEAD = IntSetting("head", "Head", default=0, minimum=0, maximum=7)
FORM = ChoiceSetting("form", "valid_lens given", default="one per sequence",
                     options=("one per sequence", "one per query (causal)"))
LEN_A = IntSetting("len_a", "valid length of sequence A", default=8, minimum=0, maximum=8)
LEN_B = IntSetting("len_b", "valid length of sequence B", default=4, minimum=0, maximum=8)
SHOW = ChoiceSetting("show", "Show sequence", default="A", options=("A", "B"))
SHUFFLE = IntSetting("shuffle", "Shuffle seed (0 = original order)", default=1, minimum=0, maximum=2**31 - 1)
VIEW = ChoiceSetting("view", "Section", default="Weights", options=("Weights", "Masking", "Order"))
MAX_TOKENS = 64
LAB_STEPS = 8  # the masking lab pads two short sequences to this many steps


@st.cache_data(max_entries=64, show_spinner=False)
def attention_view(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool):
    model = seeded.seeded_attention(hidden, heads, seed=seed)
    X = text.token_embeddings(list(tokens), hidden, seed=seed, device=model.W_q.weight.device)
    return order.self_attention(model, X, positional=positional)[1].cpu()  # (heads, n, n)


@st.cache_data(max_entries=64, show_spinner=False)
def head_chart(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, positional: bool, head: int):
    weights = attention_view(tokens, hidden, heads, seed, positional)
    return charts.token_heatmap(weights[head], tokens, tokens, x_title="key token", y_title="query token",
                                value_title="weight").spec()


@st.cache_data(max_entries=64, show_spinner=False)
def order_view(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, shuffle: int):
    model = seeded.seeded_attention(hidden, heads, seed=seed)
    X = text.token_embeddings(list(tokens), hidden, seed=seed, device=model.W_q.weight.device)
    perm = seeded.permutation(len(tokens), shuffle)
    without = order.order_check(model, X, perm, positional=False)
    with_pe = order.order_check(model, X, perm, positional=True)
    return perm.tolist(), without.output_gap, without.weights_gap, with_pe.output_gap, with_pe.weights_gap


@st.cache_data(max_entries=64, show_spinner=False)
def masking_view(first: tuple[str, ...], hidden: int, seed: int, len_a: int, len_b: int, form: str, show: str):
    """Two sequences from the sentence's first LAB_STEPS tokens ``first`` (A: all of them, B:
    half as many), padded to LAB_STEPS. Keyed on those tokens only, so editing the end of a
    long sentence does not redraw the lab."""
    a = list(first)
    b = list(first[: max(1, len(a) // 2)])
    batch = order.padded_batch([text.token_embeddings(a, hidden, seed=seed),
                                text.token_embeddings(b, hidden, seed=seed)], LAB_STEPS)
    lens = [len_a, len_b]
    valid = lens if form == "one per sequence" else order.causal_lengths(lens, LAB_STEPS).tolist()
    result = order.masking_steps(batch, valid)
    i = 0 if show == "A" else 1
    names = (a if show == "A" else b) + ["<pad>"] * (LAB_STEPS - len(a if show == "A" else b))
    specs = [charts.token_heatmap(result.scores[i], names, names, value_title="score", palette="diverging",
                                  domain=None).spec(),
             charts.token_heatmap(result.masked[i], names, names, value_title="score", palette="diverging",
                                  domain=None).spec(),
             charts.token_heatmap(result.weights[i], names, names).spec()]
    zero_rows = [q for q, total in enumerate(result.row_sums[i].tolist()) if total == 0]
    return specs, valid, float(result.masked_weight[i]), zero_rows


@st.cache_data(max_entries=4, show_spinner=False)
def book_example():
    return seeded.book_example()


INTRO = (
    "Type a sentence. Each token becomes a vector, multi-head self-attention mixes the vectors, "
    "and the weight maps show which tokens each token draws on. The weights here come from a "
    "freshly initialised (untrained) layer with a fixed seed, so the patterns are not "
    "linguistically meaningful; the mechanics are exactly those of a trained model. Choose MiniLM "
    "to see a real pretrained model at work on the same sentence."
)
SETTINGS = [SENTENCE, HIDDEN, HEADS, PE, SEED, HEAD, FORM, LEN_A, LEN_B, SHOW, SHUFFLE, VIEW] + _minilm.SETTINGS

with lab_page("attention", "Live attention", INTRO, SETTINGS) as page:
    sentence = page.text(SENTENCE, help="Words and punctuation become tokens; at most 64 are used.")
    if _minilm.model_choice(page):
        _minilm.show(page, sentence)
        page.write_url()  # st.stop() ends the run before the link would be written
        st.stop()
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1])
    with c1:
        hidden = int(page.select_slider(HIDDEN))
    with c2:
        heads = int(page.select_slider(HEADS))
    with c3:
        positional = page.toggle(PE, help="Add the sinusoidal table P to the token vectors.")
    with c4:
        seed = page.number(SEED)

    tok = text.tokenize(sentence, max_tokens=MAX_TOKENS)
    if tok.clipped:
        st.warning(f"Only the first {text.MAX_CHARS:,} characters of the text are read.")
    if tok.dropped:
        st.warning(f"The sentence has {len(tok.tokens) + tok.dropped} tokens; the first {MAX_TOKENS} are used "
                   f"and {tok.dropped} are cut.")
    if not tok.tokens:
        st.info("Type a sentence with at least one word or symbol to see attention at work.")
        st.stop()
    tokens = tuple(tok.tokens)
    st.caption("Tokens (shown as plain text):")
    st.code(" | ".join(tokens), language=None, wrap_lines=True)

    weights = attention_view(tokens, hidden, heads, seed, positional)

    n = len(tokens)


    def weights_section() -> None:
        st.subheader("Attention weights, head by head")
        page.clamp(HEAD, heads - 1)
        head = page.select(HEAD, options=range(heads), format_func=lambda h: f"head {h}")
        show_chart(head_chart(tokens, hidden, heads, seed, positional, head))
        st.markdown(
            f"Input: ({1}, {n}, {hidden}): one sentence of {n} tokens, {hidden} numbers each. Output: the same "
            f"shape ({1}, {n}, {hidden}). Weights: ({1}, {heads}, {n}, {n}), one {n} × {n} map per head; "
            "each row (a query token) sums to 1 over the keys it looks at."
        )
        st.latex(r"\mathrm{head}_i = \mathrm{softmax}\!\left(\frac{(XW_q^{(i)})(XW_k^{(i)})^\top}{\sqrt{d/h}}\right)XW_v^{(i)}"
                 r",\qquad \mathrm{output} = [\mathrm{head}_1;\dots;\mathrm{head}_h]\,W_o")


    def masking_section() -> None:
        st.subheader("Masking with valid_lens")
        st.markdown(
            "Batches hold sequences of different lengths, padded to a common length. `valid_lens` "
            f"says how many keys of each sequence are real; the rest get weight exactly 0. Here: "
            f"sequence A is the first {min(n, LAB_STEPS)} tokens of your sentence, B the first "
            f"{max(1, min(n, LAB_STEPS) // 2)}, both padded to {LAB_STEPS} steps."
        )
        c5, c6, c7, c8 = st.columns(4)
        with c5:
            form = page.radio(FORM, horizontal=False)
        with c6:
            len_a = page.slider(LEN_A)
        with c7:
            len_b = page.slider(LEN_B)
        with c8:
            show = page.radio(SHOW)
        specs, valid, masked_total, zero_rows = masking_view(tokens[:LAB_STEPS], hidden, seed, len_a, len_b, form, show)
        st.code(f"valid_lens = {valid}", language="python")
        left, mid, right = st.columns(3)
        for column, spec, title in zip((left, mid, right), specs, ("1. scores QKᵀ/√d", "2. masked (blank = −∞)", "3. weights")):
            with column:
                st.markdown(f"**{title}**")
                show_chart(spec)
        st.markdown(
            f"Total weight on masked keys in sequence {show}: **{masked_total:g}** (exactly zero). "
            + (f"Rows {', '.join(map(str, zero_rows))} have a valid length of 0: they are all zeros, not NaN "
               "(a plain softmax over nothing would divide 0 by 0)." if zero_rows else
               "Every row sums to 1 over its valid keys.")
        )
        with st.expander("The book's example: MultiHeadAttention(100, 5, 0.5) on ones(2, 4, 100), valid_lens = [3, 2]"):
            out_shape, w_shape, w0, w1 = book_example()
            st.code(f"output shape: {out_shape}\nattention_weights shape: {w_shape}\n"
                    f"weights, sequence 0, head 0 (3 valid keys):\n{pd.DataFrame(w0).round(4).to_string()}\n"
                    f"weights, sequence 1, head 0 (2 valid keys):\n{pd.DataFrame(w1).round(4).to_string()}", language=None)
            st.caption("All inputs are equal, so every valid key gets the same weight: 1/3 and 1/2.")


    def order_section() -> None:
        st.subheader("Does attention know the order?")
        c9, c10 = st.columns([1, 3])
        with c9:
            st.button("Shuffle again", icon=":material/shuffle:",
                      on_click=lambda: st.session_state.__setitem__(page.key(SHUFFLE),
                                                                    st.session_state[page.key(SHUFFLE)] % (2**31 - 1) + 1))
            shuffle = page.number(SHUFFLE)
        perm, out_gap, w_gap, out_gap_pe, w_gap_pe = order_view(tokens, hidden, heads, seed, shuffle)
        with c10:
            st.caption("Shuffled sentence (plain text):")
            st.code(" | ".join(tokens[i] for i in perm), language=None, wrap_lines=True)
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Without positions: outputs", f"{out_gap:.1e}", help="max |shuffled output − original output shuffled|")
        m2.metric("Without positions: weights", f"{w_gap:.1e}")
        m3.metric("With positions: outputs", f"{out_gap_pe:.2g}")
        m4.metric("With positions: weights", f"{w_gap_pe:.2g}")
        st.markdown(
            "Run the layer on the shuffled tokens, put its results back into the original order, and "
            "compare. Without positional encoding the difference is float round-off: every token gets "
            "exactly the same output wherever it stands, and its attention weights move with it. The "
            "output rows do stay in the order of the input rows, as the discussion thread points out, "
            "but nothing a token computes depends on that order, so 'dog bites man' and 'man bites "
            "dog' give each word the same vector. Adding P changes each token's vector according to "
            "its slot, and the differences become large: now the order matters."
            if n > 1 else "With a single token there is nothing to shuffle: type a longer sentence."
        )


    page.tabs(VIEW, (weights_section, masking_section, order_section))
