"""Binary analogy: the bits of a counter next to the columns of the sinusoidal encoding."""

import streamlit as st

import pekit
from pekit import binary
from lab.display import show_chart
from lab.page import lab_page
from lab.settings import BASE, IntSetting
from lab.views.binary_analogy import ladders, analogy_view, overlay, same_width

N = IntSetting("n", "Positions n", default=64, minimum=2, maximum=1024)
BITS = IntSetting("bits", "Bits", default=6, minimum=1, maximum=16)
D = IntSetting("d", "Dimension d", default=32, minimum=2, maximum=1024)
BIT = IntSetting("bit", "Bit to compare", default=2, minimum=0, maximum=15)
WIDTH = IntSetting("width", "Numbers per position", default=4, minimum=1, maximum=16)


def _bits(bits: list[int]) -> str:
    return ("bit " if len(bits) == 1 else "bits ") + ", ".join(map(str, bits))


INTRO = (
    "Count in binary and watch the columns: the lowest bit flips at every step, the next every two "
    "steps, the next every four. The sinusoidal encoding does the same with smooth waves: early "
    "columns oscillate fast, later ones slowly. Where does the comparison hold, and where does it break?"
)

with lab_page("binary", "Binary analogy", INTRO, [N, BITS, D, BASE, BIT, WIDTH]) as page:
    c1, c2, c3, c4 = st.columns([3, 2, 3, 2])
    with c1:
        n = page.slider(N, help="How many positions (0 to n − 1) to encode.")
    with c2:
        bits = page.slider(BITS, help="Width of the binary code. With fewer bits than n needs, codes repeat.")
    with c3:
        d = page.slider(D, help="Width of the sinusoidal encoding.")
    with c4:
        base = page.number(BASE, step=1000)
    view = analogy_view(n, bits, d, base)

    st.subheader("Bits and columns, side by side")
    left, right = st.columns(2)
    with left:
        show_chart(view["bits_chart"], title="Binary codes of the positions")
        st.caption("Binary code: bit 0 (left) flips every position, bit b every 2^b positions. "
                   "Blue = 0, red = 1." + ("" if view["bits_exact"] else " Each pixel is a block mean."))
    with right:
        show_chart(view["p_chart"], title="The sinusoidal table P")
        st.caption("Sinusoidal encoding P: column pairs slow down from left to right. Blue = −1, red = +1."
                   + ("" if view["p_exact"] else " Each pixel is the mean of a block of positions × columns."))

    st.subheader("Counting in binary")
    need = binary.bits_needed(n)
    st.dataframe(view["codes"], hide_index=True, height=250, width="stretch",
                 column_config={"lsb_first": "LSB first", "msb_first": "MSB first"})
    st.caption(
        f"The book prints 0 … 7 with three bits; here 0 … {n - 1} with {bits} bit(s), least significant "
        "bit first (as the Julia edition prints it) and most significant first (the usual way). "
        + (f"{n - 1} needs {need} bits, so with {bits} the codes start over at {2 ** bits}: position "
           f"{2 ** bits} gets the code of 0." if bits < need else "")
    )

    st.subheader("One bit against its closest column")
    page.clamp(BIT, bits - 1)
    bit = page.select(BIT, options=range(bits), help="Bit b is a square wave with period 2^(b+1) positions.")
    matches, periods_chart = ladders(bits, d, base)
    row = matches.iloc[bit]
    window = binary.overlay_window(n, bit)
    show_chart(overlay(window, bit, d, base, int(row["sin_column"]), float(row["wavelength"])),
               title=f"Bit {bit} against its closest column")
    st.caption(
        f"Positions 0 to {window - 1}" + (" (about four of the bit's periods; the rest repeats)" if window < n else "")
        + f". Bit {bit} repeats every {int(row['period'])} positions; the closest wavelength is pair "
        f"{int(row['pair'])} (columns {int(row['sin_column'])} and {int(row['sin_column']) + 1}) at "
        f"{row['wavelength']:.4g} positions, {row['ratio']:.3g} times the bit's period. The bit jumps "
        "between two values; the column glides through every value in between."
    )
    st.latex(
        r"\text{bit } b:\ T_b = 2^{b+1}, \qquad \text{pair } j:\ \lambda_j = 2\pi\,\text{base}^{2j/d}"
        r"\qquad\Rightarrow\qquad \lambda_j = T_b \iff j = \frac{d}{2}\,\frac{(b+1)\ln 2 - \ln 2\pi}{\ln \text{base}}"
    )
    show_chart(periods_chart, title="Bit periods and pair wavelengths")
    fast = matches[matches["faster_than_every_pair"]]["bit"].tolist()
    slow = matches[matches["slower_than_every_pair"]]["bit"].tolist()
    waves = pekit.wavelengths(d, base=base)
    st.markdown(
        f"Bit periods double from one bit to the next; pair wavelengths grow by the factor "
        f"base^(2/d) = {binary.wavelength_growth(d, base=base):.3g} per pair. So the two ladders climb at "
        "different rates and only line up approximately. The correspondence stops at both ends: no column "
        f"is faster than 2π ≈ 6.28 positions"
        + (f", so {_bits(fast)} (period{'s' if len(fast) > 1 else ''} "
           f"{', '.join(str(2 ** (b + 1)) for b in fast)}) {'have' if len(fast) > 1 else 'has'} no true partner"
           if fast else "")
        + f", and no column is slower than the last pair's {float(waves[-1]):,.0f} positions"
        + (f"; {_bits(slow)} {'are' if len(slow) > 1 else 'is'} slower than that." if slow
           else f"; every bit shown here is faster than that.")
    )
    with st.expander("All bits and their closest pairs"):
        st.dataframe(matches, hide_index=True, width="stretch")

    st.subheader("Why continuous values?")
    c5, _ = st.columns([1, 3])
    with c5:
        width = page.slider(WIDTH, help="The same number of columns for both codes: bits, or sine/cosine columns.")
    eq = same_width(n, width, base)
    st.markdown(
        f"**The same width for both.** With {width} number{'s' if width != 1 else ''} per position, a binary code "
        f"has 2^{width} = {2 ** width:,} different codes, so it tells **{eq.binary.distinct} of the {n}** positions "
        "apart" + (f" (position {eq.binary.pair[1]} gets the code of position {eq.binary.pair[0]})"
                   if eq.binary.min_distance == 0 else "")
        + f"; {width} sinusoidal column{'s' if width != 1 else ''} tell **{eq.sinusoidal.distinct} of the {n}** apart, "
        f"the closest two (positions {eq.sinusoidal.pair[0]} and {eq.sinusoidal.pair[1]}) still "
        f"{eq.sinusoidal.min_distance:.3g} apart. Real-valued columns can take any value between −1 and 1, where a "
        "bit has two: that is the sense in which the book calls continuous representations more space-efficient."
    )
    stats = view["stats"]
    db, dp = stats.binary, stats.sinusoidal
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Distinct codes, binary", f"{db.distinct} of {n}")
    m2.metric("Distinct codes, sinusoidal", f"{dp.distinct} of {n}")
    m3.metric("Closest two positions, binary", f"{db.min_distance:.3g}",
              help="Distinct: codes more than 0.001 apart from every other position's code.")
    m4.metric("Closest two positions, sinusoidal", f"{dp.min_distance:.3g}")
    show_chart(view["steps"], title="Distance between neighbouring positions")
    bin_lo, bin_hi = map(float, stats.binary_steps.aminmax())
    sin_lo, sin_hi = map(float, stats.sinusoidal_steps.aminmax())
    jump = stats.biggest_jump
    msb = view["codes"]["msb_first"]
    st.markdown(
        f"Between neighbouring positions the binary code jumps by anything from {bin_lo:.3g} to "
        f"{bin_hi:.3g} ({jump - 1} → {jump} flips {stats.biggest_jump_flips} bit{'s' if stats.biggest_jump_flips > 1 else ''} "
        f"at once: {msb[jump - 1]} → {msb[jump]}), while the sinusoidal code "
        f"always moves by {sin_lo:.6g}" + (f" to {sin_hi:.6g}" if sin_hi - sin_lo > 1e-6 else "")
        + f": the same step everywhere. With {bits} bits, binary tells at most 2^{bits} = {2 ** bits} "
        f"positions apart, and uses only the corners of a cube; {d} real-valued columns tell "
        f"{dp.distinct} of the {n} positions here apart and leave room between them. That is the sense in which the "
        "book calls continuous representations more space-efficient."
    )

    st.subheader("Dials that close on themselves")
    st.latex(r"M_{ij} = \sin\!\left(\frac{2\pi i}{2^j}\right) \qquad\text{versus}\qquad "
             r"P_{i,2j} = \sin\!\left(\frac{i}{\text{base}^{2j/d}}\right),\ P_{i,2j+1} = \cos(\cdot)")
    show_chart(view["dial"], title="Distance from position 0")
    hits = stats.dial_returns
    st.markdown(
        "Think of each column as a dial turning at its own speed. With speeds set to powers of two "
        "(column j completes a turn every 2^j positions), all dials come back to where they started "
        f"after 2^{bits - 1} positions, and sines alone already agree halfway: "
        + (f"positions {', '.join(map(str, hits[:8]))}{' …' if len(hits) > 8 else ''} get exactly "
           "the code of position 0 (distance 0 above)." if hits else "within this range none collide yet.")
        + f" Lowering every frequency with the base and pairing each sine with a cosine keeps the "
        f"encoding away from its starting point: its smallest distance to position 0 here is "
        f"{stats.sinusoidal_min_from_first:.3g}."
    )
