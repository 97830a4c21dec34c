"""Shell utilities: seq, yes, sleep, env, identity and terminal queries, and
the commands that run other commands (nice, nohup, timeout, time).

Each command's module is imported when it is first named (the command index names the module, so
running `seq` imports seq.py alone: not procs.py and sysinfo.py as well); the names below are
reached through the package lazily, as PEP 562 allows."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .common import parse_duration, program_at, run_program
    from .procs import (
        cmd_env,
        cmd_nice,
        cmd_nohup,
        cmd_printenv,
        cmd_sleep,
        cmd_time,
        cmd_timeout,
        cmd_which,
        cmd_yes,
    )
    from .seq import cmd_seq
    from .sysinfo import (
        cmd_arch,
        cmd_clear,
        cmd_getconf,
        cmd_groups,
        cmd_hostname,
        cmd_id,
        cmd_logname,
        cmd_man,
        cmd_mesg,
        cmd_nproc,
        cmd_stty,
        cmd_tput,
        cmd_tty,
        cmd_uname,
        cmd_uptime,
        cmd_users,
        cmd_whatis,
        cmd_whoami,
    )

# each name and the module that holds it
_HOMES = {
    "cmd_arch": "sysinfo",
    "cmd_clear": "sysinfo",
    "cmd_env": "procs",
    "cmd_getconf": "sysinfo",
    "cmd_groups": "sysinfo",
    "cmd_hostname": "sysinfo",
    "cmd_id": "sysinfo",
    "cmd_logname": "sysinfo",
    "cmd_man": "sysinfo",
    "cmd_mesg": "sysinfo",
    "cmd_nice": "procs",
    "cmd_nohup": "procs",
    "cmd_nproc": "sysinfo",
    "cmd_printenv": "procs",
    "cmd_seq": "seq",
    "cmd_sleep": "procs",
    "cmd_stty": "sysinfo",
    "cmd_time": "procs",
    "cmd_timeout": "procs",
    "cmd_tput": "sysinfo",
    "cmd_tty": "sysinfo",
    "cmd_uname": "sysinfo",
    "cmd_uptime": "sysinfo",
    "cmd_users": "sysinfo",
    "cmd_whatis": "sysinfo",
    "cmd_which": "procs",
    "cmd_whoami": "sysinfo",
    "cmd_yes": "procs",
    "parse_duration": "common",
    "program_at": "common",
    "run_program": "common",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # (__import__ with a fromlist gives the submodule; the importlib package is not imported by a run)
    return getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)


__all__ = [
    "cmd_arch",
    "cmd_clear",
    "cmd_env",
    "cmd_getconf",
    "cmd_groups",
    "cmd_hostname",
    "cmd_id",
    "cmd_logname",
    "cmd_man",
    "cmd_mesg",
    "cmd_nice",
    "cmd_nohup",
    "cmd_nproc",
    "cmd_printenv",
    "cmd_seq",
    "cmd_sleep",
    "cmd_stty",
    "cmd_time",
    "cmd_timeout",
    "cmd_tput",
    "cmd_tty",
    "cmd_uname",
    "cmd_uptime",
    "cmd_users",
    "cmd_whatis",
    "cmd_which",
    "cmd_whoami",
    "cmd_yes",
    "parse_duration",
    "program_at",
    "run_program",
]
