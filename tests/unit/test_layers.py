"""The package's layers and the directions its imports may take.

Every module of `sandbash` belongs to one layer of LAYERS (bottom first). A module may import its
own layer and the layers below it; an import that goes up, and an import circle between modules, is
allowed only when EXCEPTIONS lists it with the reason it is there. For the directions every import
counts: module-level, inside functions (a lazy import is still a dependency) and under
`if TYPE_CHECKING:`. For circles only the imports that run count: an annotation naming the object
that composes a part (the interpreter's parts name `Shell`) is no circle at run time.

When one of these tests fails:
- a new package: add it to the layer its imports put it in;
- an upward import: move the shared piece down (as ExecResult went to `result.py` and the front
  ends' settings to `config.py`), or pass it in from above; list it only when neither fits, with why;
- a stale exception: the import is gone, delete its row.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = "sandbash"

# Bottom first. A module belongs to the layer with the longest prefix matching its name.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundation",
        (
            "sandbash.leanclass",  # @dataclass without importing dataclasses (start-up)
            "sandbash.pycache",  # the package's modules from their cached bytecode (start-up)
            "sandbash.textcache",
            "sandbash.limits",
            "sandbash.result",
            "sandbash.errors",
            "sandbash.identity",
            "sandbash.audit",
            "sandbash.switches",  # SANDBASH_TREE_WALKER, read once
        ),
    ),
    ("syntax", ("sandbash.syntax",)),
    ("streams", ("sandbash.stdio", "sandbash.regex", "sandbash.net")),
    # the host readers (/proc, services, elevation callbacks) sit with the filesystem backends
    ("vfs", ("sandbash.vfs", "sandbash.host.procfs", "sandbash.host.services", "sandbash.host.elevation")),
    ("variables", ("sandbash.shvars",)),  # Var, its flags, Scope, the arrays: what expansion reads
    ("expand", ("sandbash.expand", "sandbash.posix")),
    ("commands", ("sandbash.commands",)),
    ("policy", ("sandbash.policy",)),
    ("interp", ("sandbash.interp",)),
    ("builtins", ("sandbash.builtins",)),
    ("host", ("sandbash.host",)),  # HostAccess: grants over policy and identity
    ("check", ("sandbash.check",)),
    (
        "api",
        (
            "sandbash.api",
            "sandbash.aio",
            "sandbash.custom",
            "sandbash.testing",
            "sandbash.config",
            "sandbash.sessions",
        ),
    ),
    ("agent", ("sandbash.agent",)),
    ("box", ("sandbash.box",)),  # box mode: the shell service, its alias client, host programs in bubblewrap
    ("cli", ("sandbash.cli",)),
    ("package", ("sandbash", "sandbash.__main__")),
)

# (importer prefix, imported prefix) -> why the import may go up a layer or close a circle.
EXCEPTIONS: dict[tuple[str, str], str] = {
    # -- pending work of this session's issue 17 (each row goes when its owner lands the change)
    # -- justified
    (
        "sandbash.interp.builtin_table",
        "sandbash.builtins",
    ): "the one seam: the builtin table lives in the interpreter and each builtin module fills it as it "
    "is imported (builtins -> interp); the table imports a module lazily, by the name HOME gives it, "
    "when a script first runs one of its builtins (load() imports them all for whole-table readers)",
    (
        "sandbash.commands.context",
        "sandbash.commands.inputs",
    ): "lazy: Ctx.inputs() is the facade of the one file-operand loop, which lives in its own module "
    "and works on a Ctx",
    (
        "sandbash.policy",
        "sandbash.builtins",
    ): "lazy, read-only: the gate names a command by its implementation (the builtin table groups the "
    "names bound to one function); builtins import the interpreter, which holds the gate",
    (
        "sandbash.policy",
        "sandbash.check",
    ): "lazy, two uses: help lists the commands that write (writes_files) from the static check's "
    "command models, the one place that knows it; Gate.elevation (sudo) hands words to the "
    "embedder, which runs them outside the interpreter, so the static check of exactly those "
    "words must allow them first",
    (
        "sandbash.agent.tool",
        "sandbash.agent.adapters.cruvero",
    ): "lazy: BashTool.cruvero() is the documented shortcut to the Cruvero profile (README), which "
    "builds a BashTool",
    (
        "sandbash.cli.app",
        "sandbash",
    ): "__version__ lives in the package's __init__, which hatch and --version read; the package is "
    "initialised before any module of it runs",
    (
        "sandbash.commands.bc.dc",
        "sandbash.commands.bc",
    ): "lazy: dc reads DC_LINE_LENGTH with bc's line_length rule; bc's package imports dc for cmd_dc",
}


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int
    how: str  # "module", "function" or "type" (under TYPE_CHECKING)

    def __str__(self) -> str:
        return f"{self.importer} -> {self.imported} (line {self.line}, {self.how}-level)"


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _modules() -> dict[str, tuple[Path, bool]]:
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        name, is_package = _module_name(path)
        found[name] = (path, is_package)
    return found


MODULES = _modules()


def _scopes(tree: ast.Module) -> tuple[set[int], set[int]]:
    """The ids of the nodes inside functions and inside `if TYPE_CHECKING:` blocks."""
    in_function: set[int] = set()
    in_type_check: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                in_type_check.update(id(n) for n in ast.walk(stmt))
    return in_function, in_type_check


def _targets(node: ast.Import | ast.ImportFrom, package: str) -> Iterator[str]:
    """The sandbash modules one import statement loads (`from . import x` names module `x`)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    if node.level:
        base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        yield sub if sub in MODULES else source


def _edges() -> list[Edge]:
    edges: list[Edge] = []
    for name, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        package = name if is_package else name.rpartition(".")[0]
        in_function, in_type_check = _scopes(tree)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            how = "function" if id(node) in in_function else "type" if id(node) in in_type_check else "module"
            for target in _targets(node, package):
                while target not in MODULES and "." in target:  # `import sandbash.x.y as z` of a name
                    target = target.rpartition(".")[0]
                if target.split(".")[0] == PACKAGE and target != name and target in MODULES:
                    edges.append(Edge(name, target, node.lineno, how))
    return edges


EDGES = _edges()


def _under(name: str, prefix: str) -> bool:
    """`name` is `prefix` or inside it; the package itself matches only itself."""
    return name == prefix or (prefix != PACKAGE and name.startswith(prefix + "."))


def layer_of(name: str) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, layer index)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _under(name, prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def _matches(edge: Edge, key: tuple[str, str]) -> bool:
    """A row names prefixes; a row about a module's own package names that package's __init__ only."""
    importer, imported = key
    if not _under(edge.importer, importer):
        return False
    if _under(importer, imported):
        return edge.imported == imported
    return _under(edge.imported, imported)


def _exception_for(edge: Edge) -> tuple[str, str] | None:
    for key in EXCEPTIONS:
        if _matches(edge, key):
            return key
    return None


def test_every_module_has_a_layer() -> None:
    lost = [name for name in MODULES if layer_of(name) is None]
    assert not lost, f"modules in no layer of LAYERS (add them where their imports put them): {lost}"


def test_imports_go_down() -> None:
    upward = []
    for edge in EDGES:
        low, high = layer_of(edge.importer), layer_of(edge.imported)
        if low is not None and high is not None and high > low and _exception_for(edge) is None:
            upward.append(f"{edge}: {LAYERS[low][0]} imports {LAYERS[high][0]}")
    assert not upward, "imports going up a layer:\n" + "\n".join(upward)


def _cycles(edges: list[Edge]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    graph: dict[str, list[str]] = {name: [] for name in MODULES}
    for edge in edges:
        graph[edge.importer].append(edge.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _runtime(edges: list[Edge]) -> list[Edge]:
    return [edge for edge in edges if edge.how != "type"]


def test_no_import_circles() -> None:
    kept = _runtime([edge for edge in EDGES if _exception_for(edge) is None])
    cycles = _cycles(kept)
    detail = []
    for component in cycles:
        members = set(component)
        detail.append(" <-> ".join(component))
        detail += [f"    {e}" for e in kept if e.importer in members and e.imported in members]
    assert not cycles, "import circles:\n" + "\n".join(detail)


def test_exceptions_are_still_needed() -> None:
    """Justified rows must still excuse an import. Pending rows may already be stale: the change that
    removes one lands in the owner's own commit (several helpers work on the tree at once)."""
    used = {key for edge in EDGES if (key := _exception_for(edge)) is not None}
    stale = sorted(key for key in set(EXCEPTIONS) - used if not EXCEPTIONS[key].startswith("pending"))
    assert not stale, f"no import matches these EXCEPTIONS rows any more; delete them: {stale}"


def test_exceptions_are_upward_or_circular() -> None:
    """A row must excuse something: an import that goes up, or one that closes a circle."""
    needless = []
    kept = _runtime([e for e in EDGES if _exception_for(e) is None])
    for key in EXCEPTIONS:
        matching = [e for e in EDGES if _exception_for(e) == key]
        goes_up = any((layer_of(e.imported) or 0) > (layer_of(e.importer) or 0) for e in matching)
        circles = _cycles(kept + _runtime(matching))
        closes_circle = any(e.imported in c and e.importer in c for c in circles for e in matching)
        if matching and not goes_up and not closes_circle:
            needless.append(key)
    assert not needless, f"these rows excuse imports that need no excuse: {needless}"


@pytest.mark.parametrize(
    "importer, imported, allowed",
    [
        ("sandbash.commands.cut", "sandbash.interp.shell", False),  # commands never import the interpreter
        ("sandbash.interp.shell", "sandbash.commands.registry", True),
        ("sandbash.syntax.parser", "sandbash.vfs.facade", False),
        ("sandbash.cli.app", "sandbash.api", True),
        ("sandbash.agent.mcp_server", "sandbash.cli.app", False),  # the circle cut this session
        ("sandbash.errors", "sandbash.api", False),
        ("sandbash.api", "sandbash.result", True),
        ("sandbash.expand.words", "sandbash.shvars.vars", True),  # the variable types sit below expansion
        ("sandbash.expand.words", "sandbash.interp.variables", False),
    ],
)
def test_layer_table_reads_as_designed(importer: str, imported: str, allowed: bool) -> None:
    low, high = layer_of(importer), layer_of(imported)
    assert low is not None and high is not None
    assert (high <= low) is allowed


def test_the_walk_sees_lazy_and_type_only_imports() -> None:
    """The walk itself: function-level and TYPE_CHECKING imports are found, relative ones resolved."""
    hows = {(e.importer, e.imported): e.how for e in EDGES}
    assert hows[("sandbash.api", "sandbash.aio")] == "function"  # asyncio loads only for async callers
    assert hows[("sandbash.errors", "sandbash.result")] == "type"
    assert hows[("sandbash.cli.app", "sandbash.config")] == "module"
