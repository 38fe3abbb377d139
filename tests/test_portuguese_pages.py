"""Every page, opened with ``?lang=pt``, in Portuguese: the text a reader sees (titles, prose, notes,
widget labels, help and options, tabs and expanders, table headers, chart titles, axes, legends
and tooltips; tests/page_text.py) holds no English word of tests/bilingual.py's list, outside
formulas, code and quoted data (the English models' texts and tokens). Each section of a page with
tabs is opened in turn.

Run as a script (``python tests/test_portuguese_pages.py``) it prints the count of English words
left on each page and section, and how many words of text each shows."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from any folder

from lab.registry import listed_pages
from tests.page_text import page_text_report

MINILM = "MiniLM (pretrained)"
VARIANTS = {
    "pages/home.py": [{}],
    "pages/lesson.py": [{"step": str(k)} for k in range(1, 10)],
    "pages/concept_check.py": [{}, {"phase": "post"}],
    "pages/encoding_heatmap.py": [{}, {"layout": "tensor2tensor", "d": "7", "n": "1"}],
    "pages/binary_analogy.py": [{}],
    "pages/offset_rotation.py": [{}],
    "pages/complexity_comparison.py": [{}],
    "pages/live_attention.py": [{"view": "Weights"}, {"view": "Masking"}, {"view": "Order"},
                                {"model": MINILM, "mview": "Heads"}, {"model": MINILM, "mview": "Follow a word"},
                                {"model": MINILM, "mview": "Order and positions"}],
    "pages/train.py": [{}, {"kind": "decoder"}],
    "pages/encoding_families.py": [{"section": s} for s in ("Side by side", "Conventions", "Past the training length",
                                                            "Context extension", "Published results")],
    "pages/fixed_or_learned.py": [{}],
    "pages/rope_in_a_real_model.py": [{}],
    "pages/classroom.py": [{}],  # outside a class (in a class: tests/test_classroom.py)
}
CASES = [(page, query) for page, queries in VARIANTS.items()
         if page in ("pages/home.py", "pages/lesson.py", "pages/concept_check.py", "pages/classroom.py") or page in {p.path for p in listed_pages()}
         for query in queries]


def test_every_listed_page_is_read_in_portuguese():
    assert {p.path for p in listed_pages()} <= set(VARIANTS)


@pytest.mark.parametrize("page, query", CASES, ids=[f"{p.removeprefix('pages/')}-{'-'.join(q.values()) or 'default'}"
                                                    for p, q in CASES])
def test_a_portuguese_page_holds_no_english_prose(page, query):
    report = page_text_report(page, query, "pt")
    assert not report.english, f"English words left on {page} {query}: {report.english}"
    assert len(re.findall(r"\w+", report.text)) > 20  # the page drew its text


if __name__ == "__main__":
    print("| page | section | words shown | English words left |")
    print("| --- | --- | --- | --- |")
    for page, query in CASES:
        report = page_text_report(page, query, "pt")
        words = len(re.findall(r"\w+", report.text))
        left = ", ".join(report.english) if report.english else "0"
        print(f"| {page} | {', '.join(f'{k}={v}' for k, v in query.items()) or 'default'} | {words} | {left} |")
