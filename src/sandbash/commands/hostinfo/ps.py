"""ps: processes from /proc (`-e/-A`, `-f`, `-p PIDLIST`, `-o FIELDS`), as rshell reads them:
by default the process sandbash runs in, its ancestors, its descendants and its session."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...host.procfs import MAX_CMDLINE, Charge, ProcFs
from ...limits import MemoryHold
from ..context import Ctx
from ..record import Effects, declare
from .common import Flag, fail, help_text, parse_flags, procfs

FLAGS = (
    Flag("e", "all"),
    Flag("A", "All"),
    Flag("f", "full"),
    Flag("p", "pid", True),
    Flag("o", "format", True),
    Flag(None, "help"),
)
NOTES = {
    "all": "select all processes",
    "All": "select all processes (same as -e)",
    "full": "full-format listing",
    "pid": "select by PID list (comma or space separated)",
    "format": "output fields: pid,ppid,uid,user,tty,stat,ni,rss,vsz,stime,time,comm,args",
    "help": "print usage",
}


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    comm: str
    state: str
    sid: int
    tty: str
    cpu_ticks: int
    start_ticks: int
    nice: int
    vsz_kb: int
    rss_kb: int
    uid: str
    args: str

    @property
    def cmd(self) -> str:
        return self.args or f"[{self.comm}]"


def read_proc(fs: ProcFs, pid: int, mem: MemoryHold) -> Proc | None:
    """One process, or None when it ended (or its stat cannot be parsed); its files are
    charged while they are read and parsed, the Proc for as long as the command keeps it."""
    with MemoryHold(mem.budget) as files:
        proc = _parse(fs, pid, files.charge)
    if proc is not None:
        mem.charge(200 + len(proc.args) + len(proc.comm))
    return proc


def _parse(fs: ProcFs, pid: int, charge: Charge) -> Proc | None:
    stat = fs.text(f"{pid}/stat", 4096, charge)
    if not stat:
        return None
    open_, close = stat.find("("), stat.rfind(")")
    rest = stat[close + 1 :].split()
    if open_ < 0 or close < open_ or len(rest) < 22:
        return None
    status = fs.text(f"{pid}/status", 16384, charge) or ""
    uid = next(
        (ln.split()[1] for ln in status.splitlines() if ln.startswith("Uid:") and len(ln.split()) > 1), "?"
    )
    raw = fs.read(f"{pid}/cmdline", MAX_CMDLINE, charge) or b""
    # arguments joined by spaces; a control character (a newline inside an argument) is shown
    # as '?', as procps does, so one process is always one line
    args = _CONTROL.sub("?", raw.replace(b"\0", b" ").rstrip(b" ").decode("utf-8", "surrogateescape"))
    page_kb = 4
    return Proc(
        pid,
        _int(rest[1]),
        _CONTROL.sub("?", stat[open_ + 1 : close]),
        rest[0],
        _int(rest[3]),
        tty_name(_int(rest[4])),
        _int(rest[11]) + _int(rest[12]),
        _int(rest[19]),
        _int(rest[16]),
        _int(rest[20]) // 1024,
        _int(rest[21]) * page_kb,
        uid,
        args,
    )


_CONTROL = re.compile("[\x00-\x1f\x7f]")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def tty_name(nr: int) -> str:
    if nr == 0:
        return "?"
    major, minor = (nr >> 8) & 0xFFF, (nr & 0xFF) | ((nr >> 12) & 0xFFF00)
    if major == 4:
        return f"tty{minor}" if minor < 64 else f"ttyS{minor - 64}"
    if 136 <= major <= 143:
        return f"pts/{(major - 136) * 256 + minor}"
    return "?"


def parse_pids(text: str) -> list[int]:
    if any(not seg.strip() for seg in text.split(",")):
        raise ValueError(f"invalid PID list: {text}")
    pids: list[int] = []
    for word in text.replace(",", " ").split():
        if not word.isdigit() or int(word) <= 0:
            raise ValueError(f"invalid PID: {word}")
        if int(word) not in pids:
            pids.append(int(word))
    if not pids:
        raise ValueError(f"invalid PID: {text}")
    return pids


def session(fs: ProcFs, procs: list[Proc]) -> list[Proc]:
    """The ancestors of the process sandbash runs in, its descendants, and its session.
    Descendants are found by parent links because the session id can be unknown: in a pid
    namespace whose session leader lies outside it, /proc reports the session as 0."""
    by_pid = {p.pid: p for p in procs}
    me = fs.self_pid()
    ancestors: set[int] = set()
    cur = me
    while cur > 1 and cur not in ancestors:
        ancestors.add(cur)
        p = by_pid.get(cur)
        if p is None:
            break
        cur = p.ppid
    children: dict[int, list[int]] = {}
    for p in procs:
        children.setdefault(p.ppid, []).append(p.pid)
    descendants: set[int] = set()
    todo = list(children.get(me, []))
    while todo:
        pid = todo.pop()
        if pid not in descendants:
            descendants.add(pid)
            todo.extend(children.get(pid, []))
    sid = by_pid[me].sid if me in by_pid else 0
    return [p for p in procs if p.pid in ancestors or p.pid in descendants or (sid and p.sid == sid)]


@declare("ps", effects=Effects.NONE, host_only=True, summary="report process status")
def cmd_ps(ctx: Ctx) -> int:
    opts = parse_flags(
        ctx,
        ctx.args,
        FLAGS,
        usage=help_text("ps [-e|-A] [-f] [-p PIDLIST] [-o FIELDS]", "Report process status.", FLAGS, NOTES),
    )
    fs = procfs(ctx)
    pid_text = opts.get("pid")
    if opts.operands:
        pid_text = " ".join([pid_text, *opts.operands]) if pid_text else " ".join(opts.operands)
    pids: list[int] | None = None
    if pid_text is not None:
        try:
            pids = parse_pids(pid_text)
        except ValueError as e:
            raise fail(ctx, str(e)) from None
    columns = _columns(ctx, opts.get("format"))
    everything = opts.on("all") or opts.on("All")
    with ctx.hold_memory() as mem:
        if everything or pids is None:
            procs = _all(ctx, fs, mem)
            if not everything:
                procs = session(fs, procs)
        else:
            # in /proc's order, as GNU ps lists them (not the order of the list)
            procs = [p for p in (read_proc(fs, pid, mem) for pid in sorted(pids)) if p is not None]
        _print(ctx, fs, procs, columns, opts.on("full"))
    return 1 if pids is not None and not everything and not procs else 0


def _all(ctx: Ctx, fs: ProcFs, mem: MemoryHold) -> list[Proc]:
    out: list[Proc] = []
    for pid in fs.pids():
        ctx.checkpoint()
        p = read_proc(fs, pid, mem)
        if p is not None:
            out.append(p)
    return out


# field -> (header, right aligned, value)
Field = tuple[str, bool, Callable[[Proc, "_Clock"], str]]


class _Clock:
    def __init__(self, fs: ProcFs) -> None:
        self.hz = fs.clock_ticks()
        stat = fs.text("stat", 65536) or ""
        self.btime = next((int(ln.split()[1]) for ln in stat.splitlines() if ln.startswith("btime ")), 0)

    def cpu(self, p: Proc) -> str:
        secs = p.cpu_ticks // self.hz
        return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"

    def stime(self, p: Proc) -> str:
        if not self.btime:
            return "?"
        start = time.localtime(self.btime + p.start_ticks // self.hz)
        now = time.localtime()
        same_day = start[:3] == now[:3]
        return time.strftime("%H:%M" if same_day else "%b%d", start)


FIELDS: dict[str, Field] = {
    "pid": ("PID", True, lambda p, c: str(p.pid)),
    "ppid": ("PPID", True, lambda p, c: str(p.ppid)),
    "uid": ("UID", True, lambda p, c: p.uid),
    "user": ("USER", False, lambda p, c: p.uid),
    "tty": ("TT", False, lambda p, c: p.tty),
    "stat": ("STAT", False, lambda p, c: p.state),
    "s": ("S", False, lambda p, c: p.state),
    "ni": ("NI", True, lambda p, c: str(p.nice)),
    "rss": ("RSS", True, lambda p, c: str(p.rss_kb)),
    "vsz": ("VSZ", True, lambda p, c: str(p.vsz_kb)),
    "stime": ("STIME", False, lambda p, c: c.stime(p)),
    "time": ("TIME", True, lambda p, c: c.cpu(p)),
    "comm": ("COMMAND", False, lambda p, c: p.comm),
    "args": ("COMMAND", False, lambda p, c: p.cmd),
    "cmd": ("CMD", False, lambda p, c: p.cmd),
    "command": ("COMMAND", False, lambda p, c: p.cmd),
}


def _columns(ctx: Ctx, fmt: str | None) -> list[str] | None:
    if fmt is None:
        return None
    names = [n.strip().lower() for n in fmt.replace(" ", ",").split(",") if n.strip()]
    for n in names:
        if n not in FIELDS:
            raise fail(ctx, f'unknown user-defined format specifier "{n}"')
    if not names:
        raise fail(ctx, "improper format list")
    return names


def _print(ctx: Ctx, fs: ProcFs, procs: list[Proc], columns: list[str] | None, full: bool) -> None:
    clock = _Clock(fs)
    if columns is None:
        if full:
            ctx.out(f"{'UID':<12} {'PID':>6} {'PPID':>6} {'C':>2} {'STIME':<5} {'TTY':<12} {'TIME':>8} CMD\n")
            for p in procs:
                ctx.out(
                    f"{p.uid:<12} {p.pid:>6} {p.ppid:>6} {0:>2} {clock.stime(p):<5} {p.tty:<12} "
                    f"{clock.cpu(p):>8} {p.cmd}\n"
                )
        else:
            ctx.out(f"{'PID':>6} {'TTY':<12} {'TIME':>8} CMD\n")
            for p in procs:
                ctx.out(f"{p.pid:>6} {p.tty:<12} {clock.cpu(p):>8} {p.cmd}\n")
        return
    rows = [[FIELDS[n][2](p, clock) for n in columns] for p in procs]
    heads = [FIELDS[n][0] for n in columns]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(heads)]
    for line in [heads, *rows]:
        cells = []
        for i, n in enumerate(columns):
            last = i == len(columns) - 1
            if FIELDS[n][1]:
                cells.append(line[i].rjust(widths[i]))
            else:
                cells.append(line[i] if last else line[i].ljust(widths[i]))
        ctx.out(" ".join(cells).rstrip() + "\n")
