"""Settings parsed from links (the app's side): ranges, defaults, notes for unusable text."""

import pytest

from lab.settings import ChoiceSetting, FloatSetting, IntListSetting, IntSetting

N = IntSetting("n", "Positions", default=60, minimum=1, maximum=4096)
BASE = FloatSetting("base", "Base", default=10000.0, minimum=2.0, maximum=1e6)
LAYOUT = ChoiceSetting("layout", "Layout", default="interleaved", options=("interleaved", "tensor2tensor"))
COLS = IntListSetting("cols", "Columns", default=(6, 7, 8, 9), minimum=0, maximum=1023, max_items=8)

HOSTILE = ["", "abc", "-5", "1e9", "nan", "NaN", "inf", "-inf", "0x10", "x" * 100_000,
           "<script>alert(1)</script>", "\x00\x07", "🙂", "1; DROP TABLE", "  ", "9" * 400]


@pytest.mark.parametrize("raw", HOSTILE)
def test_hostile_values_fall_back_with_a_note(raw):
    for setting in (N, BASE, LAYOUT, COLS):
        parsed = setting.parse(raw)
        assert parsed.value == setting.default, (setting.name, raw)
        assert parsed.note and setting.name in parsed.note
        assert len(parsed.note) < 300  # long junk is not echoed back whole
        assert "\x00" not in parsed.note


@pytest.mark.parametrize("raw", ["0", "4097", "12.5", "-1"])
def test_out_of_range_ints(raw):
    value, note = N.parse(raw)
    assert value == 60 and "from 1 to 4096" in note


@pytest.mark.parametrize("raw, value", [("1", 1), ("4096", 4096), (" 42 ", 42), ("12.0", 12)])
def test_valid_ints(raw, value):
    assert N.parse(raw) == (value, None)


def test_missing_and_repeated():
    assert N.parse(None) == (60, None)
    value, note = N.parse(["3", "7"])
    assert value == 7 and "2 times" in note
    assert N.parse([]) == (60, None)


def test_floats_and_choices():
    assert BASE.parse("500") == (500.0, None)
    assert BASE.parse("1e5") == (1e5, None)
    assert LAYOUT.parse("tensor2tensor") == ("tensor2tensor", None)
    assert LAYOUT.parse("TENSOR2TENSOR").value == "interleaved"


@pytest.mark.parametrize("raw, value", [("6-9", (6, 7, 8, 9)), ("1,3,5", (1, 3, 5)), ("0", (0,)), ("2,2,3", (2, 3)),
                                        ("0-7", tuple(range(8)))])
def test_int_lists(raw, value):
    assert COLS.parse(raw) == (value, None)


@pytest.mark.parametrize("raw", ["9-6", "0-8", "1,2,3,4,5,6,7,8,9", "1-1000000000", "-1", "a-b", "1024"])
def test_bad_int_lists(raw):
    assert COLS.parse(raw).value == COLS.default and COLS.parse(raw).note


def test_format_round_trips():
    for setting, value in ((N, 123), (BASE, 2500.0), (LAYOUT, "tensor2tensor"), (COLS, (1, 5, 9))):
        assert setting.parse(setting.format(value)) == (value, None)


def test_narrowed_list_setting():
    narrow = COLS.within(7)
    assert narrow.maximum == 7 and narrow.default == (6, 7)
    assert COLS.within(3).default == (0, 1, 2, 3)
    assert narrow.parse("8").note


def test_settings_bound_to_widgets():
    """What a page's widget holds for each kind of setting, and back (``lab.page.Page`` asks the setting)."""
    from lab.i18n import option_label, use
    from lab.settings import BoolSetting, TextSetting

    on = BoolSetting("on", "On", default=False)
    plain = TextSetting("t", "Text", default="hello", max_chars=10)
    sentence = TextSetting("text", "Your sentence",
                           default="The animal didn't cross the street because it was too tired.", max_chars=2000,
                           localized=True)
    kind = ChoiceSetting("kind", "Model", default="encoder", options=("encoder", "decoder"))
    # most settings: the widget holds the value itself
    for setting, value in ((N, 12), (BASE, 2.5), (LAYOUT, "tensor2tensor"), (on, True), (plain, "hello")):
        assert setting.widget_value(value) == value and setting.from_widget(value) == value
        assert setting.link_value(value) == value and setting.shown_default() == setting.default
        assert not setting.is_default_text(setting.default) and setting.narrowed(3) is setting
    # a list is edited as the link's text, and read back as values (the default when empty)
    assert COLS.widget_value((1, 2, 3)) == "1,2,3"
    assert COLS.link_value("1-3") == (1, 2, 3) and COLS.link_value("  ") == COLS.default
    assert COLS.narrowed(7) == COLS.within(7) and COLS.narrowed(None) is COLS
    # a tab's label in any language gives its option; an unknown label is left as it is
    for code in ("en", "pt"):
        with use(code):
            label = option_label("decoder")
        assert kind.from_widget(label) == "decoder"
    assert kind.from_widget("neither") == "neither"
    # a localized default text is shown in the reader's language, and counts as the default in any
    with use("pt"):
        shown = sentence.shown_default()
        assert sentence.widget_value(sentence.default) == shown and sentence.widget_value("mine") == "mine"
    assert shown != sentence.default
    assert sentence.is_default_text(shown) and sentence.is_default_text(sentence.default)
    assert not sentence.is_default_text("mine") and not plain.is_default_text("hello")
