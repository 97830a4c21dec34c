"""textcache.module_code: the code compile(source, filename, "exec") gives for a text of top-level
`def`s (awk's generated program), made without compile(), whose first call in a process builds the
ast module's node types (~9 M instructions, about a sixth of a first awk)."""

from __future__ import annotations

import dis
import subprocess
import sys

import pytest

from sandbash.textcache import module_code

SOURCES = [
    # defaults read from the namespace the code runs in, globals written by a function
    "def F_g(L_x=U, L_a=None):\n    _cp()\n    return L_x * 2\n    return U\n"
    "def _MAIN():\n    global V_n\n    V_n = F_g(V_n)\n    if V_n > 4:\n        raise ValueError(V_n)\n    pass\n",
    # comprehensions and lambdas are code objects of their own
    "def _BEGIN():\n    global V_s\n    V_s = [x + 1 for x in range(3)]\n    f = lambda y: y * V_s[0]\n    return f(2)\n",
    "",  # (a program of no rules)
    "def _END():\n    pass\n\n\ndef _ENDFILE():\n    return 'x'\n",
]


def _run(code: object, ns: dict[str, object]) -> dict[str, object]:
    exec(code, ns)  # (the test's own text)
    return ns


def _lines(code: object) -> list[tuple[str, list[int | None]]]:
    """Each function's name and its instructions' lines, nested code included."""
    out = []
    for c in getattr(code, "co_consts", ()):
        if hasattr(c, "co_code"):
            out.append((c.co_qualname, [i.positions.lineno for i in dis.get_instructions(c)]))
            out.extend(_lines(c))
    return out


@pytest.mark.parametrize("source", SOURCES)
def test_module_code_is_compiles_code(source: str) -> None:
    ours = module_code(source, "<awk>")
    theirs = compile(source, "<awk>", "exec")
    assert _lines(ours) == _lines(theirs)
    assert all(c.co_filename == "<awk>" for c in ours.co_consts if hasattr(c, "co_code"))
    given = {"U": 3, "V_n": 3, "_cp": lambda: None}  # (_MAIN raises: its line is compared)
    ns_a = _run(ours, dict(given))
    ns_b = _run(theirs, dict(given))
    names = sorted(k for k in ns_b if k not in given and k != "__builtins__")
    assert sorted(k for k in ns_a if k not in given and k != "__builtins__") == names
    for name in names:
        fa, fb = ns_a[name], ns_b[name]
        assert (fa.__qualname__, fa.__defaults__, fa.__globals__ is ns_a) == (
            fb.__qualname__,
            fb.__defaults__,
            fb.__globals__ is ns_b,
        )
        try:
            got = ("ok", fa(), ns_a.get("V_n"), ns_a.get("V_s"))
        except ValueError as e:
            got = ("raised", e.__traceback__.tb_next.tb_lineno, e.args)
        try:
            want = ("ok", fb(), ns_b.get("V_n"), ns_b.get("V_s"))
        except ValueError as e:
            want = ("raised", e.__traceback__.tb_next.tb_lineno, e.args)
        assert got == want


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",
        "def f():\n    pass\nprint(1)\n",
        "class A:\n    pass\n",
        "if True:\n    pass\n",
        "\tdef f(): pass\n",
    ],
)
def test_only_functions_at_the_top_level(source: str) -> None:
    with pytest.raises(ValueError, match="only functions"):
        module_code(source, "<awk>")


def test_a_first_awk_calls_no_compile() -> None:
    """A fresh process runs awk programs of every part (functions with array and scalar parameters,
    BEGIN/END/BEGINFILE/ENDFILE, a range, a fatal error located in the source) without compile()
    (imports of stale bytecode aside: those compile a module's file)."""
    code = (
        "import builtins, sys\n"
        "calls = []\n"
        "real = builtins.compile\n"
        "def spy(source, filename, *a, **k):\n"
        "    if not str(filename).endswith('.py'):\n"
        "        calls.append(filename)\n"
        "    return real(source, filename, *a, **k)\n"
        "builtins.compile = spy\n"
        "from sandbash import Bash\n"
        "b = Bash()\n"
        "b.exec(\"printf 'a b\\\\nc d\\\\n' > f\")\n"
        "r = b.exec('''awk 'function g(x, arr) { arr[1] = x; return length(arr) * x }\n"
        "BEGIN { n = 0 } BEGINFILE { n++ } ENDFILE { n++ } NR == 1, NR == 2 { print g(NF), $2 }\n"
        "END { print n; print 1 % $3 }' f''')\n"
        "print(r.stdout + r.stderr, end='')\n"
        "print(r.exit_code, calls)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == [
        "2 b",
        "2 d",
        "2",
        "awk: cmd. line:3: (FILENAME=f FNR=2) fatal: division by zero attempted in `%'",
        "2 []",
    ]
