"""Host-mode commands (sandbash.host): ps, ss, ip, free, systemctl, sudo, ping, and the host's
uptime and df. They exist only in a Bash with a HostAccess, read the kernel's interfaces through
host/procfs.py (never a host program), and are decided by the policy like every command."""

from .control import cmd_sudo, cmd_systemctl
from .ip import cmd_ip
from .ping import cmd_ping
from .ps import cmd_ps
from .ss import cmd_ss
from .sysinfo import cmd_free, host_df, host_uptime

__all__ = [
    "cmd_free",
    "cmd_ip",
    "cmd_ping",
    "cmd_ps",
    "cmd_ss",
    "cmd_sudo",
    "cmd_systemctl",
    "host_df",
    "host_uptime",
]
