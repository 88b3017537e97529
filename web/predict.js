// Prediction of the avatar with the server's character rules (character.js), and its
// reconciliation with each state, as mink-client's predict.c does: the prediction runs ahead
// of the server by the round trip and a margin, each input is stamped with the tick it is
// applied from (input.tick, which the server keeps it for), every tick since the state is
// replayed from the state's position and velocity by the inputs stamped for it, and a small
// correction is eased in rather than jumped to. An input the server took up after its tick
// widens the margin.

import * as chr from "./character.js";

const PASSES = 4; // push-out passes a tick, as the server's solver iterations
const REACH = 12; // m: obstacles taken within this distance of the avatar
const SNAP = 1; // m: a correction this large is not eased
const SMOOTH_MS = 60; // ms: a smaller one decays with this time constant
const MAX_INPUTS = 512;
const MARGIN = 1; // ticks ahead of an input's arrival, at the least
const CATCH_UP = 30; // ticks stepped at most in one call

export class Predictor {
  constructor(world) {
    this.world = world;
    this.active = false;
    this.inputs = []; // {seq, tick, move, jump, timed}
    this.tick = 0; // the tick pos and vel are the avatar after
    this.clock = null; // the server's tick at local time t: clock + t * hz / 1000 + one way
    this.rttMs = 0; // from the pongs
    this.margin = MARGIN;
    this.late = 0;
    this.offset = [0, 0, 0];
    this.offsetMs = 0;
    this.grounded = false;
    this.obstacles = [];
  }

  get dim() {
    return this.world.dim;
  }

  // An input about to be sent: the tick to stamp it with (0 before the first state).
  input(seq, move, jump, nowMs) {
    this.advance(nowMs);
    if (this.inputs.length >= MAX_INPUTS) this.inputs.shift();
    const tick = this.clock === null ? 0 : this.tick + 1;
    this.inputs.push({ seq, tick, move, jump, timed: this.rttMs > 0 });
    return tick;
  }

  rtt(ms) {
    if (!(ms >= 0)) return;
    this.rttMs = this.rttMs > 0 ? Math.max(ms, 0.75 * this.rttMs + 0.25 * ms) : ms;
  }

  lead() {
    return (this.rttMs * this.world.tickHz) / 1000 + this.margin;
  }

  // The input the server applies at `tick`: the newest stamped for it or before.
  inputAt(tick) {
    let inp = null;
    for (const i of this.inputs) {
      if (i.tick > tick) break;
      inp = i;
    }
    return inp;
  }

  stepTo(tick) {
    while (this.tick < tick) {
      const inp = this.inputAt(this.tick + 1);
      if (this.active) this.step(inp || { move: [0, 0, 0], jump: false }, !!inp && inp.jump && inp.tick === this.tick + 1);
      this.tick++;
    }
  }

  advance(nowMs) {
    if (this.clock === null) return;
    const target = Math.max(0, Math.floor(this.clock + (nowMs * this.world.tickHz) / 1000 + this.lead()));
    if (target > this.tick + CATCH_UP) this.tick = target - CATCH_UP;
    this.stepTo(target);
  }

  step(inp, jump) {
    const d = this.dim, dt = 1 / this.world.tickHz;
    const g = this.world.gravity.slice(0, d);
    const up = chr.up(g);
    const move = inp.move.slice(0, d);
    let vel = chr.steer(this.vel, move, chr.MAX_SPEED, up, this.grounded, dt);
    if (jump && this.grounded) vel = chr.jump(vel, up, chr.jumpSpeed(Math.hypot(...g), chr.JUMP_HEIGHT));
    this.vel = vel.map((v, i) => v + g[i] * dt);
    this.pos = this.pos.map((p, i) => p + this.vel[i] * dt);
    this.grounded = false;
    this.pushOut();
  }

  pushOut() {
    const d = this.dim;
    const up = chr.up(this.world.gravity.slice(0, d));
    for (let pass = 0; pass < PASSES; pass++) {
      let largest = 0;
      for (const o of this.obstacles) {
        let m;
        if (d === 3) {
          const me = { lo: this.pos.map((p, i) => p - this.half[i]), hi: this.pos.map((p, i) => p + this.half[i]) };
          m = chr.collideBox3(o.box, me);
        } else {
          m = chr.collide2(o.shape, chr.worldShape2(this.shape, this.pos, 0));
        }
        if (!m) continue;
        const ground = chr.isGround(m.normal, up, chr.MAX_SLOPE);
        this.grounded = this.grounded || ground;
        const a = { pos: o.pos.slice(0, d), vel: o.vel.slice(0, d), invMass: o.invMass };
        const b = { pos: this.pos, vel: this.vel, invMass: 1 };
        const push = chr.pushOut(a, b, m.normal, m.depth, up, false, ground);
        this.pos = b.pos;
        this.vel = b.vel;
        largest = Math.max(largest, push);
      }
      if (largest < 1e-6) break;
    }
  }

  gather(me) {
    this.obstacles = [];
    const d = this.dim;
    for (const b of this.world.bodies.values()) {
      if (b.id === me.id || !b.shape) continue;
      const s = b.samples[b.samples.length - 1];
      if (!s) continue;
      const far = Math.max(...s.pos.map((p, i) => Math.abs(p - me.pos[i])));
      if (far > REACH + 30) continue;
      const invMass = b.kind === "static" || b.kind === "kinematic" ? 0 : 1;
      const o = { pos: s.pos, vel: s.vel || s.pos.map(() => 0), invMass };
      if (d === 3) {
        o.box = bounds3(b.shape, s.pos, s.rot);
        if (!o.box) continue;
      } else {
        o.shape = chr.worldShape2(b.shape, s.pos, s.rot);
        if (!o.shape) continue;
      }
      this.obstacles.push(o);
    }
  }

  // A state arrived: restart from the server's avatar and replay the ticks since.
  reconcile(avatarId, nowMs) {
    const w = this.world;
    const sample = w.tick - (nowMs * w.tickHz) / 1000;
    if (this.clock === null || sample < this.clock - 4) this.clock = sample;
    else this.clock = Math.max(sample, this.clock - 0.05);
    let late = false;
    this.inputs.forEach((inp, i) => {
      if (inp.seq !== w.ack || !(w.ackTick > inp.tick)) return;
      if (inp.tick > 0 && inp.timed) {
        this.margin = Math.min(this.margin + (w.ackTick - inp.tick), 60);
        this.late++;
        late = true;
      }
      for (let j = i; j < this.inputs.length && this.inputs[j].tick < w.ackTick; j++) this.inputs[j].tick = w.ackTick;
    });
    if (!late) this.margin = Math.max(MARGIN, this.margin - 0.05);
    this.advance(nowMs);
    const b = w.bodies.get(avatarId);
    const me = w.latest(avatarId);
    if (!b || !me || !b.shape) {
      this.active = false;
      return;
    }
    this.shape = b.shape;
    this.half = halfOf(b.shape);
    let k = 0;
    while (k + 1 < this.inputs.length && this.inputs[k + 1].tick > 0 && this.inputs[k + 1].tick <= w.tick + 1) k++;
    this.inputs.splice(0, k);
    const was = this.active, old = this.pos ? this.pos.slice() : null;
    this.gather(me);
    this.pos = me.pos.slice();
    this.vel = (me.vel || me.pos.map(() => 0)).slice();
    // Whether it stands: a probe 2 mm lower is pushed out by ground.
    const keep = [this.pos.slice(), this.vel.slice()];
    this.grounded = false;
    this.pos[1] -= 0.002;
    this.pushOut();
    [this.pos, this.vel] = keep;
    this.active = true;
    const ahead = Math.max(this.tick, w.tick);
    this.tick = w.tick;
    this.stepTo(ahead);
    if (!was || !old) return;
    const delta = old.map((x, i) => x - this.pos[i]);
    if (Math.hypot(...delta) >= SNAP) this.offset = [0, 0, 0];
    else this.offset = this.offset.map((x, i) => x + (delta[i] || 0));
  }

  // Where to draw the avatar now.
  drawn(nowMs) {
    this.advance(nowMs);
    const dt = this.offsetMs ? nowMs - this.offsetMs : 0;
    this.offsetMs = nowMs;
    const keep = Math.exp(-Math.max(dt, 0) / SMOOTH_MS);
    this.offset = this.offset.map((x) => x * keep);
    return this.pos.map((p, i) => p + (this.offset[i] || 0));
  }
}

function halfOf(shape) {
  switch (shape.type) {
    case "box":
    case "aabb":
      return shape.half.length === 3 ? shape.half : [...shape.half, 0];
    case "capsule":
      return [shape.radius, shape.radius + shape.half_height, shape.radius];
    case "cylinder":
    case "cone":
      return [shape.radius, shape.half_height, shape.radius];
    case "sphere":
    case "circle":
      return [shape.radius, shape.radius, shape.radius];
    case "ellipsoid":
      return shape.radii;
    default:
      return [0.5, 0.5, 0.5];
  }
}

// A 3D shape's axis-aligned bounds at a pose: the rotated half extents (|R| h).
export function bounds3(shape, pos, q) {
  // A level is no box: the prediction leaves it to the server.
  if (shape.type === "mesh" || shape.type === "heightfield") return null;
  let pts;
  if (shape.type === "hull") pts = shape.points;
  else {
    const h = halfOf(shape);
    pts = [];
    for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1]) pts.push([sx * h[0], sy * h[1], sz * h[2]]);
  }
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const p of pts) {
    const w = rotate(q, p);
    for (let i = 0; i < 3; i++) {
      lo[i] = Math.min(lo[i], pos[i] + w[i]);
      hi[i] = Math.max(hi[i], pos[i] + w[i]);
    }
  }
  return { lo, hi };
}

export function rotate(q, v) {
  const [x, y, z, w] = q || [0, 0, 0, 1];
  // v + 2 w (q x v) + 2 q x (q x v)
  const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}
