"""The classroom page's side: the app's address for the attendee link and its QR code, and the
actions of the page's widgets (start, join by code, nickname, end)."""

from __future__ import annotations

import re
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
