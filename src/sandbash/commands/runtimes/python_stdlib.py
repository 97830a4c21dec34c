"""Standard modules Monty lacks that work on the program's files, written as Python text run
inside Monty after the prelude (only when the program names them): they reach files through
Monty's own os and open(), so every path goes through the same policy and grants as the
program's, against the cwd the program may have changed with os.chdir (a host-side module would
not see it). python_source.rewrite binds `import glob` / `import shutil` to these objects, as it
binds sys.

- `fnmatch` (fnmatch, fnmatchcase, filter, translate) and `operator` (itemgetter, attrgetter,
  methodcaller and the operator functions).
- `glob`: glob(), iglob(), escape(), has_magic(), with `recursive=True` (`**`), root_dir and
  include_hidden, matching as CPython's fnmatch (a name starting with "." only for a pattern that
  does too).
- `shutil`: copyfile(), copy(), copy2(), copytree(), rmtree(), move(), which().
- `tempfile`: gettempdir(), mkdtemp(), TemporaryDirectory(), NamedTemporaryFile() and
  TemporaryFile() (their contents are kept in an io memory file and written to the named file on
  flush and close: Monty's open() has no update modes). No mkstemp (Monty has no file descriptors).
- `heapq` (pure functions over the program's lists, which a host module could not change in place)
  and `io.StringIO`/`io.BytesIO` (in-memory files), for the same reason: Monty has neither.
"""

from .python_stdlib_text import TEXT_MODULES

FNMATCH = r"""
import os as _sb_os
import re as _sb_re


class _SbFnmatch:
    def translate(self, pat):
        out = []
        i, n = 0, len(pat)
        while i < n:
            c = pat[i]
            i += 1
            if c == '*':
                out.append('.*')
            elif c == '?':
                out.append('.')
            elif c == '[':
                j = i
                if j < n and pat[j] == '!':
                    j += 1
                if j < n and pat[j] == ']':
                    j += 1
                while j < n and pat[j] != ']':
                    j += 1
                if j >= n:
                    out.append('\\[')
                else:
                    body = pat[i:j]
                    i = j + 1
                    negate = body.startswith('!')
                    if negate:
                        body = body[1:]
                    # Monty's regex reads [ inside a class as a nested class and &&, --, ~~ as
                    # set operations: each is escaped (CPython escapes a leading [ and &~|)
                    for c in '\\[&~|^':
                        body = body.replace(c, '\\' + c)
                    out.append('[' + ('^' if negate else '') + body + ']')
            else:
                out.append(_sb_re.escape(c))
        return '(?s:' + ''.join(out) + ')\\Z'

    def _compiled(self, pat):
        rx = self._cache.get(pat)
        if rx is None:
            if len(self._cache) > 256:
                self._cache = {}
            rx = _sb_re.compile(self.translate(pat))
            self._cache[pat] = rx
        return rx

    def fnmatchcase(self, name, pat):
        return self._compiled(pat).match(name) is not None

    def fnmatch(self, name, pat):
        return self.fnmatchcase(_sb_os.path.normcase(name), _sb_os.path.normcase(pat))

    def filter(self, names, pat):
        rx = self._compiled(pat)
        return [n for n in names if rx.match(n) is not None]


_sb_fnmatch = _SbFnmatch()
_sb_fnmatch._cache = {}
"""

GLOB = r"""
import os as _sb_os
import re as _sb_re


class _SbGlob:
    def has_magic(self, s):
        return '*' in s or '?' in s or '[' in s

    def escape(self, pathname):
        drive, rest = '', pathname
        out = []
        for c in rest:
            out.append('[' + c + ']' if c in '*?[' else c)
        return drive + ''.join(out)

    def _list(self, root, dirname, dironly):
        where = _sb_os.path.join(root, dirname) if root else (dirname or _sb_os.curdir)
        try:
            names = _sb_os.listdir(where)
        except OSError:
            return []
        if dironly:
            names = [n for n in names if _sb_os.path.isdir(_sb_os.path.join(where, n))]
        return names

    def _hidden_ok(self, name, pattern, include_hidden):
        return include_hidden or not name.startswith('.') or pattern.startswith('.')

    def _glob1(self, root, dirname, pattern, dironly, include_hidden):
        rx = _sb_fnmatch._compiled(pattern)
        return [
            n for n in self._list(root, dirname, dironly)
            if self._hidden_ok(n, pattern, include_hidden) and rx.match(n)
        ]

    def _glob0(self, root, dirname, basename, dironly):
        where = _sb_os.path.join(root, dirname) if root else dirname
        if basename:
            full = _sb_os.path.join(where, basename) if where else basename
            if _sb_os.path.lexists(full) and (not dironly or _sb_os.path.isdir(full)):
                return [basename]
        elif _sb_os.path.isdir(where or _sb_os.curdir):
            return [basename]
        return []

    def _rlist(self, root, dirname, dironly, include_hidden):
        out = []
        todo = [('', n) for n in sorted(self._list(root, dirname, False), reverse=True)]
        while todo:
            prefix, name = todo.pop()
            if not include_hidden and name.startswith('.'):
                continue
            rel = prefix + name
            where = _sb_os.path.join(root, dirname, rel) if root else _sb_os.path.join(dirname or _sb_os.curdir, rel)
            is_dir = _sb_os.path.isdir(where) and not _sb_os.path.islink(where)
            if not dironly or is_dir:
                out.append(rel)
            if is_dir:
                try:
                    subs = _sb_os.listdir(where)
                except OSError:
                    subs = []
                for sub in sorted(subs, reverse=True):
                    todo.append((rel + '/', sub))
        return out

    def _glob2(self, root, dirname, dironly, include_hidden):
        return [''] + self._rlist(root, dirname, dironly, include_hidden)

    def _iglob(self, pathname, root, recursive, dironly, include_hidden):
        dirname, basename = _sb_os.path.split(pathname)
        if not self.has_magic(pathname):
            return self._glob0(root, dirname, basename, dironly) and [pathname] or []
        if not dirname:
            if recursive and basename == '**':
                return self._glob2(root, dirname, dironly, include_hidden)
            return self._glob1(root, dirname, basename, dironly, include_hidden)
        if dirname != pathname and self.has_magic(dirname):
            dirs = self._iglob(dirname, root, recursive, True, include_hidden)
        else:
            dirs = [dirname]
        out = []
        for d in dirs:
            if recursive and basename == '**':
                names = self._glob2(root, d, dironly, include_hidden)
            elif self.has_magic(basename):
                names = self._glob1(root, d, basename, dironly, include_hidden)
            else:
                names = self._glob0(root, d, basename, dironly)
            for n in names:
                out.append(_sb_os.path.join(d, n))
        return out

    def glob(self, pathname, *, root_dir=None, dir_fd=None, recursive=False, include_hidden=False):
        pathname = _sb_os.fspath(pathname) if hasattr(_sb_os, 'fspath') else str(pathname)
        root = None if root_dir is None else str(root_dir)
        found = self._iglob(pathname, root, recursive, False, include_hidden)
        if (not pathname or (recursive and pathname[:2] == '**')) and found and found[0] == '':
            found = found[1:]  # (the empty match of a leading `**` is not a path)
        return found

    def iglob(self, pathname, *, root_dir=None, dir_fd=None, recursive=False, include_hidden=False):
        return iter(self.glob(pathname, root_dir=root_dir, recursive=recursive, include_hidden=include_hidden))


_sb_glob = _SbGlob()
"""

SHUTIL = r"""
import os as _sb_os


class _SbShutil:
    def copyfileobj(self, fsrc, fdst, length=0):
        fdst.write(fsrc.read())

    def copyfile(self, src, dst, *, follow_symlinks=True):
        src, dst = str(src), str(dst)
        if _sb_os.path.exists(dst) and _sb_os.path.realpath(src) == _sb_os.path.realpath(dst):
            raise OSError(repr(src) + ' and ' + repr(dst) + ' are the same file')
        if _sb_os.path.isdir(src):
            raise IsADirectoryError(21, 'Is a directory', src)
        with open(src, 'rb') as f:
            data = f.read()
        with open(dst, 'wb') as g:
            g.write(data)
        return dst

    def copy(self, src, dst, *, follow_symlinks=True):
        dst = str(dst)
        if _sb_os.path.isdir(dst):
            dst = _sb_os.path.join(dst, _sb_os.path.basename(str(src)))
        return self.copyfile(src, dst)

    def copy2(self, src, dst, *, follow_symlinks=True):
        return self.copy(src, dst)

    def copytree(self, src, dst, symlinks=False, ignore=None, copy_function=None,
                 ignore_dangling_symlinks=False, dirs_exist_ok=False):
        src, dst = str(src), str(dst)
        names = _sb_os.listdir(src)
        ignored = ignore(src, names) if ignore is not None else ()
        _sb_os.makedirs(dst, exist_ok=dirs_exist_ok)
        for name in names:
            if name in ignored:
                continue
            s = _sb_os.path.join(src, name)
            d = _sb_os.path.join(dst, name)
            if _sb_os.path.isdir(s):
                self.copytree(s, d, symlinks, ignore, copy_function, ignore_dangling_symlinks, dirs_exist_ok)
            elif copy_function is not None:
                copy_function(s, d)
            else:
                self.copy2(s, d)
        return dst

    def rmtree(self, path, ignore_errors=False, onerror=None, *, onexc=None, dir_fd=None):
        path = str(path)
        try:
            if _sb_os.path.islink(path):
                raise OSError('Cannot call rmtree on a symbolic link')
            names = _sb_os.listdir(path)
        except OSError:
            if ignore_errors:
                return
            raise
        for name in names:
            full = _sb_os.path.join(path, name)
            if _sb_os.path.isdir(full) and not _sb_os.path.islink(full):
                self.rmtree(full, ignore_errors)
            else:
                try:
                    _sb_os.remove(full)
                except OSError:
                    if not ignore_errors:
                        raise
        try:
            _sb_os.rmdir(path)
        except OSError:
            if not ignore_errors:
                raise

    def move(self, src, dst, copy_function=None):
        src, dst = str(src), str(dst)
        real = dst
        if _sb_os.path.isdir(dst):
            real = _sb_os.path.join(dst, _sb_os.path.basename(src.rstrip('/')))
            if _sb_os.path.exists(real):
                raise OSError("Destination path '" + real + "' already exists")
        _sb_os.rename(src, real)
        return real

    def which(self, cmd, mode=None, path=None):
        cmd = str(cmd)
        if '/' in cmd:
            return cmd if _sb_os.path.isfile(cmd) else None
        dirs = path if path is not None else _sb_os.environ.get('PATH', '/bin:/usr/bin')
        for d in dirs.split(':'):
            full = _sb_os.path.join(d or '.', cmd)
            if _sb_os.path.isfile(full):
                return full
        return None


_sb_shutil = _SbShutil()
"""


HEAPQ = r"""
class _SbHeapq:
    def _up(self, heap, pos):
        item = heap[pos]
        while pos > 0:
            parent = (pos - 1) >> 1
            if item < heap[parent]:
                heap[pos] = heap[parent]
                pos = parent
            else:
                break
        heap[pos] = item

    def _down(self, heap, pos):
        end = len(heap)
        item = heap[pos]
        while True:
            child = 2 * pos + 1
            if child >= end:
                break
            if child + 1 < end and heap[child + 1] < heap[child]:
                child += 1
            if heap[child] < item:
                heap[pos] = heap[child]
                pos = child
            else:
                break
        heap[pos] = item

    def heappush(self, heap, item):
        heap.append(item)
        self._up(heap, len(heap) - 1)

    def heappop(self, heap):
        last = heap.pop()
        if not heap:
            return last
        top = heap[0]
        heap[0] = last
        self._down(heap, 0)
        return top

    def heapify(self, heap):
        for pos in range(len(heap) // 2 - 1, -1, -1):
            self._down(heap, pos)

    def heapreplace(self, heap, item):
        top = heap[0]
        heap[0] = item
        self._down(heap, 0)
        return top

    def heappushpop(self, heap, item):
        if heap and heap[0] < item:
            item, heap[0] = heap[0], item
            self._down(heap, 0)
        return item

    def nsmallest(self, n, iterable, key=None):
        return sorted(iterable, key=key)[:n]

    def nlargest(self, n, iterable, key=None):
        return sorted(iterable, key=key, reverse=True)[:n]

    def merge(self, *iterables, key=None, reverse=False):
        out = []
        for it in iterables:
            out.extend(it)
        return iter(sorted(out, key=key, reverse=reverse))


_sb_heapq = _SbHeapq()
"""

IO = r"""
class _SbMemFile:
    def __init__(self, value, empty, newline):
        self._value = value  # the contents, but for the writes at the end in _tail
        self._tail = []  # writes at the end, joined when the contents are read (no copy a write)
        self._size = len(value)
        self._empty = empty
        self._nl = newline
        self._pos = 0
        self.closed = False

    def _check(self):
        if self.closed:
            raise ValueError('I/O operation on closed file.')

    def write(self, s):
        self._check()
        if type(s) is not type(self._empty):
            raise TypeError(type(self._empty).__name__ + ' argument expected, got ' + type(s).__name__)
        if self._pos == self._size:
            self._tail.append(s)
        else:
            v = self._joined()
            if self._pos > len(v):
                v = v + self._pad(self._pos - len(v))
            self._value = v[:self._pos] + s + v[self._pos + len(s):]
        self._pos += len(s)
        self._size = max(self._size, self._pos)
        return len(s)

    def _joined(self):
        if self._tail:
            self._value = self._value + self._empty.join(self._tail)
            self._tail = []
        return self._value

    def _pad(self, n):
        return chr(0) * n if self._empty == '' else bytes(n)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def getvalue(self):
        self._check()
        return self._joined()

    def read(self, size=-1):
        self._check()
        value = self._joined()
        end = len(value) if size is None or size < 0 else self._pos + size
        out = value[self._pos:end]
        self._pos += len(out)
        return out

    def readline(self, size=-1):
        self._check()
        value = self._joined()
        i = value.find(self._nl, self._pos)
        end = len(value) if i < 0 else i + 1
        if size is not None and size >= 0:
            end = min(end, self._pos + size)
        out = value[self._pos:end]
        self._pos = max(self._pos, end)
        return out

    def readlines(self, hint=-1):
        lines = []
        while True:
            line = self.readline()
            if not line:
                return lines
            lines.append(line)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def seek(self, pos, whence=0):
        self._check()
        if whence == 1:
            pos = self._pos + pos
        elif whence == 2:
            pos = self._size + pos
        if pos < 0:
            raise ValueError('negative seek value ' + str(pos))
        self._pos = pos
        return pos

    def tell(self):
        self._check()
        return self._pos

    def truncate(self, size=None):
        self._check()
        size = self._pos if size is None else size
        self._value = self._joined()[:size]
        self._size = len(self._value)
        return size

    def flush(self):
        pass

    def readable(self):
        return True

    def writable(self):
        return True

    def seekable(self):
        return True

    def isatty(self):
        return False

    def close(self):
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _SbIO:
    def StringIO(self, initial_value='', newline='\n'):
        return _SbMemFile(initial_value or '', '', '\n')

    def BytesIO(self, initial_bytes=b''):
        return _SbMemFile(bytes(initial_bytes or b''), b'', b'\n')


_sb_io = _SbIO()
"""

OPERATOR = r"""
class _SbOperator:
    def itemgetter(self, *items):
        if len(items) == 1:
            item = items[0]
            return lambda obj: obj[item]
        return lambda obj: tuple([obj[i] for i in items])

    def _attr(self, obj, name):
        for part in name.split('.'):
            obj = getattr(obj, part)
        return obj

    def attrgetter(self, *names):
        if len(names) == 1:
            name = names[0]
            return lambda obj: self._attr(obj, name)
        return lambda obj: tuple([self._attr(obj, n) for n in names])

    def methodcaller(self, name, *args, **kwargs):
        return lambda obj: getattr(obj, name)(*args, **kwargs)

    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def mul(self, a, b):
        return a * b

    def truediv(self, a, b):
        return a / b

    def floordiv(self, a, b):
        return a // b

    def mod(self, a, b):
        return a % b

    def pow(self, a, b):
        return a ** b

    def neg(self, a):
        return -a

    def pos(self, a):
        return +a

    def abs(self, a):
        return abs(a)

    def and_(self, a, b):
        return a & b

    def or_(self, a, b):
        return a | b

    def xor(self, a, b):
        return a ^ b

    def invert(self, a):
        return ~a

    def lshift(self, a, b):
        return a << b

    def rshift(self, a, b):
        return a >> b

    def eq(self, a, b):
        return a == b

    def ne(self, a, b):
        return a != b

    def lt(self, a, b):
        return a < b

    def le(self, a, b):
        return a <= b

    def gt(self, a, b):
        return a > b

    def ge(self, a, b):
        return a >= b

    def not_(self, a):
        return not a

    def truth(self, a):
        return bool(a)

    def is_(self, a, b):
        return a is b

    def is_not(self, a, b):
        return a is not b

    def contains(self, a, b):
        return b in a

    def concat(self, a, b):
        return a + b

    def getitem(self, a, b):
        return a[b]

    def countOf(self, a, b):
        return len([x for x in a if x is b or x == b])

    def indexOf(self, a, b):
        for i, x in enumerate(a):
            if x is b or x == b:
                return i
        raise ValueError('sequence.index(x): x not in sequence')


_sb_operator = _SbOperator()
"""

TEMPFILE = r"""
import os as _sb_os
import random as _sb_tmp_random


class _SbTempFile:
    # Monty's open() has no update modes ('w+'): the contents live in an io memory file and are
    # written to the named file on flush() and close(), so other commands see them by name
    def __init__(self, path, mode, delete):
        self.name = path
        self.mode = mode
        self._binary = 'b' in mode
        self._mem = _sb_io.BytesIO() if self._binary else _sb_io.StringIO()
        self._delete = delete
        self.closed = False
        self._save()

    def _save(self):
        with open(self.name, 'wb' if self._binary else 'w') as f:
            f.write(self._mem.getvalue())

    def write(self, s):
        return self._mem.write(s)

    def writelines(self, lines):
        self._mem.writelines(lines)

    def read(self, size=-1):
        return self._mem.read(size)

    def readline(self, size=-1):
        return self._mem.readline(size)

    def readlines(self, hint=-1):
        return self._mem.readlines(hint)

    def seek(self, pos, whence=0):
        return self._mem.seek(pos, whence)

    def tell(self):
        return self._mem.tell()

    def truncate(self, size=None):
        return self._mem.truncate(size)

    def __iter__(self):
        return self

    def __next__(self):
        return self._mem.__next__()

    def flush(self):
        if self.closed:
            raise ValueError('I/O operation on closed file.')
        self._save()

    def close(self):
        if self.closed:
            return
        self.closed = True
        if self._delete:
            if _sb_os.path.exists(self.name):
                _sb_os.remove(self.name)
        else:
            self._save()
        self._mem.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _SbTempDir:
    def __init__(self, name, ignore_cleanup_errors):
        self.name = name
        self._ignore = ignore_cleanup_errors

    def cleanup(self):
        if _sb_os.path.exists(self.name):
            _sb_shutil.rmtree(self.name, ignore_errors=self._ignore)

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def __repr__(self):
        return '<TemporaryDirectory ' + repr(self.name) + '>'


class _SbTempfile:
    def __init__(self):
        self.tempdir = None
        self.template = 'tmp'

    def gettempdir(self):
        if self.tempdir is not None:
            return self.tempdir
        for name in ('TMPDIR', 'TEMP', 'TMP'):
            d = _sb_os.environ.get(name)
            if d and _sb_os.path.isdir(d):
                return d
        return '/tmp'

    def gettempprefix(self):
        return self.template

    def _name(self, suffix, prefix, dir):
        folder = dir if dir is not None else self.gettempdir()
        letters = 'abcdefghijklmnopqrstuvwxyz0123456789_'
        for _ in range(100):
            middle = ''.join([_sb_tmp_random.choice(letters) for _ in range(8)])
            path = _sb_os.path.join(folder, (self.template if prefix is None else prefix) + middle + (suffix or ''))
            if not _sb_os.path.exists(path):
                return path
        raise FileExistsError('No usable temporary file name found')

    def mkdtemp(self, suffix=None, prefix=None, dir=None):
        path = self._name(suffix, prefix, dir)
        _sb_os.mkdir(path)
        return _sb_os.path.abspath(path)

    def TemporaryDirectory(self, suffix=None, prefix=None, dir=None, ignore_cleanup_errors=False, *, delete=True):
        return _SbTempDir(self.mkdtemp(suffix, prefix, dir), ignore_cleanup_errors)

    def NamedTemporaryFile(self, mode='w+b', buffering=-1, encoding=None, newline=None, suffix=None,
                           prefix=None, dir=None, delete=True, *, errors=None, delete_on_close=True):
        return _SbTempFile(_sb_os.path.abspath(self._name(suffix, prefix, dir)), mode, delete)

    def TemporaryFile(self, mode='w+b', buffering=-1, encoding=None, newline=None, suffix=None,
                      prefix=None, dir=None, *, errors=None):
        return _SbTempFile(_sb_os.path.abspath(self._name(suffix, prefix, dir)), mode, True)


_sb_tempfile = _SbTempfile()
"""

# module name -> (the prelude's object its import binds, the Python text that defines it, the
# modules whose text it needs first)
MODULES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "fnmatch": ("_sb_fnmatch", FNMATCH, ()),
    "operator": ("_sb_operator", OPERATOR, ()),
    "glob": ("_sb_glob", GLOB, ("fnmatch",)),
    "shutil": ("_sb_shutil", SHUTIL, ()),
    "heapq": ("_sb_heapq", HEAPQ, ()),
    "io": ("_sb_io", IO, ()),
    "tempfile": ("_sb_tempfile", TEMPFILE, ("io", "shutil")),
    **TEXT_MODULES,
}
