"""The `time` keyword's report: TIMEFORMAT as bash 5.2 reads it (`%[p][l]R|U|S`, `%P`, `%%`)."""

from __future__ import annotations

DEFAULT_FORMAT = "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS"
POSIX_FORMAT = "real %2R\nuser %2U\nsys %2S"


class TimeFormatError(ValueError):
    """An unknown conversion: bash reports `TIMEFORMAT: `q': invalid format character` and prints nothing."""

    def __init__(self, char: str) -> None:
        super().__init__(char)
        self.char = char


def _seconds(value: float, prec: int, long: bool) -> str:
    """bash's mkfmt: seconds (or `MmS` with `l`) with `prec` places, rounded, and `s` after a long one."""
    scaled = round(max(value, 0.0) * 10**prec)
    whole, frac = divmod(scaled, 10**prec)
    text = ""
    if long:
        minutes, whole = divmod(whole, 60)
        text = f"{minutes}m"
    text += str(whole)
    if prec:
        text += "." + str(frac).rjust(prec, "0")
    return text + ("s" if long else "")


def format_times(fmt: str, real: float, user: float, system: float) -> str:
    """The report for one timed pipeline (without the final newline bash adds)."""
    out: list[str] = []
    i, n = 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        i += 1
        if fmt[i] == "%":
            out.append("%")
            i += 1
            continue
        if fmt[i] == "P":
            cpu = (user + system) / real * 100 if real > 0 else 0.0
            out.append(f"{cpu:.2f}")
            i += 1
            continue
        prec, long = 3, False
        if fmt[i].isdigit() and fmt[i].isascii():
            prec = min(int(fmt[i]), 3)  # (bash 5.2 keeps at most 3 places)
            i += 1
        if i < n and fmt[i] == "l":
            long = True
            i += 1
        kind = fmt[i] if i < n else "\0"
        values = {"R": real, "E": real, "U": user, "S": system}
        if kind not in values:
            raise TimeFormatError(kind)
        out.append(_seconds(values[kind], prec, long))
        i += 1
    return "".join(out)
