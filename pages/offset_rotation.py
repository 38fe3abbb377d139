"""Offset rotation: a shift in position is a rotation of every sine/cosine pair; RoPE uses it."""

import streamlit as st

from lab.display import explore_further, number, opened, show_chart
from lab.i18n import N_, _
from lab.page import lab_page
from lab.settings import BASE, MAX_SEED, IntSetting
from lab.views.offset_rotation import (
    additive_caption,
    angles_text,
    block_latex,
    circle,
    circle_text,
    even_width,
    last_pair,
    matrix_caption,
    odd_width_note,
    pair_turn,
    residuals_caption,
    rope_caption,
    rope_view,
    rotation_view,
    sine_only,
    sine_only_text,
)
from lab.views.questions import offset_rotation as page_questions

D = IntSetting("d", N_("Dimension d (even)"), default=16, minimum=2, maximum=512)
DELTA = IntSetting("delta", N_("Offset δ"), default=3, minimum=-256, maximum=256)
PAIR = IntSetting("pair", N_("Pair j"), default=1, minimum=0, maximum=255)
FIRST = IntSetting("first", N_("First position"), default=0, minimum=0, maximum=4096)
COUNT = IntSetting("count", N_("Positions shown"), default=12, minimum=1, maximum=128)
SEED = IntSetting("seed", N_("Seed for q and k"), default=0, minimum=0, maximum=MAX_SEED)


INTRO = N_(
    "Draw one sine/cosine pair of P's columns and every position lands on a circle. Shift every position by the "
    "same offset δ: where do the points go? The chapter says that one matrix T(δ) takes the row of every position i "
    "to the row of i + δ; here it is drawn and checked with numbers."
)

with lab_page("rotation", _("Offset rotation"), _(INTRO), [D, BASE, DELTA, PAIR, FIRST, COUNT, SEED],
              questions=page_questions.QUESTIONS) as page:
    asked = page.value(D)
    width = even_width(asked, D.maximum)
    if width != asked:
        page.replace(D, width, odd_width_note(asked, width))
    page.clamp(PAIR, last_pair(width))
    c1, c2, c3, c4, c5, c6 = st.columns([3, 3, 2, 1.5, 1.7, 2.5])
    with c1:
        d = page.slider(D, step=2)
    with c2:
        delta = page.slider(DELTA, help=_("Negative offsets turn the other way."))
    with c3:
        base = page.number(BASE, step=1000)
    with c4:
        pair = page.number(PAIR, maximum=last_pair(d), help=_("Columns 2j (sine) and 2j+1 (cosine) share the frequency ω_j."))
    with c5:
        first = page.number(FIRST)
    with c6:
        count = page.slider(COUNT, help=_("How many positions to draw and check, starting at the first."))
    view = rotation_view(d, base, delta, first, count)

    circle_title = _("Pair {pair} on its circle").format(pair=pair)
    st.subheader(circle_title)
    left, right = st.columns([3, 2])
    with left:
        show_chart(circle(d, base, delta, pair, first, count), title=circle_title)
    with right:
        turn = pair_turn(d, base, delta, pair, count, first)
        st.markdown(circle_text(turn))
        st.latex(block_latex(turn))

    st.latex(
        r"\begin{bmatrix}\cos\delta\omega_j & \sin\delta\omega_j\\ -\sin\delta\omega_j & \cos\delta\omega_j\end{bmatrix}"
        r"\begin{bmatrix}\sin i\omega_j\\ \cos i\omega_j\end{bmatrix}"
        r"=\begin{bmatrix}\sin(i+\delta)\omega_j\\ \cos(i+\delta)\omega_j\end{bmatrix},"
        r"\qquad \omega_j = \text{base}^{-2j/d}"
    )

    st.subheader(_("The whole matrix T(δ)"))
    left, right = st.columns(2)
    with left:
        show_chart(view.matrix, title=_("The whole matrix T(δ)"))
        st.caption(matrix_caption(view))
    with right:
        show_chart(view.residuals, title=_("T(δ)·P[i] against P[i+δ]"))
        st.metric(_("Largest error over the positions shown"), number(view.max_residual, ".2e"),
                  help=_("max over i and columns of |T(δ)·P[i] − P[i+δ]|, in float32"))
        st.caption(residuals_caption(view))

    explore_further(_("how far each pair turns, why a sine needs its cosine, and rotary embeddings (RoPE)"))
    if box := opened(_("How far each pair turns"), key="rotation.angles"):
        with box:
            show_chart(view.angles, title=_("Rotation angle per pair"))
            st.markdown(angles_text(view))

    if box := opened(_("Why sine and cosine, not sine alone?"), key="rotation.sines"):
        with box:
            sines = sine_only(d, base, delta)
            st.markdown(sine_only_text(sines))
            show_chart(sines.chart, title=_("Moving every position by δ with one linear map"))
            st.caption(_("This is also why an odd d has no rotation for its last, unpaired sine column."))

    if box := opened(_("RoPE: rotate queries and keys instead of adding positions"), key="rotation.rope"):
        with box:
            c7, _rest = st.columns([1, 2])
            with c7:
                seed = page.number(SEED, help=_("q and k are random vectors drawn from this seed."))
            rope = rope_view(d, base, count, seed)
            st.markdown(_(
                "**Sign convention.** The book writes the rotation as acting on the column (sin, cos) of "
                "a pair, so its top row is (cos δω, sin δω). Read as an ordinary rotation of the point "
                "(x, y) = (sin, cos), it turns clockwise by δω: the same turn as the counter-clockwise "
                "rotation of (cos, sin) that RoPE uses below."
            ))
            st.latex(
                r"\mathrm{RoPE}(x, m)_{2j,\,2j+1} = \begin{bmatrix}\cos m\omega_j & -\sin m\omega_j\\ "
                r"\sin m\omega_j & \cos m\omega_j\end{bmatrix}\begin{bmatrix}x_{2j}\\ x_{2j+1}\end{bmatrix}"
            )
            st.latex(r"\begin{aligned}\mathrm{RoPE}(q,m)\cdot\mathrm{RoPE}(k,n) = \sum_j \big[&(q_{2j}k_{2j} + "
                     r"q_{2j+1}k_{2j+1})\cos(m-n)\omega_j\\ &+ (q_{2j}k_{2j+1} - q_{2j+1}k_{2j})\sin(m-n)\omega_j"
                     r"\big]\end{aligned}")
            left, right = st.columns(2)
            with left:
                show_chart(rope.rope, title=_("RoPE scores"))
                st.caption(rope_caption(rope))
            with right:
                show_chart(rope.additive, title=_("Scores with the table added"))
                st.caption(additive_caption(rope))
            st.markdown(_(
                "Rotating both vectors by their own position makes the dot product see only the difference "
                "of the angles, (m − n)·ω_j, pair by pair. pekit pairs adjacent columns (2j, 2j+1), as this "
                "page and the chapter do; some large-language-model code pairs column j with column "
                "j + d/2 instead (\"rotate half\"). Both give scores that depend on m − n only, but the "
                "weights of one do not work with the other."
            ))
