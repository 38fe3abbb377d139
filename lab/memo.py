"""Views shared by every session of a server process, remembered by their arguments.

A view is a pure function of a page's settings (numbers, strings, tuples of them, frozen
records) that returns a frozen record. Every rerun of every session calls a page's views again,
and in a class a hundred followers do so at once with the same settings, so a remembered view
must cost next to nothing to find. ``st.cache_resource`` costs about 60 µs per hit (it hashes
each argument with its own hasher, takes its locks and replays the elements a cached function
drew, which a view never does); a page calls five to ten views per rerun. Here a hit is a dict
lookup, about a microsecond.

The semantics are those of ``st.cache_resource``: one shared result per key (never copied), the
least recently used dropped past ``max_entries``, one computation per key at a time (a second
caller waits for the first, and a waiting script run still stops when the session moves on),
and an exception is raised to its caller and not remembered. A key is the arguments' values
with their types (:func:`plain_key`), or what ``key`` makes of them for a view of content that
Python cannot hash (a table). Unlike Streamlit's cache, ``lab.memo.clear_all()`` empties these,
not the "Clear caches" item of Streamlit's menu (hidden from readers: the toolbar is in viewer
mode).
"""

from __future__ import annotations

import contextvars
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, ParamSpec, TypeVar

from lab import i18n
from lab.streamlit_internals import run_yield_check

P = ParamSpec("P")
R = TypeVar("R")

_WAIT_STEP = 0.1  # seconds between a waiting run's checks that it should still wait
_MEMOS: list[Memo] = []  # every memo of the process, for clear_all()
_COMPUTING: contextvars.ContextVar[bool] = contextvars.ContextVar("lab_memo_computing", default=False)


class Memo(Generic[P, R]):
    """A function's shared results (see the module); call it as the function."""

    def __init__(self, func: Callable[P, R], max_entries: int | None, key: Callable[..., Hashable] | None,
                 per_language: bool = False):
        if max_entries is not None and max_entries < 1:
            raise ValueError(f"max_entries must be at least 1 or None, got {max_entries!r}")
        self.uncached = func
        self._max_entries = max_entries
        self._key = key
        self.per_language = per_language
        self._values: OrderedDict[Hashable, R] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[Hashable, _Gate] = {}
        functools.update_wrapper(self, func)

    def key_of(self, *args, **kwargs) -> Hashable:
        """The key the arguments are remembered under (with the current language first, for a
        view remembered per language)."""
        arguments = (self._key or plain_key)(*args, **kwargs)
        return (i18n.language(), arguments) if self.per_language else arguments

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = self.key_of(*args, **kwargs)
        found, value = self._found(key)
        if found:
            return value
        with self._lock:  # a key's gate lives while a caller holds it or waits on it
            gate = self._computing.setdefault(key, _Gate())
            gate.users += 1
        try:
            _acquire(gate.lock)
            try:
                found, value = self._found(key)  # computed while this caller waited
                if found:
                    return value
                token = _COMPUTING.set(True)
                try:
                    if self.per_language:
                        with i18n.use(key[0]):  # computed in the language it is remembered for
                            value = self.uncached(*args, **kwargs)
                    else:
                        value = self.uncached(*args, **kwargs)
                finally:
                    _COMPUTING.reset(token)
                with self._lock:
                    self._values[key] = value
                    self._values.move_to_end(key)
                    if self._max_entries is not None:
                        while len(self._values) > self._max_entries:
                            self._values.popitem(last=False)
                return value
            finally:
                gate.lock.release()
        finally:
            with self._lock:
                gate.users -= 1
                if gate.users == 0 and self._computing.get(key) is gate:
                    del self._computing[key]

    def _found(self, key: Hashable) -> tuple[bool, R | None]:
        with self._lock:
            try:
                self._values.move_to_end(key)
            except KeyError:
                return False, None
            return True, self._values[key]

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._values.clear()


class _Gate:
    """One key's computation: its lock, and how many callers hold it or wait on it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0


def plain_key(*args, **kwargs) -> Hashable:
    """The arguments' values with their types at the top level (``10000`` and ``10000.0`` are two
    keys; inside a tuple, Python's equality decides: ``(1,)`` and ``(1.0,)`` are one). A keyword
    argument and the same positional one are two keys (the view is computed once for each)."""
    return tuple((type(a), a) for a in args), tuple(sorted((k, type(v), v) for k, v in kwargs.items()))


def _acquire(gate: threading.Lock) -> None:
    """Wait for ``gate``; a script run that waits still stops or reruns when its session asks,
    unless it waits inside a computation of its own (a view that needs another view): stopping
    there would throw that computation away, as Streamlit's caches know."""
    check = None if _COMPUTING.get() else run_yield_check()
    if check is None:
        gate.acquire()
        return
    while not gate.acquire(timeout=_WAIT_STEP):
        check()


def shared(max_entries: int | None = None, *, key: Callable[..., Hashable] | None = None,
           per_language: bool = False) -> Callable[[Callable[P, R]], Memo[P, R]]:
    """Remember a view's results for every session of the process (see the module). With
    ``per_language``, a view whose record holds words (its sentences, a chart's titles) is
    remembered once per language as well as per argument, and computed in that language
    (:func:`lab.i18n.language` is part of the key): a record carries its sentences, said once."""

    def decorate(func: Callable[P, R]) -> Memo[P, R]:
        memo = Memo(func, max_entries, key, per_language)
        _MEMOS.append(memo)
        return memo

    return decorate


def clear_all() -> None:
    """Forget every memo's results (a test's fresh start)."""
    for memo in _MEMOS:
        memo.clear()
