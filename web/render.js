// Drawing the world on a canvas: 2D from the side (y up), 3D as a perspective view that orbits a
// target, or from straight above with the height shown by the shade. Every shape is drawn as it
// is: rotated boxes, circles, polygons; in 3D boxes, spheres, ellipsoids, capsules, cylinders,
// cones and hulls as shaded triangle meshes, far ones first (the painter's algorithm). Joints
// are lines from each body's centre through its anchors, over the bodies. Levels
// (levels.js): a 2D chain or segment as its line (a chain's ghost ends dashed), a 3D mesh or
// heightfield as its triangles, seen from either side.

import { hull2 } from "./character.js";
import { isLevel, levelGeometry } from "./levels.js";
import { rotate } from "./predict.js";

// Colours by kind, and for the players' bodies by owner (a hue per client).
export function colour(b, me) {
  if (b.kind === "static") return [120, 124, 132];
  if (b.owner && b.owner === me) return [80, 220, 120];
  if (b.owner) {
    const h = (b.owner * 137.508) % 360;
    return hsl(h, 0.65, 0.55);
  }
  if (b.kind === "kinematic") return [90, 150, 235];
  if (b.kind === "character") return [240, 200, 70];
  return [235, 140, 60]; // dynamic, the server's
}

function hsl(h, s, l) {
  const f = (n) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

const JOINT = "rgb(250,250,210)"; // joints' lines

const css = (c, k = 1) => `rgb(${Math.round(c[0] * k)},${Math.round(c[1] * k)},${Math.round(c[2] * k)})`;

// ---- 2D ----

export class View2 {
  constructor() {
    this.centre = [0, 6];
    this.scale = 20; // pixels a metre
  }
  toScreen(p, w, h) {
    return [w / 2 + (p[0] - this.centre[0]) * this.scale, h / 2 - (p[1] - this.centre[1]) * this.scale];
  }
  toWorld(x, y, w, h) {
    return [this.centre[0] + (x - w / 2) / this.scale, this.centre[1] - (y - h / 2) / this.scale];
  }
  pan(dx, dy) {
    this.centre[0] -= dx / this.scale;
    this.centre[1] += dy / this.scale;
  }
  zoom(k) {
    this.scale = Math.min(400, Math.max(2, this.scale * k));
  }
  draw(ctx, w, h, items, me, lines = []) {
    ctx.save();
    ctx.translate(w / 2, h / 2);
    ctx.scale(this.scale, -this.scale);
    ctx.translate(-this.centre[0], -this.centre[1]);
    ctx.lineWidth = 1.5 / this.scale;
    for (const { body: b, pose } of items) {
      const c = colour(b, me);
      if (isLevel(b.shape)) {
        drawLines(ctx, b.shape, pose, c, this.scale);
        continue;
      }
      ctx.save();
      ctx.translate(pose.pos[0], pose.pos[1]);
      if (b.shape.type !== "aabb") ctx.rotate(pose.rot || 0);
      ctx.fillStyle = css(c);
      ctx.strokeStyle = b.owner === me && me ? "#fff" : css(c, 0.6);
      if (b.sensor) {
        // A sensor: its outline alone, dashed, what passes through it shows.
        ctx.strokeStyle = "rgb(120,220,255)";
        ctx.setLineDash([6 / this.scale, 4 / this.scale]);
      }
      ctx.beginPath();
      const s = b.shape;
      if (s.type === "aabb" || s.type === "box") {
        ctx.rect(-s.half[0], -s.half[1], 2 * s.half[0], 2 * s.half[1]);
      } else if (s.type === "circle") {
        ctx.arc(0, 0, s.radius, 0, 2 * Math.PI);
        ctx.moveTo(0, 0);
        ctx.lineTo(s.radius, 0); // the radius line shows it turn
      } else if (s.type === "polygon") {
        const p = hull2(s.points);
        p.forEach((q, i) => (i ? ctx.lineTo(q[0], q[1]) : ctx.moveTo(q[0], q[1])));
        ctx.closePath();
      }
      if (!b.sensor) ctx.fill();
      ctx.stroke();
      ctx.restore();
    }
    // Joints over the bodies: a line through each anchor.
    ctx.strokeStyle = JOINT;
    ctx.setLineDash([]);
    for (const [p, q] of lines) {
      ctx.beginPath();
      ctx.moveTo(p[0], p[1]);
      ctx.lineTo(q[0], q[1]);
      ctx.stroke();
    }
    ctx.restore();
  }
}

// A 2D level: its segments stroked, a chain's ghost ends (its first and last points, which
// only shape its seams) dashed.
function drawLines(ctx, shape, pose, c, scale) {
  const g = levelGeometry(shape);
  if (!g) return;
  ctx.save();
  ctx.translate(pose.pos[0], pose.pos[1]);
  ctx.rotate(pose.rot || 0);
  ctx.strokeStyle = css(c, 1.3);
  ctx.lineWidth = 3 / scale;
  const p = g.points, n = p.length;
  const path = (from, to) => {
    ctx.beginPath();
    for (let i = from; i <= to; i++) ctx[i === from ? "moveTo" : "lineTo"](p[i % n][0], p[i % n][1]);
    ctx.stroke();
  };
  if (g.ghosts && n >= 4) {
    path(1, n - 2);
    ctx.setLineDash([4 / scale, 4 / scale]);
    path(0, 1);
    path(n - 2, n - 1);
  } else {
    path(0, g.loop ? n : n - 1);
  }
  ctx.restore();
}

// ---- 3D ----

const meshes = new Map(); // a shape's mesh in body coordinates, by its JSON

function sphereMesh(rx, ry, rz, hh = 0, cap = false) {
  // Rings from the bottom pole to the top; a capsule's halves are pulled apart by hh.
  const tris = [], rings = 8, segs = 12;
  const pt = (i, j) => {
    const th = (Math.PI * i) / rings - Math.PI / 2, ph = (2 * Math.PI * j) / segs;
    const y = ry * Math.sin(th) + (cap ? (i >= rings / 2 ? hh : -hh) : 0);
    return [rx * Math.cos(th) * Math.cos(ph), y, rz * Math.cos(th) * Math.sin(ph)];
  };
  for (let i = 0; i < rings; i++)
    for (let j = 0; j < segs; j++) {
      const a = pt(i, j), b = pt(i, j + 1), c = pt(i + 1, j + 1), d = pt(i + 1, j);
      tris.push([a, c, b], [a, d, c]);
    }
  return tris;
}

function prismMesh(rBottom, rTop, hh) {
  const tris = [], segs = 16;
  const ring = (r, y, j) => [r * Math.cos((2 * Math.PI * j) / segs), y, r * Math.sin((2 * Math.PI * j) / segs)];
  for (let j = 0; j < segs; j++) {
    const a = ring(rBottom, -hh, j), b = ring(rBottom, -hh, j + 1);
    const c = ring(rTop, hh, j + 1), d = ring(rTop, hh, j);
    tris.push([a, c, b], [a, d, c]);
    tris.push([[0, -hh, 0], a, b], [[0, hh, 0], c, d]);
  }
  return tris;
}

function boxMesh(h) {
  const v = (x, y, z) => [x * h[0], y * h[1], z * h[2]];
  const q = (a, b, c, d) => [[a, b, c], [a, c, d]];
  return [
    ...q(v(-1, -1, -1), v(1, -1, -1), v(1, 1, -1), v(-1, 1, -1)),
    ...q(v(-1, -1, 1), v(-1, 1, 1), v(1, 1, 1), v(1, -1, 1)),
    ...q(v(-1, -1, -1), v(-1, 1, -1), v(-1, 1, 1), v(-1, -1, 1)),
    ...q(v(1, -1, -1), v(1, -1, 1), v(1, 1, 1), v(1, 1, -1)),
    ...q(v(-1, -1, -1), v(-1, -1, 1), v(1, -1, 1), v(1, -1, -1)),
    ...q(v(-1, 1, -1), v(1, 1, -1), v(1, 1, 1), v(-1, 1, 1)),
  ];
}

// The faces of a convex hull: every triangle of points with all the others on one side (the
// brute force of the definition; hulls sent here have few points).
function hullMesh(points) {
  const p = points.slice(0, 48), tris = [], eps = 1e-6;
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  for (let i = 0; i < p.length; i++)
    for (let j = i + 1; j < p.length; j++)
      for (let k = j + 1; k < p.length; k++) {
        const n = cross(sub(p[j], p[i]), sub(p[k], p[i]));
        if (dot(n, n) < eps) continue;
        let pos = 0, neg = 0;
        for (const q of p) {
          const s = dot(n, sub(q, p[i]));
          if (s > eps) pos++;
          else if (s < -eps) neg++;
        }
        if (pos === 0) tris.push([p[i], p[j], p[k]]);
        else if (neg === 0) tris.push([p[i], p[k], p[j]]);
      }
  return tris;
}

function meshOf(shape) {
  const key = JSON.stringify(shape);
  let m = meshes.get(key);
  if (m) return m;
  switch (shape.type) {
    case "box": m = boxMesh(shape.half); break;
    case "sphere": m = sphereMesh(shape.radius, shape.radius, shape.radius); break;
    case "ellipsoid": m = sphereMesh(shape.radii[0], shape.radii[1], shape.radii[2]); break;
    case "capsule": m = sphereMesh(shape.radius, shape.radius, shape.radius, shape.half_height, true); break;
    case "cylinder": m = prismMesh(shape.radius, shape.radius, shape.half_height); break;
    case "cone": m = prismMesh(shape.radius, 0, shape.half_height); break;
    case "hull": m = hullMesh(shape.points); break;
    default: m = [];
  }
  meshes.set(key, m);
  return m;
}

export class View3 {
  constructor() {
    this.target = [0, 1, 0];
    this.yaw = 0.6;
    this.pitch = 0.45;
    this.distance = 30;
    this.top = false; // from straight above, height by shade
  }
  pan(dx, dy) {
    const k = this.distance / 600;
    const r = [Math.cos(this.yaw), 0, -Math.sin(this.yaw)], f = [Math.sin(this.yaw), 0, Math.cos(this.yaw)];
    this.target = this.target.map((t, i) => t - (dx * r[i] + dy * f[i]) * k);
  }
  orbit(dx, dy) {
    this.yaw -= dx * 0.01;
    this.pitch = Math.min(1.5, Math.max(0.05, this.pitch + dy * 0.01));
  }
  zoom(k) {
    this.distance = Math.min(300, Math.max(3, this.distance / k));
  }
  // The camera's basis: right, up, forward (into the screen), and its eye.
  basis() {
    const pitch = this.top ? Math.PI / 2 - 1e-4 : this.pitch;
    const f = [-Math.cos(pitch) * Math.sin(this.yaw), -Math.sin(pitch), -Math.cos(pitch) * Math.cos(this.yaw)];
    const r = norm([-f[2], 0, f[0]]); // forward x world up
    const u = crossv(r, f);
    const eye = this.target.map((t, i) => t - f[i] * this.distance);
    return { r, u, f, eye };
  }
  project(p, cam, w, h) {
    const d = [p[0] - cam.eye[0], p[1] - cam.eye[1], p[2] - cam.eye[2]];
    const z = d[0] * cam.f[0] + d[1] * cam.f[1] + d[2] * cam.f[2];
    const x = d[0] * cam.r[0] + d[1] * cam.r[1] + d[2] * cam.r[2];
    const y = d[0] * cam.u[0] + d[1] * cam.u[1] + d[2] * cam.u[2];
    const focal = h / (2 * Math.tan(0.5)); // a 57 degree field of view
    if (this.top) {
      const k = focal / this.distance;
      return [w / 2 + x * k, h / 2 - y * k, z];
    }
    if (z < 0.1) return null;
    return [w / 2 + (x * focal) / z, h / 2 - (y * focal) / z, z];
  }
  // The camera's ray through the screen point: {origin, dir} (dir a unit vector).
  ray(sx, sy, w, h) {
    const cam = this.basis();
    const focal = h / (2 * Math.tan(0.5));
    const x = sx - w / 2, y = h / 2 - sy;
    if (this.top) {
      const k = this.distance / focal;
      return { origin: cam.eye.map((e, i) => e + cam.r[i] * x * k + cam.u[i] * y * k), dir: cam.f };
    }
    return { origin: cam.eye, dir: norm(cam.f.map((f, i) => f * focal + cam.r[i] * x + cam.u[i] * y)) };
  }
  // The point on the ground plane y = 0 under the screen point, or null.
  pick(sx, sy, w, h) {
    const { origin, dir } = this.ray(sx, sy, w, h);
    if (Math.abs(dir[1]) < 1e-6) return null;
    const t = -origin[1] / dir[1];
    return t > 0 ? origin.map((o, i) => o + dir[i] * t) : null;
  }
  // The nearest of the drawn items' triangles that the ray meets (Moller and Trumbore's test,
  // either side): {id, point, t}, or null. What the picture shows under a screen point.
  hit(items, origin, dir) {
    let best = null;
    for (const { body: b, pose } of items) {
      const tris = isLevel(b.shape) ? (levelGeometry(b.shape) || {}).tris || [] : meshOf(b.shape);
      for (const tri of tris) {
        const [a, p1, p2] = tri.map((v) => add(rotate(pose.rot, v), pose.pos));
        const e1 = sub3(p1, a), e2 = sub3(p2, a), q = crossv(dir, e2), det = dot3(e1, q);
        if (Math.abs(det) < 1e-12) continue;
        const s = sub3(origin, a), u = dot3(s, q) / det;
        if (u < 0 || u > 1) continue;
        const r = crossv(s, e1), v = dot3(dir, r) / det;
        if (v < 0 || u + v > 1) continue;
        const t = dot3(e2, r) / det;
        if (t > 0 && (!best || t < best.t)) best = { id: b.id, t, point: origin.map((o, i) => o + dir[i] * t) };
      }
    }
    return best;
  }
  draw(ctx, w, h, items, me, lines = []) {
    const cam = this.basis();
    const light = norm([0.4, 1, 0.3]);
    const faces = [];
    let ylo = Infinity, yhi = -Infinity;
    for (const { pose } of items) (ylo = Math.min(ylo, pose.pos[1])), (yhi = Math.max(yhi, pose.pos[1]));
    for (const { body: b, pose } of items) {
      const c = colour(b, me);
      const level = isLevel(b.shape);
      const tris = level ? (levelGeometry(b.shape) || {}).tris || [] : meshOf(b.shape);
      for (const t of tris) {
        const wp = t.map((v) => add(rotate(pose.rot, v), pose.pos));
        let n = norm(crossv(sub3(wp[1], wp[0]), sub3(wp[2], wp[0])));
        // Outward: away from the body's centre (the meshes are convex around it); a level's
        // triangle faces the eye, its front as its winding says or its back.
        const mid = [0, 1, 2].map((i) => (wp[0][i] + wp[1][i] + wp[2][i]) / 3);
        const toEye = sub3(cam.eye, wp[0]);
        const out = level
          ? n[0] * toEye[0] + n[1] * toEye[1] + n[2] * toEye[2]
          : n[0] * (mid[0] - pose.pos[0]) + n[1] * (mid[1] - pose.pos[1]) + n[2] * (mid[2] - pose.pos[2]);
        if (out < 0) n = n.map((x) => -x);
        // Cut at the near plane: a floor that reaches behind the eye is drawn up to it.
        const poly = this.top ? wp : clipNear(wp, cam);
        if (poly.length < 3) continue;
        const sp = poly.map((p) => this.project(p, cam, w, h));
        if (sp.some((p) => !p)) continue;
        // Back faces away from the eye are not drawn.
        if (!this.top && n[0] * toEye[0] + n[1] * toEye[1] + n[2] * toEye[2] < 0) continue;
        if (this.top && n[1] < 0) continue;
        let shade = 0.35 + 0.65 * Math.max(0, n[0] * light[0] + n[1] * light[1] + n[2] * light[2]);
        const height = level ? mid[1] : pose.pos[1];
        if (this.top) shade = 0.35 + 0.65 * (yhi > ylo ? Math.min(1, Math.max(0, (height - ylo) / (yhi - ylo))) : 1);
        // Far to near by the farthest corner, so that a large face (a floor) under small
        // bodies is painted before them.
        const z = this.top ? -(wp[0][1] + wp[1][1] + wp[2][1]) : Math.max(...sp.map((p) => p[2]));
        faces.push({ sp, z, fill: css(c, shade), sensor: b.sensor });
      }
    }
    faces.sort((a, b) => b.z - a.z);
    for (const f of faces) {
      ctx.beginPath();
      ctx.moveTo(f.sp[0][0], f.sp[0][1]);
      for (let i = 1; i < f.sp.length; i++) ctx.lineTo(f.sp[i][0], f.sp[i][1]);
      ctx.closePath();
      ctx.fillStyle = f.fill;
      ctx.strokeStyle = f.sensor ? "rgba(120,220,255,0.6)" : f.fill;
      ctx.lineWidth = 0.5;
      if (!f.sensor) ctx.fill(); // a sensor: a wire mesh, what passes through it shows
      ctx.stroke();
    }
    // Joints over the meshes: a line through each anchor.
    ctx.strokeStyle = JOINT;
    ctx.lineWidth = 1.5;
    for (const [p, q] of lines) {
      const a = this.project(p, cam, w, h), b = this.project(q, cam, w, h);
      if (!a || !b) continue;
      ctx.beginPath();
      ctx.moveTo(a[0], a[1]);
      ctx.lineTo(b[0], b[1]);
      ctx.stroke();
    }
  }
}

const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const sub3 = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const NEAR = 0.11; // m: the near plane, a little in front of where View3.project stops (0.1)

// The part of a triangle (world points) in front of the near plane: a polygon of 3 or 4
// points, or none (Sutherland and Hodgman's clipping against one plane).
function clipNear(tri, cam) {
  const depth = (p) => (p[0] - cam.eye[0]) * cam.f[0] + (p[1] - cam.eye[1]) * cam.f[1] + (p[2] - cam.eye[2]) * cam.f[2];
  const d = tri.map(depth);
  if (d.every((x) => x >= NEAR)) return tri;
  const out = [];
  for (let i = 0; i < 3; i++) {
    const j = (i + 1) % 3, a = tri[i], b = tri[j];
    if (d[i] >= NEAR) out.push(a);
    if (d[i] >= NEAR !== d[j] >= NEAR) {
      const k = (NEAR - d[i]) / (d[j] - d[i]);
      out.push(a.map((x, n) => x + (b[n] - x) * k));
    }
  }
  return out;
}

const dot3 = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const crossv = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
function norm(v) {
  const l = Math.hypot(...v) || 1;
  return v.map((x) => x / l);
}
