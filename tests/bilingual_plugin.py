"""Every sentence in both languages: a pytest plugin (``-p tests.bilingual_plugin``) that
``tests/test_i18n.py`` loads into a run of the sentence tests. Each function of the modules below
that writes text for people is wrapped, so that every call a test makes in English (the property
tests, at every setting they draw) is made again in Portuguese, and the Portuguese text is checked
to state the same numbers and to hold no English prose (tests/bilingual.py). A module takes part
once it speaks through lab.i18n; tests/test_i18n.py checks that every one does."""

from __future__ import annotations

from pathlib import Path


def bilingual_modules() -> list[str]:
    from tests.test_sentence_coverage import MODULES

    root = Path(__file__).resolve().parent.parent
    return [".".join(path.relative_to(root).with_suffix("").parts) for path in MODULES
            if "from lab.i18n import" in path.read_text(encoding="utf-8")]


SAID_TWICE: dict[str, int] = {}  # each wrapped function: the calls said again in Portuguese


def _wrap_bilingual() -> None:
    import contextvars
    import functools
    import importlib
    import inspect

    from lab import i18n
    from streamlit import runtime
    from tests.bilingual import check_translation, strings_in
    from tests.test_sentence_coverage import text_functions

    inside = contextvars.ContextVar("bilingual_inside", default=False)

    def both(fn, where):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            english = fn(*args, **kwargs)
            # a direct call of a test; inside a page run through AppTest (a runtime exists while it
            # runs) the page tests judge the page
            if inside.get() or runtime.exists() or i18n.language() != "en" or not isinstance(english, str):
                return english
            token = inside.set(True)
            try:
                with i18n.use("pt"):
                    portuguese = fn(*args, **kwargs)
            finally:
                inside.reset(token)
            check_translation(english, portuguese, strings_in(args) + strings_in(kwargs), where)
            SAID_TWICE[where] = SAID_TWICE.get(where, 0) + 1
            return english

        call.english_only = fn
        return call

    for name in bilingual_modules():
        module = importlib.import_module(name)
        for function in text_functions(Path(inspect.getfile(module))):
            setattr(module, function, both(getattr(module, function), f"{name}.{function}"))


def pytest_configure(config):
    _wrap_bilingual()


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"bilingual: {sum(SAID_TWICE.values())} calls of {len(SAID_TWICE)} "
                                f"functions said again in Portuguese")
