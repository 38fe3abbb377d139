"""The workshop plan (docs/workshop.md): its minutes add up to an hour at most, and every view it
says to project is a link that opens that view."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.test_app import open_app

PLAN = Path(__file__).resolve().parent.parent / "docs" / "workshop.md"
ROW = re.compile(r"^\| (\d+) \| `(/[^`]*)` \| (.+) \|$")


def rows() -> list[tuple[int, str, str]]:
    found = [ROW.match(line) for line in PLAN.read_text(encoding="utf-8").splitlines()]
    return [(int(m.group(1)), m.group(2), m.group(3)) for m in found if m]


def test_the_plan_fits_an_hour_and_says_how_much_is_spare():
    plan = rows()
    assert len(plan) >= 10
    total = sum(minutes for minutes, _, _ in plan)
    assert total <= 60
    assert f"That is {total} minutes; {60 - total} are spare" in PLAN.read_text(encoding="utf-8")
    steps = [link for _, link, _ in plan if link.startswith("/lesson")]
    assert steps == [f"/lesson?step={k}" for k in range(1, 10)]  # every step of the lesson, in order
    rounds = [what for _, _, what in plan if "vote again" in what]
    assert len(rounds) >= 3  # three rounds of vote, discuss, vote again


@pytest.mark.parametrize("minutes, link, what", rows(), ids=[link for _, link, _ in rows()])
def test_every_row_opens_the_view_it_names(minutes, link, what):
    parts = urlsplit(link)
    at = open_app(f"pages{parts.path}.py", dict(parse_qsl(parts.query)), fresh=False)
    assert not at.error and not at.exception
    if parts.path == "/lesson":
        step = dict(parse_qsl(parts.query))["step"]
        assert at.subheader[0].value.startswith(f"Step {step} of 9")
    notes = [w.value for w in at.warning if "link" in w.value.lower()]
    assert not notes, notes
