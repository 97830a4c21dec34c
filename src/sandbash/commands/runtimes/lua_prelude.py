"""The Lua side of the sandbox: runs first in every fresh Lua state, with the full standard library,
and leaves only the safe parts plus `io`/`os`/`print`/`require`/`dofile`/`loadfile` rebuilt over the
host callbacks (lua_io.LuaHost). The callbacks stay upvalues of these closures: once `debug` is
gone, scripts have no way to reach them.

It sets the instruction-count hook (deadline, cancellation, memory) on the main thread and on every
coroutine, and makes a stop signal (a limit, os.exit) stick: pcall, xpcall, coroutine.resume and
coroutine.close re-raise it, so a script cannot catch its way past the end of its run.

It returns the functions the front end (lua.py) uses: run, compile, loadsource, require.
"""

PRELUDE = rb"""
local HOST, MARK, STOPMARK, COUNT = ...
local traceback, sethook, getinfo = debug.traceback, debug.sethook, debug.getinfo
local rawpcall, rawxpcall, rawload = pcall, xpcall, load
local error, type, select, tostring, tonumber = error, type, select, tostring, tonumber
local setmetatable, getmetatable = setmetatable, getmetatable
local pack, unpack, concat = table.pack, table.unpack, table.concat
local format, mtype, tointeger = string.format, math.type, math.tointeger
local co_create, co_resume, co_wrap, co_close = coroutine.create, coroutine.resume, coroutine.wrap, coroutine.close
local loaded = package.loaded

-- The host never raises into Lua: it answers STOPMARK when the run must end (a limit, a
-- cancellation, os.exit) and Lua raises STOP, a value no script can make or test for.
local STOP = setmetatable({}, {__tostring = function() return "sandbash: the run was stopped" end})
local function stopcheck(first, ...)
  if first == STOPMARK then error(STOP, 0) end
  return first, ...
end
local B = {}
for name, f in pairs(HOST) do B[name] = function(...) return stopcheck(f(...)) end end
local tick, stopping = B.tick, HOST.stopping

local function hook() tick() end
sethook(hook, "", COUNT)

-- a host answer: MARK, message is a failure raised at the level given (1 = the library function's caller)
local function call(level, f, ...)
  local r = pack(f(...))
  if r[1] == MARK then error(r[2], level + 1) end
  return r
end

-- pcall and friends cannot catch the end of the run
local function sticky(ok, ...)
  if not ok and stopping() then error((...), 0) end
  return ok, ...
end
pcall = function(f, ...) return sticky(rawpcall(f, ...)) end
xpcall = function(f, msgh, ...)
  return sticky(rawxpcall(f, function(e) if stopping() then return e end return msgh(e) end, ...))
end

local function hooked(f)
  if type(f) ~= "function" then return f end
  return function(...) sethook(hook, "", COUNT) return f(...) end
end
coroutine.create = function(f) return co_create(hooked(f)) end
coroutine.wrap = function(f) return co_wrap(hooked(f)) end
coroutine.resume = function(co, ...) return sticky(co_resume(co, ...)) end
coroutine.close = function(co) return sticky(co_close(co)) end

-- luaL_argerror: the name the caller used, else the library's qualified name
-- (`up`: helper frames between the library function and this one)
local function argerror(n, fname, msg, up)
  local level = 3 + (up or 0)
  local ar = getinfo(level, "n")
  local name = ar and ar.name
  if name == nil or name == "rawpcall" or name == "rawxpcall" then name = fname end
  error(format("bad argument #%d to '%s' (%s)", n, name, msg), level)
end
local function checkstring(v, n, fname)
  local t = type(v)
  if t == "number" then return tostring(v) end
  if t ~= "string" then argerror(n, fname, "string expected, got " .. (v == nil and "no value" or t), 1) end
  return v
end

-- ---------------------------------------------------------------- files

local FILE = {__name = "FILE*"}
local methods = {}
FILE.__index = methods
local ids = setmetatable({}, {__mode = "k"})
local function newfile(id) local f = setmetatable({}, FILE) ids[f] = id return f end
local function isfile(f) return ids[f] ~= nil end

local function getid(f, fname)
  local id = ids[f]
  if id == nil then
    error(format("bad argument #1 to '%s' (FILE* expected, got %s)", fname, type(f)), 3)
  end
  if not B.isopen(id) then error("attempt to use a closed file", 3) end
  return id
end

FILE.__tostring = function(f)
  if B.isopen(ids[f]) then return format("file (%p)", f) end
  return "file (closed)"
end

local function formats(fname, first, ...)
  local n = select("#", ...)
  local out = {n = n}
  for i = 1, n do
    local v = select(i, ...)
    if mtype(v) then
      local k = tointeger(v)
      if k == nil then argerror(first + i - 1, fname, "number has no integer representation", 1) end
      out[i] = k < 0 and 0 or k
    else
      v = checkstring(v, first + i - 1, fname)
      local c = v:sub(1, 1) == "*" and v:sub(2, 2) or v:sub(1, 1)
      if c ~= "n" and c ~= "l" and c ~= "L" and c ~= "a" then argerror(first + i - 1, fname, "invalid format", 1) end
      out[i] = c
    end
  end
  if n == 0 then out = {"l", n = 1} end
  return out
end

local function doread(id, fmts)
  local r = call(2, B.read, id, unpack(fmts, 1, fmts.n))
  return unpack(r, 1, r.n)
end

local function number_text(v)
  if mtype(v) == "integer" then return format("%d", v) end
  return format("%.14g", v)
end

local function dowrite(f, id, fname, ...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do
    local v = select(i, ...)
    if mtype(v) then parts[i] = number_text(v)
    elseif type(v) == "string" then parts[i] = v
    else argerror(i, fname, "string expected, got " .. type(v), 1) end
  end
  local r = call(2, B.write, id, unpack(parts, 1, n))
  if r[1] == true then return f end
  return unpack(r, 1, r.n)
end

local function lines_iter(f, id, close, fmts)
  return function()
    if not B.isopen(id) then error("file is already closed", 2) end
    local r = pack(doread(id, fmts))
    if r[1] ~= nil then return unpack(r, 1, r.n) end
    if r.n > 1 and type(r[2]) == "string" then error(r[2], 2) end
    if close then B.close(id) end
  end
end

function methods.read(f, ...) return doread(getid(f, "read"), formats("read", 1, ...)) end
function methods.write(f, ...) return dowrite(f, getid(f, "write"), "write", ...) end
function methods.lines(f, ...) local id = getid(f, "lines") return lines_iter(f, id, false, formats("lines", 1, ...)) end
function methods.flush(f)
  local r = call(1, B.flush, getid(f, "flush"))
  if r[1] == true then return f end
  return unpack(r, 1, r.n)
end
function methods.close(f)
  local r = call(1, B.close, getid(f, "close"))
  return unpack(r, 1, r.n)
end
function methods.seek(f, whence, offset)
  local id = getid(f, "seek")
  whence = whence == nil and "cur" or checkstring(whence, 1, "seek")
  if whence ~= "set" and whence ~= "cur" and whence ~= "end" then
    argerror(1, "seek", format("invalid option '%s'", whence))
  end
  offset = offset == nil and 0 or tointeger(offset)
  if offset == nil then argerror(2, "seek", "number has no integer representation") end
  local r = call(1, B.seek, id, whence, offset)
  return unpack(r, 1, r.n)
end
function methods.setvbuf(f, mode)
  getid(f, "setvbuf")
  if mode ~= "no" and mode ~= "full" and mode ~= "line" then
    argerror(1, "setvbuf", format("invalid option '%s'", tostring(mode)))
  end
  return true
end
FILE.__close = function(f) if ids[f] and B.isopen(ids[f]) then B.close(ids[f]) end end

local stdin, stdout, stderr = newfile(0), newfile(1), newfile(2)
local default_in, default_out = stdin, stdout

local function openfile(name, mode, fname)
  local r = call(2, B.open, name, mode)
  if r[1] == nil then return nil, r[2], r[3] end
  return newfile(r[1])
end

local io = {stdin = stdin, stdout = stdout, stderr = stderr}
function io.open(name, mode)
  name = checkstring(name, 1, "io.open")
  mode = mode == nil and "r" or checkstring(mode, 2, "io.open")
  if not mode:match("^[rwa]%+?b*$") then argerror(2, "io.open", "invalid mode") end
  return openfile(name, mode)
end
function io.type(f)
  if getmetatable(f) ~= FILE or ids[f] == nil then return nil end
  return B.isopen(ids[f]) and "file" or "closed file"
end
local function opencheck(name, mode)
  local f, msg, code = openfile(name, mode)
  if f == nil then
    error(format("cannot open file '%s' (%s)", name, msg:match("^.-: (.*)$") or msg), 3)
  end
  return f
end
function io.input(f)
  if f ~= nil then default_in = isfile(f) and f or opencheck(checkstring(f, 1, "io.input"), "r") end
  return default_in
end
function io.output(f)
  if f ~= nil then default_out = isfile(f) and f or opencheck(checkstring(f, 1, "io.output"), "w") end
  return default_out
end
function io.read(...) return doread(getid(default_in, "read"), formats("read", 1, ...)) end
function io.write(...) return dowrite(default_out, getid(default_out, "write"), "write", ...) end
function io.lines(name, ...)
  if name == nil then
    return lines_iter(default_in, getid(default_in, "lines"), false, formats("lines", 2, ...))
  end
  local f = opencheck(checkstring(name, 1, "io.lines"), "r")
  return lines_iter(f, ids[f], true, formats("lines", 2, ...)), nil, nil, f
end
function io.close(f) return methods.close(f == nil and default_out or f) end
function io.flush() return methods.flush(default_out) end
function io.popen(prog, mode)
  prog = checkstring(prog, 1, "io.popen")
  mode = mode == nil and "r" or checkstring(mode, 2, "io.popen")
  if mode ~= "r" and mode ~= "w" then argerror(2, "io.popen", "invalid mode") end
  return newfile(call(1, B.popen, prog, mode)[1])
end
function io.tmpfile() return newfile(call(1, B.tmpfile)[1]) end

-- ---------------------------------------------------------------- os

local os = {}
function os.time(t)
  if t == nil then return B.now() end
  if type(t) ~= "table" then argerror(1, "os.time", "table expected, got " .. type(t)) end
  local function field(k, d)
    local v = t[k]
    if v == nil then
      if d == nil then error(format("field '%s' missing in date table", k), 3) end
      return d
    end
    local i = tointeger(v)
    if i == nil then error(format("field '%s' is not an integer", k), 3) end
    return i
  end
  return call(1, B.mktime, field("year"), field("month"), field("day"), field("hour", 12), field("min", 0),
              field("sec", 0))[1]
end
function os.date(fmt, t)
  fmt = fmt == nil and "%c" or checkstring(fmt, 1, "os.date")
  if t ~= nil then
    t = tointeger(t)
    if t == nil then argerror(2, "os.date", "number has no integer representation") end
  end
  local r = call(1, B.date, fmt, t)
  if fmt:match("^!?%*t") then
    return {year = r[1], month = r[2], day = r[3], hour = r[4], min = r[5], sec = r[6], wday = r[7],
            yday = r[8], isdst = r[9]}
  end
  return r[1]
end
function os.clock() return B.clock() end
function os.difftime(a, b) return (a - (b or 0)) + 0.0 end
function os.getenv(name) return B.getenv(checkstring(name, 1, "os.getenv")) end
function os.exit(code)
  local status = 0
  if code == false then status = 1
  elseif code ~= nil and code ~= true then
    status = tointeger(code)
    if status == nil then argerror(1, "os.exit", "number has no integer representation") end
  end
  B.exit(status & 0xff)
end
function os.remove(name) return unpack(call(1, B.remove, checkstring(name, 1, "os.remove"))) end
function os.rename(a, b)
  return unpack(call(1, B.rename, checkstring(a, 1, "os.rename"), checkstring(b, 2, "os.rename")))
end
function os.tmpname() return call(1, B.tmpname)[1] end
function os.execute(cmd)
  if cmd == nil then return true end
  return unpack(call(1, B.execute, checkstring(cmd, 1, "os.execute")), 1, 3)
end
function os.setlocale(l)
  if l == nil or l == "" or l == "C" or l == "POSIX" then return "C" end
  return nil
end

-- ---------------------------------------------------------------- loading code

-- text chunks only: a binary chunk could break the VM's invariants
local function textmode(mode)
  if mode == nil then return "t" end
  local m = mode:gsub("b", "")
  if m == "" then return nil end
  return m
end
load = function(chunk, name, mode, ...)
  local m = textmode(mode)
  if m == nil then return nil, "binary chunks are not supported in sandbash" end
  if select("#", ...) > 0 then return rawload(chunk, name, m, ...) end
  return rawload(chunk, name, m)
end

local function loadsource(src, chunkname, env, has_env)
  if src:sub(1, 3) == "\239\187\191" then src = src:sub(4) end
  if src:sub(1, 1) == "#" then src = "\n" .. (src:match("^[^\n]*\n(.*)$") or "") end
  if has_env then return rawload(src, chunkname, "t", env) end
  return rawload(src, chunkname, "t")
end

loadfile = function(name, mode, ...)
  if textmode(mode) == nil then return nil, "binary chunks are not supported in sandbash" end
  local src, chunkname
  if name == nil then
    src, chunkname = stdin:read("a"), "=stdin"
  else
    name = checkstring(name, 1, "loadfile")
    local r = call(1, B.readfile, name)
    if r[1] == nil then return nil, format("cannot open %s: %s", name, r[2]) end
    src, chunkname = r[1], "@" .. name
  end
  return loadsource(src, chunkname, (...), select("#", ...) > 0)
end
dofile = function(name)
  local f, msg = loadfile(name)
  if f == nil then error(msg, 2) end
  return f()
end

print = function(...)
  local args = pack(...)
  for i = 1, args.n do args[i] = tostring(args[i]) end
  -- lua_writeline flushes stdout after every print (io.write stays buffered)
  call(1, B.write, 1, concat(args, "\t", 1, args.n), "\n")
  call(1, B.flush, 1)
end

local package = {path = "./?.lua;./?/init.lua", cpath = "", preload = {}, loaded = loaded,
                 config = "/\n;\n?\n!\n-\n"}
require = function(name)
  name = checkstring(name, 1, "require")
  local v = loaded[name]
  if v then return v end
  local pre = package.preload[name]
  local msgs = {}
  local found = ":preload:"
  if pre then
    v = pre(name, found)
  else
    msgs[1] = format("no field package.preload['%s']", name)
    local path = name:gsub("%.", "/")
    found = nil
    for tpl in tostring(package.path):gmatch("[^;]+") do
      local fname = tpl:gsub("%?", path)
      if B.readable(fname) then found = fname break end
      msgs[#msgs + 1] = format("no file '%s'", fname)
    end
    if found == nil then
      error(format("module '%s' not found:\n\t%s", name, concat(msgs, "\n\t")), 2)
    end
    local chunk, msg = loadfile(found)
    if chunk == nil then
      error(format("error loading module '%s' from file '%s':\n\t%s", name, found, msg), 2)
    end
    v = chunk(name, found)
  end
  if v ~= nil then loaded[name] = v end
  if loaded[name] == nil then loaded[name] = true end
  return loaded[name], found
end

-- what scripts must not reach: the host's modules, debug, lupa's python bridge
debug, python, package = nil, nil, package
loaded.debug, loaded.python = nil, nil
loaded.io, loaded.os, loaded.package = io, os, package
_G.io, _G.os, _G.package = io, os, package

-- the front end's entry points
local function msgh(e)
  if stopping() then return e end
  if type(e) ~= "string" and type(e) ~= "number" then
    local mt = getmetatable(e)
    if type(mt) == "table" and mt.__tostring then
      local s = tostring(e)
      if type(s) == "string" then return s end
    end
    e = format("(error object is a %s value)", type(e))
  end
  return traceback(tostring(e), 2)
end
local function run(chunk, ...)
  local r = pack(rawxpcall(chunk, msgh, ...))
  return r[1], r[2]
end
local function compile(src, chunkname) return loadsource(src, chunkname, nil, false) end
local function setglobal(name, value) _G[name] = value end
local function warnings_on() warn("@on") end
return run, compile, setglobal, warnings_on
"""
