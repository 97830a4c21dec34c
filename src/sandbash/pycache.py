"""The package's own modules loaded from their cached bytecode by a shorter path (issue 23).

An import through the standard machinery costs ~280 k instructions before the module's code runs
(four finders asked in turn, FileFinder's directory checks, the spec, then SourceFileLoader's path
arithmetic and checks, all interpreted Python), and `sandbash -c 'echo hi'` imports ~110 modules of
this package. This finder answers for `sandbash.*` names only, first on `sys.meta_path`: it looks
the name up in its parent package's directory (listed once per directory), reads the module's
`__pycache__` file and checks it exactly as the standard loader checks a timestamp pyc (magic
number, flags, the source's mtime and size). Anything else (no cached file, a stale or hash-based
one, an extension module, a name in a directory changed since it was listed, -O, a pycache prefix)
is left to the standard machinery, which compiles and writes as it always does. The loader is a
SourceFileLoader, so get_code, get_source and resource readers behave as before; only its
exec_module uses the bytes already read.

Host access: this module reads only files under the package's own directories, for module names
the package's own imports give (never a script's text), as the standard loader would; the bytes
it runs are the package's own compiled modules.
"""

from __future__ import annotations

import sys
from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import MAGIC_NUMBER, SourceFileLoader
from _imp import _fix_co_filename  # type: ignore[attr-defined]  # (the loader's own, untyped)
from _io import open_code
from gc import disable, enable, freeze, get_freeze_count, isenabled, unfreeze
from marshal import loads
from posix import listdir, stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

_PREFIX = "sandbash."
_TAG = sys.implementation.cache_tag


class _Listing:
    """One directory's entries: the stems of its `.py` files, its other names, its cached files."""

    __slots__ = ("sources", "others", "cached")

    def __init__(self, directory: str) -> None:
        sources: set[str] = set()
        others: set[str] = set()
        for entry in listdir(directory):
            if entry.endswith(".py"):
                sources.add(entry[:-3])
            else:
                # a directory (a package when it holds __init__.py), or a file of another kind:
                # its stem, so an extension module beside a source keeps the standard finder's order
                others.add(entry.partition(".")[0])
        self.sources = sources
        self.others = others
        try:
            self.cached = frozenset(listdir(directory + "/__pycache__"))
        except OSError:
            self.cached = frozenset()


class _Loader(SourceFileLoader):
    """A SourceFileLoader that runs the cached bytes the finder read and checked."""

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self._data: bytes | None = data

    def exec_module(self, module: ModuleType) -> None:
        data = self._data
        if data is None:  # (a second exec, as importlib.reload does: the standard path)
            super().exec_module(module)
            return
        self._data = None
        code = loads(memoryview(data)[16:])
        _fix_co_filename(code, self.path)
        if not isenabled():  # (paused: an import around this one, or the program's choice)
            exec(code, module.__dict__)
            return
        disable()
        try:
            exec(code, module.__dict__)
        finally:
            settle()


# A program of its own (the CLI) keeps what its imports made until it ends (cli/app.py's main)
freeze_imports = False


def settle() -> None:
    """The collector back on after an import that made long-lived objects and no garbage (a module's
    classes, functions and tables): they go to the oldest generation at once (freeze then unfreeze
    moves objects without visiting them) instead of through the young generations' passes, which
    freed none of them; in a program of its own they are frozen for good. A program that froze
    objects itself keeps them as they are."""
    if freeze_imports:
        freeze()
    elif not get_freeze_count():
        freeze()
        unfreeze()
    enable()


class PycacheFinder:
    """First on sys.meta_path: `sandbash.*` modules whose cached bytecode is current."""

    _listings: dict[str, _Listing] = {}

    @classmethod
    def _listing(cls, directory: str) -> _Listing | None:
        """The directory's listing, made on first use (None: it cannot be listed)."""
        listing = cls._listings.get(directory)
        if listing is None:
            try:
                listing = cls._listings[directory] = _Listing(directory)
            except OSError:
                return None
        return listing

    @classmethod
    def find_spec(
        cls, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if path is None or len(path) != 1 or not name.startswith(_PREFIX):
            return None
        directory = path[0]
        listing = cls._listing(directory)
        if listing is None:
            return None
        tail = name.rpartition(".")[2]
        if tail in listing.others:
            if tail in listing.sources:
                return None  # a package beside a module, or an extension module: the standard order
            return cls._spec(name, f"{directory}/{tail}", "__init__", None, package=True)
        if tail not in listing.sources:
            return None  # (a module made after the listing: the standard finder sees it)
        return cls._spec(name, directory, tail, listing, package=False)

    @classmethod
    def _spec(
        cls, name: str, directory: str, stem: str, listing: _Listing | None, *, package: bool
    ) -> ModuleSpec | None:
        if listing is None:  # a package: its own directory's listing
            listing = cls._listing(directory)
            if listing is None or stem not in listing.sources:
                return None
        cached_name = f"{stem}.{_TAG}.pyc"
        if cached_name not in listing.cached:
            return None
        source = f"{directory}/{stem}.py"
        cached = f"{directory}/__pycache__/{cached_name}"
        try:
            st = stat(source)
            with open_code(cached) as f:
                data = f.read()
        except OSError:
            return None
        if (
            data[:4] != MAGIC_NUMBER
            or data[4:8] != b"\0\0\0\0"  # a timestamp pyc (hash-based ones: the standard loader)
            or int.from_bytes(data[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != st.st_size & 0xFFFFFFFF
        ):
            return None
        spec = ModuleSpec(name, _Loader(name, source, data), origin=source, is_package=package)
        if package:
            spec.submodule_search_locations = [directory]
        spec.has_location = True
        spec.cached = cached
        return spec

    @classmethod
    def invalidate_caches(cls) -> None:
        """importlib.invalidate_caches(): directories are listed again."""
        cls._listings.clear()


def install() -> None:
    """Puts the finder first on sys.meta_path, once; not under -O or a pycache prefix (other file
    names), nor without a cache tag."""
    if sys.flags.optimize or sys.pycache_prefix is not None or _TAG is None:
        return
    if PycacheFinder not in sys.meta_path:
        sys.meta_path.insert(0, PycacheFinder)
