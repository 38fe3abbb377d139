"""What each widget reports to the server, and how a simulated attendee changes it.

The Streamlit frontend keeps one value per widget id (its ``WidgetStateManager``). When a
widget element arrives it takes the element's value if the server set one (``set_value``),
else the value it already holds, else the element's default; every rerun it sends the values
of all widgets on the page. The value travels in one field of ``WidgetState`` per kind of
widget, as observed from Chromium (``benchmarks.protocol.chromium`` checks this):

- slider: ``double_array_value`` [value] (a range slider: [low, high])
- select_slider: ``string_array_value`` [option]
- number_input: ``int_value`` (integer format) or ``double_value``
- radio, selectbox: ``string_value`` (the option's label)
- text_input: ``string_value``; checkbox and toggle: ``bool_value``
- button_group (``st.segmented_control``, ``st.pills``): ``string_array_value`` [option labels]
- tabs with a key (``st.tabs(..., key=...)``): ``string_value`` (the label), only once a tab
  was clicked; buttons: ``trigger_value`` true in the one rerun the click causes.

Reference: Streamlit 1.67's protobuf definitions (``streamlit/proto``) and frontend bundle.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState

# Element kinds that hold a value the frontend reports in every rerun.
VALUE_WIDGETS = frozenset({"slider", "number_input", "radio", "selectbox", "text_input", "checkbox", "button_group"})
# Element kinds that are widgets (interactive) but report nothing until clicked, or never.
TRIGGER_WIDGETS = frozenset({"button", "download_button", "page_link", "link_button"})
WIDGET_KINDS = VALUE_WIDGETS | TRIGGER_WIDGETS | frozenset({
    "multiselect", "text_area", "date_input", "time_input", "color_picker", "file_uploader",
    "camera_input", "chat_input", "audio_input", "date_time_input", "feedback", "menu_button"})

# Words for new sentences typed into a text field that holds a sentence.
WORDS = ("the", "a", "cat", "dog", "sat", "ran", "on", "under", "mat", "street", "because", "it", "was", "warm",
         "tired", "quickly", "model", "attends", "to", "every", "token", "position", "and", "order", "matters")


@dataclass(frozen=True)
class Value:
    """A widget's value as one ``WidgetState`` field: ``field`` names the oneof member."""

    field: str
    value: object

    def fill(self, state: WidgetState) -> None:
        if not self.field:  # reported with no value (a radio with none chosen)
            return
        if self.field in ("double_array_value", "string_array_value", "int_array_value"):
            getattr(state, self.field).data.extend(self.value)
        else:
            setattr(state, self.field, self.value)


NO_VALUE = Value("", None)


def element_value(kind: str, w) -> Value | None:
    """The value the frontend reports for widget element ``w`` of kind ``kind``: the value the
    server set, else the default. None for widgets that report nothing by themselves."""
    if kind == "slider":
        if w.type == Slider.SELECT_SLIDER:
            if w.set_value and len(w.raw_value):
                return Value("string_array_value", tuple(str(v) for v in w.raw_value))
            values = list(w.value) if w.set_value else list(w.default)
            return Value("string_array_value", tuple(w.options[int(i)] for i in values))
        return Value("double_array_value", tuple(float(v) for v in (w.value if w.set_value else w.default)))
    if kind == "number_input":
        v = w.value if w.set_value else w.default
        if w.data_type == NumberInput.INT:
            return Value("int_value", int(v))
        return Value("double_value", float(v))
    if kind in ("radio", "selectbox"):
        if w.set_value:
            return Value("string_value", w.raw_value)
        if w.HasField("default") and 0 <= w.default < len(w.options):
            return Value("string_value", w.options[w.default])
        # the browser reports a radio with none chosen, with no value; a selectbox not at all
        return NO_VALUE if kind == "radio" else None
    if kind == "text_input":
        return Value("string_value", w.value if w.set_value else w.default)
    if kind == "checkbox":
        return Value("bool_value", bool(w.value if w.set_value else w.default))
    if kind == "button_group":
        if w.set_value:
            return Value("string_array_value", tuple(w.raw_values))
        return Value("string_array_value", tuple(w.options[int(i)].content for i in w.default
                                                 if 0 <= int(i) < len(w.options)))
    return None


@dataclass
class Change:
    """One widget change an attendee can make: a description and the new value."""

    widget_id: str
    label: str
    kind: str
    new: Value
    old: Value | None

    def describe(self) -> str:
        def show(v: Value | None) -> str:
            if v is None:
                return "unset"
            x = v.value
            return repr(x[0] if isinstance(x, tuple) and len(x) == 1 else x)[:40]
        return f"{self.kind} {self.label!r}: {show(self.old)} -> {show(self.new)}"


def possible_change(kind: str, w, current: Value | None, rng: random.Random) -> Change | None:
    """A change a person would make to widget ``w`` (current value ``current``), or None when
    this kind is not changed by the load (number fields, buttons, free-form lists)."""
    if getattr(w, "disabled", False):
        return None
    if kind == "slider":
        if w.type == Slider.SELECT_SLIDER:
            options = list(w.options)
            if current is None or len(options) < 2 or len(current.value) != 1 or current.value[0] not in options:
                return None
            i = options.index(current.value[0])
            j = i + 1 if i + 1 < len(options) and (i == 0 or rng.random() < 0.5) else i - 1
            return Change(w.id, w.label, "select_slider", Value("string_array_value", (options[j],)), current)
        if current is None or len(current.value) != 1:
            return None
        v, step = current.value[0], w.step or 1.0
        up, down = v + step <= w.max, v - step >= w.min
        if not (up or down):
            return None
        new = v + step if up and (not down or rng.random() < 0.5) else v - step
        return Change(w.id, w.label, "slider", Value("double_array_value", (float(new),)), current)
    if kind in ("radio", "selectbox"):
        others = [o for o in w.options if current is None or o != current.value]
        if not others:
            return None
        return Change(w.id, w.label, kind, Value("string_value", rng.choice(others)), current)
    if kind == "text_input":
        # only fields holding a sentence get a new one; fields with a syntax (lists such as
        # "6-9") are left alone, as a generic tool cannot know what they accept
        if current is None or " " not in str(current.value):
            return None
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 12))]
        text = " ".join(words).capitalize() + "."
        return Change(w.id, w.label, "text_input", Value("string_value", text), current)
    if kind == "checkbox":
        old = bool(current.value) if current is not None else False
        return Change(w.id, w.label, "checkbox", Value("bool_value", not old), current)
    return None
