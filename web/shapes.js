// The shapes a click drops, the page's one list of the protocol's shape names (docs/PROTOCOL.md,
// "Shapes"), by the dimension of the worlds that take them, each about 1 m across. The shape
// menu of index.html is filled from it.

export const DROPS = {
  2: [
    { type: "box", half: [0.5, 0.5] },
    { type: "circle", radius: 0.5 },
    { type: "polygon", points: [[-0.6, -0.4], [0.6, -0.4], [0, 0.6]] },
  ],
  3: [
    { type: "box", half: [0.5, 0.5, 0.5] },
    { type: "sphere", radius: 0.5 },
    { type: "capsule", radius: 0.3, half_height: 0.4 },
    { type: "cylinder", radius: 0.4, half_height: 0.4 },
    { type: "cone", radius: 0.5, half_height: 0.5 },
    { type: "ellipsoid", radii: [0.6, 0.4, 0.3] },
    { type: "hull", points: [[0, 0.6, 0], [0.5, -0.3, 0.5], [-0.5, -0.3, 0.5], [0, -0.3, -0.6]] },
  ],
};

// The menu's choices, [type, label]: each type once, in the order above, its dimension named
// where only one dimension takes it.
export function dropChoices() {
  const label = new Map();
  for (const dim of [2, 3])
    for (const { type } of DROPS[dim]) label.set(type, label.has(type) ? type : `${type} (${dim}D)`);
  return [...label];
}
