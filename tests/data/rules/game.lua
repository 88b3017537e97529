-- The script of test_server_rules.c: a little of every hook, each answer known in advance.
function on_start(game)
  game.state.joins = 0
  game.state.box = mink.spawn({shape = {type = 'box', half = {0.5, 0.5}}, pos = {0, 30}})
end

function on_join(game, p)
  if p.name == 'mallory' then return false, 'mallory may not play' end
  game.state.joins = game.state.joins + 1
  game.broadcast('joined', {id = p.id, name = p.name, joins = game.state.joins})
end

function on_leave(game, p)
  game.broadcast('left', {id = p.id, name = p.name})
end

function on_action(game, p, name, data)
  if name == 'echo' then game.send(p, 'echo', data) return end
  if name == 'version' then mink.send(p, 'version', {v = VERSION}) return end
  if name == 'spin' then while true do end end
  if name == 'grow' then local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1 << 20) .. i end end
  if name == 'kick_me' then game.kick(p, 'asked to be kicked') return end
  if name == 'tick_events' then game.state.tick_events = true return end
  if name == 'break_tick' then game.state.broken = true return end
  if name == 'escape' then
    -- Each way out of the sandbox, tried: true would be an escape.
    local tries = {
      file = function() return io.open('/etc/passwd') end,
      process = function() return os.execute('true') end,
      popen = function() return io.popen('id') end,
      bytecode = function() return load('\27Lua\84\0', 'x', 'b') end,
      bytecode_t = function() return assert(load('\27Lua\84\0')) end,
      string_metatable = function() return getmetatable('').__index end,
      require = function() return require('os') end,
      dofile = function() return dofile('/etc/passwd') end,
      rep_bomb = function() return #string.rep('x', 1 << 40) end,
      debug = function() return debug.getregistry() end,
    }
    local escaped = {}
    for what, f in pairs(tries) do
      local ok, v = pcall(f)
      escaped[what] = ok and v ~= nil and v ~= false
    end
    game.send(p, 'escape', escaped)
    return
  end
  return false, 'unknown action ' .. name
end

function on_tick(game, tick)
  if game.state.broken then error('on_tick broke at ' .. tick) end
  if game.state.tick_events then game.broadcast('tick', {tick = tick}) end
end

VERSION = 1
