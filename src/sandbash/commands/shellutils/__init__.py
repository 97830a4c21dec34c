"""Shell utilities: seq, yes, sleep, env, identity and terminal queries, and
the commands that run other commands (nice, nohup, timeout, time)."""

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

__all__ = [
    "cmd_arch", "cmd_clear", "cmd_env", "cmd_getconf", "cmd_groups", "cmd_hostname", "cmd_id", "cmd_logname",
    "cmd_man", "cmd_mesg", "cmd_nice", "cmd_nohup", "cmd_nproc", "cmd_printenv", "cmd_seq", "cmd_sleep",
    "cmd_stty", "cmd_time", "cmd_timeout", "cmd_tput", "cmd_tty", "cmd_uname", "cmd_uptime", "cmd_users",
    "cmd_whatis", "cmd_which", "cmd_whoami", "cmd_yes", "parse_duration", "program_at", "run_program",
]
