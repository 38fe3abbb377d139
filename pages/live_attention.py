"""Live attention: multi-head self-attention on your own sentence; masking; why order is lost."""

import streamlit as st

from pekit import text
from lab.views import minilm
from lab.display import show_chart
from lab.page import lab_page
from lab.settings import BoolSetting, ChoiceSetting, IntSetting, TextSetting
from lab.views.live_attention import LAB_STEPS, head_chart, gallery, effect_chart, order_view, masking_view, book_example

SENTENCE = TextSetting("text", "Your sentence", default="The animal didn't cross the street because it was too tired.",
                       max_chars=2000)
HIDDEN = ChoiceSetting("hidden", "Hidden units", default="64", options=("16", "32", "64", "128", "256"))
HEADS = ChoiceSetting("heads", "Heads", default="4", options=("1", "2", "4", "8"))
PE = BoolSetting("pe", "Add P", default=False)
SEED = IntSetting("seed", "Seed", default=0, minimum=0, maximum=2**31 - 1)
HEAD = IntSetting("head", "Head", default=0, minimum=0, maximum=7)
SCALE = ChoiceSetting("scale", "Colours", default="max", options=("max", "row", "fixed"))
SCALE_NAMES = {"max": "0 to the largest weight", "row": "each row to its largest", "fixed": "fixed 0 to 1"}
FORM = ChoiceSetting("form", "valid_lens given", default="one per sequence",
                     options=("one per sequence", "one per query (causal)"))
LENGTHS = ("own",) + tuple(str(v) for v in range(9))
LEN_A = ChoiceSetting("len_a", "valid length of sequence A", default="own", options=LENGTHS)
LEN_B = ChoiceSetting("len_b", "valid length of sequence B", default="own", options=LENGTHS)
SHOW = ChoiceSetting("show", "Show sequence", default="B", options=("A", "B"))
SHUFFLE = IntSetting("shuffle", "Shuffle seed (0 = original order)", default=1, minimum=0, maximum=2**31 - 1)
VIEW = ChoiceSetting("view", "Section", default="Weights", options=("Weights", "Masking", "Order"))
MAX_TOKENS = 64


INTRO = (
    "Each token becomes a vector; multi-head self-attention mixes them, and each map shows what a token draws on. "
    "The untrained layer (fixed seed) shows the mechanics; MiniLM, a real pretrained model, shows what training adds."
)
SETTINGS = [SENTENCE, HIDDEN, HEADS, PE, SEED, HEAD, SCALE, FORM, LEN_A, LEN_B, SHOW, SHUFFLE, VIEW] + minilm.SETTINGS

with lab_page("attention", "Live attention", INTRO, SETTINGS) as page:
    # one row of controls keeps the first map on a projector's screen; MiniLM needs only the first two
    c0, cm, c1, c2, c3, c4 = st.columns([3.6, 2.2, 1.7, 1.7, 1.7, 1.3], vertical_alignment="bottom")
    with c0:
        sentence = page.text(SENTENCE, help="Words and punctuation become tokens; at most 64 are used.")
    with cm:
        pretrained = minilm.model_choice(page)
    if pretrained:
        minilm.show(page, sentence)
    else:
        with c1:
            hidden = int(page.select_slider(HIDDEN))
        with c2:
            heads = int(page.select_slider(HEADS))
        with c3:
            positional = page.toggle(PE, help="Add the sinusoidal positional encoding P to the token vectors.")
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
            page.stop()
        tokens = tuple(tok.tokens)
        n = len(tokens)
        st.code(f"{n} token{'s' if n != 1 else ''}: " + " | ".join(tokens), language=None, wrap_lines=True)

        def weights_section() -> None:
            page.clamp(HEAD, heads - 1)
            c5, c6 = st.columns([1, 2])
            with c5:
                head = page.select(HEAD, options=range(heads), format_func=lambda h: f"head {h}")
            with c6:
                scale = page.radio(SCALE, format_func=SCALE_NAMES.get,
                                   help="An untrained layer spreads its weight thinly (about 1/n per key), so a fixed "
                                        "0-to-1 scale shows an almost uniform map; the others stretch the colours.")
            show_chart(head_chart(tokens, hidden, heads, seed, positional, head, scale), title=f"Head {head}'s weights")
            l1, l2 = st.columns(2)
            with l1:
                st.page_link("pages/train.py", label="What does a trained model's attention look like?",
                             icon=":material/model_training:")
            with l2:
                st.page_link("pages/live_attention.py", label="A real pretrained model on this sentence (MiniLM)",
                             icon=":material/psychology:", query_params={"model": minilm.PRETRAINED, "text": sentence})
            st.markdown(
                f"Input: (1, {n}, {hidden}): one sentence of {n} token{'s' if n != 1 else ''}, {hidden} numbers each. "
                f"Output: the same shape (1, {n}, {hidden}). Weights: (1, {heads}, {n}, {n}), one {n} × {n} map per "
                "head; each row (a query token) sums to 1 over the keys it looks at."
            )
            if heads > 1:
                st.markdown("**All heads.** Pick one to enlarge it above.")
                specs = gallery(tokens, hidden, heads, seed, positional, scale)
                for row in range(0, heads, 4):
                    columns = st.columns(4)
                    for h, column in zip(range(row, min(row + 4, heads)), columns):
                        with column:
                            show_chart(specs[h], title=f"Head {h} (small)")
                            st.button(f"Enlarge head {h}", key=f"attention.enlarge.{h}", type="tertiary",
                                      on_click=st.session_state.__setitem__, args=(page.key(HEAD), h),
                                      disabled=h == head)
            st.latex(r"\mathrm{head}_i = \mathrm{softmax}\!\left(\frac{(XW_q^{(i)})(XW_k^{(i)})^\top}{\sqrt{d/h}}\right)"
                     r"XW_v^{(i)},\qquad \mathrm{output} = [\mathrm{head}_1;\dots;\mathrm{head}_h]\,W_o")
            st.subheader("What the positional encoding changes")
            spec, biggest = effect_chart(tokens, hidden, heads, seed, head)
            show_chart(spec, title=f"Head {head}: with P minus without")
            st.caption(f"Head {head}: weights with P added minus weights without it. The largest change here is "
                       f"{biggest:.3f}; the toggle above switches the maps between the two.")
            with st.expander("What exactly are Q, K and V? Are they the same input?"):
                hs = hidden // heads
                st.markdown(
                    f"In **self**-attention all three come from the same input X ({n} × {hidden}, one row per token): "
                    f"Q = XW_q, K = XW_k and V = XW_v, three different learned {hidden} × {hidden} matrices applied to "
                    f"the same rows. Each is then cut into {heads} heads of {hs} columns: head i compares its queries "
                    f"with its keys (a {n} × {n} map of scores, scaled by √{hs}), turns each row into weights with a "
                    f"softmax, and mixes its values with them ({n} × {hs}). The heads are put side by side again "
                    f"({n} × {hidden}) and projected by W_o. So Q, K and V are not the same *vectors*, but they are "
                    "computed from the same tokens: every token asks (query), advertises (key) and offers (value). "
                    "In **encoder–decoder** attention they are not from the same input: the queries come from the "
                    "decoder's tokens, the keys and values from the encoder's output, so each output word looks up "
                    "the source sentence."
                )

        def masking_section() -> None:
            st.subheader("Masking with valid_lens")
            a_count = min(n, LAB_STEPS)
            st.markdown(
                "Batches hold sequences of different lengths, padded to a common length. `valid_lens` says how many "
                f"keys of each sequence are real; the rest get weight exactly 0. Here: sequence A is the first "
                f"{a_count} token{'s' if a_count != 1 else ''} of your sentence, B the first {max(1, a_count // 2)}, "
                f"both padded to {LAB_STEPS} steps with zero vectors. The scores are those of plain self-attention "
                "on the token vectors themselves (Q = K = X: no learned projection, so only the masking acts)."
            )
            c5, c6, c7, c8 = st.columns(4)
            with c5:
                form = page.radio(FORM, horizontal=False)
            with c6:
                len_a = page.select_slider(LEN_A, format_func=lambda v: "its own length" if v == "own" else v)
            with c7:
                len_b = page.select_slider(LEN_B, format_func=lambda v: "its own length" if v == "own" else v)
            with c8:
                show = page.radio(SHOW)
            specs, valid, length, real, masked_total, zero_rows, book_row = masking_view(
                tokens[:LAB_STEPS], hidden, seed, len_a, len_b, form, show)
            st.code(f"valid_lens = {valid}", language="python")
            if length > real:
                st.info(f"Sequence {show} has {real} real token{'s' if real != 1 else ''}; a valid length of {length} "
                        f"counts {length - real} padding step{'s' if length - real != 1 else ''} as if they were words.")
            left, mid, right = st.columns(3)
            for column, spec, name in zip((left, mid, right), specs[:3], ("Scores", "Masked scores", "Weights")):
                with column:
                    show_chart(spec, title=f"{name}, sequence {show}")
            st.markdown(
                f"Total weight on masked keys in sequence {show}: **{masked_total:g}** (exactly zero). Scores 1 and 2 "
                "share one colour scale; masked cells stay in place, grey. "
                + ("Every row sums to 1 over its valid keys." if not zero_rows else
                   f"Row{'s' if len(zero_rows) > 1 else ''} {', '.join(map(str, zero_rows))} "
                   f"{'have' if len(zero_rows) > 1 else 'has'} a valid length of 0: pekit gives all zeros, never NaN "
                   "(a plain softmax over nothing would divide 0 by 0).")
            )
            if zero_rows:
                st.markdown(
                    "**Two conventions for a length of 0.** The book's `masked_softmax` replaces masked scores by "
                    "−1e6 and applies an ordinary softmax. When every key of a row is masked, all its scores are "
                    f"−1e6, and the softmax spreads the weight evenly: row {zero_rows[0]} gets "
                    f"{book_row[0]:.4f} = 1/{LAB_STEPS} on every key, padding included. pekit gives such a row "
                    "zero weight, so a query with nothing to look at contributes nothing (and no gradient flows "
                    "into keys that are only padding). Both maps, side by side:"
                )
                left, right = st.columns(2)
                with left:
                    show_chart(specs[2], title="Weights, pekit's convention")
                with right:
                    show_chart(specs[3], title="Weights, the book's convention")
            with st.expander("The book's example: MultiHeadAttention(100, 5, 0.5) on ones(2, 4, 100), valid_lens = [3, 2]"):
                out_shape, w_shape, w0, w1 = book_example()
                batch, heads_b, queries, keys = w_shape
                rows0 = "\n".join("  " + "  ".join(f"{v:.4f}" for v in row) for row in w0)
                rows1 = "\n".join("  " + "  ".join(f"{v:.4f}" for v in row) for row in w1)
                st.code(f"output shape: {out_shape}\n"
                        f"attention weights, pekit's shape (batch, heads, queries, keys): {w_shape}\n"
                        f"the same weights in the book's shape (batch·heads, queries, keys): "
                        f"({batch * heads_b}, {queries}, {keys})\n"
                        f"sequence 0, head 0 (3 valid keys):\n{rows0}\n"
                        f"sequence 1, head 0 (2 valid keys):\n{rows1}", language=None)
                st.caption(
                    "All inputs are equal, so every valid key gets the same weight: 1/3 and 1/2. Note the last two "
                    "rows of sequence 1: its queries 2 and 3 are padding, yet they still attend (to the two valid "
                    "keys). valid_lens masks keys, not queries; the outputs of padding queries are simply ignored "
                    "later (by the loss, say)."
                )

        def order_section() -> None:
            st.subheader("Does attention know the order?")
            page.clamp(HEAD, heads - 1)
            c9, c10 = st.columns([1, 3])
            with c9:
                st.button("Shuffle again", icon=":material/shuffle:", key="attention.shuffle_again",
                          on_click=lambda: st.session_state.__setitem__(
                              page.key(SHUFFLE), page.value(SHUFFLE) % (2**31 - 1) + 1))
                shuffle = page.number(SHUFFLE)
            head = page.value(HEAD)
            perm, maps, gaps = order_view(tokens, hidden, heads, seed, shuffle, head)
            with c10:
                st.caption("Shuffled sentence (plain text):")
                st.code(" | ".join(tokens[i] for i in perm), language=None, wrap_lines=True)
            if n == 1:
                st.info("With a single token there is nothing to shuffle: type a longer sentence.")
                return
            st.markdown(f"Head {head}'s weights for the sentence as typed, and for the shuffled sentence with its rows "
                        "and columns put back in the original order, without and with the positional table P:")
            columns = st.columns(4)
            for column, key in zip(columns, [(False, "original"), (False, "shuffled, put back"), (True, "original"),
                                             (True, "shuffled, put back")]):
                with column:
                    show_chart(maps[key], title=f"{'With' if key[0] else 'Without'} P: {key[1]}")
            (gap0, rel0, wgap0), (gap1, rel1, wgap1) = gaps[False], gaps[True]
            m1, m2, m3, m4 = st.columns(4)
            m1.metric("Without P: outputs", f"{rel0:.1e}", help="max |shuffled output put back − output| / max |output|")
            m2.metric("Without P: weights", f"{wgap0:.1e}", help="max |difference| of the weights put back")
            m3.metric("With P: outputs", f"{rel1:.2g}", help="max |shuffled output put back − output| / max |output|")
            m4.metric("With P: weights", f"{wgap1:.2g}")
            st.markdown(
                f"Without positions, the two maps are the same: the largest difference of an output is {rel0:.1e} "
                "of the outputs' size, float round-off. Every token gets exactly the same output wherever it stands; "
                "its weights move with it. The output rows do stay in the order of the input rows, as readers of the "
                "chapter point out, but nothing a token computes depends on that order, so 'dog bites man' and 'man "
                f"bites dog' give each word the same vector. With P the maps differ and the outputs move by {rel1:.0%} "
                "of their size: a token's vector now depends on its slot, and order matters."
            )

        page.tabs(VIEW, (weights_section, masking_section, order_section))
