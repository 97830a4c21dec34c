"""Python text run inside Monty before the program (its own feed, so the program's line numbers
stay its own): the parts of `sys` and the builtins Monty leaves out, over host callbacks.

- `import sys` in the program is rewritten to bind `_sb_sys` (Monty's `sys` module cannot be
  given attributes): argv, stdin (a Monty file over the command's stdin), stdout/stderr with
  write(), exit(), and the interpreter facts Monty's sys has.
- `print(..., file=X)` accepts any object with write() (Monty's accepts only sys.stdout/stderr).
- `exit()`, `quit()` and `input()` exist.
- `open()` tells the host the path as the program spelled it (Monty sends the host an absolute
  path), so an error names it as CPython would.
Host callbacks: `_sb_exit(code)` records the status and raises SystemExit; `_sb_eof()` raises
the EOFError of input(); `_sb_path_given(path)` notes the spelling of the next open();
`_sb_read_lines()` gives the next lines of stdin (about 64 KiB; [] at the end) to
`_sb_stdin_line()`, which the rewritten `for line in sys.stdin:` loops call; `_sb_system(cmd)`
and `_sb_popen_read(cmd)` run a sandbash command for the rewritten `os.system` / `os.popen`.
"""

PRELUDE = r'''
import sys as _sb_real_sys
_sb_real_print = print
_sb_real_open = open


def open(file, mode='r', *args, **kwargs):
    _sb_path_given(file)
    return _sb_real_open(file, mode, *args, **kwargs)


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


class _SbSys:
    def __init__(self):
        self.argv = _sb_argv
        self.stdin = _sb_real_open('/dev/stdin')
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


def _sb_stdin_line():
    global _sb_lines, _sb_line_at
    if _sb_line_at >= len(_sb_lines):
        _sb_lines = _sb_read_lines()
        _sb_line_at = 0
        if not _sb_lines:
            return ''
    line = _sb_lines[_sb_line_at]
    _sb_line_at += 1
    return line


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
