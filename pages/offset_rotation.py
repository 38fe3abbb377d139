"""Offset rotation: a shift in position is a rotation of every sine/cosine pair; RoPE uses it."""

import streamlit as st

import pekit
from pekit import rotation
from lab.display import show_chart
from lab.page import lab_page
from lab.settings import BASE, IntSetting
from lab.views.offset_rotation import rotation_view, circle, rope_view

D = IntSetting("d", "Dimension d (even)", default=16, minimum=2, maximum=512)
DELTA = IntSetting("delta", "Offset δ", default=3, minimum=-256, maximum=256)
PAIR = IntSetting("pair", "Pair j", default=1, minimum=0, maximum=255)
FIRST = IntSetting("first", "First position", default=0, minimum=0, maximum=4096)
COUNT = IntSetting("count", "Positions shown", default=12, minimum=1, maximum=128)
SEED = IntSetting("seed", "Seed for q and k", default=0, minimum=0, maximum=2**31 - 1)


INTRO = (
    "Move every position by the same offset δ, and the encoding of position i + δ is a fixed linear "
    "function of that of position i: each sine/cosine pair turns by an angle that depends on δ and the "
    "pair, never on i. Drawn, checked with numbers, then used as rotary embeddings (RoPE) use it."
)

with lab_page("rotation", "Offset rotation", INTRO, [D, BASE, DELTA, PAIR, FIRST, COUNT, SEED]) as page:
    if page.value(D) % 2:
        odd = page.value(D)
        even = odd + 1 if odd < D.maximum else odd - 1
        page.replace(D, even, f"d={odd} is odd, and an odd width cannot be rotated: its last column is a sine "
                              "without a cosine partner, and a sine alone cannot be shifted by a fixed linear map. "
                              f"Showing d={even}.")
    page.clamp(PAIR, page.value(D) // 2 - 1)
    c1, c2, c3, c4, c5, c6 = st.columns([3, 3, 2, 1.5, 1.7, 2.5])
    with c1:
        d = page.slider(D, step=2)
    with c2:
        delta = page.slider(DELTA, help="Negative offsets turn the other way.")
    with c3:
        base = page.number(BASE, step=1000)
    with c4:
        pair = page.number(PAIR, maximum=d // 2 - 1, help="Columns 2j (sine) and 2j+1 (cosine) share the frequency ω_j.")
    with c5:
        first = page.number(FIRST)
    with c6:
        count = page.slider(COUNT, help="How many positions to draw and check, starting at the first.")
    view = rotation_view(d, base, delta, first, count)

    st.subheader(f"Pair {pair} on its circle")
    left, right = st.columns([3, 2])
    with left:
        show_chart(circle(d, base, delta, pair, first, count), title=f"Pair {pair} on its circle")
    with right:
        w = float(pekit.frequencies(d, base=base)[pair])
        turn = rotation.split_turns(float(rotation.rotation_angles(d, delta, base=base)[pair]))
        sweep = (f"{turn.turns:,} whole turn{'s' if turn.turns != 1 else ''} and {turn.degrees:.4g}°"
                 if turn.turns else f"{turn.degrees:.4g}°")
        st.markdown(
            f"Each blue point is one position i, drawn at (sin iω_j, cos iω_j) for ω_{pair} = {w:.6g}. "
            f"Every orange arrow goes from i to i + {delta}, and every arrow sweeps the same angle "
            f"δ·ω_{pair} = {turn.radians:.6g} rad ({'−' if turn.sign < 0 else ''}{sweep}"
            f"{', the other way' if turn.sign < 0 else ''}), wherever it starts."
        )
        (a, b), (c, e) = rotation.rotation_block(d, delta, pair, base=base)
        st.latex(rf"T_{{{pair}}}({delta})=\begin{{bmatrix}}{a:.4f} & {b:.4f}\\ {c:.4f} & {e:.4f}\end{{bmatrix}}")

    st.latex(
        r"\begin{bmatrix}\cos\delta\omega_j & \sin\delta\omega_j\\ -\sin\delta\omega_j & \cos\delta\omega_j\end{bmatrix}"
        r"\begin{bmatrix}\sin i\omega_j\\ \cos i\omega_j\end{bmatrix}"
        r"=\begin{bmatrix}\sin(i+\delta)\omega_j\\ \cos(i+\delta)\omega_j\end{bmatrix},"
        r"\qquad \omega_j = \text{base}^{-2j/d}"
    )

    st.subheader("The whole matrix T(δ)")
    left, right = st.columns(2)
    with left:
        show_chart(view["T"], title="The whole matrix T(δ)")
        st.caption(f"T({delta}) for d = {d}: one 2×2 rotation block per pair on the diagonal, zeros elsewhere"
                   + ("." if view["T_exact"] else "; each pixel is the mean of a block of entries."))
    with right:
        show_chart(view["residuals"], title="T(δ)·P[i] against P[i+δ]")
        st.metric("Largest error over the positions shown", f"{view['max_residual']:.2e}",
                  help="max over i and columns of |T(δ)·P[i] − P[i+δ]|, in float32")
        st.caption("The same matrix moves every row of P by δ positions: the error stays at float32 "
                   "round-off (about 1e-7) for every i, so T does not depend on i.")

    st.subheader("How far each pair turns")
    show_chart(view["angles"], title="Rotation angle per pair")
    st.markdown(
        "Fast pairs (small j) turn a lot for a given offset, often more than a full turn; slow "
        "pairs barely move. A small offset is therefore visible in the fast pairs and a large one "
        "in the slow pairs, which is what lets attention tell near from far. The rotation needs "
        "both members of a pair: sin(a + δω) = sin a·cos δω + cos a·sin δω mixes the sine with the "
        "cosine, so no fixed multiple of the sine column alone gives the shifted sine. That is "
        "also why an odd d has no rotation for its last, unpaired column."
    )
    st.markdown(
        "**Sign convention.** The book writes the rotation as acting on the column (sin, cos) of "
        "a pair, so its top row is (cos δω, sin δω). Read as an ordinary rotation of the point "
        "(x, y) = (sin, cos), it turns clockwise by δω: the same turn as the counter-clockwise "
        "rotation of (cos, sin) that RoPE uses below."
    )

    st.subheader("RoPE: rotate queries and keys instead of adding positions")
    c7, _ = st.columns([1, 2])
    with c7:
        seed = page.number(SEED, help="q and k are random vectors drawn from this seed.")
    rope = rope_view(d, base, count, seed)
    st.latex(
        r"\mathrm{RoPE}(x, m)_{2j,\,2j+1} = \begin{bmatrix}\cos m\omega_j & -\sin m\omega_j\\ "
        r"\sin m\omega_j & \cos m\omega_j\end{bmatrix}\begin{bmatrix}x_{2j}\\ x_{2j+1}\end{bmatrix}"
    )
    st.latex(r"\mathrm{RoPE}(q,m)\cdot\mathrm{RoPE}(k,n) = \sum_j \big[(q_{2j}k_{2j} + q_{2j+1}k_{2j+1})\cos(m-n)\omega_j"
             r" + (q_{2j}k_{2j+1} - q_{2j+1}k_{2j})\sin(m-n)\omega_j\big]")
    left, right = st.columns(2)
    with left:
        show_chart(rope["rope"], title="RoPE scores")
        st.caption(f"RoPE scores q_m·k_n: constant along every diagonal (largest spread along a "
                   f"diagonal: {rope['rope_spread']:.2e}), so they depend on m − n only.")
    with right:
        show_chart(rope["additive"], title="Scores with the table added")
        st.caption(f"Scores (q + P_m)·(k + P_n) with the table added: the diagonals are not constant "
                   f"(largest spread {rope['additive_spread']:.3g}); absolute positions leak in.")
    st.markdown(
        "Rotating both vectors by their own position makes the dot product see only the difference "
        "of the angles, (m − n)·ω_j, pair by pair. pekit pairs adjacent columns (2j, 2j+1), as this "
        "page and the chapter do; some large-language-model code pairs column j with column "
        "j + d/2 instead (\"rotate half\"). Both give scores that depend on m − n only, but the "
        "weights of one do not work with the other."
    )

