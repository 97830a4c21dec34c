"""The JavaScript side of `node` / `js`: what node gives a CommonJS script, rebuilt over the two
host functions of js_child.py (`__host` for requests, `__write` for output), which this prelude
hides from the program.

console (log/error/warn/info/debug/dir/table-less) with node's util.format and util.inspect
layout (single line up to 80 columns, arrays of more than six short items in columns, depth 2);
process (argv, env, exit, exitCode, cwd, platform, stdout/stderr.write, stdin events, hrtime);
require of fs (sync API and fs.promises over it), path, child_process.execSync (the sandbox
shell), readline (line events over stdin), util, os, events, assert, and local ./files; Buffer
(a Uint8Array with toString/from/concat); setTimeout/setInterval/setImmediate/queueMicrotask run
by the event loop in js_child.py after the main program (timers do not wait: they run in order of
their delay). Anything else is refused with a clear error.
"""

PRELUDE = r"""
// compiled when the worker starts (a spare worker has it ready); run by the first request of a run
globalThis.__sandbash_boot = function () {
'use strict';
const G = globalThis;
const rawHost = G.__host, hostWrite = G.__write;
delete G.__host; delete G.__write;
// a lone surrogate cannot cross into Python: node writes U+FFFD for it
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const rawWrite = (fd, text) => hostWrite(fd, text.replace(LONE, '\ufffd'));

function call(name, ...args) {
  const r = JSON.parse(rawHost(name, JSON.stringify(args)));
  if (r.err) throw fsError(r.err);
  return r.ok;
}
function fsError(e) {
  if (!e.code) return new Error(e.message);
  const where = e.dest !== undefined ? ` '${e.path}' -> '${e.dest}'` : (e.path !== undefined ? ` '${e.path}'` : '');
  const err = new Error(`${e.code}: ${e.message}, ${e.syscall}${where}`);
  err.errno = -e.errno; err.code = e.code; err.syscall = e.syscall;
  if (e.path !== undefined) err.path = e.path;
  if (e.dest !== undefined) err.dest = e.dest;
  return err;
}
const SETUP = call('setup');

// what node 20 has and this QuickJS lacks (ES2022/2023 methods), without enumerable traces
function polyfill(obj, name, fn) {
  if (!(name in obj)) Object.defineProperty(obj, name, {value: fn, writable: true, configurable: true, enumerable: false});
}
function at(i) { const n = Math.trunc(i) || 0, k = n < 0 ? this.length + n : n; return k < 0 || k >= this.length ? undefined : this[k]; }
polyfill(Array.prototype, 'at', at);
polyfill(String.prototype, 'at', at);
polyfill(Object.getPrototypeOf(Uint8Array.prototype), 'at', at);
polyfill(Object, 'hasOwn', (o, k) => Object.prototype.hasOwnProperty.call(o, k));
polyfill(Array.prototype, 'findLast', function (f, t) { for (let i = this.length - 1; i >= 0; i--) if (f.call(t, this[i], i, this)) return this[i]; return undefined; });
polyfill(Array.prototype, 'findLastIndex', function (f, t) { for (let i = this.length - 1; i >= 0; i--) if (f.call(t, this[i], i, this)) return i; return -1; });
polyfill(Array.prototype, 'toSorted', function (f) { return [...this].sort(f); });
polyfill(Array.prototype, 'toReversed', function () { return [...this].reverse(); });
polyfill(Array.prototype, 'toSpliced', function (...a) { const c = [...this]; c.splice(...a); return c; });
polyfill(Array.prototype, 'with', function (i, v) { const c = [...this]; c[i < 0 ? c.length + i : i] = v; return c; });
// en-US number formatting (node's default locale): grouping, 0-3 fraction digits, percent
function formatNumber(x, o) {
  o = o || {};
  let v = Number(x);
  if (!isFinite(v)) return isNaN(v) ? 'NaN' : (v < 0 ? '-∞' : '∞');
  const pct = o.style === 'percent';
  if (pct) v *= 100;
  const minF = o.minimumFractionDigits !== undefined ? o.minimumFractionDigits : 0;
  const maxF = Math.max(minF, o.maximumFractionDigits !== undefined ? o.maximumFractionDigits : (pct ? 0 : 3));
  const abs = Math.abs(v);
  let [int, frac = ''] = abs >= 1e21 ? [BigInt(abs).toString(), ''] : abs.toFixed(maxF).split('.');
  frac = frac.replace(/0+$/, '');
  while (frac.length < minF) frac += '0';
  if (o.useGrouping !== false) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (v < 0 || Object.is(v, -0) ? '-' : '') + int + (frac ? '.' + frac : '') + (pct ? '%' : '');
}
Number.prototype.toLocaleString = function (_locale, o) { return formatNumber(this, o); };
if (typeof G.Intl === 'undefined') {
  G.Intl = {NumberFormat: class { constructor(l, o) { this.o = o; } format(x) { return formatNumber(x, this.o); } }};
}
// ICU's root collation, roughly: letters before case, lower case before upper case, accents after
function collationKey(t) { return t.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase(); }
String.prototype.localeCompare = function (other) {
  const a = String(this), b = String(other);
  const ka = collationKey(a), kb = collationKey(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  if (a === b) return 0;
  const da = a.normalize('NFD').toLowerCase(), db = b.normalize('NFD').toLowerCase();
  if (da !== db) {  // accents: the unaccented letter first
    for (let i = 0; i < Math.min(da.length, db.length); i++) {
      if (da[i] !== db[i]) return /[\u0300-\u036f]/.test(da[i]) ? 1 : -1;
    }
    return da.length < db.length ? -1 : 1;
  }
  for (let i = 0; i < Math.min(a.length, b.length); i++) {  // case: lower case first
    if (a[i] !== b[i]) return a[i] === a[i].toLowerCase() ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
};
polyfill(String.prototype, 'replaceAll', function (a, b) { return typeof a === 'string' ? this.split(a).join(b) : this.replace(a, b); });

// ------------------------------------------------------------------ util.inspect

const IDENT = /^[A-Za-z_$][A-Za-z_$0-9]*$/;
const META = {'\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '\v': '\\x0B', '\\': '\\\\'};
function quote(s) {
  let q = "'";
  if (s.includes("'")) {
    if (!s.includes('"')) q = '"';
    else if (!s.includes('`') && !s.includes('${')) q = '`';
  }
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === q) out += '\\' + q;
    else if (META[ch] !== undefined) out += META[ch];
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
    else out += ch;
  }
  return q + out + q;
}
function primitive(v) {
  switch (typeof v) {
    case 'string': return quote(v);
    case 'number': return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint': return String(v) + 'n';
    case 'symbol': return v.toString();
    default: return String(v);
  }
}
function ctorName(v) {
  let p = v;
  while (p !== null) {
    const d = Object.getOwnPropertyDescriptor(p, 'constructor');
    if (d !== undefined && typeof d.value === 'function' && d.value.name !== '') return d.value.name;
    p = Object.getPrototypeOf(p);
  }
  return null;
}
function fnBase(f) {
  const src = Function.prototype.toString.call(f);
  if (src.startsWith('class')) {
    const ext = Object.getPrototypeOf(f);
    return `[class ${f.name || '(anonymous)'}${ext && ext.name ? ` extends ${ext.name}` : ''}]`;
  }
  let kind = 'Function';
  if (src.startsWith('async')) kind = src.startsWith('async function*') ? 'AsyncGeneratorFunction' : 'AsyncFunction';
  else if (src.startsWith('function*')) kind = 'GeneratorFunction';
  return f.name ? `[${kind}: ${f.name}]` : `[${kind} (anonymous)]`;
}
function keyText(k) {
  if (typeof k === 'symbol') return `[${k.toString()}]`;
  return IDENT.test(k) ? k : quote(k);
}
function property(ctx, v, k, depth) {
  const d = Object.getOwnPropertyDescriptor(v, k);
  let text;
  if (d && (d.get || d.set)) text = d.get ? (d.set ? '[Getter/Setter]' : '[Getter]') : '[Setter]';
  else { ctx.indent += 2; text = value(ctx, v[k], depth + 1); ctx.indent -= 2; }
  return `${keyText(k)}: ${text}`;
}
function arrayItems(ctx, v, depth) {
  const out = [];
  const n = Math.min(v.length, 100);
  let holes = 0;
  const flush = () => { if (holes) { out.push(`<${holes} empty item${holes > 1 ? 's' : ''}>`); holes = 0; } };
  for (let i = 0; i < n; i++) {
    if (!Object.prototype.hasOwnProperty.call(v, i)) { holes++; continue; }
    flush();
    ctx.indent += 2; out.push(value(ctx, v[i], depth + 1)); ctx.indent -= 2;
  }
  flush();
  if (v.length > 100) out.push(`... ${v.length - 100} more item${v.length - 100 > 1 ? 's' : ''}`);
  return out;
}
// arrays of more than six short entries are laid out in aligned columns (node's layout)
function group(ctx, out, v) {
  let total = 0, maxLen = 0;
  const n = out.length - (v.length > 100 ? 1 : 0);
  const lens = [];
  for (let i = 0; i < n; i++) { lens.push(out[i].length); total += out[i].length + 2; if (out[i].length > maxLen) maxLen = out[i].length; }
  const actualMax = maxLen + 2;
  if (actualMax * 3 + ctx.indent >= 80 || !(total / actualMax > 5 || maxLen <= 6)) return out;
  const bias = Math.sqrt(actualMax - total / out.length);
  const biasedMax = Math.max(actualMax - 3 - bias, 1);
  const columns = Math.min(Math.round(Math.sqrt(2.5 * biasedMax * n) / biasedMax),
                           Math.floor((80 - ctx.indent) / actualMax), 3 * 4, 15);
  if (columns <= 1) return out;
  const widths = [];
  for (let c = 0; c < columns; c++) {
    let w = 0;
    for (let j = c; j < n; j += columns) if (lens[j] > w) w = lens[j];
    widths.push(w + 2);
  }
  let numeric = true;
  for (let i = 0; i < n; i++) if (typeof v[i] !== 'number' && typeof v[i] !== 'bigint') { numeric = false; break; }
  const rows = [];
  for (let i = 0; i < n; i += columns) {
    const last = Math.min(i + columns, n);
    let line = '';
    let j = i;
    for (; j < last - 1; j++) {
      const cell = out[j] + ', ';
      line += numeric ? cell.padStart(widths[j - i]) : cell.padEnd(widths[j - i]);
    }
    line += numeric ? out[j].padStart(widths[j - i] - 2) : out[j];
    rows.push(line);
  }
  if (v.length > 100) rows.push(out[out.length - 1]);
  return rows;
}
function fits(out, start, base) {
  let total = out.length + start;
  if (total + out.length > 80) return false;
  for (const o of out) { total += o.length; if (total > 80) return false; }
  return base === '' || !base.includes('\n');
}
function reduce(ctx, out, base, braces, isArray, depth, v) {
  const entries = out.length;
  if (isArray && entries > 6) out = group(ctx, out, v);
  if (ctx.current - depth < 3 && entries === out.length) {
    const start = out.length + ctx.indent + braces[0].length + base.length + 10;
    if (fits(out, start, base)) {
      const joined = out.join(', ');
      if (!joined.includes('\n')) return `${base ? base + ' ' : ''}${braces[0]} ${joined} ${braces[1]}`;
    }
  }
  const ind = '\n' + ' '.repeat(ctx.indent);
  return `${base ? base + ' ' : ''}${braces[0]}${ind}  ${out.join(`,${ind}  `)}${ind}${braces[1]}`;
}
function ownKeys(v, skipIndexes) {
  let keys = Object.keys(v);
  if (skipIndexes) keys = keys.filter((k) => !/^(0|[1-9][0-9]*)$/.test(k));
  for (const s of Object.getOwnPropertySymbols(v)) {
    if (Object.getOwnPropertyDescriptor(v, s).enumerable) keys.push(s);
  }
  return keys;
}
function value(ctx, v, depth) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return primitive(v);
  if (ctx.seen.includes(v)) {
    if (!ctx.refs.has(v)) ctx.refs.set(v, ctx.refs.size + 1);
    return `[Circular *${ctx.refs.get(v)}]`;
  }
  const ctor = ctorName(v);
  let base = '', braces, items = [], isArray = false, skipIndexes = false;
  if (Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView))) {
    isArray = true; skipIndexes = true;
    if (v instanceof BufferClass) {
      const hex = Array.from(v.slice(0, 50), (b) => b.toString(16).padStart(2, '0')).join(' ');
      return `<Buffer${hex ? ' ' + hex : ''}${v.length > 50 ? ` ... ${v.length - 50} more bytes` : ''}>`;
    }
    const prefix = ctor === 'Array' ? '' : `${ctor === null ? '[Array: null prototype]' : ctor}(${v.length}) `;
    braces = [`${prefix}[`, ']'];
  } else if (typeof v === 'function') {
    base = fnBase(v);
    braces = ['{', '}'];
  } else if (v instanceof Map) {
    braces = [`${ctor === 'Map' ? 'Map' : ctor}(${v.size}) {`, '}'];
  } else if (v instanceof Set) {
    braces = [`${ctor === 'Set' ? 'Set' : ctor}(${v.size}) {`, '}'];
  } else if (v instanceof Date) {
    base = isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
    braces = ['{', '}'];
  } else if (v instanceof RegExp) {
    base = String(v);
    braces = ['{', '}'];
  } else if (v instanceof Error) {
    base = errorText(v);
    braces = ['{', '}'];
  } else if (v instanceof Number || v instanceof String || v instanceof Boolean) {
    const t = v instanceof Number ? 'Number' : v instanceof String ? 'String' : 'Boolean';
    base = `[${t}: ${primitive(v.valueOf())}]`;
    braces = ['{', '}'];
    skipIndexes = v instanceof String;
  } else if (v instanceof Promise) {
    braces = ['Promise {', '}'];
    items = ['<pending>'];
  } else {
    const prefix = ctor === null ? '[Object: null prototype] ' : (ctor === 'Object' ? '' : `${ctor} `);
    braces = [`${prefix}{`, '}'];
  }
  const keys = ownKeys(v, skipIndexes);
  const sized = isArray ? v.length : (v instanceof Map || v instanceof Set) ? v.size : 0;
  if (keys.length === 0 && sized === 0 && items.length === 0) {
    if (base) return base;
    return isArray ? `${braces[0]}]` : `${braces[0]}}`;
  }
  if (depth > ctx.depth) return `[${ctor === null ? 'Object' : (isArray && ctor === 'Array') ? 'Array' : ctor}]`;
  ctx.seen.push(v);
  ctx.current = depth;
  if (isArray) items = arrayItems(ctx, v, depth);
  else if (v instanceof Map) {
    ctx.indent += 2;
    for (const [k, x] of v) items.push(`${value(ctx, k, depth + 1)} => ${value(ctx, x, depth + 1)}`);
    ctx.indent -= 2;
  } else if (v instanceof Set) {
    ctx.indent += 2;
    for (const x of v) items.push(value(ctx, x, depth + 1));
    ctx.indent -= 2;
  }
  for (const k of keys) items.push(property(ctx, v, k, depth));
  ctx.seen.pop();
  if (ctx.refs.has(v)) base = `<ref *${ctx.refs.get(v)}>` + (base ? ' ' + base : '');
  return reduce(ctx, items, base, braces, isArray, depth, v);
}
function inspect(v, opts) {
  const depth = opts && opts.depth !== undefined ? (opts.depth === null ? Infinity : opts.depth) : 2;
  return value({seen: [], refs: new Map(), indent: 0, current: 0, depth}, v, 0);
}
// the frames of the program only: the prelude's own (below its eval) are cut
function programStack(e) {
  if (typeof e.stack !== 'string') return '';
  const lines = e.stack.split('\n');
  const cut = lines.findIndex((l) => l.includes('at eval (native)'));
  return (cut >= 0 ? lines.slice(0, cut) : lines).filter((l) => l !== '').join('\n').replace(/<input>/g, SETUP.filename);
}
// QuickJS words a few common errors differently from V8: say them as node does when reporting
const V8_WORDING = [
  [/^'([^']*)' is not defined$/, '$1 is not defined'],
  [/^cannot read property '([^']*)' of (undefined|null)$/, "Cannot read properties of $2 (reading '$1')"],
  [/^cannot set property '([^']*)' of (undefined|null)$/, "Cannot set properties of $2 (setting '$1')"],
];
function v8Message(m) {
  for (const [re, to] of V8_WORDING) if (re.test(m)) return m.replace(re, to);
  return m;
}
function errorText(e) {
  const head = `${e.name}: ${v8Message(String(e.message))}`;
  const stack = programStack(e).replace(`${e.name}: ${e.message}`, head);
  if (stack.startsWith(head)) return stack;
  return stack ? `${head}\n${stack}` : head;
}
function format(...args) {
  let out = '';
  let i = 0;
  if (typeof args[0] === 'string') {
    const f = args[0];
    i = 1;
    let last = 0;
    for (let p = 0; p < f.length - 1; p++) {
      if (f[p] !== '%') continue;
      const c = f[p + 1];
      let rep;
      if (c === '%') { out += f.slice(last, p) + '%'; last = p + 2; p++; continue; }
      if (i >= args.length || !'sdifjoOc'.includes(c)) continue;
      const a = args[i];
      if (c === 's') rep = typeof a === 'string' ? a : typeof a === 'bigint' ? a + 'n'
        : (typeof a === 'object' && a !== null) ? inspect(a, {depth: 1}) : primitive(a);
      else if (c === 'd') rep = typeof a === 'bigint' ? a + 'n' : (typeof a === 'object' && a !== null) ? 'NaN' : primitive(Number(a));
      else if (c === 'i') rep = typeof a === 'bigint' ? a + 'n' : String(parseInt(a));
      else if (c === 'f') rep = String(parseFloat(a));
      else if (c === 'j') { try { rep = JSON.stringify(a); } catch (e) { rep = '[Circular]'; } }
      else if (c === 'o' || c === 'O') rep = inspect(a, {depth: c === 'o' ? 4 : 2});
      else rep = '';
      out += f.slice(last, p) + rep;
      last = p + 2; p++; i++;
    }
    out += f.slice(last);
  }
  for (; i < args.length; i++) {
    const a = args[i];
    out += (out === '' && i === 0 ? '' : ' ') + (typeof a === 'string' ? a : inspect(a));
  }
  return out;
}

// ------------------------------------------------------------------ Buffer

function latin1(bytes) { let s = ''; for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192)); return s; }
function fromLatin1(s) { const b = new BufferClass(s.length); for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i); return b; }
class BufferClass extends Uint8Array {
  static from(x, enc) {
    if (typeof x === 'string') {
      if (enc === 'base64') return fromLatin1(call('base64decode', x));
      if (enc === 'hex') { const b = new BufferClass(x.length >> 1); for (let i = 0; i < b.length; i++) b[i] = parseInt(x.substr(2 * i, 2), 16); return b; }
      if (enc === 'latin1' || enc === 'binary') return fromLatin1(x);
      return fromLatin1(call('utf8encode', x));
    }
    const b = new BufferClass(x.length); b.set(x); return b;
  }
  static alloc(n, fill) { const b = new BufferClass(n); if (fill !== undefined) b.fill(typeof fill === 'string' ? fill.charCodeAt(0) : fill); return b; }
  static isBuffer(x) { return x instanceof BufferClass; }
  static byteLength(s) { return typeof s === 'string' ? call('utf8encode', s).length : s.length; }
  static concat(list) { let n = 0; for (const b of list) n += b.length; const out = new BufferClass(n); let o = 0; for (const b of list) { out.set(b, o); o += b.length; } return out; }
  toString(enc, start, end) {
    const part = (start !== undefined || end !== undefined) ? this.subarray(start || 0, end) : this;
    const s = latin1(part);
    if (enc === 'latin1' || enc === 'binary' || enc === 'ascii') return s;
    if (enc === 'hex') return Array.from(part, (b) => b.toString(16).padStart(2, '0')).join('');
    if (enc === 'base64') return call('base64encode', s);
    return call('utf8decode', s);
  }
  toJSON() { return {type: 'Buffer', data: Array.from(this)}; }
  equals(o) { if (o.length !== this.length) return false; for (let i = 0; i < o.length; i++) if (o[i] !== this[i]) return false; return true; }
  write(s, offset) { const b = BufferClass.from(s); this.set(b, offset || 0); return b.length; }
}
Object.defineProperty(BufferClass, 'name', {value: 'Buffer'});
function toBytes(data, enc) {
  if (typeof data === 'string') return enc === 'latin1' || enc === 'binary' ? data : call('utf8encode', data);
  if (ArrayBuffer.isView(data)) return latin1(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return call('utf8encode', String(data));
}

// ------------------------------------------------------------------ process, console

const outStream = (fd) => ({
  write(chunk, enc, cb) {
    rawWrite(fd, typeof chunk === 'string' ? chunk : call('utf8decode', toBytes(chunk)));
    if (typeof enc === 'function') enc(); else if (typeof cb === 'function') cb();
    return true;
  },
  isTTY: false, fd, columns: 80, on() { return this; }, once() { return this; }, end() {},
});
const listeners = {};
function on(name, fn) { (listeners[name] = listeners[name] || []).push(fn); }
const stdin = {
  fd: 0, isTTY: false, encoding: null,
  setEncoding(e) { this.encoding = e; return this; },
  on(ev, fn) { on('stdin:' + ev, fn); if (ev === 'data' || ev === 'readable' || ev === 'end') wantStdin(); return this; },
  once(ev, fn) { return this.on(ev, fn); },
  resume() { wantStdin(); return this; }, pause() { return this; },
  read() { const d = readAllStdin(); return d === '' ? null : d; },
  [Symbol.asyncIterator]() { wantStdin(); let done = false; return {next() { if (done) return Promise.resolve({done: true}); done = true; const d = readAllStdin(); return Promise.resolve(d === '' ? {done: true} : {value: d, done: false}); }}; },
};
let stdinText = null;
function readAllStdin() { if (stdinText === null) stdinText = call('readStdin'); return stdinText; }
// stdin as it comes, for `data` and `line` events: chunks decoded as UTF-8 across their boundaries
let utf8Tail = '', wholeServed = false;
function stdinChunk() {
  if (stdinText !== null) { if (wholeServed) return null; wholeServed = true; return stdinText; }
  const raw = call('readStdinChunk');
  if (raw === null) { const t = utf8Tail; utf8Tail = ''; return t ? call('utf8decode', t) : null; }
  const data = utf8Tail + raw;
  let cut = data.length;
  for (let i = data.length - 1; i >= Math.max(0, data.length - 3); i--) {
    const c = data.charCodeAt(i);
    if (c < 0x80) break;
    if (c >= 0xC0) { if (data.length - i < (c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2)) cut = i; break; }
  }
  utf8Tail = data.slice(cut);
  return call('utf8decode', data.slice(0, cut));
}
const stdinConsumers = [];  // readline interfaces over stdin: {text(chunk), end()}
let pumping = false;
function wantStdin() {
  if (pumping) return;
  pumping = true;
  const pump = () => {
    const text = stdinChunk();
    if (text === null) {
      for (const c of stdinConsumers) c.end();
      for (const fn of listeners['stdin:readable'] || []) fn();
      for (const fn of listeners['stdin:end'] || []) fn();
      for (const fn of listeners['stdin:close'] || []) fn();
      return;
    }
    for (const c of stdinConsumers) c.text(text);
    if (text !== '') {
      const data = stdin.encoding ? text : fromLatin1(call('utf8encode', text));
      for (const fn of listeners['stdin:data'] || []) fn(data);
    }
    macro.push(pump);
  };
  macro.push(pump);
}
class ExitSignal { constructor(code) { this.code = code; } }
const process = {
  argv: SETUP.argv, env: SETUP.env, argv0: 'node', execPath: '/usr/bin/node', execArgv: [],
  platform: 'linux', arch: 'x64', pid: 1, ppid: 0, version: SETUP.version,
  versions: {node: SETUP.version.slice(1), quickjs: 'embedded'}, release: {name: 'node'},
  exitCode: undefined,
  stdout: outStream(1), stderr: outStream(2), stdin,
  exit(code) {
    const c = code === undefined ? (process.exitCode === undefined ? 0 : process.exitCode) : code;
    call('exit', Number(c) | 0);
    throw new ExitSignal(c);
  },
  cwd() { return call('cwd'); },
  chdir() { throw new Error('process.chdir() is not supported in sandbash'); },
  hrtime: Object.assign((prev) => { const t = call('now') * 1e6; const s = Math.floor(t / 1e9), n = Math.floor(t % 1e9); return prev ? [s - prev[0], n - prev[1]] : [s, n]; }, {bigint: () => BigInt(Math.floor(call('now') * 1e6))}),
  uptime() { return call('now') / 1000 - SETUP.start; },
  memoryUsage() { return {rss: 0, heapTotal: 0, heapUsed: 0, external: 0}; },
  nextTick(fn, ...a) { Promise.resolve().then(() => fn(...a)); },
  on(ev, fn) { on('process:' + ev, fn); return process; }, once(ev, fn) { return process.on(ev, fn); },
  emitWarning(w) { rawWrite(2, `(node) Warning: ${w}\n`); },
};
const counts = {};
const timers = {};
const console = {
  log: (...a) => rawWrite(1, format(...a) + '\n'),
  info: (...a) => rawWrite(1, format(...a) + '\n'),
  debug: (...a) => rawWrite(1, format(...a) + '\n'),
  error: (...a) => rawWrite(2, format(...a) + '\n'),
  warn: (...a) => rawWrite(2, format(...a) + '\n'),
  trace: (...a) => rawWrite(2, 'Trace: ' + format(...a) + '\n'),
  dir: (v, o) => rawWrite(1, inspect(v, o) + '\n'),
  assert: (ok, ...a) => { if (!ok) rawWrite(2, 'Assertion failed' + (a.length ? ': ' + format(...a) : '') + '\n'); },
  count: (l = 'default') => { counts[l] = (counts[l] || 0) + 1; rawWrite(1, `${l}: ${counts[l]}\n`); },
  time: (l = 'default') => { timers[l] = call('now'); },
  timeEnd: (l = 'default') => { rawWrite(1, `${l}: ${(call('now') - timers[l]).toFixed(3)}ms\n`); },
  table: (v) => rawWrite(1, (v !== null && typeof v === 'object' ? table(v) : format(v)) + '\n'),
  group: () => {}, groupEnd: () => {},
};

// console.table: node's box of (index), the keys of object rows, then Values for the others
function table(data) {
  const rowKeys = data instanceof Map ? [...data.keys()] : Object.keys(data);
  const get = (k) => (data instanceof Map ? data.get(k) : data[k]);
  const cols = [];
  let hasValues = false;
  for (const k of rowKeys) {
    const v = get(k);
    if (v !== null && typeof v === 'object') { for (const c of Object.keys(v)) if (!cols.includes(c)) cols.push(c); }
    else hasValues = true;
  }
  const head = ['(index)', ...cols, ...(hasValues ? ['Values'] : [])];
  const rows = rowKeys.map((k) => {
    const v = get(k);
    const isObj = v !== null && typeof v === 'object';
    const cells = cols.map((c) => (isObj && Object.prototype.hasOwnProperty.call(v, c) ? inspect(v[c]) : ''));
    if (hasValues) cells.push(isObj ? '' : inspect(v));
    return [data instanceof Map ? inspect(k) : String(k), ...cells];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)) + 2);
  const line = (l, m, r) => l + widths.map((w) => '─'.repeat(w)).join(m) + r;
  const row = (cells) => '│' + cells.map((c, i) => ' ' + c.padEnd(widths[i] - 1)).join('│') + '│';
  return [line('┌', '┬', '┐'), row(head), line('├', '┼', '┤'), ...rows.map(row), line('└', '┴', '┘')].join('\n');
}

// ------------------------------------------------------------------ timers: the event loop's queue

const macro = [];
let timerQueue = [];
let timerSeq = 0;
let clock = 0;
function addTimer(fn, ms, args, repeat) {
  const t = {id: ++timerSeq, at: clock + Math.max(1, Number(ms) || 0), fn, args, repeat: repeat ? Math.max(1, Number(ms) || 0) : 0, seq: timerSeq};
  timerQueue.push(t);
  return {ref() { return this; }, unref() { return this; }, hasRef() { return true; }, [Symbol.toPrimitive]() { return t.id; }, _t: t};
}
function clearTimer(h) { const id = h && h._t ? h._t.id : h; timerQueue = timerQueue.filter((t) => t.id !== id); }
G.setTimeout = (fn, ms, ...a) => addTimer(fn, ms, a, false);
G.setInterval = (fn, ms, ...a) => addTimer(fn, ms, a, true);
G.setImmediate = (fn, ...a) => addTimer(fn, 0, a, false);
G.clearTimeout = clearTimer; G.clearInterval = clearTimer; G.clearImmediate = clearTimer;
G.queueMicrotask = (fn) => { Promise.resolve().then(fn); };
G.TextEncoder = class TextEncoder { get encoding() { return 'utf-8'; } encode(s = '') { return new Uint8Array(fromLatin1(call('utf8encode', String(s)))); } };
G.TextDecoder = class TextDecoder { get encoding() { return 'utf-8'; } decode(b) { return b === undefined ? '' : call('utf8decode', latin1(b instanceof Uint8Array ? b : new Uint8Array(b.buffer || b))); } };
G.btoa = (s) => call('base64encode', String(s));
G.atob = (s) => call('base64decode', String(s));
G.structuredClone = (v) => JSON.parse(JSON.stringify(v));

// ------------------------------------------------------------------ modules

function statObject(s) {
  return {size: s.size, mode: s.mode, mtimeMs: s.mtime * 1000, mtime: new Date(s.mtime * 1000),
          isFile: () => s.isFile, isDirectory: () => s.isDir, isSymbolicLink: () => s.isLink,
          uid: 0, gid: 0, nlink: 1};
}
function encOf(o) { return typeof o === 'string' ? o : (o && o.encoding) || null; }
function pathArg(p) { if (p === 0 || p === '/dev/stdin') return 0; return String(p instanceof URL_ ? p.pathname : p); }
const URL_ = typeof URL === 'function' ? URL : class {};
const fs = {
  readFileSync(p, o) {
    const path = pathArg(p);
    const enc = encOf(o);
    const data = path === 0 ? call('utf8encode', readAllStdin()) : call('readFile', path);
    if (enc === 'latin1' || enc === 'binary') return data;
    return enc ? call('utf8decode', data) : fromLatin1(data);
  },
  writeFileSync(p, data, o) { call('writeFile', pathArg(p), toBytes(data, encOf(o)), !!(o && o.flag === 'a')); },
  appendFileSync(p, data, o) { call('writeFile', pathArg(p), toBytes(data, encOf(o)), true); },
  existsSync(p) { try { return call('exists', pathArg(p)); } catch (e) { return false; } },
  readdirSync(p, o) {
    const names = call('readdir', pathArg(p));
    if (o && o.withFileTypes) return names.map((n) => { const s = call('stat', pathArg(p) + '/' + n, false); return {name: n, isFile: () => s.isFile, isDirectory: () => s.isDir, isSymbolicLink: () => s.isLink}; });
    return names;
  },
  statSync(p) { return statObject(call('stat', pathArg(p), true)); },
  lstatSync(p) { return statObject(call('stat', pathArg(p), false)); },
  mkdirSync(p, o) { call('mkdir', pathArg(p), !!(o && o.recursive)); },
  unlinkSync(p) { call('unlink', pathArg(p)); },
  rmdirSync(p, o) { call('rm', pathArg(p), !!(o && o.recursive), false, true); },
  rmSync(p, o) { call('rm', pathArg(p), !!(o && o.recursive), !!(o && o.force), false); },
  renameSync(a, b) { call('rename', pathArg(a), pathArg(b)); },
  copyFileSync(a, b) { call('writeFile', pathArg(b), call('readFile', pathArg(a)), false); },
  realpathSync(p) { return call('realpath', pathArg(p)); },
  accessSync(p) { call('stat', pathArg(p), true); },
  openSync() { throw new Error('fs.openSync is not supported in sandbash (use readFileSync/writeFileSync)'); },
  createReadStream: (p, o) => new ReadStream(pathArg(p), encOf(o)),
  createWriteStream: (p, o) => new WriteStream(pathArg(p), !!(o && o.flags === 'a')),
  constants: {F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1},
};
class EventEmitter {
  constructor() { this._ev = {}; }
  on(n, f) { (this._ev[n] = this._ev[n] || []).push(f); return this; }
  addListener(n, f) { return this.on(n, f); }
  once(n, f) { const w = (...a) => { this.off(n, w); f(...a); }; return this.on(n, w); }
  off(n, f) { this._ev[n] = (this._ev[n] || []).filter((x) => x !== f); return this; }
  removeListener(n, f) { return this.off(n, f); }
  emit(n, ...a) { const l = this._ev[n] || []; for (const f of [...l]) f(...a); return l.length > 0; }
}
// streams over a whole file: its text is read when the event loop starts the stream
class ReadStream extends EventEmitter {
  constructor(path, enc) { super(); this.path = path; this.encoding = enc; this._consumers = []; this._started = false; this._start(); }
  setEncoding(e) { this.encoding = e; return this; }
  pipe(dest) { this.on('data', (c) => dest.write(c)); this.on('end', () => { if (dest !== process.stdout && dest.end) dest.end(); }); return dest; }
  _start() {
    if (this._started) return;
    this._started = true;
    macro.push(() => {
      let raw;
      try { raw = this.path === 0 ? call('utf8encode', readAllStdin()) : call('readFile', this.path); }
      catch (e) { if (!this.emit('error', e)) throw e; return; }
      const text = call('utf8decode', raw);
      for (const c of this._consumers) c.text(text);
      if (raw.length) this.emit('data', this.encoding ? text : fromLatin1(raw));
      for (const c of this._consumers) c.end();
      this.emit('end');
      this.emit('close');
    });
  }
  [Symbol.asyncIterator]() { let done = false; const self = this; return {next() { if (done) return Promise.resolve({done: true}); done = true; const raw = call('readFile', self.path); return Promise.resolve({value: self.encoding ? call('utf8decode', raw) : fromLatin1(raw), done: false}); }}; }
}
class WriteStream extends EventEmitter {
  constructor(path, append) { super(); this.path = path; call('writeFile', path, '', append); }
  write(chunk, enc, cb) { call('writeFile', this.path, toBytes(chunk, typeof enc === 'string' ? enc : null), true); const f = typeof enc === 'function' ? enc : cb; if (f) f(); return true; }
  end(chunk, enc, cb) { if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk, typeof enc === 'string' ? enc : undefined); const f = [chunk, enc, cb].find((x) => typeof x === 'function'); macro.push(() => { this.emit('finish'); this.emit('close'); if (f) f(); }); return this; }
}
const asyncify = (f) => (...a) => new Promise((res, rej) => { try { res(f(...a)); } catch (e) { rej(e); } });
fs.promises = {};
for (const [k, f] of Object.entries(fs)) {
  if (typeof f !== 'function' || !k.endsWith('Sync')) continue;
  const name = k.slice(0, -4);
  fs.promises[name] = asyncify(f);
  fs[name] = (...a) => {
    const cb = typeof a[a.length - 1] === 'function' ? a.pop() : null;
    let r, err = null;
    try { r = f(...a); } catch (e) { err = e; }
    if (cb) addTimer(() => (name === 'exists' ? cb(r) : cb(err, r)), 0, [], false);
  };
}
fs.promises.access = asyncify(fs.accessSync);

const path = {
  sep: '/', delimiter: ':',
  isAbsolute: (p) => p.startsWith('/'),
  normalize(p) {
    if (p === '') return '.';
    const abs = p.startsWith('/'), trail = p.endsWith('/');
    const parts = [];
    for (const s of p.split('/')) {
      if (s === '' || s === '.') continue;
      if (s === '..') { if (parts.length && parts[parts.length - 1] !== '..') parts.pop(); else if (!abs) parts.push('..'); }
      else parts.push(s);
    }
    let out = (abs ? '/' : '') + parts.join('/');
    if (out === '') out = abs ? '/' : '.';
    return trail && out !== '/' ? out + '/' : out;
  },
  join: (...a) => { const j = a.filter((x) => x !== '').join('/'); return j === '' ? '.' : path.normalize(j); },
  resolve(...a) {
    let p = '';
    for (let i = a.length - 1; i >= 0 && !p.startsWith('/'); i--) if (a[i]) p = a[i] + (p ? '/' + p : '');
    if (!p.startsWith('/')) p = call('cwd') + (p ? '/' + p : '');
    const n = path.normalize(p);
    return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
  },
  dirname(p) { if (p === '') return '.'; const s = p.replace(/\/+$/, ''); if (s === '') return '/'; const i = s.lastIndexOf('/'); if (i < 0) return '.'; if (i === 0) return '/'; return s.slice(0, i).replace(/\/+$/, '') || '/'; },
  basename(p, ext) { let b = p.replace(/\/+$/, ''); b = b.slice(b.lastIndexOf('/') + 1); if (ext && b.endsWith(ext) && b !== ext) b = b.slice(0, -ext.length); return b; },
  extname(p) { const b = path.basename(p); const i = b.lastIndexOf('.'); return i <= 0 ? '' : b.slice(i); },
  relative(from, to) {
    const f = path.resolve(from).split('/').filter(Boolean), t = path.resolve(to).split('/').filter(Boolean);
    let i = 0; while (i < f.length && i < t.length && f[i] === t[i]) i++;
    return [...Array(f.length - i).fill('..'), ...t.slice(i)].join('/');
  },
  parse(p) { const base = path.basename(p), ext = path.extname(p), dir = path.dirname(p); return {root: p.startsWith('/') ? '/' : '', dir: dir === '.' && !p.includes('/') ? '' : dir, base, ext, name: ext ? base.slice(0, -ext.length) : base}; },
  format(o) { const dir = o.dir || o.root || ''; const base = o.base || ((o.name || '') + (o.ext || '')); return dir ? (dir.endsWith('/') ? dir + base : dir + '/' + base) : base; },
};
path.posix = path;

function execSync(cmd, o) {
  const r = call('exec', String(cmd), o && o.input !== undefined ? toBytes(o.input) : null);
  // node writes the command's standard error on its own unless `stdio` is given (a refusal shows)
  if (r.stderr && (!o || o.stdio === undefined)) rawWrite(2, call('utf8decode', r.stderr));
  if (r.status !== 0) {
    const e = new Error(`Command failed: ${cmd}\n${call('utf8decode', r.stderr)}`);
    e.status = r.status; e.stdout = fromLatin1(r.stdout); e.stderr = fromLatin1(r.stderr);
    throw e;
  }
  const enc = encOf(o);
  return enc && enc !== 'buffer' ? call('utf8decode', r.stdout) : fromLatin1(r.stdout);
}
const childProcess = {
  execSync,
  spawnSync(cmd, args, o) {
    const line = [cmd, ...(args || [])].map((a) => "'" + String(a).replace(/'/g, "'\\''") + "'").join(' ');
    const r = call('exec', line, o && o.input !== undefined ? toBytes(o.input) : null);
    const enc = encOf(o);
    const conv = (s) => (enc && enc !== 'buffer' ? call('utf8decode', s) : fromLatin1(s));
    return {status: r.status, stdout: conv(r.stdout), stderr: conv(r.stderr), output: [null, conv(r.stdout), conv(r.stderr)]};
  },
  exec() { throw new Error("child_process.exec is not supported in sandbash: use execSync"); },
  spawn() { throw new Error("child_process.spawn is not supported in sandbash: use spawnSync"); },
};

const readline = {
  createInterface(o) {
    const rl = new EventEmitter();
    let closed = false;
    rl.close = () => { if (!closed) { closed = true; rl.emit('close'); } };
    rl.setPrompt = () => {}; rl.prompt = () => {}; rl.pause = () => rl; rl.resume = () => rl;
    rl.question = (q, cb) => { rawWrite(1, q); macro.push(() => cb(nextLine())); };
    let lines = null, at = 0;
    const fromFile = o && o.input instanceof ReadStream;
    const source = () => splitLines(fromFile ? call('utf8decode', call('readFile', o.input.path)) : readAllStdin());
    const nextLine = () => { if (lines === null) lines = source(); return at < lines.length ? lines[at++] : ''; };
    rl[Symbol.asyncIterator] = () => { iterating = true; return { next() { if (lines === null) lines = source(); const done = at >= lines.length; return Promise.resolve(done ? {done: true} : {value: lines[at++], done: false}); } }; };
    let iterating = false;
    let partial = '';
    const emitLines = (text) => {
      const parts = (partial + text).split('\n');
      partial = parts.pop();
      for (const l of parts) { if (closed) return; rl.emit('line', l.endsWith('\r') ? l.slice(0, -1) : l); }
    };
    // line events as the input comes (an async iteration reads the lines itself instead)
    const consumer = {text: (t) => { if (!iterating) emitLines(t); },
                      end: () => { if (iterating) return; if (partial !== '' && !closed) rl.emit('line', partial); rl.close(); }};
    if (o && o.input === stdin) {
      stdinConsumers.push(consumer);
      wantStdin();
    } else if (fromFile) {
      o.input._consumers.push(consumer);
    }
    return rl;
  },
};
function splitLines(s) { const l = s.split(/\r?\n/); if (l.length && l[l.length - 1] === '') l.pop(); return l; }
const util = {format, inspect, promisify: (f) => (...a) => new Promise((res, rej) => f(...a, (e, r) => (e ? rej(e) : res(r)))),
  isDeepStrictEqual: (a, b) => JSON.stringify(a) === JSON.stringify(b), types: {}, TextDecoder: undefined};
const os = {EOL: '\n', platform: () => 'linux', type: () => 'Linux', arch: () => 'x64', cpus: () => [{}], tmpdir: () => '/tmp',
  homedir: () => process.env.HOME || '/home/user', hostname: () => 'sandbox', totalmem: () => 0, freemem: () => 0, release: () => ''};
class AssertionError extends Error { constructor(m) { super(m); this.name = 'AssertionError'; this.code = 'ERR_ASSERTION'; } }
function assert(v, m) { if (!v) throw new AssertionError(m || 'The expression evaluated to a falsy value'); }
assert.ok = assert;
assert.equal = (a, b, m) => { if (a != b) throw new AssertionError(m || `${inspect(a)} == ${inspect(b)}`); };
assert.strictEqual = (a, b, m) => { if (!Object.is(a, b)) throw new AssertionError(m || `Expected values to be strictly equal:\n\n${inspect(a)} !== ${inspect(b)}\n`); };
assert.notStrictEqual = (a, b, m) => { if (Object.is(a, b)) throw new AssertionError(m || `Expected "actual" to be strictly unequal to: ${inspect(b)}`); };
assert.deepStrictEqual = assert.deepEqual = (a, b, m) => { if (JSON.stringify(a) !== JSON.stringify(b)) throw new AssertionError(m || 'Expected values to be strictly deep-equal'); };
assert.throws = (f, _e, m) => { try { f(); } catch (e) { return; } throw new AssertionError(m || 'Missing expected exception.'); };
assert.fail = (m) => { throw new AssertionError(m || 'Failed'); };
assert.AssertionError = AssertionError;
assert.strict = assert;

const BUILTIN = {fs, path, child_process: childProcess, readline, util, os, events: EventEmitter, assert,
  'fs/promises': fs.promises, 'path/posix': path, buffer: {Buffer: BufferClass}, process, timers: {setTimeout: G.setTimeout, setInterval: G.setInterval, setImmediate: G.setImmediate, clearTimeout: clearTimer, clearInterval: clearTimer},
  string_decoder: {StringDecoder: class { constructor(e) { this.e = e; } write(b) { return typeof b === 'string' ? b : b.toString(this.e); } end(b) { return b ? this.write(b) : ''; } }}};
EventEmitter.EventEmitter = EventEmitter;
const moduleCache = {};
function makeRequire(dir) {
  const req = (name) => {
    const bare = String(name).replace(/^node:/, '');
    if (Object.prototype.hasOwnProperty.call(BUILTIN, bare)) return BUILTIN[bare];
    if (/^(\.{1,2})?\//.test(bare)) return loadFile(path.resolve(dir, bare));
    const e = new Error(`Cannot find module '${name}' (sandbash runs node scripts in QuickJS: ` +
      `only the built-in modules ${Object.keys(BUILTIN).join(', ')} and local files can be required)`);
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  };
  req.resolve = (n) => path.resolve(dir, n);
  req.cache = moduleCache;
  return req;
}
function loadFile(file) {
  let found = null;
  for (const f of [file, file + '.js', file + '.json', file + '/index.js']) {
    if (call('exists', f) && call('stat', f, true).isFile) { found = f; break; }
  }
  if (found === null) { const e = new Error(`Cannot find module '${file}'`); e.code = 'MODULE_NOT_FOUND'; throw e; }
  if (moduleCache[found]) return moduleCache[found].exports;
  const text = call('utf8decode', call('readFile', found));
  const module = {exports: {}, filename: found, id: found, loaded: false};
  moduleCache[found] = module;
  if (found.endsWith('.json')) { module.exports = JSON.parse(text); return module.exports; }
  const fn = (0, eval)('(function (exports, require, module, __filename, __dirname) {' + text.replace(/^#!.*/, '') + '\n})');
  fn.call(module.exports, module.exports, makeRequire(path.dirname(found)), module, found, path.dirname(found));
  module.loaded = true;
  return module.exports;
}

G.console = console;
G.process = process;
G.Buffer = BufferClass;
G.global = G;
const mainDir = SETUP.filename.startsWith('/') ? path.dirname(SETUP.filename) : call('cwd');
G.require = makeRequire(mainDir);
const mainModule = {exports: {}, filename: SETUP.filename, id: '.', loaded: false};
G.module = mainModule;
G.exports = mainModule.exports;
G.__filename = SETUP.filename;
G.__dirname = mainDir;
// node -e / -p (not a file, not stdin): the built-in modules are globals too (fs, path, os, ...)
if (SETUP.filename === '[eval]') {
  for (const name of Object.keys(BUILTIN)) {
    if (/^[a-z_]+$/.test(name) && !(name in G)) G[name] = BUILTIN[name];
  }
}

// ------------------------------------------------------------------ entry points for js_child.py

function failure(e) {
  if (e instanceof ExitSignal) return null;
  if (e instanceof Error) {
    const m = /:(\d+)\)?$/m.exec(programStack(e));
    return JSON.stringify({name: e.name, message: v8Message(String(e.message)), text: errorText(e), line: m ? Number(m[1]) : 0});
  }
  return JSON.stringify({name: null, message: null, text: 'Uncaught ' + inspect(e), line: 0});
}
G.__sandbash_run = function (code, filename) {
  try {
    const r = (0, eval)(code.replace(/^#!.*/, ''));
    if (SETUP.print) rawWrite(1, (typeof r === 'string' ? r : inspect(r)) + '\n');
    return null;
  } catch (e) { return failure(e); }
};
G.__sandbash_tick = function () {
  try {
    if (macro.length) { macro.shift()(); return true; }
    if (timerQueue.length) {
      timerQueue.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const t = timerQueue.shift();
      clock = t.at;
      if (t.repeat) { t.at = clock + t.repeat; t.seq = ++timerSeq; timerQueue.push(t); }
      t.fn(...t.args);
      return true;
    }
    for (const fn of listeners['process:beforeExit'] || []) fn(process.exitCode || 0);
    for (const fn of listeners['process:exit'] || []) fn(process.exitCode || 0);
    call('exitCode', process.exitCode === undefined ? 0 : Number(process.exitCode) | 0);
    return false;
  } catch (e) { return failure(e); }
};
};
"""
