"""A browser's conversation with a Streamlit server, without the browser.

``client`` speaks Streamlit's websocket protocol with Streamlit's own protobuf classes
(``BackMsg`` out, ``ForwardMsg`` in) the way the Streamlit frontend does: the XSRF cookie
handshake, the forward-message cache, widget states, page changes and reconnects.
``widgets`` holds the frontend's rules for the value each kind of widget reports and how an
attendee changes it. ``benchmarks.protocol_load`` runs a room of such attendees against a
server and reports what the server did; ``benchmarks.protocol.chromium`` records what
Chromium sends for the same clicks, to check that the two agree.

References: Streamlit 1.67's server (``streamlit/web/server/starlette/starlette_websocket.py``,
``starlette_routes.py``: XSRF cookie, subprotocol tokens, origin check) and its frontend
bundle (``streamlit/static``: ``sendRerunBackMsg``, ``ForwardMsgCache``, the reconnect state
machine), read for the rules this package follows.
"""
