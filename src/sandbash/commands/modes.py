"""File mode strings: symbolic modes (`u+x,go-w`, `a=r`, `+X`) and `ls -l`
style rendering, shared by chmod, mkdir -m, install -m, umask and ls."""

from __future__ import annotations

_WHO = {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}
_PERM_BITS = {"r": 0o444, "w": 0o222, "x": 0o111, "s": 0o6000, "t": 0o1000}


def apply_symbolic_mode(spec: str, mode: int, *, is_dir: bool = False, umask: int = 0o022) -> int:
    """Apply a symbolic (or octal) mode to `mode`; raises ValueError when invalid."""
    if spec and all(c in "01234567" for c in spec):
        value = int(spec, 8)
        if value > 0o7777:
            raise ValueError(spec)
        return value
    result = mode & 0o7777
    for clause in spec.split(","):
        if not clause:
            raise ValueError(spec)
        i = 0
        who = 0
        while i < len(clause) and clause[i] in "ugoa":
            who |= _WHO[clause[i]]
            i += 1
        if i >= len(clause) or clause[i] not in "+-=":
            raise ValueError(spec)
        while i < len(clause) and clause[i] in "+-=":
            op = clause[i]
            i += 1
            perm = 0
            copy_from: int | None = None
            while i < len(clause) and clause[i] not in "+-=":
                c = clause[i]
                if c in "rwxst":
                    perm |= _PERM_BITS[c]
                elif c == "X":
                    if is_dir or result & 0o111:
                        perm |= 0o111
                elif c in "ugo" and copy_from is None and perm == 0:
                    shift = {"u": 6, "g": 3, "o": 0}[c]
                    bits = (result >> shift) & 7
                    copy_from = bits * 0o111
                else:
                    raise ValueError(spec)
                i += 1
            if copy_from is not None:
                perm |= copy_from
            mask = who if who else (0o7777 & ~umask if op != "=" else 0o7777)
            if not who:
                # no `who`: like `a`, but bits set in the umask are not affected
                mask = 0o7777 & ~umask
                if op == "=":
                    mask = 0o7777
            effective = perm & mask
            if op == "+":
                result |= effective
            elif op == "-":
                result &= ~effective
            else:
                clear = (who if who else 0o7777) & ~(0o6000 if is_dir and not (perm & 0o6000) else 0)
                result = (result & ~clear) | effective
    return result


def mode_string(mode: int) -> str:
    """`drwxr-xr-x` style, from a full st_mode."""
    kind = mode & 0o170000
    first = {0o040000: "d", 0o120000: "l", 0o020000: "c", 0o060000: "b", 0o010000: "p", 0o140000: "s"}.get(
        kind, "-"
    )
    out = [first]
    for shift, special, sch in ((6, 0o4000, "s"), (3, 0o2000, "s"), (0, 0o1000, "t")):
        bits = (mode >> shift) & 7
        out.append("r" if bits & 4 else "-")
        out.append("w" if bits & 2 else "-")
        if mode & special:
            out.append(sch if bits & 1 else sch.upper())
        else:
            out.append("x" if bits & 1 else "-")
    return "".join(out)
