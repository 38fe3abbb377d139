"""Small lookups beside MiniLM's views (:mod:`lab.views.minilm`): whether the
pretrained model can run here and why not, in the reader's language; the head a click in the
gallery chose; and whether MiniLM's expander is open."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from pekit import charts, pretrained
from lab.i18n import _, ngettext

PICK = charts.pretrained.PICK  # the gallery's click selection


class MissingModel(NamedTuple):
    """Why the pretrained model cannot run here, and the command that adds it."""

    reason: str  # what is missing (pekit's message without its install command)
    command: str


class HeadChoice(NamedTuple):
    """A head clicked in the gallery."""

    layer: int
    head: int


def model_missing() -> MissingModel | None:
    """``None`` when the pretrained model can run here."""
    missing = pretrained.pretrained_missing()
    return None if missing is None else MissingModel(_missing_reason(missing.split(" Add ")[0]),
                                                     pretrained.INSTALL_COMMAND)


def _missing_reason(reason: str) -> str:
    """pekit's reason the model cannot run (English), in the reader's language where it is one of
    the reasons pekit gives; the names of packages, files and folders stay as they are."""
    needs = re.fullmatch(r"The pretrained model (\S+) needs (.+), which (is|are) not installed\.", reason, re.S)
    if needs:
        return ngettext("The pretrained model {model} needs {packages}, which is not installed.",
                        "The pretrained model {model} needs {packages}, which are not installed.",
                        1 if needs[3] == "is" else 2).format(model=needs[1], packages=needs[2])
    absent = re.fullmatch(r"The (\S+) package is installed but (.+) is missing from (.+)\. Reinstall it with: (.+)",
                          reason, re.S)
    if absent:
        return _("The {package} package is installed but {files} is missing from {folder}. Reinstall it with: "
                 "{command}").format(package=absent[1], files=absent[2], folder=absent[3], command=absent[4])
    return reason


def picked_head(event: Mapping | None) -> HeadChoice | None:
    """The head a click in the gallery chose (the gallery's selection event), if any."""
    points = (event or {}).get("selection", {}).get(PICK) or []
    return HeadChoice(int(points[0]["layer"]), int(points[0]["head"])) if points else None


def expander_open(shown: bool | None, linked: bool, last: bool | None) -> bool:
    """Whether MiniLM's expander is open this run. ``shown``: its state as the reader left it
    (None before it was ever drawn); ``linked``: the link names MiniLM (``model=``); ``last``:
    whether it was open when the last run ended (None on the page's first run in the session).
    On the first run it opens when the link names MiniLM (or it was opened already); later it
    follows the link only when the link's setting changed since the last run (a link opened, a
    presenter followed, the page reset), and otherwise stays as the reader left it."""
    if last is None:
        return bool(shown) or linked
    if linked != last:
        return linked
    return bool(shown)
