"""How the pages write numbers."""

import math
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.display import MARKDOWN, big_number, number, plain


def test_big_numbers_stay_short_and_exact_where_they_are_small():
    assert big_number(0) == "0"
    assert big_number(999) == "999"
    assert big_number(19_660_800) == "19,660,800"  # the complexity table's defaults stay exact
    assert big_number(9_999_999_999) == "9,999,999,999"
    assert big_number(10**10) == "1.00 × 10¹⁰"
    assert big_number(2 * 10**12 * 1024 + 4 * 10**6 * 1024**2) == "2.05 × 10¹⁵"
    assert big_number(0.5) == "0.5"
    assert big_number(-3 * 10**12) == "−3.00 × 10¹²"


# --- property tests: what the text says is the number it was given ----------------------------

SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-"))


def read_big_number(text: str) -> float:
    """The number ``big_number`` wrote, read back independently of how it was written."""
    text = text.replace("−", "-")
    scientific = re.fullmatch(r"(-?\d(?:\.\d+)?) × 10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", text)
    if scientific:
        exponent = int("".join(SUPERSCRIPT[c] for c in scientific.group(2)))
        return float(scientific.group(1)) * 10.0 ** exponent
    assert re.fullmatch(r"-?\d{1,3}(,\d{3})*(\.\d+)?(e[-+]\d+)?", text), text
    return float(text.replace(",", ""))


@given(st.one_of(st.integers(-10**18, 10**18), st.floats(-1e18, 1e18, allow_nan=False)))
@example(0)
@example(9_999_999_999)
@example(10**10)
@example(-1)
@example(0.000123456)
@example(123456.75)
def test_a_big_number_reads_back_as_the_number_to_its_digits(value):
    text = big_number(value)
    back = read_big_number(text)
    if abs(value) < 1e10 and value == int(value):
        assert back == value and "×" not in text  # whole counts stay exact, with separators
    else:
        assert math.isclose(back, value, rel_tol=5e-3, abs_tol=1e-12), (value, text)
    assert "-" not in text  # a negative number carries the minus sign, like the rest of the lab


@given(st.floats(-1e300, 1e300, allow_nan=False),
       st.sampled_from(["", ".3g", ".6g", ",.4g", ".1e", ".2e", ",.0f", ".2f"]))
@example(-0.390625, ",.4g")
@example(-0.001, ".2f")  # rounds to zero: "0.00", not "−0.00"
@example(1.8e-15, ".1e")
@example(-3.3e-15, ".2e")
@example(0.0, ".1e")
@example(-0.0, ".3g")
def test_a_number_reads_back_as_formatted_with_minus_signs_and_powers_of_ten(value, spec):
    said = number(value, spec)
    assert "-" not in said and "e" not in said
    text = said.replace("−", "-").replace(",", "")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        text = f"{mantissa}e{''.join(SUPERSCRIPT[c] for c in power)}"
    assert float(text) == float(format(value, spec).replace(",", ""))
    assert said.startswith("−") == (value < 0 and float(text) != 0)  # a value written as zero has no sign


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["cuda", "mps", "cpu"]), name=st.text(min_size=1, max_size=30).filter(str.strip),
       threads=st.integers(1, 512))
def test_the_device_caption_names_the_device_and_counts_threads(kind, name, threads):
    from lab.display import device_caption

    text = device_caption(kind, name, threads)
    assert name in text
    if kind == "cpu":
        assert text.endswith(f"({threads} thread{'' if threads == 1 else 's'})**")
    else:
        assert str(threads) not in text.replace(name, "")


@settings(max_examples=80, deadline=None)
@given(value=st.one_of(st.floats(-1e12, 1e12, allow_nan=False), st.integers(-10**9, 10**9)),
       printf=st.sampled_from([None, "%.3f", "%.6g", "%d"]))
def test_a_table_cell_reads_back_as_its_number_in_either_language(value, printf):
    from lab.display import table_number
    from lab.i18n import use

    english = table_number(value, printf)
    with use("pt"):
        portuguese = table_number(value, printf)
    assert portuguese == english.translate({ord("."): ",", ord(","): "."})

    def read(text: str) -> float:
        text = text.replace("−", "-").replace(",", "")
        if " × 10" in text:
            mantissa, power = text.split(" × 10")
            return float(mantissa) * 10 ** int(power.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")))
        return float(text)

    tolerance = {"%.3f": 5e-4, "%d": 0.5}.get(printf, 0.0)
    relative = {"%.6g": 5e-6, None: 5e-3}.get(printf, 0.0)
    assert abs(read(english) - value) <= tolerance + relative * abs(value) + 5e-5


# -- tables: sent again as first built, keyed by their content --------------------------------

_frames = st.integers(1, 6).flatmap(lambda rows: st.fixed_dictionaries({
    "n": st.lists(st.integers(-10**6, 10**6), min_size=rows, max_size=rows),
    "x": st.lists(st.floats(allow_nan=True, allow_infinity=False, width=64), min_size=rows, max_size=rows),
    "s": st.lists(st.text(max_size=4), min_size=rows, max_size=rows)}))


@given(_frames, st.sampled_from(["value", "name", "dtype", "index", "order"]))
def test_a_frame_fingerprint_follows_its_content(columns, change):
    """Copies share a fingerprint; any change a reader would see (a value, a column's name, its
    type, the index, the columns' order) gives another one."""
    import pandas as pd

    from lab.display import _frame_fingerprint as frame_fingerprint

    frame = pd.DataFrame(columns)
    assert frame_fingerprint(frame) == frame_fingerprint(frame.copy()) == frame_fingerprint(pd.DataFrame(columns))
    other = frame.copy()
    if change == "value":
        other.loc[0, "n"] = other.loc[0, "n"] + 1
    elif change == "name":
        other = other.rename(columns={"n": "m"})
    elif change == "dtype":
        other["n"] = other["n"].astype(float)
    elif change == "index":
        other.index = other.index + 1
    else:
        other = other[list(reversed(other.columns))]
    assert frame_fingerprint(other) != frame_fingerprint(frame)


def test_a_table_shown_before_is_shown_again_as_it_was_and_never_another():
    """Two sessions show the same frame (the second gets the first's message back), in English
    and in Portuguese; a frame one cell apart shows its own numbers."""
    from streamlit.testing.v1 import AppTest

    script = """
import pandas as pd
import streamlit as st
from lab.display import show_table
from lab.i18n import use
v = st.session_state.get("v", 1.5)
frame = pd.DataFrame({"pair": [0, 1], "omega": [v, 1234.5]})
show_table(frame, hide_index=True, column_config={"omega": st.column_config.NumberColumn("ω", format="%.2f")})
with use("pt"):
    show_table(frame, hide_index=True, column_config={"omega": st.column_config.NumberColumn("ω", format="%.2f")})
"""
    shown = []
    for v in (1.5, 1.5, 2.5):
        at = AppTest.from_string(script, default_timeout=30)
        at.session_state["v"] = v
        at.run()
        assert not at.exception
        shown.append([t.value.astype(str).values.tolist() for t in at.dataframe])
    assert shown[0] == shown[1]
    assert shown[0][0] == [["0", "1.5"], ["1", "1234.5"]]
    assert shown[0][1] == [["0", "1,50"], ["1", "1234,50"]]
    assert shown[2][0][0] == ["0", "2.5"] and shown[2][1][0] == ["0", "2,50"]


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=30))
@example("a*b_c [x](y) `z` #1 $5 <b>")
def test_plain_escapes_every_markup_character(typed):
    """plain(text) reads back as the text: every markup character escaped, nothing else changed."""
    shown = plain(typed)
    assert re.sub(r"\\(.)", r"\1", shown) == typed
    assert len(shown) == len(typed) + sum(c in MARKDOWN for c in typed)  # one escape per markup character


def test_a_projected_chart_has_every_text_half_as_large_again_and_shares_its_data():
    from lab.display import enlarged

    rows = [{"x": 1, "y": 2}]
    spec = {"data": {"values": rows}, "mark": {"type": "text", "fontSize": 12},
            "config": {"axis": {"labelFontSize": 12}},
            "encoding": {"y": {"field": "y", "axis": {"labelFontSize": 14, "values": [1, 2]}}},
            "layer": [{"mark": {"type": "rule"}, "encoding": {"x": {"axis": {"titleFontSize": 10}}}}]}
    big = enlarged(spec, 1.5)
    assert big["data"]["values"] is rows  # the data is not copied
    assert big["mark"]["fontSize"] == 18 and big["config"]["axis"]["labelFontSize"] == 18
    assert big["encoding"]["y"]["axis"] == {"labelFontSize": 21, "values": [1, 2]}
    assert big["layer"][0]["encoding"]["x"]["axis"]["titleFontSize"] == 15
    # the sizes the spec leaves to Vega-Lite's defaults grow too
    assert big["config"]["axis"]["titleFontSize"] == 16.5 and big["config"]["title"]["fontSize"] == 19.5
    assert big["config"]["legend"] == {"labelFontSize": 15, "titleFontSize": 16.5}
    assert spec["mark"]["fontSize"] == 12 and "title" not in spec["config"]  # the spec itself unchanged
