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


# Run only when the program (as rewritten) names the word: each replaces or adds a builtin Monty
# lacks or gets wrong, at the price of a Python-level call, which a program that never names it
# should not pay.
WHEN_NAMED: dict[str, str] = {
    "_sb_sub": r"""
def _sb_sub(owner, name, *args, **kwargs):
    # owner.sub/subn(...) where owner may be the re module or a compiled pattern: Monty's re takes
    # only a string as the replacement and has no subn. Anything else's sub is its own.
    if type(owner).__name__ == 'Pattern':
        return _sb_sub_with(owner, name, *args, **kwargs)
    if repr(owner) == "<module 're'>":  # (Monty makes a new module object at each import)
        return _sb_sub_module(owner, name, *args, **kwargs)
    return getattr(owner, name)(*args, **kwargs)


def _sb_sub_module(re_module, name, pattern, repl, string, count=0, flags=0):
    compiled = pattern if type(pattern).__name__ == 'Pattern' else re_module.compile(pattern, flags)
    return _sb_sub_with(compiled, name, repl, string, count)


def _sb_sub_with(compiled, name, repl, string, count=0):
    if isinstance(repl, str) or isinstance(repl, bytes):
        joined = compiled.sub(repl, string, count)
        if name == 'sub':
            return joined
        found = len(compiled.findall(string))
        return (joined, min(found, count) if count else found)
    pieces = []
    at = 0
    done = 0
    for m in compiled.finditer(string):
        if count and done >= count:
            break
        pieces.append(string[at:m.start()])
        pieces.append(repl(m))
        at = m.end()
        done += 1
    pieces.append(string[at:])
    joined = (b'' if isinstance(string, bytes) else '').join(pieces)
    return (joined, done) if name == 'subn' else joined
""",
    "_sb_method": r"""
def _sb_method(owner, name, *args, **kwargs):
    # owner.name(...) where Monty's built-in type lacks the method; anything else's is its own
    if type(owner) is str and name == 'translate' and len(args) == 1 and not kwargs:
        return _sb_translate(owner, args[0])
    if type(owner) is str and name == 'format_map' and len(args) == 1 and not kwargs:
        return owner.format(**args[0])
    if (type(owner) is int or type(owner) is bool) and name == 'bit_length' and not args and not kwargs:
        return len(bin(owner).lstrip('-0b')) if owner else 0
    if type(owner) is dict and name in ('move_to_end', 'popitem'):
        return _sb_ordered(owner, name, *args, **kwargs)  # (collections.OrderedDict is dict)
    if name == '_asdict' and not args and not kwargs and hasattr(owner, '_fields'):
        return {key: getattr(owner, key) for key in owner._fields}
    if name == 'relative_to' and type(owner).__name__ in ('PosixPath', 'PurePosixPath') and len(args) == 1:
        return _sb_relative_to(owner, args[0])
    if type(owner).__name__ == 'type' and owner.__name__ in ('datetime', 'date') and name in _SB_CLOCK:
        return _sb_clock(owner, name, *args, **kwargs)
    return getattr(owner, name)(*args, **kwargs)


def _sb_ordered(d, name, *args, **kwargs):
    # OrderedDict's move_to_end(key, last=True) and popitem(last=True) on a dict (ordered alike)
    last = kwargs.pop('last', args[-1] if len(args) == (2 if name == 'move_to_end' else 1) else True)
    if name == 'popitem':
        if not d:
            raise KeyError('dictionary is empty')
        key = list(d)[-1] if last else next(iter(d))
        return (key, d.pop(key))
    key = args[0] if args else kwargs.pop('key')
    value = d.pop(key)
    if last:
        d[key] = value
    else:
        rest = list(d.items())
        d.clear()
        d[key] = value
        d.update(rest)


def _sb_relative_to(path, other):
    # PurePath.relative_to (3.11): other must be a prefix of the path's parts
    base = type(path)(other)
    if path.parts[: len(base.parts)] != base.parts:
        raise ValueError(
            f"{str(path)!r} is not in the subpath of {str(base)!r} OR one path is relative and the other is absolute."
        )
    rest = path.parts[len(base.parts) :]
    return type(path)(*rest) if rest else type(path)('.')


_SB_CLOCK = ('fromtimestamp', 'utcfromtimestamp', 'today')


def _sb_clock(cls, name, stamp=None, tz=None):
    # datetime/date.fromtimestamp, datetime.utcfromtimestamp, date/datetime.today (Monty has none)
    import datetime as _sb_datetime

    utc = _sb_datetime.timezone.utc
    if name == 'today':
        now = _sb_datetime.datetime.now()
        return now.date() if cls.__name__ == 'date' else now
    if type(stamp) is not int and type(stamp) is not float:
        raise TypeError(f"'{type(stamp).__name__}' object cannot be interpreted as an integer")
    whole = int(stamp // 1)
    micro = round((stamp - whole) * 1000000)
    moment = _sb_datetime.datetime(1970, 1, 1, tzinfo=utc) + _sb_datetime.timedelta(seconds=whole, microseconds=micro)
    if name == 'utcfromtimestamp':
        return moment.replace(tzinfo=None)
    moment = moment.astimezone(tz) if tz is not None else moment.astimezone().replace(tzinfo=None)
    return moment.date() if cls.__name__ == 'date' else moment


def _sb_translate(text, table):
    out = []
    for ch in text:
        try:
            new = table[ord(ch)]
        except LookupError:
            out.append(ch)
            continue
        if new is None:
            continue
        if type(new) is int:
            out.append(chr(new))
        elif type(new) is str:
            out.append(new)
        else:
            raise TypeError('character mapping must return integer, None or str')
    return ''.join(out)
""",
    "_sb_maketrans": r"""
def _sb_maketrans(x, y=None, z=None):
    if y is None:
        if type(x) is not dict:
            raise TypeError('if you give only one argument to maketrans it must be a dict')
        table = {}
        for key, value in x.items():
            if type(key) is str:
                if len(key) != 1:
                    raise ValueError('string keys in translate table must be of length 1')
                key = ord(key)
            elif type(key) is not int:
                raise TypeError('keys in translate table must be strings or integers')
            table[key] = value
        return table
    if type(x) is not str or type(y) is not str:
        raise TypeError('maketrans() argument 2 must be str, not ' + type(y).__name__)
    if len(x) != len(y):
        raise ValueError('the first two maketrans arguments must have equal length')
    table = {}
    for a, b in zip(x, y):
        table[ord(a)] = ord(b)
    if z is not None:
        for c in z:
            table[ord(c)] = None
    return table
""",
    "_sb_wraps": r"""
def _sb_wraps(wrapped, assigned=None, updated=None):
    # Monty's functions take no attributes (__doc__, __wrapped__ cannot be copied): the wrapper
    # stays as it is, so a decorator using wraps still works; its name, read through _sb_name,
    # is the wrapped function's
    def decorate(wrapper):
        _sb_names[id(wrapper)] = _sb_name(wrapped)
        return wrapper
    return decorate
""",
    "_sb_name": r"""
_sb_names = {}


def _sb_name(owner):
    # X.__name__: Monty's functions have none (their repr is `<function 'NAME' at 0x...>`); a
    # wrapper made by functools.wraps has the wrapped function's
    known = _sb_names.get(id(owner))
    if known is not None:
        return known
    try:
        return owner.__name__
    except AttributeError:
        shown = repr(owner)
        if shown.startswith("<function '") and "' at 0x" in shown:
            return shown[11 : shown.rindex("' at 0x")]
        if shown.startswith("<built-in function ") and shown.endswith(">"):
            return shown[19:-1]
        raise


def _sb_set_name(owner, name):
    # `X.__name__ = V`: what _sb_name(X) then returns
    _sb_names[id(owner)] = name
""",
    "_sb_exc_attr": r"""
def _sb_exc_attr(error, name):
    # e.returncode, e.msg, ... in an `except` naming subprocess's or json's error classes: Monty's
    # exceptions take no attributes. A subprocess failure's are the host's (the one in flight);
    # a JSONDecodeError's are in its text, "MSG: line L column C (char P)"
    kind = type(error).__name__
    if kind == "JSONDecodeError" and name in ("msg", "lineno", "colno", "pos"):
        head, _, where = str(error).rpartition(": line ")
        line, _, rest = where.partition(" column ")
        column, _, char = rest.partition(" (char ")
        if head and line.isdigit() and column.isdigit() and char[:-1].isdigit():
            return {"msg": head, "lineno": int(line), "colno": int(column), "pos": int(char[:-1])}[name]
    elif kind in ("RuntimeError", "TimeoutError"):
        known = _sb_failure(str(error))
        if known is not None and name in known:
            return known[name]
    return getattr(error, name)
""",
    "_sb_asdict": r"""
def _sb_asdict(obj, dict_factory=dict):
    # dataclasses.asdict (Monty's module has none): fields in order, nested dataclasses, lists,
    # tuples and dicts converted as CPython does
    if not _sb_is_dataclass(obj) or type(obj).__name__ == 'type':
        raise TypeError('asdict() should be called on dataclass instances')
    return _sb_dc_value(obj, dict_factory, True)


def _sb_astuple(obj, tuple_factory=tuple):
    if not _sb_is_dataclass(obj) or type(obj).__name__ == 'type':
        raise TypeError('astuple() should be called on dataclass instances')
    return _sb_dc_value(obj, tuple_factory, False)


def _sb_is_dataclass(obj):
    return hasattr(obj, '__dataclass_fields__')


def _sb_fields(obj):
    if not _sb_is_dataclass(obj):
        raise TypeError('must be called with a dataclass type or instance')
    return tuple(obj.__dataclass_fields__.values())


def _sb_dc_value(obj, factory, as_dict):
    if _sb_is_dataclass(obj) and type(obj).__name__ != 'type':
        values = [(f.name, _sb_dc_value(getattr(obj, f.name), factory, as_dict)) for f in _sb_fields(obj)]
        return factory(values) if as_dict else factory([v for _, v in values])
    if hasattr(obj, '_fields') and isinstance(obj, tuple):
        return type(obj)(*[_sb_dc_value(v, factory, as_dict) for v in obj])
    if type(obj) is list or type(obj) is tuple:
        return type(obj)(_sb_dc_value(v, factory, as_dict) for v in obj)
    if type(obj) is dict:
        return {_sb_dc_value(k, factory, as_dict): _sb_dc_value(v, factory, as_dict) for k, v in obj.items()}
    return obj


def _sb_dc_replace(obj, **changes):
    # dataclasses.replace: a new instance with the changed fields
    if not _sb_is_dataclass(obj) or type(obj).__name__ == 'type':
        raise TypeError('replace() should be called on dataclass instances')
    for f in _sb_fields(obj):
        if getattr(f, 'init', True) and f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)
""",
    "_SbTemplate": r"""
import re as _sb_template_re


class _SbTemplate:
    # string.Template: $name, ${name}, $$ (identifiers as CPython's default pattern, ASCII)
    delimiter = '$'
    _pattern = _sb_template_re.compile(
        r'\$(?:(\$)|([_a-zA-Z][_a-zA-Z0-9]*)|\{([_a-zA-Z][_a-zA-Z0-9]*)\}|())'
    )

    def __init__(self, template):
        self.template = template

    def _fill(self, mapping, kws, safe):
        values = {}
        if mapping is not None:
            for k in mapping:
                values[k] = mapping[k]
        for k in kws:
            values[k] = kws[k]
        out = []
        at = 0
        for m in self._pattern.finditer(self.template):
            out.append(self.template[at:m.start()])
            at = m.end()
            escaped, named, braced, invalid = m.group(1), m.group(2), m.group(3), m.group(4)
            name = named if named is not None else braced
            if escaped is not None:
                out.append('$')
            elif name is not None:
                if name in values:
                    out.append(str(values[name]))
                elif safe:
                    out.append(m.group(0))
                else:
                    raise KeyError(name)
            elif safe:
                out.append(m.group(0))
            else:
                before = self.template[:m.start()]
                line = before.count('\n') + 1
                col = m.start() - (before.rfind('\n') + 1) + 1
                raise ValueError('Invalid placeholder in string: line ' + str(line) + ', col ' + str(col))
        out.append(self.template[at:])
        return ''.join(out)

    def substitute(self, mapping=None, **kws):
        return self._fill(mapping, kws, False)

    def safe_substitute(self, mapping=None, **kws):
        return self._fill(mapping, kws, True)

    def get_identifiers(self):
        names = []
        for m in self._pattern.finditer(self.template):
            name = m.group(2) if m.group(2) is not None else m.group(3)
            if name is not None and name not in names:
                names.append(name)
        return names
""",
    "_sb_environ_os": r"""
import os as _sb_environ_os
""",
    "_sb_environ_call": r"""
import os as _sb_environ_os


def _sb_environ_call(name, *args, **kwargs):
    # os.environ.update/pop/setdefault(...): the changes go to the host (_sb_setenv/_sb_unsetenv)
    env = _sb_environ_os.environ
    if name == 'update':
        if len(args) > 1:
            raise TypeError('update expected at most 1 argument, got ' + str(len(args)))
        pairs = []
        if args:
            other = args[0]
            pairs = [(k, other[k]) for k in other.keys()] if type(other) is dict else list(other)
        for key, value in pairs + list(kwargs.items()):
            _sb_setenv(key, value)
        return None
    if name == 'pop':
        if len(args) == 0 or len(args) > 2 or kwargs:
            raise TypeError('pop expected 1 or 2 arguments')
        if args[0] in env:
            value = env[args[0]]
            _sb_unsetenv(args[0])
            return value
        if len(args) == 2:
            return args[1]
        raise KeyError(args[0])
    if len(args) != 2 or kwargs:
        raise TypeError('setdefault expected 2 arguments')
    if args[0] not in env:
        _sb_setenv(args[0], args[1])
        return args[1]
    return env[args[0]]
""",
    "round": r"""
_sb_real_round = round


def round(number, ndigits=None):
    # CPython rounds a float to ndigits >= 0 on its exact binary value (round(2.675, 2) is 2.67:
    # 2.675 is 2.67499999...); formatting with '.Nf' does the same, Monty's round does not
    if ndigits is None:
        return _sb_real_round(number)
    if type(number) is not float or type(ndigits) is not int or ndigits < 0 or ndigits > 323:
        return _sb_real_round(number, ndigits)
    return float(format(number, '.' + str(ndigits) + 'f'))
""",
    "ascii": r"""
def ascii(obj):
    out = []
    for ch in repr(obj):
        code = ord(ch)
        if code < 128:
            out.append(ch)
        elif code < 0x100:
            out.append('\\x' + format(code, '02x'))
        elif code < 0x10000:
            out.append('\\u' + format(code, '04x'))
        else:
            out.append('\\U' + format(code, '08x'))
    return ''.join(out)
""",
    "callable": r"""
def callable(obj):
    if type(obj).__name__ in ('function', 'builtin_function_or_method', 'type', 'method'):
        return True
    return getattr(obj, '__call__', None) is not None
""",
    "__len__": r"""
_sb_real_len = len


def len(obj):
    # Monty's len() does not call a class's __len__
    try:
        return _sb_real_len(obj)
    except TypeError:
        method = getattr(obj, '__len__', None)
        if method is None:
            raise
    n = method()
    if type(n) is not int:
        raise TypeError("'" + type(n).__name__ + "' object cannot be interpreted as an integer")
    if n < 0:
        raise ValueError('__len__() should return >= 0')
    return n
""",
    "__lt__": r"""
_sb_real_sorted = sorted
_sb_real_min = min
_sb_real_max = max


def _sb_less(a, b):
    # a < b for instances whose class defines __lt__ (Monty's comparisons do not call it);
    # the reflected __gt__ of b as CPython tries it
    method = getattr(a, '__lt__', None)
    if method is not None:
        result = method(b)
        if result is not NotImplemented:
            return result
    method = getattr(b, '__gt__', None)
    if method is not None:
        result = method(a)
        if result is not NotImplemented:
            return result
    raise TypeError("'<' not supported between instances of '" + type(a).__name__ + "' and '" + type(b).__name__ + "'")


def _sb_has_lt(items, key):
    # some item is an instance of a class of the program's that defines __lt__ or __gt__
    for x in items:
        k = key(x) if key is not None else x
        if type(k).__name__ not in _sb_plain_types and (
            getattr(k, '__lt__', None) is not None or getattr(k, '__gt__', None) is not None
        ):
            return True
    return False


_sb_plain_types = ('int', 'float', 'str', 'bytes', 'bool', 'NoneType', 'list', 'tuple', 'dict', 'set')


def _sb_merge_sort(items, key, reverse):
    keyed = [(key(x) if key is not None else x, x) for x in items]
    width = 1
    n = len(keyed)
    while width < n:
        merged = []
        for lo in range(0, n, 2 * width):
            left = keyed[lo:lo + width]
            right = keyed[lo + width:lo + 2 * width]
            i = 0
            j = 0
            while i < len(left) and j < len(right):
                # the right item goes first only when strictly ahead: equal items keep their order
                # either way, as CPython's stable sort (reverse included)
                if _sb_less(left[i][0], right[j][0]) if reverse else _sb_less(right[j][0], left[i][0]):
                    merged.append(right[j])
                    j += 1
                else:
                    merged.append(left[i])
                    i += 1
            merged.extend(left[i:])
            merged.extend(right[j:])
        keyed = merged
        width *= 2
    return [x for _, x in keyed]


def sorted(iterable, key=None, reverse=False):
    items = list(iterable)
    try:
        return _sb_real_sorted(items, key=key, reverse=reverse)
    except TypeError:
        if not _sb_has_lt(items, key):
            raise
    return _sb_merge_sort(items, key, reverse)


def _sb_extreme(name, args, key, default):
    items = list(args[0]) if len(args) == 1 else list(args)
    if not items:
        if default is not _sb_missing:
            return default
        raise ValueError(name + '() iterable argument is empty')
    best = items[0]
    best_key = key(best) if key is not None else best
    for x in items[1:]:
        k = key(x) if key is not None else x
        if _sb_less(k, best_key) if name == 'min' else _sb_less(best_key, k):
            best = x
            best_key = k
    return best


class _SbMissing:
    pass


_sb_missing = _SbMissing()


def _sb_extreme_of(name, real):
    # min/max: Monty's, else (a TypeError with instances whose class defines __lt__) the loop
    def extreme(*args, key=None, default=_sb_missing):
        try:
            if default is _sb_missing:
                return real(*args, key=key)
            return real(*args, key=key, default=default)
        except TypeError:
            if not args or not _sb_has_lt(args[0] if len(args) == 1 else args, key):
                raise
        return _sb_extreme(name, args, key, default)
    return extreme


min = _sb_extreme_of('min', _sb_real_min)
max = _sb_extreme_of('max', _sb_real_max)
""",
}
