-- A ball game, seen from above (examples/ball/arena.json: no gravity). Two goals are sensors
-- behind the goal lines, between two posts; the ball is a dynamic circle that the players'
-- avatars push, or kick with the action `kick {dir = {x, y}}` when they stand within
-- KICK_REACH of it. A ball that enters a goal scores once for the other side, goes back to
-- the centre and the score is broadcast; a round ends after GOALS_PER_ROUND goals or
-- ROUND_TICKS ticks, and the next one begins.
--
-- Run it: make run GAME=ball (docs/RULES.md is the reference of what a script may call).

local HALF_W, HALF_H = 20, 12       -- m: the pitch, inside its walls
local GOAL_HALF = 3                 -- m: half the goal mouth
local BALL_R = 0.5                  -- m
local KICK_REACH = 3                -- m between the kicker's avatar and the ball
local KICK_IMPULSE = 12             -- N s at most
local GOALS_PER_ROUND = 5
local ROUND_TICKS = 3 * 60 * 60     -- three minutes at 60 Hz

local function static_box(x, y, hx, hy, extra)
  local spec = {shape = {type = 'box', half = {hx, hy}}, pos = {x, y}, kind = 'static',
                restitution = 0.6, tag = 'wall'}
  for k, v in pairs(extra or {}) do spec[k] = v end
  return assert(mink.spawn(spec))
end

local function place_ball(game)
  assert(mink.set(game.state.ball, {pos = {0, 0}, vel = {0, 0}, w = 0}))
end

function on_start(game)
  local s = game.state
  s.score = {left = 0, right = 0}
  s.round = 1
  s.goals = 0
  -- The walls: top and bottom, and each end beside its goal mouth.
  static_box(0, HALF_H + 0.5, HALF_W + 3, 0.5)
  static_box(0, -HALF_H - 0.5, HALF_W + 3, 0.5)
  for _, side in ipairs({-1, 1}) do
    local len = (HALF_H - GOAL_HALF) / 2
    static_box(side * (HALF_W + 0.5), GOAL_HALF + len, 0.5, len)
    static_box(side * (HALF_W + 0.5), -GOAL_HALF - len, 0.5, len)
    static_box(side * (HALF_W + 2.5), 0, 0.5, GOAL_HALF + 0.5)          -- the goal's back
    -- The posts: round, at the ends of the goal line.
    for _, y in ipairs({-GOAL_HALF - 0.3, GOAL_HALF + 0.3}) do
      assert(mink.spawn({shape = {type = 'circle', radius = 0.3}, pos = {side * HALF_W, y},
                         kind = 'static', restitution = 0.6, tag = 'post'}))
    end
  end
  -- The goals: sensors just behind the goal lines, the whole mouth wide.
  s.goal_left = assert(mink.spawn({shape = {type = 'box', half = {1, GOAL_HALF}},
                                   pos = {-HALF_W - 1.5 + 0.4, 0}, kind = 'static',
                                   sensor = true, tag = 'goal_left'}))
  s.goal_right = assert(mink.spawn({shape = {type = 'box', half = {1, GOAL_HALF}},
                                    pos = {HALF_W + 1.5 - 0.4, 0}, kind = 'static',
                                    sensor = true, tag = 'goal_right'}))
  s.ball = assert(mink.spawn({shape = {type = 'circle', radius = BALL_R}, pos = {0, 0},
                              density = 1, restitution = 0.6, friction = 0.2, tag = 'ball'}))
  s.round_timer = mink.after(ROUND_TICKS, 'end_round', {round = 1})
end

-- Players take sides in turn: the side with fewer players.
function on_join(game, p)
  local left, right = 0, 0
  for _, q in ipairs(game.players()) do
    if q.data.side == 'left' then left = left + 1 elseif q.data.side == 'right' then
      right = right + 1 end
  end
  p.data.side = left <= right and 'left' or 'right'
  p.data.goals = 0
  game.send(p, 'welcome', {side = p.data.side, score = game.state.score,
                           round = game.state.round, ball = game.state.ball})
end

function on_action(game, p, name, data)
  if name ~= 'kick' then return false, 'unknown action ' .. tostring(name) end
  if type(data) ~= 'table' or type(data.dir) ~= 'table' or type(data.dir[1]) ~= 'number'
     or type(data.dir[2]) ~= 'number' then
    return false, 'kick needs dir = {x, y}'
  end
  if not p.avatar then return false, 'kick needs an avatar' end
  local ax, ay = mink.pos(p.avatar)
  local bx, by = mink.pos(game.state.ball)
  if not ax then return false, 'your avatar is gone' end
  if (ax - bx) ^ 2 + (ay - by) ^ 2 > KICK_REACH ^ 2 then return false, 'too far from the ball' end
  local dx, dy = data.dir[1], data.dir[2]
  local len = math.sqrt(dx * dx + dy * dy)
  if not (len > 0) or len ~= len then return false, 'dir must not be zero' end
  local strength = math.min(len, 1) * KICK_IMPULSE
  game.state.last_kick = p.id
  assert(mink.push(game.state.ball, {dx / len * strength, dy / len * strength}))
end

local function goal(game, side)
  local s = game.state
  s.score[side] = s.score[side] + 1
  s.goals = s.goals + 1
  local by = s.last_kick and game.player(s.last_kick)
  if by then by.data.goals = by.data.goals + 1 end
  place_ball(game)
  game.broadcast('goal', {side = side, score = s.score, by = s.last_kick, tick = mink.tick()})
  s.last_kick = nil
  if s.goals >= GOALS_PER_ROUND then end_round(game, {round = s.round}) end
end

event_types = {'sensor_begin'}  -- on_event is given goals' sensors only

function on_event(game, ev)
  if ev.type ~= 'sensor_begin' or ev.body ~= game.state.ball then return end
  if ev.sensor == game.state.goal_left then goal(game, 'right')
  elseif ev.sensor == game.state.goal_right then goal(game, 'left') end
end

function end_round(game, data)
  local s = game.state
  if data.round ~= s.round then return end          -- a round that already ended
  game.broadcast('round_over', {round = s.round, score = s.score})
  mink.cancel(s.round_timer)
  s.round = s.round + 1
  s.score = {left = 0, right = 0}
  s.goals = 0
  place_ball(game)
  s.round_timer = mink.after(ROUND_TICKS, 'end_round', {round = s.round})
end
