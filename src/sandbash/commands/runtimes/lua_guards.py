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
  read once per pattern: `measure`); otherwise they run a matcher of their own in Lua, where the
  hook sees every step, at about a fiftieth of C's speed. That matcher is written from the reference
  manual (section 6.4.1 and the four functions' descriptions) and checked against lua5.4 for what
  the manual leaves open (tests/unit/runtimes/test_lua_patterns.py: generated calls, byte for byte).
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
local char, max, min = string.char, math.max, math.min

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

-- ---------------------------------------------------------------- Lua patterns, matched in Lua

-- Written from the reference manual's section 6.4.1 and checked against lua5.4, which also fixes what the
-- manual leaves open: a pattern's error is raised only when matching reaches it (`("b"):find("a%")`
-- is nil), more than 32 captures are "too many captures", and more than 200 nested choices (a
-- capture's edge, one length of a repetition, an optional item taken) are "pattern too complex".
local MAXDEPTH, MAXCAPS = 200, 32
local function fail(msg) error("[sandbash]:0: " .. msg, 0) end

-- The classes of the C locale, which lua5.4 reads: %z (the byte 0) is lua's deprecated, still there
local CLASSES = {
  a = function(c) return c >= 65 and c <= 90 or c >= 97 and c <= 122 end,
  c = function(c) return c < 32 or c == 127 end,
  d = function(c) return c >= 48 and c <= 57 end,
  g = function(c) return c > 32 and c < 127 end,
  l = function(c) return c >= 97 and c <= 122 end,
  p = function(c) return c > 32 and c < 127 and not (c >= 48 and c <= 57 or c >= 65 and c <= 90 or c >= 97 and c <= 122) end,
  s = function(c) return c == 32 or c >= 9 and c <= 13 end,
  u = function(c) return c >= 65 and c <= 90 end,
  w = function(c) return c >= 48 and c <= 57 or c >= 65 and c <= 90 or c >= 97 and c <= 122 end,
  x = function(c) return c >= 48 and c <= 57 or c >= 65 and c <= 70 or c >= 97 and c <= 102 end,
  z = function(c) return c == 0 end,
}

-- `%` and the byte `e` after it, added to a set: a class letter (its capital: the complement), or
-- the byte itself (`%.`, `%%`, and a letter that names no class)
local function add_escape(set, e)
  local upper = e >= 65 and e <= 90
  local test = CLASSES[char(upper and e + 32 or e)]
  if test == nil then set[e] = true return end
  for c = 0, 255 do
    if test(c) ~= upper then set[c] = true end
  end
end

-- A single-character class's text (`x`, `.`, `%x` or `[...]`) as a table of the bytes it takes.
-- Inside brackets: `^` first complements, the first member is taken even when it is `]`, `%x` as
-- above, and `x-y` is a range when y is not the closing bracket.
local function build_set(spec)
  local set, c = {}, byte(spec, 1)
  if #spec == 1 then
    if c ~= 46 then set[c] = true return set end
    for b = 0, 255 do set[b] = true end
    return set
  end
  if c == 37 then add_escape(set, byte(spec, 2)) return set end
  local i, last, negate = 2, #spec - 1, byte(spec, 2) == 94
  if negate then i = 3 end
  while i <= last do
    local m = byte(spec, i)
    if m == 37 then
      add_escape(set, byte(spec, i + 1))
      i = i + 2
    elseif byte(spec, i + 1) == 45 and i + 2 <= last then
      for b = m, byte(spec, i + 2) do set[b] = true end
      i = i + 3
    else
      set[m] = true
      i = i + 1
    end
  end
  if not negate then return set end
  local out = {}
  for b = 0, 255 do
    if not set[b] then out[b] = true end
  end
  return out
end

-- sets by their text, shared by the patterns of one state (bounded: a new table past 512)
local known_sets, nknown = {}, 0
local function set_for(spec)
  local set = known_sets[spec]
  if set == nil then
    if nknown >= 512 then known_sets, nknown = {}, 0 end
    set = build_set(spec)
    known_sets[spec], nknown = set, nknown + 1
  end
  return set
end

-- the index of the `]` closing the bracket that opens at i, or nil when it is missing
local function bracket_end(pat, i)
  local j = i + 1
  if byte(pat, j) == 94 then j = j + 1 end
  repeat
    if j > #pat then return nil end
    if byte(pat, j) == 37 then j = j + 1 end
    j = j + 1
  until byte(pat, j) == 93
  return j
end

-- A pattern is read once into a program: parallel arrays of item kinds, an argument each (a class's
-- text, a capture's number, %b's first byte), a second one (a repetition's byte * + - ?, or 0; %b's
-- last byte). Which captures are open, closed or positions at each item does not depend on the
-- subject (a pattern has no alternatives), so capture numbers and their errors are fixed here.
local ONE, OPEN, POSITION, CLOSE, BACKREF, BALANCE, FRONTIER, AT_END, RAISE, NEVER = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10

local MISSING_BRACKET = "malformed pattern (missing ']')"

local function compile(pat, i)
  local kind, arg, arg2 = {}, {}, {}
  local n, ncap, nest, plen = 0, 0, 1, #pat
  local open, done, positions = {}, {}, {}
  local function put(k, a, b)
    n = n + 1
    kind[n], arg[n], arg2[n] = k, a, b or 0
  end
  while i <= plen do
    local c, d = byte(pat, i), byte(pat, i + 1)
    if c == 40 then  -- ( or ()
      if ncap == MAXCAPS then put(RAISE, "too many captures") break end
      ncap, nest = ncap + 1, nest + 1
      if d == 41 then
        put(POSITION, ncap)
        done[ncap], positions[ncap] = true, true
        i = i + 2
      else
        put(OPEN, ncap)
        open[#open + 1] = ncap
        i = i + 1
      end
    elseif c == 41 then  -- ): the innermost capture still open
      local m = open[#open]
      if m == nil then put(RAISE, "invalid pattern capture") break end
      open[#open], done[m], nest = nil, true, nest + 1
      put(CLOSE, m)
      i = i + 1
    elseif c == 36 and i == plen then
      put(AT_END)
      i = i + 1
    elseif c == 37 and d == 98 then  -- %bxy
      if i + 3 > plen then put(RAISE, "malformed pattern (missing arguments to '%b')") break end
      put(BALANCE, byte(pat, i + 2), byte(pat, i + 3))
      i = i + 4
    elseif c == 37 and d == 102 then  -- %f[set]
      if byte(pat, i + 2) ~= 91 then put(RAISE, "missing '[' after '%f' in pattern") break end
      local j = bracket_end(pat, i + 2)
      if j == nil then put(RAISE, MISSING_BRACKET) break end
      put(FRONTIER, sub(pat, i + 2, j))
      i = j + 1
    elseif c == 37 and d and d >= 48 and d <= 57 then  -- %1-%9: what capture d took
      local m = d - 48
      if m == 0 or not done[m] then put(RAISE, format("invalid capture index %%%d", m)) break end
      put(positions[m] and NEVER or BACKREF, m)  -- (a position has no text to repeat)
      i = i + 2
    else  -- one character's class, and a repetition after it
      local j = i
      if c == 37 then
        if i == plen then put(RAISE, "malformed pattern (ends with '%')") break end
        j = i + 1
      elseif c == 91 then
        j = bracket_end(pat, i)
        if j == nil then put(RAISE, MISSING_BRACKET) break end
      end
      local q = byte(pat, j + 1)
      if q == 42 or q == 43 or q == 45 or q == 63 then
        put(ONE, sub(pat, i, j), q)
        nest, j = nest + 1, j + 1
      else
        put(ONE, sub(pat, i, j))
      end
      i = j + 1
    end
  end
  return {kind = kind, arg = arg, arg2 = arg2, n = n, ncap = ncap, done = done, positions = positions,
          nest = nest, plen = plen}
end

-- the program's classes as sets (made on first use: a pattern sent to C needs few of them)
local function sets_of(prog)
  local sets = prog.sets
  if sets == nil then
    sets = {}
    for k = 1, prog.n do
      local t = prog.kind[k]
      if t == ONE or t == FRONTIER then sets[k] = set_for(prog.arg[k]) end
    end
    prog.sets = sets
  end
  return sets
end

-- A matcher of `prog` over `src`: `at(s)` matches at s and gives the position after the match (or
-- nil); `first` and `past` then hold each capture's start and the position after its end.
local function matcher_for(prog, src)
  local kind, arg, arg2, sets = prog.kind, prog.arg, prog.arg2, sets_of(prog)
  local slen, first, past, room = #src, {}, {}, MAXDEPTH
  local walk
  -- a choice made: the rest of the program from item k at s, one level deeper
  local function deeper(k, s)
    if room == 0 then fail("pattern too complex") end
    room = room - 1
    local e = walk(k, s)
    room = room + 1
    return e
  end
  walk = function(k, s)
    while true do
      local t = kind[k]
      if t == ONE then
        local set, rep = sets[k], arg2[k]
        if not set[byte(src, s)] then  -- (nil past the end)
          if rep == 0 or rep == 43 then return nil end
          k = k + 1  -- * - ? take nothing here
        elseif rep == 0 then
          s, k = s + 1, k + 1
        elseif rep == 63 then  -- ?: with the character first, then without
          local e = deeper(k + 1, s + 1)
          if e then return e end
          k = k + 1
        elseif rep == 45 then  -- -: the rest first, then one more character each time
          while true do
            local e = deeper(k + 1, s)
            if e then return e end
            if not set[byte(src, s)] then return nil end
            s = s + 1
          end
        else  -- * +: the longest run first, then shorter ones
          local stop = s + 1
          while set[byte(src, stop)] do stop = stop + 1 end
          local least = rep == 43 and s + 1 or s
          for at = stop, least, -1 do
            local e = deeper(k + 1, at)
            if e then return e end
          end
          return nil
        end
      elseif t == nil then
        return s
      elseif t == OPEN then
        first[arg[k]] = s
        return deeper(k + 1, s)
      elseif t == CLOSE then
        past[arg[k]] = s
        return deeper(k + 1, s)
      elseif t == POSITION then
        first[arg[k]] = s
        return deeper(k + 1, s)
      elseif t == BACKREF then
        local m = arg[k]
        local len = past[m] - first[m]
        if sub(src, s, s + len - 1) ~= sub(src, first[m], past[m] - 1) then return nil end
        s, k = s + len, k + 1
      elseif t == BALANCE then
        local open, close = arg[k], arg2[k]
        if byte(src, s) ~= open then return nil end
        local depth, j = 1, s + 1
        while depth > 0 do
          local c = byte(src, j)
          if c == nil then return nil end
          if c == close then depth = depth - 1 elseif c == open then depth = depth + 1 end
          j = j + 1
        end
        s, k = j, k + 1
      elseif t == FRONTIER then  -- the byte before s (0 at the start) outside the set, the one at s (0 at the end) in it
        local set = sets[k]
        if set[s > 1 and byte(src, s - 1) or 0] or not set[byte(src, s) or 0] then return nil end
        k = k + 1
      elseif t == AT_END then
        if s ~= slen + 1 then return nil end
        k = k + 1
      elseif t == NEVER then
        return nil
      else
        fail(arg[k])
      end
    end
  end
  local function at(s)
    room = MAXDEPTH
    return deeper(1, s)
  end
  return at, first, past
end

-- capture m of the last match: its text, or its position
local function capture(prog, first, past, src, m)
  if prog.positions[m] then return first[m] end
  if not prog.done[m] then fail("unfinished capture") end
  return sub(src, first[m], past[m] - 1)
end

-- what a match gives: its captures, or with none the whole match when `whole` (match, gmatch,
-- gsub's functions) or nothing (find)
local function captures(prog, first, past, src, s, e, whole)
  local ncap = prog.ncap
  if ncap == 0 then
    if whole then return sub(src, s, e - 1) end
    return
  end
  local out = {}
  for m = 1, ncap do out[m] = capture(prog, first, past, src, m) end
  return unpack(out, 1, ncap)
end

-- ---------------------------------------------------------------- what goes to C and what to Lua

-- worst-case steps of one C call past which the Lua matcher runs instead: the bound below is loose
-- (C takes 10^8 to 10^9 simple steps a second), and a well-behaved pattern on a long text stays in C
local COSTLY = 1e9

-- whether the shorter tries of repetition k can reach beyond the item after it: what may follow it
-- without taking a character (captures, items that may be empty) ends at a required item, the end
-- or `$`; when none of those shares a character with k's class, each shorter try fails at once
local function disjoint(a, b)
  for c = 0, 255 do
    if a[c] and b[c] then return false end
  end
  return true
end
local function gives_back(prog, k)
  local kind, arg2 = prog.kind, prog.arg2
  for j = k + 1, prog.n do
    local t = kind[j]
    if t == AT_END then return false end
    if t == ONE then
      if not disjoint(set_for(prog.arg[k]), set_for(prog.arg[j])) then return true end
      if arg2[j] == 0 or arg2[j] == 43 then return false end
    elseif t ~= OPEN and t ~= CLOSE and t ~= POSITION then
      return true
    end
  end
  return false
end

-- A program's shape, for the bound on C's work with it: `reps` repetitions that may give back what
-- the rest takes (each multiplies the tries at one start by the subject's length), `scans` 1 when
-- something scans the subject at all, `opts` optional items (each doubles the tries), `clean`
-- when C cannot raise for it (no error reached, no capture left open, nesting within C's limit)
local function measure(prog)
  local reps, scans, opts, clean = 0, 0, 0, prog.nest <= MAXDEPTH
  for k = 1, prog.n do
    local t, rep = prog.kind[k], prog.arg2[k]
    if t == RAISE then clean = false
    elseif t == BALANCE or t == BACKREF then scans = 1
    elseif t == ONE and rep == 63 then opts = opts + 1
    elseif t == ONE and rep ~= 0 then
      scans = 1
      if gives_back(prog, k) then reps = reps + 1 end
    end
  end
  for m = 1, prog.ncap do
    if not prog.done[m] then clean = false end
  end
  prog.reps, prog.scans, prog.opts, prog.clean = reps, scans, opts, clean
end

-- programs by pattern, per state, with and without `^` read as an anchor (gmatch reads none):
-- bounded in count and in the pattern bytes they hold
local programs, nprograms, held = {{}, {}}, 0, 0
local function program_of(pat, gmatch)
  local cache = programs[gmatch and 2 or 1]
  local prog = cache[pat]
  if prog == nil then
    local anchored = not gmatch and byte(pat, 1) == 94
    prog = compile(pat, anchored and 2 or 1)
    prog.anchored = anchored
    prog.plain = not strfind(pat, "[%^%$%*%+%?%.%(%[%%%-]")
    measure(prog)
    if nprograms >= 256 or held + #pat > 1 << 20 then
      programs, nprograms, held = {{}, {}}, 0, 0
      cache = programs[gmatch and 2 or 1]
    end
    cache[pat], nprograms, held = prog, nprograms + 1, held + #pat
  end
  return prog
end

-- the bound on the C matcher's steps for `pat` on n bytes (all start positions)
local function cost(pat, n, gmatch)
  local prog = program_of(pat, gmatch)
  local starts = prog.anchored and 1 or n + 1
  return (prog.plen + 1) * (n + 1) ^ (prog.reps + prog.scans) * 2 ^ prog.opts * starts, prog
end
local function costly(n, pat, gmatch)
  return cost(pat, n, gmatch) > COSTLY
end

-- where a search starts: `init` counts from the end when negative, and from 1 when below the start
local function start_at(init, len)
  if init > 0 then return init end
  if init == 0 or init < -len then return 1 end
  return len + init + 1
end

-- arguments as lua's library reads them (a number for a string, a string for an integer); nil when
-- only the C function may read it (then it raises, with its own words)
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
  local step = lp > 0 and max(1, WINDOW // lp) or ls + 1
  local first = init
  while first + lp - 1 <= ls do
    local last = min(first + step - 1, ls - lp + 1)
    local a = strfind(sub(s, first, last + lp - 1), p, 1, true)
    if a then return first + a - 1, first + a + lp - 2 end
    first = last + 1
  end
  return nil
end

-- string.find (`find`) and string.match in Lua: each start from init to the end, or init alone
local function lua_find(src, pat, init, find)
  local prog = program_of(pat, false)
  local at, first, past = matcher_for(prog, src)
  for s = init, prog.anchored and init or #src + 1 do
    local e = at(s)
    if e then
      if find then return s, e - 1, captures(prog, first, past, src, s, e, false) end
      return captures(prog, first, past, src, s, e, true)
    end
  end
  return nil
end

local function find_aux(cfun, find, nargs, ...)
  local s, p, init, plain = ...
  local ss, ps, i = tostr(s), tostr(p), toint(init, 1)
  if ss == nil or ps == nil or i == nil then return cfun(...) end
  local ls = #ss
  i = start_at(i, ls)
  if i > ls + 1 then return cfun(...) end
  if find and (plain or not strfind(ps, "[%^%$%*%+%?%.%(%[%%%-]")) then
    if (ls - i + 1) * #ps <= COSTLY then return cfun(...) end
    return plain_find(ss, ps, i)
  end
  if not costly(ls - i + 1, ps) then return cfun(...) end
  return lua_find(ss, ps, i, find)
end

-- A replacement string read into pieces: text, or a capture's number (0: the whole match; with no
-- captures %1 is the whole match too). An error the string holds (a `%` before anything but a
-- digit or `%`, a capture the pattern lacks or leaves open) is a piece raised where it stands,
-- after the pieces before it: lua5.4 raises it only when there is a match to replace.
local function read_replacement(repl, prog)
  local pieces, i = {}, 1
  while true do
    local at = strfind(repl, "%", i, true)
    if at == nil then break end
    if at > i then pieces[#pieces + 1] = sub(repl, i, at - 1) end
    local d = byte(repl, at + 1)
    if d == 37 then
      pieces[#pieces + 1] = "%"
    elseif d == nil or d < 48 or d > 57 then
      pieces[#pieces + 1] = {"invalid use of '%' in replacement string"}
      return pieces, false
    else
      local m = d - 48
      if m == 1 and prog.ncap == 0 then m = 0 end
      if m > prog.ncap then
        pieces[#pieces + 1] = {format("invalid capture index %%%d", m)}
        return pieces, false
      end
      if m > 0 and not prog.done[m] then pieces[#pieces + 1] = {"unfinished capture"} return pieces, false end
      pieces[#pieces + 1] = m
    end
    i = at + 2
  end
  if i <= #repl then pieces[#pieces + 1] = sub(repl, i) end
  return pieces, true
end

-- A call that cannot yield, as lua's C library calls back into a script (a yield in a gsub
-- function or __index is "attempt to yield across a C-call boundary", not a gsub suspended halfway):
-- table.unpack reads the proxy's first element through __index, a call without a continuation.
-- The first result alone comes back (all gsub reads).
local waiting, waiting_args
local unyielding = rawsetmt({}, {__index = function()
  local f, args = waiting, waiting_args
  waiting, waiting_args = nil, nil
  return f(unpack(args, 1, args.n))
end})
local function call_unyielding(f, ...)
  waiting, waiting_args = f, pack(...)
  return (unpack(unyielding, 1, 1))
end
local function index(t, k) return t[k] end

-- the text that replaces one match (s to e - 1) in gsub: from the replacement string's pieces, the
-- table's value at the first capture, or the function's result for all of them; false or nil
-- keeps the match, anything but a string or a number is an error
local function replacing(prog, first, past, src, s, e, repl, pieces)
  if pieces then
    local out = {}
    for j = 1, #pieces do
      local piece = pieces[j]
      local t = type(piece)
      if t == "string" then out[j] = piece
      elseif t == "table" then fail(piece[1])
      elseif piece == 0 then out[j] = sub(src, s, e - 1)
      else out[j] = tostring(capture(prog, first, past, src, piece)) end
    end
    return concat(out)
  end
  local v
  if type(repl) == "table" then
    local key = prog.ncap == 0 and sub(src, s, e - 1) or capture(prog, first, past, src, 1)
    v = call_unyielding(index, repl, key)
  else
    v = call_unyielding(repl, captures(prog, first, past, src, s, e, true))
  end
  if not v then return sub(src, s, e - 1) end
  local t = type(v)
  if t ~= "string" and t ~= "number" then fail(format("invalid replacement value (a %s)", t)) end
  return tostring(v)
end

-- string.gsub in Lua: at most `limit` matches, left to right; an empty match where the last match
-- ended is not one (the search moves past that character); an anchored pattern tries once
local function lua_gsub(src, pat, repl, limit)
  local prog = program_of(pat, false)
  local at, first, past = matcher_for(prog, src)
  local pieces = nil
  if type(repl) == "string" or type(repl) == "number" then pieces = read_replacement(tostring(repl), prog) end
  local out, kept, s, count, last = {}, 1, 1, 0, nil
  local slen = #src
  while count < limit do
    local e = at(s)
    if e ~= nil and e ~= last then
      count = count + 1
      out[#out + 1] = sub(src, kept, s - 1)
      out[#out + 1] = replacing(prog, first, past, src, s, e, repl, pieces)
      s, kept, last = e, e, e
    elseif s <= slen then
      s = s + 1
    else
      break
    end
    if prog.anchored then break end
  end
  out[#out + 1] = sub(src, kept)
  return concat(out), count
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

-- string.gmatch's iterator in Lua: `^` is no anchor; as in gsub, an empty match where the last one
-- ended is skipped; past the end the iterator gives nothing
local function lua_gmatch(src, pat, init)
  local prog = program_of(pat, true)
  local at, first, past = matcher_for(prog, src)
  local s, last, slen = init, nil, #src
  return function()
    while s <= slen + 1 do
      local start = s
      local e = at(s)
      if e ~= nil and e ~= last then
        s, last = e, e
        return captures(prog, first, past, src, start, e, true)
      end
      s = s + 1
    end
  end
end

local function gmatch_aux(nargs, ...)
  local s, p, init = ...
  local ss, ps, i = tostr(s), tostr(p), toint(init, 1)
  if ss == nil or ps == nil or i == nil then return strgmatch(...) end
  i = start_at(i, #ss)
  if not costly(max(#ss - i + 1, 0), ps, true) then return strgmatch(...) end
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
      local hi = min(ei, lo + MOVE_SLICE - 1)
      tmove(a1, lo, hi, ti + (lo - fi), dest)
      lo = hi + 1
    end
  else
    local hi = ei
    while hi >= fi do
      local lo = max(fi, hi - MOVE_SLICE + 1)
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
      local c, prog = cost(p, #s, gmatch)
      if prog.clean and c <= COSTLY then return cfun end
    end
  end
end

string.find = replacement("string.find", function(s, p, init, plain)
  if fast(s, p, init) then
    if plain then
      if #s * #p <= COSTLY then return strfind end
    else
      local c, prog = cost(p, #s, false)
      if prog.clean and (prog.plain and #s * #p or c) <= COSTLY then return strfind end
    end
  end
end, function(nargs, ...) return find_aux(strfind, true, nargs, ...) end)
string.match = replacement("string.match", matcher(strmatch, false),
  function(nargs, ...) return find_aux(strmatch, false, nargs, ...) end)
string.gmatch = replacement("string.gmatch", matcher(strgmatch, true), gmatch_aux)
string.gsub = replacement("string.gsub", function(s, p, repl, max_s)
  if fast(s, p, max_s) then
    local c, prog = cost(p, #s, false)
    if prog.clean and c <= COSTLY then
      local t = type(repl)
      if t == "number" or t == "string" and select(2, read_replacement(repl, prog)) then return strgsub end
    end
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
