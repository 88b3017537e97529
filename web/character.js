// The character rules of server/character/character.c, ported line for line to JavaScript so
// that the page predicts its avatar with the server's arithmetic (the same steer ramp, jump
// speed, ground test and push-out, straight up by depth / cos(slope) on walkable ground), and
// the 2D narrowphase the push-out needs (separating axes between convex polygons and circles,
// as the server's collision library finds the minimum translation). Vectors are arrays of 2 or
// 3 numbers. Numbers are doubles here and floats on the server: a prediction differs in the
// last bits, and reconciliation with each state takes that away.

export const RAMP_TIME_GROUND = 0.08; // s (CHR_RAMP_TIME_GROUND)
export const RAMP_TIME_AIR = 0.25; // s (CHR_RAMP_TIME_AIR)
export const STAND_MIN_COS = 0.3; // CHR_STAND_MIN_COS
export const MAX_SPEED = 6; // m/s: the avatar's max_speed in hello (mink-client's too)
export const JUMP_HEIGHT = 1.5; // m: the world's default jump_height
export const MAX_SLOPE = 0.8727; // rad: the world's default max_slope (50 degrees)

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const add = (a, b) => a.map((x, i) => x + b[i]);
const sub = (a, b) => a.map((x, i) => x - b[i]);
const scale = (a, k) => a.map((x) => x * k);
const mad = (a, k, b) => a.map((x, i) => x + k * b[i]); // a + k b
const len = (a) => Math.sqrt(dot(a, a));
const isZero = (a) => a.every((x) => x === 0);

export function up(gravity) {
  const l = len(gravity);
  return l > 0 ? scale(gravity, -1 / l) : gravity.map(() => 0);
}

export function horizontal(v, u) {
  return mad(v, -dot(v, u), u);
}

function approach(vel, target, maxDv) {
  let dv = sub(target, vel);
  const l = len(dv);
  if (l > maxDv && l > 0) dv = scale(dv, maxDv / l);
  return add(vel, dv);
}

export function steer(vel, move, maxSpeed, u, grounded, dt) {
  const target = scale(horizontal(move, u), maxSpeed);
  const velH = horizontal(vel, u);
  const ramp = grounded || isZero(u) ? RAMP_TIME_GROUND : RAMP_TIME_AIR;
  const newH = approach(velH, target, (maxSpeed * dt) / ramp);
  return add(vel, sub(newH, velH));
}

export function jumpSpeed(g, jumpHeight) {
  return Math.sqrt(2 * g * jumpHeight);
}

export function jump(vel, u, vUp) {
  return mad(horizontal(vel, u), vUp, u);
}

export function isGround(pushDir, u, maxSlope) {
  return dot(pushDir, u) >= Math.cos(maxSlope);
}

// A mover: {pos, vel, invMass}. Mutated in place, as the C functions do through pointers.
function stand(c, ground, pushDir, depth, u) {
  const cosSlope = dot(pushDir, u);
  c.pos = mad(c.pos, depth / cosSlope, u);
  const vUp = dot(sub(c.vel, ground.vel), u);
  if (vUp < 0) c.vel = mad(c.vel, -vUp, u);
  return depth;
}

export function pushOut(a, b, n, depth, u, aGround, bGround) {
  const wa = a.invMass, wb = b.invMass, wsum = wa + wb;
  if (wsum <= 0) return 0;
  if (bGround && wa === 0 && dot(n, u) >= STAND_MIN_COS) return stand(b, a, n, depth, u);
  if (aGround && wb === 0 && -dot(n, u) >= STAND_MIN_COS)
    return stand(a, b, scale(n, -1), depth, u);
  a.pos = mad(a.pos, (-depth * wa) / wsum, n);
  b.pos = mad(b.pos, (depth * wb) / wsum, n);
  const vn = dot(sub(b.vel, a.vel), n);
  if (vn < 0) {
    const jn = -vn / wsum;
    a.vel = mad(a.vel, -jn * wa, n);
    b.vel = mad(b.vel, jn * wb, n);
  }
  return depth;
}

// ---- 2D narrowphase: a shape at a pose as a convex polygon (world points) or a circle ----

export function worldShape2(shape, pos, rot) {
  const c = Math.cos(rot), s = Math.sin(rot);
  const tf = (p) => [pos[0] + c * p[0] - s * p[1], pos[1] + s * p[0] + c * p[1]];
  switch (shape.type) {
    case "aabb":
    case "box": {
      const [hx, hy] = shape.half;
      const r = shape.type === "aabb" ? 0 : rot;
      const cc = Math.cos(r), ss = Math.sin(r);
      const pts = [[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]];
      return { poly: pts.map((p) => [pos[0] + cc * p[0] - ss * p[1], pos[1] + ss * p[0] + cc * p[1]]) };
    }
    case "circle":
      return { circle: { c: pos.slice(0, 2), r: shape.radius } };
    case "polygon":
      return { poly: hull2(shape.points).map(tf) };
    default:
      return null;
  }
}

// The convex hull, counter-clockwise (Andrew's monotone chain).
export function hull2(points) {
  const p = points.map((q) => [q[0], q[1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop();
    lower.push(q);
  }
  for (let i = p.length - 1; i >= 0; i--) {
    const q = p[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop();
    upper.push(q);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

function project(poly, axis) {
  let lo = Infinity, hi = -Infinity;
  for (const p of poly) {
    const d = p[0] * axis[0] + p[1] * axis[1];
    lo = Math.min(lo, d);
    hi = Math.max(hi, d);
  }
  return [lo, hi];
}

function edgeNormals(poly) {
  const out = [];
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i], b = poly[(i + 1) % poly.length];
    const e = [b[0] - a[0], b[1] - a[1]], l = Math.hypot(e[0], e[1]);
    if (l > 0) out.push([e[1] / l, -e[0] / l]);
  }
  return out;
}

// {normal (from a to b), depth} when they overlap, else null: the minimum translation over the
// separating axes (the edge normals; for a circle also the axis to the nearest vertex).
export function collide2(a, b) {
  const ca = centre(a), cb = centre(b);
  const axes = [];
  if (a.poly) axes.push(...edgeNormals(a.poly));
  if (b.poly) axes.push(...edgeNormals(b.poly));
  const circ = a.circle || b.circle, other = a.circle ? b : a;
  if (circ && other.poly) {
    let best = null, bd = Infinity;
    for (const p of other.poly) {
      const d = Math.hypot(p[0] - circ.c[0], p[1] - circ.c[1]);
      if (d < bd) (bd = d), (best = p);
    }
    if (bd > 0) axes.push([(best[0] - circ.c[0]) / bd, (best[1] - circ.c[1]) / bd]);
  }
  if (a.circle && b.circle) {
    const d = [cb[0] - ca[0], cb[1] - ca[1]], l = Math.hypot(d[0], d[1]);
    axes.push(l > 0 ? [d[0] / l, d[1] / l] : [0, 1]);
  }
  let depth = Infinity, normal = null;
  for (const ax of axes) {
    const pa = a.poly ? project(a.poly, ax) : [dot(a.circle.c, ax) - a.circle.r, dot(a.circle.c, ax) + a.circle.r];
    const pb = b.poly ? project(b.poly, ax) : [dot(b.circle.c, ax) - b.circle.r, dot(b.circle.c, ax) + b.circle.r];
    const o = Math.min(pa[1], pb[1]) - Math.max(pa[0], pb[0]);
    if (o <= 0) return null;
    if (o < depth) {
      depth = o;
      normal = dot(sub(cb, ca), ax) < 0 ? [-ax[0], -ax[1]] : ax;
    }
  }
  return normal ? { normal, depth } : null;
}

function centre(s) {
  if (s.circle) return s.circle.c;
  const c = [0, 0];
  for (const p of s.poly) (c[0] += p[0]), (c[1] += p[1]);
  return [c[0] / s.poly.length, c[1] / s.poly.length];
}

// ---- 3D: obstacles as their axis-aligned bounds (the page has no 3D narrowphase) ----

export function collideBox3(a, b) {
  // a, b: {lo, hi}; the axis of least overlap, normal from a to b.
  let depth = Infinity, normal = null;
  for (let i = 0; i < 3; i++) {
    const o = Math.min(a.hi[i], b.hi[i]) - Math.max(a.lo[i], b.lo[i]);
    if (o <= 0) return null;
    if (o < depth) {
      depth = o;
      normal = [0, 0, 0];
      normal[i] = a.lo[i] + a.hi[i] < b.lo[i] + b.hi[i] ? 1 : -1;
    }
  }
  return { normal, depth };
}
