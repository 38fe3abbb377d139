"""The binary analogy page's views: binary codes beside the sinusoidal table, the ladders of bit
periods and pair wavelengths, one bit against its closest column, distances between codes; and
the sentences that state their numbers."""

from dataclasses import dataclass

import pandas as pd
import streamlit as st

import pekit
from pekit import binary, charts

# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Records are frozen and nothing changes a result after it is made.


@dataclass(frozen=True)
class AnalogyView:
    """Binary codes of ``bits`` bits and the sinusoidal table of width ``d`` over ``n`` positions:
    both drawn, the codes as text, and what :func:`pekit.binary.compare_codes` measures."""

    n: int
    bits: int
    d: int
    base: int
    codes: pd.DataFrame  # position, lsb_first, msb_first
    bits_chart: dict
    bits_exact: bool  # one pixel per cell (else block means)
    p_chart: dict
    p_exact: bool
    steps_chart: dict  # distance between neighbouring positions, both codes
    dial_chart: dict  # distance from position 0: dials and the sinusoidal table
    stats: binary.CodeComparison
    bits_needed: int  # the fewest bits that tell positions 0 .. n − 1 apart
    binary_step_low: float  # the smallest and largest distance between neighbouring binary codes
    binary_step_high: float
    sinusoidal_step_low: float  # the same for rows of the sinusoidal table
    sinusoidal_step_high: float
    jump_from_code: str  # the codes (most significant bit first) before and at the biggest jump
    jump_to_code: str

    @property
    def last_position(self) -> int:
        return self.n - 1

    @property
    def last_bit(self) -> int:
        return self.bits - 1

    @property
    def code_count(self) -> int:
        """How many different codes ``bits`` bits have."""
        return 2**self.bits

    @property
    def codes_wrap(self) -> bool:
        """Whether ``bits`` bits are too few for n positions (the codes start over)."""
        return self.bits < self.bits_needed


def _heatmap(X, *, x_title: str, domain: tuple[float, float]):
    """Drawn as images (one pixel per cell or block): two side-by-side tables redraw fast."""
    drawn = charts.heatmap(X, x_title=x_title, y_title="Row (position)", domain=domain, height=320, max_marks=0)
    return drawn.spec(), drawn.drawing.exact


@st.cache_resource(max_entries=24, show_spinner=False)
def analogy_view(n: int, bits: int, d: int, base: int) -> AnalogyView:
    B = pekit.binary_encoding(n, bits, device="cpu")  # (n, bits)
    P = pekit.sinusoidal_encoding(n, d, base=base)  # (n, d)
    msb_first = binary.binary_strings(n, bits, lsb_first=False)
    codes = pd.DataFrame({"position": range(n), "lsb_first": binary.binary_strings(n, bits),
                          "msb_first": msb_first})
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
    bin_lo, bin_hi = map(float, stats.binary_steps.aminmax())
    sin_lo, sin_hi = map(float, stats.sinusoidal_steps.aminmax())
    return AnalogyView(
        n=n, bits=bits, d=d, base=base, codes=codes,
        bits_chart=bits_chart, bits_exact=bits_exact, p_chart=p_chart, p_exact=p_exact,
        steps_chart=charts.line_chart(steps, x="position", y="distance", series="code", x_title="Position i",
                                      y_title="‖code(i) − code(i−1)‖", series_title="Code", step=True).spec(),
        dial_chart=charts.line_chart(dial, x="position", y="distance", series="code", x_title="Position i",
                                     y_title="‖code(i) − code(0)‖", series_title="Code").spec(),
        stats=stats, bits_needed=binary.bits_needed(n),
        binary_step_low=bin_lo, binary_step_high=bin_hi, sinusoidal_step_low=sin_lo, sinusoidal_step_high=sin_hi,
        jump_from_code=msb_first[stats.biggest_jump - 1], jump_to_code=msb_first[stats.biggest_jump],
    )


def counting_caption(view: AnalogyView) -> str:
    """The codes listed, and where too few bits make them start over."""
    n1, bits = view.last_position, view.bits
    return (
        f"The book prints 0 … 7 with three bits; here 0 … {n1} with {bits} bit(s), least significant "
        "bit first (as the Julia edition prints it) and most significant first (the usual way). "
        + (f"{n1} needs {view.bits_needed} bits, so with {bits} the codes start over at {view.code_count}: position "
           f"{view.code_count} gets the code of 0." if view.codes_wrap else "")
    )


def steps_sentence(view: AnalogyView) -> str:
    """How far each code moves between neighbouring positions, and how many positions each tells apart."""
    stats = view.stats
    jump, flips = stats.biggest_jump, stats.biggest_jump_flips
    lo, hi = view.sinusoidal_step_low, view.sinusoidal_step_high
    return (
        f"Between neighbouring positions the binary code jumps by anything from {view.binary_step_low:.3g} to "
        f"{view.binary_step_high:.3g} ({jump - 1} → {jump} flips {flips} bit{'s' if flips > 1 else ''} "
        f"at once: {view.jump_from_code} → {view.jump_to_code}), while the sinusoidal code "
        f"always moves by {lo:.6g}" + (f" to {hi:.6g}" if hi - lo > 1e-6 else "")
        + f": the same step everywhere. With {view.bits} bits, binary tells at most 2^{view.bits} = {view.code_count} "
        f"positions apart, and uses only the corners of a cube; {view.d} real-valued columns tell "
        f"{stats.sinusoidal.distinct} of the {view.n} positions here apart and leave room between them. That is the "
        "sense in which the book calls continuous representations more space-efficient."
    )


def dial_sentence(view: AnalogyView) -> str:
    """Where the power-of-two dials return to position 0's code, against the sinusoidal table."""
    hits = view.stats.dial_returns
    return (
        "Think of each column as a dial turning at its own speed. With speeds set to powers of two "
        "(column j completes a turn every 2^j positions), all dials come back to where they started "
        f"after 2^{view.last_bit} positions, and sines alone already agree halfway: "
        + (f"positions {', '.join(map(str, hits[:8]))}{' …' if len(hits) > 8 else ''} get exactly "
           "the code of position 0 (distance 0 above)." if hits else "within this range none collide yet.")
        + " Lowering every frequency with the base and pairing each sine with a cosine keeps the "
        "encoding away from its starting point: its smallest distance to position 0 here is "
        f"{view.stats.sinusoidal_min_from_first:.3g}."
    )


@dataclass(frozen=True)
class Ladders:
    """What does not depend on n: each bit's period against the pair wavelengths of width ``d``."""

    bits: int
    d: int
    base: int
    matches: pd.DataFrame  # one row per bit: its closest pair (pekit.binary.match_bits_to_pairs)
    chart: dict  # both ladders on a log axis
    growth: float  # base^(2/d), the factor from one pair's wavelength to the next
    longest: float  # the last pair's wavelength
    fast: tuple[int, ...]  # bits faster than every pair (period below 2π)
    slow: tuple[int, ...]  # bits slower than every pair

    @property
    def fast_periods(self) -> tuple[int, ...]:
        return tuple(2 ** (b + 1) for b in self.fast)


@st.cache_resource(max_entries=24, show_spinner=False)
def ladders(bits: int, d: int, base: int) -> Ladders:
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
    return Ladders(
        bits=bits, d=d, base=base, matches=matches, chart=chart.spec(),
        growth=binary.wavelength_growth(d, base=base), longest=float(waves[-1]),
        fast=tuple(int(b) for b in matches["bit"][matches["faster_than_every_pair"]]),
        slow=tuple(int(b) for b in matches["bit"][matches["slower_than_every_pair"]]),
    )


def _bits(bits: tuple[int, ...]) -> str:
    return ("bit " if len(bits) == 1 else "bits ") + ", ".join(map(str, bits))


def ladders_sentence(view: Ladders) -> str:
    """How the two ladders climb, and the bits with no partner at either end."""
    fast, slow = view.fast, view.slow
    return (
        f"Bit periods double from one bit to the next; pair wavelengths grow by the factor "
        f"base^(2/d) = {view.growth:.3g} per pair. So the two ladders climb at "
        "different rates and only line up approximately. The correspondence stops at both ends: no column "
        f"is faster than 2π ≈ 6.28 positions"
        + (f", so {_bits(fast)} (period{'s' if len(fast) > 1 else ''} "
           f"{', '.join(map(str, view.fast_periods))}) {'have' if len(fast) > 1 else 'has'} no true partner"
           if fast else "")
        + f", and no column is slower than the last pair's {view.longest:,.0f} positions"
        + (f"; {_bits(slow)} {'are' if len(slow) > 1 else 'is'} slower than that." if slow
           else "; every bit shown here is faster than that.")
    )


@dataclass(frozen=True)
class BitMatch:
    """Bit ``bit`` against the sine column whose wavelength is closest to its period, drawn
    over the first ``window`` of ``n`` positions."""

    n: int
    bit: int
    window: int
    period: int
    pair: int
    sin_column: int
    wavelength: float
    ratio: float  # wavelength / period
    chart: dict

    @property
    def last_shown(self) -> int:
        return self.window - 1

    @property
    def cos_column(self) -> int:
        return self.sin_column + 1

    @property
    def cut(self) -> bool:
        """Whether the chart shows fewer positions than there are."""
        return self.window < self.n


@st.cache_resource(max_entries=48, show_spinner=False)
def overlay(n: int, bit: int, d: int, base: int, column: int, wavelength: float) -> dict:
    frame = pd.concat([
        pd.DataFrame({"position": range(n), "value": binary.bit_wave(n, bit).numpy(),
                      "series": f"bit {bit} as −1/+1 (period {2 ** (bit + 1)})"}),
        pd.DataFrame({"position": range(n),
                      "value": pekit.sinusoidal_columns(n, d, [column], base=base)[:, 0].double().cpu().numpy(),
                      "series": f"column {column}: sine, wavelength {wavelength:.4g}"}),
    ])
    return charts.line_chart(frame, x="position", y="value", series="series", x_title="Position i",
                             y_title="value", series_title="Curve", y_domain=(-1.1, 1.1)).spec()


def bit_match(n: int, bit: int, ladder: Ladders) -> BitMatch:
    """Bit ``bit`` of the ladders over n positions (the chart is cached by :func:`overlay`)."""
    row = ladder.matches.iloc[bit]
    window = binary.overlay_window(n, bit)
    column, wavelength = int(row["sin_column"]), float(row["wavelength"])
    return BitMatch(n=n, bit=bit, window=window, period=int(row["period"]), pair=int(row["pair"]),
                    sin_column=column, wavelength=wavelength, ratio=float(row["ratio"]),
                    chart=overlay(window, bit, ladder.d, ladder.base, column, wavelength))


def overlay_caption(match: BitMatch) -> str:
    """The positions drawn, the bit's period, its closest pair and how far the two differ."""
    return (
        f"Positions 0 to {match.last_shown}" + (" (about four of the bit's periods; the rest repeats)" if match.cut else "")
        + f". Bit {match.bit} repeats every {match.period} positions; the closest wavelength is pair "
        f"{match.pair} (columns {match.sin_column} and {match.cos_column}) at "
        f"{match.wavelength:.4g} positions, {match.ratio:.3g} times the bit's period. The bit jumps "
        "between two values; the column glides through every value in between."
    )


@st.cache_resource(max_entries=48, show_spinner=False)
def same_width(n: int, width: int, base: int) -> binary.EqualWidth:
    return binary.equal_width(n, width, base=base)


def equal_width_sentence(eq: binary.EqualWidth) -> str:
    """How many of the n positions each code of the same width tells apart."""
    width, n, b, s = eq.width, eq.n, eq.binary, eq.sinusoidal
    many = "s" if width != 1 else ""
    return (
        f"**The same width for both.** With {width} number{many} per position, a binary code "
        f"has 2^{width} = {2 ** width:,} different codes, so it tells **{b.distinct} of the {n}** positions "
        "apart" + (f" (position {b.pair[1]} gets the code of position {b.pair[0]})" if b.min_distance == 0 else "")
        + f"; {width} sinusoidal column{many} tell **{s.distinct} of the {n}** apart, "
        f"the closest two (positions {s.pair[0]} and {s.pair[1]}) still "
        f"{s.min_distance:.3g} apart. Real-valued columns can take any value between −1 and 1, where a "
        "bit has two: that is the sense in which the book calls continuous representations more space-efficient."
    )
