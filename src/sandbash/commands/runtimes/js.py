"""node / js: JavaScript in QuickJS, with the command line and the CommonJS world of node.

`node [options] [script.js | -e CODE | -p CODE | -] [args]`: -e/--eval, -p/--print, -v/--version,
-h/--help, `--`, `-` (stdin); no script and no -e reads the program from stdin. process.argv is
node's ([execPath, script, ...args]); an uncaught error prints `file:line`, the error and its
stack on stderr, status 1; process.exit(n) ends with n. What the program can use is listed in
js_prelude.py (console, process, Buffer, timers, require of fs/path/child_process/readline/util/
os/events/assert and local files); `import` syntax (ES modules) is not supported.

The engine runs in a worker process (js_worker.py: QuickJS's bindings cannot call back into Python
under a time limit); every file, stdin or shell request comes back here (js_host.py) and goes
through the sandbox's facade. Limits: the run's deadline and cancellation kill the worker; its
heap is capped at the memory budget left and charged to max_memory as it reports it; output is
the command's streams (max_output_size); the JS stack is capped (RangeError past it).
"""

from __future__ import annotations

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import Stream, StreamError
from ..context import Ctx
from ..record import Effects, declare
from .common import memory_left
from .js_host import JsExit, JsHost
from .js_prelude import PRELUDE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NODE_VERSION = "v20.0.0"  # what process.version and --version say (the API subset is node 20's)
EXEC_PATH = "/usr/bin/node"
STACK_BYTES = 1 << 20  # QuickJS's stack cap: deep recursion is a RangeError-like InternalError
# options node accepts that change nothing here
_IGNORED = (
    "--no-warnings",
    "--no-deprecation",
    "--trace-uncaught",
    "--enable-source-maps",
    "--use-strict",
    "--max-old-space-size=",
    "--stack-size=",
    "--input-type=commonjs",
    "--harmony",
)

HELP = """Usage: node [options] [ script.js | -e "script" | - ] [arguments]

sandbash runs node scripts in QuickJS: CommonJS scripts with console, process, Buffer, timers and
require of fs, path, child_process (execSync/spawnSync through the sandbox shell), readline, util,
os, events, assert and local files.

Options:
  -e, --eval script     evaluate script
  -p, --print script    evaluate script and print the result
  -v, --version         print the version
  -h, --help            print this help
  -                     read the script from stdin (the default when none is given)
"""


class _BadOption(Exception):
    pass


def _parse(args: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Options up to the script (or -e's code); returns the options and the rest."""
    opts: dict[str, Any] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-e", "--eval", "-p", "--print", "-pe"):
            if i + 1 >= len(args):
                raise _BadOption(f"{a} requires an argument")
            opts["code"] = args[i + 1]
            opts["print"] = a in ("-p", "--print", "-pe")
            i += 2
            continue
        if a.startswith(("--eval=", "--print=")):
            opts["code"] = a.split("=", 1)[1]
            opts["print"] = a.startswith("--print=")
        elif a in ("-v", "--version"):
            opts["version"] = True
        elif a in ("-h", "--help"):
            opts["help"] = True
        elif a in ("-i", "--interactive"):
            opts["interactive"] = True
        elif a == "--":
            return opts, args[i + 1 :]
        elif a == "-" or not a.startswith("-"):
            return opts, args[i:]
        elif not any(
            a == x or (x.endswith("=") and a.startswith(x)) or a.startswith("--harmony") for x in _IGNORED
        ):
            raise _BadOption(f"bad option: {a}")
        i += 1
    return opts, []


@declare(
    "node",
    "js",
    spells="node",
    effects=Effects.OPAQUE,
    summary="run a JavaScript program (node -e CODE, a file or stdin) in QuickJS inside the sandbox",
)
def cmd_node(ctx: Ctx) -> int:
    from .js_worker import quickjs_dir  # the worker module (and its process) only when a program runs

    try:
        opts, rest = _parse(list(ctx.args))
    except _BadOption as e:
        ctx.stderr.write(f"{ctx.name}: {e}\n".encode())
        return 9
    if opts.get("version"):
        ctx.out(NODE_VERSION + "\n")
        return 0
    if opts.get("help"):
        ctx.out(HELP)
        return 0
    if opts.get("interactive"):
        ctx.error("interactive mode is not supported in sandbash (give a script, -e or stdin)")
        return 9
    binding = quickjs_dir()
    if binding is None:
        ctx.error("runtime not installed (pip install 'sandbash[js]')")
        return 127
    program = _program(ctx, opts, rest)
    if program is None:
        return 1
    code, filename, argv = program
    setup = {
        "argv": argv,
        "env": dict(ctx.env),
        "filename": filename,
        "version": NODE_VERSION,
        "print": bool(opts.get("print")),
        "start": ctx.clock(),
    }
    return _run(ctx, binding, code, filename, setup)


def _program(ctx: Ctx, opts: dict[str, Any], rest: list[str]) -> tuple[str, str, list[str]] | None:
    """The source, the name errors give it, and process.argv."""
    if "code" in opts:
        return opts["code"], "[eval]", [EXEC_PATH, *rest]
    if not rest or rest[0] == "-":
        return _read_stdin(ctx), "[stdin]", [EXEC_PATH, *rest]
    path = ctx.fs.normpath(rest[0])
    from ...vfs.errors import FsError

    try:
        st = ctx.fs.stat(path)
        if st.is_dir:  # node loads DIR/index.js
            path = path.rstrip("/") + "/index.js"
            st = ctx.fs.stat(path)
        with ctx.hold_memory() as mem:
            mem.charge(st.size)
            data = ctx.fs.read_bytes(path)
    except FsError as e:
        # a name the policy refuses is named with the refusal and its rule (node's EACCES words)
        why = (
            f"Error: EACCES: {e.message[:1].lower()}{e.message[1:]}, open '{path}'\n  code: 'EACCES'"
            if e.rule
            else f"Error: Cannot find module '{path}'\n  code: 'MODULE_NOT_FOUND'"
        )
        ctx.stderr.write(f"{why}\n\nNode.js {NODE_VERSION}\n".encode("utf-8", "surrogateescape"))
        return None
    return data.decode("utf-8", "replace"), path, [EXEC_PATH, path, *rest[1:]]


def _read_stdin(ctx: Ctx) -> str:
    with ctx.hold_memory() as mem:
        parts: list[bytes] = []
        while True:
            chunk = ctx.stdin.read(65536)
            if not chunk:
                break
            mem.charge(len(chunk))
            parts.append(chunk)
        return b"".join(parts).decode("utf-8", "replace")


def _run(ctx: Ctx, binding: str, code: str, filename: str, setup: dict[str, Any]) -> int:
    from .js_worker import CHILD, WorkerGone, start

    streams = {1: ctx.stdout, 2: ctx.stderr}
    budget = ctx.budget
    with ctx.hold_memory() as mem, ctx.hold_memory() as inflight:
        host = JsHost(ctx, setup, inflight)
        worker = start(CHILD, [binding], {"prelude": PRELUDE})
        cap = memory_left(ctx)
        try:
            worker.send(
                {
                    "code": code,
                    "filename": filename,
                    "memory": cap,
                    "stack": STACK_BYTES,
                    "cpu": _cpu_seconds(ctx),
                    "tz": ctx.env.get("TZ") or "UTC",
                }
            )
            while True:
                try:
                    inflight.close()  # the last frame and its reply are gone
                    msg = worker.recv(budget.check_time, inflight.charge)
                except WorkerGone:
                    return _worker_died(ctx, worker.wait())
                _output(streams, msg.get("out", ()))
                mem.set(int(msg.get("mem", 0)))
                if "call" in msg:
                    try:
                        reply = host.answer(msg["call"], msg.get("args", []))
                    except JsExit as e:
                        return e.status
                    worker.send(reply)
                elif "done" in msg:
                    error = msg["done"].get("error")
                    if error is None:
                        return host.exit_code
                    if _out_of_memory(error):
                        raise LimitExceeded(LimitKind.MAX_MEMORY, ctx.limits.max_memory)
                    return _uncaught(ctx, code, filename, error)
        finally:
            worker.close()


def _worker_died(ctx: Ctx, status: int) -> int:
    """The worker ended without a word. At its heap cap QuickJS does not always throw: where an
    allocation cannot fail cleanly it aborts (SIGABRT) or crashes (SIGSEGV: seen with an array of
    strings growing past a 32 MB cap); SIGKILL is the kernel's OOM killer; SIGXCPU its CPU limit."""
    if status in (-6, -9, -11):
        raise LimitExceeded(LimitKind.MAX_MEMORY, ctx.limits.max_memory)
    if status == -24:
        raise LimitExceeded(LimitKind.TIMEOUT, ctx.limits.timeout)
    ctx.error(f"the JavaScript worker stopped unexpectedly (status {status})")
    return 1


def _cpu_seconds(ctx: Ctx) -> int:
    """The worker's CPU limit: what is left of the run's time and some slack (none without a
    deadline). sandbash kills it at the deadline; this ends it if sandbash itself is gone."""
    left = ctx.budget.remaining()
    return 0 if left == float("inf") else int(left) + 2


def _output(streams: dict[int, Stream], out: Any) -> None:
    for fd, text in out:
        try:
            streams.get(fd, streams[2]).write(_encode(text))
        except StreamError:  # a closed stdout (`>&-`): node drops the output and goes on
            pass


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: U+FFFD, as node writes it
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")


def _out_of_memory(error: dict[str, Any]) -> bool:
    """QuickJS at its heap cap throws "out of memory", or null when it cannot even build that error
    (by the time the error is seen the heap is unwound, so its size tells nothing; a script's own
    `throw null` is taken for the memory limit too)."""
    if "out of memory" in str(error.get("message", "")):
        return True
    if error.get("name") == "InternalError" and error.get("message") == "null":
        # the worker's own catch (js_child): the prelude's handler could not run, the heap was full
        return True
    return error.get("name") is None and error.get("text") == "Uncaught null"


def _uncaught(ctx: Ctx, code: str, filename: str, error: dict[str, Any]) -> int:
    """node's report of an uncaught exception: where, the line, the error and its stack."""
    line = int(error.get("line") or 0)
    lines = code.split("\n")
    head = ""
    if 0 < line <= len(lines):
        head = f"{filename}:{line}\n{lines[line - 1]}\n^\n\n"
    text = str(error.get("text") or f"{error.get('name')}: {error.get('message')}")
    ctx.stderr.write(_encode(f"{head}{text}\n\nNode.js {NODE_VERSION}\n"))
    return 1
