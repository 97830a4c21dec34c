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


# how a policy refusal reads: sandbash's own ("Permission denied [policy: RULE]") or, in box mode,
# the operation wording of the seed ("policy denied this operation on 'PATH' [policy: RULE]")
SANDBASH_WORDING = "sandbash"
OPERATION_WORDING = "operation"
DEFAULT_DENY_RULE = "paths.no-grant"  # no grant covers the path: the operation wording's [default-deny]


class RefusedCode(int):
    """An errno the policy gave: it compares, hashes and prints as the number,
    and carries the rule that refused, so strerror() names the rule wherever
    the code travels (commands re-raise `FsError(e.code, path)` and format
    `strerror(e.errno)`): `Permission denied [policy: paths.no-grant]`.
    `wording` and `target` (the path the policy was asked about) choose the
    text: see `refusal_text`."""

    rule: str
    target: str
    wording: str

    def __new__(cls, code: int, rule: str, target: str = "", wording: str = SANDBASH_WORDING) -> RefusedCode:
        obj = super().__new__(cls, code)
        obj.rule = rule
        obj.target = target
        obj.wording = wording
        return obj

    def __reduce__(self) -> tuple[type[RefusedCode], tuple[int, str, str, str]]:
        return RefusedCode, (int(self), self.rule, self.target, self.wording)

    def worded(self, wording: str, target: str) -> RefusedCode:
        """The same refusal in another wording, naming `target`."""
        return RefusedCode(int(self), self.rule, target, wording)


def refusal_tag(rule: str) -> str:
    """`[policy: RULE]`, or `[default-deny]` when no grant covered the path (operation wording)."""
    return "[default-deny]" if rule == DEFAULT_DENY_RULE else f"[policy: {rule}]"


def refusal_text(code: RefusedCode) -> str:
    """The one place a policy refusal of a file operation is worded."""
    if code.wording == OPERATION_WORDING:
        return f"policy denied this operation on '{code.target}' {refusal_tag(code.rule)}"
    return f"{MESSAGES.get(code, f'Unknown error {int(code)}')} [policy: {code.rule}]"


def strerror(code: int) -> str:
    """The C library's wording; for a policy refusal, `refusal_text`."""
    if isinstance(code, RefusedCode) and code.rule:
        return refusal_text(code)
    return MESSAGES.get(code, f"Unknown error {int(code)}")


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
