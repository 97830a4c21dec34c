"""uptime, free and df with the host's values (/proc/uptime, /proc/loadavg, /proc/meminfo,
statvfs of the granted roots)."""

from __future__ import annotations

import time

from ...vfs.base import normpath
from ...vfs.errors import FsError
from ..context import Ctx
from ..record import Effects, declare
from .common import Flag, fail, host, parse_flags, procfs

UPTIME_FLAGS = (Flag("p", "pretty"), Flag("s", "since"), Flag("h", "help"))
FREE_FLAGS = (
    Flag("b", "bytes"),
    Flag("k", "kibi"),
    Flag("m", "mebi"),
    Flag("g", "gibi"),
    Flag("h", "human"),
    Flag("t", "total"),
    Flag(None, "help"),
)
DF_FLAGS = (Flag("h", "human-readable"), Flag("k", "kilo"), Flag("i", "inodes"), Flag(None, "help"))


def _under(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


@declare(
    "uptime", effects=Effects.NONE, host_variant=True, summary="tell how long the system has been running"
)
def host_uptime(ctx: Ctx) -> int:
    opts = parse_flags(
        ctx,
        ctx.args,
        UPTIME_FLAGS,
        operands=False,
        usage="Usage: uptime [-p|-s]\nTell how long the system has been running.\n",
    )
    fs = procfs(ctx)
    try:
        up = float((fs.text("uptime", 256) or "").split()[0])
        load = (fs.text("loadavg", 256) or "").split()[:3]
    except (IndexError, ValueError):
        raise fail(ctx, f"cannot read {fs.proc_path}/uptime") from None
    now = time.time()
    if opts.on("since"):
        ctx.out(time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now - up)) + "\n")
        return 0
    days, rem = divmod(int(up), 86400)
    hours, mins = rem // 3600, rem % 3600 // 60
    if opts.on("pretty"):
        parts = [
            f"{n} {unit}{'s' if n != 1 else ''}"
            for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute"))
            if n
        ]
        ctx.out("up " + (", ".join(parts) or "0 minutes") + "\n")
        return 0
    span = (f"{days} day{'s' if days != 1 else ''}, " if days else "") + (
        f"{hours:2d}:{mins:02d}" if hours else f"{mins} min"
    )
    clock = time.strftime("%H:%M:%S", time.localtime(now))
    ctx.out(f" {clock} up {span},  load average: {', '.join(load)}\n")
    return 0


def _meminfo(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        words = rest.split()
        if words and words[0].isdigit():
            out[key.strip()] = int(words[0])
    return out


def _human(kib: int) -> str:
    value = float(kib) * 1024
    for unit in ("B", "Ki", "Mi", "Gi", "Ti", "Pi"):
        if value < 1024 or unit == "Pi":
            if unit == "B":
                return f"{int(value)}B"
            # procps truncates: 23.5Gi is "23Gi", 2.64Gi is "2.6Gi"
            return f"{int(value * 10) / 10:.1f}{unit}" if value < 10 else f"{int(value)}{unit}"
        value /= 1024
    return f"{kib}Ki"


@declare("free", effects=Effects.NONE, host_only=True, summary="display free and used memory")
def cmd_free(ctx: Ctx) -> int:
    opts = parse_flags(
        ctx,
        ctx.args,
        FREE_FLAGS,
        operands=False,
        usage="Usage: free [-b|-k|-m|-g|-h] [-t]\nDisplay amount of free and used memory in the system.\n",
    )
    with ctx.hold_memory() as mem:
        m = _meminfo(procfs(ctx).text("meminfo", 65536, mem.charge) or "")
    if "MemTotal" not in m:
        raise fail(ctx, "cannot read meminfo")
    total, free = m["MemTotal"], m.get("MemFree", 0)
    cache = m.get("Buffers", 0) + m.get("Cached", 0) + m.get("SReclaimable", 0)
    used = max(0, total - free - cache)
    stotal, sfree = m.get("SwapTotal", 0), m.get("SwapFree", 0)

    def show(kib: int) -> str:
        if opts.on("human"):
            return _human(kib)
        for flag, shift in (("bytes", -10), ("mebi", 10), ("gibi", 20)):
            if opts.on(flag):
                return str(kib << 10 if shift < 0 else kib >> shift)
        return str(kib)

    ctx.out(f"{'':8}{'total':>12}{'used':>12}{'free':>12}{'shared':>12}{'buff/cache':>12}{'available':>12}\n")
    ctx.out(
        f"{'Mem:':<8}"
        + "".join(
            f"{show(v):>12}"
            for v in (total, used, free, m.get("Shmem", 0), cache, m.get("MemAvailable", free))
        )
        + "\n"
    )
    ctx.out(f"{'Swap:':<8}" + "".join(f"{show(v):>12}" for v in (stotal, stotal - sfree, sfree)) + "\n")
    if opts.on("total"):
        ctx.out(
            f"{'Total:':<8}"
            + "".join(f"{show(v):>12}" for v in (total + stotal, used + stotal - sfree, free + sfree))
            + "\n"
        )
    return 0


@declare("df", effects=Effects.STAT, host_variant=True, summary="disk space of the granted host paths")
def host_df(ctx: Ctx) -> int:
    """df of the granted roots (or of the operands, each under a granted root)."""
    opts = parse_flags(
        ctx,
        ctx.args,
        DF_FLAGS,
        usage="Usage: df [-h] [-i] [PATH]...\nShow the disk space of the granted host paths.\n",
    )
    access = host(ctx)
    fs = access.procfs
    roots = access.roots()
    targets = [normpath(ctx.fs.abspath(p)) for p in opts.operands] or roots
    status = 0
    inodes = opts.on("inodes")
    head = (
        "Inodes   IUsed   IFree IUse%"
        if inodes
        else ("Size  Used Avail Use%" if opts.on("human-readable") else "1K-blocks      Used Available Use%")
    )
    ctx.out(f"{'Filesystem':<20} {head} Mounted on\n")
    by_length = sorted(roots, key=len, reverse=True)
    for path in targets:
        root = next((r for r in by_length if _under(path, r)), None)
        if root is None:
            ctx.error(f"{path}: not under a granted path")
            status = 1
            continue
        try:
            # the sandbox's view first: a host link in the grant leading out of it is refused
            # there (EACCES), so statvfs never follows one to tell what lies outside (that a
            # host file exists, that a directory is procfs)
            canon = ctx.fs.realpath(path)
        except FsError as e:
            ctx.fs_error(e, path)
            status = 1
            continue
        root = next((r for r in by_length if _under(canon, r)), None)
        usage = fs.disk_usage(canon) if root is not None else None
        if usage is None or root is None:
            ctx.error(f"{path}: No such file or directory")
            status = 1
            continue
        if inodes:
            used = usage.inodes - usage.inodes_free
            pct = f"{-(-used * 100 // usage.inodes)}%" if usage.inodes else "-"
            cells = f"{usage.inodes:>6} {used:>7} {usage.inodes_free:>7} {pct:>5}"
        elif opts.on("human-readable"):
            pct = f"{-(-usage.used * 100 // max(1, usage.used + usage.available))}%"
            cells = f"{_human(usage.blocks):>4} {_human(usage.used):>5} {_human(usage.available):>5} {pct:>4}"
        else:
            pct = f"{-(-usage.used * 100 // max(1, usage.used + usage.available))}%"
            cells = f"{usage.blocks:>9} {usage.used:>9} {usage.available:>9} {pct:>4}"
        ctx.out(f"{'host:' + root:<20} {cells} {root}\n")
    return status
