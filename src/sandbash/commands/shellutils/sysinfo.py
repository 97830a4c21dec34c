"""Commands that describe the (virtual) system: whoami id groups hostname uname
nproc tty clear logname users arch uptime stty tput getconf mesg whatis man.

Every answer comes from `identity(ctx)`: the host is never consulted."""

from __future__ import annotations

import datetime as _dt

from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .common import accounts, fail, identity, quote, usage_fail


def _no_operands(ctx: Ctx, spec: CommandSpec) -> None:
    _, operands = ctx.parse(spec)
    if operands:
        raise usage_fail(ctx, spec, f"extra operand {quote(operands[0])}")


WHOAMI = CommandSpec(
    "whoami", "[OPTION]...", "Print the user name associated with the current effective user ID."
)
LOGNAME = CommandSpec("logname", "[OPTION]", "Print the user's login name.")
USERS = CommandSpec("users", "[OPTION]... [FILE]", "Output who is currently logged in.")
ARCH = CommandSpec("arch", "[OPTION]...", "Print machine architecture.")


@declare("whoami", spec=WHOAMI, effects=Effects.NONE)
def cmd_whoami(ctx: Ctx) -> int:
    _no_operands(ctx, WHOAMI)
    ctx.out(f"{identity(ctx)['user']}\n")
    return 0


# logname and users read the login records, as who and pinky do (below): the sandbox has no terminal
# session, so nobody is logged in, the state of a container where real bash runs scripts. The process
# still has its user (whoami, id, groups, $USER answer from the identity).


@declare("logname", spec=LOGNAME, effects=Effects.NONE)
def cmd_logname(ctx: Ctx) -> int:
    _no_operands(ctx, LOGNAME)
    raise fail(ctx, "no login name")


@declare("users", spec=USERS, effects=Effects.NONE)
def cmd_users(ctx: Ctx) -> int:
    _, operands = ctx.parse(USERS)
    if len(operands) > 1:
        raise usage_fail(ctx, USERS, f"extra operand {quote(operands[1])}")
    # GNU prints nothing over an empty utmp, and a FILE it cannot read counts as empty
    return 0


@declare("arch", spec=ARCH, effects=Effects.NONE)
def cmd_arch(ctx: Ctx) -> int:
    _no_operands(ctx, ARCH)
    ctx.out(f"{identity(ctx)['machine']}\n")
    return 0


# ------------------------------------------------------------ id, groups

ID = CommandSpec(
    "id",
    "[OPTION]... [USER]...",
    "Print user and group information for each specified USER,\nor (when USER omitted) for the current process.",
    opts=(
        Opt("a", None),
        Opt("Z", "context", help="print only the security context of the process"),
        Opt("g", "group", help="print only the effective group ID"),
        Opt("G", "groups", help="print all group IDs"),
        Opt("n", "name", help="print a name instead a number, for -ugG"),
        Opt("r", "real", help="print the real ID instead of the effective ID, with -ugG"),
        Opt("u", "user", help="print only the effective user ID"),
        Opt("z", "zero", help="delimit entries with NUL characters, not whitespace"),
    ),
)


def _account(ctx: Ctx, name: str | None) -> tuple[str, int, int, list[tuple[int, str]]] | None:
    table = accounts(ctx)
    if name is None:
        ident = identity(ctx)
        name = str(ident["user"])
    if name in table:
        uid, gid, groups = table[name]
        return name, uid, gid, groups
    if name.isdigit():  # a numeric user id
        for user, (uid, gid, groups) in table.items():
            if uid == int(name):
                return user, uid, gid, groups
    return None


@declare("id", spec=ID, effects=Effects.NONE)
def cmd_id(ctx: Ctx) -> int:
    opts, operands = ctx.parse(ID)
    chosen = [k for k in ("user", "group", "groups") if opts.has(k)]
    if opts.has("context"):
        raise fail(ctx, "--context (-Z) works only on an SELinux-enabled kernel")
    if len(chosen) > 1:
        raise fail(ctx, 'cannot print "only" of more than one choice')
    if not chosen and (opts.has("name") or opts.has("real")):
        raise fail(ctx, "cannot print only names or real IDs in default format")
    if not chosen and opts.has("zero"):
        raise fail(ctx, "option --zero not permitted in default format")
    status = 0
    names: list[str | None] = [*operands] or [None]
    for name in names:
        acct = _account(ctx, name)
        if acct is None:
            ctx.error(f"{quote(name or '')}: no such user")
            status = 1
            continue
        user, uid, gid, groups = acct
        group_names = dict(groups)
        group = group_names.get(gid, str(gid))
        end = "\0" if opts.has("zero") else "\n"
        if not chosen:
            listing = ",".join(f"{g}({n})" for g, n in groups)
            ctx.out(f"uid={uid}({user}) gid={gid}({group}) groups={listing}\n")
        elif chosen[0] == "user":
            ctx.out((user if opts.has("name") else str(uid)) + end)
        elif chosen[0] == "group":
            ctx.out((group if opts.has("name") else str(gid)) + end)
        else:
            sep = "\0" if opts.has("zero") else " "
            ctx.out(sep.join(n if opts.has("name") else str(g) for g, n in groups) + end)
    return status


GROUPS = CommandSpec(
    "groups",
    "[OPTION]... [USERNAME]...",
    "Print group memberships for each USERNAME or, if no USERNAME is specified, for\n"
    "the current process (which may differ if the groups database has changed).",
)


@declare("groups", spec=GROUPS, effects=Effects.NONE)
def cmd_groups(ctx: Ctx) -> int:
    _, operands = ctx.parse(GROUPS)
    status = 0
    names: list[str | None] = [*operands] or [None]
    for name in names:
        acct = _account(ctx, name)
        if acct is None:
            ctx.error(f"{quote(name or '')}: no such user")
            status = 1
            continue
        listing = " ".join(n for _, n in acct[3])
        ctx.out(f"{acct[0]} : {listing}\n" if name is not None else f"{listing}\n")
    return status


# ------------------------------------------------------------ who, pinky: nobody is logged in
#
# The sandbox has no terminal sessions, so both answer as they do over an empty utmp (a container's
# usual state): the headings they would print above no entry, and pinky -l's account lines.

WHO = CommandSpec(
    "who",
    "[OPTION]... [ FILE | ARG1 ARG2 ]",
    "Print information about users who are currently logged in.",
    opts=(
        Opt("a", "all", help="same as -b -d --login -p -r -t -T -u"),
        Opt("b", "boot", help="time of last system boot"),
        Opt("d", "dead", help="print dead processes"),
        Opt("H", "heading", help="print line of column headings"),
        Opt(None, "ips", help="print ips instead of hostnames"),
        Opt("l", "login", help="print system login processes"),
        Opt(None, "lookup", help="attempt to canonicalize hostnames via DNS"),
        Opt("m", None, dest="m", help="only hostname and user associated with stdin"),
        Opt("p", "process", help="print active processes spawned by init"),
        Opt("q", "count", help="all login names and number of users logged on"),
        Opt("r", "runlevel", help="print current runlevel"),
        Opt("s", "short", help="print only name, line, and time (default)"),
        Opt("t", "time", help="print last system clock change"),
        Opt("T", "mesg", help="add user's message status as +, - or ?"),
        Opt("w", None, dest="mesg"),
        Opt(None, "message", dest="mesg", help="same as -T"),
        Opt(None, "writable", dest="mesg", help="same as -T"),
        Opt("u", "users", help="list users logged in"),
    ),
)

# the options that list entries other than the logged-in users' short lines
_WHO_LISTS = ("all", "boot", "dead", "login", "process", "runlevel", "time", "users")


@declare("who", spec=WHO, effects=Effects.NONE)
def cmd_who(ctx: Ctx) -> int:
    opts, operands = ctx.parse(WHO)
    if len(operands) > 2:
        raise usage_fail(ctx, WHO, f"extra operand {quote(operands[2])}")
    if opts.has("count"):
        ctx.out("\n# users=0\n")
        return 0
    if not opts.has("heading"):
        return 0
    every = opts.has("all")
    # the short form (no IDLE, no PID) is the default without a listing option, or asked by -s;
    # the EXIT column of -a and -d always turns it off
    short = (
        (opts.has("short") or not any(opts.has(k) for k in _WHO_LISTS)) and not every and not opts.has("dead")
    )
    idle = not short and (every or any(opts.has(k) for k in ("dead", "login", "runlevel", "users")))
    line = "NAME    " + ("  " if every or opts.has("mesg") else "") + " LINE         TIME            "
    if idle:
        line += " IDLE  "
    if not short:
        line += "        PID"
    line += " COMMENT"
    if every or opts.has("dead"):
        line += "  EXIT"
    ctx.out(line.rstrip() + "\n")
    return 0


PINKY = CommandSpec(
    "pinky",
    "[OPTION]... [USER]...",
    "A lightweight 'finger' program;  print user information.",
    opts=(
        Opt("l", None, dest="long", help="produce long format output for the specified USERs"),
        Opt("b", None, dest="no_home", help="omit the user's home directory and shell in long format"),
        Opt("h", None, dest="no_project", help="omit the user's project file in long format"),
        Opt("p", None, dest="no_plan", help="omit the user's plan file in long format"),
        Opt("s", None, dest="short", help="do short format output, this is the default"),
        Opt("f", None, dest="no_heading", help="omit the line of column headings in short format"),
        Opt("w", None, dest="no_name", help="omit the user's full name in short format"),
        Opt("i", None, dest="no_where", help="omit the user's full name and remote host in short format"),
        Opt(
            "q",
            None,
            dest="no_idle",
            help="omit the user's full name, remote host and idle time in short format",
        ),
    ),
)


@declare("pinky", spec=PINKY, effects=Effects.NONE)
def cmd_pinky(ctx: Ctx) -> int:
    opts, operands = ctx.parse(PINKY)
    long_form = False
    for key, _ in opts.order:  # the last of -l and -s decides
        long_form = key == "long" if key in ("long", "short") else long_form
    if not long_form:
        if not opts.has("no_heading"):
            full_name = not any(opts.has(k) for k in ("no_name", "no_where", "no_idle"))
            head = "Login    Name                 TTY      " if full_name else "Login     TTY      "
            head += "" if opts.has("no_idle") else "Idle   "
            head += "When            "
            head += " Where" if not (opts.has("no_where") or opts.has("no_idle")) else ""
            ctx.out(head + "\n")
        return 0
    if not operands:
        raise usage_fail(ctx, PINKY, "no username specified; at least one must be specified when using -l")
    table = accounts(ctx)
    home_of = {"root": "/root", str(identity(ctx)["user"]): str(identity(ctx)["home"])}
    for name in operands:
        if name not in table:
            ctx.out(f"Login name: {name:<28}In real life:  ???\n")
            continue
        home = home_of.get(name, "/home/" + name)
        ctx.out(f"Login name: {name:<28}In real life:  {name}\n")
        if not opts.has("no_home"):
            ctx.out(f"Directory: {home:<29}Shell:  /bin/bash\n")
        for key, file, title in (("no_project", ".project", "Project: "), ("no_plan", ".plan", "Plan:\n")):
            if opts.has(key):
                continue
            try:
                data = ctx.fs.read_bytes(home.rstrip("/") + "/" + file)
            except FsError:
                continue
            ctx.out(title)
            ctx.stdout.write(data)
        ctx.out("\n")
    return 0


# ------------------------------------------------------------ hostid

HOSTID = CommandSpec(
    "hostid", "[OPTION]", "Print the numeric identifier (in hexadecimal) for the current host."
)


@declare("hostid", spec=HOSTID, effects=Effects.NONE)
def cmd_hostid(ctx: Ctx) -> int:
    """gethostid(3): /etc/hostid's four bytes when the file has them, else the host name's IPv4
    address with its 16-bit halves swapped; the sandbox's name resolves as Debian's /etc/hosts
    line does, to 127.0.1.1."""
    _no_operands(ctx, HOSTID)
    value = 0x007F0100
    try:
        data = ctx.fs.read_bytes("/etc/hostid")
    except FsError:
        data = b""
    if len(data) >= 4:
        value = int.from_bytes(data[:4], "little")
    ctx.out(f"{value:08x}\n")
    return 0


# ------------------------------------------------------------ hostname, uname, nproc

HOSTNAME = CommandSpec(
    "hostname",
    "[-s|-f|-d|-i|-I|-A] [NAME]",
    "Show or set the system's host name.",
    opts=(
        Opt("s", "short", help="short host name"),
        Opt("f", "fqdn", help="long host name (FQDN)"),
        Opt(None, "long", dest="fqdn"),
        Opt("d", "domain", help="DNS domain name"),
        Opt("i", "ip-address", help="addresses for the host name"),
        Opt("I", "all-ip-addresses", help="all addresses for the host"),
        Opt("A", "all-fqdns", help="all long host names (FQDNs)"),
        Opt("a", "alias", help="alias names"),
        Opt("y", "yp", help="NIS/YP domain name"),
        Opt("F", "file", "required", help="read host name or NIS domain name from given file"),
    ),
)


@declare("hostname", spec=HOSTNAME, effects=Effects.NONE)
def cmd_hostname(ctx: Ctx) -> int:
    opts, operands = ctx.parse(HOSTNAME)
    if operands or opts.has("file"):
        raise fail(ctx, "you must be root to change the host name")
    host = str(identity(ctx)["hostname"])
    if opts.has("short"):
        host = host.split(".")[0]
    elif opts.has("domain") or opts.has("alias"):
        host = host.partition(".")[2]
    elif opts.has("ip_address"):
        host = "127.0.1.1"
    elif opts.has("all_ip_addresses"):
        host = ""  # no network interfaces in the sandbox
    elif opts.has("yp"):
        raise fail(ctx, "Local domain name not set")
    ctx.out(host + ("\n" if not opts.has("all_ip_addresses") else " \n"))
    return 0


UNAME = CommandSpec(
    "uname",
    "[OPTION]...",
    "Print certain system information.  With no OPTION, same as -s.",
    opts=(
        Opt(
            "a",
            "all",
            help="print all information, in the following order,\nexcept omit -p and -i if unknown:",
        ),
        Opt("s", "kernel-name", help="print the kernel name"),
        Opt(None, "sysname", dest="kernel_name"),
        Opt("n", "nodename", help="print the network node hostname"),
        Opt("r", "kernel-release", help="print the kernel release"),
        Opt(None, "release", dest="kernel_release"),
        Opt("v", "kernel-version", help="print the kernel version"),
        Opt("m", "machine", help="print the machine hardware name"),
        Opt("p", "processor", help="print the processor type (non-portable)"),
        Opt("i", "hardware-platform", help="print the hardware platform (non-portable)"),
        Opt("o", "operating-system", help="print the operating system"),
    ),
)


@declare("uname", spec=UNAME, effects=Effects.NONE)
def cmd_uname(ctx: Ctx) -> int:
    opts, operands = ctx.parse(UNAME)
    if operands:
        raise usage_fail(ctx, UNAME, f"extra operand {quote(operands[0])}")
    ident = identity(ctx)
    fields = [
        ("kernel_name", ident["kernel"]),
        ("nodename", ident["hostname"]),
        ("kernel_release", ident["release"]),
        ("kernel_version", ident["version"]),
        ("machine", ident["machine"]),
        ("processor", "unknown"),
        ("hardware_platform", "unknown"),
        ("operating_system", ident["os"]),
    ]
    everything = opts.has("all")
    wanted = [v for k, v in fields if opts.has(k) or (everything and v != "unknown")]
    if not wanted:
        wanted = [ident["kernel"]]
    ctx.out(" ".join(str(v) for v in wanted) + "\n")
    return 0


NPROC = CommandSpec(
    "nproc",
    "[OPTION]...",
    "Print the number of processing units available to the current process,\n"
    "which may be less than the number of online processors",
    opts=(
        Opt(None, "all", help="print the number of installed processors"),
        Opt(None, "ignore", "required", metavar="N", help="if possible, exclude N processing units"),
    ),
)


@declare("nproc", spec=NPROC, effects=Effects.NONE)
def cmd_nproc(ctx: Ctx) -> int:
    opts, operands = ctx.parse(NPROC)
    if operands:
        raise usage_fail(ctx, NPROC, f"extra operand {quote(operands[0])}")
    count = int(identity(ctx)["nproc"])
    if opts.has("ignore"):
        text = opts["ignore"]
        if not text.isdigit():
            raise fail(ctx, f"invalid number: {quote(text)}")
        count = max(1, count - int(text))
    ctx.out(f"{count}\n")
    return 0


# ------------------------------------------------------------ terminals

TTY = CommandSpec(
    "tty",
    "[OPTION]...",
    "Print the file name of the terminal connected to standard input.",
    opts=(
        Opt("s", "silent", help="print nothing, only return an exit status"),
        Opt(None, "quiet", dest="silent"),
    ),
    usage_status=2,
)


@declare("tty", spec=TTY, effects=Effects.NONE)
def cmd_tty(ctx: Ctx) -> int:
    opts, operands = ctx.parse(TTY)
    if operands:
        raise usage_fail(ctx, TTY, f"extra operand {quote(operands[0])}")
    if not opts.has("silent"):
        ctx.out("not a tty\n")
    return 1


STTY = CommandSpec(
    "stty",
    "[-F DEVICE | --file=DEVICE] [SETTING]...",
    "Print or change terminal characteristics.",
    opts=(Opt("a", "all"), Opt("g", "save"), Opt("F", "file", "required")),
)


@declare("stty", spec=STTY, effects=Effects.NONE)
def cmd_stty(ctx: Ctx) -> int:
    opts, _ = ctx.parse(STTY)
    device = opts.get("file") or "standard input"
    raise fail(ctx, f"'{device}': Inappropriate ioctl for device")


@declare("mesg", effects=Effects.NONE)
def cmd_mesg(ctx: Ctx) -> int:
    ctx.error("ttyname failed: Inappropriate ioctl for device")
    return 2


_XTERM: dict[str, str] = {
    "bold": "\x1b[1m",
    "sgr0": "\x1b(B\x1b[m",
    "smul": "\x1b[4m",
    "rmul": "\x1b[24m",
    "rev": "\x1b[7m",
    "blink": "\x1b[5m",
    "dim": "\x1b[2m",
    "sitm": "\x1b[3m",
    "ritm": "\x1b[23m",
    "invis": "\x1b[8m",
    "clear": "\x1b[H\x1b[2J\x1b[3J",
    "el": "\x1b[K",
    "el1": "\x1b[1K",
    "ed": "\x1b[J",
    "civis": "\x1b[?25l",
    "cnorm": "\x1b[?12l\x1b[?25h",
    "cvvis": "\x1b[?12;25h",
    "smso": "\x1b[7m",
    "rmso": "\x1b[27m",
    "home": "\x1b[H",
    "cuu1": "\x1b[A",
    "cud1": "\n",
    "cub1": "\b",
    "cuf1": "\x1b[C",
    "sc": "\x1b7",
    "rc": "\x1b8",
    "smcup": "\x1b[?1049h\x1b[22;0;0t",
    "rmcup": "\x1b[?1049l\x1b[23;0;0t",
    "op": "\x1b[39;49m",
    "bel": "\a",
    "cr": "\r",
    "ind": "\n",
    "ht": "\t",
    "smam": "\x1b[?7h",
    "rmam": "\x1b[?7l",
    "setaf": "\x1b[%s{3}m",
    "setab": "\x1b[%s{4}m",
    "cup": "\x1b[%s{r};%s{c}H",
    "hpa": "\x1b[%s{1}G",
    "vpa": "\x1b[%s{1}d",
    "cuu": "\x1b[%s{0}A",
    "cud": "\x1b[%s{0}B",
    "cuf": "\x1b[%s{0}C",
    "cub": "\x1b[%s{0}D",
    "ech": "\x1b[%s{0}X",
    "dch": "\x1b[%s{0}P",
    "ich": "\x1b[%s{0}@",
    "il": "\x1b[%s{0}L",
    "dl": "\x1b[%s{0}M",
}
_TERM_NUMBERS = {"cols": 80, "lines": 24, "it": 8}
_KNOWN_TERMS = (
    "xterm",
    "screen",
    "tmux",
    "linux",
    "vt100",
    "vt220",
    "ansi",
    "rxvt",
    "konsole",
    "gnome",
    "alacritty",
    "kitty",
    "foot",
    "st",
)


def _terminal(ctx: Ctx, spec: CommandSpec | None, explicit: str | None) -> str:
    term = explicit if explicit is not None else ctx.env.get("TERM")
    if not term:
        if spec is None:
            ctx.stderr.write(b"TERM environment variable not set.\n")
            raise CommandExit(1)
        raise fail(ctx, "No value for $TERM and no -T specified", 2)
    if term != "dumb" and term.split("-")[0] not in _KNOWN_TERMS:
        if spec is None:
            ctx.stderr.write(f"'{term}': unknown terminal type.\n".encode())
            raise CommandExit(1)
        raise fail(ctx, f'unknown terminal "{term}"', 3)
    return term


def _color(term: str, value: int, base: int) -> str:
    if "256color" not in term or value < 8:
        return f"\x1b[{base}{value}m"
    if value < 16:
        return f"\x1b[{base + 6}{value - 8}m"
    return f"\x1b[{base}8;5;{value}m"


def _capability(term: str, cap: str, params: list[int]) -> str | int | None:
    if cap in _TERM_NUMBERS:
        return _TERM_NUMBERS[cap]
    if cap == "colors":
        return -1 if term == "dumb" else 256 if "256color" in term else 8
    if term == "dumb":
        return {"bel": "\a", "cr": "\r", "cud1": "\n", "ind": "\n"}.get(cap)
    if cap == "longname":
        return f"{term} terminal emulator"
    template = _XTERM.get(cap)
    if template is None or "%s" not in template:
        return template
    p = params + [0, 0]
    if cap in ("setaf", "setab"):
        return _color(term, p[0], 3 if cap == "setaf" else 4)
    if cap == "cup":
        return f"\x1b[{p[0] + 1};{p[1] + 1}H"
    if cap in ("hpa", "vpa"):
        return template.replace("%s{1}", str(p[0] + 1))
    return template.replace("%s{0}", str(p[0]))


TPUT = CommandSpec(
    "tput",
    "[-T TERM] {CAPNAME | -S | -V | init | reset} [PARAMETERS]...",
    "Query terminfo database.",
    opts=(Opt("T", None, "required"), Opt("S", None), Opt("x", None)),
    stop_at_operand=True,
    usage_status=2,
)


@declare("tput", spec=TPUT, effects=Effects.NONE)
def cmd_tput(ctx: Ctx) -> int:
    opts, operands = ctx.parse(TPUT)
    term = _terminal(ctx, TPUT, opts.get("T"))
    if not operands:
        ctx.stderr.write(b"usage: tput [-V] [-S] [-T term] capname\n")
        return 2
    cap, raw = operands[0], operands[1:]
    if cap in ("init", "reset"):
        return 0
    try:
        params = [int(p) for p in raw]
    except ValueError:
        params = []
    value = _capability(term, cap, params)
    if value is None:
        if cap in _XTERM:  # known, but this terminal lacks it
            return 1
        raise fail(ctx, f"unknown terminfo capability '{cap}'", 4)
    ctx.out(f"{value}\n" if isinstance(value, int) else value)
    return 0


CLEAR = CommandSpec(
    "clear",
    "[options]",
    "clear the terminal screen",
    opts=(Opt("x", None, help="do not try to clear scrollback"), Opt("T", None, "required")),
)


@declare("clear", spec=CLEAR, effects=Effects.NONE)
def cmd_clear(ctx: Ctx) -> int:
    opts, _ = ctx.parse(CLEAR)
    term = _terminal(ctx, None, opts.get("T"))
    seq = _capability(term, "clear", [])
    if not isinstance(seq, str):
        return 1
    ctx.out(seq.replace("\x1b[3J", "") if opts.has("x") else seq)
    return 0


# ------------------------------------------------------------ uptime, getconf, man

UPTIME = CommandSpec(
    "uptime",
    "[options]",
    "Tell how long the system has been running.",
    opts=(Opt("p", "pretty", help="show uptime in pretty format"), Opt("s", "since", help="system up since")),
)


@declare("uptime", spec=UPTIME, effects=Effects.NONE)
def cmd_uptime(ctx: Ctx) -> int:
    opts, _ = ctx.parse(UPTIME)
    now = ctx.clock()
    # the sandbox was "booted" when this run started
    up = max(0.0, now - float(ctx.extra.get("boot_time", now)))
    minutes = int(up // 60)
    from ...posix.zones import local_zone

    tz = local_zone(ctx.env)
    if opts.has("since"):
        boot = _dt.datetime.fromtimestamp(now - up, tz)
        ctx.out(boot.strftime("%Y-%m-%d %H:%M:%S") + "\n")
        return 0
    if opts.has("pretty"):
        parts = []
        hours, mins = divmod(minutes, 60)
        if hours:
            parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
        parts.append(f"{mins} minute{'s' if mins != 1 else ''}")
        ctx.out("up " + ", ".join(parts) + "\n")
        return 0
    clock = _dt.datetime.fromtimestamp(now, tz).strftime("%H:%M:%S")
    span = f"{minutes} min" if minutes < 60 else f"{minutes // 60:2d}:{minutes % 60:02d}"
    ctx.out(f" {clock} up {span},  1 user,  load average: 0.00, 0.00, 0.00\n")
    return 0


def _getconf_table(ctx: Ctx) -> dict[str, str]:
    nproc = str(identity(ctx)["nproc"])
    return {
        "ARG_MAX": "2097152",
        "CHILD_MAX": "63484",
        "CLK_TCK": "100",
        "HOST_NAME_MAX": "64",
        "LOGIN_NAME_MAX": "256",
        "NGROUPS_MAX": "65536",
        "OPEN_MAX": "1024",
        "PAGESIZE": "4096",
        "PAGE_SIZE": "4096",
        "LINE_MAX": "2048",
        "RE_DUP_MAX": "32767",
        "STREAM_MAX": "16",
        "SYMLOOP_MAX": "",
        "TTY_NAME_MAX": "32",
        "TZNAME_MAX": "",
        "LONG_BIT": "64",
        "WORD_BIT": "32",
        "CHAR_BIT": "8",
        "INT_MAX": "2147483647",
        "INT_MIN": "-2147483648",
        "LONG_MAX": "9223372036854775807",
        "LONG_MIN": "-9223372036854775808",
        "UINT_MAX": "4294967295",
        "ULONG_MAX": "18446744073709551615",
        "SSIZE_MAX": "32767",
        "BC_BASE_MAX": "99",
        "BC_DIM_MAX": "2048",
        "BC_SCALE_MAX": "99",
        "BC_STRING_MAX": "1000",
        "EXPR_NEST_MAX": "32",
        "COLL_WEIGHTS_MAX": "255",
        "_NPROCESSORS_CONF": nproc,
        "_NPROCESSORS_ONLN": nproc,
        "NPROCESSORS_CONF": nproc,
        "NPROCESSORS_ONLN": nproc,
        "_POSIX_VERSION": "200809",
        "POSIX_VERSION": "200809",
        "_POSIX2_VERSION": "200809",
        "POSIX2_VERSION": "200809",
        "PATH": "/bin:/usr/bin",
        "CS_PATH": "/bin:/usr/bin",
        "GNU_LIBC_VERSION": "glibc 2.36",
        "GNU_LIBPTHREAD_VERSION": "NPTL 2.36",
        "_PHYS_PAGES": "1048576",
        "_AVPHYS_PAGES": "524288",
        "PHYS_PAGES": "1048576",
        "LEVEL1_DCACHE_LINESIZE": "64",
    }


_PATH_VARS = {
    "NAME_MAX": "255",
    "PATH_MAX": "4096",
    "PIPE_BUF": "4096",
    "LINK_MAX": "127",
    "MAX_CANON": "255",
    "MAX_INPUT": "255",
    "FILESIZEBITS": "64",
    "_POSIX_NO_TRUNC": "1",
    "POSIX_NO_TRUNC": "1",
    "SYMLINK_MAX": "",
    "_POSIX_CHOWN_RESTRICTED": "1",
}


@declare("getconf", effects=Effects.NONE)
def cmd_getconf(ctx: Ctx) -> int:
    args = list(ctx.args)
    if args and args[0] == "-a":
        table = {**_getconf_table(ctx), **_PATH_VARS}
        width = max(len(k) for k in table) + 1
        ctx.out("".join(f"{k:<{width}}{v}\n" for k, v in sorted(table.items())))
        return 0
    if args and args[0] == "-v" and len(args) > 1:
        args = args[2:]
    if not args or len(args) > 2:
        ctx.stderr.write(b"Usage: getconf [-v SPEC] VAR\n  or:  getconf [-v SPEC] PATH_VAR PATH\n")
        return 2
    name = args[0]
    if name in _PATH_VARS:
        if len(args) < 2:
            raise fail(ctx, f"Unrecognized variable `{name}'", 2)
        failed = ctx.fs.stat_error(args[1])
        if failed is not None:
            raise fail(ctx, f"{args[1]}: {failed.message}")
        value = _PATH_VARS[name]
    else:
        if len(args) > 1:
            raise fail(ctx, f"Unrecognized variable `{name}'", 2)
        found = _getconf_table(ctx).get(name)
        if found is None:
            raise fail(ctx, f"Unrecognized variable `{name}'", 2)
        value = found
    ctx.out((value or "undefined") + "\n")
    return 0


@declare("man", effects=Effects.NONE)
def cmd_man(ctx: Ctx) -> int:
    pages = [a for a in ctx.args if not a.startswith("-") and not a.isdigit()]
    if not pages:
        ctx.stderr.write(b"What manual page do you want?\nFor example, try 'man man'.\n")
        return 1
    for page in pages:
        ctx.stderr.write(f"No manual entry for {page}\n".encode("utf-8", "surrogateescape"))
    ctx.stderr.write(b"(manual pages are not installed in this sandbox; try 'NAME --help')\n")
    return 16


@declare("whatis", effects=Effects.NONE)
def cmd_whatis(ctx: Ctx) -> int:
    pages = [a for a in ctx.args if not a.startswith("-")]
    if not pages:
        ctx.stderr.write(b"whatis what?\n")
        return 1
    for page in pages:
        ctx.stderr.write(f"{page}: nothing appropriate.\n".encode("utf-8", "surrogateescape"))
    return 16
