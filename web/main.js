// The Mink web viewer: connects to the server's /ws on the page's own host and port, shows the
// world, and lets the visitor spectate, join with an avatar moved by the keyboard (predicted
// locally with the server's character rules), and drop shapes with a click. The page keeps a
// few figures in data attributes of <body> (data-tick, data-bodies, data-avatar, ...) for
// scripts and tests that read it.

import { World } from "./world.js";
import { Predictor, rotate } from "./predict.js";
import { View2, View3 } from "./render.js";
import { DROPS, dropChoices } from "./shapes.js";

const INPUT_MS = 33; // ~30 inputs a second, as mink-client
const PING_MS = 1000;

const $ = (id) => document.getElementById(id);
const canvas = $("view"), ctx = canvas.getContext("2d");
const params = new URLSearchParams(location.search);
const world = new World();
const predictor = new Predictor(world);
const view2 = new View2(), view3 = new View3();

let ws = null, client = 0, avatar = 0, seq = 0, req = 0;
let pingMs = null, joined = false;
let bytesWindow = [], statesWindow = []; // [ms, bytes] of the last second
const keys = new Set();
let jumpQueued = false;

function setData(k, v) {
  document.body.dataset[k] = String(v);
}

function showError(text) {
  const li = document.createElement("li");
  li.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  const list = $("errors");
  list.prepend(li);
  while (list.children.length > 6) list.lastChild.remove();
  setData("errors", Number(document.body.dataset.errors || 0) + 1);
}

// The last few events the world reported (subscribe {events}), newest first.
function showEvents(events) {
  const list = $("events");
  for (const e of events) {
    const li = document.createElement("li");
    const who = e.type.startsWith("sensor") ? `${e.sensor} ⊃ ${e.body}` : e.type === "joint_break" ? `${e.joint}` : `${e.a} · ${e.b}`;
    li.textContent = `${e.tick} ${e.type} ${who}${e.type === "hit" ? ` ${e.speed.toFixed(1)} m/s` : ""}`;
    list.prepend(li);
  }
  while (list.children.length > 5) list.lastChild.remove();
  setData("events", Number(document.body.dataset.events || 0) + events.length);
}

// A game's messages (its rules' `event` lines): the score line and a feed of the last few. A
// message whose data has `score` (an object of sides) or `points` sets the score line; one
// with `ball` names the body K kicks at (examples/ball).
let gameBall = 0;
function showGameEvent(m) {
  const d = m.data && typeof m.data === "object" ? m.data : {};
  if (d.score && typeof d.score === "object")
    $("score").textContent = Object.entries(d.score).map(([side, n]) => `${side} ${n}`).join(" – ");
  else if (typeof d.points === "number") $("score").textContent = `${d.name || "you"}: ${d.points}`;
  if (typeof d.ball === "number") gameBall = d.ball;
  const li = document.createElement("li");
  li.textContent = `${m.name} ${m.data === undefined ? "" : JSON.stringify(m.data)}`.slice(0, 96);
  const list = $("feed");
  list.prepend(li);
  while (list.children.length > 5) list.lastChild.remove();
  setData("gameEvents", Number(document.body.dataset.gameEvents || 0) + 1);
}

// K: the action `kick` towards the ball, from the avatar.
function kick() {
  const me = avatar && world.latest(avatar), ball = gameBall && world.latest(gameBall);
  if (!me || !ball) return;
  send({ type: "action", req: "kick", name: "kick", data: { dir: [ball.pos[0] - me.pos[0], ball.pos[1] - me.pos[1]] } });
}

// F: the action `fire` (examples/range) at what the pointer shows, as the picture showed it:
// `tick` the tick drawn, `from` the avatar's head (or, without an avatar, the camera), `dir`
// toward the surface under the pointer (in 2D toward the pointer's point).
let pointer = null; // the pointer's last place on the canvas, CSS pixels
function fire() {
  if (!joined || !pointer) return;
  const now = performance.now(), w = canvas.width, h = canvas.height;
  const { items, tick } = drawnItems(now);
  const me = items.find((it) => it.body.id === avatar);
  let from, dir;
  if (world.dim === 3) {
    const ray = view3.ray(pointer.x, pointer.y, w, h);
    const hit = view3.hit(items.filter((it) => it !== me), ray.origin, ray.dir);
    const aim = hit ? hit.point : ray.origin.map((o, i) => o + ray.dir[i] * 100);
    from = me ? [me.pose.pos[0], me.pose.pos[1] + 0.5, me.pose.pos[2]] : ray.origin;
    dir = aim.map((a, i) => a - from[i]);
  } else {
    const p = view2.toWorld(pointer.x, pointer.y, w, h);
    from = me ? me.pose.pos.slice(0, 2).concat([0]) : [view2.centre[0], view2.centre[1], 0];
    dir = [p[0] - from[0], p[1] - from[1], 0];
  }
  if (!dir.some((d) => d !== 0)) return;
  const r3 = (v) => v.map((x) => Number(x.toFixed(4)));
  const data = { tick: Math.max(0, Math.floor(tick)), from: r3(from), dir: r3(dir) };
  send({ type: "action", req: `fire${++req}`, name: "fire", data });
  setData("fired", JSON.stringify(data));
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws`);
  setData("connected", "connecting");
  ws.onopen = () => {
    setData("connected", "yes");
    const hello = { type: "hello", protocol: 1, name: params.get("name") || "web" };
    if (params.get("token")) hello.token = params.get("token");
    send(hello);
  };
  ws.onmessage = (ev) => onMessage(ev.data);
  ws.onclose = (ev) => {
    setData("connected", "no");
    joined = false;
    avatar = 0;
    showError(`disconnected (close code ${ev.code}${ev.reason ? ": " + ev.reason : ""}); reconnecting in 2 s`);
    setTimeout(connect, 2000);
  };
}

function onMessage(text) {
  const now = performance.now();
  bytesWindow.push([now, text.length]);
  let m;
  try {
    m = JSON.parse(text);
  } catch (e) {
    showError(`unreadable message: ${e.message}`);
    return;
  }
  switch (m.type) {
    case "welcome":
      world.welcome(m);
      client = m.client;
      joined = true;
      setData("client", client);
      setData("dim", m.dim);
      $("dim").textContent = `${m.dim}D`;
      $("view3mode").hidden = m.dim !== 3;
      send({ type: "subscribe", events: true });
      break;
    case "state":
      statesWindow.push(now);
      world.state(m, now);
      if (m.events && m.events.length) showEvents(m.events);
      if (avatar && !world.bodies.has(avatar)) setAvatar(0);
      if (avatar) predictor.reconcile(avatar, now);
      setData("tick", m.tick);
      setData("bodies", world.bodies.size);
      if (avatar && world.latest(avatar)) setData("avatarPos", world.latest(avatar).pos.join(","));
      break;
    case "spawned":
      if (m.req === "avatar") setAvatar(m.id);
      else setData("spawned", Number(document.body.dataset.spawned || 0) + 1);
      break;
    case "despawned":
      if (m.id === avatar) setAvatar(0);
      break;
    case "pong":
      pingMs = now - m.t;
      predictor.rtt(pingMs);
      break;
    case "error":
      showError(`${m.code}: ${m.message}`);
      break;
    case "event":
      showGameEvent(m);
      break;
  }
}

function setAvatar(id) {
  avatar = id;
  predictor.active = false;
  predictor.inputs = [];
  setData("avatar", id);
  $("join").textContent = id ? "Leave" : "Join";
}

// Join: the avatar is spawned as a character body of this client, as mink-client's hello makes
// it (a 0.8 x 1.8 m box in 2D, a capsule as tall in 3D), above the middle of the view.
function join() {
  if (!joined) return;
  if (avatar) {
    send({ type: "despawn", req: "leave", id: avatar });
    return;
  }
  const d = world.dim;
  const shape = d === 3 ? { type: "capsule", radius: 0.4, half_height: 0.5 } : { type: "aabb", half: [0.4, 0.9] };
  const pos = d === 3 ? [view3.target[0], 4, view3.target[2]] : [view2.centre[0], Math.max(view2.centre[1], 3)];
  send({ type: "spawn", req: "avatar", body: { shape, pos, kind: "character", max_speed: 6, tag: "web" } });
}

// The keys' move: in 2D left and right; in 3D on the ground, relative to the camera.
function moveOf() {
  let x = 0, z = 0;
  if (keys.has("ArrowLeft") || keys.has("KeyA")) x -= 1;
  if (keys.has("ArrowRight") || keys.has("KeyD")) x += 1;
  if (keys.has("ArrowUp") || keys.has("KeyW")) z -= 1;
  if (keys.has("ArrowDown") || keys.has("KeyS")) z += 1;
  if (world.dim !== 3) return [x, 0];
  const l = Math.hypot(x, z) || 1, c = Math.cos(view3.yaw), s = Math.sin(view3.yaw);
  // Screen right and screen up as directions on the ground.
  const mx = (x * c + z * s) / l, mz = (-x * s + z * c) / l;
  return [Number(mx.toFixed(3)), 0, Number(mz.toFixed(3))];
}

function sendInput() {
  if (!avatar) return;
  const move = moveOf(), jump = jumpQueued;
  jumpQueued = false;
  seq++;
  // Stamped with the tick the prediction applies it from, which the server keeps it for.
  const tick = predictor.input(seq, move.concat([0, 0]).slice(0, 3), jump, performance.now());
  const msg = { type: "input", seq, id: avatar, move, jump };
  if (tick > 0) msg.tick = tick;
  send(msg);
}

// A click drops a shape 4 m above where it points (on the ground plane in 3D): the one chosen
// in the menu, or each in turn.
let dropCount = 0;
function drop(sx, sy) {
  if (!joined) return;
  const w = canvas.width, h = canvas.height;
  const pick = $("shape").value, drops = DROPS[world.dim === 3 ? 3 : 2];
  const shape = pick === "any" ? drops[dropCount % drops.length] : drops.find((s) => s.type === pick) || drops[0];
  let body;
  if (world.dim === 3) {
    const p = view3.pick(sx, sy, w, h) || [view3.target[0], 0, view3.target[2]];
    body = { shape, pos: [p[0], 4, p[2]] };
  } else {
    const p = view2.toWorld(sx, sy, w, h);
    body = { shape, pos: [p[0], p[1] + 4], rot: 0.3 };
  }
  dropCount++;
  send({ type: "spawn", req: `drop${++req}`, body });
}

// ---- the picture ----

function resize() {
  const r = canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(r.width)), h = Math.max(1, Math.round(r.height));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
}

// The bodies as the picture shows them at `now`: [{body, pose}] and the tick drawn.
function drawnItems(now) {
  const tick = world.drawTick(now);
  const items = [];
  for (const b of world.bodies.values()) {
    let pose = world.pose(b, tick);
    if (!pose || !b.shape) continue;
    if (b.id === avatar && predictor.active) pose = { pos: predictor.drawn(now), rot: pose.rot };
    items.push({ body: b, pose });
  }
  return { items, tick };
}

// For scripts that drive the page (tests, bots): where body `id` is drawn now, in the canvas's
// CSS pixels, or null.
window.minkPage = {
  screenOf(id) {
    const it = drawnItems(performance.now()).items.find((i) => i.body.id === id);
    if (!it) return null;
    const w = canvas.width, h = canvas.height;
    const p = world.dim === 3 ? view3.project(it.pose.pos, view3.basis(), w, h) : view2.toScreen(it.pose.pos, w, h);
    return p ? [p[0], p[1]] : null;
  },
};

function frame() {
  const now = performance.now();
  const w = canvas.width, h = canvas.height;
  ctx.fillStyle = "#15171c";
  ctx.fillRect(0, 0, w, h);
  const { items } = drawnItems(now);
  const drawn = items.length;
  const lines = jointLines(items);
  if (world.dim === 3) view3.draw(ctx, w, h, items, client, lines);
  else view2.draw(ctx, w, h, items, client, lines);
  setData("drawn", drawn);
  status(now);
  requestAnimationFrame(frame);
}

// Each joint drawn as two segments, from each body's centre to its anchor (a joint to the world,
// b 0, from its point in the world), when its bodies are drawn: [[from, to], ...].
function jointLines(items) {
  const poses = new Map(items.map(({ body, pose }) => [body.id, pose]));
  const end = (id, local) => {
    if (id === 0) return { centre: local, anchor: local };
    const p = poses.get(id);
    if (!p) return null;
    const r =
      world.dim === 3
        ? rotate(p.rot, local)
        : [local[0] * Math.cos(p.rot || 0) - local[1] * Math.sin(p.rot || 0),
           local[0] * Math.sin(p.rot || 0) + local[1] * Math.cos(p.rot || 0)];
    return { centre: p.pos, anchor: p.pos.map((x, i) => x + r[i]) };
  };
  const lines = [];
  for (const j of world.joints.values()) {
    const a = end(j.a, j.local_a), b = end(j.b, j.local_b);
    if (!a || !b) continue;
    lines.push([a.centre, a.anchor], [a.anchor, b.anchor], [b.anchor, b.centre]);
  }
  return lines;
}

function status(now) {
  bytesWindow = bytesWindow.filter(([t]) => now - t < 1000);
  statesWindow = statesWindow.filter((t) => now - t < 1000);
  const kb = bytesWindow.reduce((s, [, n]) => s + n, 0) / 1024;
  const parts = [
    `tick ${world.tick}`,
    `ping ${pingMs === null ? "-" : pingMs.toFixed(0) + " ms"}`,
    `bodies ${world.bodies.size}`,
    `${kb.toFixed(1)} kB/s`,
    `${statesWindow.length} states/s`,
    avatar ? `avatar ${avatar}` : "spectating",
  ];
  $("status").textContent = parts.join(" · ");
}

// ---- input ----

let drag = null;
canvas.addEventListener("pointerdown", (e) => {
  drag = { x: e.offsetX, y: e.offsetY, moved: 0, button: e.button, shift: e.shiftKey };
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener("pointermove", (e) => {
  pointer = { x: e.offsetX, y: e.offsetY };
  if (!drag) return;
  const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
  drag.moved += Math.abs(dx) + Math.abs(dy);
  drag.x = e.offsetX;
  drag.y = e.offsetY;
  if (world.dim === 3) {
    if (drag.button === 2 || drag.shift || view3.top) view3.pan(dx, dy);
    else view3.orbit(dx, dy);
  } else view2.pan(dx, dy);
});
canvas.addEventListener("pointerup", (e) => {
  if (drag && drag.moved < 4 && drag.button === 0) drop(e.offsetX, e.offsetY);
  drag = null;
});
canvas.addEventListener("contextmenu", (e) => e.preventDefault());
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  const k = Math.exp(-e.deltaY * 0.0015);
  if (world.dim === 3) view3.zoom(k);
  else view2.zoom(k);
}, { passive: false });

const GAME_KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "KeyA", "KeyD", "KeyW", "KeyS", "Space"];
window.addEventListener("keydown", (e) => {
  if (e.code === "KeyK" && !e.repeat) kick();
  if (e.code === "KeyF" && !e.repeat) fire();
  if (!GAME_KEYS.includes(e.code) || e.target.tagName === "SELECT") return;
  e.preventDefault();
  if (e.code === "Space" && !keys.has("Space")) jumpQueued = true;
  keys.add(e.code);
});
window.addEventListener("keyup", (e) => keys.delete(e.code));
window.addEventListener("blur", () => keys.clear());
// The canvas's box changes with the window and with the header's line (the score, a wrapped
// status): its pixels follow, so that a pointer's place is the picture's.
new ResizeObserver(resize).observe(canvas);

$("join").addEventListener("click", join);
$("view3mode").addEventListener("click", () => {
  view3.top = !view3.top;
  $("view3mode").textContent = view3.top ? "Perspective" : "Top-down";
});

for (const [type, label] of dropChoices()) $("shape").add(new Option(label, type));
resize();
connect();
setInterval(sendInput, INPUT_MS);
setInterval(() => send({ type: "ping", t: performance.now() }), PING_MS);
requestAnimationFrame(frame);
