"""The binary analogy page's computed views: binary codes beside the sinusoidal table, ladders,
overlays, distances."""

import pandas as pd
import streamlit as st

import pekit
from pekit import binary, charts

# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Nothing here or on the page changes a result after it is made.


def _heatmap(X, *, x_title: str, domain: tuple[float, float]):
    """Drawn as images (one pixel per cell or block): two side-by-side tables redraw fast."""
    drawn = charts.heatmap(X, x_title=x_title, y_title="Row (position)", domain=domain, height=320, max_marks=0)
    return drawn.spec(), drawn.drawing.exact


@st.cache_resource(max_entries=24, show_spinner=False)
def ladders(bits: int, d: int, base: int):
    """What does not depend on n: bit periods against pair wavelengths."""
    matches = binary.match_bits_to_pairs(bits, d, base=base)
    waves = pekit.wavelengths(d, base=base)
    periods = pd.concat([
        pd.DataFrame({"index": range(bits), "positions": binary.bit_periods(bits).numpy(),
                      "ladder": "bit b: period 2^(b+1)"}),
        pd.DataFrame({"index": range(len(waves)), "positions": waves.numpy(),
                      "ladder": "column pair j: wavelength 2π·base^(2j/d)"}),
    ])
    chart = charts.line_chart(periods, x="index", y="positions", series="ladder", x_title="Bit b or pair j",
                              y_title="Positions per cycle", series_title="Ladder", log_y=True,
                              points=len(periods) <= 128)
    return matches, chart.spec()


@st.cache_resource(max_entries=24, show_spinner=False)
def analogy_view(n: int, bits: int, d: int, base: int):
    B = pekit.binary_encoding(n, bits, device="cpu")  # (n, bits)
    P = pekit.sinusoidal_encoding(n, d, base=base)  # (n, d)
    codes = pd.DataFrame({"position": range(n), "lsb_first": binary.binary_strings(n, bits),
                          "msb_first": binary.binary_strings(n, bits, lsb_first=False)})
    bits_chart, bits_exact = _heatmap(B, x_title="Bit (0 = least significant)", domain=(0.0, 1.0))
    p_chart, p_exact = _heatmap(P, x_title="Column (encoding dimension)", domain=(-1.0, 1.0))
    stats = binary.compare_codes(n, bits, d, base=base)
    binary_name, sin_name = f"binary, {bits} bits", f"sinusoidal, d = {d}"
    steps = pd.concat([
        pd.DataFrame({"position": range(1, n), "distance": stats.binary_steps.numpy(), "code": binary_name}),
        pd.DataFrame({"position": range(1, n), "distance": stats.sinusoidal_steps.numpy(), "code": sin_name}),
    ])
    dial = pd.concat([
        pd.DataFrame({"position": range(n), "distance": stats.dial_distances.numpy(),
                      "code": f"dials sin(2πi/2^j), {bits} columns"}),
        pd.DataFrame({"position": range(n), "distance": stats.sinusoidal_distances.numpy(),
                      "code": f"sinusoidal, d = {d}, base {base}"}),
    ])
    return {
        "codes": codes,
        "bits_chart": bits_chart, "bits_exact": bits_exact,
        "p_chart": p_chart, "p_exact": p_exact,
        "steps": charts.line_chart(steps, x="position", y="distance", series="code", x_title="Position i",
                                   y_title="‖code(i) − code(i−1)‖", series_title="Code", step=True).spec(),
        "dial": charts.line_chart(dial, x="position", y="distance", series="code", x_title="Position i",
                                  y_title="‖code(i) − code(0)‖", series_title="Code").spec(),
        "stats": stats,
    }


@st.cache_resource(max_entries=48, show_spinner=False)
def overlay(n: int, bit: int, d: int, base: int, column: int, wavelength: float):
    frame = pd.concat([
        pd.DataFrame({"position": range(n), "value": binary.bit_wave(n, bit).numpy(),
                      "series": f"bit {bit} as −1/+1 (period {2 ** (bit + 1)})"}),
        pd.DataFrame({"position": range(n),
                      "value": pekit.sinusoidal_columns(n, d, [column], base=base)[:, 0].double().cpu().numpy(),
                      "series": f"column {column}: sine, wavelength {wavelength:.4g}"}),
    ])
    return charts.line_chart(frame, x="position", y="value", series="series", x_title="Position i",
                             y_title="value", series_title="Curve", y_domain=(-1.1, 1.1)).spec()


@st.cache_resource(max_entries=48, show_spinner=False)
def same_width(n: int, width: int, base: int):
    return binary.equal_width(n, width, base=base)
