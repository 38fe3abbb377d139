"""Fixed or learned positions: a pretrained model's position table beside the sinusoidal one."""

import streamlit as st

from lab.display import show_chart
from lab.i18n import N_, _
from lab.page import lab_page
from lab.views.fixed_or_learned import (
    K,
    MAX_OFFSET,
    SETTINGS,
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
from lab.views.minilm import model_missing

INTRO = N_(
    "The chapter says positional encodings \"can either be learned or fixed\". BERT-style models "
    "learn theirs: a table of 512 rows, one per slot, trained with the rest of the model. Here is the "
    "table of all-MiniLM-L6-v2 (384 columns) beside the sinusoidal table of the same shape, measured "
    "the same ways: the values, how alike two positions are, the main directions along the sequence, "
    "and how far each step moves."
)

with lab_page("learned", _("Fixed or learned positions"), _(INTRO), SETTINGS) as page:
    missing = model_missing()
    if missing is not None:
        st.warning(_("The pretrained model is not installed here. {reason}").format(reason=missing.reason),
                   icon=":material/download:")
        st.caption(_("Add it to this environment (no download happens while the app runs):"))
        st.code(missing.command, language="bash")
    else:
        with st.spinner(_("Reading MiniLM's position table…")):
            drawn = tables()
        st.subheader(_("The two tables"))
        for column, pictures in zip(st.columns(2), drawn):
            with column:
                st.markdown(_("**{table}**: 512 positions × 384 columns").format(table=_(pictures.name)))
                show_chart(pictures.table.chart, caption=picture_caption(pictures.table))
        c1, c2 = st.columns(2)
        with c1:
            k = page.slider(K, help=_("How many principal components of each table to plot."))
        with c2:
            max_offset = page.slider(MAX_OFFSET, help=_("The similarity chart runs from δ = 0 to this offset."))
        with st.spinner(_("Measuring both tables…")):
            whole = whole_table_view()
        st.markdown(values_statement(whole))
        st.caption(_("Each table has its own colour scale, symmetric around 0 (white)."))

        st.subheader(_("How alike are two positions? P·Pᵀ"))
        for column, pictures in zip(st.columns(2), drawn):
            with column:
                st.markdown(f"**{_(pictures.name)}**")
                show_chart(pictures.gram.chart, caption=picture_caption(pictures.gram))
        offsets = offsets_view(max_offset)
        show_chart(offsets.chart)
        st.markdown(offset_statement(offsets))
        st.caption(_("Rows are scaled to length 1 first (cosine similarity), so the two tables share one axis; "
                     "the band at offset δ runs from the smallest to the largest value over the 512 − δ rows that "
                     "have a row δ further on."))

        st.subheader(_("Principal components against position"))
        st.latex(r"P - \bar P = U S V^\top,\qquad \text{PC}_c(i) = U_{ic}\,S_c")
        for column, components in zip(st.columns(2), components_view(k)):
            with column:
                st.markdown(f"**{_(components.name)}**")
                show_chart(components.chart)
                st.markdown(components_statement(components))
        st.caption(_("The sign of each component is chosen so that it rises with position on the whole; 'strongest "
                     "period': the period of the largest peak in its Fourier spectrum; 'apart in phase': how far apart "
                     "two components' phases are at that peak."))

        st.subheader(_("Distance between neighbours along the sequence"))
        show_chart(whole.steps)
        st.markdown(steps_statement(whole))
        st.caption(_("‖P[i+1] − P[i]‖ on a log axis (the two tables' scales differ)."))
