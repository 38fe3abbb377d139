"""One attendee's browser tab, as the Streamlit server sees it: HTTP requests, one websocket,
``BackMsg`` out and ``ForwardMsg`` in.

Follows what the Streamlit 1.67 frontend does (read from its bundle and checked against
Chromium's frames by ``benchmarks.protocol.chromium``):

- Opening a link: GET the page (index.html), then ``/_stcore/health`` and
  ``/_stcore/host-config`` (the health answer sets the ``_streamlit_xsrf`` cookie), then the
  websocket ``/_stcore/stream`` with the cookie, an ``Origin`` header and the subprotocols
  ``streamlit, <xsrf cookie>[, <last session id>]``; then a ``rerun_script`` with the link's
  query string, an empty ``page_script_hash`` and the path as ``page_name``.
- A page change: ``rerun_script`` with the page's ``page_script_hash``, no widget states and
  no query string. A widget change: the values of every widget on the page, the changed one
  updated, the current query string and page hash. Every rerun lists the hashes of the
  cached messages and the browser's context (time zone, locale, address, colour scheme).
- The forward-message cache: messages marked ``cacheable`` are kept by hash; the server
  sends a ``ref_hash`` instead of a message the client listed; entries unused for more than
  ``maxCachedMessageAge`` finished runs are dropped.
- A closed websocket: ping ``health`` and ``host-config`` with a growing random delay, open
  a new websocket naming the last session id, and rerun only if a run was in progress (the
  frontend's ``handleConnectionStateChanged``); an idle page keeps what it shows and its next
  action runs on whichever server answered.

An action is timed from the first byte sent to the ``script_finished`` message that ends it
(a run finished early for a rerun does not end it). A run the server starts on its own (a
class's attendees rerun when the presenter moves) updates the tab as a run it asked for does;
``unasked_run`` waits for one, and ``on_run_end`` hears of every run's end.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from benchmarks.protocol import waiting
from benchmarks.protocol.widgets import (
    TRIGGER_WIDGETS, VALUE_WIDGETS, WIDGET_KINDS, Change, Value, element_value, possible_change,
)
from lab.registry import OPTIONAL_PAGES

LAPTOP_PAGES = {page.url_path for page in OPTIONAL_PAGES}

EARLY_FOR_RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN
FRAGMENT_DONE = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
# The browser context every rerun carries (the values a headless Chromium in UTC sends).
CONTEXT = {"timezone": "UTC", "timezone_offset": 0, "locale": "en-US", "is_embedded": False, "color_scheme": "light"}
USER_AGENT = "pekit-protocol-load (Streamlit protocol; loopback benchmark)"
ASSET_RE = re.compile(r'<(?:script|link)[^>]+(?:src|href)="\./(static/[^"]+\.(?:js|css))"')

# a browser opens six connections per server; 64 threads serve the room's first loads without queueing here
_HTTP_POOL = ThreadPoolExecutor(max_workers=64, thread_name_prefix="http")
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


MAIN = 0  # the root container of the page's main area in a delta path (the sidebar is 1)

class ActionFailed(Exception):
    """An action that got no answer: a timeout, a closed connection that could not be
    reopened, or a server that refused the connection."""


@dataclass
class Page:
    """A page from the server's navigation message, in navigation order."""

    script_hash: str
    name: str
    url_pathname: str
    is_default: bool

    @property
    def path(self) -> str:
        return "" if self.is_default else self.url_pathname


@dataclass
class RunResult:
    """What came back for one action."""

    seconds: float
    page_hash: str
    exceptions: list[str]
    errors_shown: list[str]
    signature: dict
    widget_mismatches: list[str] = field(default_factory=list)
    reconnected: bool = False
    server: str = ""
    lost_change: str = ""  # after a reconnect, the change the attendee made was not applied


@dataclass
class _Run:
    elements: dict = field(default_factory=dict)  # delta path -> (kind, Element or Block, hash)
    exceptions: list = field(default_factory=list)
    errors_shown: list = field(default_factory=list)
    page_hash: str = ""
    auto_reruns: dict = field(default_factory=dict)  # fragment id -> seconds (st.fragment(run_every=))
    fragment: bool = False  # a fragment's own run (its elements update the page's, not replace them)
    waiting: tuple | None = None  # the class's waiting component: (element id, its data), where drawn


class Tab:
    """One browser tab on the app at ``base_url`` (``http://127.0.0.1:PORT``)."""

    def __init__(self, base_url: str, *, timeout: float = 60.0, fetch_assets: bool = False,
                 reconnect_timeout: float = 60.0, rng: random.Random | None = None):
        parts = urllib.parse.urlsplit(base_url)
        if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"base_url: only loopback servers are load-tested, got {base_url!r}")
        self.base = base_url.rstrip("/")
        self.ws_url = "ws" + self.base[4:] + "/_stcore/stream"
        self.timeout = timeout
        self.fetch_assets = fetch_assets
        self.reconnect_timeout = reconnect_timeout
        self.rng = rng or random.Random(0)
        self.cookies: dict[str, str] = {}
        self.pages: list[Page] = []
        self.page_hash = ""  # the page shown
        self.pathname = "/"  # the address bar: path and query string
        self.query = ""
        self.session_id: str | None = None
        self.max_cache_age = 2
        self.elements: dict = {}  # the last finished run's elements by delta path
        self.auto_reruns: dict[str, float] = {}  # the page's fragments that rerun on a timer: id -> seconds
        self.values: dict[str, Value] = {}  # the frontend's widget values, by widget id
        self.main_script_hash = ""  # the entry point's: its widgets (the sidebar's language) stay across pages
        self.widget_scripts: dict[str, str] = {}  # the script that drew each widget, by widget id
        self.tab_values: dict[str, Value] = {}
        self.cache: dict[str, list] = {}  # hash -> [encoded ForwardMsg, run count when last used]
        self.run_count = 0
        self.disconnects = 0
        self.reconnects: list[float] = []  # seconds from each close to the reopened websocket
        self.protocol_errors: list[str] = []
        self.server = ""  # which server answered the websocket (nginx's X-Upstream header)
        self.ws = None
        self._reader: asyncio.Task | None = None
        self._reconnecting: asyncio.Task | None = None
        self._run = _Run()
        self._waiting: asyncio.Future | None = None
        self._unasked: asyncio.Future | None = None  # waits for a run the server started on its own
        self.on_run_end = None  # called (no arguments) at the end of each whole run, asked for or not
        self._closing = False
        self._check_view = False
        self._timers: asyncio.Task | None = None  # the page's timed fragments, rerun as the browser does
        self._timed_since = -1e9  # when the last timed fragment's rerun was sent (until its end)
        self.waiting: tuple | None = None  # the class's waiting component as the last whole run gave it
        self._waiter: asyncio.Task | None = None  # its script's loop (benchmarks.protocol.waiting)
        self.sent: list[bytes] = []  # every BackMsg sent, for comparison with a browser

    # ---- HTTP ---------------------------------------------------------------------------
    def _get_blocking(self, path: str) -> tuple[int, bytes, dict]:
        req = urllib.request.Request(self.base + path, headers={
            "User-Agent": USER_AGENT, "Accept-Encoding": "gzip",
            **({"Cookie": self._cookie_header()} if self.cookies else {})})
        try:
            with _NO_PROXY.open(req, timeout=self.timeout) as r:
                status, body, headers = r.status, r.read(), r.headers
        except urllib.error.HTTPError as err:
            status, body, headers = err.code, b"", err.headers
        for raw in headers.get_all("Set-Cookie") or []:
            name, _, value = raw.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        return status, body, dict(headers)

    async def get(self, path: str) -> tuple[int, bytes, dict]:
        return await asyncio.get_running_loop().run_in_executor(_HTTP_POOL, self._get_blocking, path)

    def _cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    async def _ping(self) -> bool:
        """The frontend's server ping: health and host-config, both answered."""
        try:
            (s1, _, _), (s2, _, _) = await asyncio.gather(self.get("/_stcore/health"), self.get("/_stcore/host-config"))
        except OSError:
            return False
        return s1 == 200 and s2 == 200

    # ---- websocket ------------------------------------------------------------------------
    async def _connect(self) -> None:
        tokens = ["streamlit", self.cookies.get("_streamlit_xsrf", "PLACEHOLDER_AUTH_TOKEN")]
        if self.session_id:
            tokens.append(self.session_id)
        self.ws = await connect(self.ws_url, subprotocols=tokens, origin=self.base, proxy=None,
                                additional_headers={"Cookie": self._cookie_header()} if self.cookies else None,
                                user_agent_header=USER_AGENT, max_size=None, ping_interval=None,
                                open_timeout=self.timeout, compression="deflate")
        self.server = self.ws.response.headers.get("X-Upstream", self.base) if self.ws.response else self.base
        self._reader = asyncio.create_task(self._read(self.ws))

    async def _read(self, ws) -> None:
        try:
            async for raw in ws:
                try:
                    self._handle(raw)
                except Exception as err:  # a message this client cannot make sense of
                    self.protocol_errors.append(f"{type(err).__name__}: {err}")
        except ConnectionClosed:
            pass
        if not self._closing and ws is self.ws:
            self.disconnects += 1
            self._start_reconnect()
            if self._waiting is not None and not self._waiting.done():
                self._waiting.set_exception(ConnectionClosed(None, None))

    def _start_reconnect(self) -> None:
        """As the frontend does on a closed websocket: reconnect at once, in the background
        (the page shows 'Connecting' and its widgets wait meanwhile)."""
        if self._reconnecting is None or self._reconnecting.done():
            self._reconnecting = asyncio.create_task(self._reconnect(time.perf_counter()))

    async def close(self) -> None:
        self._closing = True
        for task in (self._timers, self._waiter):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self._reconnecting is not None and not self._reconnecting.done():
            self._reconnecting.cancel()
            await asyncio.gather(self._reconnecting, return_exceptions=True)
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.wait([self._reader], timeout=5)

    async def _reconnect(self, since: float) -> None:
        """The frontend's reconnect: ping with a growing random delay, then a new websocket
        naming the last session id. Raises ActionFailed after ``reconnect_timeout``."""
        attempt = 0
        while time.perf_counter() - since < self.reconnect_timeout:
            attempt += 1
            top = min(10.0, 0.5 * 2 ** (attempt - 1))
            low = 0.25 if attempt == 1 else top / 2
            await asyncio.sleep(self.rng.uniform(low, top))
            if not await self._ping():
                continue
            try:
                await self._connect()
            except (OSError, InvalidHandshake, asyncio.TimeoutError):
                continue
            self.reconnects.append(time.perf_counter() - since)
            self._check_view = True
            return
        raise ActionFailed(f"no server answered within {self.reconnect_timeout:g} s of the disconnect")

    # ---- incoming messages ------------------------------------------------------------------
    def _handle(self, raw: bytes) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            entry = self.cache.get(msg.ref_hash)
            if entry is None:
                self.protocol_errors.append(f"cached message missing: {msg.ref_hash}")
                return
            entry[1] = self.run_count
            cached = ForwardMsg()
            cached.ParseFromString(entry[0])
            cached.metadata.CopyFrom(msg.metadata)
            msg, kind = cached, cached.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash and msg.hash not in self.cache:
            self.cache[msg.hash] = [raw, self.run_count]
        if kind == "new_session":
            ns = msg.new_session
            if ns.initialize.session_id:
                self.session_id = ns.initialize.session_id
            self.max_cache_age = ns.config.max_cached_message_age or self.max_cache_age
            self.main_script_hash = ns.main_script_hash or self.main_script_hash
            self._run = _Run(page_hash=ns.page_script_hash)
        elif kind == "delta":
            self._on_delta(msg)
        elif kind == "navigation":
            # a workshop's attendees tour the workshop's pages; an optional extra's page (a model
            # for a laptop, listed where it is installed) is not part of the load a room makes
            self.pages = [Page(p.page_script_hash, p.page_name, p.url_pathname, p.is_default)
                          for p in msg.navigation.app_pages if p.url_pathname not in LAPTOP_PAGES]
            # the page this run shows, as the frontend takes it: a new session's first message can
            # name the default page before the entry point's st.navigation has chosen the one asked for
            if self._run is not None and msg.navigation.page_script_hash:
                self._run.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            self._run.exceptions.append(f"page not found: {msg.page_not_found.page_name!r}")
        elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
            self._run.exceptions.append("script compilation error")
        elif kind == "script_finished":
            self._on_finished(msg.script_finished)
        elif kind == "auto_rerun":
            self._run.auto_reruns[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval

    def _on_delta(self, msg: ForwardMsg) -> None:
        path = tuple(msg.metadata.delta_path)
        delta = msg.delta
        if delta.HasField("new_element"):
            el = delta.new_element
            kind = el.WhichOneof("type")
            self._run.elements[path] = (kind, el, msg.hash)
            if kind == "exception":
                self._run.exceptions.append(f"{el.exception.type}: {el.exception.message[:200]}")
            elif kind == "alert" and el.alert.format == el.alert.ERROR:
                self._run.errors_shown.append(el.alert.body[:200])
            elif kind == "bidi_component" and el.bidi_component.component_name == waiting.COMPONENT:
                self._run.waiting = (el.bidi_component.id, json.loads(el.bidi_component.json))
            elif kind in VALUE_WIDGETS:
                w = getattr(el, kind)
                self.widget_scripts[w.id] = msg.metadata.active_script_hash
                if w.set_value or w.id not in self.values:
                    value = element_value(kind, w)
                    if value is not None:
                        self.values[w.id] = value
        elif delta.HasField("add_block"):
            self._run.elements[path] = ("block", delta.add_block, msg.hash)

    def _on_finished(self, status: int) -> None:
        if status == EARLY_FOR_RERUN:
            return
        self._timed_since = -1e9
        run = self._run
        if status == FRAGMENT_DONE:  # a fragment redrew its part of the page
            run.fragment = True
            self.elements = {**self.elements, **run.elements}
            self.run_count += 1
            if self._waiting is not None and not self._waiting.done():
                self._waiting.set_result(run)
            return
        self.elements = run.elements
        self.auto_reruns = dict(run.auto_reruns)
        self.waiting = run.waiting
        if run.page_hash and run.page_hash != self.page_hash:  # the server moved the page (st.switch_page)
            shown = next((p for p in self.pages if p.script_hash == run.page_hash), None)
            if shown is not None:
                self.pathname = "/" + shown.path
        self.page_hash = run.page_hash or self.page_hash
        active = set()
        for kind, el, _ in run.elements.values():
            if kind in WIDGET_KINDS and getattr(getattr(el, kind), "id", ""):
                active.add(getattr(el, kind).id)
            elif kind == "block" and el.HasField("tab_container") and el.id:
                active.add(el.id)
        for wid in [w for w in self.values if w not in active]:
            del self.values[wid]
            self.widget_scripts.pop(wid, None)
        for wid in [w for w in self.tab_values if w not in active]:
            del self.tab_values[wid]
        self.run_count += 1
        for h in [h for h, (_, used) in self.cache.items() if self.run_count - used > self.max_cache_age]:
            del self.cache[h]
        if self.on_run_end is not None:
            self.on_run_end()
        if self._waiting is not None and not self._waiting.done():
            self._waiting.set_result(run)
        elif self._unasked is not None and not self._unasked.done():
            self._unasked.set_result(run)

    # ---- what the page shows -------------------------------------------------------------------
    def signature(self, elements: dict | None = None) -> dict:
        """What the page shows apart from its widgets: delta path -> message hash of every
        other element (download buttons carry a fresh file id each run, so they are left
        out too), plus the query string."""
        sig = {path: h for path, (kind, _, h) in (elements or self.elements).items()
               if kind not in WIDGET_KINDS and kind != "block"}
        sig["query"] = self.query
        return sig

    def widgets(self) -> list[tuple[str, object]]:
        """(kind, element) of every widget in the page's main area, in page order (the sidebar's
        menu and its chart export are not settings of the page). A widget inside a form is left out:
        a browser sends its value only with the form's submit button, which is a widget of its own."""
        return [(kind, getattr(el, kind)) for path, (kind, el, _) in sorted(self.elements.items())
                if kind in WIDGET_KINDS and getattr(getattr(el, kind), "id", "") and path[:1] == (MAIN,)
                and not getattr(getattr(el, kind), "form_id", "")]

    def tab_containers(self) -> list[tuple[object, list[str]]]:
        """(block, tab labels) of every tab container with a key (those report a value)."""
        out = []
        for path, (kind, el, _) in sorted(self.elements.items()):
            if kind == "block" and el.HasField("tab_container") and el.id:
                labels = [b.tab.label for p, (k, b, _) in sorted(self.elements.items())
                          if k == "block" and len(p) == len(path) + 1 and p[:-1] == path and b.HasField("tab")]
                out.append((el, labels))
        return out

    def changes(self) -> list[Change]:
        """Every change an attendee could make on this page: a slider step, another option,
        a new sentence, a toggle, another tab."""
        out = []
        for kind, w in self.widgets():
            change = possible_change(kind, w, self.values.get(w.id), self.rng)
            if change is not None:
                out.append(change)
        for block, labels in self.tab_containers():
            current = self.tab_values.get(block.id)
            shown = current.value if current else (labels[block.tab_container.default_tab_index]
                                                    if block.tab_container.default_tab_index < len(labels) else None)
            others = [label for label in labels if label != shown]
            if others:
                out.append(Change(block.id, "tabs", "tab", Value("string_value", self.rng.choice(others)),
                                  Value("string_value", shown) if shown else None))
        return out

    def outside_open_tab(self, widget_id: str) -> bool:
        """True when the page has tabs and the widget sits outside them: a setting that may
        feed only a tab that is not open (changing it then shows nothing new)."""
        tabs = [path for path, (kind, el, _) in self.elements.items()
                if kind == "block" and el.HasField("tab_container")]
        where = [path for path, (kind, el, _) in self.elements.items()
                 if kind in WIDGET_KINDS and getattr(getattr(el, kind), "id", "") == widget_id]
        return bool(tabs and where) and not any(where[0][:len(t)] == t for t in tabs)

    def button(self, label: str):
        return next((w for kind, w in self.widgets() if kind == "button" and w.label == label), None)

    # ---- actions ---------------------------------------------------------------------------------
    def _rerun_msg(self, *, page_hash: str, page_name: str = "", query: str, states: bool | str,
                   trigger: str | None = None, context_path: str, fragment_id: str = "") -> BackMsg:
        msg = BackMsg()
        rs = msg.rerun_script
        rs.query_string = query
        if fragment_id:  # the frontend's timer for a fragment with run_every
            rs.fragment_id = fragment_id
            rs.is_auto_rerun = True
        rs.widget_states.SetInParent()
        if states == "main":  # a page change: the browser keeps the entry point's widgets only
            for wid, value in self.values.items():
                if self.widget_scripts.get(wid) == self.main_script_hash:
                    state = rs.widget_states.widgets.add()
                    state.id = wid
                    value.fill(state)
        elif states:
            for wid, value in [*self.values.items(), *self.tab_values.items()]:
                state = rs.widget_states.widgets.add()
                state.id = wid
                value.fill(state)
            if trigger:
                state = rs.widget_states.widgets.add()
                state.id = trigger
                state.trigger_value = True
        rs.page_script_hash = page_hash
        rs.page_name = page_name
        rs.cached_message_hashes.extend(self.cache)
        ci = rs.context_info
        for k, v in CONTEXT.items():
            setattr(ci, k, v)
        ci.url = self.base + context_path
        return msg

    async def _after_reconnect(self) -> None:
        task = self._reconnecting
        if task is not None:
            try:
                await task
            finally:
                if self._reconnecting is task:
                    self._reconnecting = None

    async def _action(self, make_msg, t0: float, *, expect_page: str | None = None,
                      changed_id: str | None = None) -> RunResult:
        """Send the rerun ``make_msg()`` builds and wait for its end; on a closed connection
        wait for the reconnect and send it again (rebuilt from the current state)."""
        expected = {**self.values, **self.tab_values}
        reconnected = False
        if self._reconnecting is not None:  # the page is still reconnecting: the click waits
            await self._after_reconnect()
            reconnected = True
        deadline = t0 + self.timeout
        while self._timed_in_flight() and time.perf_counter() < deadline:
            await asyncio.sleep(0.005)  # a timed fragment's run ends first: its end is not this action's
        while True:
            if self.ws is None:
                raise ActionFailed("not connected")
            self._waiting = asyncio.get_running_loop().create_future()
            data = make_msg().SerializeToString()
            self.sent.append(data)
            try:
                await self.ws.send(data)
                run = await asyncio.wait_for(asyncio.shield(self._waiting), max(0.1, deadline - time.perf_counter()))
                break
            except ConnectionClosed:
                self._start_reconnect()
                await self._after_reconnect()
                reconnected = True
                deadline = time.perf_counter() + self.timeout
            except asyncio.TimeoutError as err:
                raise ActionFailed(f"no end of run within {self.timeout:g} s") from err
            finally:
                if self._waiting is not None and self._waiting.done() and not self._waiting.cancelled():
                    self._waiting.exception()  # retrieved, so asyncio does not warn about it
                self._waiting = None
        result = RunResult(time.perf_counter() - t0, run.page_hash, run.exceptions, run.errors_shown,
                           self.signature(run.elements), reconnected=reconnected, server=self.server)
        if expect_page and run.page_hash != expect_page:
            result.widget_mismatches.append(f"page {run.page_hash} shown instead of {expect_page}")
        if self._check_view:
            # first run after a reconnect: the view must be the one the attendee had, and the
            # change the attendee made must have been applied
            self._check_view = False
            for kind, w in self.widgets():
                if kind in VALUE_WIDGETS and w.id in expected and w.set_value:
                    now = element_value(kind, w)
                    if kind in ("radio", "selectbox") and expected[w.id].value not in w.options:
                        continue  # its options followed the change (a new sentence's tokens): nothing to compare
                    if now != expected[w.id]:
                        note = f"{w.label!r}: {now.value} instead of {expected[w.id].value}"
                        if w.id == changed_id:
                            result.lost_change = note
                        else:
                            result.widget_mismatches.append(note)
        return result

    async def open(self, path: str = "", query: str = "") -> RunResult:
        """First load of the link ``/path?query``: the page, (its scripts and styles), the
        pings, the websocket, the first run."""
        t0 = time.perf_counter()
        link = "/" + path + (f"?{query}" if query else "")
        status, body, _ = await self.get(link)
        if status != 200:
            raise ActionFailed(f"GET {link}: HTTP {status}")
        if self.fetch_assets:
            assets = ASSET_RE.findall(body.decode("utf-8", "replace"))
            results = await asyncio.gather(*(self.get("/" + a) for a in assets))
            bad = [a for a, (s, _, _) in zip(assets, results) if s != 200]
            if bad:
                raise ActionFailed(f"assets not served: {bad[:3]}")
        if not await self._ping():
            raise ActionFailed("health or host-config not answered")
        try:
            await self._connect()
        except (OSError, InvalidHandshake, asyncio.TimeoutError) as err:
            raise ActionFailed(f"websocket refused: {err}") from err
        self.pathname, self.query = "/" + path, query
        return await self._action(lambda: self._rerun_msg(page_hash="", page_name=path, query=query, states=False,
                                                          context_path=self.pathname), t0)

    async def goto(self, page: Page) -> RunResult:
        """A click on a page in the navigation."""
        t0 = time.perf_counter()
        old_path = self.pathname
        self.query = ""
        result = await self._action(lambda: self._rerun_msg(page_hash=page.script_hash, query="", states="main",
                                                            context_path=old_path), t0, expect_page=page.script_hash)
        self.pathname = "/" + page.path
        return result

    async def change(self, change: Change) -> RunResult:
        """Set one widget to a new value and rerun with every widget's value."""
        t0 = time.perf_counter()
        (self.tab_values if change.kind == "tab" else self.values)[change.widget_id] = change.new
        return await self._action(lambda: self._rerun_msg(page_hash=self.page_hash, query=self.query, states=True,
                                                          context_path=self.pathname), t0,
                                  expect_page=self.page_hash, changed_id=change.widget_id)

    async def press(self, button) -> RunResult:
        """Click a button: one rerun with its trigger set."""
        t0 = time.perf_counter()
        return await self._action(lambda: self._rerun_msg(page_hash=self.page_hash, query=self.query, states=True,
                                                          trigger=button.id, context_path=self.pathname), t0,
                                  expect_page=self.page_hash)

    async def poll(self, fragment_id: str) -> RunResult:
        """What the frontend's timer does for a fragment with ``run_every``: rerun that fragment
        (which may rerun the whole page, or move it to another page, before the run ends)."""
        t0 = time.perf_counter()
        return await self._action(lambda: self._rerun_msg(page_hash=self.page_hash, query=self.query, states=True,
                                                          context_path=self.pathname, fragment_id=fragment_id), t0)

    def start_timers(self) -> None:
        """From now until :meth:`close`, rerun the page's timed fragments (``st.fragment(run_every=)``)
        on their timers as the browser does, each tab at a phase of its own: a rerun is sent every
        interval unless one of the tab's own runs is under way. A whole run the fragment asks for
        (``st.rerun(scope="app")``) ends as an :meth:`unasked_run`. The class's waiting component,
        where a page draws it, runs its script's loop from now on too."""
        if self._timers is None:
            self._timers = asyncio.create_task(self._run_timers())
        if self._waiter is None:  # the class's waiting component, where a page draws it
            self._waiter = asyncio.create_task(waiting.wait_loop(self))

    async def send_trigger(self, widget_id: str, event: str, value) -> None:
        """What a component's ``setTriggerValue(event, value)`` sends: a rerun with every widget's
        value and the trigger. Its whole run ends as an :meth:`unasked_run`."""
        msg = self._rerun_msg(page_hash=self.page_hash, query=self.query, states=True, context_path=self.pathname)
        state = msg.rerun_script.widget_states.widgets.add()
        state.id = widget_id
        state.json_trigger_value = json.dumps([{"event": event, "value": value}])
        try:
            await self.ws.send(msg.SerializeToString())
        except (ConnectionClosed, AttributeError):
            self._start_reconnect()

    def _timed_in_flight(self) -> bool:
        return time.perf_counter() - self._timed_since < self.timeout  # (a run that never ended: given up)

    async def _run_timers(self) -> None:
        await asyncio.sleep(self.rng.uniform(0.0, min(self.auto_reruns.values(), default=1.0)))
        while not self._closing:
            interval = min(self.auto_reruns.values(), default=1.0)
            fragment = min(self.auto_reruns, key=self.auto_reruns.get, default=None)
            busy = self._waiting is not None or self._timed_in_flight() or self._reconnecting is not None
            if fragment is not None and self.ws is not None and not busy:
                msg = self._rerun_msg(page_hash=self.page_hash, query=self.query, states=True,
                                      context_path=self.pathname, fragment_id=fragment)
                self._timed_since = time.perf_counter()
                try:
                    await self.ws.send(msg.SerializeToString())
                except ConnectionClosed:
                    self._timed_since = -1e9
                    self._start_reconnect()
            await asyncio.sleep(interval)

    async def unasked_run(self, timeout: float | None = None) -> RunResult:
        """Wait for the end of the next whole run the tab did not ask for: one the server started
        on its own, or one a timed fragment asked for (a class's poll rerunning an attendee's page
        when the presenter moves)."""
        t0 = time.perf_counter()
        self._unasked = asyncio.get_running_loop().create_future()
        try:
            run = await asyncio.wait_for(asyncio.shield(self._unasked), timeout or self.timeout)
        except asyncio.TimeoutError as err:
            raise ActionFailed(f"no run from the server within {timeout or self.timeout:g} s") from err
        finally:
            self._unasked = None
        return RunResult(time.perf_counter() - t0, run.page_hash, run.exceptions, run.errors_shown,
                         self.signature(run.elements), server=self.server)

    async def rerun_same(self) -> RunResult:
        """Rerun with nothing changed (as after a reconnect with a run in progress)."""
        t0 = time.perf_counter()
        return await self._action(lambda: self._rerun_msg(page_hash=self.page_hash, query=self.query, states=True,
                                                          context_path=self.pathname), t0)


__all__ = ["ActionFailed", "InvalidStatus", "Page", "RunResult", "Tab", "TRIGGER_WIDGETS"]
