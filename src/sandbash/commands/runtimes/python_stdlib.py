"""Standard modules Monty lacks that work on the program's files, written as Python text run
inside Monty after the prelude (only when the program names them): they reach files through
Monty's own os and open(), so every path goes through the same policy and grants as the
program's, against the cwd the program may have changed with os.chdir (a host-side module would
not see it). python_source.rewrite binds `import glob` / `import shutil` to these objects, as it
binds sys.

- `glob`: glob(), iglob(), escape(), has_magic(), with `recursive=True` (`**`), root_dir and
  include_hidden, matching as CPython's fnmatch (a name starting with "." only for a pattern that
  does too).
- `shutil`: copyfile(), copy(), copy2(), copytree(), rmtree(), move(), which().
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

    def _regex(self, pattern):
        out = []
        i, n = 0, len(pattern)
        while i < n:
            c = pattern[i]
            i += 1
            if c == '*':
                out.append('.*')
            elif c == '?':
                out.append('.')
            elif c == '[':
                j = i
                if j < n and pattern[j] == '!':
                    j += 1
                if j < n and pattern[j] == ']':
                    j += 1
                while j < n and pattern[j] != ']':
                    j += 1
                if j >= n:
                    out.append('\\[')
                else:
                    body = pattern[i:j].replace('\\', '\\\\')
                    i = j + 1
                    if body.startswith('!'):
                        body = '^' + body[1:]
                    elif body.startswith('^'):
                        body = '\\' + body
                    out.append('[' + body + ']')
            else:
                out.append(_sb_re.escape(c))
        return _sb_re.compile('(?s:' + ''.join(out) + ')\\Z')

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
        rx = self._regex(pattern)
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

# module name -> (the prelude's object its import binds, the Python text that defines it)
MODULES = {"glob": ("_sb_glob", GLOB), "shutil": ("_sb_shutil", SHUTIL)}
