"""node / js beyond what the spec table (tests/spec/cases/runtime_js.txt, checked against node)
can show: the sandbox's policy and files, the `js` name, the command line's own answers, the
missing-package message, refused modules, limits, and the worker process's protocol."""

from __future__ import annotations

from typing import Any

import pytest

from sandbash import Bash, ExecutionLimitError, Limits, Policy

pytest.importorskip("_quickjs")


def run(script: str, **kw: Any) -> tuple[str, str, int]:
    r = Bash(**kw).exec(script)
    return r.stdout, r.stderr, r.exit_code


def node(code: str, *args: str, name: str = "node", **kw: Any) -> tuple[str, str, int]:
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in (code, *args))
    return run(f"{name} -e {quoted}", **kw)


def test_js_is_node() -> None:
    assert node("console.log([1, 2].map((x) => x * 2), process.argv.length)", "a", name="js") == (
        "[ 2, 4 ] 2\n",
        "",
        0,
    )


@pytest.mark.parametrize(
    ("script", "status", "out", "err"),
    [
        ("node --version", 0, "v20.0.0\n", ""),
        ("node --no-such-flag", 9, "", "node: bad option: --no-such-flag\n"),
        ("node -e", 9, "", "node: -e requires an argument\n"),
        (
            "node -i",
            9,
            "",
            "node: interactive mode is not supported in sandbash (give a script, -e or stdin)\n",
        ),
        ("node --no-warnings -e 'console.log(1)'", 0, "1\n", ""),
    ],
)
def test_command_line(script: str, status: int, out: str, err: str) -> None:
    assert run(script) == (out, err, status)


def test_help_names_the_supported_modules() -> None:
    out, _, status = run("node --help")
    assert status == 0 and "QuickJS" in out and "child_process" in out


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sandbash.commands.runtimes.js_worker as jw

    monkeypatch.setattr(jw, "quickjs_dir", lambda: None)
    assert node("1") == ("", "node: runtime not installed (pip install 'sandbash[js]')\n", 127)


def test_refused_modules_say_what_is_available() -> None:
    _out, err, status = node("require('express')")
    assert status == 1
    assert "Cannot find module 'express'" in err and "child_process" in err


def test_uncaught_error_report() -> None:
    _out, err, status = run("printf 'let x = 1;\\nnull.f();\\n' > t.js; node t.js")
    assert status == 1
    assert err.startswith("/home/user/t.js:2\nnull.f();\n^\n\nTypeError:"), err
    assert err.endswith("\nNode.js v20.0.0\n")


def test_files_follow_the_policy() -> None:
    policy = Policy(paths=["/data:ro", "/tmp:rw", "/home/user:rw"])
    out, err, status = node(
        "const fs = require('fs'); console.log(fs.readFileSync('/data/a.txt', 'utf8').trim());"
        "try { fs.writeFileSync('/data/b.txt', 'x') } catch (e) { console.log(e.code, e.message) }"
        "try { fs.unlinkSync('/data/a.txt') } catch (e) { console.log(e.code) }",
        files={"/data/a.txt": "A\n"},
        policy=policy,
    )
    assert (out, status) == (
        "A\nEACCES EACCES: permission denied [policy: paths.read-only], open '/data/b.txt'\nEACCES\n",
        0,
    ), err


def test_exec_sync_runs_the_sandbox_shell_under_policy() -> None:
    policy = Policy(["node", "echo"], paths=["/home/user:rw", "/tmp:rw"])
    out, err, status = node(
        "const cp = require('child_process'); console.log(cp.execSync('echo ok', {encoding: 'utf8'}).trim());"
        "try { cp.execSync('cat /etc/passwd') } catch (e) { console.log('status', e.status) }",
        policy=policy,
    )
    assert (out, status) == ("ok\nstatus 126\n", 0), err


def test_exit_keeps_the_output_before_it() -> None:
    out, _, status = node(
        "console.log('a'); process.stdout.write('b'); (function f() { process.exit(7) })(); "
        "console.log('never')"
    )
    assert (out, status) == ("a\nb", 7)


def test_exit_inside_timer_and_try() -> None:
    out, _, status = node(
        "setTimeout(() => { try { process.exit(2) } catch (e) { console.log('caught') } }, 5)"
    )
    assert (out, status) == ("", 2)


def test_deadline_kills_the_worker() -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec("node -e 'console.log(\"started\"); for(;;){}'", limits=Limits(timeout=0.5))
    assert e.value.limit == "timeout"
    assert e.value.result is not None and e.value.result.stdout == "started\n"


def test_memory_cap_is_the_runs() -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(
            "node -e 'const a = []; for (;;) a.push(\"x\".repeat(1000) + a.length)'",
            limits=Limits(max_memory=32 << 20, timeout=30),
        )
    assert e.value.limit == "max_memory"


def test_binary_files_round_trip() -> None:
    bash = Bash(files={"/home/user/bin.dat": bytes(range(256))})
    r = bash.exec(
        'node -e \'const fs = require("fs"); const b = fs.readFileSync("bin.dat"); '
        'fs.writeFileSync("copy.dat", b); console.log(b.length, b[255])\' && cmp bin.dat copy.dat && echo same'
    )
    assert r.stdout == "256 255\nsame\n", r.stderr


def test_unicode_and_lone_surrogates() -> None:
    out, _, status = node(
        "console.log('h\\u00e9 \\u20ac \\ud83d\\ude00', '\\ud800'.length); process.stdout.write('\\ud800\\n')"
    )
    assert status == 0
    assert out == "hé € 😀 1\n\ufffd\n"


def test_stdin_program_and_pipeline() -> None:
    bash = Bash()
    r = bash.exec(
        'seq 5 | node -e \'const n = require("fs").readFileSync(0, "utf8").split("\\n")'
        ".filter(Boolean).map(Number); console.log(n.reduce((a, b) => a + b))'"
    )
    assert r.stdout == "15\n"
    r = bash.exec("echo 'console.log(\"prog\", process.argv.length)' | node - x")
    assert r.stdout == "prog 3\n"


def test_timeout_command_stops_node_with_124() -> None:
    out, _, _ = run("timeout 0.5 node -e 'while (true) { try { for (;;) {} } catch (e) {} }'; echo $?")
    assert out == "124\n"


def test_large_reads_are_charged_to_the_budget() -> None:
    files = {"/home/user/big.txt": b"abcdefgh\n" * 3_000_000}
    assert (
        Bash(files=files).exec('node -e \'console.log(require("fs").readFileSync("big.txt").length)\'').stdout
        == "27000000\n"
    )
    with pytest.raises(ExecutionLimitError) as e:
        Bash(files=files).exec(
            'node -e \'require("fs").readFileSync("big.txt")\'', limits=Limits(max_memory=64 << 20)
        )
    assert e.value.limit == "max_memory"


def test_stdin_line_events_stream() -> None:
    # an endless stdin under a small budget: lines are read as they come, not held whole
    script = (
        "yes 'héllo' | node -e 'const rl = require(\"readline\").createInterface({input: process.stdin}); "
        'let n = 0; rl.on("line", (l) => { if (l !== "héllo") process.exit(3); '
        "if (++n === 200000) { console.log(n); process.exit(0) } })'"
    )
    r = Bash().exec(script, limits=Limits(max_memory=32 << 20, timeout=60))
    assert (r.stdout, r.exit_code) == ("200000\n", 0), r.stderr


def test_stdin_data_events_decode_across_chunks() -> None:
    # a 3-byte character split by the 64 KiB chunk boundary arrives whole
    r = Bash().exec(
        "{ head -c 65535 /dev/zero | tr '\\0' a; printf '€b'; } | node -e 'let s = \"\"; "
        'process.stdin.setEncoding("utf8"); process.stdin.on("data", (c) => s += c); '
        'process.stdin.on("end", () => console.log(s.length, s.slice(-2)))\''
    )
    assert r.stdout == "65537 €b\n", r.stderr


def test_local_time_is_the_sandboxs_tz() -> None:
    out, _, _ = run(
        "node -e 'console.log(new Date(0).getHours())'; TZ=Asia/Tokyo node -e 'console.log(new Date(0).getHours())'"
    )
    assert out == "0\n9\n"


@pytest.mark.parametrize(
    ("status", "limit"), [(-6, "max_memory"), (-9, "max_memory"), (-11, "max_memory"), (-24, "timeout")]
)
def test_a_worker_killed_by_a_signal_is_a_named_limit(status: int, limit: str) -> None:
    from sandbash.commands.runtimes.js import _worker_died
    from sandbash.limits import LimitExceeded

    class _Ctx:
        limits = Limits()

        def error(self, msg: str) -> None:
            raise AssertionError(msg)

    with pytest.raises(LimitExceeded) as e:
        _worker_died(_Ctx(), status)  # type: ignore[arg-type]
    assert e.value.limit == limit
