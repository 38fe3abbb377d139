"""Binary analogy: the bits of a counter next to the columns of the sinusoidal encoding."""

import pandas as pd
import streamlit as st

import pekit
from pekit import binary, charts
from pekit.params import IntSetting
from pekit.reduce import block_summary, drawing_blocks
from pekit.similarity import neighbour_distances
from pages._shared import UrlSettings, int_slider, require_shell, show_chart, show_error

require_shell()

N = IntSetting("n", "Positions n", default=64, minimum=2, maximum=1024)
BITS = IntSetting("bits", "Bits", default=6, minimum=1, maximum=16)
D = IntSetting("d", "Dimension d", default=32, minimum=2, maximum=1024)
BASE = IntSetting("base", "Base", default=10000, minimum=2, maximum=1_000_000)
BIT = IntSetting("bit", "Bit to compare", default=2, minimum=0, maximum=15)
MAX_PIXELS = (320, 320)


def _heatmap(X, *, x_title: str, domain: tuple[float, float]):
    """Drawn as images (one pixel per cell or block): two side-by-side tables redraw fast."""
    n, width = X.shape
    summary = block_summary(X, *drawing_blocks(n, width, max_marks=0, max_pixels=MAX_PIXELS), extremes=False)
    chart = charts.heatmap(summary, x_title=x_title, y_title="Row (position)", domain=domain, height=320, max_marks=0)
    return charts.to_spec(chart), summary.exact


@st.cache_data(max_entries=24, show_spinner=False)
def ladders(bits: int, d: int, base: int):
    """What does not depend on n: bit periods against pair wavelengths."""
    matches = binary.match_bits_to_pairs(bits, d, base=base)
    periods = pd.concat([
        pd.DataFrame({"index": range(bits), "positions": binary.bit_periods(bits).numpy(),
                      "kind": "bit b: period 2^(b+1)"}),
        pd.DataFrame({"index": range(d // 2 + d % 2), "positions": pekit.wavelengths(d, base=base).numpy(),
                      "kind": "column pair j: wavelength 2π·base^(2j/d)"}),
    ])
    chart = charts.line_chart(periods, x="index", y="positions", series="kind", x_title="Bit b or pair j",
                              y_title="Positions per cycle", series_title="", log_y=True, points=len(periods) <= 128)
    return matches, charts.to_spec(chart)


@st.cache_data(max_entries=24, show_spinner=False)
def analogy_view(n: int, bits: int, d: int, base: int):
    B = pekit.binary_encoding(n, bits, device="cpu")  # (n, bits)
    P = pekit.sinusoidal_encoding(n, d, base=base)  # (n, d)
    codes = pd.DataFrame({"position": range(n), "LSB first": binary.binary_strings(n, bits),
                          "MSB first": binary.binary_strings(n, bits, lsb_first=False)})
    bits_chart, bits_exact = _heatmap(B, x_title="Bit (0 = least significant)", domain=(0.0, 1.0))
    p_chart, p_exact = _heatmap(P, x_title="Column (encoding dimension)", domain=(-1.0, 1.0))
    steps = pd.concat([
        pd.DataFrame({"position": range(1, n), "distance": neighbour_distances(B).double().cpu().numpy(),
                      "code": f"binary, {bits} bits"}),
        pd.DataFrame({"position": range(1, n), "distance": neighbour_distances(P).double().cpu().numpy(),
                      "code": f"sinusoidal, d = {d}"}),
    ])
    M = binary.dial_encoding(n, bits)
    dial = pd.concat([
        pd.DataFrame({"position": range(n), "distance": binary.distances_from_first(M).numpy(),
                      "code": f"dials sin(2πi/2^j), {bits} columns"}),
        pd.DataFrame({"position": range(n), "distance": binary.distances_from_first(P).numpy(),
                      "code": f"sinusoidal, d = {d}, base {base}"}),
    ])
    dial_hits = dial[(dial["code"].str.startswith("dials")) & (dial["position"] > 0) & (dial["distance"] < 1e-9)]
    return {
        "codes": codes,
        "bits_chart": bits_chart, "bits_exact": bits_exact,
        "p_chart": p_chart, "p_exact": p_exact,
        "steps": charts.to_spec(charts.line_chart(steps, x="position", y="distance", series="code",
                                                  x_title="Position i", y_title="‖code(i) − code(i−1)‖",
                                                  series_title="", step=True)),
        "step_range": {code: (float(g.min()), float(g.max())) for code, g in steps.groupby("code")["distance"]},
        "biggest_jump": int(steps[steps["code"].str.startswith("binary")]["distance"].idxmax()) + 1,
        "distinct_bits": binary.distinct_positions(B),
        "distinct_p": binary.distinct_positions(P),
        "dial": charts.to_spec(charts.line_chart(dial, x="position", y="distance", series="code",
                                                 x_title="Position i", y_title="‖code(i) − code(0)‖",
                                                 series_title="")),
        "dial_hits": dial_hits["position"].tolist(),
        "p_min_from_first": float(dial[dial["code"].str.startswith("sinusoidal")]["distance"].iloc[1:].min()),
    }


@st.cache_data(max_entries=48, show_spinner=False)
def overlay(n: int, bit: int, d: int, base: int, column: int, wavelength: float):
    frame = pd.concat([
        pd.DataFrame({"position": range(n), "value": binary.bit_wave(n, bit).numpy(),
                      "series": f"bit {bit} as −1/+1 (period {2 ** (bit + 1)})"}),
        pd.DataFrame({"position": range(n),
                      "value": pekit.sinusoidal_columns(n, d, [column], base=base)[:, 0].double().cpu().numpy(),
                      "series": f"column {column}: sine, wavelength {wavelength:.4g}"}),
    ])
    return charts.to_spec(charts.line_chart(frame, x="position", y="value", series="series",
                                            x_title="Position i", y_title="value", series_title="",
                                            y_domain=(-1.1, 1.1)))


st.title("Binary analogy")
st.markdown(
    "Write the positions 0, 1, 2, … in binary and watch the columns: the lowest bit flips at "
    "every step, the next one every two steps, the next every four. The sinusoidal encoding "
    "does the same thing with smooth waves instead of flips: early columns oscillate fast, "
    "later ones slowly. This page puts the two side by side and measures where the comparison "
    "holds and where it breaks."
)

url = UrlSettings("binary", [N, BITS, D, BASE, BIT])
c1, c2, c3, c4 = st.columns([3, 2, 3, 2])
with c1:
    n = int_slider(url, N, help="How many positions (0 to n − 1) to encode.")
with c2:
    bits = int_slider(url, BITS, help="Width of the binary code. With fewer bits than n needs, codes repeat.")
with c3:
    d = int_slider(url, D, help="Width of the sinusoidal encoding.")
with c4:
    base = st.number_input(BASE.label, BASE.minimum, BASE.maximum, step=1000, key=url.key(BASE))

try:
    view = analogy_view(n, bits, d, base)
except ValueError as err:
    show_error(err)
    st.stop()

st.subheader("Counting in binary")
need = max(1, (n - 1).bit_length())
st.dataframe(view["codes"], hide_index=True, height=250, width="stretch")
st.caption(
    f"The book prints 0 … 7 with three bits; here 0 … {n - 1} with {bits} bit(s), least significant "
    "bit first (as the Julia edition prints it) and most significant first (the usual way). "
    + (f"{n - 1} needs {need} bits, so with {bits} the codes start over at {2 ** bits}: position "
       f"{2 ** bits} gets the code of 0." if bits < need else "")
)

st.subheader("Bits and columns, side by side")
left, right = st.columns(2)
with left:
    show_chart(view["bits_chart"])
    st.caption("Binary code: bit 0 (left) flips every position, bit b every 2^b positions. "
               "Blue = 0, red = 1." + ("" if view["bits_exact"] else " Each pixel is a block mean."))
with right:
    show_chart(view["p_chart"])
    st.caption("Sinusoidal encoding P: column pairs slow down from left to right. Blue = −1, red = +1."
               + ("" if view["p_exact"] else " Each pixel is the mean of a block of positions × columns."))

st.subheader("One bit against its closest column")
url.clamp(BIT, bits - 1)
bit = st.selectbox(BIT.label, list(range(bits)), key=url.key(BIT),
                   help="Bit b is a square wave with period 2^(b+1) positions.")
matches, periods_chart = ladders(bits, d, base)
row = matches.iloc[bit]
window = min(n, max(32, min(300, 4 * 2 ** (bit + 1))))  # about four periods, drawn point by point
show_chart(overlay(window, bit, d, base, int(row["sin column"]), float(row["wavelength"])))
st.caption(
    f"Positions 0 to {window - 1}" + (" (about four of the bit's periods; the rest repeats)" if window < n else "")
    + f". Bit {bit} repeats every {int(row['period'])} positions; the closest wavelength is pair "
    f"{int(row['pair'])} (columns {int(row['sin column'])} and {int(row['sin column']) + 1}) at "
    f"{row['wavelength']:.4g} positions, {row['ratio']:.3g} times the bit's period. The bit jumps "
    "between two values; the column glides through every value in between."
)
st.latex(
    r"\text{bit } b:\ T_b = 2^{b+1}, \qquad \text{pair } j:\ \lambda_j = 2\pi\,\text{base}^{2j/d}"
    r"\qquad\Rightarrow\qquad \lambda_j = T_b \iff j = \frac{d}{2}\,\frac{(b+1)\ln 2 - \ln 2\pi}{\ln \text{base}}"
)
show_chart(periods_chart)
ratio = base ** (2 / d)
last = matches[matches["ratio"] < 0.5]
st.markdown(
    f"Bit periods double from one bit to the next; pair wavelengths grow by the factor "
    f"base^(2/d) = {ratio:.3g} per pair. So the two ladders climb at different rates and only "
    "line up approximately. The correspondence stops at both ends: no column is faster than "
    "2π ≈ 6.28 positions, so bits 0 and 1 (periods 2 and 4) have no true partner, and no column "
    f"is slower than 2π·base^((d−2)/d) ≈ {float(pekit.wavelengths(d, base=base)[-1]):,.0f} positions"
    + (f"; bits {', '.join(str(b) for b in last['bit'])} are slower than that." if len(last) else ".")
)
with st.expander("All bits and their closest pairs"):
    st.dataframe(matches, hide_index=True, width="stretch")

st.subheader("Why continuous values?")
db, dp = view["distinct_bits"], view["distinct_p"]
m1, m2, m3, m4 = st.columns(4)
m1.metric("Distinct codes, binary", f"{db['distinct']} of {n}")
m2.metric("Distinct codes, sinusoidal", f"{dp['distinct']} of {n}")
m3.metric("Closest two positions, binary", f"{db['min_distance']:.3g}",
          help="Distinct: codes more than 0.001 apart from every other position's code.")
m4.metric("Closest two positions, sinusoidal", f"{dp['min_distance']:.3g}")
show_chart(view["steps"])
(bin_lo, bin_hi), (sin_lo, sin_hi) = (view["step_range"][f"binary, {bits} bits"],
                                      view["step_range"][f"sinusoidal, d = {d}"])
jump = view["biggest_jump"]
msb = view["codes"]["MSB first"]
st.markdown(
    f"Between neighbouring positions the binary code jumps by anything from {bin_lo:.3g} to "
    f"{bin_hi:.3g} ({jump - 1} → {jump} flips {round(bin_hi ** 2)} bits at once: {msb[jump - 1]} → "
    f"{msb[jump]}), while the sinusoidal code "
    f"always moves by {sin_lo:.6g}" + (f" to {sin_hi:.6g}" if sin_hi - sin_lo > 1e-6 else "")
    + f": the same step everywhere. With {bits} bits, binary tells at most 2^{bits} = {2 ** bits} "
    f"positions apart, and uses only the corners of a cube; {d} real-valued columns tell all "
    f"{n} positions here apart and leave room between them. That is the sense in which the "
    "book calls continuous representations more space-efficient."
)

st.subheader("Dials that close on themselves")
st.latex(r"M_{ij} = \sin\!\left(\frac{2\pi i}{2^j}\right) \qquad\text{versus}\qquad "
         r"P_{i,2j} = \sin\!\left(\frac{i}{\text{base}^{2j/d}}\right),\ P_{i,2j+1} = \cos(\cdot)")
show_chart(view["dial"])
hits = view["dial_hits"]
st.markdown(
    "Think of each column as a dial turning at its own speed. With speeds set to powers of two "
    "(column j completes a turn every 2^j positions), all dials come back to where they started "
    f"after 2^{bits - 1} positions, and sines alone already agree halfway: "
    + (f"positions {', '.join(map(str, hits[:8]))}{' …' if len(hits) > 8 else ''} get exactly "
       "the code of position 0 (distance 0 above)." if hits else "within this range none collide yet.")
    + f" Lowering every frequency with the base and pairing each sine with a cosine keeps the "
    f"encoding away from its starting point: its smallest distance to position 0 here is "
    f"{view['p_min_from_first']:.3g}."
)

url.write_url()
