"""What an attendee's browser does with the class's waiting component (``lab.classroom.waiting``):
its script's loop, run by a protocol tab. It asks the class's route (``lab.classroom.route``) with
the newest data the page's runs gave the component and waits for the answer. When the answer says
the room moved, it sends the rerun that the component's ``setTriggerValue("moved", version)``
makes: every widget's value plus the component's trigger. After three failed requests in a row it
sends ``unreachable`` and stops, as the script does.

The requests are plain HTTP/1.1 on their own connection (``Connection: close``), with the tab's
cookies (nginx's route cookie among them): a tab holds one waiting request at a time, so a room of
200 holds 200, without a thread each."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse

COMPONENT = "pekit_class_wait"
FAILURES = 3  # requests failed in a row before the page is told to poll instead (the script's)
RETRY_SECONDS = 1.0
RERUN_PATIENCE_SECONDS = 10.0


def trigger_id(element_id: str) -> str:
    """The widget id under which a component's triggers reach the server (Streamlit's frontend:
    the internal key prefix, the element's id, ``__events``)."""
    return f"$$STREAMLIT_INTERNAL_KEY_{element_id}__events"


async def http_get(base: str, path: str, cookies: str, timeout: float) -> tuple[int, bytes]:
    """``GET base+path`` on a connection of its own: the status and the body."""
    parts = urllib.parse.urlsplit(base)
    host, port = parts.hostname, parts.port or 80
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        head = [f"GET {path} HTTP/1.1", f"Host: {parts.netloc}", "User-Agent: pekit-protocol-load",
                "Accept: application/json", "Connection: close"] + ([f"Cookie: {cookies}"] if cookies else [])
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    header, _, body = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    if any(line.lower().replace(" ", "") == "transfer-encoding:chunked" for line in lines[1:]):
        body = _unchunk(body)
    return status, body


def _unchunk(body: bytes) -> bytes:
    out, rest = b"", body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


async def wait_loop(tab) -> None:
    """The component's loop for ``tab`` (a ``benchmarks.protocol.client.Tab``) until it closes.
    ``tab.waiting`` holds the newest (element id, data) a whole run gave the component, or None
    where the page has none."""
    failures = 0
    asked = None
    while not tab._closing:
        mounted = tab.waiting
        if mounted is None:
            await asyncio.sleep(0.1)
            continue
        element_id, data = mounted
        if asked is not None:  # a rerun was asked for: wait for the page's next run
            started = time.perf_counter()
            while tab.waiting is mounted and time.perf_counter() - started < RERUN_PATIENCE_SECONDS \
                    and not tab._closing:
                await asyncio.sleep(0.05)
            asked = None
            continue
        query = urllib.parse.urlencode({
            "room": data["room"], "since": str(data["since"]), "following": "1" if data["following"] else "0",
            "question": data["question"], "me": data["me"], "nickname": data["nickname"]})
        try:
            status, body = await http_get(tab.base, f"{data['path']}?{query}", tab._cookie_header(), tab.timeout)
            if status != 200:
                raise OSError(f"HTTP {status}")
            answer = json.loads(body)
        except (OSError, ValueError, asyncio.TimeoutError) as err:
            failures += 1
            if failures >= FAILURES:
                tab.protocol_errors.append(f"the class's route could not be reached: {err}")
                await tab.send_trigger(trigger_id(element_id), "unreachable", True)
                return
            await asyncio.sleep(RETRY_SECONDS)
            continue
        failures = 0
        if answer.get("moved") and tab.waiting is mounted:
            asked = data["run"]
            version = answer.get("version")
            await tab.send_trigger(trigger_id(element_id), "moved", -1 if version is None else version)
