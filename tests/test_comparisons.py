"""Every sentence that compares carries its reference.

A view's sentence that says a number is above chance, grows, falls, beats another or is faster
than something compares it with a reference: a bound, a chance level, a control, a baseline, an
expected slope or the whole series shown. Such a sentence returns a ``lab.claims.Said`` whose
claims hold the reference, computed for the setting on screen; ``Claim`` refuses a comparison
without one, and each module's property tests check ``said.holds()`` and the reference's value
against their own computation.

This file finds the comparing sentences without trusting them: it reads each view module's
English messages (the ``_()`` and ``ngettext()`` texts of every function that returns text,
following the module's own helpers) and takes a function whose messages use a word of comparison
as comparing. Each must return ``Said`` and build a ``Claim`` with a ``reference``, or be listed
in :data:`NOT_COMPARING` with the reason its words compare nothing. A sentence that names a cause
(a cache, an overhead) must be listed in :data:`MEASURED_CAUSES` with what the page measured.

Run as a script (``python tests/test_comparisons.py``), it prints the comparisons per page."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
VIEWS = (sorted(p for p in (ROOT / "lab" / "views").glob("*.py") if p.stem != "__init__")
         + sorted((ROOT / "lab" / "views" / "questions").glob("*.py")))


def module_name(path: Path) -> str:
    """A view module's name under lab.views (``questions.train`` for a page's questions)."""
    return ".".join(path.relative_to(ROOT / "lab" / "views").with_suffix("").parts)

COMPARING = re.compile(
    r"\b(than|above|below|faster|slower|fewer|less|grows?|growing|falls?|falling|rises?|rising|drops?|"
    r"breaks? down|chance|better|worse|beats?|exceeds?|higher|lower|larger|smaller|twice|half as|"
    r"times (?:as|more|less|faster|slower)|decays?|shrinks?|increases?|decreases?|outperforms?|more|best|guess|"
    r"baseline|ceiling|same|identical|equal|alike)\b",
    re.IGNORECASE)
CAUSAL = re.compile(r"\b(because|due to|caused by|caches?|overhead|fixed costs?|bandwidth|memory-bound)\b",
                    re.IGNORECASE)

# (module stem, function): why its words of comparison compare nothing on screen
NOT_COMPARING: dict[tuple[str, str], str] = {
    # -- binary_analogy
    ("binary_analogy", "distinct_help"): "states the counting rule (a code more than the tolerance from every "
                                         "earlier one is new), a definition, not a measured comparison",
    # -- classroom
    # -- complexity_comparison
    ("complexity_comparison", "theory_caption"): "'slope 1 grows like n, slope 2 like n²' says how to read log-log "
                                                 "axes; it compares no number on the chart",
    ("complexity_comparison", "path_sentence"): "'same' is Conv1d's padding argument (padding=\"same\"), quoted",
    ("complexity_comparison", "memory_column"): "'above the input' names what the column holds (the peak allocated "
                                                "beyond the input's own memory), not a comparison",
    # -- concept_check
    ("concept_check", "phase_sentence"): "'a guess is fine' invites an answer; 'the same questions' says the check "
                                          "after the lesson asks the one tuple QUESTIONS again (the page draws both "
                                          "phases from it)",
    # -- encoding_families
    ("encoding_families", "rope_caption"): "'the same for every head' restates RoPE's formula: ω_j = b^(−2j/(d/h)) has "
                                           "no head index, and the page draws one head's angles; nothing measured "
                                           "is compared",
    # -- families_beyond
    # -- families_conventions
    # -- families_extension
    # -- encoding_heatmap
    # -- encoding_heatmap_further
    # -- fixed_or_learned
    # -- home
    # -- lesson
    # -- live_attention
    ("live_attention", "shapes_statement"): "'the output has the same shape' states the layer's output shape, "
                                             "(1, n, hidden) like its input's: a shape written out, no measurement",
    ("live_attention", "qkv_statement"): "'below' points to the step-by-step section the page draws under it; 'the "
                                          "same input X' says Q, K and V are made from one X",
    ("live_attention", "book_example_code"): "'the same weights in the book's shape' labels a reshape of one tensor "
                                              "in program output",
    # -- minilm
    ("minilm", "pieces_statement"): "'same word' names a head pattern (the table's column) and 'one more word' counts "
                                    "the word whose pieces are cut; nothing is compared",
    # -- misconceptions
    # -- offset_rotation
    # -- questions.binary_analogy
    # -- questions.complexity_comparison
    # -- questions.encoding_families
    # -- questions.encoding_heatmap
    # -- questions.fixed_or_learned
    # -- questions.live_attention
    # -- questions.offset_rotation
    # -- questions.rope_in_a_real_model
    # -- questions.train
    # -- rope_context
    # -- rope_in_a_real_model
    ("rope_in_a_real_model", "layout_statement"): "\"the same weights\": one set of weights read by two pairings; "
                                                  "the losses the two give are compared by conventions_statement",
    # -- rope_offsets
    # -- train
    ("train", "nothing_yet_sentence"): "“the same ones” names the settings a shared run is keyed on: it compares no "
                                       "numbers",
    # -- train_alibi
    # -- train_curves
    # -- train_longer
    # -- train_maps
    # -- train_names
}

# (module stem, function): what the page measured that the cause it names rests on
MEASURED_CAUSES: dict[tuple[str, str], str] = {
    # -- binary_analogy
    # -- classroom
    # -- complexity_comparison
    # -- concept_check
    # -- encoding_families
    # -- families_beyond
    # -- families_conventions
    # -- families_extension
    # -- encoding_heatmap
    # -- encoding_heatmap_further
    # -- fixed_or_learned
    # -- home
    # -- lesson
    # -- live_attention
    # -- minilm
    # -- misconceptions
    # -- offset_rotation
    # -- questions.binary_analogy
    # -- questions.complexity_comparison
    # -- questions.encoding_families
    # -- questions.encoding_heatmap
    # -- questions.fixed_or_learned
    # -- questions.live_attention
    # -- questions.offset_rotation
    # -- questions.rope_in_a_real_model
    # -- questions.train
    # -- rope_context
    # -- rope_in_a_real_model
    # -- rope_offsets
    # -- train
}

# Sentences not converted yet: each fails the test below when it is (strict), so the entry goes
NOT_YET: set[tuple[str, str]] = {
    # -- binary_analogy
    # -- classroom
    # -- complexity_comparison
    # -- concept_check
    # -- encoding_families
    # -- families_beyond
    # -- families_conventions
    # -- families_extension
    # -- encoding_heatmap
    # -- encoding_heatmap_further
    # -- fixed_or_learned
    # -- home
    # -- lesson
    # -- live_attention
    # -- minilm
    # -- misconceptions
    # -- offset_rotation
    # -- questions.binary_analogy
    # -- questions.complexity_comparison
    # -- questions.encoding_families
    # -- questions.encoding_heatmap
    # -- questions.fixed_or_learned
    # -- questions.live_attention
    # -- questions.offset_rotation
    # -- questions.rope_in_a_real_model
    # -- questions.train
    # -- rope_context
    # -- rope_in_a_real_model
    # -- rope_offsets
    # -- train
    # -- train_alibi
    # -- train_curves
    # -- train_longer
    # -- train_maps
    # -- train_names
}
CAUSES_NOT_YET: set[tuple[str, str]] = {
    # -- binary_analogy
    # -- classroom
    # -- complexity_comparison
    # -- concept_check
    # -- encoding_families
    # -- families_beyond
    # -- families_conventions
    # -- families_extension
    # -- encoding_heatmap
    # -- encoding_heatmap_further
    # -- fixed_or_learned
    # -- home
    # -- lesson
    # -- live_attention
    # -- minilm
    # -- misconceptions
    # -- offset_rotation
    # -- questions.binary_analogy
    # -- questions.complexity_comparison
    # -- questions.encoding_families
    # -- questions.encoding_heatmap
    # -- questions.fixed_or_learned
    # -- questions.live_attention
    # -- questions.offset_rotation
    # -- questions.rope_in_a_real_model
    # -- questions.train
    # -- rope_context
    # -- rope_in_a_real_model
    # -- rope_offsets
    # -- train
}

# Every public text function of a view module returns Said (its text and a claim per number it
# states), whether it compares or not; (module, function) returning a str no one reads: why it is
# not a sentence
NOT_READ: dict[tuple[str, str], str] = {
    ("concept_check", "widget_key"): "a Streamlit widget's key (concept.<phase>.<question>), never shown",
    ("train_maps", "fallback_scheme"): "a scheme's key (none, sinusoidal, ...) the page sets the maps' scheme widget "
                                       "to; the widget shows it through its own label",
}

GETTEXT = {"_", "ngettext", "gettext", "pgettext", "npgettext"}


def _annotation_names(node: ast.FunctionDef) -> set[str]:
    if node.returns is None:
        return set()
    return ({n.id for n in ast.walk(node.returns) if isinstance(n, ast.Name)}
            | {"None" for n in ast.walk(node.returns) if isinstance(n, ast.Constant) and n.value is None}
            | {"?" for n in ast.walk(node.returns) if isinstance(n, (ast.Subscript, ast.Attribute))})


def returns_text(node: ast.FunctionDef) -> bool:
    names = _annotation_names(node)
    return bool(names & {"str", "Said"}) and not (names - {"str", "Said", "None"})


def _messages(node: ast.AST) -> list[str]:
    found = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in GETTEXT:
            found += [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return found


def _called(node: ast.AST) -> set[str]:
    return {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}


def _builds_reference(node: ast.AST) -> int:
    """How many claims with a reference the code builds (``Claim(..., reference=...)``, or a
    ``Claim`` with four arguments)."""
    count = 0
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", None)) == "Claim":
            if any(k.arg == "reference" for k in call.keywords) or len(call.args) >= 4:
                count += 1
    return count


class Sentence(NamedTuple):
    module: str
    name: str
    messages: tuple[str, ...]
    returns_said: bool
    references: int

    @property
    def comparing_words(self) -> set[str]:
        return {m.group(0).lower() for text in self.messages for m in COMPARING.finditer(text)}

    @property
    def causes(self) -> set[str]:
        return {m.group(0).lower() for text in self.messages for m in CAUSAL.finditer(text)}

    @property
    def compares(self) -> bool:
        return bool(self.comparing_words) and (self.module, self.name) not in NOT_COMPARING


def sentences(module: Path) -> list[Sentence]:
    """The module's public text functions, each with its messages and its helpers' (followed
    through the module's own functions)."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    found = []
    for name, node in functions.items():
        if name.startswith("_") or not returns_text(node):
            continue
        seen, todo, messages, references = set(), [name], [], 0
        while todo:
            current = todo.pop()
            if current in seen or current not in functions:
                continue
            seen.add(current)
            messages += _messages(functions[current])
            references += _builds_reference(functions[current])
            todo += sorted(_called(functions[current]) - seen)
        found.append(Sentence(module_name(module), name, tuple(messages), "Said" in _annotation_names(node), references))
    return found


ALL = [s for module in VIEWS for s in sentences(module)]


def test_the_reader_finds_the_sentences():
    assert len(ALL) > 150
    assert sum(s.compares for s in ALL) > 0


def test_the_allowed_lists_name_real_functions():
    names = {(s.module, s.name) for s in ALL}
    stale = sorted(set(NOT_COMPARING) - names) + sorted(set(MEASURED_CAUSES) - names)
    assert not stale, f"no such sentence functions any more: {stale}"
    needless = sorted(k for k in NOT_COMPARING if not next(s for s in ALL if (s.module, s.name) == k).comparing_words)
    assert not needless, f"these use no word of comparison; take them out of NOT_COMPARING: {needless}"


def _pending(sentences, pending):
    return [pytest.param(s, id=f"{s.module}.{s.name}", marks=pytest.mark.xfail(strict=True, reason="not converted yet"))
            if (s.module, s.name) in pending else pytest.param(s, id=f"{s.module}.{s.name}") for s in sentences]


@pytest.mark.parametrize("sentence", _pending([s for s in ALL if s.compares], NOT_YET))
def test_a_comparing_sentence_carries_its_reference(sentence):
    words = ", ".join(sorted(sentence.comparing_words))
    assert sentence.returns_said, (f"{sentence.module}.{sentence.name} compares ({words}) but returns plain text: "
                                   "return a lab.claims.Said with its Claim and Reference")
    assert sentence.references, (f"{sentence.module}.{sentence.name} compares ({words}) but builds no Claim with a "
                                 "reference")


@pytest.mark.parametrize("sentence", _pending([s for s in ALL if s.causes], CAUSES_NOT_YET))
def test_a_cause_is_stated_only_where_it_was_measured(sentence):
    assert (sentence.module, sentence.name) in MEASURED_CAUSES, (
        f"{sentence.module}.{sentence.name} names a cause ({', '.join(sorted(sentence.causes))}): state what was "
        "measured instead, or list what the page measured in MEASURED_CAUSES")


def test_every_text_function_of_the_views_returns_said():
    plain = [f"{s.module}.{s.name}" for s in ALL if not s.returns_said and (s.module, s.name) not in NOT_READ]
    assert not plain, f"these return plain text; return a lab.claims.Said with a Claim per number stated: {plain}"
    read = [f"{module}.{name}" for module, name in NOT_READ
            if next((s for s in ALL if (s.module, s.name) == (module, name)), None) is None
            or next(s for s in ALL if (s.module, s.name) == (module, name)).returns_said]
    assert not read, f"no longer plain text functions; take them out of NOT_READ: {read}"


def per_page() -> dict[str, tuple[int, int, int]]:
    """Per view module: sentences, comparing sentences, claims built with a reference."""
    table = {}
    for s in ALL:
        total, comparing, references = table.get(s.module, (0, 0, 0))
        table[s.module] = (total + 1, comparing + s.compares, references + s.references)
    return table


if __name__ == "__main__":
    print(f"{'module':28s} {'sentences':>9s} {'comparing':>9s} {'references':>10s}")
    for module, (total, comparing, references) in sorted(per_page().items()):
        print(f"{module:28s} {total:9d} {comparing:9d} {references:10d}")
    print("comparing, without a reference or Said:")
    for s in ALL:
        if s.compares and not (s.returns_said and s.references):
            print(f"  {s.module}.{s.name}: {', '.join(sorted(s.comparing_words))}")
    print("naming a cause:")
    for s in ALL:
        if s.causes:
            print(f"  {s.module}.{s.name}: {', '.join(sorted(s.causes))}")
