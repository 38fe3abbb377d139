"""Fixed or learned positions: a pretrained model's position table beside the sinusoidal one, and
how alike two of its positions are; beyond the chapter, their whole similarity maps, main
directions and steps between neighbours."""

import streamlit as st

from lab.display import explore_further, opened, show_chart
from lab.i18n import N_, _
from lab.page import lab_page
from lab.views.fixed_or_learned import (
    K,
    MAX_OFFSET,
    SETTINGS,
    blocks_caption,
    colours_caption,
    components_statement,
    components_view,
    offset_statement,
    offsets_view,
    picture_caption,
    steps_statement,
    tables,
    values_statement,
    whole_table_view,
)
from lab.views.minilm_lookups import model_missing
from lab.views.questions import fixed_or_learned as page_questions

INTRO = N_(
    "The chapter says positional encodings \"can either be learned or fixed\". A fixed one is a formula; a learned "
    "one is a table with a row per position, filled in by training. Here the table that all-MiniLM-L6-v2 learned "
    "sits beside the sinusoidal table of the same shape: do they look alike?"
)

with lab_page("learned", _("Fixed or learned positions"), _(INTRO), SETTINGS,
              questions=page_questions.QUESTIONS) as page:
    missing = model_missing()
    if missing is not None:
        st.warning(_("The pretrained model is not installed here. {reason}").format(reason=missing.reason),
                   icon=":material/download:")
        st.caption(_("Add it to this environment (no download happens while the app runs):"))
        st.code(missing.command, language="bash")
    else:
        with st.spinner(_("Reading MiniLM's position table…")):
            drawn = tables()
        for column, pictures in zip(st.columns(2), drawn):
            with column:
                st.markdown(_("**{table}**: 512 positions × 384 columns").format(table=_(pictures.name)))
                show_chart(pictures.table.chart)
                st.caption(colours_caption(pictures.table))
        learned, _sinusoidal = drawn
        st.caption(blocks_caption(learned.table) + " " + _("Each table has its own colour scale, symmetric around 0 "
                                                           "(white)."))
        with st.spinner(_("Measuring both tables…")):
            whole = whole_table_view()
        st.markdown(values_statement(whole))

        st.subheader(_("How alike are two positions δ apart?"))
        max_offset = page.slider(MAX_OFFSET, help=_("The chart runs from δ = 0 to this offset."))
        offsets = offsets_view(max_offset)
        show_chart(offsets.chart)
        st.markdown(offset_statement(offsets))
        st.caption(_("Cosine similarity (rows scaled to length 1), so that the tables share one axis; the band "
                     "spans the smallest to the largest value over every pair of rows δ apart. The control is the "
                     "learned table's own entries shuffled at random: rows alike only by chance."))

        explore_further(_("every pair of positions, each table's main directions, and the step between neighbours"))
        if box := opened(_("Every pair of positions: P·Pᵀ"), key="learned.gram"):
            with box:
                for column, pictures in zip(st.columns(2), drawn):
                    with column:
                        st.markdown(f"**{_(pictures.name)}**")
                        show_chart(pictures.gram.chart, caption=picture_caption(pictures.gram))
        if box := opened(_("Principal components against position"), key="learned.components"):
            with box:
                k = page.slider(K, help=_("How many principal components of each table to plot."))
                st.latex(r"P - \bar P = U S V^\top,\qquad \text{PC}_c(i) = U_{ic}\,S_c")
                for column, components in zip(st.columns(2), components_view(k)):
                    with column:
                        st.markdown(f"**{_(components.name)}**")
                        show_chart(components.chart)
                        st.markdown(components_statement(components))
                st.caption(_("The sign of each component is chosen so that it rises with position on the whole; "
                             "'strongest period': the period of the largest peak in its Fourier spectrum; 'apart in "
                             "phase': how far apart two components' phases are at that peak."))
        if box := opened(_("Distance between neighbours along the sequence"), key="learned.steps"):
            with box:
                show_chart(whole.steps)
                st.markdown(steps_statement(whole))
                st.caption(_("‖P[i+1] − P[i]‖ on a log axis (the tables' scales differ; the control, the learned "
                             "table's entries shuffled at random, has the learned table's values)."))
