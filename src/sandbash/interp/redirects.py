"""Redirections applied to the shell's file-descriptor table.

Like a real shell, redirections change the one fd table in place and are
undone afterwards (`restore_redirects`), except for `exec`, which keeps them.
"""

from __future__ import annotations

import errno

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..expand.segments import literal_text
from ..limits import LimitExceeded, LimitKind
from ..shvars.arrays import IndexedArray
from ..stdio.streams import BytesReader, ClosedStream, DirStream, Stream
from ..syntax import ast as A
from ..vfs.errors import FsError
from ..vfs.facade import reopen_target
from .variables import AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..expand.words import Expander
    from .evaluator import Evaluator
    from .shell import Shell
    from .state import ShellState
    from .variables import Variables

# (fd, previous stream or None, stream we opened and must close or None)
Undo = list[tuple[int, Stream | None, Stream | None]]
_DEV_FD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
# a redirection that opens a file: operator -> (open flags, default descriptor); `w!` is `>|`
_FILE_OPS = {"<": ("r", 0), ">": ("w", 1), ">>": ("a", 1), "<>": ("rw", 0), ">|": ("w!", 1)}


def lowered_fd_limit(state: ShellState, most: int) -> int | None:
    """`ulimit -n`'s soft limit when the script lowered it below the sandbox's own (`most`,
    max_file_descriptors), else None. Under it the descriptors fail as bash's do on Linux: a
    number at or past it is no descriptor (dup2's EBADF), an open needs a free one below it
    (EMFILE), `{v}` looks from 10 up to it (F_DUPFD: EINVAL when 10 is past it)."""
    pair = state.ulimits.get("n") if state.ulimits else None
    if pair is None or pair[0] is None or pair[0] >= most:
        return None
    return pair[0]


def free_fds(state: ShellState, limit: int) -> int:
    """How many descriptors below `limit` the shell's table leaves free."""
    return limit - sum(1 for fd in state.fds if fd < limit)


def redirs_may_assign(redirs: tuple[A.Redir, ...]) -> bool:
    """Whether expanding `redirs` may assign a variable, judged from their text (generously): an
    arithmetic expansion or a subscript, `${name=word}`, `${!ref}`, `$RANDOM` (its generator's
    state; the child reseeds it), a `{var}` descriptor, in a target or an unquoted here-document's
    body."""
    for r in redirs:
        if r.fd_var is not None:
            return True
        target = r.target
        if type(target) is A.HereDoc:
            if target.quoted or target.body is None:
                continue
            text = target.body.text
        else:
            text = target.text  # type: ignore[union-attr]
        if "$" in text and (
            "((" in text or "$[" in text or "=" in text or "[" in text or "${!" in text or "RANDOM" in text
        ):
            return True
    return False


def dev_fd(path: str) -> int | None:
    fd = _DEV_FD.get(path)
    if fd is not None:
        return fd
    if path.startswith("/dev/fd/") and path[8:].isdigit():
        return int(path[8:])
    return None


class Redirections:
    """Redirections of one shell: applied to its fd table in place and undone afterwards.
    Depends on the state (fds), the expander (targets), the variables (`{v}>f`) and the
    evaluator (an expansion error is reported as any other)."""

    __slots__ = ("sh", "state", "expander", "va", "ev", "failure", "command")

    def __init__(self, sh: Shell, state: ShellState, expander: Expander, va: Variables) -> None:
        self.sh = sh
        self.state = state
        self.expander = expander
        self.va = va
        self.ev: Evaluator  # wired by the shell: the evaluator is made after this part
        self.failure = 1  # the status of the command whose redirections failed last
        self.command = ""  # the simple command whose redirections are applied (bash names it)

    def apply_redirects(
        self, redirs: tuple[A.Redir, ...], keep: bool = False, forked: bool = False
    ) -> Undo | None:
        """Apply in order; on failure print bash's message, undo, return None. `forked`: for a
        command bash runs in a child (a program, a subshell), which applies the redirections
        there, so an expansion error in them (a bad substitution, ${u:?}, 1/0) ends only that
        child with status 1 instead of the command line or the shell."""
        undo: Undo = []
        for r in redirs:
            try:
                ok = self._apply_one(r, undo)
            except (ExpansionError, ArithError) as e:
                self.restore_redirects(undo)
                self.expansion_failed(e, forked)
                return None
            if not ok:
                self.restore_redirects(undo)
                self.failure = 1
                return None
        return undo

    def expansion_failed(self, e: ExpansionError | ArithError, forked: bool = False) -> int:
        """A redirection's word failed to expand: reported as any expansion error (an arithmetic
        one with status 1); the status is the redirection's failure."""
        err = ExpansionError(e.render(), 1, arith=True) if isinstance(e, ArithError) else e
        self.failure = self.ev.expansion_failed(err, forked=forked)
        return self.failure

    def here_string(self, r: A.Redir, text: str, undo: Undo) -> bool:
        """`<<< WORD` with the word expanded to `text`: the text and a newline on the descriptor."""
        if self.state.ulimits and not self._heredoc_room():
            return False
        data = (text + "\n").encode("utf-8", "surrogateescape")
        return self._bind(r, 0, BytesReader(data, self.sh.rt.budget), undo, opened=None)

    def _heredoc_room(self) -> bool:
        """bash makes a here-document's text a pipe or a file it opens twice: two descriptors."""
        low = lowered_fd_limit(self.state, self.sh.rt.limits.max_file_descriptors)
        if low is None or free_fds(self.state, low) >= 2:
            return True
        self.sh.error("cannot create temp file for here-document: Too many open files")
        return False

    def _open_room(self, shown: str) -> bool:
        """An open takes the lowest free descriptor: none below a lowered `ulimit -n` is EMFILE
        (the kernel finds the descriptor before it looks at the path)."""
        low = lowered_fd_limit(self.state, self.sh.rt.limits.max_file_descriptors)
        if low is None or free_fds(self.state, low) >= 1:
            return True
        self.sh.error(f"{shown}: Too many open files")
        return False

    def _fd_limit(self) -> int:
        """The first descriptor number no redirection may name: the sandbox's, or ulimit -n's below it."""
        most = self.sh.rt.limits.max_file_descriptors
        low = lowered_fd_limit(self.state, most)
        return most if low is None else low

    def restore_redirects(self, undo: Undo) -> None:
        io = self.state.fds
        for fd, prev, opened in reversed(undo):
            if opened is not None:
                try:
                    opened.close()
                except OSError:
                    pass
            if prev is None:
                io.pop(fd, None)
            else:
                io[fd] = prev

    def _fd_room(self, fd: int) -> None:
        """max_file_descriptors, BashBox's definition: no descriptor numbered at or past the limit,
        and no more open than it."""
        io = self.state.fds
        limit = self.sh.rt.limits.max_file_descriptors
        if fd >= limit or (fd not in io and len(io) >= limit):
            raise LimitExceeded(LimitKind.MAX_FILE_DESCRIPTORS, limit)

    def _set_fd(self, fd: int, stream: Stream | None, undo: Undo, opened: Stream | None = None) -> None:
        io = self.state.fds
        self._fd_room(fd)
        undo.append((fd, io.get(fd), opened))
        if stream is None:
            io.pop(fd, None)
        else:
            io[fd] = stream

    def _target(self, word: A.Word) -> str | None:
        text = literal_text(word.parts)
        if text is not None:  # (a literal word is its own one field, as Expander.words has it)
            return text
        fields = self.expander.target_fields(word)
        if len(fields) != 1:
            self._ambiguous(word)
            return None
        return fields[0]

    def _ambiguous(self, word: A.Word) -> None:
        """bash's redirection_error: the word is expanded again, without command substitution, to
        name it (its assignments and `$((i++))`s take effect twice: `a="x y"; : > $a$((a=1))` says
        `11: ambiguous redirect`); what is not one word then is named as bash stores it."""
        sh = self.sh
        sh.no_comsub = tuple(_own_comsubs(word.parts))
        try:
            fields = self.expander.target_fields(word)
        finally:
            sh.no_comsub = ()
        if len(fields) == 1:
            name = fields[0]
        else:
            from ..syntax.bashprint import word_text

            name = word_text(word)
        sh.error(f"{name}: ambiguous redirect")

    def _open(self, path: str, flags: str) -> Stream | None:
        if self.state.ulimits and not self._open_room(path):
            return None
        fd = dev_fd(path)
        if fd is None:
            return self._open_file(path, flags)
        real = reopen_target(self.state.fs, self.state.fds.get(fd), flags)
        if real is None:
            return self._shared(path, fd)
        return self._open_file(real, flags, shown=path) if isinstance(real, str) else real

    def _shared(self, path: str, fd: int) -> Stream | None:
        """`/dev/stdout`, `/dev/fd/N`: the stream the shell's descriptor holds (not opened)."""
        stream = self.state.fds.get(fd)
        if stream is None:
            self.sh.error(f"{path}: No such file or directory" if fd > 2 else f"{fd}: Bad file descriptor")
        return stream

    def _open_file(self, path: str, flags: str, clobber: bool = False, shown: str = "") -> Stream | None:
        """Open `path` through the filesystem (its policy, limits and audit); `clobber`: `>|`;
        `shown`: the name the script gave (/dev/fd/N of a file, reopened_path), for messages."""
        if path == "":
            self.sh.error(": No such file or directory")
            return None
        shown = shown or path
        st = self.state
        if flags == "w" and not clobber and st.opts["noclobber"]:
            existing = st.fs.try_stat(path)
            # bash's noclobber_open: a regular file is refused; a name that does not stat is
            # opened O_EXCL, which a dangling symbolic link fails (EEXIST) instead of creating its target
            if (existing is not None and existing.is_file) or (
                existing is None and st.fs.try_lstat(path) is not None
            ):
                self.sh.error(f"{shown}: cannot overwrite existing file")
                return None
        try:
            return st.fs.open(path, flags)
        except FsError as e:
            if flags == "r" and e.code == errno.EISDIR and st.fs.is_dir(path):
                # bash opens a directory for reading (its reads then fail with EISDIR) when the
                # user may read it; otherwise the open itself is refused
                if st.fs.access(path, 4):
                    return DirStream(st.fs.abspath(path))
                e = FsError(errno.EACCES, path)
            self.sh.error(f"{shown}: {e.message}")
            return None

    def _alloc_fd(self) -> int:
        fd = 10
        while fd in self.state.fds:
            fd += 1
        return fd

    def _apply_one(self, r: A.Redir, undo: Undo) -> bool:
        op = r.op
        target = r.target
        file_op = _FILE_OPS.get(op)
        if file_op is not None:  # (the common case first: a file opened on one descriptor)
            assert isinstance(target, A.Word)
            return self._apply_file(r, target, file_op[0], file_op[1], undo)
        if op in ("<<", "<<-"):
            assert isinstance(target, A.HereDoc)
            body = target.body
            quoted = body.parts[0].text if body is not None and target.quoted else ""  # type: ignore[union-attr]
            text = "" if body is None else (quoted if target.quoted else self.expander.heredoc(body))
            if len(text) > self.sh.rt.limits.max_heredoc_size:
                raise LimitExceeded(LimitKind.MAX_HEREDOC_SIZE, self.sh.rt.limits.max_heredoc_size)
            if self.state.ulimits and not self._heredoc_room():
                return False
            stream: Stream = BytesReader(text.encode("utf-8", "surrogateescape"), self.sh.rt.budget)
            return self._bind(r, 0, stream, undo, opened=None)
        assert isinstance(target, A.Word)
        if op == "<<<":
            return self.here_string(r, self.expander.value(target), undo)
        if op in ("<&", ">&"):
            default_fd = 0 if op == "<&" else 1
            # (split and globbed as a file's name is, bash's redirection_expand: `>& 1*` may be `>&10`)
            spec = self._target(target)
            if spec is None:
                return False
            if spec == "" and r.fd_var is None:
                # bash's all_digits takes the empty word for a number, one that is no descriptor;
                # the message names the word for 0 and 1 (which could be a file's name), else the fd
                fd = default_fd if r.fd is None else r.fd
                self.sh.error(f"{target.text if fd < 2 else fd}: Bad file descriptor")
                return False
            if spec == "-":
                fd = r.fd if r.fd is not None else default_fd
                if r.fd_var is not None:
                    var_fd = self._fd_var_value(r.fd_var)
                    if not var_fd:  # (an unset or empty one is an error; another word does nothing)
                        self.sh.error(f"{r.fd_var}: ambiguous redirect")
                        return False
                    if not var_fd.isdigit():
                        return True
                    fd = int(var_fd)
                if fd < self._fd_limit():  # (none is open past the limit)
                    self._set_fd(fd, None, undo)
                return True
            move = spec.endswith("-") and spec[:-1].isdigit()
            if spec.isdigit() or move:
                src = int(spec[:-1] if move else spec)
                stream_src = self.state.fds.get(src)
                if stream_src is None or isinstance(stream_src, ClosedStream):
                    # (bash names the word as written: `$fd: Bad file descriptor`)
                    self.sh.error(f"{src if move else target.text}: Bad file descriptor")
                    return False
                if r.fd_var is None and (default_fd if r.fd is None else r.fd) >= self._fd_limit():
                    self.sh.error(f"{src}: Bad file descriptor")  # (bash names the source when dup2 fails)
                    return False
                ok = self._bind(r, default_fd, stream_src, undo, opened=None, shown=spec)
                # (`1>&1-` leaves 1 open: bash closes the source only when it is another fd)
                if move and ok and (r.fd_var is not None or src != (default_fd if r.fd is None else r.fd)):
                    self._set_fd(src, None, undo)
                return ok
            if op == ">&" and r.fd in (None, 1) and r.fd_var is None:
                # `>& file` and `1>& file` are `&> file` (any other descriptor: ambiguous; the
                # word expanded once: `>& f$((i++))`)
                opened = self._open(spec, "w")
                if opened is None:
                    return False
                self._set_fd(1, opened, undo, opened)
                self._set_fd(2, opened, undo)
                return True
            self._ambiguous(target)  # (bash expands the word again to name it)
            return False
        # what is left (the parser makes no other operator): `&>` and `&>>`
        path = self._target(target)
        if path is None:
            return False
        opened = self._open(path, "a" if op == "&>>" else "w")
        if opened is None:
            return False
        own = opened if dev_fd(path) is None else None
        self._set_fd(1, opened, undo, own)
        self._set_fd(2, opened, undo)
        return True

    def _apply_file(self, r: A.Redir, target: A.Word, flags: str, default_fd: int, undo: Undo) -> bool:
        """`<`, `>`, `>|`, `>>` or `<>`: open the target with `flags` on r.fd or `default_fd`."""
        path = self._target(target)
        if path is None:
            return False
        if self.state.ulimits and not self._open_room(path):
            return False
        fd = dev_fd(path)
        shown = ""
        if fd is not None:
            real = reopen_target(self.state.fs, self.state.fds.get(fd), "w" if flags == "w!" else flags)
            if real is None:  # (a pipe's or a device's stream, shared: nothing to close when undone)
                shared = self._shared(path, fd)
                return shared is not None and self._bind(r, default_fd, shared, undo, None, shown or path)
            if not isinstance(real, str):  # (a file gone from its name: the descriptor's, own offset)
                return self._bind(r, default_fd, real, undo, real, path)
            path, shown = real, path  # (a file: opened anew, as Linux opens the link)
        if flags == "w!":
            opened = self._open_file(path, "w", clobber=True, shown=shown)
        else:
            opened = self._open_file(path, flags, shown=shown)
        if opened is None:
            return False
        return self._bind(r, default_fd, opened, undo, opened, shown or path)

    def close_dropped(self, undo: Undo) -> None:
        """After `exec N>&-`: a pipe's write end no descriptor holds any more is closed, so its
        reader sees end of file (`exec {COPROC[1]}>&-` ends the coprocess's input)."""
        from ..stdio.pipe import PipeWriter  # (pipes: imported by the first one made)

        held = {id(s) for s in self.state.fds.values()}
        for _fd, old, _opened in undo:
            if isinstance(old, PipeWriter) and id(old) not in held:
                old.close()

    def _fd_var_value(self, ref: str) -> str | None:
        """The value of `{name}` or `{arr[sub]}` in a redirection (`exec {COPROC[1]}>&-`)."""
        name, _, sub = ref.partition("[")
        if not sub:
            return self.va.get_str(name)
        var = self.va.lookup(name)
        value = None if var is None else var.value
        if isinstance(value, IndexedArray):
            return value.get(self.va.eval_index(sub[:-1], value))
        if value is None or isinstance(value, str):
            return value if self.va.eval_index(sub[:-1], None) == 0 else None
        return value.get(sub[:-1])

    def _bind(
        self, r: A.Redir, default_fd: int, stream: Stream, undo: Undo, opened: Stream | None, shown: str = ""
    ) -> bool:
        """`stream` on r's descriptor (or a new one for `{var}`); `shown`: the target's name for a
        message."""
        if r.fd_var is not None:
            fd = self._alloc_fd()
            if self.state.ulimits and not self._var_fd_room(fd, shown):
                if opened is not None:
                    opened.close()
                return False
            try:
                name, _, sub = r.fd_var.partition("[")
                self.va.set_var(name, str(fd), sub=sub[:-1] if sub else None)
            except AssignError as e:  # readonly, bad subscript: bash says so and the redirection fails
                if e.named and self.command:  # `exec {r}>f` with r a nameref without a target
                    self.sh.builtin_error(self.command, e.message)
                else:
                    self.sh.error(e.message)
                self.sh.error(f"{r.fd_var}: cannot assign fd to variable")
                if opened is not None:
                    opened.close()
                return False
            if self.state.shopts["varredir_close"]:
                self._set_fd(fd, stream, undo, opened)  # it closes when the command ends (exec keeps it)
                return True
            # {var}> redirections persist: nothing to undo for the fd itself (but each is counted:
            # `exec {fd}>f` in a loop opens a new descriptor every time)
            try:
                self._fd_room(fd)
            except LimitExceeded:
                if opened is not None:
                    opened.close()
                raise
            self.state.fds[fd] = stream
            return True
        fd = r.fd if r.fd is not None else default_fd
        if fd < 0:
            self.sh.error("file descriptor out of range")
            return False
        if fd >= self._fd_limit():
            # a number past the limit names no descriptor there can be: as bash's dup2 to a number
            # past `ulimit -n`, the redirection fails (status 1), no limit ends the run
            self.sh.error(f"{fd}: Bad file descriptor")
            if opened is not None:
                opened.close()
            return False
        self._set_fd(fd, stream, undo, opened)
        return True

    def _var_fd_room(self, fd: int, shown: str) -> bool:
        """`{var}`'s descriptor comes from fcntl(F_DUPFD, 10): past a lowered `ulimit -n` it is
        EINVAL when 10 is, EMFILE when 10 up to the limit are all taken (bash says both)."""
        low = lowered_fd_limit(self.state, self.sh.rt.limits.max_file_descriptors)
        if low is None or fd < low:
            return True
        reason = "Invalid argument" if low <= 10 else "Too many open files"
        self.sh.write_err(f"{self.sh.err_name()}: redirection error: cannot duplicate fd: {reason}\n")
        self.sh.error(f"{shown}: {reason}")
        return False

    def exec_redirects(self, redirs: tuple[A.Redir, ...]) -> int:
        """`exec` with only redirections: apply them for good."""
        undo = self.apply_redirects(redirs)
        if undo is None:
            return 1
        return 0


def _own_comsubs(parts: tuple[A.Part, ...]) -> Iterator[A.CmdSub]:
    """The command substitutions W_NOCOMSUB reaches: the word's and its double quotes'."""
    for p in parts:
        if type(p) is A.CmdSub:
            yield p
        elif type(p) is A.DQ:
            yield from _own_comsubs(p.parts)
