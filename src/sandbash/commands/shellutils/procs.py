"""Commands that wait, loop or run other commands: yes sleep env printenv which
nohup nice stdbuf timeout time."""

from __future__ import annotations

import re
import time as _time
from collections.abc import Callable, Mapping

from ...posix.signals import NUMBERS
from ..context import CommandExit, CommandTimeout, Ctx, DiedOfSignal
from ..gnuquote import quoteaf
from ..options import CommandSpec, Opt
from ..record import Effects, WriteFailure, declare
from .common import (
    fail,
    identity,
    parse_duration,
    program_at,
    quote,
    run_program,
    usage_fail,
    wait,
)

# ------------------------------------------------------------ yes, sleep

YES = CommandSpec(
    "yes",
    "[STRING]...",
    "Repeatedly output a line with all specified STRING(s), or 'y'.",
    stop_at_operand=True,
)


@declare("yes", spec=YES, effects=Effects.NONE)
def cmd_yes(ctx: Ctx) -> int:
    _, operands = ctx.parse(YES)
    line = (" ".join(operands) if operands else "y").encode("utf-8", "surrogateescape") + b"\n"
    # one large write per round keeps the per-byte cost low; each write is a checkpoint
    block = line * max(1, 8192 // len(line))
    while True:
        ctx.checkpoint(len(block) // 64 + 1)
        ctx.stdout.write(block)


SLEEP = CommandSpec(
    "sleep",
    "NUMBER[SUFFIX]...",
    "Pause for NUMBER seconds.  SUFFIX may be 's' for seconds (the\n"
    "default), 'm' for minutes, 'h' for hours or 'd' for days.",
)


@declare("sleep", spec=SLEEP, effects=Effects.NONE)
def cmd_sleep(ctx: Ctx) -> int:
    _, operands = ctx.parse(SLEEP)
    if not operands:
        raise usage_fail(ctx, SLEEP, "missing operand")
    total = 0.0
    bad = False
    for arg in operands:
        value = parse_duration(arg)
        if value is None:
            ctx.error(f"invalid time interval {quote(arg)}")
            bad = True
        else:
            total += value
    if bad:
        raise _try(ctx, SLEEP)
    wait(ctx, total)
    return 0


def _try(ctx: Ctx, spec: CommandSpec) -> CommandExit:
    ctx.stderr.write(f"Try '{spec.name} --help' for more information.\n".encode())
    return CommandExit(spec.usage_status)


# ------------------------------------------------------------ env, printenv

ENV = CommandSpec(
    "env",
    "[OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]",
    "Set each NAME to VALUE in the environment and run COMMAND.",
    opts=(
        Opt("i", "ignore-environment", help="start with an empty environment"),
        Opt("0", "null", help="end each output line with NUL, not newline"),
        Opt(
            "u", "unset", "required", multi=True, metavar="NAME", help="remove variable from the environment"
        ),
        Opt("C", "chdir", "required", metavar="DIR", help="change working directory to DIR"),
        Opt(
            "S",
            "split-string",
            "required",
            multi=True,
            metavar="S",
            help="process and split S into separate arguments",
        ),
        Opt("v", "debug", help="print verbose information for each processing step"),
        Opt(None, "ignore-signal", "optional", multi=True, metavar="SIG"),
        Opt(None, "default-signal", "optional", multi=True, metavar="SIG"),
        Opt(None, "block-signal", "optional", multi=True, metavar="SIG"),
        Opt(None, "list-signal-handling"),
    ),
    stop_at_operand=True,
    usage_status=125,
)


def split_string(text: str, env: Mapping[str, str]) -> list[str]:
    """`env -S`: split on blanks with '' and "" quoting, backslash escapes and ${VAR}."""
    words: list[str] = []
    cur: list[str] = []
    have = False
    i, n = 0, len(text)
    quote_ch = ""
    while i < n:
        ch = text[i]
        i += 1
        if quote_ch == "'":
            if ch == "'":
                quote_ch = ""
            elif ch == "\\" and i < n and text[i] in "\\'":
                cur.append(text[i])
                i += 1
            else:
                cur.append(ch)
            continue
        if ch == "\\" and i < n:
            esc = text[i]
            i += 1
            if esc == "c":
                break
            if esc == "_":
                if quote_ch:
                    cur.append(" ")
                else:
                    if have:
                        words.append("".join(cur))
                    cur, have = [], False
                continue
            cur.append({"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}.get(esc, esc))
            have = True
            continue
        if ch == "$" and i < n and text[i] == "{":
            end = text.find("}", i)
            if end > 0:
                cur.append(env.get(text[i + 1 : end], ""))
                have = True
                i = end + 1
                continue
        if quote_ch == '"':
            if ch == '"':
                quote_ch = ""
            else:
                cur.append(ch)
            continue
        if ch in "'\"":
            quote_ch = ch
            have = True
        elif ch in " \t\n\v\f\r":
            if have:
                words.append("".join(cur))
            cur, have = [], False
        elif ch == "#" and not have:
            break
        else:
            cur.append(ch)
            have = True
    if quote_ch:
        raise ValueError("no terminating quote in -S string")
    if have:
        words.append("".join(cur))
    return words


@declare("env", spec=ENV, effects=Effects.ENV, write_failure=WriteFailure(status=125))
def cmd_env(ctx: Ctx) -> int:
    args = list(ctx.args)
    opts, operands = ctx.parse(ENV, args)
    # -v: GNU's devmsg lines on stderr, one per step, in the order env takes the steps
    debug: Callable[[str], object] | None = None
    if opts.has("debug"):
        debug = lambda text: ctx.stderr.write(text.encode("utf-8", "surrogateescape"))  # noqa: E731
    for s in opts.get("split_string") or []:
        try:
            words = split_string(s, ctx.env)
        except ValueError as e:
            raise fail(ctx, str(e), 125)
        if debug is not None:
            debug(f"split -S:  {quote(s)}\n")
            debug("".join(f"{' into:' if i == 0 else '     &'}    {quote(w)}\n" for i, w in enumerate(words)))
        operands = words + operands
    clear = opts.has("ignore_environment")
    env: dict[str, str] = {} if clear else dict(ctx.env)
    if operands and operands[0] == "-":
        clear = True
        env = {}
        operands = operands[1:]
    if clear and debug is not None:
        debug("cleaning environ\n")
    for name in [] if clear else opts.get("unset") or []:
        if not name or "=" in name:
            raise fail(ctx, f"cannot unset {quote(name)}: Invalid argument", 125)
        if debug is not None:
            debug(f"unset:    {name}\n")
        env.pop(name, None)
    while operands and "=" in operands[0]:
        if debug is not None:
            debug(f"setenv:   {operands[0]}\n")
        # putenv: `=x` is an entry of its own (printed, never a variable a shell imports)
        name, _, value = operands.pop(0).partition("=")
        env[name] = value
    chdir = opts.get("chdir")
    if not operands:
        if chdir is not None:
            raise usage_fail(ctx, ENV, "must specify command with --chdir (-C)")
        end = "\0" if opts.has("null") else "\n"
        ctx.out("".join(f"{k}={v}{end}" for k, v in env.items()))
        return 0
    if opts.has("null"):
        raise usage_fail(ctx, ENV, "cannot specify --null (-0) with command")
    if chdir is not None:
        if debug is not None:
            debug(f"chdir:    {quoteaf(chdir)}\n")
        if not ctx.fs.is_dir(chdir):
            refused = ctx.fs.stat_error(chdir)  # (a refused name says so, with its rule)
            why = refused.message if refused is not None else "Not a directory"
            raise fail(ctx, f"cannot change directory to '{chdir}': {why}", 125)
    if debug is not None:
        debug(f"executing: {operands[0]}\n")
        debug("".join(f"   arg[{i}]= {quote(a)}\n" for i, a in enumerate(operands)))
    return run_program(ctx, operands, env=env, cwd=chdir, shebang_hint=True)


PRINTENV = CommandSpec(
    "printenv",
    "[OPTION]... [VARIABLE]...",
    "Print the values of the specified environment VARIABLE(s).",
    opts=(Opt("0", "null", help="end each output line with NUL, not newline"),),
    stop_at_operand=True,  # (GNU's "+iu:0": `printenv HOME -0` names a variable `-0`)
    usage_status=2,
)


@declare("printenv", spec=PRINTENV, effects=Effects.NONE)
def cmd_printenv(ctx: Ctx) -> int:
    opts, operands = ctx.parse(PRINTENV)
    end = "\0" if opts.has("null") else "\n"
    if not operands:
        ctx.out("".join(f"{k}={v}{end}" for k, v in ctx.env.items()))
        return 0
    status = 0
    for name in operands:
        value = ctx.env.get(name) if "=" not in name else None
        if value is None:
            status = 1
        else:
            ctx.out(value + end)
    return status


# ------------------------------------------------------------ which


@declare("which", effects=Effects.NONE)
def cmd_which(ctx: Ctx) -> int:
    # Debian's which: only -a; anything else is an illegal option (status 2)
    every = False
    names: list[str] = []
    args = list(ctx.args)
    while args and args[0].startswith("-") and args[0] != "-":
        arg = args.pop(0)
        if arg == "--":
            break
        for ch in arg[1:]:
            if ch != "a":
                # its sh's getopts complains on stderr; the script's own usage line goes to stdout
                ctx.stderr.write(f"Illegal option -{ch}\n".encode())
                ctx.out("Usage: /usr/bin/which [-a] args\n")
                return 2
        every = True
    names = args
    if not names:
        return 1
    status = 0
    for name in names:
        found = _which(ctx, name, every)
        if not found:
            status = 1
        for path in found:
            ctx.out(path + "\n")
    return status


def _which(ctx: Ctx, name: str, every: bool) -> list[str]:
    """Debian's which: each PATH directory in turn (all with -a), an executable
    regular file there. /bin and /usr/bin list exactly the commands this sandbox
    offers (a command the policy or the network settings take away is absent),
    so `which` agrees with `ls /usr/bin`, `type` and `command -v`."""
    if "/" in name:
        return [name] if _executable_file(ctx, name) and program_at(ctx, name) else []
    found: list[str] = []
    search = ctx.env.get("PATH", "")
    for d in search.split(":") if search else ():
        path = (d or ".").rstrip("/") + "/" + name
        if path not in found and _executable_file(ctx, path) and program_at(ctx, path):
            found.append(path)
            if not every:
                break
    return found


def _executable_file(ctx: Ctx, path: str) -> bool:
    st = ctx.fs.try_stat(path)
    return st is not None and st.is_program


# ------------------------------------------------------------ nohup, nice

NOHUP = CommandSpec(
    "nohup",
    "COMMAND [ARG]...",
    "Run COMMAND, ignoring hangup signals.",
    stop_at_operand=True,
    usage_status=125,
)


@declare("nohup", spec=NOHUP, effects=Effects.NOHUP)
def cmd_nohup(ctx: Ctx) -> int:
    _, operands = ctx.parse(NOHUP)
    if not operands:
        raise usage_fail(ctx, NOHUP, "missing operand")
    stdin_tty = ctx.stdin.is_tty
    stdout = ctx.stdout
    notes: list[str] = []
    if stdin_tty:
        notes.append("ignoring input")
    if ctx.stdout.is_tty:
        target = "nohup.out"
        try:
            stdout = ctx.fs.open(target, "a")
        except OSError:
            home = ctx.env.get("HOME", "")
            target = home.rstrip("/") + "/nohup.out"
            try:
                stdout = ctx.fs.open(target, "a")
            except OSError:
                raise fail(ctx, "failed to open 'nohup.out': Permission denied", 125)
        notes.append(f"appending output to '{target}'")
    stderr = stdout if ctx.stderr.is_tty else ctx.stderr
    if ctx.stderr.is_tty and not ctx.stdout.is_tty:
        notes.append("redirecting stderr to stdout")
    if notes:
        ctx.error(" and ".join(notes))
    from ...stdio.streams import NullStream

    stdin = NullStream() if stdin_tty else None
    try:
        return run_program(
            ctx,
            operands,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            message="failed to run command {a}: {err}",
        )
    finally:
        if stdout is not ctx.stdout:
            stdout.close()


NICE = CommandSpec(
    "nice",
    "[OPTION] [COMMAND [ARG]...]",
    "Run COMMAND with an adjusted niceness, which affects process scheduling.",
    opts=(
        Opt("n", "adjustment", "required", metavar="N", help="add integer N to the niceness (default 10)"),
    ),
    stop_at_operand=True,
    usage_status=125,
)


def _legacy_nice(arg: str) -> bool:
    return (len(arg) > 1 and arg[0] == "-" and arg[1].isdigit()) or (
        len(arg) > 2 and arg[0] == "-" and arg[1] in "+-" and arg[2].isdigit()
    )


@declare("nice", spec=NICE, effects=Effects.NICE)
def cmd_nice(ctx: Ctx) -> int:
    args = list(ctx.args)
    adjustment: str | None = None
    # `nice -5 cmd` and `nice --5 cmd` are the historical spellings of -n
    while args and _legacy_nice(args[0]):
        adjustment = args.pop(0)[1:]
    opts, operands = ctx.parse(NICE, args)
    if opts.has("adjustment"):
        adjustment = opts["adjustment"]
    if adjustment is None and not operands:
        ctx.out("0\n")
        return 0
    if adjustment is not None:
        text = adjustment.strip()
        try:
            value = int(text[1:] if text.startswith("+") else text)
        except ValueError:
            raise fail(ctx, f"invalid adjustment {quote(adjustment)}", 125)
        if not operands:
            raise usage_fail(ctx, NICE, "a command must be given with an adjustment")
        if value < 0 and identity(ctx)["uid"] != 0:
            ctx.error("cannot set niceness: Permission denied")
    return run_program(ctx, operands)


# ------------------------------------------------------------ stdbuf

STDBUF = CommandSpec(
    "stdbuf",
    "OPTION... COMMAND",
    "Run COMMAND, with modified buffering operations for its standard streams.",
    opts=(
        Opt("i", "input", "required", metavar="MODE", help="adjust standard input stream buffering"),
        Opt("o", "output", "required", metavar="MODE", help="adjust standard output stream buffering"),
        Opt("e", "error", "required", metavar="MODE", help="adjust standard error stream buffering"),
    ),
    stop_at_operand=True,
    usage_status=125,
)

# a buffer size: digits, then one of GNU's size letters, 1024-based alone or with iB, 1000-based with B
_BUF_SIZE = re.compile(r"[ \t\n\v\f\r]*(\d+)(?:([kKMGTPEZY])(iB|B|D)?)?")
_SIZE_MAX = (1 << 64) - 1
_STDBUF_LIB = "/usr/libexec/coreutils/libstdbuf.so"


def _buffer_mode(ctx: Ctx, key: str, text: str) -> str:
    """The value stdbuf hands its child in _STDBUF_I/O/E: `L`, `0`, or the size in bytes."""
    if text == "L":
        if key == "input":
            raise usage_fail(ctx, STDBUF, "line buffering stdin is meaningless")
        return text
    m = _BUF_SIZE.fullmatch(text)
    if m is None:
        raise fail(ctx, f"invalid mode {quote(text)}", 125)
    size = int(m.group(1))
    if m.group(2):
        base = 1000 if m.group(3) in ("B", "D") else 1024
        size *= base ** ("kMGTPEZY".index(m.group(2).replace("K", "k")) + 1)
    if size > _SIZE_MAX:
        raise fail(ctx, f"invalid mode {quote(text)}: Value too large for defined data type", 125)
    # GNU passes a zero size as the text it was given, any other as its number of bytes
    return text if size == 0 else str(size)


@declare("stdbuf", spec=STDBUF, effects=Effects.STDBUF)
def cmd_stdbuf(ctx: Ctx) -> int:
    """There is no stdio buffer to change in-process: stdbuf checks its modes, sets the variables
    the real one leaves for its preloaded library, and runs the command."""
    opts, operands = ctx.parse(STDBUF)
    modes: dict[str, str] = {}
    for key, value in opts.order:
        modes[key] = _buffer_mode(ctx, key, str(value))
    if not operands:
        raise usage_fail(ctx, STDBUF, "missing operand")
    if not modes:
        raise usage_fail(ctx, STDBUF, "you must specify a buffering mode option")
    env = dict(ctx.env)
    preload = env.get("LD_PRELOAD")
    env["LD_PRELOAD"] = f"{preload}:{_STDBUF_LIB}" if preload else _STDBUF_LIB
    for key, value in modes.items():
        env["_STDBUF_" + key[0].upper()] = value
    return run_program(ctx, operands, env=env, message="failed to run command {q}: {err}")


# ------------------------------------------------------------ timeout

SIGNALS = NUMBERS
_SIGNAL_NAMES = {v: k for k, v in reversed(list(SIGNALS.items()))}


def parse_signal(text: str) -> int | None:
    if text.isdigit():
        num = int(text)
        return num if num <= 64 else None
    name = text.upper()
    name = name[3:] if name.startswith("SIG") else name
    return SIGNALS.get(name)


TIMEOUT = CommandSpec(
    "timeout",
    "[OPTION] DURATION COMMAND [ARG]...",
    "Start COMMAND, and kill it if still running after DURATION.",
    opts=(
        Opt(
            None,
            "preserve-status",
            help="exit with the same status as COMMAND, even when the command times out",
        ),
        Opt(None, "foreground", help="when not running timeout directly from a shell prompt"),
        Opt(
            "k",
            "kill-after",
            "required",
            metavar="DURATION",
            help="also send a KILL signal if COMMAND is still running",
        ),
        Opt("s", "signal", "required", metavar="SIGNAL", help="specify the signal to be sent on timeout"),
        Opt("v", "verbose", help="diagnose to stderr any signal sent upon timeout"),
    ),
    stop_at_operand=True,
    usage_status=125,
)


@declare("timeout", spec=TIMEOUT, effects=Effects.TIMEOUT)
def cmd_timeout(ctx: Ctx) -> int:
    opts, operands = ctx.parse(TIMEOUT)
    if len(operands) < 2:
        raise _try(ctx, TIMEOUT)
    sig = 15
    if opts.has("signal"):
        parsed = parse_signal(opts["signal"])
        if parsed is None:
            raise usage_fail(ctx, TIMEOUT, f"{quote(opts['signal'])}: invalid signal")
        sig = parsed
    for text in [operands[0]] + ([opts["kill_after"]] if opts.has("kill_after") else []):
        if parse_duration(text) is None:
            raise usage_fail(ctx, TIMEOUT, f"invalid time interval {quote(text)}")
    seconds = parse_duration(operands[0]) or 0.0
    # --foreground changes only which processes get the signal: nothing to do here
    try:
        # 0 (and inf) mean no time limit, as in GNU
        return run_program(
            ctx,
            operands[1:],
            message="failed to run command {q}: {err}",
            timeout=seconds if 0 < seconds < float("inf") else None,
        )
    except CommandTimeout:
        # an enclosing timeout (`timeout 1 timeout 9 cmd`) stops us too: let it
        # through (this raises) rather than report its expiry as ours
        ctx.budget.check_time()
    if opts.has("verbose"):
        ctx.error(f"sending signal {_SIGNAL_NAMES.get(sig, str(sig))} to command {quote(operands[1])}")
    # The command is stopped at the deadline whatever the signal, so -k never
    # has to follow up. GNU timeout sends the signal to its own process group too:
    # KILL ends timeout itself (128+9 even without --preserve-status, and the shell
    # reports the death)
    if sig == 9:
        raise DiedOfSignal(9)
    if opts.has("preserve_status"):
        return 128 + sig
    return 124


# ------------------------------------------------------------ time

TIME = CommandSpec(
    "time",
    "[OPTIONS] COMMAND [ARG]...",
    "Run COMMAND, then print system resource usage.",
    opts=(
        Opt("a", "append", help="(used together with -o) append instead of overwriting"),
        Opt("f", "format", "required", metavar="FORMAT", help="use FORMAT as the format string"),
        Opt("o", "output", "required", metavar="FILE", help="write to FILE instead of STDERR"),
        Opt("p", "portability", help="print POSIX standard 1003.2 conformant string"),
        Opt("q", "quiet", help="do not print information about abnormal program termination"),
        Opt("v", "verbose", help="print all resource usage information instead of the default format"),
    ),
    stop_at_operand=True,
    usage_status=125,
)
TIME_DEFAULT = (
    "%Uuser %Ssystem %Eelapsed %PCPU (%Xavgtext+%Davgdata %Mmaxresident)k\n"
    "%Iinputs+%Ooutputs (%Fmajor+%Rminor)pagefaults %Wswaps"
)
TIME_POSIX = "real %e\nuser %U\nsys %S"
TIME_VERBOSE = "\n".join(
    "\t" + line
    for line in (
        'Command being timed: "%C"',
        "User time (seconds): %U",
        "System time (seconds): %S",
        "Percent of CPU this job got: %P",
        "Elapsed (wall clock) time (h:mm:ss or m:ss): %E",
        "Average shared text size (kbytes): %X",
        "Average unshared data size (kbytes): %D",
        "Average stack size (kbytes): %p",
        "Average total size (kbytes): %K",
        "Maximum resident set size (kbytes): %M",
        "Average resident set size (kbytes): %t",
        "Major (requiring I/O) page faults: %F",
        "Minor (reclaiming a frame) page faults: %R",
        "Voluntary context switches: %w",
        "Involuntary context switches: %c",
        "Swaps: %W",
        "File system inputs: %I",
        "File system outputs: %O",
        "Socket messages sent: %s",
        "Socket messages received: %r",
        "Signals delivered: %k",
        "Page size (bytes): %Z",
        "Exit status: %x",
    )
)


_TIME_KEYS = frozenset("CDEFIKMOPRSUWXZcefhiklmnoprstuwx%")


def _time_report(fmt: str, argv: list[str], status: int, real: float, user: float) -> str:
    def elapsed() -> str:
        hours, rest = divmod(real, 3600)
        minutes, secs = divmod(rest, 60)
        if hours >= 1:
            return f"{int(hours)}:{int(minutes):02d}:{int(secs):02d}"
        return f"{int(minutes)}:{secs:05.2f}"

    values = {
        "e": f"{real:.2f}",
        "E": elapsed(),
        "U": f"{user:.2f}",
        "S": "0.00",
        "x": str(status),
        "C": " ".join(argv),
        "P": f"{int(100 * user / real)}%" if real > 0 else "?%",
        "Z": "4096",
        "%": "%",
    }
    out: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        i += 1
        if ch == "%" and i < len(fmt):
            key = fmt[i]
            i += 1
            out.append(values.get(key, "0") if key in _TIME_KEYS else "?" + key)
        elif ch == "\\" and i < len(fmt):
            key = fmt[i]
            i += 1
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(key, "?\\" + key))
        else:
            out.append(ch)
    return "".join(out) + "\n"


@declare("time", spec=TIME, effects=Effects.TIME)
def cmd_time(ctx: Ctx) -> int:
    opts, operands = ctx.parse(TIME)
    if not operands:
        raise usage_fail(ctx, TIME, "missing program to run")
    fmt = TIME_DEFAULT
    if opts.has("portability"):
        fmt = TIME_POSIX
    elif opts.has("verbose"):
        fmt = TIME_VERBOSE
    elif opts.has("format"):
        fmt = opts["format"]
    start, cpu = _time.monotonic(), _time.thread_time()
    status = run_program(ctx, operands, message="cannot run {n}: {err}")
    real, user = _time.monotonic() - start, _time.thread_time() - cpu
    report = _time_report(fmt, operands, status, real, user)
    if status != 0 and not opts.has("quiet") and not opts.has("portability"):
        report = f"Command exited with non-zero status {status}\n" + report
    data = report.encode("utf-8", "surrogateescape")
    if opts.has("output"):
        try:
            ctx.fs.write_bytes(opts["output"], data, append=opts.has("append"))
        except OSError as e:
            raise fail(ctx, f"couldn't write to {opts['output']}: {e.strerror}", 125)
    else:
        ctx.stderr.write(data)
    return status
