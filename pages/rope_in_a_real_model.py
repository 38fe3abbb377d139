"""RoPE in a real model: SmolLM2-135M-Instruct read by pekit's own decoder, and position inside it."""

import streamlit as st

from lab.display import explore_further, number, opened, show_chart, show_table
from lab.i18n import _
from lab.page import lab_page
from lab.views.rope_context import (
    LIVE_TOKENS,
    RECOMPUTING,
    RULE_NAMES,
    context_caption,
    context_chart,
    context_live,
    context_statement,
    context_table,
    live_statement,
    papers_statement,
    shipped_context,
)
from lab.views.rope_offsets import offset_statement, offsets_charts, offsets_view
from lab.views.rope_in_a_real_model import (
    HEAD,
    LAYER,
    LOADING,
    MAX_OFFSET,
    RUNNING,
    RUNNING_MINILM,
    SETTINGS,
    SHIFT,
    SHIFTING,
    TEXT,
    conventions_statement,
    conventions_view,
    habits_charts,
    habits_statement,
    layout_statement,
    map_chart,
    minilm_rollout,
    minilm_rollout_chart,
    minilm_shift_view,
    minilm_shift_statement,
    model_statement,
    pairs_caption,
    pairs_charts,
    pairs_statement,
    rollout_chart,
    rollout_statement,
    run_view,
    shared_model,
    shift_chart,
    shift_statement,
    shift_view,
    token_ids,
)
from lab.views.questions import rope_in_a_real_model as page_questions

INTRO = _(
    "Nearly every language model today puts positions in with RoPE (rotary position embedding): it turns each query "
    "and each key by an angle that grows with its position. Here is a real one, **SmolLM2-135M-Instruct**, run by "
    "pekit's own code on your text."
)
KEY_IDEA = _("**Shift every position by the same c and the scores do not change: RoPE's scores depend only on the "
             "offset m − n between a query at position m and a key at position n.**")

with lab_page("ropelm", _("RoPE in a real model"), INTRO, SETTINGS, questions=page_questions.QUESTIONS) as page:
    st.markdown(KEY_IDEA)
    # the runs are cached without spinners of their own: theirs are shown here, in the reader's language
    with st.spinner(_(LOADING)):
        model = shared_model()
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    with c1:
        text = page.text(TEXT, help=_("The model reads it as tokens (pieces of words); at most 300 characters."))
    with c2:
        shift = page.slider_and_box(SHIFT, help=_("Positions c to c + T − 1 instead of 0 to T − 1 (the model was "
                                                  "trained on {positions} positions).").format(
            positions=number(model.config.context_length, ",")))
    token_ids(text)  # a text the page cannot run is refused here, before any run
    with st.spinner(_(SHIFTING)):
        shifted = shift_view(text, shift)
    show_chart(shift_chart(text, shift), title=_("Largest change of an attention weight, per layer, after the shift"))
    st.markdown(shift_statement(shifted))
    st.latex(r"q_m^\top k_n = \mathrm{Re}\sum_j q_j\,\overline{k_j}\,e^{i(m-n)\theta_j}"
             r"\quad\Rightarrow\quad m, n \mapsto m + c,\ n + c \text{ %s}" % _("changes nothing"))
    if (minilm := minilm_shift_view(text, shift)) is not None:
        st.markdown(minilm_shift_statement(minilm, shift))

    explore_further(_("how SmolLM2's heads use positions, and texts past its training length"))

    def the_run():
        """The model's run on the text, made when a section below first needs it (they are closed at first)."""
        with st.spinner(_(RUNNING)):
            return run_view(text)

    c1, c2 = st.columns(2)
    with c1:
        layer = page.slider(LAYER, help=_("0 is the layer nearest the input; the sections below show this layer."))
    with c2:
        head = page.slider(HEAD, help=_("The attention map and the score curve below show this head."))

    if box := opened(_("The model and your text as its tokens"), key="ropelm.model"):
        with box:
            st.markdown(model_statement(model.config))
            st.caption(the_run().listing)

    if box := opened(_("Where the heads look"), key="ropelm.heads"):
        with box:
            run = the_run()
            sink, previous = habits_charts(text)
            c1, c2 = st.columns(2)
            with c1:
                show_chart(sink, title=_("Weight on the first token, per layer and head"))
            with c2:
                show_chart(previous, title=_("Weight on the token just before, per layer and head"))
            st.markdown(habits_statement(run.habits, run.count))
            show_chart(map_chart(text, layer, head), title=_("Attention of layer {layer}, head {head}").format(
                layer=layer, head=head))

    if box := opened(_("Score against offset, with the content held fixed"), key="ropelm.offsets"):
        with box:
            max_offset = page.slider_and_box(MAX_OFFSET, help=_("The curves run from offset 0 to this one."))
            the_run()  # the queries and keys the curves are made of
            scores, bound = offsets_charts(text, layer, head, max_offset)
            show_chart(scores, title=_("Layer {layer}, head {head}: score against offset").format(layer=layer,
                                                                                                 head=head))
            st.markdown(offset_statement(offsets_view(text, layer, max_offset), layer))
            show_chart(bound, title=_("RoFormer's bound on the size of a score"))
            st.caption(_("The mean query and the mean key of the text (before rotation) are put m − n apart and "
                         "scored as the layer scores them, q·k/√{dim}.").format(dim=model.config.head_dim))

    if box := opened(_("Frequencies per head: which pairs carry the norm"), key="ropelm.pairs"):
        with box:
            run = the_run()
            layer_map, mean_share = pairs_charts(text, layer)
            c1, c2 = st.columns(2)
            with c1:
                show_chart(layer_map, title=_("Layer {layer}: share of each query head's norm per rotary pair").format(
                    layer=layer))
            with c2:
                show_chart(mean_share, title=_("Share of the norm per rotary pair, over every head"))
            st.markdown(pairs_statement(run.shares))
            st.caption(pairs_caption(model.config))

    if box := opened(_("Conventions: adjacent pairs or split halves"), key="ropelm.conventions"):
        with box:
            st.markdown(layout_statement(model.config))
            with st.spinner(_(RUNNING)):
                conventions = conventions_view(text)
            st.markdown(conventions_statement(conventions))

    if box := opened(_("Past the context: the loss along a long text"), key="ropelm.context"):
        with box:
            results = shipped_context()
            show_chart(context_chart(), title=_("Next-token loss by position, with and without a context-extension "
                                                "rule"))
            st.caption(context_caption(results))
            st.markdown(context_statement(results))
            show_table(context_table(results), hide_index=True, column_config={
                "positions": _("positions"), **{rule: st.column_config.NumberColumn(_(name), format="%.3f")
                                              for rule, name in RULE_NAMES.items()}})
            st.markdown(papers_statement(results))
            st.button(_("Recompute the first {tokens} tokens here").format(tokens=LIVE_TOKENS), key="ropelm.recompute",
                      icon=":material/replay:",
                      on_click=lambda: st.session_state.update({"ropelm.recomputed": True}),
                      help=_("Runs the model now on the start of the text with each rule (a few seconds per rule)."))
            if st.session_state.get("ropelm.recomputed"):
                with st.spinner(_(RECOMPUTING)):
                    live, shipped = context_live(LIVE_TOKENS)
                st.markdown(live_statement(live, shipped, LIVE_TOKENS))

    if box := opened(_("Attention across layers: rollout"), key="ropelm.rollout"):
        with box:
            st.latex(r"R_l = \tilde A_l \tilde A_{l-1}\cdots\tilde A_0,\qquad \tilde A_l = \tfrac12 I + \tfrac12\,"
                     r"\overline{A_l}\ \text{(%s)}" % _("heads averaged"))
            run = the_run()
            c1, c2 = st.columns(2)
            with c1:
                show_chart(rollout_chart(text, layer), title=_("SmolLM2: rollout after layer {layer}").format(
                    layer=layer))
                st.markdown(rollout_statement("SmolLM2", run.tokens, run.last_row(layer), layer))
            with c2:
                with st.spinner(_(RUNNING_MINILM)):
                    other = minilm_rollout(text)
                if other is not None:
                    show_chart(minilm_rollout_chart(text), title=_("MiniLM (learned positions): rollout after layer "
                                                                   "{layer}").format(layer=other.layer))
                    st.markdown(rollout_statement("MiniLM", other.tokens, other.last_row, other.layer))
            st.caption(_("Rollout (Abnar & Zuidema, 2020) follows attention through the layers, counting the residual "
                         "connection as half of each step: row i is how much of each input token reaches position i, "
                         "if attention were the only way information moved."))
