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


def strerror(code: int) -> str:
    return MESSAGES.get(code, f"Unknown error {code}")


class FsError(OSError):
    """A filesystem failure: `errno` and the path it concerns. `rule` names the
    policy rule when the policy refused (shown after the C library's wording,
    as command refusals show theirs); empty for every other failure."""

    def __init__(self, code: int, path: str = "", rule: str = "") -> None:
        super().__init__(code, strerror(code))
        self.code = code
        self.path = path
        self.rule = rule

    def at(self, path: str) -> FsError:
        """The same failure reported for `path` (the name the caller used)."""
        return FsError(self.code, path, self.rule)

    @property
    def message(self) -> str:
        text = strerror(self.code)
        return f"{text} [policy: {self.rule}]" if self.rule else text

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message
