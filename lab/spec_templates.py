"""Charts that ``pekit.charts`` built ahead of time, for the pages that draw before pekit is loaded.

The home page (the first a waking server draws) and the classroom page draw without torch,
pandas and altair: about 1.5 s of imports on a 2-core CPU. Their charts are still pekit's: the
builder in :mod:`pekit.charts` made each one's Vega-Lite spec once, with a slot (a string
``"{{name}}"``) wherever a word of the reader's language or a page's data goes, and the spec is
checked in beside the views (``lab/views/<name>.json``). A view reads it with :mod:`json` and
fills the slots (:func:`fill`); a number locale for the reader's language comes with the spec
(:func:`localized`), as ``pekit.charts`` adds it.

Made again by ``python -m lab.spec_templates`` (after a change of a builder or of pekit's
numbers); ``tests/test_spec_templates.py`` builds them again and compares them with the files.
This module's top imports the standard library only; what builds the specs imports pekit where
it runs.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "views"
NAMES = ("home_picture", "answers_chart")  # the checked-in specs, lab/views/<name>.json


def path_of(name: str) -> Path:
    if name not in NAMES:
        raise ValueError(f"name={name!r} must be one of {NAMES}")
    return FOLDER / f"{name}.json"


@functools.cache
def template(name: str) -> dict:
    """The checked-in template ``name`` (read once per process; never changed: :func:`fill` copies)."""
    with path_of(name).open(encoding="utf-8") as file:
        return json.load(file)


def fill(spec: object, slots: Mapping[str, object]) -> object:
    """A copy of ``spec`` in which every string ``"{{name}}"`` is ``slots[name]`` (put in as it
    is: a word, a number, a list of rows). A slot left without a value raises ``ValueError``."""
    if isinstance(spec, str):
        if spec.startswith("{{") and spec.endswith("}}"):
            name = spec[2:-2]
            if name not in slots:
                raise ValueError(f"slots has no value for {{{{{name}}}}}")
            return slots[name]
        return spec
    if isinstance(spec, dict):
        return {key: fill(value, slots) for key, value in spec.items()}
    if isinstance(spec, list):
        return [fill(value, slots) for value in spec]
    return spec


def localized(spec: dict, locales: Mapping[str, dict | None], code: str) -> dict:
    """``spec`` with the number locale of language ``code`` (``locales``: what ``pekit.charts``
    gives each language, None for Vega's default), set as ``pekit.charts`` sets it."""
    locale = locales.get(code)
    if locale is None:
        return spec
    return {**spec, "config": {**spec.get("config", {}), "locale": copy.deepcopy(locale)}}


# -- building the templates with pekit.charts (imports pekit, torch and altair) -----------------

TOP = 987_654_321  # a count no class reaches: where it lands in the spec becomes the axis' slot


def _locales() -> dict[str, dict | None]:
    from lab.i18n import LANGUAGES, wording

    return {code: wording(code).vega_locale() for code in LANGUAGES}


def _replaced(spec: object, value: object, slot: str) -> tuple[object, int]:
    """``spec`` with every value equal to ``value`` (and of its type) replaced by ``"{{slot}}"``,
    and how many were replaced."""
    if type(spec) is type(value) and spec == value:
        return "{{" + slot + "}}", 1
    if isinstance(spec, dict):
        pairs = [(key, _replaced(v, value, slot)) for key, v in spec.items()]
        return {key: v for key, (v, _) in pairs}, sum(count for _, (_, count) in pairs)
    if isinstance(spec, list):
        items = [_replaced(v, value, slot) for v in spec]
        return [v for v, _ in items], sum(count for _, count in items)
    return spec, 0


def _slot(spec: object, value: object, slot: str) -> object:
    spec, count = _replaced(spec, value, slot)
    if not count:
        raise AssertionError(f"the builder's spec holds no {value!r} to make the slot {slot}")
    return spec


def build_home_picture() -> dict:
    """The home page's picture: ``pekit.charts.heatmap`` of the sinusoidal table at the encoding
    heatmap page's defaults (float64), its titles as slots, its cells in the one layer of the
    chart (Streamlit sends a top-level table converted with pandas, which this page skips);
    with each column pair's sine and cosine column and wavelength."""
    import torch

    import pekit
    from pekit import charts
    from lab.views.home import BASE, D, HEIGHT, N

    P = pekit.sinusoidal_encoding(N, D, base=BASE, device="cpu", dtype=torch.float64)  # (N, D)
    with charts.worded(charts.ENGLISH):
        spec = dict(charts.heatmap(P, x_title="{{x_title}}", y_title="{{y_title}}", value_title="{{value_title}}",
                                   height=HEIGHT).spec())
    layer = {key: spec.pop(key) for key in ("data", "mark", "encoding")}
    spec = {"config": spec.pop("config"), "layer": [layer], **spec}
    pairs = [[int(r.sin_column), int(r.cos_column), float(r.wavelength)]
             for r in pekit.frequency_table(D, base=BASE).itertuples()]
    from pekit.binary import distinct_positions

    closest = distinct_positions(P).min_distance  # the two closest rows drawn: "no two alike"
    return {"n": N, "d": D, "base": BASE, "pairs": pairs, "closest": closest, "locales": _locales(), "spec": spec}


def build_answers_chart() -> dict:
    """The classroom's bars of a question's answers, ``pekit.charts.answer_bars``: while asked and
    once revealed, with slots for the rows (``option``, ``text``, ``count``, ``right``, ``order``
    per option), the count axis' end, the height of an option's band and the titles."""
    from pekit import charts

    specs = {}
    for state, correct in (("asked", None), ("revealed", 0)):
        with charts.worded(charts.ENGLISH):
            spec = dict(charts.answer_bars(["{{label}}"], [TOP], correct=correct, count_title="{{count_title}}",
                                           label_title="{{label_title}}").spec())
        rows = spec["data"]["values"]
        spec = _slot(_slot(spec, rows, "rows"), TOP, "top")
        spec["height"] = {"step": "{{step}}"}  # room for the longest label's lines (charts.bars.bar_step)
        specs[state] = spec
    return {"locales": _locales(), "specs": specs}


BUILDERS = {"home_picture": build_home_picture, "answers_chart": build_answers_chart}


def as_json(built: dict) -> str:
    """How a template is written: compact, one file of JSON, non-ASCII characters as they are."""
    return json.dumps(built, ensure_ascii=False, separators=(",", ":")) + "\n"


def write(name: str) -> Path:
    """Build the template ``name`` with pekit.charts and write it to its file."""
    path = path_of(name)
    path.write_text(as_json(BUILDERS[name]()), encoding="utf-8")
    return path


if __name__ == "__main__":
    for built in NAMES:
        print(write(built))
