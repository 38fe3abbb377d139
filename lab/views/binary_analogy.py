"""The binary analogy page's views: binary codes beside the sinusoidal table, the ladders of bit periods and pair
wavelengths, one bit against its closest column, distances between codes; and the sentences that state their numbers."""

import math
from dataclasses import dataclass

import pandas as pd

import pekit
from lab.claims import Claim, Reference, Said, joined
from lab.memo import shared
from lab.display import number
from lab.i18n import _, localized_resource, ngettext, use
from pekit import binary, charts

DISTINCT = 1e-3  # pekit.binary.distinct_positions' tolerance: codes closer than this count as one


def _distinct_rule() -> str:
    """How pekit.binary.distinct_positions counts: a position is new unless within DISTINCT of an earlier one."""
    return _("a position counts when its code is more than {tolerance} from the code of every earlier "
             "position").format(tolerance=number(DISTINCT, "g"))


def distinct_help() -> Said:
    """The distinct-code metrics' help: the rule they count by."""
    return Said(_("Distinct codes: {rule}; one within {tolerance} of an earlier code is the same code.").format(
        rule=_distinct_rule(), tolerance=number(DISTINCT, "g")), [Claim("tolerance", DISTINCT)])


with use("en"):
    DISTINCT_HELP = distinct_help()  # the help in English (the page shows distinct_help(), in the reader's language)
SAME_STEP = 1e-11  # float64 neighbour steps (at most √d ≈ 32 long) that agree to this are the same step

# Results are shared by every session as they are (lab.memo, per language where a record
# holds words): a rerun finds one by a dict lookup and neither unpickles nor copies it.
# Records are frozen and nothing changes a result after it is made.


@dataclass(frozen=True)
class AnalogyView:
    """``bits``-bit codes and the width-``d`` sinusoidal table over ``n`` positions, drawn, and compare_codes' numbers."""

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
    dial_min_from_first: float = math.nan  # the dials' smallest distance from position 0 (positions > 0)
    dial_closest_to_first: int = 0  # the first position (> 0) at that distance
    wavelengths: tuple[float, ...] = ()  # the interleaved table's column pairs, 2π·base^(2j/d), left to right
    p_block_rows: int = 1  # positions per pixel of the sinusoidal table's picture

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
    drawn = charts.heatmap(X, x_title=x_title, y_title=_("Row (position)"), domain=domain, height=320, max_marks=0)
    return drawn.spec(), drawn.drawing


@localized_resource(max_entries=24)
def analogy_view(n: int, bits: int, d: int, base: int) -> AnalogyView:
    B = pekit.binary_encoding(n, bits, device="cpu")  # (n, bits)
    P = pekit.sinusoidal_encoding(n, d, base=base)  # (n, d)
    msb_first = binary.binary_strings(n, bits, lsb_first=False)
    codes = pd.DataFrame({"position": range(n), "lsb_first": binary.binary_strings(n, bits),
                          "msb_first": msb_first})
    bits_chart, bits_drawing = _heatmap(B, x_title=_("Bit (0 = least significant)"), domain=(0.0, 1.0))
    p_chart, p_drawing = _heatmap(P, x_title=_("Column (encoding dimension)"), domain=(-1.0, 1.0))
    stats = binary.compare_codes(n, bits, d, base=base)
    distances = binary.code_distances(stats)  # plain floats, and what the sentences read off them
    binary_name = ngettext("binary, {count} bit", "binary, {count} bits", bits).format(count=bits)
    sin_name = _("sinusoidal, d = {d}").format(d=d)
    steps = pd.concat([
        pd.DataFrame({"position": range(1, n), "distance": distances.binary_steps, "code": binary_name}),
        pd.DataFrame({"position": range(1, n), "distance": distances.sinusoidal_steps, "code": sin_name}),
    ])
    dial = pd.concat([
        pd.DataFrame({"position": range(n), "distance": distances.dial_distances,
                      "code": ngettext("dials sin(2πi/2^j), {count} column", "dials sin(2πi/2^j), {count} columns",
                                       bits).format(count=bits)}),
        pd.DataFrame({"position": range(n), "distance": distances.sinusoidal_distances,
                      "code": _("sinusoidal, d = {d}, base {base}").format(d=d, base=base)}),
    ])
    (bin_lo, bin_hi), (sin_lo, sin_hi) = distances.binary_step_range, distances.sinusoidal_step_range  # float64
    return AnalogyView(
        n=n, bits=bits, d=d, base=base, codes=codes,
        bits_chart=bits_chart, bits_exact=bits_drawing.exact, p_chart=p_chart, p_exact=p_drawing.exact,
        p_block_rows=p_drawing.block[0],
        steps_chart=charts.line_chart(steps, x="position", y="distance", series="code", x_title=_("Position i"),
                                      y_title=_("‖code(i) − code(i−1)‖"), series_title=_("Code"), step=True).spec(),
        dial_chart=charts.line_chart(dial, x="position", y="distance", series="code", x_title=_("Position i"),
                                     y_title=_("‖code(i) − code(0)‖"), series_title=_("Code")).spec(),
        stats=stats, bits_needed=binary.bits_needed(n),
        binary_step_low=bin_lo, binary_step_high=bin_hi, sinusoidal_step_low=sin_lo, sinusoidal_step_high=sin_hi,
        jump_from_code=msb_first[stats.biggest_jump - 1], jump_to_code=msb_first[stats.biggest_jump],
        closest_to_first=distances.closest_to_first,
        # a dial code that returns (pekit's dial_returns, to 10⁻⁹) is at distance 0: the first return
        dial_min_from_first=distances.dial_min_from_first, dial_closest_to_first=distances.dial_closest_to_first,
        wavelengths=tuple(pekit.wavelengths(d, base=base).tolist()),
    )


def cube(bits: int) -> Said:
    """The shape whose corners are the codes of ``bits`` bits (a segment, square and cube state no number)."""
    if bits <= 3:
        return Said((_("the two ends of a segment"), _("the corners of a square"), _("the corners of a cube"))[bits - 1])
    if str(bits)[0] == "8" or bits in (11, 18):
        return Said(_("the corners of an {bits}-dimensional cube").format(bits=bits), [Claim("bits", bits)])
    return Said(_("the corners of a {bits}-dimensional cube").format(bits=bits), [Claim("bits", bits)])


def bits_caption(view: AnalogyView) -> Said:
    """What the heatmap of the binary codes shows (the numbers it states are the bits' names and values)."""
    text = (_("Binary code: bit 0 (left) flips at every position, bit b every 2^b positions. Blue = 0, red = 1.")
            if view.bits > 1 else _("Binary code: bit 0 (left) flips at every position. Blue = 0, red = 1."))
    return Said(text + ("" if view.bits_exact else " " + _("Each pixel is a block mean.")), [Claim("bits", view.bits)],
                () if view.bits_exact else ("block means",))


def table_caption(view: AnalogyView) -> Said:
    """What the heatmap of the sinusoidal table shows."""
    pairs = (view.d + 1) // 2
    claims = [] if pairs == 1 else [
        Claim("wavelengths, left to right", view.wavelengths, "rises",
              Reference(view.wavelengths, "2π·base^(2j/d) of every column pair, in column order"))]
    if view.d == 2:
        text = _("Sinusoidal encoding P: one sine/cosine pair, wavelength 2π. Blue = −1, red = +1.")
    elif view.d % 2:
        text = _("Sinusoidal encoding P: {pairs} column pairs, slower from left to right (the last, column {last}, a "
                 "sine without its cosine). Blue = −1, red = +1.").format(pairs=pairs, last=view.d - 1)
    else:
        text = _("Sinusoidal encoding P: {pairs} column pairs, slower from left to right. Blue = −1, red = +1.").format(
            pairs=pairs)
    claims += [Claim("pairs", pairs)] + ([Claim("last column", view.d - 1)] if view.d % 2 else [])
    if view.p_exact:
        return Said(text, claims)
    text += " " + _("Each pixel is the mean of a block of positions × columns.")
    two_blocks = 2 * view.p_block_rows
    fast = [w for w in view.wavelengths if w < two_blocks]
    if view.p_block_rows > 1 and fast:
        # a block mean sampled once per block cannot follow what repeats within two blocks
        claims += [Claim("pairs repeating within two blocks", len(fast)), Claim("two blocks", two_blocks)]
        claims.append(Claim("slowest wavelength drawn with false stripes", max(fast), "below",
                            Reference(two_blocks, "two blocks of positions (the blocks sample once per block)")))
        text += " " + ngettext(
            "{count} pair repeats within two blocks ({twice} positions): its block means draw slower stripes that are "
            "not in the table, or average out.",
            "{count} pairs repeat within two blocks ({twice} positions): their block means draw slower stripes that are "
            "not in the table, or average out.", len(fast)).format(count=len(fast), twice=two_blocks)
    return Said(text, claims)


def metric_labels(view: AnalogyView) -> tuple[str, str, str, str]:
    """The four metrics' labels, each naming the width it measures (short: a quarter of a projector's width)."""
    bits, d = view.bits, view.d
    return (ngettext("Distinct codes, {count} bit", "Distinct codes, {count} bits", bits).format(count=bits),
            _("Distinct codes, d = {d}").format(d=d),
            ngettext("Closest pair, {count} bit", "Closest pair, {count} bits", bits).format(count=bits),
            _("Closest pair, d = {d}").format(d=d))


def counting_caption(view: AnalogyView) -> Said:
    """The codes listed, and where too few bits make them start over."""
    n1, bits = view.last_position, view.bits
    text = ngettext(
        "The book prints 0 … 7 with three bits; here 0 … {last} with {count} bit, least significant bit first (as the "
        "Julia edition prints it) and most significant first (the usual way). ",
        "The book prints 0 … 7 with three bits; here 0 … {last} with {count} bits, least significant bit first (as the "
        "Julia edition prints it) and most significant first (the usual way). ", bits).format(last=n1, count=bits)
    claims = [Claim("last position", n1), Claim("bits", bits)]
    if not view.codes_wrap:
        return Said(text, claims)
    return Said(text + _("{last} needs {needed} bits, so with {count} the codes start over at {codes}: position {codes} "
                         "gets the code of 0.").format(last=n1, needed=view.bits_needed, count=bits, codes=view.code_count),
                claims + [Claim("bits needed", view.bits_needed, "above", Reference(bits, "the bits chosen")),
                          Claim("codes", view.code_count)])


def steps_sentence(view: AnalogyView) -> Said:
    """How far each code moves between neighbouring positions, and how many positions each tells apart."""
    stats = view.stats
    jump, flips = stats.biggest_jump, stats.biggest_jump_flips
    lo, hi = view.sinusoidal_step_low, view.sinusoidal_step_high
    if view.binary_step_low == view.binary_step_high:
        text = ngettext("Between neighbouring positions the binary code moves by {step} at every step ({count} bit "
                        "flips each time)",
                        "Between neighbouring positions the binary code moves by {step} at every step ({count} bits "
                        "flips each time)", flips).format(step=number(view.binary_step_low, ".3g"), count=flips)
    else:
        text = ngettext("Between neighbouring positions the binary code jumps by anything from {low} to {high} "
                        "({before} → {at} flips {count} bit at once: {code_before} → {code_at})",
                        "Between neighbouring positions the binary code jumps by anything from {low} to {high} "
                        "({before} → {at} flips {count} bits at once: {code_before} → {code_at})", flips).format(
            low=number(view.binary_step_low, ".3g"), high=number(view.binary_step_high, ".3g"), before=jump - 1,
            at=jump, count=flips, code_before=view.jump_from_code, code_at=view.jump_to_code)
    rounding = Reference(SAME_STEP, "float64 rounding of steps at most √d long")
    claims = [Claim("spread of the sinusoidal steps", hi - lo, "at most" if hi - lo <= SAME_STEP else "above", rounding),
              Claim("positions binary tells apart", view.stats.binary.distinct, "at most",
                    Reference(view.code_count, "the codes of that many bits, 2^bits"))] + [Claim(w, v) for w, v in (
        ("binary step, smallest", view.binary_step_low), ("binary step, largest", view.binary_step_high), ("bits flipped",
        flips), ("sinusoidal step, smallest", lo), ("sinusoidal step, largest", hi), ("bits", view.bits), ("codes",
        view.code_count), ("d", view.d), ("positions told apart", stats.sinusoidal.distinct), ("positions", view.n))]
    if hi - lo <= SAME_STEP:
        text += _(", while the sinusoidal code always moves by {step}: the same step everywhere (up to float64 "
                  "rounding). ").format(step=number(lo, ".6g"))
    elif view.d % 2 == 0:  # (not met over the page's settings: an even width's steps agree to 10⁻¹³)
        text += _(", while the sinusoidal code moves by {low} to {high}. ").format(
            low=number(lo, ".6g"), high=number(hi, ".6g"))
    elif number(lo, ".6g") == number(hi, ".6g"):
        text += _(", while the sinusoidal code always moves by {step} to six digits: the same step for every pair, plus "
                  "the unpaired last sine column of an odd d, whose step depends on the position (the steps spread "
                  "over {spread}). ").format(step=number(lo, ".6g"), spread=number(hi - lo, ".2g"))
    else:
        text += _(", while the sinusoidal code moves by {low} to {high}: the same step for every pair, plus the "
                  "unpaired last sine column of an odd d, whose step depends on the position. ").format(
            low=number(lo, ".6g"), high=number(hi, ".6g"))
    told, bits = stats.sinusoidal.distinct, view.bits
    if told == view.n:
        apart = ngettext(
            "With {count} bit, binary tells at most 2^{count} = {codes} positions apart, and uses only {shape}; {d} "
            "real-valued columns tell {told} of the {n} positions here apart (counting distinct codes: {rule}) and "
            "leave room between them.",
            "With {count} bits, binary tells at most 2^{count} = {codes} positions apart, and uses only {shape}; {d} "
            "real-valued columns tell {told} of the {n} positions here apart (counting distinct codes: {rule}) and "
            "leave room between them.", bits)
    else:
        apart = ngettext(
            "With {count} bit, binary tells at most 2^{count} = {codes} positions apart, and uses only {shape}; {d} "
            "real-valued columns tell {told} of the {n} positions here apart (counting distinct codes: {rule}).",
            "With {count} bits, binary tells at most 2^{count} = {codes} positions apart, and uses only {shape}; {d} "
            "real-valued columns tell {told} of the {n} positions here apart (counting distinct codes: {rule}).", bits)
    return Said(text + apart.format(count=bits, codes=view.code_count, shape=cube(bits), d=view.d, told=told, n=view.n,
                                    rule=_distinct_rule()), claims, ("room left" if told == view.n else "codes shared",))


def dial_sentence(view: AnalogyView) -> Said:
    """Where the power-of-two dials return to position 0's code, against the sinusoidal table."""
    hits = view.stats.dial_returns
    shown = f"{', '.join(map(str, hits[:8]))}{' …' if len(hits) > 8 else ''}"
    if view.bits == 1:
        text = ngettext(
            "Think of each column as a dial turning at its own speed. With one bit there is one dial, sin(2πi/2^0) = "
            "sin(2πi), which is 0 at every whole position: position {shown} gets the code of position 0 (distance 0 "
            "in the chart, up to float rounding).",
            "Think of each column as a dial turning at its own speed. With one bit there is one dial, sin(2πi/2^0) = "
            "sin(2πi), which is 0 at every whole position: positions {shown} all get the code of position 0 (distance "
            "0 in the chart, up to float rounding).", len(hits)).format(shown=shown)
    else:
        half = 2 ** (view.bits - 2)
        text = ngettext(
            "Think of each column as a dial turning at its own speed. With speeds set to powers of two (column j "
            "completes a turn every 2^j positions), all dials come back to where they started after 2^{last_bit} = "
            "{turn} positions, and sines alone already agree halfway, every {count} position: ",
            "Think of each column as a dial turning at its own speed. With speeds set to powers of two (column j "
            "completes a turn every 2^j positions), all dials come back to where they started after 2^{last_bit} = "
            "{turn} positions, and sines alone already agree halfway, every {count} positions: ", half).format(
            last_bit=view.last_bit, turn=2 ** view.last_bit, count=half)
        if hits:
            text += ngettext("position {shown} gets the code of position 0 (distance 0 in the chart, up to float "
                             "rounding).",
                             "positions {shown} get the code of position 0 (distance 0 in the chart, up to float "
                             "rounding).",
                             len(hits)).format(shown=shown)
        else:
            text += _("within this range none collide yet.")
    numbers = [Claim("returns shown", tuple(hits[:8]))] + ([] if view.bits == 1 else [Claim("half turn", 2 ** (
        view.bits - 2)), Claim("last bit", view.last_bit), Claim("full turn", 2 ** view.last_bit)])
    return joined([Said(text, numbers), _against_the_dials(view)])


def _against_the_dials(view: AnalogyView) -> Said:
    """The table's smallest distance from position 0 against the dials', or within one code's distance."""
    numbers = dict(distance=number(view.stats.sinusoidal_min_from_first, ".3g"), position=view.closest_to_first,
                   dials=number(view.dial_min_from_first, ".3g"), dial_position=view.dial_closest_to_first,
                   tolerance=number(DISTINCT, "g"), d=view.d)
    case = ("d = 2",) if view.d == 2 else ("odd d",) if view.d % 2 else ("even d",)
    if view.d == 2:
        text = _("The sinusoidal table of d = 2 is one sine/cosine pair of frequency 1, whatever the base: its "
                 "smallest distance to position 0 here is {distance} (position {position}), the dials' {dials} "
                 "(position {dial_position}).").format(**numbers)
    elif view.d % 2:
        text = _("The sinusoidal table lowers its frequencies with the base and pairs each sine with a cosine (all but "
                 "its last column, a sine alone): its smallest distance to position 0 here is {distance} (position "
                 "{position}), the dials' {dials} (position {dial_position}).").format(**numbers)
    else:
        text = _("The sinusoidal table lowers its frequencies with the base and pairs each sine with a cosine: its "
                 "smallest distance to position 0 here is {distance} (position {position}), the dials' {dials} "
                 "(position {dial_position}).").format(**numbers)
    closest, dials, what = view.stats.sinusoidal_min_from_first, view.dial_min_from_first, \
        "the table's smallest distance from position 0"
    one_code = Reference(DISTINCT, "the distance under which this page counts two codes as one")
    the_dials = Reference(dials, "the dials' smallest distance from position 0, over the same positions")
    base = [Claim("closest position", view.closest_to_first), Claim("dials' distance", dials),
            Claim("dials' closest position", view.dial_closest_to_first), Claim("d", view.d)]
    if closest <= DISTINCT:
        return Said(text + " " + _("That is within the {tolerance} this page counts as one code: at this width, over "
                                   "these positions, the table comes back to its start too.").format(**numbers),
                    base + [Claim("tolerance", DISTINCT), Claim(what, closest, "at most", one_code)], case)
    claims = base + [Claim(what, closest, "above", one_code), Claim(what, closest, "above" if closest > dials else "at most",
                                                             the_dials)]
    if closest > dials:
        return Said(text + " " + _("So it stays further from its starting point than the dials do."), claims, case)
    return Said(text + " " + _("Over these positions the dials stay further from their start than the table does, "
                               "though neither comes back to it."), claims, case)


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
    wavelengths: tuple[float, ...] = ()  # every pair's wavelength, left to right


@localized_resource(max_entries=24)
def ladders(bits: int, d: int, base: int) -> Ladders:
    matches = binary.match_bits_to_pairs(bits, d, base=base)
    waves = pekit.wavelengths(d, base=base).tolist()
    periods = pd.concat([
        pd.DataFrame({"index": range(bits), "positions": binary.bit_periods(bits).tolist(),
                      "ladder": _("bit b: period 2^(b+1)")}),
        pd.DataFrame({"index": range(len(waves)), "positions": waves,
                      "ladder": _("column pair j: wavelength 2π·base^(2j/d)")}),
    ])
    chart = charts.line_chart(periods, x="index", y="positions", series="ladder", x_title=_("Bit b or pair j"),
                              y_title=_("Positions per cycle"), series_title=_("Ladder"), log_y=True,
                              points=len(periods) <= 128)
    return Ladders(
        bits=bits, d=d, base=base, matches=matches, chart=chart.spec(),
        growth=binary.wavelength_growth(d, base=base), longest=waves[-1],
        fast=tuple(int(b) for b in matches["bit"][matches["faster_than_every_pair"]]),
        slow=tuple(int(b) for b in matches["bit"][matches["slower_than_every_pair"]]),
        wavelengths=tuple(waves),
    )


def _positions(count: float) -> str:
    """Positions as the ladders sentence writes them: 3 digits below 100 (2π ≈ 6.28), whole ones above."""
    return number(count, ".3g") if count < 100 else number(count, ",.0f")


def _factor(growth: float) -> str:
    """The growth factor to 3 digits, or more not to read as 1 or 2 when it is neither (base 2, d = 1024: 1.001)."""
    for digits in range(3, 17):
        text = format(growth, f".{digits}g")
        if float(text) not in (1.0, 2.0) or growth in (1.0, 2.0):
            break
    return number(growth, f".{digits}g")


def ladders_sentence(view: Ladders) -> Said:
    """How the two ladders climb, and the bits with no partner at either end."""
    fast, slow = view.fast, view.slow
    pairs = (view.d + 1) // 2  # pairs of the interleaved table, an odd d's last sine included
    periods = [2 ** (b + 1) for b in range(view.bits)]
    shortest = view.wavelengths[0]
    claims = [Claim("the fastest pair's wavelength", shortest, "equal",
                    Reference(2 * math.pi, "2π, a frequency of 1", tolerance=1e-9))]
    bits = (_("Bit periods double from one bit to the next") if view.bits > 1
            else _("One bit: its period is 2"))
    if pairs == 1:
        text = _("{bits}; d = {d} has one pair only, of wavelength 2π ≈ {longest} positions. ").format(
            bits=bits, d=view.d, longest=_positions(view.longest))
    else:
        step = view.wavelengths[1] / view.wavelengths[0]
        claims.append(Claim("growth per pair", view.growth, "equal",
                            Reference(step, "the second pair's wavelength over the first's", tolerance=1e-9 * step)))
        if math.isclose(view.growth, 2.0, rel_tol=1e-12):
            claims.append(Claim("growth per pair", view.growth, "equal",
                                Reference(2.0, "a bit period's growth per bit", tolerance=1e-12)))
            text = _("{bits}; pair wavelengths grow by the factor base^(2/d) = 2 per pair, the same rate: the ladders "
                     "climb in step, each wavelength π times a bit period, so they never line up exactly. ").format(
                bits=bits)
        else:
            text = _("{bits}; pair wavelengths grow by the factor base^(2/d) = {factor} per pair. ").format(
                bits=bits, factor=_factor(view.growth))
            if view.bits > 1:
                claims.append(Claim("growth per pair", view.growth, "above" if view.growth > 2 else "below",
                                    Reference(2.0, "a bit period's growth per bit")))
                text += _("So the two ladders climb at different rates and only line up approximately. ")
    text += _("The correspondence stops at both ends: no column is faster than 2π ≈ {two_pi} positions").format(
        two_pi=number(2 * math.pi, ".3g"))
    if fast:
        claims.append(Claim("the slowest unmatched fast bit's period", periods[max(fast)], "below",
                            Reference(shortest, "the fastest pair's wavelength")))
        text += ngettext(", so bit {bits} (period {periods}) has no true partner",
                         ", so bits {bits} (periods {periods}) have no true partner", len(fast)).format(
            bits=", ".join(map(str, fast)), periods=", ".join(str(periods[b]) for b in fast))
    longest = dict(longest=_positions(view.longest), column=view.d - 1)
    claims += [Claim("bits", view.bits), Claim("d", view.d), Claim("longest wavelength", view.longest), Claim("growth",
               view.growth), Claim("fast bits", fast), Claim("slow bits", slow), Claim("last column", view.d - 1)]
    case = ("one pair",) if pairs == 1 else ("odd d",) if view.d % 2 else ("last pair",)
    if pairs == 1:
        text += _(", and no column is slower than the one pair's {longest} positions").format(**longest)
    elif view.d % 2:
        text += _(", and no column is slower than the last one's {longest} positions (column {column}, a sine without "
                  "its cosine)").format(**longest)
    else:
        text += _(", and no column is slower than the last pair's {longest} positions").format(**longest)
    slowest = Reference(view.longest, "the slowest column's wavelength")
    if slow:
        claims.append(Claim("the fastest unmatched slow bit's period", periods[min(slow)], "above", slowest))
        return Said(text + ngettext("; bit {bits} is slower than that.", "; bits {bits} are slower than that.",
                                    len(slow)).format(bits=", ".join(map(str, slow))), claims, case)
    claims.append(Claim("the slowest bit's period", periods[-1], "below", slowest))
    return Said(text + (_("; every bit shown here is faster than that.") if view.bits > 1
                        else _("; the bit is faster than that.")), claims, case)


@dataclass(frozen=True)
class BitMatch:
    """Bit ``bit`` against the sine column whose wavelength is closest to its period, over ``window`` of ``n``."""

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


@localized_resource(max_entries=48)
def overlay(n: int, bit: int, d: int, base: int, column: int, wavelength: float) -> dict:
    values = binary.overlay_values(n, bit, d, column, base=base)
    frame = pd.concat([
        pd.DataFrame({"position": range(n), "value": values.bit_wave,
                      "series": _("bit {bit} as −1/+1 (period {period})").format(bit=bit, period=2 ** (bit + 1))}),
        pd.DataFrame({"position": range(n),
                      "value": values.column_wave,
                      "series": _("column {column}: sine, wavelength {wavelength}").format(
                          column=column, wavelength=number(wavelength, ".4g"))}),
    ])
    return charts.line_chart(frame, x="position", y="value", series="series", x_title=_("Position i"),
                             y_title=_("value"), series_title=_("Curve"), y_domain=(-1.1, 1.1)).spec()


def bit_match(n: int, bit: int, ladder: Ladders) -> BitMatch:
    """Bit ``bit`` of the ladders over n positions (the chart is cached by :func:`overlay`)."""
    row = ladder.matches.iloc[bit]
    window = binary.overlay_window(n, bit)
    column, wavelength = int(row["sin_column"]), float(row["wavelength"])
    # the different values over the window, the column's counted in float64 (float32 can round two of them to one)
    values = binary.value_counts(window, bit, ladder.d, column, base=ladder.base)
    return BitMatch(n=n, bit=bit, window=window, period=int(row["period"]), pair=int(row["pair"]),
                    sin_column=column, wavelength=wavelength, ratio=float(row["ratio"]), d=ladder.d,
                    bit_values=values.bit_values, column_values=values.column_values,
                    chart=overlay(window, bit, ladder.d, ladder.base, column, wavelength))


def overlay_caption(match: BitMatch) -> Said:
    """The positions drawn, the bit's period, its closest pair and how far the two differ."""
    periods = number(match.periods_shown, ".3g")
    case = ("every position",) if not match.cut else ("rest repeats",) if match.periods_shown >= 1 else ("part shown",)
    if not match.cut:
        shown = _("Positions 0 to {last}: {periods} of the bit's periods. ")
    elif match.periods_shown >= 1:
        shown = _("Positions 0 to {last} of the {n}: {periods} of the bit's periods; the rest repeats. ")
    else:
        shown = _("Positions 0 to {last} of the {n}: {periods} of the bit's periods. ")
    text = shown.format(last=match.window - 1, n=match.n, periods=periods)
    closest = dict(bit=match.bit, period=match.period, pair=match.pair, sin=match.sin_column, cos=match.cos_column,
                   wavelength=number(match.wavelength, ".4g"), ratio=number(match.ratio, ".3g"))
    if match.cos_column is not None:
        text += _("Bit {bit} repeats every {period} positions; the closest wavelength is pair {pair} (columns {sin} and "
                  "{cos}) at {wavelength} positions, {ratio} times the bit's period. ").format(**closest)
    else:
        text += _("Bit {bit} repeats every {period} positions; the closest wavelength is pair {pair} (column {sin}, a "
                  "sine without its cosine) at {wavelength} positions, {ratio} times the bit's period. ").format(**closest)
    values = dict(bit=match.bit, first=2 ** match.bit, count=match.column_values, window=match.window)
    claims = [Claim(what, value) for what, value in (
        ("last position shown", match.window - 1), ("positions", match.n if match.cut else None), ("periods shown", match.periods_shown),
        ("bit", match.bit), ("period", match.period), ("pair", match.pair), ("sine column", match.sin_column),
        ("cosine column", match.cos_column), ("wavelength", match.wavelength), ("ratio", match.ratio), ("window",
        match.window), ("bit values", match.bit_values), ("column values", match.column_values)) if value is not None]
    claims += [Claim("first position where the bit is 1", 2 ** match.bit)] if match.bit_values == 1 else []
    if match.bit_values == 1:
        return Said(text + ngettext(
            "Bit {bit} stays 0 (−1 here) at every position shown: it first turns 1 at position {first}. The column "
            "takes {count} different value over these {window} positions.",
            "Bit {bit} stays 0 (−1 here) at every position shown: it first turns 1 at position {first}. The column "
            "takes {count} different values over these {window} positions.", match.column_values).format(**values), claims,
            case)
    return Said(text + ngettext(
        "The bit takes two values, −1 and +1; the column takes {count} different value over these {window} positions.",
        "The bit takes two values, −1 and +1; the column takes {count} different values over these {window} positions.",
        match.column_values).format(**values), claims, case)


@shared(max_entries=48)
def same_width(n: int, width: int, base: int) -> binary.EqualWidth:
    return binary.equal_width(n, width, base=base)


def equal_width_sentence(eq: binary.EqualWidth) -> Said:
    """How many of the n positions each code of the same width tells apart."""
    width, n, b, s = eq.width, eq.n, eq.binary, eq.sinusoidal
    text = ngettext(
        "**The same width for both.** Count the distinct codes: {rule}. With {count} number per position, a binary "
        "code has 2^{count} = {codes} different codes, so it tells **{told} of the {n}** positions apart",
        "**The same width for both.** Count the distinct codes: {rule}. With {count} numbers per position, a binary "
        "code has 2^{count} = {codes} different codes, so it tells **{told} of the {n}** positions apart",
        width).format(rule=_distinct_rule(), count=width, codes=number(2 ** width, ","), told=b.distinct, n=n)
    if b.min_distance == 0:
        text += _(" (position {later} gets the code of position {earlier})").format(later=b.pair[1], earlier=b.pair[0])
    closest = dict(count=width, told=s.distinct, n=n, first=s.pair[0], second=s.pair[1],
                   distance=number(s.min_distance, ".3g"))
    if s.min_distance > DISTINCT:
        text += ngettext(
            "; {count} sinusoidal column tells **{told} of the {n}** apart, the closest two (positions {first} and "
            "{second}) still {distance} apart. ",
            "; {count} sinusoidal columns tell **{told} of the {n}** apart, the closest two (positions {first} and "
            "{second}) still {distance} apart. ", width).format(**closest)
    else:
        text += ngettext(
            "; {count} sinusoidal column tells **{told} of the {n}** apart, the closest two (positions {first} and "
            "{second}) only {distance} apart, which counts as one code. ",
            "; {count} sinusoidal columns tell **{told} of the {n}** apart, the closest two (positions {first} and "
            "{second}) only {distance} apart, which counts as one code. ", width).format(**closest)
    same_rule = Reference(b.distinct, "the positions binary codes of the same width tell apart, by the same rule")
    one_code = Reference(DISTINCT, "the distance under which this page counts two codes as one")
    claims = [Claim("positions binary tells apart", b.distinct, "at most",
                    Reference(min(n, 2 ** width), "the n positions or the 2^width codes, whichever is fewer")),
              Claim("the sinusoidal code's closest two positions", s.min_distance,
                    "above" if s.min_distance > DISTINCT else "at most", one_code),
              Claim("positions the sinusoidal code tells apart", s.distinct,
                    "above" if s.distinct > b.distinct else "equal" if s.distinct == b.distinct else "below", same_rule)]
    claims += [Claim(w, v) for w, v in (("width", width), ("codes", 2 ** width), ("positions", n), ("closest pair", tuple(
        s.pair)), ("closest distance", s.min_distance))] + ([Claim("binary's repeated pair", tuple(b.pair))] * (b.min_distance == 0))
    if s.distinct > b.distinct:
        text += _("Real-valued columns can take any value between −1 and 1, where a bit has two: that is the sense in "
                  "which the book calls continuous representations more space-efficient. ")
    elif s.distinct == b.distinct:
        text += (_("At this width both tell every position apart. ") if s.distinct == n
                 else _("At this width both tell as many positions apart. "))
    else:
        text += _("At this width binary tells more positions apart. ")
    return Said(text.rstrip(), claims)
