// Levels as the page draws them (docs/PROTOCOL.md, "Levels"): a small level comes whole in its
// body's first sighting (a chain's points, a mesh's vertices and indices, a heightfield's
// samples); a large one is named there by its key, and its level file is fetched once from
// /levels/KEY on the HTTP port that served the page, read here (the layout of
// server/sim/level_file.c, little-endian) into the same lines and triangles. Until it has
// arrived the level is drawn as nothing.

const files = new Map(); // key -> null while fetching, then { points, loop } or { tris }

// A level file's geometry: a chain's points (and whether it loops), a segment's two ends, or
// a mesh's or heightfield's triangles, each three [x, y, z] corners, front counter-clockwise.
export function parseLevelFile(buf) {
  const v = new DataView(buf);
  const magic = String.fromCharCode(...new Uint8Array(buf, 0, 8));
  if (magic !== "MINKLVL1") throw new Error("not a level file");
  const kind = v.getUint32(8, true);
  let at = 16;
  const u32 = () => ((at += 4), v.getUint32(at - 4, true));
  const f32 = () => ((at += 4), v.getFloat32(at - 4, true));
  if (kind === 0) {
    const p = [[f32(), f32()], [f32(), f32()]];
    return { points: p, loop: false };
  }
  if (kind === 1) {
    const n = u32(), loop = u32() !== 0;
    at += 8 + 16; // segment count, welded, bounds
    const points = [];
    for (let i = 0; i < n; i++) points.push([f32(), f32()]);
    return { points, loop, ghosts: !loop };
  }
  if (kind === 2) {
    const nv = u32(), nt = u32();
    at += 8 + 24; // dropped, padding, bounds
    const verts = [];
    for (let i = 0; i < nv; i++) verts.push([f32(), f32(), f32()]);
    const tris = [];
    for (let t = 0; t < nt; t++) tris.push([verts[u32()], verts[u32()], verts[u32()]]);
    return { tris };
  }
  const cols = u32(), rows = u32();
  at += 8; // triangles, padding
  const sx = f32(), sy = f32(), sz = f32();
  at += 8 + 24; // min, max, bounds
  const y = [];
  for (let i = 0; i < cols * rows; i++) y.push(f32());
  const cells = new Uint8Array(buf, at, (cols - 1) * (rows - 1));
  return { tris: heightfieldTris(cols, rows, [sx, 1, sz], y, (c) => (cells[c] & 0x40) !== 0) };
}

// A heightfield's triangles (col_heightfield3's layout): cell (i, j) is (i,j) (i,j+1)
// (i+1,j+1) and (i,j) (i+1,j+1) (i+1,j), facing +y; a hole has none.
function heightfieldTris(cols, rows, scale, y, hole) {
  const p = (i, j) => [i * scale[0], y[j * cols + i] * scale[1], j * scale[2]];
  const tris = [];
  for (let j = 0; j + 1 < rows; j++)
    for (let i = 0; i + 1 < cols; i++) {
      if (hole(j * (cols - 1) + i)) continue;
      tris.push([p(i, j), p(i, j + 1), p(i + 1, j + 1)], [p(i, j), p(i + 1, j + 1), p(i + 1, j)]);
    }
  return tris;
}

function fetchLevel(key) {
  files.set(key, null);
  fetch(`/levels/${key}`)
    .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(r.status))))
    .then((buf) => files.set(key, parseLevelFile(buf)))
    .catch(() => files.delete(key)); // asked again at the next first sighting's draw
}

// The geometry of a level shape: inline, or from its fetched file (null while it comes).
export function levelGeometry(shape) {
  if (shape.level) {
    if (!files.has(shape.level)) fetchLevel(shape.level);
    return files.get(shape.level) || null;
  }
  switch (shape.type) {
    case "segment":
      return { points: [shape.a, shape.b], loop: false };
    case "chain":
      return { points: shape.points, loop: !!shape.loop, ghosts: !shape.loop };
    case "mesh":
      return { tris: (shape.indices || []).map((t) => t.map((k) => shape.vertices[k])) };
    case "heightfield": {
      const [cols, rows] = shape.size, holes = shape.holes || [];
      return { tris: heightfieldTris(cols, rows, shape.scale, shape.heights, (c) => !!holes[c]) };
    }
    default:
      return null;
  }
}

export const isLevel = (shape) => ["segment", "chain", "mesh", "heightfield"].includes(shape.type);
