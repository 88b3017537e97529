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
  if name == 'version' then game.send(p, 'version', {v = VERSION}) return end
  if name == 'spin' then while true do end end
  if name == 'grow' then local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1 << 20) .. i end end
  if name == 'kick_me' then game.kick(p, 'asked to be kicked') return end
  if name == 'tick_events' then game.state.tick_events = true return end
  return false, 'unknown action ' .. name
end

function on_tick(game, tick)
  if game.state.tick_events then game.broadcast('tick', {tick = tick}) end
end

VERSION = 1
