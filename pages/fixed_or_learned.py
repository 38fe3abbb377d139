"""Fixed or learned positions: a pretrained model's position table beside the sinusoidal one."""

import streamlit as st

from lab.display import show_chart
from lab.page import lab_page
from lab.views.fixed_or_learned import K, MAX_OFFSET, NAMES, SETTINGS, summaries, tables
from lab.views.minilm import missing_notice

INTRO = (
    "The chapter says positional encodings \"can either be learned or fixed\". BERT-style models "
    "learn theirs: a table of 512 rows, one per slot, trained with the rest of the model. Here is the "
    "table of all-MiniLM-L6-v2 (384 columns) beside the sinusoidal table of the same shape, measured "
    "the same ways: the values, how alike two positions are, the main directions along the sequence, "
    "and how far each step moves."
)

with lab_page("learned", "Fixed or learned positions", INTRO, SETTINGS) as page:
    if not missing_notice():
        drawn = tables()
        st.subheader("The two tables")
        for column, name in zip(st.columns(2), NAMES):
            with column:
                st.markdown(f"**{name}**: 512 positions × 384 columns")
                show_chart(drawn[name]["table"], caption=drawn[name]["drawing"].describe("position(s)", "column(s)")
                           + " " + drawn[name]["colours"])
        c1, c2 = st.columns(2)
        with c1:
            k = page.slider(K, help="How many principal components of each table to plot.")
        with c2:
            max_offset = page.slider(MAX_OFFSET, help="The similarity chart runs from δ = 0 to this offset.")
        view = summaries(k, max_offset)
        st.markdown(view["values"])
        st.caption("Each table has its own colour scale, symmetric around 0 (white).")

        st.subheader("How alike are two positions? P·Pᵀ")
        for column, name in zip(st.columns(2), NAMES):
            with column:
                st.markdown(f"**{name}**")
                show_chart(drawn[name]["gram"], caption=drawn[name]["gram_drawing"].describe("position(s)", "position(s)")
                           + " " + drawn[name]["gram_colours"])
        show_chart(view["offsets"])
        st.markdown(view["offset_text"])
        st.caption("Rows are scaled to length 1 first (cosine similarity), so the two tables share one axis; the band "
                   "runs from the smallest to the largest value over all 512 starting rows.")

        st.subheader("Principal components against position")
        st.latex(r"P - \bar P = U S V^\top,\qquad \text{PC}_c(i) = U_{ic}\,S_c")
        for column, name, spec, text in zip(st.columns(2), NAMES, view["components"], view["component_text"]):
            with column:
                st.markdown(f"**{name}**")
                show_chart(spec)
                st.markdown(text)
        st.caption("The sign of each component is chosen so that it rises with position on the whole; 'strongest "
                   "period': the period of the largest peak in its Fourier spectrum.")

        st.subheader("Distance between neighbours along the sequence")
        show_chart(view["steps"])
        st.markdown(view["step_text"])
        st.caption("‖P[i+1] − P[i]‖ on a log axis (the two tables' scales differ).")
