"""Live attention: multi-head self-attention on your own sentence; masking; why order is lost."""

import streamlit as st

from lab.display import number, show_chart
from lab.page import lab_page
from lab.settings import MAX_SEED, BoolSetting, ChoiceSetting, IntSetting, TextSetting
from lab.views import live_attention as live
from lab.views import minilm
from lab.views.minilm import LAYER, M_HEAD, M_SHUFFLE, M_VIEW, MODEL, PRETRAINED, WORD

SENTENCE = TextSetting("text", "Your sentence", default="The animal didn't cross the street because it was too tired.",
                       max_chars=2000)
HIDDEN = ChoiceSetting("hidden", "Hidden units", default="64", options=("16", "32", "64", "128", "256"))
HEADS = ChoiceSetting("heads", "Heads", default="4", options=("1", "2", "4", "8"))
PE = BoolSetting("pe", "Add P", default=False)
SEED = IntSetting("seed", "Seed", default=0, minimum=0, maximum=MAX_SEED)
HEAD = IntSetting("head", "Head", default=0, minimum=0, maximum=7)
QUERY = IntSetting("query", "Query token", default=0, minimum=0, maximum=63)
SCALE = ChoiceSetting("scale", "Colours", default="max", options=("max", "row", "fixed"))
SCALE_NAMES = {"max": "0 to the largest weight", "row": "each row to its largest", "fixed": "fixed 0 to 1"}
FORM = ChoiceSetting("form", "valid_lens given", default="one per sequence",
                     options=("one per sequence", "one per query (causal)"))
LENGTHS = ("own",) + tuple(str(v) for v in range(9))
LEN_A = ChoiceSetting("len_a", "valid length of sequence A", default="own", options=LENGTHS)
LEN_B = ChoiceSetting("len_b", "valid length of sequence B", default="own", options=LENGTHS)
SHOW = ChoiceSetting("show", "Show sequence", default="B", options=("A", "B"))
SHUFFLE = IntSetting("shuffle", "Shuffle seed (0 = original order)", default=1, minimum=0, maximum=MAX_SEED)
VIEW = ChoiceSetting("view", "Section", default="Weights", options=("Weights", "Masking", "Order"))
GALLERY = "minilm.gallery"  # the key of MiniLM's gallery of heads (its clicks choose a head)


INTRO = ("Multi-head self-attention on your sentence: each map shows what a token draws on. An untrained layer shows "
         "the mechanics; MiniLM, a pretrained model, what training adds.")
SETTINGS = [SENTENCE, HIDDEN, HEADS, PE, SEED, HEAD, QUERY, SCALE, FORM, LEN_A, LEN_B, SHOW, SHUFFLE, VIEW] + minilm.SETTINGS

with lab_page("attention", "Live attention", INTRO, SETTINGS) as page:
    # one row of controls keeps the first map on a projector's screen; MiniLM needs only the first two
    c0, cm, c1, c2, c3, c4 = st.columns([3.6, 2.2, 1.7, 1.7, 1.7, 1.3], vertical_alignment="bottom")
    with c0:
        sentence = page.text(SENTENCE, help="Words and punctuation become tokens; at most 64 are used.")
    with cm:
        pretrained = page.select(MODEL, help="The untrained layer shows the mechanics with random weights; MiniLM is "
                                             "a real pretrained encoder (all-MiniLM-L6-v2, 6 layers × 12 heads), run "
                                             "offline.") == PRETRAINED
    if pretrained:
        missing = minilm.model_missing()
        if missing is not None:
            st.warning(f"The pretrained model is not installed here. {missing.reason}", icon=":material/download:")
            st.caption("Add it to this environment (no download happens while the app runs):")
            st.code(missing.command, language="bash")
            page.stop()
        st.markdown(
            "**all-MiniLM-L6-v2**: a BERT encoder (6 layers × 12 heads, 384 hidden units, learned positions for 512 "
            "slots) fine-tuned on over a billion sentence pairs (its model card). Its weights come with the app and run in pekit's own "
            "`multi_head_attention`; the tests check every weight map against Hugging Face `transformers` to 1e-5."
        )
        try:
            run = minilm.minilm_run(sentence)
        except ValueError:
            st.info("Type a sentence with at least one word to see where a pretrained model looks.")
            page.stop()
        if run.clipped:
            st.warning(f"Only the first {live.MAX_CHARS:,} characters of the text are read.")
        if run.cut:
            st.warning(minilm.cut_statement(run))
        st.caption("Word pieces from the model's own tokenizer (shown as plain text):")
        st.code(" | ".join(run.tokens), language=None, wrap_lines=True)
        st.caption(minilm.pieces_statement(minilm.pieces_view(sentence)))

        def layer_and_head() -> tuple:
            left, right = st.columns(2)
            with left:
                layer = page.select(LAYER, options=range(minilm.LAYERS), format_func=lambda i: f"layer {i}")
            with right:
                head = page.select(M_HEAD, options=range(minilm.HEADS), format_func=lambda h: f"head {h}")
            return layer, head

        def picked() -> None:
            """A click in the gallery: show that head."""
            choice = minilm.picked_head(st.session_state.get(GALLERY))
            if choice is not None:
                st.session_state[page.key(LAYER)] = choice.layer
                st.session_state[page.key(M_HEAD)] = choice.head

        def heads_section() -> None:
            st.subheader("Every head of a pretrained model")
            layer, head = layer_and_head()
            show_chart(minilm.map_chart(sentence, layer, head))
            st.markdown(minilm.head_statement(run.patterns, layer, head))
            st.markdown("**All 72 heads** (layers down, heads across; click a map to enlarge it above):")
            st.vega_lite_chart(spec=minilm.gallery_chart(sentence, layer, head), width="stretch", on_select=picked,
                               selection_mode=minilm.PICK, key=GALLERY)
            st.markdown(minilm.named_statement(run.named))
            st.dataframe(run.frame, hide_index=True, height=260,
                         column_config={name: st.column_config.NumberColumn(format="%.3f")
                                        for name in run.patterns.names})
            st.caption("Each share is the weight a word piece puts on that kind of token, averaged over the word "
                       "pieces of the text ([CLS] and [SEP] are not counted as queries). The kinds can overlap: the "
                       "first piece's previous token is [CLS]. Attention to [CLS] or [SEP] is often a resting place: "
                       "a head with nothing to do for a word sends its weight there (Clark et al., 2019). 'same word' "
                       "counts only the ## pieces of one word (token ##ization), not pieces cut at punctuation "
                       "(didn ' t): it is empty when no piece starts with ##.")

        def follow_section() -> None:
            st.subheader("Where does one word look?")
            c1, c2 = st.columns(2)
            with c1:
                word = page.text(WORD, help="A word piece of the sentence, e.g. it (compared lower-case).")
            with c2:
                layer = page.select(LAYER, options=range(minilm.LAYERS), format_func=lambda i: f"layer {i}")
            followed = minilm.followed_piece(run, word)
            if not followed.found:
                st.warning("The word to follow is not one of the word pieces; following the first piece instead.",
                           icon=":material/info:")
                st.code(f"not found: {word!r}\nfollowing: {followed.token!r}", language=None)
            view = minilm.follow_view(sentence, followed.index, layer)
            show_chart(view.per_layer)
            st.text(minilm.follow_statement(view))
            st.dataframe(view.frame, hide_index=True,
                         column_config={c: st.column_config.NumberColumn(format="%.3f")
                                        for c in ("its weight", "on [CLS]", "on [SEP]", "on itself")})
            st.caption("Colours span the range of the weights shown (see the legend), so small differences stay "
                       "visible.")
            st.markdown(f"**Per head, layer {layer}** (row {layer} above is the mean of these 12):")
            show_chart(view.per_head)

        def positions_section() -> None:
            st.subheader("Positions matter in a real model too")
            c1, c2 = st.columns([1, 3])
            with c1:
                st.button("Shuffle again", icon=":material/shuffle:", key="minilm.reshuffle",
                          on_click=lambda: st.session_state.__setitem__(page.key(M_SHUFFLE),
                                                                        live.next_shuffle(page.value(M_SHUFFLE))))
                seed = page.number(M_SHUFFLE)
            layer, head = layer_and_head()
            view = minilm.order_view(sentence, seed, layer, head)
            with c2:
                st.caption("The same words, shuffled (each word's pieces stay together; plain text):")
                st.code(" | ".join(view.shuffled), language=None, wrap_lines=True)
            st.markdown(minilm.order_statement(view.order))
            st.markdown(minilm.positions_statement(view.positions))
            for column, spec, title in zip(st.columns(3), (view.as_typed, view.words_shuffled, view.positions_zeroed),
                                           ("as typed", "words shuffled", "as typed, positions zeroed")):
                with column:
                    st.markdown(f"**Layer {layer}, head {head}: {title}**")
                    show_chart(spec)
            st.dataframe(view.frame, hide_index=True)
            st.caption("'Largest change': the largest difference between a weight of the shuffled text and the "
                       "weight between the same two pieces in the text as typed, over all heads of the layer. 'Mean "
                       "change': half the sum of |difference| over a query's keys, averaged over queries and heads.")

        page.tabs(M_VIEW, (heads_section, follow_section, positions_section))
    else:
        with c1:
            hidden = int(page.select_slider(HIDDEN))
        with c2:
            heads = int(page.select_slider(HEADS))
        with c3:
            positional = page.toggle(PE, help="Add the sinusoidal positional encoding P to the token vectors.")
        with c4:
            seed = page.number(SEED)

        tok = live.sentence_view(sentence)
        if tok.clipped:
            st.warning(f"Only the first {live.MAX_CHARS:,} characters of the text are read.")
        if tok.dropped:
            st.warning(live.dropped_statement(tok))
        if not tok.tokens:
            st.info("Type a sentence with at least one word or symbol to see attention at work.")
            page.stop()
        tokens = tok.tokens
        shape = live.LayerShape(tok.count, hidden, heads)

        def weights_section() -> None:
            page.clamp(HEAD, shape.last_head)
            # the map first, its two controls beside it: on a projector the whole map is on the first screen
            drawn, side = st.columns([3, 1])
            with side:
                head = page.select(HEAD, options=range(heads), format_func=lambda h: f"head {h}")
                scale = page.radio(SCALE, format_func=SCALE_NAMES.get,
                                   help="An untrained layer spreads its weight thinly (about 1/n per key), so a fixed "
                                        "0-to-1 scale shows an almost uniform map; the others stretch the colours.")
                st.page_link("pages/train.py", label="A trained model's attention",
                             icon=":material/model_training:")
                st.page_link("pages/live_attention.py", label="MiniLM on this sentence",
                             icon=":material/psychology:", query_params={"model": PRETRAINED, "text": sentence})
            with drawn:
                show_chart(live.head_chart(tokens, hidden, heads, seed, positional, head, scale),
                           title=f"Head {head}'s weights")
            st.code(live.tokens_line(tok), language=None, wrap_lines=True)
            st.markdown(live.shapes_statement(shape))
            st.subheader("What are queries, keys and values?")
            st.markdown(live.qkv_statement(shape))
            page.clamp(QUERY, shape.last_token)
            narrow, _ = st.columns([1, 2])
            with narrow:
                query = page.select(QUERY, options=range(shape.n), format_func=lambda i: f"{i} {tokens[i]}",
                                    help="The token whose row of the map above is worked out step by step.")
            step = live.query_step(tokens, hidden, heads, seed, positional, head, query)
            for column, spec, name in zip(st.columns(3), (step.score_chart, step.weight_chart, step.value_chart),
                                          ("scores", "weights", "values and output")):
                with column:
                    show_chart(spec, title=f"Query {query}, head {head}: {name}")
            st.markdown(live.query_step_statement(step))
            if shape.several_heads:
                st.markdown("**All heads.** Pick one to enlarge it above.")
                specs = live.gallery(tokens, hidden, heads, seed, positional, scale)
                for row in shape.gallery_rows:
                    for h, column in zip(row, st.columns(4)):
                        with column:
                            show_chart(specs[h], title=f"Head {h} (small)")
                            st.button(f"Enlarge head {h}", key=f"attention.enlarge.{h}", type="tertiary",
                                      on_click=st.session_state.__setitem__, args=(page.key(HEAD), h),
                                      disabled=h == head)
            st.latex(r"\mathrm{head}_i = \mathrm{softmax}\!\left(\frac{(XW_q^{(i)})(XW_k^{(i)})^\top}{\sqrt{d/h}}\right)"
                     r"XW_v^{(i)},\qquad \mathrm{output} = [\mathrm{head}_1;\dots;\mathrm{head}_h]\,W_o")
            st.subheader("What the positional encoding changes")
            effect = live.effect_chart(tokens, hidden, heads, seed, head)
            show_chart(effect.chart, title=f"Head {head}: with P minus without")
            st.caption(live.effect_caption(effect))

        def masking_section() -> None:
            st.subheader("Masking with valid_lens")
            st.code(live.tokens_line(tok), language=None, wrap_lines=True)
            st.markdown(live.batch_statement(tok))
            c5, c6, c7, c8 = st.columns(4)
            with c5:
                form = page.radio(FORM, horizontal=False)
            with c6:
                len_a = page.select_slider(LEN_A, format_func=lambda v: "its own length" if v == "own" else v)
            with c7:
                len_b = page.select_slider(LEN_B, format_func=lambda v: "its own length" if v == "own" else v)
            with c8:
                show = page.radio(SHOW)
            view = live.masking_view(tok.first, hidden, seed, len_a, len_b, form, show)
            st.code(live.valid_code(view), language="python")
            if view.counts_padding:
                st.info(live.padding_statement(view))
            for column, spec, name in zip(st.columns(3), (view.scores, view.masked, view.weights),
                                          ("Scores", "Masked scores", "Weights")):
                with column:
                    show_chart(spec, title=f"{name}, sequence {show}")
            st.markdown(live.masked_statement(view))
            if view.zero_rows:
                st.markdown(live.book_statement(view))
                left, right = st.columns(2)
                with left:
                    show_chart(view.weights, title="Weights, pekit's convention")
                with right:
                    show_chart(view.book_weights, title="Weights, the book's convention")
            with st.expander("The book's example: MultiHeadAttention(100, 5, 0.5) on ones(2, 4, 100), valid_lens = [3, 2]"):
                st.code(live.book_example_code(live.book_example()), language=None)
                st.caption(
                    "All inputs are equal, so every valid key gets the same weight: 1/3 and 1/2. Note the last two "
                    "rows of sequence 1: its queries 2 and 3 are padding, yet they still attend (to the two valid "
                    "keys). valid_lens masks keys, not queries; the outputs of padding queries are simply ignored "
                    "later (by the loss, say)."
                )

        def order_section() -> None:
            st.subheader("Does attention know the order?")
            st.code(live.tokens_line(tok), language=None, wrap_lines=True)
            page.clamp(HEAD, shape.last_head)
            c9, c10 = st.columns([1, 3])
            with c9:
                st.button("Shuffle again", icon=":material/shuffle:", key="attention.shuffle_again",
                          on_click=lambda: st.session_state.__setitem__(
                              page.key(SHUFFLE), live.next_shuffle(page.value(SHUFFLE))))
                shuffle = page.number(SHUFFLE)
            head = page.value(HEAD)
            view = live.order_view(tokens, hidden, heads, seed, shuffle, head)
            with c10:
                st.caption("Shuffled sentence (plain text):")
                st.code(" | ".join(view.shuffled), language=None, wrap_lines=True)
            if tok.count == 1:
                st.info("With a single token there is nothing to shuffle: type a longer sentence.")
                return
            st.markdown(f"Head {head}'s weights for the sentence as typed, and for the shuffled sentence with its rows "
                        "and columns put back in the original order, without and with the positional table P:")
            for column, shown in zip(st.columns(4), view.maps):
                with column:
                    show_chart(shown.chart, title=shown.title)
            m1, m2, m3, m4 = st.columns(4)
            m1.metric("Without P: outputs", number(view.without.relative, ".1e"),
                      help="max |shuffled output put back − output| / max |output|")
            m2.metric("Without P: weights", number(view.without.weights, ".1e"), help="max |difference| of the weights put back")
            m3.metric("With P: outputs", number(view.with_p.relative, ".2g"),
                      help="max |shuffled output put back − output| / max |output|")
            m4.metric("With P: weights", number(view.with_p.weights, ".2g"))
            st.markdown(live.order_statement(view))

        page.tabs(VIEW, (weights_section, masking_section, order_section))
