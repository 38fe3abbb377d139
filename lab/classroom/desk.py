"""The classroom page's side: the app's address for the attendee link and its QR code, and the
actions of the page's widgets (start, join by code, nickname, end)."""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from typing import NamedTuple
from urllib.parse import urlsplit

import streamlit as st

from lab.classroom import storage
from lab.classroom.seats import SEAT, Seat, _note, leave, reason, seat
from lab.i18n import _
from lab.rooms import CODE_LENGTH, MAX_NICKNAME_CHARS, RoomError, new_attendee, normalize_code


def base_url(url: str | None, page: str) -> str:
    """The app's address as the browser shows it (behind a proxy too), without the page ``page``
    or the query: ``https://host/lab/classroom?x=1`` gives ``https://host/lab/``."""
    parts = urlsplit(url or "")
    path = re.sub(rf"/?{re.escape(page)}/?$", "/", parts.path)
    path = path if path.endswith("/") else path + "/"
    return f"{parts.scheme}://{parts.netloc}{path}" if parts.netloc else path


class AttendeeLink(NamedTuple):
    """The app's address for attendees, and where it comes from: ``"configured"``
    (``PEKIT_PUBLIC_URL``), ``"opened"`` (the address the presenter's browser shows, not this
    computer's own), ``"network"`` (the presenter opened the app on this computer's own address,
    and the link uses this machine's network address instead) or ``"this computer"`` (no network
    address found: the link works on this computer only)."""

    base: str
    source: str


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` names this computer only (``localhost``, ``127.x.x.x``, ``::1``; an empty
    or unspecified ``0.0.0.0`` too: no other device can open it)."""
    host = (host or "").strip("[]").lower()
    if host in ("", "localhost") or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def network_address() -> str | None:
    """This machine's address on its network: the source address the system picks for a UDP
    socket towards an outside address (connecting a UDP socket sends nothing); None where there
    is no route, or only a loopback one."""
    for target in ("192.0.2.1", "10.254.254.254"):  # a documentation address, a private one (not a broadcast)
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect((target, 9))
                found = probe.getsockname()[0]
        except OSError:
            continue
        if not is_loopback(found):
            return found
    return None


def attendee_base(url: str | None, page: str, environ=os.environ, find_address=network_address,
                  listening: str | None = None) -> AttendeeLink:
    """The base of the attendee link: ``PEKIT_PUBLIC_URL`` where set; else the address the
    presenter's browser shows (:func:`base_url`), with this machine's network address in place of
    a loopback host, keeping the port and the path. ``listening``: the address the server listens
    on (``server.address``; empty: every interface); a loopback one cannot be opened from the
    network, so the link then stays this computer's (with the page's warning)."""
    configured = environ.get("PEKIT_PUBLIC_URL", "").strip()
    if configured:
        return AttendeeLink(configured if configured.endswith("/") else configured + "/", "configured")
    base = base_url(url, page)
    parts = urlsplit(base)
    if not parts.netloc or not is_loopback(parts.hostname):
        return AttendeeLink(base, "opened")
    everywhere = listening is None or listening.strip("[]") in ("", "0.0.0.0", "::")  # every interface
    address = find_address() if everywhere or not is_loopback(listening) else None
    if address is None:
        return AttendeeLink(base, "this computer")
    host = f"[{address}]" if ":" in address else address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return AttendeeLink(parts._replace(netloc=netloc).geturl(), "network")


def qr_svg(text: str) -> str:
    """A QR code of ``text`` as SVG markup (black on white, a quiet zone of two modules)."""
    import qrcode
    import qrcode.image.svg

    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathFillImage, box_size=10, border=2)
    return image.to_string(encoding="unicode")


# -- the classroom page's actions (widget callbacks) ---------------------------------------------

def start_class() -> None:
    """A new class, presented by this session."""
    try:
        code, key = storage.store().create()
    except RoomError as err:
        _note(reason(err))
        return
    st.session_state[SEAT] = Seat(code, new_attendee(), key=key)
    st.query_params["room"] = code


def join_typed(widget: str) -> None:
    """Join the class whose code was typed into ``widget`` (the next run seats the session, or
    says that no such class is running)."""
    typed = st.session_state.get(widget, "")
    code = normalize_code(typed)
    if code is None:
        _note(_("A class code has {length} letters and digits, such as “K7QM3P”.").format(length=CODE_LENGTH))
        return
    st.query_params["room"] = code


def set_nickname(widget: str) -> None:
    """The attendee's optional nickname, from ``widget``: sent with the next heartbeat."""
    current = seat()
    if current is not None:
        current.nickname = str(st.session_state.get(widget, ""))[:MAX_NICKNAME_CHARS]
        current.beat = 0.0


def end_class() -> None:
    """The presenter ends the class: it is removed with its answers."""
    current = seat()
    if current is not None and current.presenter:
        try:
            storage.store().close(current.code, current.key)
        except RoomError:
            pass  # already gone
        leave(_("The class {code} has ended.").format(code=current.code))
