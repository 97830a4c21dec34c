"""`sandbash -c SCRIPT [NAME [ARGS...]]`, `sandbash FILE [ARGS...]`, `sandbash -s [ARGS...]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .api import Bash
from .errors import ExecutionCancelled, ExecutionLimitError
from .limits import Limits


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sandbash",
        description="Run bash scripts in a sandbox: a bash interpreter in Python over a virtual filesystem.",
    )
    p.add_argument("-c", dest="command", metavar="SCRIPT", help="run SCRIPT ($0 and $1... follow)")
    p.add_argument("-s", dest="stdin_script", action="store_true", help="read the script from standard input")
    p.add_argument("--limits", default="default", help="limits profile: default, hardened, generous")
    p.add_argument("--timeout", type=float, help="wall-clock limit in seconds")
    p.add_argument("--cwd", default="/home/user", help="working directory inside the sandbox")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="script file and/or arguments")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    limits = Limits.profile(args.limits)
    if args.timeout is not None:
        limits = limits.with_overrides(timeout=args.timeout)
    rest = list(args.rest)
    out = sys.stdout.buffer
    err = sys.stderr.buffer

    def write_out(data: bytes) -> None:
        out.write(data)
        out.flush()

    def write_err(data: bytes) -> None:
        err.write(data)
        err.flush()

    bash = Bash(limits=limits, cwd=args.cwd)
    mode = "c"
    arg0 = "bash"
    stdin: bytes = b""
    if args.command is not None:
        script = args.command
        if rest:
            arg0, rest = rest[0], rest[1:]
    elif args.stdin_script or not rest:
        script = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
        mode = "s"
    else:
        path = rest[0]
        try:
            with open(path, "rb") as f:  # the script file is the one host read the user asked for
                script = f.read().decode("utf-8", "surrogateescape")
        except OSError as e:
            err.write(f"sandbash: {path}: {e.strerror}\n".encode())
            return 127
        arg0, rest = path, rest[1:]
        mode = "file"
    try:
        result = bash.exec(script, stdin=stdin, on_stdout=write_out, on_stderr=write_err, keep_output=False,
                           mode=mode, arg0=arg0, positional=rest)
    except ExecutionLimitError as e:
        write_err(f"bash: {e.message}\n".encode())
        return e.result.exit_code
    except ExecutionCancelled:
        return 130
    return result.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
