"""The lab's page list: the optional model's page is listed where its extra is installed, found
with importlib's finder alone (no pekit, no torch, no file of pekit loaded by path), as pekit finds it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from lab import registry
from pekit.llama import files

ROOT = Path(__file__).resolve().parent.parent


def test_the_registry_names_what_pekit_looks_for():
    assert registry.SMOLLM_PACKAGE == files._MODEL_MODULE
    assert registry.SMOLLM_FILE == files.GGUF_NAME
    assert registry.SMOLLM_READERS == tuple(module for module, _name in files._READERS)


def test_the_extra_is_found_as_pekit_finds_it():
    assert registry._extra_installed() == files.smollm2_available()


def test_a_missing_part_of_the_extra_hides_its_page(monkeypatch, fresh_registry, tmp_path):
    """Each part missing (a reader, the package, the file in it) leaves the page out of the menu."""
    monkeypatch.setitem(sys.modules, "pekit.llama.files", None)  # the look-up without pekit
    real = importlib.util.find_spec

    def finder(missing: str | None, folder: Path | None = None):
        def find(name, *args, **kwargs):
            if name == missing:
                return None
            if name == registry.SMOLLM_PACKAGE:
                return importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                              submodule_search_locations=[str(folder)])
            return real(name, *args, **kwargs) or importlib.util.spec_from_loader(name, loader=None)
        return find

    package = tmp_path / registry.SMOLLM_PACKAGE
    package.mkdir()
    for missing in (*registry.SMOLLM_READERS, registry.SMOLLM_PACKAGE, None):
        monkeypatch.setattr(importlib.util, "find_spec", finder(missing, package))
        registry._smollm2_available.cache_clear()
        assert registry._smollm2_available() is False
        assert registry.ROPE_MODEL_PAGE not in registry.listed_pages()
        assert registry.missing_pages() == [registry.ROPE_MODEL_PAGE]
    (package / registry.SMOLLM_FILE).write_bytes(b"GGUF")
    registry._smollm2_available.cache_clear()
    assert registry._smollm2_available() is True
    assert registry.listed_pages()[-1] == registry.ROPE_MODEL_PAGE and registry.missing_pages() == []


def test_the_registry_loads_no_file_by_path():
    source = (ROOT / "lab" / "registry.py").read_text(encoding="utf-8")
    assert "spec_from_file_location" not in source and "exec_module" not in source


def loaded_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has loaded after running ``code`` in the project's folder."""
    code += f"import json, sys\nprint(json.dumps(sorted(m for m in {modules!r} if m in sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_menu_looks_without_loading_pekit_or_torch():
    code = "from lab.registry import listed_pages\nlisted_pages()\n"
    assert loaded_after(code, ("torch", "pekit", "pandas", "altair")) == []
