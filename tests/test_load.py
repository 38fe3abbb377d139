"""A small workshop as a smoke test: three attendees tour every page at once (benchmarks/load.py)."""

import asyncio
import os

import pytest

from benchmarks.browser import chromium_missing_reason
from benchmarks.load import INTERACTIONS, SWITCHES, report, run_load

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")


@pytest.mark.browser
@pytest.mark.skipif(reason is not None, reason=reason or "")
def test_three_attendees_tour_every_page_without_errors():
    results = asyncio.run(run_load(3, ramp=1.0, timeout=90.0))
    print(report(3, results))
    assert results["errors"] == []
    assert len(results["interactions"]) == 3 * INTERACTIONS
    assert len(results["switches"]) == 3 * SWITCHES and len(results["loads"]) == 3
    assert 0 < results["peak_rss"] < 1536 * 2**20
