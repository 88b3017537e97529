// The world as the page has heard it: every body it has seen (shape, kind, owner, tag, which
// arrive the first time a body is seen) and its recent states, to draw it between two states
// as mink-client does (entity interpolation, drawn one snapshot interval and a little behind
// the newest state, so that there is almost always a state on each side).

const KEEP = 8; // states kept per body

export class World {
  constructor() {
    this.bodies = new Map();
    this.dim = 2;
    this.tickHz = 60;
    this.snapshotHz = 20;
    this.tick = 0;
    this.ack = 0;
    this.ackTick = 0;
    this.offsetMs = null; // local ms minus the server tick's ms, the smallest seen
  }

  welcome(w) {
    this.dim = w.dim;
    this.tickHz = w.tick_hz;
    this.snapshotHz = w.snapshot_hz;
    this.gravity = w.gravity;
    this.bodies.clear();
    this.offsetMs = null;
  }

  tickMs(tick) {
    return (tick * 1000) / this.tickHz;
  }

  // A state: its bodies' new samples, the removed ones gone.
  state(st, nowMs) {
    this.tick = st.tick;
    this.ack = st.ack;
    // The step that first applied input `ack` (0: the server does not say).
    this.ackTick = Number.isInteger(st.ack_tick) && st.ack_tick <= st.tick ? st.ack_tick : 0;
    const off = nowMs - this.tickMs(st.tick);
    // The smallest offset is the state that came fastest; it creeps up slowly so that a clock
    // drift or a route change is followed.
    this.offsetMs = this.offsetMs === null ? off : Math.min(off, this.offsetMs + 0.05);
    for (const e of st.bodies || []) {
      let b = this.bodies.get(e.id);
      if (!b) {
        if (!e.shape) continue; // seen before this page joined the stream: wait for its shape
        b = { id: e.id, samples: [] };
        this.bodies.set(e.id, b);
      }
      if (e.shape) {
        b.shape = e.shape;
        b.kind = e.kind;
        b.owner = e.owner;
        b.tag = e.tag;
        b.sensor = e.sensor === true; // drawn as an outline: it pushes nothing
      }
      b.samples.push({ tick: st.tick, pos: e.pos, rot: e.rot, vel: e.vel });
      if (b.samples.length > KEEP) b.samples.shift();
    }
    for (const id of st.removed || []) this.bodies.delete(id);
  }

  latest(id) {
    const b = this.bodies.get(id);
    return b && b.samples.length ? b.samples[b.samples.length - 1] : null;
  }

  // The tick to draw at: one snapshot interval and a little behind the newest state.
  drawTick(nowMs) {
    if (this.offsetMs === null) return this.tick;
    const ms = nowMs - this.offsetMs - 1000 / this.snapshotHz - 20;
    return (ms * this.tickHz) / 1000;
  }

  // A body's pose at tick t: between the samples around it; a body at rest has no new samples
  // (it is left out of the states) and stays at its last one.
  pose(b, t) {
    const s = b.samples;
    if (!s.length) return null;
    if (t >= s[s.length - 1].tick || s.length === 1) return s[s.length - 1];
    let i = s.length - 1;
    while (i > 0 && s[i - 1].tick > t) i--;
    if (i === 0) return s[0];
    const a = s[i - 1], c = s[i];
    const k = (t - a.tick) / (c.tick - a.tick);
    const pos = a.pos.map((x, j) => x + (c.pos[j] - x) * k);
    let rot;
    if (typeof a.rot === "number") {
      let d = c.rot - a.rot;
      while (d > Math.PI) d -= 2 * Math.PI;
      while (d < -Math.PI) d += 2 * Math.PI;
      rot = a.rot + d * k;
    } else {
      rot = nlerp(a.rot, c.rot, k);
    }
    return { tick: t, pos, rot, vel: c.vel };
  }
}

// Quaternions [x, y, z, w]: the shorter way, normalised (close to slerp over a snapshot's turn).
function nlerp(a, b, k) {
  const d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = d < 0 ? -1 : 1;
  const q = a.map((x, i) => x + (s * b[i] - x) * k);
  const l = Math.hypot(...q) || 1;
  return q.map((x) => x / l);
}
