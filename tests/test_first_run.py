"""A server's first runs, each in a fresh interpreter: the home page draws without pekit and
loads it once drawn (the sidebar then says where pekit computes); a first page that computes
loads pekit before it runs, and its charts speak the reader's language either way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import json, sys
from streamlit.testing.v1 import AppTest

first, lang = sys.argv[1], sys.argv[2]
at = AppTest.from_file("streamlit_app.py", default_timeout=120)
at.query_params["lang"] = lang
if first != "home":
    at.switch_page(first)
at.run()
said = {"first_exception": [e.value for e in at.exception],
        "first_titles": [json.loads(c.proto.spec).get("encoding", {}).get("x", {}).get("title")
                         for c in at.get("vega_lite_chart")],
        "first_device": [c.value for c in at.sidebar.caption]}
if first == "home":
    at.switch_page("pages/encoding_heatmap.py").run()
said["then_exception"] = [e.value for e in at.exception]
said["then_titles"] = [json.loads(c.proto.spec).get("encoding", {}).get("x", {}).get("title")
                       for c in at.get("vega_lite_chart")]
print(json.dumps(said))
"""


def first_runs(first: str, lang: str) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, first, lang], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("lang, column", [("en", "Column (encoding dimension)"),
                                          ("pt", "Coluna (dimensão da codificação)")])
@pytest.mark.parametrize("first", ["home", "pages/encoding_heatmap.py"])
def test_a_servers_first_page_then_the_heatmap_in_the_readers_language(first, lang, column):
    said = first_runs(first, lang)
    assert said["first_exception"] == [] and said["then_exception"] == []
    assert column in said["then_titles"]  # the heatmap page's first chart, in the reader's language
    if first == "home":  # the home picture (its one layer holds the encoding), drawn before pekit was loaded
        assert said["first_titles"] == [None]
    computing = "Computing on" if lang == "en" else "Calculando"
    assert any(computing in text for text in said["first_device"]), said["first_device"]
