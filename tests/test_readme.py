"""The README's package example runs as written (a doctest over its Python blocks)."""

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks(text: str) -> list[str]:
    return [block for block in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in block]


def test_readme_has_a_package_example():
    assert python_blocks(README.read_text(encoding="utf-8")), "the README shows how to use the package"


def test_readme_examples_run(monkeypatch):
    monkeypatch.setenv("PEKIT_DEVICE", "cpu")
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(python_blocks(README.read_text(encoding="utf-8"))):
        runner.run(parser.get_doctest(block, {}, f"README block {i}", str(README), 0))
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, result
