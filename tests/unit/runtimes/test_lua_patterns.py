"""Lua's pattern functions under the guards (runtimes/lua_guards.py) against the real lua5.4.

The guards send a pattern call to lua's C matcher when its work is provably small and otherwise run
their own matcher, written in Lua from the reference manual, under the count hook. Seeded generated
patterns and subjects (captures, position captures, back-references, %b, %f, anchors, sets, every
class, every repetition, and the error cases: malformed patterns, unfinished captures, too many
captures, invalid capture indexes, bad replacement strings and values) go through string.find,
match, gmatch and gsub, once with every call forced through the Lua matcher and once as shipped,
and the bytes printed must be lua5.4's. Skipped where lua5.4 is not installed (CI installs it).
"""

from __future__ import annotations

import random
import shutil

import pytest

import oracle
from sandbash import Bash

lupa = pytest.importorskip("lupa.lua54")

SEED = 20261204
CASES = 3000

# ------------------------------------------------------------ the generated program

# bytes the subjects are made of: letters, digits and punctuation the patterns name, blanks, NUL
# and bytes past ASCII (the C locale's classes take none of them)
SUBJECT_BYTES = b"aaabbbcxyzAZ019  \t\n_().-%[]'\"\x00\x80\xff"
LITERALS = "abcxyzAZ09 _'.-"
CLASSES = [f"%{c}" for c in "acdglpsuwxz"] + [f"%{c}" for c in "ACDGLPSUWXZ"] + ["%.", "%%", "%q", "%]", "."]


def lua_string(data: bytes) -> str:
    """A Lua string literal holding `data` exactly."""
    out = []
    for b in data:
        ch = chr(b)
        if ch.isalnum() or ch in " _().-%[]^$*+?'#,;:=<>/|~!@&{}":
            out.append(ch)
        else:
            out.append(f"\\{b:03d}")
    return '"' + "".join(out) + '"'


def _set(rng: random.Random) -> str:
    members = []
    if rng.random() < 0.15:
        members.append("]")
    for _ in range(rng.randint(1, 3)):
        pick = rng.random()
        if pick < 0.35:
            members.append(rng.choice(LITERALS.replace("]", "")))
        elif pick < 0.6:
            a, b = sorted(rng.sample("abcxyz0189AZ", 2)) if rng.random() < 0.8 else rng.sample("az", 2)
            members.append(f"{a}-{b}")
        else:
            members.append(rng.choice(CLASSES[:-1]))
    if rng.random() < 0.1:
        members.append("-")
    return "[" + ("^" if rng.random() < 0.3 else "") + "".join(members) + "]"


def _single(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.4:
        return rng.choice(LITERALS)
    if pick < 0.75:
        return rng.choice(CLASSES)
    return _set(rng)


def _atoms(rng: random.Random, budget: list[int], depth: int) -> str:
    """A run of items; `budget[0]` repetitions may still be used (each multiplies the work)."""
    out = []
    for _ in range(rng.randint(1, 4)):
        pick = rng.random()
        if pick < 0.55:
            item = _single(rng)
            if budget[0] > 0 and rng.random() < 0.45:
                budget[0] -= 1
                item += rng.choice("*+-?")
            out.append(item)
        elif pick < 0.7 and depth < 2:
            out.append("(" + _atoms(rng, budget, depth + 1) + ")")
        elif pick < 0.76:
            out.append("()")
        elif pick < 0.83:
            out.append(f"%{rng.choice('1123')}")
        elif pick < 0.9:
            out.append("%b" + rng.choice(["()", "''", "ab", "[]", "xx"]))
        else:
            out.append("%f" + rng.choice(["[%w]", "[%W]", "[%s]", "[^a]", "[%z]", "[a-c]"]))
    return "".join(out)


# what breaks a pattern, spliced in at a random place or at its end
BREAKS = ["%", "[ab", "[%", "[^", "[]", "%b", "%b(", "%fa", "%f", ")", "(", "%0", "%9", "(()", "[a-"]


def pattern(rng: random.Random) -> str:
    p = _atoms(rng, [3], 0)
    if rng.random() < 0.15:
        at = rng.randint(0, len(p))
        p = p[:at] + rng.choice(BREAKS) + p[at:]
    if rng.random() < 0.2:
        p = "^" + p
    if rng.random() < 0.15:
        p += "$"
    return p


def subject(rng: random.Random, pat: str) -> bytes:
    n = rng.choice([0, 1, 2, 3, 5, 8, 12, 20])
    s = bytes(rng.choice(SUBJECT_BYTES) for _ in range(n))
    if rng.random() < 0.3:  # some of the pattern's own bytes, so that more of it matches
        lits = [c for c in pat.encode() if c not in b"%[]^$*+?-()"] or [97]
        s += bytes(rng.choice(lits) for _ in range(rng.randint(1, 6)))
    return s


def replacement(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.55:
        text = "".join(rng.choice(["x", "%0", "%1", "%2", "%%", "-", "%3"]) for _ in range(rng.randint(0, 3)))
        if rng.random() < 0.08:
            text += rng.choice(["%", "%a", "%9"])
        return lua_string(text.encode())
    if pick < 0.65:
        return rng.choice(["7", "2.5"])
    if pick < 0.8:
        return "T"
    return rng.choice(["F", "G", "H"])


def init(rng: random.Random) -> str:
    return rng.choice(["nil", "1", "2", "-1", "-3", "0", "5", "30", "-30"])


def case(rng: random.Random) -> str:
    pat = pattern(rng)
    p, s = lua_string(pat.encode()), lua_string(subject(rng, pat))
    kind = rng.random()
    if kind < 0.25:
        plain = rng.choice(["", "", "", ", true", ", false"])
        return f"show(pcall(string.find, {s}, {p}, {init(rng)}{plain}))"
    if kind < 0.4:
        return f"show(pcall(string.match, {s}, {p}, {init(rng)}))"
    if kind < 0.55:
        return f"show(pcall(all, {s}, {p}, {init(rng)}))"
    if kind < 0.85:
        limit = rng.choice(["", "", ", 1", ", 2", ", 0", ", -1"])
        return f"show(pcall(string.gsub, {s}, {p}, {replacement(rng)}{limit}))"
    # from a Lua function, as methods: the error's position and the function's name
    call = rng.choice([f"({s}):find({p})", f"({s}):match({p}, 2)", f"({s}):gsub({p}, {replacement(rng)})"])
    return f"show(pcall(function() local a, b, c = {call} return a, b, c end))"


PRELUDE = r"""
local function show(...)
  local out = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if type(v) == "string" then  -- (bytes past ASCII and controls as \ddd: one line per call)
      local t = {}
      for j = 1, #v do
        local b = v:byte(j)
        t[j] = (b < 32 or b > 126 or b == 92) and "\\" .. b or string.char(b)
      end
      v = '"' .. table.concat(t) .. '"'
    end
    out[i] = tostring(v)
  end
  io.write(table.concat(out, "\t"), "\n")
end
local function all(s, p, i)
  local out = {}
  for a, b in string.gmatch(s, p, i) do
    out[#out + 1] = tostring(a) .. "," .. tostring(b)
    if #out > 40 then break end
  end
  return table.concat(out, "|")
end
local T = {a = "A", b = false, x = 7, ["0"] = 2.5, [1] = "one", [2] = true, [3] = {}, ["("] = "paren"}
setmetatable(T, {__index = function(_, k) if k == "z" then return "zed" end end})
local function F(...) return select("#", ...) .. ":" .. table.concat({...}, ",") end
local n = 0
local function G(a) n = n + 1 if n % 3 == 0 then return nil elseif n % 3 == 1 then return false end return a .. a end
local function H(a) if a == "c" or a == 2 then return {} end return 1.5 end
-- a gsub inside a coroutine whose function or __index yields: lua's callbacks cannot yield
local function yielding(s, p, r) return coroutine.wrap(function() return string.gsub(s, p, r) end)() end
local Y = function(a) coroutine.yield(a) return "Y" end
local TY = setmetatable({}, {__index = function(_, k) coroutine.yield(k) return "Y" end})
"""

# errors the generator may not reach by chance: more than 32 captures, more than 200 nested choices
FIXED = [
    'show(pcall(string.find, ("a"):rep(40), ("(a)"):rep(33)))',
    'show(pcall(string.find, ("a"):rep(40), ("(a)"):rep(32)))',
    'show(pcall(string.find, ("a"):rep(40), ("()"):rep(33)))',
    'show(pcall(string.find, ("a"):rep(210), ("a?"):rep(210)))',
    'show(pcall(string.find, ("a"):rep(199), ("a?"):rep(199)))',
    'show(pcall(string.find, ("a"):rep(200), ("a?"):rep(200)))',
    'show(pcall(string.match, ("a"):rep(120), ("(a-)"):rep(30)))',
    'show(pcall(string.find, "b", ("x*"):rep(198) .. "b"))',
    'show(pcall(string.find, "b", ("x*"):rep(199) .. "b"))',
    'show(pcall(string.gsub, "abc", "(", "%1"))',
    'show(pcall(string.gsub, "abc", "(", "x"))',
    'show(pcall(string.find, "b", "a%"))',
    'show(pcall(string.find, "ab", "b["))',
    'show(pcall(string.gmatch("a^b", "^.")))',
    'show(pcall(all, "THE (quick) fox", "%f[%a]%a+"))',
    'show(pcall(all, "x = [[a]] y = [b]", "%b[]"))',
    'show(pcall(string.gsub, "hello world", "%w+", "%0 %0", 1))',
    'show(pcall(string.gsub, "abc", "%w", "%1"))',
    'show(pcall(string.gsub, "abc", "", "-"))',
    'show(pcall(string.find, "a\\0b", "%z"))',
    'show(pcall(string.find, "a\\0b", "[%z]", 1))',
    'show(pcall(string.find, "a.b", ".", 1, true))',
    'show(pcall(string.find, "abc", "", 10))',
    'show(pcall(string.find, "abc", "", 4))',
    'show(pcall(yielding, "abab", "(a)", Y))',
    'show(pcall(yielding, "abab", "b", TY))',
    'show(pcall(yielding, "abab", "x", Y))',
]


def calls(seed: int = SEED, n: int = CASES) -> list[str]:
    """The program's calls, one printed line each."""
    rng = random.Random(seed)
    return [*FIXED, *(case(rng) for _ in range(n))]


def program(lines: list[str]) -> str:
    return PRELUDE + "\n".join(lines) + "\n"


# ------------------------------------------------------------ the runs


def forced(guards: bytes) -> bytes:
    """The guards with every pattern call sent to the Lua matcher."""
    old = b"local COSTLY = 1e9"
    assert old in guards
    return guards.replace(old, b"local COSTLY = -1")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, bytes]:
    """The program and what lua5.4 prints for it."""
    lua = shutil.which("lua5.4")
    if lua is None:
        pytest.skip("lua5.4 is not installed")
    text = program(calls())
    d = tmp_path_factory.mktemp("luapat")
    (d / "p.lua").write_text(text)
    p = oracle.run([lua, "p.lua"], cwd=d, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return text, p.stdout


@pytest.mark.parametrize("side", ["lua", "as-shipped"])
def test_generated_patterns_print_what_lua_prints(
    side: str, source: tuple[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sandbash.commands.runtimes import lua as lua_command

    if side == "lua":
        monkeypatch.setattr(lua_command, "GUARDS", forced(lua_command.GUARDS))
    text, want = source
    r = Bash().exec("cat > p.lua; lua p.lua", stdin=text)
    assert r.exit_code == 0, r.stderr
    got = r.stdout_bytes
    if got != want:
        diffs = [
            f"{call}\n  lua5.4: {a!r}\n  ours:   {b!r}"
            for call, a, b in zip(calls(), want.split(b"\n"), got.split(b"\n"), strict=False)
            if a != b
        ]
        pytest.fail(f"{len(diffs)} cases differ; the first:\n" + "\n".join(diffs[:8]))


# every error lua5.4 raises for a pattern or a replacement: the program must have made lua raise each
ERRORS = [
    b"malformed pattern (ends with '%')",
    b"malformed pattern (missing ']')",
    b"malformed pattern (missing arguments to '%b')",
    b"missing '[' after '%f' in pattern",
    b"invalid pattern capture",
    b"unfinished capture",
    b"too many captures",
    b"pattern too complex",
    b"invalid capture index %0",
    b"invalid capture index %2",
    b"invalid capture index %9",
    b"invalid use of '%' in replacement string",
    b"invalid replacement value (a table)",
    b"attempt to yield across a C-call boundary",
    b"p.lua:",  # an error raised from a line of the program
]


@pytest.mark.parametrize("message", ERRORS, ids=[m.decode() for m in ERRORS])
def test_lua_raised_every_error_for_the_program(message: bytes, source: tuple[str, bytes]) -> None:
    assert message in source[1]
