"""The package's own modules are loaded from their cached bytecode by sandbash.pycache's finder when
that bytecode is current, and by the standard machinery otherwise (issue 23, start-up)."""

from __future__ import annotations

import importlib
import importlib.util
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sandbash import pycache
from sandbash.pycache import PycacheFinder

TAG = sys.implementation.cache_tag


def _write_pyc(source: Path, *, mtime: int | None = None, size: int | None = None, flags: int = 0) -> Path:
    """The cached file of `source` as py_compile writes a timestamp one (or with the header changed)."""
    st = source.stat()
    code = compile(source.read_text(), str(source), "exec")
    header = importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little")
    header += ((int(st.st_mtime) if mtime is None else mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    header += ((st.st_size if size is None else size) & 0xFFFFFFFF).to_bytes(4, "little")
    cached = source.parent / "__pycache__" / f"{source.stem}.{TAG}.pyc"
    cached.parent.mkdir(exist_ok=True)
    cached.write_bytes(header + marshal.dumps(code))
    return cached


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A directory standing for a package's: a module, a package, both compiled."""
    (tmp_path / "mod.py").write_text("VALUE = 'mod'\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "__init__.py").write_text("VALUE = 'sub'\n")
    _write_pyc(tmp_path / "mod.py")
    _write_pyc(tmp_path / "sub" / "__init__.py")
    PycacheFinder.invalidate_caches()
    yield tmp_path
    PycacheFinder.invalidate_caches()


def _load(name: str, spec: importlib.machinery.ModuleSpec) -> ModuleType:
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_a_current_module_and_package_are_loaded_from_their_cached_files(tree: Path) -> None:
    spec = PycacheFinder.find_spec("sandbash.t.mod", [str(tree)])
    assert (
        spec is not None
        and spec.origin == f"{tree}/mod.py"
        and spec.cached == f"{tree}/__pycache__/mod.{TAG}.pyc"
    )
    assert spec.submodule_search_locations is None and spec.has_location
    module = _load("sandbash.t.mod", spec)
    assert module.VALUE == "mod" and module.__file__ == f"{tree}/mod.py"
    # (the standard loader's other methods: source, file name, a second exec as reload does)
    assert spec.loader.get_source("sandbash.t.mod") == "VALUE = 'mod'\n"  # type: ignore[union-attr]
    assert spec.loader.get_filename("sandbash.t.mod") == f"{tree}/mod.py"  # type: ignore[union-attr]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    assert module.VALUE == "mod"
    package = PycacheFinder.find_spec("sandbash.t.sub", [str(tree)])
    assert package is not None and package.submodule_search_locations == [f"{tree}/sub"]
    assert package.origin == f"{tree}/sub/__init__.py"
    assert _load("sandbash.t.sub", package).VALUE == "sub"


def test_the_code_is_named_by_the_source_where_it_is_now(tree: Path) -> None:
    """A tree moved after compiling: the code's file name is the source's path now, as the standard
    loader fixes it."""
    source = tree / "moved.py"
    source.write_text("def f():\n    return 1\n")
    cached = _write_pyc(source)
    code = compile(source.read_text(), "/elsewhere/moved.py", "exec")
    cached.write_bytes(cached.read_bytes()[:16] + marshal.dumps(code))
    PycacheFinder.invalidate_caches()
    spec = PycacheFinder.find_spec("sandbash.t.moved", [str(tree)])
    assert spec is not None
    f = _load("sandbash.t.moved", spec).f
    assert f.__code__.co_filename == str(source)


@pytest.mark.parametrize(
    "change",
    [
        "no cached file",
        "source changed",  # its mtime (and size) no longer those the cached file names
        "size differs",
        "mtime differs",
        "hash-based",  # checked or unchecked: the standard loader decides
        "other magic",
        "extension beside",  # mod.<abi>.so beside mod.py: the standard finder's order
        "made after the listing",
        "not ours",
        "two directories",
    ],
)
def test_everything_else_is_left_to_the_standard_machinery(tree: Path, change: str) -> None:
    name, path = "sandbash.t.mod", [str(tree)]
    cached = tree / "__pycache__" / f"mod.{TAG}.pyc"
    if change == "no cached file":
        cached.unlink()
    elif change == "source changed":
        (tree / "mod.py").write_text("VALUE = 'changed'\n")
        os.utime(tree / "mod.py", (1, 1))
    elif change == "size differs":
        _write_pyc(tree / "mod.py", size=1)
    elif change == "mtime differs":
        _write_pyc(tree / "mod.py", mtime=1)
    elif change == "hash-based":
        _write_pyc(tree / "mod.py", flags=0b11)
    elif change == "other magic":
        cached.write_bytes(b"\0\0\r\n" + cached.read_bytes()[4:])
    elif change == "extension beside":
        (tree / "mod.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    elif change == "made after the listing":
        assert PycacheFinder.find_spec(name, path) is not None  # (lists the directory)
        (tree / "late.py").write_text("")
        _write_pyc(tree / "late.py")
        name = "sandbash.t.late"
    elif change == "not ours":
        name = "other.mod"
    else:
        path = [str(tree), str(tree)]
    PycacheFinder.invalidate_caches() if change != "made after the listing" else None
    assert PycacheFinder.find_spec(name, path) is None
    if change == "made after the listing":
        PycacheFinder.invalidate_caches()  # (importlib.invalidate_caches() lists again)
        assert PycacheFinder.find_spec(name, path) is not None


def test_a_directory_without_init_or_a_missing_one_is_not_a_package(tree: Path) -> None:
    (tree / "space").mkdir()
    (tree / "space" / "x.py").write_text("")
    assert PycacheFinder.find_spec("sandbash.t.space", [str(tree)]) is None
    assert PycacheFinder.find_spec("sandbash.t.nothing", [str(tree)]) is None
    assert PycacheFinder.find_spec("sandbash.t.x", [str(tree / "gone")]) is None


def _fresh(code: str, *flags: str, src: Path | None = None) -> list[str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    out = subprocess.run(
        [sys.executable, *flags, "-c", code], capture_output=True, text=True, timeout=300, check=True, env=env
    )
    return out.stdout.split()


# how each of the package's modules a run imports was loaded, from a copy of the package compiled as an
# installer compiles it (the tree the tests run from may have no cached files, or stale ones)
_LOADERS = (
    "import sys; from sandbash.cli import main; main(['-c', 'echo hi | cat >/dev/null']); "
    "from sandbash.pycache import PycacheFinder, _Loader; "
    "mods = [m for n, m in sys.modules.items() if n.startswith('sandbash.') and n != 'sandbash.pycache']; "
    "print(sys.meta_path.index(PycacheFinder) if PycacheFinder in sys.meta_path else -1, "
    "all(isinstance(m.__loader__, _Loader) for m in mods), len(mods) > 50)"
)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("installed")
    shutil.copytree(
        Path(pycache.__file__).parent, root / "sandbash", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root)], capture_output=True, check=True)
    return root


def test_a_run_loads_the_package_by_the_finder(compiled: Path) -> None:
    assert _fresh(_LOADERS, src=compiled) == ["0", "True", "True"]


def test_no_finder_under_optimisation(compiled: Path) -> None:
    """-O reads other cached files (.opt-1.pyc): the standard machinery does it all."""
    assert _fresh(_LOADERS, "-O", src=compiled)[:2] == ["-1", "False"]


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        # collecting: on again after a lazy import, nothing left frozen
        ("", "True False"),
        ("gc.disable(); ", "False False"),  # a program that turned the collector off keeps it off
        ("gc.freeze(); ", "True True"),  # ... one that froze objects keeps them frozen (not unfrozen)
    ],
)
def test_an_import_gives_the_collector_back_as_it_was(compiled: Path, before: str, expected: str) -> None:
    """An embedding program's first awk imports ~40 modules during the run: the collector is paused
    while each runs and given back as the program had it; what the imports made is not frozen for
    it. (Python 3.12 starts with objects frozen: counted from the import on.)"""
    code = (
        "import gc; start = gc.get_freeze_count(); from sandbash import Bash; b = Bash(); b.exec('true'); "
        f"{before}frozen = gc.get_freeze_count(); "
        "r = b.exec(\"echo 'a b' | awk '{print $2}'\"); after = gc.get_freeze_count(); "
        "print(r.stdout.strip(), gc.isenabled(), after > start, after < frozen + 1000)"
    )
    assert _fresh(code, src=compiled) == ["b", *expected.split(), "True"]


def test_a_program_of_its_own_freezes_what_its_lazy_imports_made(compiled: Path) -> None:
    code = (
        "import gc, sys; sys.argv = ['sandbash', '-c', 'true']; from sandbash.cli import main; main(); "
        "frozen = gc.get_freeze_count(); sys.argv = ['sandbash', '-c', \"echo 'a b' | awk '{print $2}'\"]; "
        "main(); print(gc.get_freeze_count() > frozen + 1000, gc.isenabled())"
    )
    assert _fresh(code, src=compiled) == ["b", "True", "True"]
