"""The binary analogy page's views: binary codes beside the sinusoidal table, the ladders of bit
periods and pair wavelengths, one bit against its closest column, distances between codes; and
the sentences that state their numbers."""

import math
from dataclasses import dataclass

import pandas as pd
import streamlit as st
import torch

import pekit
from lab.display import number, plural
from pekit import binary, charts

DISTINCT = 1e-3  # pekit.binary.distinct_positions' tolerance: codes closer than this count as one
# how the distinct codes are counted (pekit.binary.distinct_positions): in order, a position is a new
# code unless its code lies within DISTINCT of an earlier position's
DISTINCT_RULE = (f"a position counts when its code is more than {number(DISTINCT, 'g')} from the code of every "
                 "earlier position")
DISTINCT_HELP = f"Distinct codes: {DISTINCT_RULE}; one within {number(DISTINCT, 'g')} of an earlier code is the same code."
SAME_STEP = 1e-11  # float64 neighbour steps (at most √d ≈ 32 long) that agree to this are the same step

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
    sinusoidal_step_low: float  # the same for rows of the sinusoidal table (float64)
    sinusoidal_step_high: float
    jump_from_code: str  # the codes (most significant bit first) before and at the biggest jump
    jump_to_code: str
    closest_to_first: int  # the position (> 0) whose sinusoidal code is closest to position 0's

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
    binary_name, sin_name = f"binary, {bits} {plural(bits, 'bit')}", f"sinusoidal, d = {d}"
    steps = pd.concat([
        pd.DataFrame({"position": range(1, n), "distance": stats.binary_steps.numpy(), "code": binary_name}),
        pd.DataFrame({"position": range(1, n), "distance": stats.sinusoidal_steps.numpy(), "code": sin_name}),
    ])
    dial = pd.concat([
        pd.DataFrame({"position": range(n), "distance": stats.dial_distances.numpy(),
                      "code": f"dials sin(2πi/2^j), {bits} {plural(bits, 'column')}"}),
        pd.DataFrame({"position": range(n), "distance": stats.sinusoidal_distances.numpy(),
                      "code": f"sinusoidal, d = {d}, base {base}"}),
    ])
    bin_lo, bin_hi = map(float, stats.binary_steps.aminmax())
    P64 = pekit.sinusoidal_encoding(n, d, base=base, device="cpu", dtype=torch.float64)  # (n, d)
    sin_lo, sin_hi = map(float, (P64[1:] - P64[:-1]).norm(dim=1).aminmax())  # float64: the sentence's steps
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
        closest_to_first=int(stats.sinusoidal_distances[1:].argmin()) + 1,
    )


def cube(bits: int) -> str:
    """The shape whose corners are the codes of ``bits`` bits."""
    return {1: "the two ends of a segment", 2: "the corners of a square", 3: "the corners of a cube"}.get(
        bits, f"the corners of {'an' if str(bits)[0] == '8' or bits in (11, 18) else 'a'} {bits}-dimensional cube")


def bits_caption(view: AnalogyView) -> str:
    """What the heatmap of the binary codes shows."""
    return ("Binary code: bit 0 (left) flips at every position"
            + (", bit b every 2^b positions" if view.bits > 1 else "") + ". Blue = 0, red = 1."
            + ("" if view.bits_exact else " Each pixel is a block mean."))


def table_caption(view: AnalogyView) -> str:
    """What the heatmap of the sinusoidal table shows."""
    pairs = (view.d + 1) // 2
    shape = ("one sine/cosine pair, wavelength 2π" if view.d == 2
             else f"{pairs} column pairs, slower from left to right"
             + (f" (the last, column {view.d - 1}, a sine without its cosine)" if view.d % 2 else ""))
    return (f"Sinusoidal encoding P: {shape}. Blue = −1, red = +1."
            + ("" if view.p_exact else " Each pixel is the mean of a block of positions × columns."))


def metric_labels(view: AnalogyView) -> tuple[str, str, str, str]:
    """The four metrics' labels, each naming the width it measures (short enough for a quarter of a
    projector's width)."""
    b, d = f"{view.bits} {plural(view.bits, 'bit')}", f"d = {view.d}"
    return (f"Distinct codes, {b}", f"Distinct codes, {d}", f"Closest pair, {b}", f"Closest pair, {d}")


def counting_caption(view: AnalogyView) -> str:
    """The codes listed, and where too few bits make them start over."""
    n1, bits = view.last_position, view.bits
    return (
        f"The book prints 0 … 7 with three bits; here 0 … {n1} with {bits} {plural(bits, 'bit')}, least significant "
        "bit first (as the Julia edition prints it) and most significant first (the usual way). "
        + (f"{n1} needs {view.bits_needed} bits, so with {bits} the codes start over at {view.code_count}: position "
           f"{view.code_count} gets the code of 0." if view.codes_wrap else "")
    )


def steps_sentence(view: AnalogyView) -> str:
    """How far each code moves between neighbouring positions, and how many positions each tells apart."""
    stats = view.stats
    jump, flips = stats.biggest_jump, stats.biggest_jump_flips
    lo, hi = view.sinusoidal_step_low, view.sinusoidal_step_high
    if view.binary_step_low == view.binary_step_high:
        text = (f"Between neighbouring positions the binary code moves by {number(view.binary_step_low, '.3g')} at every step "
                f"({flips} {plural(flips, 'bit')} flips each time)")
    else:
        text = (f"Between neighbouring positions the binary code jumps by anything from {number(view.binary_step_low, '.3g')} "
                f"to {number(view.binary_step_high, '.3g')} ({jump - 1} → {jump} flips {flips} {plural(flips, 'bit')} at once: "
                f"{view.jump_from_code} → {view.jump_to_code})")
    if hi - lo <= SAME_STEP:
        text += (f", while the sinusoidal code always moves by {number(lo, '.6g')}: the same step everywhere (up to "
                 "float64 rounding). ")
    elif number(lo, ".6g") == number(hi, ".6g"):
        text += (f", while the sinusoidal code always moves by {number(lo, '.6g')} to six digits: the same step for "
                 f"every pair, plus the unpaired last sine column of an odd d, whose step depends on the position "
                 f"(the steps spread over {number(hi - lo, '.2g')}). ")
    else:
        text += (f", while the sinusoidal code moves by {number(lo, '.6g')} to {number(hi, '.6g')}: the same step for every pair, plus "
                 "the unpaired last sine column of an odd d, whose step depends on the position. ")
    told = stats.sinusoidal.distinct
    return text + (
        f"With {view.bits} {plural(view.bits, 'bit')}, binary tells at most 2^{view.bits} = {view.code_count} "
        f"positions apart, and uses only {cube(view.bits)}; {view.d} real-valued columns tell "
        f"{told} of the {view.n} positions here apart (counting distinct codes: {DISTINCT_RULE})"
        + (" and leave room between them." if told == view.n else ".")
    )


def dial_sentence(view: AnalogyView) -> str:
    """Where the power-of-two dials return to position 0's code, against the sinusoidal table."""
    hits = view.stats.dial_returns
    shown = f"{', '.join(map(str, hits[:8]))}{' …' if len(hits) > 8 else ''}"
    if view.bits == 1:
        text = ("Think of each column as a dial turning at its own speed. With one bit there is one dial, "
                f"sin(2πi/2^0) = sin(2πi), which is 0 at every whole position: {plural(len(hits), 'position')} "
                f"{shown} {'gets' if len(hits) == 1 else 'all get'} the code of position 0 (distance 0 above, up to "
                "float rounding).")
    else:
        text = ("Think of each column as a dial turning at its own speed. With speeds set to powers of two "
                "(column j completes a turn every 2^j positions), all dials come back to where they started "
                f"after 2^{view.last_bit} = {2 ** view.last_bit} positions, and sines alone already agree halfway, "
                f"every {2 ** (view.bits - 2)} {plural(2 ** (view.bits - 2), 'position')}: "
                + (f"{plural(len(hits), 'position')} {shown} {'gets' if len(hits) == 1 else 'get'} the code of "
                   "position 0 (distance 0 above, up to float rounding)."
                   if hits else "within this range none collide yet."))
    closest, where = view.stats.sinusoidal_min_from_first, view.closest_to_first
    text += (" Lowering every frequency with the base and pairing each sine with a cosine keeps the encoding "
             f"away from its starting point: its smallest distance to position 0 here is {number(closest, '.3g')} "
             f"(position {where})")
    if closest <= DISTINCT:
        return text + f", though that is within the {number(DISTINCT, 'g')} this page counts as one code."
    return text + "."


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


def _positions(count: float) -> str:
    """A number of positions as the ladders sentence writes it: three digits below 100 (2π ≈ 6.28), whole
    positions above."""
    return number(count, ".3g") if count < 100 else f"{count:,.0f}"


def _factor(growth: float) -> str:
    """The growth factor with three digits, or as many more as it takes not to read as 1 or 2 when it is
    neither (base 2, d = 1024: 1.001, not 1)."""
    for digits in range(3, 17):
        text = format(growth, f".{digits}g")
        if float(text) not in (1.0, 2.0) or growth in (1.0, 2.0):
            break
    return number(growth, f".{digits}g")


def _bits(bits: tuple[int, ...]) -> str:
    return ("bit " if len(bits) == 1 else "bits ") + ", ".join(map(str, bits))


def ladders_sentence(view: Ladders) -> str:
    """How the two ladders climb, and the bits with no partner at either end."""
    fast, slow = view.fast, view.slow
    pairs = (view.d + 1) // 2  # pairs of the interleaved table, an odd d's last sine included
    bits = ("Bit periods double from one bit to the next" if view.bits > 1
            else "One bit: its period is 2")
    if pairs == 1:
        text = f"{bits}; d = {view.d} has one pair only, of wavelength 2π ≈ {_positions(view.longest)} positions. "
    elif math.isclose(view.growth, 2.0, rel_tol=1e-12):
        text = (f"{bits}; pair wavelengths grow by the factor base^(2/d) = 2 per pair, the same "
                "rate: the ladders climb in step, each wavelength π times a bit period, so they never line up "
                "exactly. ")
    else:
        text = (f"{bits}; pair wavelengths grow by the factor base^(2/d) = {_factor(view.growth)} per pair. "
                + ("So the two ladders climb at different rates and only line up approximately. " if view.bits > 1
                   else ""))
    text += "The correspondence stops at both ends: no column is faster than 2π ≈ 6.28 positions"
    if fast:
        text += (f", so {_bits(fast)} (period{'s' if len(fast) > 1 else ''} "
                 f"{', '.join(map(str, view.fast_periods))}) {'have' if len(fast) > 1 else 'has'} no true partner")
    text += (f", and no column is slower than {'the one pair' if pairs == 1 else 'the last pair'}'s "
             f"{_positions(view.longest)} positions")
    if slow:
        return text + f"; {_bits(slow)} {'are' if len(slow) > 1 else 'is'} slower than that."
    return text + ("; every bit shown here is faster than that." if view.bits > 1 else "; the bit is faster than that.")


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
    d: int
    bit_values: int  # how many different values the bit takes over the positions shown (1 or 2)
    column_values: int  # how many different values the column takes there
    chart: dict

    @property
    def last_shown(self) -> int:
        return self.window - 1

    @property
    def cos_column(self) -> int | None:
        """The pair's cosine column; ``None`` for an odd d's last sine, which has none."""
        return self.sin_column + 1 if self.sin_column + 1 < self.d else None

    @property
    def periods_shown(self) -> float:
        return self.window / self.period

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
                      "series": f"column {column}: sine, wavelength {number(wavelength, '.4g')}"}),
    ])
    return charts.line_chart(frame, x="position", y="value", series="series", x_title="Position i",
                             y_title="value", series_title="Curve", y_domain=(-1.1, 1.1)).spec()


def bit_match(n: int, bit: int, ladder: Ladders) -> BitMatch:
    """Bit ``bit`` of the ladders over n positions (the chart is cached by :func:`overlay`)."""
    row = ladder.matches.iloc[bit]
    window = binary.overlay_window(n, bit)
    column, wavelength = int(row["sin_column"]), float(row["wavelength"])
    values = pekit.sinusoidal_columns(window, ladder.d, [column], base=ladder.base)[:, 0]  # (window,)
    return BitMatch(n=n, bit=bit, window=window, period=int(row["period"]), pair=int(row["pair"]),
                    sin_column=column, wavelength=wavelength, ratio=float(row["ratio"]), d=ladder.d,
                    bit_values=len(binary.bit_wave(window, bit).unique()), column_values=len(values.unique()),
                    chart=overlay(window, bit, ladder.d, ladder.base, column, wavelength))


def overlay_caption(match: BitMatch) -> str:
    """The positions drawn, the bit's period, its closest pair and how far the two differ."""
    shown = (f"Positions 0 to {match.last_shown}"
             + (f" of the {match.n}" if match.cut else "")
             + f": {number(match.periods_shown, '.3g')} of the bit's periods"
             + ("; the rest repeats" if match.cut and match.periods_shown >= 1 else "") + ". ")
    columns = (f"columns {match.sin_column} and {match.cos_column}" if match.cos_column is not None
               else f"column {match.sin_column}, a sine without its cosine")
    text = (shown + f"Bit {match.bit} repeats every {match.period} positions; the closest wavelength is pair "
            f"{match.pair} ({columns}) at {number(match.wavelength, '.4g')} positions, {number(match.ratio, '.3g')} times the bit's period. ")
    values = (f"takes {match.column_values} different {plural(match.column_values, 'value')} over these "
              f"{match.window} positions.")
    if match.bit_values == 1:
        return text + (f"Bit {match.bit} stays 0 (−1 here) at every position shown: it first turns 1 at position "
                       f"{2 ** match.bit}. The column " + values)
    return text + "The bit takes two values, −1 and +1; the column " + values


@st.cache_resource(max_entries=48, show_spinner=False)
def same_width(n: int, width: int, base: int) -> binary.EqualWidth:
    return binary.equal_width(n, width, base=base)


def equal_width_sentence(eq: binary.EqualWidth, view: AnalogyView) -> str:
    """How many of the n positions each code of the same width tells apart, and that the metrics
    below measure the full widths chosen above."""
    width, n, b, s = eq.width, eq.n, eq.binary, eq.sinusoidal
    numbers = f"{width} {plural(width, 'number')}"
    text = (f"**The same width for both.** Count the distinct codes: {DISTINCT_RULE}. With {numbers} per "
            f"position, a binary code has 2^{width} = "
            f"{2 ** width:,} different codes, so it tells **{b.distinct} of the {n}** positions apart"
            + (f" (position {b.pair[1]} gets the code of position {b.pair[0]})" if b.min_distance == 0 else "")
            + f"; {width} sinusoidal {plural(width, 'column')} {'tells' if width == 1 else 'tell'} "
            f"**{s.distinct} of the {n}** apart, the closest two "
            f"(positions {s.pair[0]} and {s.pair[1]}) ")
    if s.min_distance > DISTINCT:
        text += f"still {number(s.min_distance, '.3g')} apart. "
    else:
        text += f"only {number(s.min_distance, '.3g')} apart, which counts as one code. "
    if s.distinct > b.distinct:
        text += ("Real-valued columns can take any value between −1 and 1, where a bit has two: that is the sense in "
                 "which the book calls continuous representations more space-efficient. ")
    elif s.distinct == b.distinct:
        text += ("At this width both tell every position apart. " if s.distinct == n
                 else "At this width both tell as many positions apart. ")
    else:
        text += "At this width binary tells more positions apart. "
    return text + (f"The metrics below compare the full widths chosen above instead: {view.bits} "
                   f"{plural(view.bits, 'bit')} and d = {view.d} columns.")
