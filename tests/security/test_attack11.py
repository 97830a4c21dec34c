"""A code-reading attacker's pass over surfaces earlier rounds left (sec-attack11): the audit log,
host mode, the runtimes, box mode and what sessions share.

- Audit: a script controls the names, arguments and paths an event carries. A byte that is not
  UTF-8 (`$'\\xff'`) reaches them as a lone surrogate, which json.dumps(ensure_ascii=False) wrote
  raw: a JsonLinesSink on a strict UTF-8 file (what `open("audit.jsonl", "a")` gives) raised, and
  the event never reached the log, so a refusal of `cat /etc/$'\\xff'` or a write to
  `/etc/$'\\xfe'` went unrecorded while the run went on. U+0085/U+2028/U+2029 split an event in
  two for readers that split lines as str.splitlines does. Events are now written with those
  characters as JSON escapes (audit.AuditEvent.to_json), read back unchanged by json.loads.
- Lua's deadline: the count hook runs between VM instructions, and a C library function runs none.
  A backtracking pattern (`string.find(("a"):rep(40), ("a*"):rep(12) .. "b")`), a quadratic one on
  a long text, a plain find of a long needle, `string.rep("", 2^53)`, `table.move({}, 1, 1e15, 2)`
  and a `__gc` finalizer (run by the collector with hooks off) never ended, and a long table's
  `table.sort` ran seconds past the deadline: the run's thread (the
  embedder's own, lupa runs in-process) was lost. runtimes/lua_guards.py bounds each C call and runs
  the costly rest where the hook sees it. Rows run in forked children (secharness).
"""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

from sandbash import Audit, Bash, Policy
from sandbash.audit import JsonLinesSink, LoggingSink
from sandbash.interp import evaluator as evaluator_module

ALLOW = Policy(["cat", "echo", "cp"], paths=["/tmp:rw"], mode="remediation", name="allow-list")


@pytest.fixture(params=[False, True], ids=["compiled", "walked"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", request.param)
    return bool(request.param)


# ------------------------------------------------------------ audit: every event reaches the log

# (script, the refused target each must record): names a script makes with bytes that are not
# UTF-8, or with the characters some readers take as line ends
HIDDEN_REFUSALS = [
    ("cat /etc/$'\\xff'", "/etc/\udcff"),
    ("echo hi > /etc/$'\\xfe'", "/etc/\udcfe"),
    ("cp /tmp/a /etc/$'\\x80x'", "/etc/\udc80x"),
    ("rm$'\\xff' /tmp/a", "rm\udcff"),
    ("cat $'/etc/\\u2028x'", "/etc/\u2028x"),
    ("cat $'/etc/\\u2029x'", "/etc/\u2029x"),
    ("cat $'/etc/\\u0085x'", "/etc/\x85x"),
    ("f=$'/etc/\\xc3'; cat \"$f\" < /dev/null", "/etc/\udcc3"),
]


def _text_log() -> tuple[io.TextIOWrapper, io.BytesIO]:
    """A strict UTF-8 text stream, as `open(path, "a")` gives an embedder."""
    raw = io.BytesIO()
    return io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True), raw


def _refusals(lines: list[str]) -> list[str]:
    return [
        str(d.get("target"))
        for d in map(json.loads, lines)
        if d["kind"] == "decision" and d["decision"] == "deny"
    ]


@pytest.mark.parametrize(("script", "target"), HIDDEN_REFUSALS)
def test_every_refusal_reaches_a_utf8_log(script: str, target: str, walker: bool) -> None:
    stream, raw = _text_log()
    bash = Bash(policy=ALLOW, audit=Audit(sinks=[JsonLinesSink(stream)], decisions="deny"))
    r = bash.exec("echo x > /tmp/a; " + script)
    assert r.exit_code != 0
    text = raw.getvalue().decode("utf-8")  # strict: the log stays valid UTF-8
    lines = text.split("\n")[:-1]
    assert target in _refusals(lines)
    # as many events in the log as in the run, and each one line for every way of splitting lines
    assert len(lines) == len(r.events)
    assert text.splitlines() == lines


@pytest.mark.parametrize(("script", "target"), HIDDEN_REFUSALS)
def test_every_refusal_reaches_a_binary_log_as_utf8(script: str, target: str) -> None:
    raw = io.BytesIO()
    bash = Bash(policy=ALLOW, audit=Audit(sinks=[JsonLinesSink(raw)], decisions="deny"))
    bash.exec(script)
    lines = raw.getvalue().decode("utf-8").split("\n")[:-1]
    assert target in _refusals(lines)


def test_every_command_reaches_the_log_with_its_arguments_as_given(walker: bool) -> None:
    stream, raw = _text_log()
    bash = Bash(audit=Audit(sinks=[JsonLinesSink(stream)]))
    r = bash.exec("echo $'\\xff' $'a\\u2028b' é")
    lines = raw.getvalue().decode("utf-8").splitlines()
    assert len(lines) == len(r.events)
    starts = [d for d in map(json.loads, lines) if d["kind"] == "command.start"]
    assert starts[0]["argv"] == ["echo", "\udcff", "a\u2028b", "é"]
    assert "é" in raw.getvalue().decode("utf-8")  # text that is safe stays readable, not escaped


def test_a_logging_sink_on_a_utf8_file_keeps_every_refusal(tmp_path: Any) -> None:
    log = logging.getLogger("sandbash.audit.attack11")
    log.propagate = False
    handler = logging.FileHandler(tmp_path / "audit.log", encoding="utf-8", errors="strict")
    log.addHandler(handler)
    try:
        bash = Bash(policy=ALLOW, audit=Audit(sinks=[LoggingSink(log)], decisions="deny"))
        bash.exec("cat /etc/$'\\xff'; echo hi > /etc/$'\\xfe'")
    finally:
        log.removeHandler(handler)
        handler.close()
    lines = (tmp_path / "audit.log").read_text("utf-8").splitlines()
    targets = [json.loads(line.split(" ", 2)[2]).get("target") for line in lines]
    assert "/etc/\udcff" in targets and "/etc/\udcfe" in targets


# ------------------------------------------------------------ lua: the deadline reaches library calls

LUA_HANGS = [
    ("lua-backtracking-find", "print(string.find(string.rep('a', 40), string.rep('a*', 12) .. 'b'))"),
    (
        "lua-backtracking-match-optional",
        "print(string.match(string.rep('a', 30), string.rep('a?', 30) .. string.rep('a', 30)))",
    ),
    ("lua-quadratic-gmatch", "for x in string.gmatch(string.rep('a', 1e5), 'a-b') do end"),
    ("lua-backtracking-gsub", "print(string.gsub(string.rep('a', 1e5), '.-.-x', ''))"),
    ("lua-lazy-find-method", "local s = ('ab'):rep(2e5) print(s:find('.-.-.-c'))"),
    (
        "lua-plain-find-long-needle",
        "print(string.find(string.rep('a', 1e6), string.rep('a', 3e5) .. 'b', 1, true))",
    ),
    (
        "lua-no-special-find-long-needle",
        "print(string.find(string.rep('a', 1e6), string.rep('a', 3e5) .. 'b'))",
    ),
    ("lua-table-move-empty", "print(table.move({}, 1, 1e15, 2))"),
    ("lua-table-move-other-table", "print(table.move({}, -2^40, 2^40, 1, {}))"),
    (
        "lua-pcall-around-backtracking",
        "while true do pcall(string.find, ('a'):rep(40), ('a*'):rep(12) .. 'b') end",
    ),
]
# end at once: every copy is empty (C looped 2^53 times to make it); finalizers never run (the
# collector runs them with hooks off, where no deadline reaches: a difference from lua, written down)
LUA_QUICK = [
    (
        "lua-rep-empty",
        "print(#string.rep('', 2^53), #string.rep('', 2^60, ''), ('').rep('', 2^50))",
        "0\t0\t\n",
    ),
    (
        "lua-busy-finalizer",
        "setmetatable({}, {__gc = function() while true do end end}) collectgarbage() print('after')",
        "after",
    ),
    (
        "lua-busy-finalizer-at-close",
        "setmetatable({}, {__gc = function() while true do end end}) print('end')",
        "end",
    ),
    (
        "lua-finalizer-set-late",
        "local mt = {__gc = true} setmetatable({}, mt) mt.__gc = function() while true do end end "
        "collectgarbage() print(mt.__gc ~= true)",
        "true",
    ),
]


def _lua(code: str) -> str:
    return "lua -e '" + code.replace("'", "'\\''") + "'"


# a table past 4 M elements (the C sort's own seconds), filled within the deadline
SORT = "local t = {} for i = 1, 4.5e6 do t[i] = (i * 7919) % 4500007 end print('filled') table.sort(t) print('sorted')"

LUA_ROWS = (
    [param(i, _lua(code), timeout=2.0, expect=("timeout",)) for i, code in LUA_HANGS]
    + [
        param(
            "lua-sort-long-table",
            _lua(SORT),
            timeout=3.0,
            expect=("timeout",),
            overrides={"max_memory": 256 << 20},
        )
    ]
    + [param(i, _lua(code), timeout=5.0, expect=("result",), contains=out) for i, code, out in LUA_QUICK]
)


@pytest.fixture(scope="module")
def lua_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_lua_library_calls_end_at_the_deadline")


@pytest.mark.parametrize("case", LUA_ROWS)
def test_lua_library_calls_end_at_the_deadline(
    case: dict[str, Any], lua_outcomes: dict[str, Outcome]
) -> None:
    pytest.importorskip("lupa")
    verify(case, lua_outcomes[case["id"]])


def _lua_programs() -> list[tuple[str, str]]:
    """The Lua programs of the spec table sec_attack11_lua_guards (recorded from lua5.4)."""
    from pathlib import Path

    text = (Path(__file__).parent.parent / "spec/cases/sec_attack11_lua_guards.txt").read_text()
    out = []
    for block in text.split("#### ")[1:]:
        name, _, rest = block.partition("\n")
        out.append((name, rest.split("<<'L'\n", 1)[1].split("\nL\n", 1)[0]))
    return out


@pytest.mark.parametrize(("name", "program"), _lua_programs())
def test_lua_paths_under_the_hook_give_what_c_gives(
    name: str, program: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every bounded call forced through its Lua side (the matcher port, the hooked sort) gives the
    output the C side gives (the spec table holds that one against lua5.4)."""
    pytest.importorskip("lupa")
    from sandbash.commands.runtimes import lua as lua_command

    def run() -> tuple[bytes, int]:
        r = Bash().exec("cat > p.lua; lua p.lua", stdin=program)
        return r.stdout_bytes, r.exit_code

    direct = run()
    guards = lua_command.GUARDS
    for old, new in (
        (b"local COSTLY = 1e9", b"local COSTLY = -1"),
        (b"local SORT_DIRECT = 1 << 22", b"local SORT_DIRECT = 0"),
    ):
        assert old in guards
        guards = guards.replace(old, new)
    monkeypatch.setattr(lua_command, "GUARDS", guards)
    assert run() == direct
