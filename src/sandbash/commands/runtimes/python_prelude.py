"""Python text run inside Monty before the program (its own feed, so the program's line numbers
stay its own): the parts of `sys` and the builtins Monty leaves out, over host callbacks.

- `import sys` in the program is rewritten to bind `_sb_sys` (Monty's `sys` module cannot be
  given attributes): argv, stdin (a Monty file over the command's stdin), stdout/stderr with
  write(), exit(), and the interpreter facts Monty's sys has.
- `print(..., file=X)` accepts any object with write() (Monty's accepts only sys.stdout/stderr).
- `exit()`, `quit()` and `input()` exist.
- `open()` tells the host the path as the program spelled it (Monty sends the host an absolute
  path), so an error names it as CPython would; a file opened to write is a `_SbWriteFile`, so a
  write after a seek lands there (`_sb_pwrite`), zero-filling a gap past the end; a file opened
  to read is read in at once, so any code can iterate it.
Host callbacks: `_sb_exit(code)` records the status and raises SystemExit; `_sb_eof()` raises
the EOFError of input(); `_sb_path_given(path)` notes the spelling of the next open();
`_sb_read_lines()` gives the next lines of stdin (about 64 KiB; [] at the end) to
`_sb_stdin_line()`, which sys.stdin (`_SbStdin`) and the rewritten `for line in sys.stdin:` loops
call (where sys.stdin is handed on as a value, the rewrite reads the rest first:
`_sb_stdin_loaded()`); `_sb_read_text(n)` serves sys.stdin.read() and `_sb_read_bytes(n)`
sys.stdin.buffer (stdin's bytes as they are); `_sb_system(cmd)`
and `_sb_popen_read(cmd)` run a sandbash command for the rewritten `os.system` / `os.popen`;
`_sb_pwrite(path, pos, data)` / `_sb_truncate(path, size)` write a file at a position / cut it;
`_sb_json_dump` is the rewritten `json.dump` (it calls the file's write() from Python code).
"""

PRELUDE = r'''
import json as _sb_json
import sys as _sb_real_sys
_sb_real_print = print
_sb_real_open = open


def open(file, mode='r', *args, **kwargs):
    _sb_path_given(file)
    f = _sb_real_open(file, mode, *args, **kwargs)
    if isinstance(file, str) and ('w' in mode or 'x' in mode) and '+' not in mode:
        return _SbWriteFile(f, file, 'b' not in mode)
    if 'w' not in mode and 'x' not in mode and 'a' not in mode and not isinstance(file, int):
        # Monty iterates a file it has not read yet only in a for loop (enumerate(f), list(f),
        # sorted(f), csv.reader(f) were errors); a seek reads it in, as its first read would
        f.seek(0)
    return f


class _SbWriteFile:
    """A file opened 'w' or 'x': each write lands at the position, as in CPython (Monty's own
    handle appends wherever the program seeked). Positions count bytes, as CPython's tell()."""

    def __init__(self, f, path, text):
        self._f = f
        self._path = path
        self._text = text
        self._pos = 0
        self._size = 0
        self.name = f.name
        self.mode = f.mode
        self.closed = False
        if text:
            self.encoding = 'UTF-8'

    def _check(self):
        if self.closed:
            raise ValueError('I/O operation on closed file.')

    def write(self, data):
        self._check()
        if self._text:
            if not isinstance(data, str):
                raise TypeError('write() argument must be str, not ' + type(data).__name__)
            raw = data.encode('utf-8', 'surrogateescape')
        elif isinstance(data, str):
            raise TypeError("a bytes-like object is required, not 'str'")
        else:
            raw = bytes(data)
        if self._pos == self._size:
            self._f.write(data)
        else:
            _sb_pwrite(self._path, self._pos, raw)
        self._pos += len(raw)
        if self._pos > self._size:
            self._size = self._pos
        return len(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def seek(self, offset, whence=0):
        self._check()
        if whence not in (0, 1, 2):
            if self._text:
                raise ValueError('invalid whence (' + str(whence) + ', should be 0, 1 or 2)')
            raise OSError('[Errno 6] No such device or address')  # Monty's OSError takes one argument
        if self._text and whence and offset:
            kind = 'cur' if whence == 1 else 'end'
            raise ValueError("can't do nonzero " + kind + '-relative seeks')  # io.UnsupportedOperation
        base = (0, self._pos, self._size)[whence]
        if base + offset < 0:
            if self._text:
                raise ValueError('negative seek position ' + str(offset))
            raise OSError('[Errno 22] Invalid argument')
        self._pos = base + offset
        return self._pos

    def tell(self):
        self._check()
        return self._pos

    def truncate(self, size=None):
        self._check()
        size = self._pos if size is None else size
        if size < 0:
            raise OSError('[Errno 22] Invalid argument')
        _sb_truncate(self._path, size)
        self._size = size
        return size

    def flush(self):
        self._check()

    def writable(self):
        self._check()
        return True

    def readable(self):
        self._check()
        return False

    def seekable(self):
        self._check()
        return True

    def isatty(self):
        self._check()
        return False

    def read(self, *args):
        return self._f.read(*args)

    def close(self):
        if not self.closed:
            self._f.close()
            self.closed = True

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return repr(self._f)


class _SbBinaryWriter:
    def __init__(self, text):
        self._text = text

    def write(self, data):
        self._text.write(data.decode('utf-8', 'replace'))
        return len(data)

    def flush(self):
        pass


class _SbWriter:
    def __init__(self, err):
        self._err = err
        self.buffer = _SbBinaryWriter(self)
        self.encoding = 'utf-8'

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError('write() argument must be str, not ' + type(s).__name__)
        if self._err:
            _sb_real_print(s, end='', file=_sb_real_sys.stderr)
        else:
            _sb_real_print(s, end='')
        return len(s)

    def writelines(self, lines):
        for s in lines:
            self.write(s)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        return 2 if self._err else 1


class _SbStdin:
    """sys.stdin: the command's stdin a chunk of lines at a time (_sb_stdin_line), so it reads as
    CPython's does every way a program reads it (Monty's own file object iterates only in a for
    loop before it is read: `sorted(sys.stdin)`, `list(...)`, `enumerate(...)`, csv.reader were
    errors) and a line ends at "\n" alone."""

    name = '<stdin>'
    mode = 'r'
    encoding = 'utf-8'
    errors = 'strict'
    newlines = None

    def __init__(self):
        self.closed = False
        self.buffer = _SbStdinBuffer()

    def readline(self, size=-1):
        line = _sb_stdin_line()
        if size is not None and 0 <= size < len(line):
            _sb_unread(line[size:])
            line = line[:size]
        return line

    def read(self, size=-1):
        global _sb_all_read
        parts = [_sb_held_text()]
        got = len(parts[0])
        whole = size is None or size < 0
        while (whole or got < size) and not _sb_all_read:
            text = _sb_read_text(-1 if whole else size - got)
            if not text:
                _sb_all_read = True
                break
            parts.append(text)
            got += len(text)
            if whole:
                _sb_all_read = True
        text = ''.join(parts)
        if not whole and size < len(text):
            _sb_unread(text[size:])
            text = text[:size]
        return text

    def readlines(self, hint=-1):
        lines = []
        while True:
            line = _sb_stdin_line()
            if not line:
                return lines
            lines.append(line)

    def __iter__(self):
        return self

    def __next__(self):
        line = _sb_stdin_line()
        if not line:
            raise StopIteration
        return line

    def fileno(self):
        return 0

    def isatty(self):
        return False

    def readable(self):
        return True

    def writable(self):
        return False

    def seekable(self):
        return False

    def close(self):
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _SbStdinBuffer:
    """sys.stdin.buffer: stdin's bytes as they are (lines the text layer holds come first)."""

    def read(self, size=-1):
        held = _sb_held_text().encode('utf-8')
        if _sb_all_read:
            size = len(held) if size is None or size < 0 else size
        elif size is None or size < 0:
            return held + _sb_read_bytes(-1)
        if len(held) >= size:
            _sb_unread(held[size:].decode('utf-8', 'replace'))
            return held[:size]
        return held + _sb_read_bytes(size - len(held))

    def readline(self):
        return _sb_stdin_line().encode('utf-8')

    def readlines(self):
        return [line.encode('utf-8') for line in _sb_sys.stdin.readlines()]

    def __iter__(self):
        return iter(self.readlines())


class _SbSys:
    def __init__(self):
        self.argv = _sb_argv
        self.stdin = _SbStdin()
        self.stdout = _SbWriter(False)
        self.stderr = _SbWriter(True)
        self.__stdin__ = self.stdin
        self.__stdout__ = self.stdout
        self.__stderr__ = self.stderr
        self.version = _sb_real_sys.version
        self.version_info = _sb_real_sys.version_info
        self.platform = 'linux'
        self.maxsize = _sb_real_sys.maxsize
        self.byteorder = _sb_real_sys.byteorder
        self.executable = '/usr/bin/python3'
        self.float_info = _sb_real_sys.float_info
        self.flags = _sb_real_sys.flags
        self.hexversion = _sb_real_sys.hexversion
        self.api_version = _sb_real_sys.api_version
        self.path = []
        self.modules = {}
        self.ps1 = '>>> '

    def exit(self, code=None):
        _sb_exit(code)

    def getrecursionlimit(self):
        return 1000

    def setrecursionlimit(self, n):
        pass

    def getdefaultencoding(self):
        return 'utf-8'


_sb_sys = _SbSys()


def print(*args, sep=' ', end='\n', file=None, flush=False):
    if sep is None:
        sep = ' '
    if end is None:
        end = '\n'
    if file is None or file is _sb_sys.stdout:
        _sb_real_print(*args, sep=sep, end=end)
    elif file is _sb_sys.stderr:
        _sb_real_print(*args, sep=sep, end=end, file=_sb_real_sys.stderr)
    else:
        file.write(sep.join([str(a) for a in args]) + end)


_sb_lines = []
_sb_line_at = 0
_sb_all_read = False


def _sb_stdin_line():
    global _sb_lines, _sb_line_at, _sb_all_read
    if _sb_line_at >= len(_sb_lines):
        if _sb_all_read:
            return ''
        _sb_lines = _sb_read_lines()
        _sb_line_at = 0
        if not _sb_lines:
            _sb_all_read = True
            return ''
    line = _sb_lines[_sb_line_at]
    _sb_line_at += 1
    if not line.endswith('\n') and _sb_line_at >= len(_sb_lines) and not _sb_all_read:
        return line + _sb_stdin_line()  # the rest of a line a read(n) stopped inside
    return line


def _sb_stdin_loaded():
    """sys.stdin with the rest of stdin read: what the program's sys.stdin becomes where it is
    handed to code that iterates or reads it from inside Monty (sorted(), list(), enumerate(),
    json.load, csv.reader, a comprehension), where a host call cannot run."""
    global _sb_lines, _sb_line_at, _sb_all_read
    rest = _sb_lines[_sb_line_at:]
    while not _sb_all_read:
        more = _sb_read_lines()
        if not more:
            _sb_all_read = True
        rest += more
    _sb_lines = rest
    _sb_line_at = 0
    return _sb_sys.stdin


def _sb_unread(text):
    """Give back the end of what was read (a read(n) or readline(n) that cut a line)."""
    global _sb_lines, _sb_line_at
    parts = text.split('\n')
    lines = [part + '\n' for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    _sb_lines = lines + _sb_lines[_sb_line_at:]
    _sb_line_at = 0


def _sb_held_text():
    """The lines read from the host and not yet given to the program, taken."""
    global _sb_lines, _sb_line_at
    text = ''.join(_sb_lines[_sb_line_at:])
    _sb_lines = []
    _sb_line_at = 0
    return text


class _SbPipe:
    """What os.popen(cmd) returns: the command's output, read like a file."""

    def __init__(self, text):
        self._text = text
        self._at = 0

    def read(self, n=-1):
        end = len(self._text) if n is None or n < 0 else self._at + n
        s = self._text[self._at:end]
        self._at += len(s)
        return s

    def readline(self):
        i = self._text.find('\n', self._at)
        end = len(self._text) if i < 0 else i + 1
        s = self._text[self._at:end]
        self._at = end
        return s

    def readlines(self):
        return self.read().splitlines(True)

    def __iter__(self):
        return iter(self.readlines())

    def close(self):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _sb_popen(cmd, mode='r', buffering=-1):
    return _SbPipe(_sb_popen_read(cmd))


def _sb_json_dump(obj, fp, **kwargs):
    fp.write(_sb_json.dumps(obj, **kwargs))


def _sb_writelines(target, lines):
    for line in lines:
        target.write(line)


def exit(code=None):
    _sb_exit(code)


quit = exit


def input(prompt=''):
    if prompt:
        _sb_sys.stdout.write(str(prompt))
    line = _sb_sys.stdin.readline()
    if not line:
        _sb_eof()
    if line.endswith('\n'):
        line = line[:-1]
    return line
'''
