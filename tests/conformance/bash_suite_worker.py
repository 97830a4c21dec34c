"""Run one script of bash's test suite in sandbash (a child of bash_suite.py).

Reads a JSON request on stdin ({workdir, script, stdin_script, env, timeout}) and prints a JSON answer
({output, status, error}). The script's directory and $HOME beside it are mounted copy-on-write at their own
absolute paths, so paths it prints are the ones bash prints; everything else is the sandbox's memory filesystem.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

from sandbash import Bash, ExecutionCancelled, ExecutionLimitError, Limits
from sandbash.vfs import MemoryFs, MountFs, OverlayFs


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    workdir: str = request["workdir"]
    # the default profile's memory bounds, with budgets for long scripts (func.tests recurses 201
    # deep without FUNCNEST); output capped as for bash
    limits = Limits().with_overrides(
        timeout=float(request["timeout"]),
        max_command_count=10**8,
        max_call_depth=1000,
        max_loop_iterations=10**8,
        max_work=10**11,
        max_output_size=int(request["max_output"]),
    )
    root = MemoryFs()
    root.mkdir("/tmp", 0o1777, 0, 0)  # as on the host: scripts make their own directories in $TMPDIR
    root.mkdir("/etc", 0o755, 0, 0)  # (empty) as on the host: dstack.tests and test.tests cd and test -d it
    fs = MountFs(root)
    # the script's directory and its siblings ($HOME, $BASH_TSTOUT), as bash sees them
    fs.mount(os.path.dirname(workdir), OverlayFs(os.path.dirname(workdir)))
    bash = Bash(fs=fs, cwd=workdir, env=request["env"], limits=limits)
    chunks: list[bytes] = []
    with open(f"{workdir}/{request['script']}", "rb") as f:  # the harness's own copy on the host
        text = f.read().decode("utf-8", "surrogateescape")
    status: int | None = None
    error = ""
    try:
        if request["stdin_script"]:
            result = bash.exec(
                text,
                mode="s",
                env=request["env"],
                replace_env=True,
                on_stdout=chunks.append,
                on_stderr=chunks.append,
                keep_output=False,
            )
        else:
            result = bash.exec(
                text,
                mode="file",
                arg0="./" + request["script"],
                env=request["env"],
                replace_env=True,
                on_stdout=chunks.append,
                on_stderr=chunks.append,
                keep_output=False,
            )
        status = result.exit_code
    except ExecutionLimitError as e:
        status, error = e.result.exit_code, f"limit: {e.message}"
    except ExecutionCancelled:
        error = "cancelled"
    except Exception:  # a bug in sandbash: reported, not hidden
        error = "exception: " + traceback.format_exc()[-3000:]
    output = b"".join(chunks).decode("utf-8", "surrogateescape")
    sys.stdout.write(json.dumps({"output": output, "status": status, "error": error}))


if __name__ == "__main__":
    main()
