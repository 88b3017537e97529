-- A hit-scan range in 3D (examples/range/range.json: g = 9.81 m/s² down -y). Targets hang on
-- spherical joints from a static beam, one below another, and swing across the range in the
-- plane z = LANE_Z; a player's `fire {tick, from, dir}` casts a ray from `from` along `dir`
-- through the world as it was at `tick`, the tick the player's screen showed when they fired
-- (lag compensation: the server keeps the moving bodies' last --history-ms of placements).
-- The first target the ray meets is pushed along the shot, which swings it out of its plane,
-- and its shooter scores a point; the hit is broadcast, a miss told to the shooter alone.
--
-- Run it: make run GAME=range.

local LANES = 4                 -- targets, one lane each, 3 m apart in height
local LANE_Z = -10              -- m: the targets' distance from the firing line
local BEAM_Y = LANES * 3        -- m: the beam's underside, where the joints hold the targets
local SPEED = 4                 -- m/s: a target's speed at the bottom of its swing
local RANGE = 100               -- m: how far a shot reaches
local SHOT_IMPULSE = 2          -- N s along the shot
local REACH = 3                 -- m: a player with an avatar fires from within this of it

function on_start(game)
  game.state.points = {}        -- player name -> points
  game.state.targets = {}
  local beam = assert(mink.spawn({shape = {type = 'box', half = {2, 0.25, 0.25}},
                                  pos = {0, BEAM_Y + 0.25, LANE_Z}, kind = 'static',
                                  tag = 'beam'}))
  assert(mink.spawn({shape = {type = 'box', half = {40, 0.5, 40}}, pos = {0, -2, 0},
                     kind = 'static', tag = 'floor'}))
  -- Target i hangs (i - 1) * 3 m up, BEAM_Y - (i - 1) * 3 m below the beam, and starts at the
  -- bottom of its swing: SPEED takes it up to an angle of acos(1 - SPEED^2 / (2 g length)),
  -- 21 degrees for the longest, 43 for the shortest. All swing about one point, at lengths
  -- 3 m apart, so no two meet.
  for i = 1, LANES do
    local dir = i % 2 == 1 and 1 or -1
    local id = assert(mink.spawn({shape = {type = 'box', half = {0.5, 0.5, 0.5}},
                                  pos = {0, (i - 1) * 3, LANE_Z}, vel = {dir * SPEED, 0, 0},
                                  friction = 0, tag = 'target'}))
    assert(mink.joint({type = 'spherical', a = id, b = beam, anchor = {0, BEAM_Y, LANE_Z}}))
    game.state.targets[i] = id
  end
end

function on_join(game, p)
  game.state.points[p.name] = game.state.points[p.name] or 0
  game.send(p, 'welcome', {targets = game.state.targets, points = game.state.points[p.name]})
end

local function vec3(v)
  return type(v) == 'table' and type(v[1]) == 'number' and type(v[2]) == 'number'
         and type(v[3]) == 'number'
end

function on_action(game, p, name, data)
  if name ~= 'fire' then return false, 'unknown action ' .. tostring(name) end
  if type(data) ~= 'table' or not vec3(data.from) or not vec3(data.dir) then
    return false, 'fire needs from = {x, y, z} and dir = {x, y, z}'
  end
  local tick = data.tick
  if tick ~= nil and math.type(tick) ~= 'integer' then return false, 'tick: a whole number' end
  local d = data.dir
  local len = math.sqrt(d[1] ^ 2 + d[2] ^ 2 + d[3] ^ 2)
  if not (len > 0) or len == math.huge then return false, 'dir must not be zero' end
  local f = data.from
  if p.avatar then
    local ax, ay, az = mink.pos(p.avatar)
    if ax and (ax - f[1]) ^ 2 + (ay - f[2]) ^ 2 + (az - f[3]) ^ 2 > REACH ^ 2 then
      return false, 'from: too far from your avatar'
    end
  end
  local u = {d[1] / len, d[2] / len, d[3] / len}
  local to = {f[1] + u[1] * RANGE, f[2] + u[2] * RANGE, f[3] + u[3] * RANGE}
  local hits, why = mink.raycast(f, to, {at_tick = tick, kinds = {'dynamic'}})
  if not hits then return false, why end
  local hit = hits[1]
  tick = tick or mink.tick()
  if not hit then
    game.send(p, 'miss', {tick = tick})
    return
  end
  mink.push(hit.id, {u[1] * SHOT_IMPULSE, u[2] * SHOT_IMPULSE, u[3] * SHOT_IMPULSE})
  local points = (game.state.points[p.name] or 0) + 1
  game.state.points[p.name] = points
  game.broadcast('hit', {by = p.id, name = p.name, body = hit.id, tick = tick,
                         point = hit.point, points = points})
end
