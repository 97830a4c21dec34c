"""Standard modules Monty lacks that work on values, not files, written as Python text run inside
Monty after the prelude (only when the program names them, as python_stdlib's): their objects
carry attributes and methods a host module's return value could not (a ParseResult's .hostname,
a UUID's .hex, a Logger), and they print through the program's own print. The string work itself
is the host's (python_modules: `_sb_text`), where CPython's own functions give CPython's answers.

- `urllib.parse`: quote/unquote (and _plus), urlencode, parse_qs/parse_qsl, urljoin, urldefrag,
  urlparse/urlsplit (results with scheme, netloc, path, params, query, fragment, hostname, port,
  username, password, geturl() and _replace()), urlunparse/urlunsplit.
- `uuid`: uuid4() (from Monty's random), UUID(hex) and uuid5/uuid3 over the host's hashing, with
  str(), repr(), .hex, .int, .version, comparisons.
- `pprint`: pprint(), pformat(), pp() over the program's data (CPython's own formatting on a copy).
- `logging`: basicConfig(level, format, datefmt, stream, filename, filemode, force), getLogger()
  with levels, handlers to a stream or file, the %-style record fields and the module-level calls.
"""

URLLIB = r"""
import _sb_text
_SB_URL_FIELDS = {
    'ParseResult': ('scheme', 'netloc', 'path', 'params', 'query', 'fragment'),
    'SplitResult': ('scheme', 'netloc', 'path', 'query', 'fragment'),
    'DefragResult': ('url', 'fragment'),
}


class _SbUrlResult:
    def __init__(self, kind, parts):
        self._kind = kind
        self._fields = _SB_URL_FIELDS[kind]
        self._parts = tuple(parts[:len(self._fields)])
        for name, value in zip(self._fields, self._parts):
            setattr(self, name, value)
        if kind != 'DefragResult':
            self.username, self.password, self.hostname, self.port = parts[len(self._fields):]

    def __iter__(self):
        return iter(self._parts)

    def __getitem__(self, i):
        return self._parts[i]

    def __eq__(self, other):
        return tuple(self) == tuple(other)

    def __repr__(self):
        return self._kind + '(' + ', '.join(n + '=' + repr(v) for n, v in zip(self._fields, self._parts)) + ')'

    def geturl(self):
        if self._kind == 'DefragResult':
            return self.url + ('#' + self.fragment if self.fragment else '')
        if self._kind == 'ParseResult':
            return _sb_text.urlunparse(list(self._parts))
        return _sb_text.urlunsplit(list(self._parts))

    def _replace(self, **kw):
        for k in kw:
            if k not in self._fields:
                raise ValueError('Got unexpected field names: ' + repr([k]))
        parts = [kw.get(n, v) for n, v in zip(self._fields, self._parts)]
        if self._kind == 'ParseResult':
            return _sb_urlparse.urlparse(_sb_text.urlunparse(parts))
        return _sb_urlparse.urlsplit(_sb_text.urlunsplit(parts))

    def count(self, v):
        return self._parts.count(v)

    def index(self, v):
        return self._parts.index(v)


class _SbUrlParse:
    def __init__(self):
        for name in ('quote', 'quote_plus', 'unquote', 'unquote_plus', 'quote_from_bytes',
                     'unquote_to_bytes', 'urlencode', 'parse_qs', 'parse_qsl', 'urljoin'):
            setattr(self, name, getattr(_sb_text, name))

    def urlparse(self, url, scheme='', allow_fragments=True):
        return _SbUrlResult('ParseResult', _sb_text.urlparse_parts(url, scheme, allow_fragments))

    def urlsplit(self, url, scheme='', allow_fragments=True):
        return _SbUrlResult('SplitResult', _sb_text.urlsplit_parts(url, scheme, allow_fragments))

    def urldefrag(self, url):
        return _SbUrlResult('DefragResult', list(_sb_text.urldefrag(url)))

    def urlunparse(self, parts):
        return _sb_text.urlunparse(list(parts))

    def urlunsplit(self, parts):
        return _sb_text.urlunsplit(list(parts))


class _SbUrllib:
    def __init__(self, parse):
        self.parse = parse


_sb_urlparse = _SbUrlParse()
_sb_urllib = _SbUrllib(_sb_urlparse)
"""

UUID = r"""
import _sb_text
import random as _sb_uuid_random


class _SbUUID:
    def __init__(self, hex=None, *, int=None, bytes=None):
        if int is None:
            if bytes is not None:
                hex = bytes.hex()
            if hex is None:
                raise TypeError('one of the hex, bytes, bytes_le, fields, or int arguments must be given')
            digits = hex.replace('urn:', '').replace('uuid:', '').strip('{}').replace('-', '')
            if len(digits) != 32:
                raise ValueError('badly formed hexadecimal UUID string')
            int = _sb_text.int_from_hex(digits)
        if not 0 <= int < 1 << 128:
            raise ValueError('int is out of range (need a 128-bit value)')
        self.int = int
        self.hex = '%032x' % int
        self.urn = 'urn:uuid:' + str(self)
        self.version = (int >> 76) & 0xF if (int >> 62) & 3 == 2 else None

    def __str__(self):
        h = self.hex
        return h[:8] + '-' + h[8:12] + '-' + h[12:16] + '-' + h[16:20] + '-' + h[20:]

    def __repr__(self):
        return "UUID('" + str(self) + "')"

    def __eq__(self, other):
        return isinstance(other, _SbUUID) and other.int == self.int

    def __lt__(self, other):
        return self.int < other.int

    def __hash__(self):
        return hash(self.int)


class _SbUuidModule:
    def __init__(self):
        self.UUID = _SbUUID
        self.NAMESPACE_DNS = _SbUUID('6ba7b810-9dad-11d1-80b4-00c04fd430c8')
        self.NAMESPACE_URL = _SbUUID('6ba7b811-9dad-11d1-80b4-00c04fd430c8')
        self.NAMESPACE_OID = _SbUUID('6ba7b812-9dad-11d1-80b4-00c04fd430c8')
        self.NAMESPACE_X500 = _SbUUID('6ba7b814-9dad-11d1-80b4-00c04fd430c8')

    def _versioned(self, value, version):
        value &= ~(0xC000 << 48)
        value |= 0x8000 << 48
        value &= ~(0xF000 << 64)
        value |= version << 76
        return _SbUUID(int=value)

    def uuid4(self):
        return self._versioned(_sb_uuid_random.getrandbits(128), 4)

    def uuid5(self, namespace, name):
        return _SbUUID(hex=_sb_text.uuid_name_hex(namespace.hex, name, 5))

    def uuid3(self, namespace, name):
        return _SbUUID(hex=_sb_text.uuid_name_hex(namespace.hex, name, 3))


_sb_uuid = _SbUuidModule()
"""

PPRINT = r"""
import _sb_text
class _SbPprint:
    def pformat(self, obj, indent=1, width=80, depth=None, *, compact=False, sort_dicts=True, underscore_numbers=False):
        return _sb_text.pformat(obj, indent, width, depth, compact, sort_dicts, underscore_numbers)

    def pprint(self, obj, stream=None, indent=1, width=80, depth=None, *, compact=False, sort_dicts=True, underscore_numbers=False):
        text = _sb_text.pformat(obj, indent, width, depth, compact, sort_dicts, underscore_numbers)
        if stream is None:
            print(text)
        else:
            stream.write(text + '\n')

    def pp(self, obj, *args, sort_dicts=False, **kwargs):
        self.pprint(obj, *args, sort_dicts=sort_dicts, **kwargs)

    def saferepr(self, obj):
        return _sb_text.pformat(obj, 1, 1 << 30, None, False, True, False)


_sb_pprint = _SbPprint()
"""

LOGGING = r"""
import _sb_text
import time as _sb_log_time

_SB_LEVEL_NAMES = {50: 'CRITICAL', 40: 'ERROR', 30: 'WARNING', 20: 'INFO', 10: 'DEBUG', 0: 'NOTSET'}
_SB_LEVELS = {'CRITICAL': 50, 'FATAL': 50, 'ERROR': 40, 'WARNING': 30, 'WARN': 30, 'INFO': 20, 'DEBUG': 10, 'NOTSET': 0}


def _sb_level(level):
    if isinstance(level, str):
        if level not in _SB_LEVELS:
            raise ValueError('Unknown level: ' + repr(level))
        return _SB_LEVELS[level]
    return level


class _SbLogFormatter:
    def __init__(self, fmt=None, datefmt=None, style='%'):
        if style != '%':
            raise ValueError('sandbash: only %-style logging formats are supported')
        self._fmt = fmt or '%(message)s'
        self.datefmt = datefmt

    def formatTime(self, record, datefmt=None):
        t = _sb_log_time.localtime(record['created'])
        if datefmt:
            return _sb_log_time.strftime(datefmt, t)
        return _sb_log_time.strftime('%Y-%m-%d %H:%M:%S', t) + ',%03d' % record['msecs']

    def format(self, record):
        if '%(asctime)' in self._fmt:
            record['asctime'] = self.formatTime(record, self.datefmt)
        text = _sb_text.log_format(self._fmt, record)
        if record.get('exc_text'):
            text = text + '\n' + record['exc_text']
        return text


class _SbLogHandler:
    def __init__(self, stream=None, filename=None, mode='a'):
        self.level = 0
        self.formatter = None
        self._stream = stream
        self._file = open(filename, mode) if filename is not None else None

    def setLevel(self, level):
        self.level = _sb_level(level)

    def setFormatter(self, fmt):
        self.formatter = fmt

    def handle(self, record):
        if record['levelno'] < self.level:
            return
        text = (self.formatter or _sb_logging._default_formatter).format(record) + '\n'
        if self._file is not None:
            self._file.write(text)
            self._file.flush()
        elif self._stream is None:
            _sb_sys.stderr.write(text)
        else:
            self._stream.write(text)

    def flush(self):
        pass

    def close(self):
        if self._file is not None:
            self._file.close()


class _SbLogger:
    def __init__(self, name, parent):
        self.name = name
        self.parent = parent
        self.level = 0
        self.handlers = []
        self.propagate = True
        self.disabled = False

    def setLevel(self, level):
        self.level = _sb_level(level)

    def getEffectiveLevel(self):
        logger = self
        while logger is not None:
            if logger.level:
                return logger.level
            logger = logger.parent
        return 0

    def isEnabledFor(self, level):
        return not _sb_logging._disabled >= level and level >= self.getEffectiveLevel()

    def addHandler(self, h):
        if h not in self.handlers:
            self.handlers.append(h)

    def removeHandler(self, h):
        if h in self.handlers:
            self.handlers.remove(h)

    def hasHandlers(self):
        logger = self
        while logger is not None:
            if logger.handlers:
                return True
            logger = logger.parent if logger.propagate else None
        return False

    def getChild(self, suffix):
        return _sb_logging.getLogger(suffix if self.name == 'root' else self.name + '.' + suffix)

    def log(self, level, msg, *args, exc_info=None, stack_info=False, stacklevel=1, extra=None):
        level = _sb_level(level)
        if self.disabled or not self.isEnabledFor(level):
            return
        message = str(msg)
        if args:
            message = message % (args[0] if len(args) == 1 and isinstance(args[0], dict) and args[0] else args)
        now = _sb_log_time.time()
        record = {'name': self.name, 'levelno': level, 'levelname': _sb_logging.getLevelName(level),
                  'message': message, 'msg': msg, 'args': args, 'created': now,
                  'msecs': int((now - int(now)) * 1000), 'relativeCreated': (now - _sb_logging._start) * 1000,
                  'filename': _sb_logging._script, 'module': _sb_logging._script.rsplit('.', 1)[0],
                  'funcName': '<module>', 'lineno': 0, 'pathname': _sb_logging._script,
                  'process': 0, 'processName': 'MainProcess', 'thread': 0, 'threadName': 'MainThread',
                  'taskName': None}
        if extra:
            record.update(extra)
        if exc_info:
            record['exc_text'] = _sb_logging._exc_text(exc_info)
        logger = self
        found = False
        while logger is not None:
            for h in logger.handlers:
                found = True
                h.handle(record)
            logger = logger.parent if logger.propagate else None
        if not found and level >= 30:
            _sb_sys.stderr.write(message + '\n')

    def debug(self, msg, *args, **kw):
        self.log(10, msg, *args, **kw)

    def info(self, msg, *args, **kw):
        self.log(20, msg, *args, **kw)

    def warning(self, msg, *args, **kw):
        self.log(30, msg, *args, **kw)

    def warn(self, msg, *args, **kw):
        self.log(30, msg, *args, **kw)

    def error(self, msg, *args, **kw):
        self.log(40, msg, *args, **kw)

    def exception(self, msg, *args, exc_info=True, **kw):
        self.log(40, msg, *args, exc_info=exc_info, **kw)

    def critical(self, msg, *args, **kw):
        self.log(50, msg, *args, **kw)

    def fatal(self, msg, *args, **kw):
        self.log(50, msg, *args, **kw)


class _SbLogging:
    def __init__(self):
        self.CRITICAL = 50
        self.FATAL = 50
        self.ERROR = 40
        self.WARNING = 30
        self.WARN = 30
        self.INFO = 20
        self.DEBUG = 10
        self.NOTSET = 0
        self.BASIC_FORMAT = '%(levelname)s:%(name)s:%(message)s'
        self.Formatter = _SbLogFormatter
        self.Logger = _SbLogger
        self._default_formatter = _SbLogFormatter()
        self._start = _sb_log_time.time()
        self._script = _sb_sys.argv[0].rsplit('/', 1)[-1] if _sb_sys.argv and _sb_sys.argv[0] else '<stdin>'
        self._disabled = -1
        self.root = _SbLogger('root', None)
        self.root.level = 30
        self._loggers = {}
        self.lastResort = None

    def StreamHandler(self, stream=None):
        return _SbLogHandler(stream=stream)

    def FileHandler(self, filename, mode='a', encoding=None, delay=False):
        return _SbLogHandler(filename=filename, mode=mode)

    def NullHandler(self):
        h = _SbLogHandler()
        h.level = 1000
        return h

    def getLogger(self, name=None):
        if not name or name == 'root':
            return self.root
        if name not in self._loggers:
            parent = self.root
            parts = name.split('.')
            for i in range(len(parts) - 1, 0, -1):
                prefix = '.'.join(parts[:i])
                if prefix in self._loggers:
                    parent = self._loggers[prefix]
                    break
            logger = _SbLogger(name, parent)
            for other in self._loggers.values():
                if other.name.startswith(name + '.') and (other.parent is parent):
                    other.parent = logger
            self._loggers[name] = logger
        return self._loggers[name]

    def getLevelName(self, level):
        if level in _SB_LEVEL_NAMES:
            return _SB_LEVEL_NAMES[level]
        if level in _SB_LEVELS:
            return _SB_LEVELS[level]
        return 'Level %s' % level

    def basicConfig(self, *, filename=None, filemode='a', format=None, datefmt=None, style='%',
                    level=None, stream=None, handlers=None, force=False, encoding=None, errors=None):
        if force:
            for h in self.root.handlers:
                h.close()
            self.root.handlers = []
        if not self.root.handlers:
            if handlers is None:
                if filename is not None and stream is not None:
                    raise ValueError("'stream' and 'filename' should not be specified together")
                handlers = [_SbLogHandler(filename=filename, mode=filemode) if filename is not None else _SbLogHandler(stream=stream)]
            fmt = _SbLogFormatter(format or self.BASIC_FORMAT, datefmt, style)
            for h in handlers:
                if h.formatter is None:
                    h.setFormatter(fmt)
                self.root.addHandler(h)
            if level is not None:
                self.root.setLevel(level)

    def disable(self, level=50):
        self._disabled = level

    def _exc_text(self, exc_info):
        # an exception object names itself; exc_info=True would need the handled exception, which
        # Monty does not expose (no sys.exc_info): nothing is added for it
        if isinstance(exc_info, bool) or exc_info is None:
            return None
        e = exc_info[1] if isinstance(exc_info, tuple) else exc_info
        return type(e).__name__ + ': ' + str(e)

    def _top(self, level, msg, args, kw):
        if not self.root.handlers:
            self.basicConfig()
        self.root.log(level, msg, *args, **kw)

    def debug(self, msg, *args, **kw):
        self._top(10, msg, args, kw)

    def info(self, msg, *args, **kw):
        self._top(20, msg, args, kw)

    def warning(self, msg, *args, **kw):
        self._top(30, msg, args, kw)

    def warn(self, msg, *args, **kw):
        self._top(30, msg, args, kw)

    def error(self, msg, *args, **kw):
        self._top(40, msg, args, kw)

    def exception(self, msg, *args, exc_info=True, **kw):
        self._top(40, msg, args, {**kw, 'exc_info': exc_info})

    def critical(self, msg, *args, **kw):
        self._top(50, msg, args, kw)

    def log(self, level, msg, *args, **kw):
        self._top(level, msg, args, kw)

    def shutdown(self):
        pass


_sb_logging = _SbLogging()
"""

# module name -> (the prelude's object its import binds, its Python text, the modules it needs first)
TEXT_MODULES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "urllib.parse": ("_sb_urlparse", URLLIB, ()),
    "urllib": ("_sb_urllib", "", ("urllib.parse",)),
    "uuid": ("_sb_uuid", UUID, ()),
    "pprint": ("_sb_pprint", PPRINT, ()),
    "logging": ("_sb_logging", LOGGING, ()),
}
