"""The README and docs/*.md: the examples run as written (doctests over their Python blocks), the
README stays short with the run and test commands on its first screen, and every relative link
points to a file (and heading) that exists."""

import doctest
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MARKDOWN = [README, *DOCS]

MAX_WORDS = 1000
FIRST_SCREEN = 40  # lines


def python_blocks(text: str) -> list[str]:
    return [block for block in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in block]


def without_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def links(text: str) -> list[str]:
    """The link targets outside code (fenced blocks and inline), where links are links."""
    return re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`\n]*`", "", without_blocks(text)))


def relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I) and not target.startswith("//")


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings."""
    found = set()
    for heading in re.findall(r"^#{1,6}[ \t]+(.+?)[ \t]*#*$", without_blocks(path.read_text(encoding="utf-8")), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_readme_has_a_package_example():
    assert python_blocks(README.read_text(encoding="utf-8")), "the README shows how to use the package"


def test_readme_is_short():
    words = len(README.read_text(encoding="utf-8").split())
    assert words <= MAX_WORDS, f"README.md has {words} words; at most {MAX_WORDS} (move details to docs/)"


@pytest.mark.parametrize("command", ["make run", "make test"])
def test_readme_first_screen_has_the_command(command):
    first = README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN]
    assert any(re.search(rf"(^|[\s`]){re.escape(command)}($|[\s`])", line) for line in first), (
        f"`{command}` is not within the README's first {FIRST_SCREEN} lines")


@pytest.mark.parametrize("path", MARKDOWN, ids=name)
def test_relative_links_point_to_files_that_exist(path):
    broken = []
    for target in links(path.read_text(encoding="utf-8")):
        if not relative(target):
            continue
        file, _, anchor = unquote(target).partition("#")
        destination = (path.parent / file).resolve() if file else path
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading #{anchor} in {name(destination)}")
    assert not broken, f"{name(path)}: " + "; ".join(broken)


def test_every_docs_page_is_linked_from_the_readme():
    assert DOCS, "docs/ holds the details the README links to"
    linked = {(README.parent / unquote(t).partition("#")[0]).resolve()
              for t in links(README.read_text(encoding="utf-8")) if relative(t)}
    missing = [name(doc) for doc in DOCS if doc.resolve() not in linked]
    assert not missing, f"not linked from README.md: {missing}"


@pytest.mark.parametrize("path", [p for p in MARKDOWN if python_blocks(p.read_text(encoding="utf-8"))], ids=name)
def test_examples_run(path, monkeypatch):
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    monkeypatch.setenv("PEKIT_DEVICE", "cpu")
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, {}, f"{name(path)} block {i}", str(path), 0))
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, result
