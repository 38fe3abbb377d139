"""The attendee link a room can open: where the presenter opened the lab on this computer's own
address (``make run`` prints http://localhost:8501), the link and its QR code use this machine's
network address instead, or ``PEKIT_PUBLIC_URL`` where set; the page says which, and warns where
the link works on this computer only."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

import pytest

from lab import classroom
from lab.classroom import attendee_base, is_loopback, network_address


@pytest.mark.parametrize("host, loopback", [
    ("localhost", True), ("app.localhost", True), ("127.0.0.1", True), ("127.8.9.1", True), ("::1", True),
    ("[::1]", True), ("0.0.0.0", True), ("", True), (None, True),
    ("192.168.1.20", False), ("10.0.0.5", False), ("fd00::2", False), ("lab.example.org", False)])
def test_loopback_hosts_are_this_computers_only(host, loopback):
    assert is_loopback(host) is loopback


def test_a_link_opened_on_localhost_uses_the_network_address_with_its_port_and_path():
    found = attendee_base("http://localhost:8501/classroom?room=X", "classroom", environ={},
                          find_address=lambda: "192.168.1.20")
    assert found == ("http://192.168.1.20:8501/", "network")
    behind = attendee_base("http://127.0.0.1:8080/lab/classroom", "classroom", environ={},
                           find_address=lambda: "fd00::2")
    assert behind == ("http://[fd00::2]:8080/lab/", "network")


def test_a_link_opened_on_another_address_is_kept_and_the_setting_wins():
    hosted = attendee_base("https://pekit.streamlit.app/classroom", "classroom", environ={},
                           find_address=lambda: pytest.fail("not asked"))
    assert hosted == ("https://pekit.streamlit.app/", "opened")
    configured = attendee_base("http://localhost:8501/classroom", "classroom",
                               environ={"PEKIT_PUBLIC_URL": "https://class.example.org/lab"})
    assert configured == ("https://class.example.org/lab/", "configured")


def test_without_a_network_address_the_link_says_it_is_this_computers_only():
    found = attendee_base("http://localhost:8501/classroom", "classroom", environ={}, find_address=lambda: None)
    assert found == ("http://localhost:8501/", "this computer")


def machine_addresses() -> set[str]:
    """This machine's IPv4 addresses other than loopback, as ``hostname -I`` lists them."""
    try:
        listed = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return set()
    return {a for a in listed if "." in a and not is_loopback(a)}


def test_the_network_address_is_one_of_this_machines():
    addresses = machine_addresses()
    found = network_address()
    if not addresses:
        pytest.skip("this machine lists no network address (hostname -I)")
    assert found in addresses and not is_loopback(found)


@pytest.mark.slow
def test_a_presenter_on_localhost_shares_a_link_another_device_opens():
    """A server bound to every interface (as ``make run``), the presenter's browser on its loopback
    address: the attendee link on the page names the network address, with a line saying so, and
    a second browser opening that very link joins the class."""
    from playwright.sync_api import sync_playwright

    from benchmarks.browser import AppServer, chromium_missing_reason, launch, settle, wait_for_script

    if (reason := chromium_missing_reason()) is not None:
        if os.environ.get("CI"):
            raise RuntimeError(f"browser tests must run in CI: {reason}")
        pytest.skip(reason)
    address = network_address()
    if address is None:
        pytest.skip("this machine has no network address")
    folder = tempfile.mkdtemp(prefix="pekit-test-rooms-")
    with AppServer(env={"PEKIT_ROOMS": f"{folder}/rooms.sqlite3"}, address="0.0.0.0") as server, \
            sync_playwright() as p:
        browser = launch(p)
        try:
            presenter = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
            presenter.goto(server.url.replace("127.0.0.1", "localhost") + "/classroom")
            wait_for_script(presenter)
            presenter.get_by_role("button", name="Start a class").click()
            presenter.locator('[data-testid="stCode"]', has_text="room=").first.wait_for(timeout=60_000)
            settle(presenter)
            link = presenter.locator('[data-testid="stCode"]', has_text="room=").first.inner_text().strip()
            assert re.fullmatch(rf"http://{re.escape(address)}:{server.port}/\?room=[A-Z2-9]{{6}}", link), link
            assert "uses this machine's address on its network" in presenter.inner_text("body")
            code = link.rsplit("=", 1)[1]
            phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            phone.goto(link)  # through the network address, as a phone on the same Wi-Fi would
            wait_for_script(phone)
            phone.get_by_text(f"Class {code}").first.wait_for(timeout=60_000)
        finally:
            browser.close()
    assert classroom.is_loopback(address) is False
