"""Prelude texts run inside Monty only when the program (as rewritten) names one of their words
(python_source.named_builtins chooses them): each replaces or adds a builtin, method or module
function Monty lacks or gets wrong, at the price of a Python-level call, which a program that
never names it should not pay. A text is chosen by its key or by a `_sb` function or class it
defines, and brings the texts whose `_sb` names it uses.
"""

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
    if name == 'to_bytes' and (type(owner) is int or type(owner) is bool):
        return _sb_to_bytes(owner, *args, **kwargs)
    if name == 'from_bytes' and owner is int:
        return _sb_from_bytes(*args, **kwargs)
    if name in ('encode', 'decode') and type(owner) is (str if name == 'encode' else bytes):
        return _sb_latin1(owner, name, *args, **kwargs)
    return getattr(owner, name)(*args, **kwargs)


def _sb_to_bytes(n, length=1, byteorder='big', *, signed=False):
    if byteorder not in ('big', 'little'):
        raise ValueError("byteorder must be either 'little' or 'big'")
    if n < 0 and not signed:
        raise OverflowError("can't convert negative int to unsigned")
    span = 1 << (8 * length)
    if (n >= span >> 1 or n < -(span >> 1)) if signed else n >= span:
        raise OverflowError('int too big to convert')
    data = bytes.fromhex(format(n % span, '0%dx' % (2 * length))) if length else b''
    return data if byteorder == 'big' else data[::-1]


def _sb_from_bytes(data, byteorder='big', *, signed=False):
    if byteorder not in ('big', 'little'):
        raise ValueError("byteorder must be either 'little' or 'big'")
    if type(data) is str:
        raise TypeError('cannot convert \'str\' object to bytes')
    digits = ''.join('%02x' % b for b in data)
    if byteorder == 'little':
        digits = ''.join(digits[i - 2 : i] for i in range(len(digits), 0, -2))
    value = int(digits, 16) if digits else 0
    if signed and digits and int(digits[:2], 16) >= 128:
        value -= 1 << (4 * len(digits))
    return value


def _sb_latin1(owner, name, encoding='utf-8', errors='strict'):
    # str.encode / bytes.decode with the latin-1 codec (Monty has none); other codecs are Monty's
    if encoding.lower().replace('_', '-') not in ('latin-1', 'latin1', 'iso-8859-1', 'iso8859-1', 'l1'):
        return getattr(owner, name)(encoding, errors)
    if name == 'decode':
        return ''.join(chr(b) for b in owner)
    out = []
    at = 0
    while at < len(owner):
        code = ord(owner[at])
        if code < 256:
            out.append('%02x' % code)
        elif errors == 'replace':
            out.append('3f')
        elif errors != 'ignore':
            end = at
            while end < len(owner) and ord(owner[end]) > 255:
                end += 1
            shown = ('\\u%04x' if code <= 0xFFFF else '\\U%08x') % code
            where = f"character '{shown}' in position {at}" if end == at + 1 else f'characters in position {at}-{end - 1}'
            raise UnicodeEncodeError(f"'latin-1' codec can't encode {where}: ordinal not in range(256)")
        at += 1
    return bytes.fromhex(''.join(out))


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
    # X.__name__: Monty's functions have none (their repr is `<function 'NAME' at 0x...>` up
    # to Monty 1.6, `<function NAME at 0x...>` from 1.7); a wrapper made by functools.wraps has
    # the wrapped function's
    known = _sb_names.get(id(owner))
    if known is not None:
        return known
    try:
        return owner.__name__
    except AttributeError:
        shown = repr(owner)
        if shown.startswith("<function ") and " at 0x" in shown:
            name = shown[10 : shown.rindex(" at 0x")]
            if len(name) >= 2 and name[0] == "'" and name[-1] == "'":
                name = name[1:-1]
            return name
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
    _sb_dc_instance(obj, 'asdict')
    return _sb_dc_value(obj, dict_factory, True)


def _sb_astuple(obj, tuple_factory=tuple):
    _sb_dc_instance(obj, 'astuple')
    return _sb_dc_value(obj, tuple_factory, False)


def _sb_dc_instance(obj, function):
    if not _sb_is_dataclass(obj) or type(obj).__name__ == 'type':
        raise TypeError(f'{function}() should be called on dataclass instances')


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
    _sb_dc_instance(obj, 'replace')
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
