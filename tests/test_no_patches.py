"""Nothing patches Streamlit or asyncio at run time (DESIGN: the app uses Streamlit's public API
only). In a fresh interpreter, every attribute of every module of streamlit and asyncio already
imported, and of every class defined in them, is remembered by identity; then every module of
``lab`` is imported, the app's entry point runs once (AppTest: the server's preparation), pekit
is prepared and the entry point is imported as ``streamlit run`` imports it (making the ``st.App``
with the class's route); then the same attributes must be the same objects, and none added, except the one
named exception (Streamlit's legacy ``pages/`` switch, ``lab.streamlit_internals``).

The checker is shown to catch a patch: in the same interpreter, after the check, a function of a
Streamlit module and a method of an asyncio class are replaced, an attribute is added to a
Streamlit class, and the checker, run again from the first snapshot, names all three."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {"streamlit.runtime.pages_manager.PagesManager.uses_pages_directory"}

CHECK = r'''
import asyncio
import importlib
import json
import pkgutil
import sys
import types

import streamlit
from streamlit.testing.v1 import AppTest

# Streamlit's and asyncio's own lazy state (the event loop policy, the configuration read, flags
# of warnings shown once) is set up by one throwaway run first: the snapshot compares what the
# lab does, not what a first run of Streamlit does by itself
asyncio.get_event_loop_policy()
AppTest.from_string("import streamlit as st\nst.write('warm')").run()
streamlit.App(sys.argv[1])  # (the first st.App of a process pins its script's folder in Streamlit's config)


def snapshot() -> dict:
    """Every attribute of the modules of streamlit and asyncio imported so far and of the classes
    they define (a class under the name it was defined with), by name."""
    seen = {}
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in ("streamlit", "asyncio"):
            continue
        for attr, value in list(vars(module).items()):
            seen[f"{name}.{attr}"] = value
            if isinstance(value, type) and value.__module__ == name and value.__qualname__ == attr:
                for class_attr, class_value in list(vars(value).items()):
                    seen[f"{name}.{attr}.{class_attr}"] = class_value
    return seen


from google.protobuf.message import Message


def lazy(key: str, before: dict) -> bool:
    """An attribute Python or protobuf adds to a class by itself when it is first used: copy's
    and pickle's cache of a class's slots, and the enums and values of a protobuf message class,
    made on first access."""
    owner, attr = key.rsplit(".", 1)
    cls = before.get(owner)
    return attr == "__slotnames__" or (isinstance(cls, type) and issubclass(cls, Message))


def differences(before: dict, after: dict) -> list:
    changed = [k for k in before.keys() & after.keys() if before[k] is not after[k]]
    owners = {k.rsplit(".", 1)[0] for k in before}
    # a module imported meanwhile becomes an attribute of its package: that is an import, not a patch
    added = [k for k in after.keys() - before.keys()
             if k.rsplit(".", 1)[0] in owners and not isinstance(after[k], types.ModuleType)
             and not lazy(k, before)]
    removed = list(before.keys() - after.keys())
    return sorted(changed + added + removed)


before = snapshot()
import lab

modules = [info.name for info in pkgutil.walk_packages(lab.__path__, "lab.")]
for name in modules:
    importlib.import_module(name)
at = AppTest.from_file(sys.argv[1], default_timeout=60).run()
import lab.classroom.route
import lab.server

lab.server.prepare_pekit()
served = importlib.import_module("streamlit_app")  # as `streamlit run` imports it to serve its `app`
result = {"modules": modules, "exceptions": [e.value for e in at.exception],
          "differences": differences(before, snapshot()),
          "app": isinstance(served.app, streamlit.App), "route": lab.classroom.route.served()}

import asyncio.unix_events
import streamlit.config
from streamlit.runtime.pages_manager import PagesManager

streamlit.config.get_options_for_section = lambda section: {}
asyncio.unix_events._UnixSelectorEventLoop._write_to_self = lambda self: None
PagesManager.pekit_extra = True
result["patched"] = differences(before, snapshot())
print(json.dumps(result))
'''


@pytest.fixture(scope="module")
def checked() -> dict:
    done = subprocess.run([sys.executable, "-c", CHECK, str(ROOT / "streamlit_app.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_lab_and_a_run_of_the_app_patch_nothing(checked):
    assert {"lab.server", "lab.i18n", "lab.page", "lab.streamlit_internals"} <= set(checked["modules"])
    assert any(name.startswith("lab.views.") for name in checked["modules"])
    assert checked["exceptions"] == []
    assert checked["app"] and checked["route"]  # the entry point, imported, made the app with the class's route
    assert set(checked["differences"]) - ALLOWED == set(), checked["differences"]


def test_the_check_catches_a_patch(checked):
    assert set(checked["patched"]) - set(checked["differences"]) == {
        "streamlit.config.get_options_for_section",
        "asyncio.unix_events._UnixSelectorEventLoop._write_to_self",
        "streamlit.runtime.pages_manager.PagesManager.pekit_extra",
    }
