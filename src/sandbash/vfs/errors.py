"""Filesystem errors as errno values with the C library's wording."""

from __future__ import annotations

import errno

MESSAGES = {
    errno.ENOENT: "No such file or directory",
    errno.EEXIST: "File exists",
    errno.ENOTDIR: "Not a directory",
    errno.EISDIR: "Is a directory",
    errno.ENOTEMPTY: "Directory not empty",
    errno.EACCES: "Permission denied",
    errno.EPERM: "Operation not permitted",
    errno.ELOOP: "Too many levels of symbolic links",
    errno.ENAMETOOLONG: "File name too long",
    errno.EXDEV: "Invalid cross-device link",
    errno.ENOSPC: "No space left on device",
    errno.EINVAL: "Invalid argument",
    errno.EBADF: "Bad file descriptor",
    errno.EROFS: "Read-only file system",
    errno.EBUSY: "Device or resource busy",
    errno.ENOEXEC: "Exec format error",
    errno.EMFILE: "Too many open files",
    errno.ENOMEM: "Cannot allocate memory",
    errno.ESPIPE: "Illegal seek",
    errno.EFBIG: "File too large",
    errno.ENXIO: "No such device or address",
    errno.EIO: "Input/output error",
    errno.EOPNOTSUPP: "Operation not supported",
    errno.ENODEV: "No such device",
}


class RefusedCode(int):
    """An errno the policy gave: it compares, hashes and prints as the number,
    and carries the rule that refused, so strerror() names the rule wherever
    the code travels (commands re-raise `FsError(e.code, path)` and format
    `strerror(e.errno)`): `Permission denied [policy: paths.no-grant]`."""

    rule: str

    def __new__(cls, code: int, rule: str) -> RefusedCode:
        obj = super().__new__(cls, code)
        obj.rule = rule
        return obj

    def __reduce__(self) -> tuple[type[RefusedCode], tuple[int, str]]:
        return RefusedCode, (int(self), self.rule)


def strerror(code: int) -> str:
    """The C library's wording; for a policy refusal, the rule after it."""
    text = MESSAGES.get(code, f"Unknown error {int(code)}")
    rule = getattr(code, "rule", "")
    return f"{text} [policy: {rule}]" if rule else text


class FsError(OSError):
    """A filesystem failure: `errno` and the path it concerns. `rule` names the
    policy rule when the policy refused (shown after the C library's wording,
    as command refusals show theirs); empty for every other failure.
    `walked`: where a path walk stopped (canonical), so the policy can be
    asked about the place the failure describes, not only the name given."""

    walked = ""

    def __init__(self, code: int, path: str = "", rule: str = "") -> None:
        if rule:
            code = RefusedCode(code, rule)
        super().__init__(code, strerror(code))
        self.code = code
        self.path = path
        self.rule: str = getattr(code, "rule", "")

    def at(self, path: str) -> FsError:
        """The same failure reported for `path` (the name the caller used)."""
        return FsError(self.code, path)

    @property
    def message(self) -> str:
        return strerror(self.code)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message
