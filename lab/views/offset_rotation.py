"""The offset rotation page's computed views: T(δ), its residuals and angles, the circle, RoPE's
scores."""

import pandas as pd
import streamlit as st

import pekit
from pekit import charts, rotation, seeded

# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Nothing here or on the page changes a result after it is made.


@st.cache_resource(max_entries=32, show_spinner=False)
def rotation_view(d: int, base: int, delta: int, first: int, count: int):
    T = pekit.offset_rotation(d, delta, base=base)  # (d, d)
    matrix = charts.heatmap(T, x_title="Column of T", y_title="Row of T", value_title="T[r, c]", height=320)
    residuals = rotation.rotation_residuals(count, d, delta, base=base, start=first).double().cpu()
    angle_frame = rotation.angle_table(d, delta, base=base)
    res_frame = pd.DataFrame({"position": range(first, first + count), "residual": residuals.numpy()})
    return {
        "T": matrix.spec(),
        "T_exact": matrix.drawing.exact,
        "residuals": charts.line_chart(res_frame, x="position", y="residual", x_title="Position i",
                                       y_title="max |T(δ)·P[i] − P[i+δ]|", points=True).spec(),
        "max_residual": float(residuals.max()),
        "angles": charts.line_chart(angle_frame, x="pair", y="angle", x_title="Pair j",
                                    y_title="Rotation δ·ω_j (radians)", points=True).spec(),
        "angle_table": angle_frame,
    }


@st.cache_resource(max_entries=32, show_spinner=False)
def circle(d: int, base: int, delta: int, pair: int, first: int, count: int):
    cols = [2 * pair, 2 * pair + 1]
    here = pekit.sinusoidal_columns(count, d, cols, base=base, start=first)
    there = pekit.sinusoidal_columns(count, d, cols, base=base, start=first + delta)
    return charts.rotation_circle(here, there, range(first, first + count), delta=delta).spec()


@st.cache_resource(max_entries=32, show_spinner=False)
def rope_view(d: int, base: int, count: int, seed: int):
    q, k = seeded.seeded_query_key(d, seed)
    S_rope = rotation.rope_scores(q, k, count, base=base)  # (count, count)
    S_add = rotation.additive_scores(q, k, count, base=base)
    out = {}
    for name, S in (("rope", S_rope), ("additive", S_add)):
        out[name] = charts.heatmap(S, x_title="Key position n", y_title="Query position m", value_title="score",
                                   domain="symmetric", height=300).spec()
        out[name + "_spread"] = float(rotation.diagonal_spread(S)[1].max())
    return out
