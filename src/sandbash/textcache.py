"""A process-wide cache of what was parsed from text (arithmetic, subscripts), shared by every run;
and the code of the functions sandbash generates as Python source (function_of).

No run is charged for what such a cache keeps, and a parse can hold far more memory than its text
(an arithmetic tree costs about 100 bytes a character). So the cache is bounded in entries and in
the total text behind them, and keeps nothing parsed from a long text: one run must not be able to
make the process hold memory that outlives it (T-TEN-5). Long texts are parsed each time, which
costs no more than evaluating them.
"""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
from collections import OrderedDict
from types import CodeType, FunctionType, GenericAlias

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Hashable
    from typing import Generic, TypeVar

    K = TypeVar("K", bound=Hashable)
    V = TypeVar("V")
else:  # generic for the type checker only: typing (~2 ms of a start-up) is not imported at run time

    class Generic:
        """`Generic[K, V]` as a base, and `TextCache[str, Fn]` as a base or an annotation, at run time:
        subscripting gives a types.GenericAlias, which subclasses as its plain class."""

        __slots__ = ()
        __class_getitem__ = classmethod(GenericAlias)

    K = V = None


class TextCache(Generic[K, V]):
    """get/put by key; `put` names the text the value was parsed from."""

    __slots__ = ("entries", "chars", "longest", "_data", "_held")

    def __init__(self, entries: int = 4096, chars: int = 1 << 18, longest: int = 1024) -> None:
        self.entries = entries
        self.chars = chars
        self.longest = longest
        self._data: dict[K, V] = {}
        self._held = 0  # characters of text behind the entries

    def get(self, key: K) -> V | None:
        return self._data.get(key)

    def put(self, key: K, text: str, value: V) -> None:
        size = len(text)
        if size > self.longest:
            return
        if len(self._data) >= self.entries or self._held + size > self.chars:
            # start over (a fresh dict: another thread may be reading the old one)
            self._data = {}
            self._held = 0
        self._data[key] = value
        self._held += size

    def __len__(self) -> int:
        return len(self._data)

    def held(self) -> int:
        """Characters of text behind the entries."""
        return self._held

    def keys(self) -> list[K]:
        return list(self._data)


class TextLRU(Generic[K, V]):
    """A least-recently-used cache of what was compiled from text (regular expressions, awk
    programs), safe across threads: bounded in entries, in the total text behind them and, when
    `retained` is given, in the bytes the compiled values may hold (a short pattern can compile
    to a large program); the oldest entries go first. A value over a whole bound is not kept."""

    __slots__ = ("entries", "chars", "retained", "_data", "_held", "_bytes", "_lock")

    def __init__(self, entries: int, chars: int = 1 << 18, retained: int = 0) -> None:
        self.entries = entries
        self.chars = chars
        self.retained = retained  # 0: not bounded by bytes
        self._data: OrderedDict[K, tuple[V, int, int]] = OrderedDict()
        self._held = 0
        self._bytes = 0
        self._lock = _thread.allocate_lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return None
            self._data.move_to_end(key)
            return hit[0]

    def put(self, key: K, size: int, value: V, nbytes: int = 0) -> None:
        """Keep `value`, compiled from `size` characters of text, holding up to `nbytes` bytes."""
        if size > self.chars or (self.retained and nbytes > self.retained):
            return
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._held -= old[1]
                self._bytes -= old[2]
            self._data[key] = (value, size, nbytes)
            self._held += size
            self._bytes += nbytes
            while (
                len(self._data) > self.entries
                or self._held > self.chars
                or (self.retained and self._bytes > self.retained)
            ):
                _, (_, n, b) = self._data.popitem(last=False)
                self._held -= n
                self._bytes -= b

    def __len__(self) -> int:
        return len(self._data)

    def held(self) -> int:
        """Characters of text behind the entries."""
        return self._held

    def held_bytes(self) -> int:
        """Bytes the entries' compiled values may hold (as `put` was told)."""
        return self._bytes


# The code of the functions the interpreter generates as Python source (expand/arithgen.py,
# interp/funcgen.py, interp/steps.py), by that source: compiling one costs 0.2-1 ms, and a second run,
# session call or function body of the same shape generates the same source (a script's names, words
# and values are constants of the namespace the code runs in; only numbers such as a line are in the
# text). Code is immutable: each use makes a fresh function of a copy of it over a namespace of its
# own, which holds only that use's objects. A code object takes about 2.5 bytes a character of its
# source; the bound is on that source.
_CODE: TextCache[tuple[str, str], CodeType] = TextCache(entries=1024, chars=1 << 20, longest=1 << 16)


def function_of(source: str, filename: str, name: str, namespace: dict[str, object]) -> FunctionType:
    """The function `name` that `source` defines (a `def` at its top, without defaults), over
    `namespace` (its globals, where it is bound as `name` too); its code is made once per process
    while the cache holds it, with `filename` (`<arith>`, `<funcgen>`, `<steps>`) as its file."""
    key = (source, filename)
    code = _CODE.get(key)
    if code is None:
        # exec of the text, not compile(): compile's first call in a process builds the ast module's
        # node types (PyAST_Check), ~1 ms of every run that generates anything; exec of a string
        # parses and compiles the same way without them
        made: dict[str, object] = {}
        exec(source, made)
        made_fn = made[name]
        assert isinstance(made_fn, FunctionType)
        if made_fn.__defaults__ or made_fn.__kwdefaults__ or made_fn.__code__.co_freevars:
            # only the code is kept: defaults and closure cells would be dropped without a word
            raise ValueError(f"{filename}: generated {name}() has defaults or free variables")
        code = _named(made_fn.__code__, filename)
        _CODE.put(key, source, code)
    # a code object of its own (replace() copies it, ~1 us): CPython specializes a code's
    # bytecode for the globals it last ran with, so one code shared by functions over different
    # namespaces live at once (`$(( n - 1 ))` and `$(( n - 2 ))`) would undo it at every call
    fn = FunctionType(code.replace(), namespace, name)
    namespace[name] = fn
    return fn


def module_code(source: str, filename: str) -> CodeType:
    """What `compile(source, filename, "exec")` gives for a text of top-level `def`s only (awk's
    generated program), made without compile() for the reason function_of gives: the text is exec'd
    as the body of one function that declares those names global, so its code run in a namespace
    defines them there as the module's would (defaults read from it); each function's code has
    `filename` and the line numbers of `source` (tracebacks are read back to the awk source)."""
    names: list[str] = []
    for line in source.splitlines():
        if line[:1] in ("", " "):
            continue  # (a function's body)
        name = line[4 : line.find("(")] if line.startswith("def ") else ""
        if not name.isidentifier():
            raise ValueError(f"{filename}: only functions may be defined at the top level: {line!r}")
        names.append(name)
    wrapper = f"def {_MODULE}():\n global {', '.join(names) or _MODULE}\n" + "".join(
        f" {line}\n" for line in source.splitlines()
    )
    made: dict[str, object] = {}
    exec(wrapper, made)
    body = made[_MODULE]
    assert isinstance(body, FunctionType)
    code = body.__code__
    # (the functions' lines are two below the source's in the wrapper)
    consts = tuple(_named(c, filename, -2) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


_MODULE = "_module_code_"  # (a name no generated program defines: theirs start with F_ or _ and a capital)


def _named(code: CodeType, filename: str, shift: int = 0) -> CodeType:
    """`code` and the code of the functions defined in it, as compiled from `filename`, its lines
    moved by `shift`."""
    consts = tuple(_named(c, filename, shift) if isinstance(c, CodeType) else c for c in code.co_consts)
    # (a code's line table counts from its first line: moving that moves every line of it)
    return code.replace(co_filename=filename, co_consts=consts, co_firstlineno=code.co_firstlineno + shift)
