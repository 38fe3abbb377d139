"""Is the generator honest? One attendee's clicks, made once in Chromium and once by the
protocol client, and what each sent to the server, compared message by message.

    python -m benchmarks.protocol_load --compare-with-chromium

Chromium's side is recorded with Playwright (``page.on("websocket")``, ``framesent``) and
the DevTools protocol (the websocket handshake's headers). Both sides open the home page,
visit the pages below and make the same changes (a slider and a select slider one
step with the arrow keys, a radio option, a selectbox option, a toggle, a new sentence, another
tab, a button), against the same server, each in a fresh
session. Compared for every ``rerun_script``: the query string, page hash and name, every
widget's id and value (as a set: the order of widgets in the message differs between the
two and means nothing to the server), the hashes of cached messages, the browser context
(address without origin); and the handshake (subprotocol tokens, cookie names, Origin).
"""

from __future__ import annotations

import asyncio
import random
from urllib.parse import urlsplit

from google.protobuf import text_format
from streamlit.proto.BackMsg_pb2 import BackMsg

from benchmarks.browser import AppServer, chromium_missing_reason, launch, timed_interaction, wait_for_script
from benchmarks.protocol.client import Tab
from benchmarks.protocol.widgets import Change, Value

# (page title, [(kind, label, key or text)]): clicks in the sidebar's order and changes on each
# (controls a reader sees without opening a section: those under "Explore further" are drawn only once opened)
CLICKS = [
    ("The lesson", [("selectbox", "The word that looks", "bit"), ("button", "Next", None)]),
    ("Encoding heatmap", [("slider", "Positions n", "ArrowLeft"), ("slider", "Dimension d", "ArrowRight"),
                          ("radio", "Layout", "tensor2tensor (sin | cos)")]),
    ("Binary analogy", [("slider", "Bits", "ArrowLeft"), ("slider", "Numbers per position", "ArrowRight")]),
    ("Offset rotation", [("slider", "Offset δ", "ArrowRight")]),
    ("Complexity comparison", [("slider", "Kernel size k", "ArrowRight"),
                               ("slider", "Tokens in the picture", "ArrowLeft")]),
    ("Live attention", [("text", "Your sentence", "the cat sat on the mat because it was warm"),
                        ("slider", "Heads", "ArrowRight"), ("toggle", "Add P", None),
                        ("tab", "Masking", None)]),
]


def chromium_frames(url: str) -> tuple[list[bytes], list[dict]]:
    """The BackMsgs Chromium sends for CLICKS, and its websocket handshake headers."""
    from playwright.sync_api import sync_playwright

    sent: list[bytes] = []
    handshakes: list[dict] = []
    with sync_playwright() as p:
        browser = launch(p)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.webSocketWillSendHandshakeRequest",
               lambda e: handshakes.append({k.lower(): v for k, v in e["request"]["headers"].items()}))
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(bytes(payload))))
        page.goto(url + "/")
        wait_for_script(page)
        for title, actions in CLICKS:
            timed_interaction(page, lambda: page.locator('[data-testid="stSidebarNav"] a').filter(
                has_text=title).first.click())
            for kind, label, value in actions:
                if kind == "slider":
                    thumb = page.locator('[data-testid="stSlider"]').filter(has_text=label).locator(
                        'input[type="range"]').first
                    timed_interaction(page, lambda: (thumb.focus(), thumb.press(value)))
                elif kind == "text":
                    box = page.get_by_role("textbox", name=label)
                    timed_interaction(page, lambda: (box.fill(value), box.press("Enter")))
                elif kind == "radio":
                    group = page.locator('[data-testid="stRadio"]').filter(has_text=label)
                    timed_interaction(page, lambda: group.get_by_text(value, exact=True).click())
                elif kind == "selectbox":
                    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label)
                    # open it, type to filter the options, take the first with Enter
                    timed_interaction(page, lambda: (box.click(), page.keyboard.type(value),
                                                     page.keyboard.press("Enter")))
                elif kind == "toggle":
                    box = page.locator('[data-testid="stCheckbox"]').filter(has_text=label)
                    timed_interaction(page, lambda: box.get_by_text(label).click())
                elif kind == "button":
                    timed_interaction(page, lambda: page.get_by_role("button", name=label).click(),
                                      timeout_ms=120_000)
                else:
                    timed_interaction(page, lambda: page.get_by_role("tab", name=label).click())
        browser.close()
    return sent, handshakes


def _change_for(tab: Tab, kind: str, label: str, value) -> Change:
    """The generator's version of a Chromium click."""
    if kind == "tab":
        block, _labels = tab.tab_containers()[0]
        return Change(block.id, "tabs", "tab", Value("string_value", label), None)
    for wkind, w in tab.widgets():
        # a button is found as Chromium finds it by role: its label contains the text (after a shared
        # sweep, "Measure" reads "Measure again" in every later session)
        if w.label == label or (kind == "button" and label in w.label):
            current = tab.values.get(w.id)
            if kind == "slider" and current.field == "string_array_value":  # a select_slider
                options = list(w.options)
                i = options.index(current.value[0]) + (1 if value == "ArrowRight" else -1)
                return Change(w.id, label, "select_slider", Value("string_array_value", (options[i],)), current)
            if kind == "slider":
                step = w.step if value == "ArrowRight" else -w.step
                return Change(w.id, label, "slider", Value("double_array_value", (current.value[0] + step,)), current)
            if kind == "toggle":
                return Change(w.id, label, "checkbox", Value("bool_value", not current.value), current)
            if kind == "button":
                return w
            return Change(w.id, label, kind, Value("string_value", value), current)
    raise LookupError(f"no widget labelled {label!r} on the page")


async def generator_frames(url: str) -> tuple[list[bytes], list[str]]:
    tab = Tab(url, rng=random.Random(0))
    await tab.open()
    titles = [p.name for p in tab.pages]
    for title, actions in CLICKS:
        await tab.goto(next(p for p in tab.pages if p.name == title))
        for kind, label, value in actions:
            if kind == "button":
                await tab.press(_change_for(tab, kind, label, value))
            else:
                await tab.change(_change_for(tab, kind, label, value))
    tokens = ["streamlit", "<_streamlit_xsrf cookie>" if "_streamlit_xsrf" in tab.cookies else "PLACEHOLDER_AUTH_TOKEN"]
    await tab.close()
    return tab.sent, [*tokens, *titles]


def _rerun_view(data: bytes) -> dict:
    msg = BackMsg()
    msg.ParseFromString(data)
    if msg.WhichOneof("type") != "rerun_script":
        return {"type": msg.WhichOneof("type")}
    rs = msg.rerun_script
    widgets = {}
    for w in rs.widget_states.widgets:
        field = w.WhichOneof("value")
        if field is None:  # a widget with no value (a radio that starts with none chosen)
            widgets[w.id] = (None, None)
            continue
        v = getattr(w, field)
        widgets[w.id] = (field, tuple(v.data) if hasattr(v, "data") else v)
    ctx = text_format.MessageToString(rs.context_info, as_one_line=True)
    return {
        "type": "rerun_script", "query_string": rs.query_string, "page_script_hash": rs.page_script_hash,
        "page_name": rs.page_name, "fragment_id": rs.fragment_id, "widgets": widgets,
        "has_widget_states": rs.HasField("widget_states"),
        "cached_message_hashes": frozenset(rs.cached_message_hashes),
        "context": ctx.replace(urlsplit(rs.context_info.url)._replace(path="", query="").geturl(), "<origin>"),
        "is_auto_rerun": rs.is_auto_rerun,
    }


def compare(chromium: list[bytes], generator: list[bytes]) -> list[str]:
    """Differences between the two message lists, in words (empty when they agree).

    ``chromium`` may hold the browser's own fragment reruns: they are not compared, but each one
    ends a run in the browser, and the browser forgets a cached message that was not used for
    ``max_cached_message_age`` runs. From the first of them on, the browser's cached-message
    hashes must therefore be among the generator's (it may have forgotten more), not equal."""
    a, aged, seen_fragment = [], [], False
    for raw in chromium:
        if _fragment_rerun(raw):
            seen_fragment = True
            continue
        view = _rerun_view(raw)
        if view["type"] != "app_heartbeat":
            a.append(view)
            aged.append(seen_fragment)
    b = [_rerun_view(d) for d in generator]
    out = []
    if len(a) != len(b):
        out.append(f"Chromium sent {len(a)} messages, the generator {len(b)}")
    for i, (x, y) in enumerate(zip(a, b)):
        for key in x.keys() | y.keys():
            if x.get(key) != y.get(key):
                if key == "cached_message_hashes" and aged[i] and x[key] <= y[key]:
                    continue
                if key == "widgets":
                    ids = x["widgets"].keys() | y["widgets"].keys()
                    for wid in sorted(ids):
                        if x["widgets"].get(wid) != y["widgets"].get(wid):
                            out.append(f"message {i}: widget {wid.split('-')[-1]}: Chromium "
                                       f"{x['widgets'].get(wid)} vs generator {y['widgets'].get(wid)}")
                else:
                    out.append(f"message {i}: {key}: Chromium {x.get(key)!r} vs generator {y.get(key)!r}")
    return out


def run_comparison() -> dict:
    reason = chromium_missing_reason()
    if reason:
        raise RuntimeError(reason)
    with AppServer() as server:
        sent, handshakes = chromium_frames(server.url)
        mine, info = asyncio.run(generator_frames(server.url))
    # Now and then (about one run in four here) the browser reruns a fragment of its own accord
    # after a slider step, with no click behind it; the generator makes only the users' reruns.
    # Those are set aside, counted, and not compared.
    own = [raw for raw in sent if _fragment_rerun(raw)]
    return {"chromium": [raw for raw in sent if not _fragment_rerun(raw)], "generator": mine, "handshakes": handshakes,
            "differences": compare(sent, mine), "generator_tokens": info[:2], "pages": info[2:],
            "browser_fragment_reruns": len(own)}


def _fragment_rerun(raw: bytes) -> bool:
    msg = BackMsg()
    msg.ParseFromString(raw)
    return msg.WhichOneof("type") == "rerun_script" and bool(msg.rerun_script.fragment_id)


def compare_main() -> int:
    result = run_comparison()
    print(f"Chromium sent {len(result['chromium'])} BackMsgs, the generator {len(result['generator'])} "
          f"(pages in navigation order: {', '.join(result['pages'])})")
    for h in result["handshakes"]:
        protocols = [t.strip() for t in h.get("sec-websocket-protocol", "").split(",")]
        cookies = [c.split("=")[0].strip() for c in h.get("cookie", "").split(";") if c]
        print(f"Chromium's websocket handshake: subprotocols {protocols[:1] + ['<token>'] * (len(protocols) - 1)}, "
              f"cookies {cookies}, origin {h.get('origin')}, extensions {h.get('sec-websocket-extensions')}")
    print(f"generator's: subprotocols {result['generator_tokens']}, cookies ['_streamlit_xsrf'], origin = the "
          "server's address, extensions permessage-deflate")
    diffs = result["differences"]
    print("differences:" if diffs else "no differences in query strings, pages, widget states, cached "
          "hashes or browser context")
    for d in diffs:
        print("  " + d)
    return 1 if diffs else 0
