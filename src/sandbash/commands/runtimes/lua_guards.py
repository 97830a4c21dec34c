"""Library functions whose work the run's deadline could not reach, replaced before the prelude runs.

The prelude's count hook (lua_prelude.py) checks the deadline every few VM instructions, and a C
library function runs none: `string.find(string.rep('a', 40), string.rep('a*', 12) .. 'b')`
backtracks for hours inside one call, `string.rep('', 2^53)` and `table.move({}, 1, 1e15, 2)` loop
2^53 and 10^15 times doing nothing, a plain `string.find` of a long needle in a long subject compares
for days, and a `__gc` metamethod runs with hooks off (lua_gc calls finalizers with `allowhook` 0),
so `while true do end` in one never ended. Each ran past the deadline with no end in sight: the
run's thread (the embedder's) never came back.

What replaces them keeps Lua's results and messages and bounds each C call:
- string.find/match/gmatch/gsub call the C matcher when a bound on its work is small (the subject's
  length to the power of the repetitions that can give back what the rest of the pattern takes,
  read once per pattern: `shape`); otherwise they run the same algorithm (lstrlib.c's `match`,
  ported line for line) in Lua, where the hook sees every step, at about a hundredth of C's speed.
  A plain find of a long needle searches a window of the subject at a time.
- string.rep of an empty string and separator returns the empty string without the loop.
- table.move moves a bounded slice per C call, in the order Lua's own move takes; table.sort of a
  table past 4 M elements without a comparator sorts with a Lua one.
- setmetatable never marks an object for finalization: a `__gc` field is taken out while the
  metatable is set and put back, so finalizers never run (a difference from lua, which runs them).

Errors keep Lua's text and the caller's position: a C error raised from inside a replacement names
the replacement's frame, so `relay` moves it to the caller (and, for `bad argument`, renames the
function as luaL_argerror would have from the caller's frame).
"""

GUARDS = rb"""
local getinfo, rawpcall, error, type, select = debug.getinfo, pcall, error, type, select
local pack, unpack, mtype, tointeger, tonumber = table.pack, table.unpack, math.type, math.tointeger, tonumber
local byte, sub, strfind, strmatch, strgmatch, strgsub = string.byte, string.sub, string.find, string.match, string.gmatch, string.gsub
local strrep, format, concat, tmove, rawsetmt, rawget, rawset = string.rep, string.format, table.concat, table.move, setmetatable, rawget, rawset
local tostring, rawgetmt, rawlen, tsort = tostring, debug.getmetatable, rawlen, table.sort

-- a C error raised inside a replacement (called from it: level 2), as the library would have raised
-- it from the replacement's caller (level 3); any other error passes unchanged
local function relay(fname, e)
  if type(e) ~= "string" then error(e, 0) end
  local msg = strmatch(e, "^%[sandbash%]:%d+: (.*)$")
  if msg == nil then error(e, 0) end
  local n, rest = strmatch(msg, "^bad argument #(%d+) to '[^']*' (.*)$")
  if n then
    local ar = getinfo(2, "n")
    local name = ar and ar.name or fname
    n = tonumber(n)
    if ar and ar.namewhat == "method" then
      n = n - 1
      if n == 0 then error(format("calling '%s' on bad self %s", name, rest), 3) end
    end
    msg = format("bad argument #%d to '%s' %s", n, name, rest)
  end
  error(msg, 3)
end

-- ---------------------------------------------------------------- lstrlib.c's matcher, in Lua

local MAXCCALLS, MAXCAPTURES = 200, 32
local CAP_UNFINISHED, CAP_POSITION = -1, -2
local function perr(msg) error("[sandbash]:0: " .. msg, 0) end

-- the C locale's classes, by byte: made on the first class the Lua side reads (a run that never
-- needs it does not pay the 256 tables, about 1 ms of each `lua` start)
local ctype = nil
local function make_ctype()
  ctype = {}
  for c = 0, 255 do
    local t = {}
    local ch = string.char(c)
    t.a = strfind(ch, "^%a") ~= nil
    t.c = strfind(ch, "^%c") ~= nil
    t.d = c >= 48 and c <= 57
    t.g = strfind(ch, "^%g") ~= nil
    t.l = c >= 97 and c <= 122
    t.p = strfind(ch, "^%p") ~= nil
    t.s = strfind(ch, "^%s") ~= nil
    t.u = c >= 65 and c <= 90
    t.w = strfind(ch, "^%w") ~= nil
    t.x = strfind(ch, "^%x") ~= nil
    t.z = c == 0  -- (lstrlib's deprecated class, still compiled in)
    ctype[c] = t
  end
end

local function match_class(c, cl)
  if ctype == nil then make_ctype() end
  local lower = cl
  if cl >= 65 and cl <= 90 then lower = cl + 32 end
  local res = ctype[c][string.char(lower)]
  if res == nil then return cl == c end
  if cl >= 65 and cl <= 90 then return not res end
  return res
end

local function new_state(src, pat)
  return {src = src, slen = #src, pat = pat, plen = #pat, depth = MAXCCALLS, level = 0,
          cinit = {}, clen = {}}
end

-- positions are 1-based; slen + 1 is the subject's end, plen + 1 the pattern's (C's '\0')
local function pbyte(ms, i) return byte(ms.pat, i) or 0 end

local function class_end(ms, p)
  local c = pbyte(ms, p)
  p = p + 1
  if c == 37 then  -- '%'
    if p > ms.plen then perr("malformed pattern (ends with '%')") end
    return p + 1
  elseif c == 91 then  -- '['
    if pbyte(ms, p) == 94 then p = p + 1 end
    repeat
      if p > ms.plen then perr("malformed pattern (missing ']')") end
      local cc = pbyte(ms, p)
      p = p + 1
      if cc == 37 and p <= ms.plen then p = p + 1 end
    until pbyte(ms, p) == 93
    return p + 1
  end
  return p
end

local function match_bracket(ms, c, p, ec)
  local sig = true
  if pbyte(ms, p + 1) == 94 then sig = false p = p + 1 end
  p = p + 1
  while p < ec do
    local pc = pbyte(ms, p)
    if pc == 37 then
      p = p + 1
      if match_class(c, pbyte(ms, p)) then return sig end
    elseif pbyte(ms, p + 1) == 45 and p + 2 < ec then
      p = p + 2
      if pc <= c and c <= pbyte(ms, p) then return sig end
    elseif pc == c then return sig end
    p = p + 1
  end
  return not sig
end

local function single_match(ms, s, p, ep)
  if s > ms.slen then return false end
  local c = byte(ms.src, s)
  local pc = pbyte(ms, p)
  if pc == 46 then return true
  elseif pc == 37 then return match_class(c, pbyte(ms, p + 1))
  elseif pc == 91 then return match_bracket(ms, c, p, ep - 1)
  end
  return pc == c
end

local do_match

local function match_balance(ms, s, p)
  if p >= ms.plen then perr("malformed pattern (missing arguments to '%b')") end
  if s > ms.slen or byte(ms.src, s) ~= pbyte(ms, p) then return nil end
  local b, e, cont = pbyte(ms, p), pbyte(ms, p + 1), 1
  s = s + 1
  while s <= ms.slen do
    local c = byte(ms.src, s)
    if c == e then
      cont = cont - 1
      if cont == 0 then return s + 1 end
    elseif c == b then cont = cont + 1 end
    s = s + 1
  end
  return nil
end

local function max_expand(ms, s, p, ep)
  local i = 0
  while single_match(ms, s + i, p, ep) do i = i + 1 end
  while i >= 0 do
    local res = do_match(ms, s + i, ep + 1)
    if res then return res end
    i = i - 1
  end
  return nil
end

local function min_expand(ms, s, p, ep)
  while true do
    local res = do_match(ms, s, ep + 1)
    if res then return res end
    if single_match(ms, s, p, ep) then s = s + 1 else return nil end
  end
end

local function start_capture(ms, s, p, what)
  local level = ms.level
  if level >= MAXCAPTURES then perr("too many captures") end
  ms.cinit[level + 1], ms.clen[level + 1] = s, what
  ms.level = level + 1
  local res = do_match(ms, s, p)
  if res == nil then ms.level = ms.level - 1 end
  return res
end

local function end_capture(ms, s, p)
  local l = ms.level
  while l >= 1 and ms.clen[l] ~= CAP_UNFINISHED do l = l - 1 end
  if l < 1 then perr("invalid pattern capture") end
  ms.clen[l] = s - ms.cinit[l]
  local res = do_match(ms, s, p)
  if res == nil then ms.clen[l] = CAP_UNFINISHED end
  return res
end

local function match_capture(ms, s, d)
  local l = d - 48  -- '1' is capture 1
  if l < 1 or l > ms.level or ms.clen[l] == CAP_UNFINISHED then
    perr(format("invalid capture index %%%d", l))
  end
  local len = ms.clen[l]
  if len >= 0 and ms.slen - s + 1 >= len and sub(ms.src, ms.cinit[l], ms.cinit[l] + len - 1) == sub(ms.src, s, s + len - 1) then
    return s + len
  end
  return nil
end

do_match = function(ms, s, p)
  ms.depth = ms.depth - 1
  if ms.depth < 0 then perr("pattern too complex") end
  while p <= ms.plen do
    local pc = pbyte(ms, p)
    local default = false
    if pc == 40 then  -- '('
      if pbyte(ms, p + 1) == 41 then s = start_capture(ms, s, p + 2, CAP_POSITION)
      else s = start_capture(ms, s, p + 1, CAP_UNFINISHED) end
      break
    elseif pc == 41 then  -- ')'
      s = end_capture(ms, s, p + 1)
      break
    elseif pc == 36 and p + 1 > ms.plen then  -- '$' ending the pattern
      if s ~= ms.slen + 1 then s = nil end
      break
    elseif pc == 37 then  -- '%'
      local nc = pbyte(ms, p + 1)
      if nc == 98 then  -- %b
        s = match_balance(ms, s, p + 2)
        if s == nil then break end
        p = p + 4
      elseif nc == 102 then  -- %f
        p = p + 2
        if pbyte(ms, p) ~= 91 then perr("missing '[' after '%f' in pattern") end
        local ep = class_end(ms, p)
        local prev = s == 1 and 0 or byte(ms.src, s - 1)
        local cur = byte(ms.src, s) or 0
        if not match_bracket(ms, prev, p, ep - 1) and match_bracket(ms, cur, p, ep - 1) then
          p = ep
        else
          s = nil
          break
        end
      elseif nc >= 48 and nc <= 57 then  -- %0-%9
        s = match_capture(ms, s, nc)
        if s == nil then break end
        p = p + 2
      else
        default = true
      end
    else
      default = true
    end
    if default then
      local ep = class_end(ms, p)
      local epc = pbyte(ms, ep)
      if not single_match(ms, s, p, ep) then
        if epc == 42 or epc == 63 or epc == 45 then  -- '*' '?' '-': accept empty
          p = ep + 1
        else
          s = nil
          break
        end
      elseif epc == 63 then  -- '?'
        local res = do_match(ms, s + 1, ep + 1)
        if res then s = res break end
        p = ep + 1
      elseif epc == 43 then  -- '+'
        s = max_expand(ms, s + 1, p, ep)
        break
      elseif epc == 42 then  -- '*'
        s = max_expand(ms, s, p, ep)
        break
      elseif epc == 45 then  -- '-'
        s = min_expand(ms, s, p, ep)
        break
      else
        s = s + 1
        p = ep
      end
    end
  end
  ms.depth = ms.depth + 1
  return s
end

local function reprep(ms) ms.level = 0 ms.depth = MAXCCALLS end

local function one_capture(ms, i, s, e)
  if i > ms.level then
    if i ~= 1 then perr(format("invalid capture index %%%d", i)) end
    return sub(ms.src, s, e - 1)
  end
  local l = ms.clen[i]
  if l == CAP_UNFINISHED then perr("unfinished capture") end
  if l == CAP_POSITION then return ms.cinit[i] end
  return sub(ms.src, ms.cinit[i], ms.cinit[i] + l - 1)
end

local function captures(ms, s, e, whole)
  local n = ms.level
  if n == 0 and whole then n = 1 end
  local out = {}
  for i = 1, n do out[i] = one_capture(ms, i, s, e) end
  return out, n
end

-- ---------------------------------------------------------------- what goes to C and what to Lua

-- worst-case steps of one C call past which the Lua matcher runs instead: the bound below is loose
-- (C takes 10^8 to 10^9 simple steps a second), and a well-behaved pattern on a long text stays in C
local COSTLY = 1e9

-- A pattern's shape, for the bound on what C may do with it (read once per pattern, per state):
-- `m` repetitions that may give back characters the rest of the pattern can take (each multiplies
-- the tries at one start by the subject's length), `a` 1 when a repetition, %b or back-reference
-- scans the subject at all, `q` optional items ('?': each doubles the tries), `clean` when C cannot
-- raise an error for it (well formed, captures closed before use, not deep enough to be "too complex")
local function class_has(pat, s, e, c)
  local pc = byte(pat, s)
  if pc == 46 then return true
  elseif pc == 37 then return match_class(c, byte(pat, s + 1) or 0)
  elseif pc == 91 then return match_bracket({pat = pat}, c, s, e - 1)
  end
  return pc == c
end
local function disjoint(pat, x, y)
  for c = 0, 255 do
    if class_has(pat, x.s, x.e, c) and class_has(pat, y.s, y.e, c) then return false end
  end
  return true
end

local function parse_items(pat, i)
  local plen, items, open, closed, caps = #pat, {}, 0, 0, 0
  local ms = {pat = pat, plen = plen}
  local ok = rawpcall(function()
    while i <= plen do
      local c = byte(pat, i)
      local nc = byte(pat, i + 1)
      if c == 40 then
        caps = caps + 1
        if nc == 41 then items[#items + 1] = {k = "pos"} closed = closed + 1 i = i + 2
        else items[#items + 1] = {k = "open"} open = open + 1 i = i + 1 end
      elseif c == 41 then
        if open == 0 then error("close") end
        open, closed = open - 1, closed + 1
        items[#items + 1] = {k = "close"}
        i = i + 1
      elseif c == 36 and i == plen then
        items[#items + 1] = {k = "end"}
        i = i + 1
      elseif c == 37 and nc == 98 then
        if i + 3 > plen then error("%b") end
        items[#items + 1] = {k = "scan"}
        i = i + 4
      elseif c == 37 and nc == 102 then
        if byte(pat, i + 2) ~= 91 then error("%f") end
        i = class_end(ms, i + 2)
        items[#items + 1] = {k = "front"}
      elseif c == 37 and nc and nc >= 48 and nc <= 57 then
        if nc == 48 or nc - 48 > closed then error("capture") end
        items[#items + 1] = {k = "scan"}
        i = i + 2
      else
        local e = class_end(ms, i)
        local q = byte(pat, e)
        if q == 42 or q == 43 or q == 45 or q == 63 then
          items[#items + 1] = {k = "class", s = i, e = e, q = q}
          i = e + 1
        else
          items[#items + 1] = {k = "class", s = i, e = e}
          i = e
        end
      end
    end
    if open > 0 or caps > MAXCAPTURES or plen > 150 then error("unclean") end
  end)
  return ok and items or nil, caps
end

-- whether backtracking into repetition k can matter: what may follow it without taking a character
-- (captures, optional items) ends at a required single-character item, the end, or `$`; when X shares
-- no character with any of them, each shorter try fails at once (the character given back is X's)
local function gives_back(pat, items, k)
  local x = items[k]
  for j = k + 1, #items do
    local y = items[j]
    if y.k == "end" then return false end
    if y.k == "class" then
      if not disjoint(pat, x, y) then return true end
      if y.q == nil or y.q == 43 then return false end
    elseif y.k ~= "open" and y.k ~= "close" and y.k ~= "pos" then
      return true
    end
  end
  return false
end

local function shape(pat, anchored)
  local items, caps = parse_items(pat, anchored and 2 or 1)
  if items == nil then  -- C may raise: the protected path, bounded as if every repetition multiplied
    local reps = select(2, strgsub(pat, "[%*%+%-%?%%]", ""))
    return {clean = false, m = reps, a = 1, q = 0}
  end
  local m, a, q = 0, 0, 0
  for k, it in ipairs(items) do
    if it.k == "scan" then a = 1
    elseif it.k == "class" and it.q then
      if it.q == 63 then q = q + 1
      else
        a = 1
        if gives_back(pat, items, k) then m = m + 1 end
      end
    end
  end
  return {clean = true, m = m, a = a, q = q, caps = caps}
end

local shapes, nshapes = {{}, {}}, 0
local function shape_of(pat, gmatch)
  local anchored = not gmatch and byte(pat, 1) == 94
  local cache = shapes[gmatch and 2 or 1]
  local sh = cache[pat]
  if sh == nil then
    sh = shape(pat, anchored)
    sh.anchored = anchored
    sh.plain = not strfind(pat, "[%^%$%*%+%?%.%(%[%%%-]")
    if nshapes >= 256 then shapes, nshapes = {{}, {}}, 0 cache = shapes[gmatch and 2 or 1] end
    cache[pat], nshapes = sh, nshapes + 1
  end
  return sh
end

-- the bound on the C matcher's steps for `pat` on n bytes (all start positions)
local function cost(pat, n, gmatch)
  local sh = shape_of(pat, gmatch)
  local starts = sh.anchored and 1 or n + 1
  return (#pat + 1) * (n + 1) ^ (sh.m + sh.a) * 2 ^ sh.q * starts, sh
end
local function costly(n, pat, gmatch)
  return cost(pat, n, gmatch) > COSTLY
end

local function posrelat(pos, len)
  if pos > 0 then return pos
  elseif pos == 0 then return 1
  elseif pos < -len then return 1 end
  return len + pos + 1
end

-- arguments as lstrlib's luaL_check* read them; nil when the C function must see them (it raises)
local function tostr(v)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then return tostring(v) end
  return nil
end
local function toint(v, default)
  if v == nil then return default end
  if type(v) == "string" then v = tonumber(v) end
  if mtype(v) == nil then return nil end
  return tointeger(v)
end

-- bytes one C call of a plain search may compare: the hook runs once per several calls (it counts
-- instructions, a few per window), so a window is kept to milliseconds
local WINDOW = 1e7
local function plain_find(s, p, init)
  -- a window of start positions at a time, each C call comparing a bounded amount
  local ls, lp = #s, #p
  local step = lp > 0 and math.max(1, WINDOW // lp) or ls + 1
  local first = init
  while first + lp - 1 <= ls do
    local last = math.min(first + step - 1, ls - lp + 1)
    local a = strfind(sub(s, first, last + lp - 1), p, 1, true)
    if a then return first + a - 1, first + a + lp - 2 end
    first = last + 1
  end
  return nil
end

local function lua_find(s, p, init, find)
  local anchor = byte(p, 1) == 94
  local ms = new_state(s, anchor and sub(p, 2) or p)
  local s1 = init
  repeat
    reprep(ms)
    local e = do_match(ms, s1, 1)
    if e then
      if find then
        local caps, n = captures(ms, nil, nil, false)
        return s1, e - 1, unpack(caps, 1, n)
      end
      local caps, n = captures(ms, s1, e, true)
      return unpack(caps, 1, n)
    end
    s1 = s1 + 1
  until s1 > ms.slen + 1 or anchor
  return nil
end

local function find_aux(cfun, find, nargs, ...)
  local s, p, init, plain = ...
  local ss, ps, i = tostr(s), tostr(p), toint(init, 1)
  if ss == nil or ps == nil or i == nil then return cfun(...) end
  local ls = #ss
  i = posrelat(i, ls)
  if i > ls + 1 then return cfun(...) end
  if find and (plain or not strfind(ps, "[%^%$%*%+%?%.%(%[%%%-]")) then
    if (ls - i + 1) * #ps <= COSTLY then return cfun(...) end
    return plain_find(ss, ps, i)
  end
  if not costly(ls - i + 1, ps) then return cfun(...) end
  return lua_find(ss, ps, i, find)
end

-- lstrlib.c's add_s and add_value: one match's replacement
local function add_value(ms, out, s, e, repl, tr)
  local whole = sub(ms.src, s, e - 1)
  local v
  if tr == "function" then
    local caps, n = captures(ms, s, e, true)
    v = repl(unpack(caps, 1, n))
  elseif tr == "table" then
    v = repl[one_capture(ms, 1, s, e)]
  else
    local news = tostring(repl)
    local parts, i, l = {}, 1, #news
    while true do
      local at = strfind(news, "%", i, true)
      if at == nil then break end
      parts[#parts + 1] = sub(news, i, at - 1)
      local c = byte(news, at + 1) or 0
      if c == 37 then parts[#parts + 1] = "%"
      elseif c == 48 then parts[#parts + 1] = whole
      elseif c >= 49 and c <= 57 then parts[#parts + 1] = tostring(one_capture(ms, c - 48, s, e))
      else perr("invalid use of '%' in replacement string") end
      i = at + 2
    end
    parts[#parts + 1] = sub(news, i, l)
    out[#out + 1] = concat(parts)
    return true
  end
  if not v then out[#out + 1] = whole return false end
  local tv = type(v)
  if tv ~= "string" and tv ~= "number" then perr(format("invalid replacement value (a %s)", tv)) end
  out[#out + 1] = tostring(v)
  return true
end

local function lua_gsub(src, p, repl, max_s)
  local tr = type(repl)
  local anchor = byte(p, 1) == 94
  local ms = new_state(src, anchor and sub(p, 2) or p)
  local s, n, changed, lastmatch, out = 1, 0, false, nil, {}
  while n < max_s do
    reprep(ms)
    local e = do_match(ms, s, 1)
    if e and e ~= lastmatch then
      n = n + 1
      changed = add_value(ms, out, s, e, repl, tr) or changed
      s, lastmatch = e, e
    elseif s <= ms.slen then
      out[#out + 1] = sub(src, s, s)
      s = s + 1
    else
      break
    end
    if anchor then break end
  end
  if not changed then return src, n end
  out[#out + 1] = sub(src, s)
  return concat(out), n
end

local function gsub_aux(nargs, ...)
  local s, p, repl, max_s = ...
  local ss, ps, tr = tostr(s), tostr(p), type(repl)
  local ok_repl = tr == "string" or tr == "number" or tr == "function" or tr == "table"
  if ss == nil or ps == nil or not ok_repl then return strgsub(...) end
  local m = toint(max_s, #ss + 1)
  if m == nil or not costly(#ss, ps) then return strgsub(...) end
  return lua_gsub(ss, ps, repl, m)
end

local function lua_gmatch(s, p, init)
  local ms = new_state(s, p)
  local src, lastmatch = init, nil
  return function()
    while src <= ms.slen + 1 do
      reprep(ms)
      local e = do_match(ms, src, 1)
      if e and e ~= lastmatch then
        local caps, n = captures(ms, src, e, true)
        src, lastmatch = e, e
        return unpack(caps, 1, n)
      end
      src = src + 1
    end
    return nil
  end
end

local function gmatch_aux(nargs, ...)
  local s, p, init = ...
  local ss, ps, i = tostr(s), tostr(p), toint(init, 1)
  if ss == nil or ps == nil or i == nil then return strgmatch(...) end
  i = posrelat(i, #ss)
  if i > #ss + 1 then i = #ss + 2 end
  if not costly(#ss - i + 1, ps, true) then return strgmatch(...) end
  local next_match = lua_gmatch(ss, ps, i)
  return function()  -- (the iterator's errors, as C's, are the caller's)
    local r = pack(rawpcall(next_match))
    if r[1] then return unpack(r, 2, r.n) end
    relay("gmatch iterator", r[2])
  end
end

local function rep_aux(nargs, ...)
  local s, n, sep = ...
  if s == "" and (sep == nil or sep == "") and toint(n, nil) ~= nil then
    return ""  -- every copy empty: C would loop n times to make it
  end
  return strrep(...)
end

local MOVE_SLICE = 1 << 16
local MAXINT = math.maxinteger
local function move_aux(nargs, ...)
  local a1, f, e, t, a2 = ...
  local fi, ei, ti = toint(f, nil), toint(e, nil), toint(t, nil)
  if fi == nil or ei == nil or ti == nil or ei < fi or ei - fi < MOVE_SLICE
    or not (fi > 0 or ei < MAXINT + fi) or ti > MAXINT - (ei - fi) then
    return tmove(...)  -- small, or what C refuses (with its own message)
  end
  if a2 == nil then tmove(a1, 1, 0, 1) else tmove(a1, 1, 0, 1, a2) end  -- C's checks of the tables
  local dest = a2 == nil and a1 or a2
  -- lua's order (ltablib.c): backwards when the ranges overlap upwards in one table
  if ti > ei or ti <= fi or (a2 ~= nil and a1 ~= a2) then
    local lo = fi
    while lo <= ei do
      local hi = math.min(ei, lo + MOVE_SLICE - 1)
      tmove(a1, lo, hi, ti + (lo - fi), dest)
      lo = hi + 1
    end
  else
    local hi = ei
    while hi >= fi do
      local lo = math.max(fi, hi - MOVE_SLICE + 1)
      tmove(a1, lo, hi, ti + (lo - fi), dest)
      hi = lo - 1
    end
  end
  return dest
end

-- a long table sorted without a comparator: C's sort compares with no instruction run, so one call
-- of 16 M numbers (what max_memory holds) took seconds past the deadline. Past 4 M elements (about a
-- second of C) the sort takes a Lua comparator, which lets the hook run (about 8x slower); its error
-- is C's own (lua_lessthan's text, no position: raised from the C sort)
local SORT_DIRECT = 1 << 22
local function less(a, b) return a < b end
local function lt(a, b)
  local ok, r = rawpcall(less, a, b)
  if ok then return r end
  if type(r) == "string" then r = strmatch(r, "^%[sandbash%]:%d+: (.*)$") or r end
  error(r, 0)
end
local function sort_aux(nargs, ...)
  local t, comp = ...
  if comp == nil and type(t) == "table" and nargs < 2 then return tsort(t, lt) end
  return tsort(...)
end

-- no object is marked for finalization (a __gc present when the metatable is set marks it): its
-- __gc would run with hooks off, where no deadline reaches it
local function setmt_aux(nargs, ...)
  local t, mt = ...
  local gc = nil
  if type(t) == "table" and type(mt) == "table" then gc = rawget(mt, "__gc") end
  if gc == nil then
    local r = rawsetmt(...)
    return r
  end
  rawset(mt, "__gc", nil)
  local ok, r = rawpcall(rawsetmt, t, mt)
  rawset(mt, "__gc", gc)
  if not ok then rawsetmt(t, mt) end  -- (fails again, now from here: a protected metatable)
  return r
end

-- the wrappers: arguments C takes without an error, a pattern C cannot raise for and work within
-- the bound go straight to C; anything else runs protected (find_aux and friends), its errors relayed
local function fast(s, p, init)
  return type(s) == "string" and type(p) == "string" and (init == nil or mtype(init) == "integer")
end
local function clean_repl(repl, caps)
  if type(repl) == "number" then return true end
  if type(repl) ~= "string" then return false end
  local at = strfind(repl, "%", 1, true)
  while at do
    local c = byte(repl, at + 1)
    if c == nil or not (c == 37 or c == 48 or c >= 49 and c <= 57 and (c - 48 <= caps or c == 49)) then
      return false
    end
    at = strfind(repl, "%", at + 2, true)
  end
  return true
end

-- A replacement: `direct(...)` names the C function to call as it is (arguments it takes without an
-- error, work within the bound), else `aux` runs protected and a C error is relayed to the caller
local function replacement(fname, direct, aux)
  return function(...)
    local cfun = direct(...)
    if cfun then return cfun(...) end
    local r = pack(rawpcall(aux, select("#", ...), ...))
    if r[1] then return unpack(r, 2, r.n) end
    relay(fname, r[2])
  end
end

local function matcher(cfun, gmatch)
  return function(s, p, init)
    if fast(s, p, init) then
      local c, sh = cost(p, #s, gmatch)
      if sh.clean and c <= COSTLY then return cfun end
    end
  end
end

string.find = replacement("string.find", function(s, p, init, plain)
  if fast(s, p, init) then
    if plain then
      if #s * #p <= COSTLY then return strfind end
    else
      local c, sh = cost(p, #s, false)
      if sh.clean and (sh.plain and #s * #p or c) <= COSTLY then return strfind end
    end
  end
end, function(nargs, ...) return find_aux(strfind, true, nargs, ...) end)
string.match = replacement("string.match", matcher(strmatch, false),
  function(nargs, ...) return find_aux(strmatch, false, nargs, ...) end)
string.gmatch = replacement("string.gmatch", matcher(strgmatch, true), gmatch_aux)
string.gsub = replacement("string.gsub", function(s, p, repl, max_s)
  if fast(s, p, max_s) then
    local c, sh = cost(p, #s, false)
    if sh.clean and c <= COSTLY and clean_repl(repl, sh.caps) then return strgsub end
  end
end, gsub_aux)
string.rep = replacement("string.rep", function(s, n, sep)
  -- (a result past 2^40 bytes is C's "resulting string too large", raised from here: protected)
  if type(s) == "string" and s ~= "" and mtype(n) == "integer" and (sep == nil or type(sep) == "string")
    and (#s + (sep and #sep or 0)) * n < 2 ^ 40 then
    return strrep
  end
end, rep_aux)
table.move = replacement("table.move", function(a1, f, e, t, a2)
  if type(a1) == "table" and (a2 == nil or type(a2) == "table") and mtype(f) == "integer"
    and mtype(e) == "integer" and mtype(t) == "integer" and f >= 1 and t >= 1 and e - f < MOVE_SLICE
    and t < MAXINT - MOVE_SLICE then
    return tmove
  end
end, move_aux)
-- (with a comparator, C may raise "invalid order function for sorting": protected, as bad arguments)
table.sort = replacement("table.sort", function(t, comp)
  if comp == nil and type(t) == "table" and rawlen(t) <= SORT_DIRECT then return tsort end
end, sort_aux)
setmetatable = replacement("setmetatable", function(t, mt)
  if type(t) == "table" and (mt == nil or type(mt) == "table" and rawget(mt, "__gc") == nil) then
    local old = rawgetmt(t)
    if old == nil or rawget(old, "__metatable") == nil then return rawsetmt end
  end
end, setmt_aux)
"""
