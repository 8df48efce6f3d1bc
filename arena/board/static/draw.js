// Drawing in SVG: the board with its stones, a search's marks, charts.

const SVGNS = "http://www.w3.org/2000/svg";
export const CELL = 40;
const DIRECTIONS = [[1, 0], [0, 1], [1, 1], [1, -1]];

export function el(name, attrs, parent) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Draws a board. opts: width, height, moves ([[x,y]...]), forbidden, heat (a search
// report), heatKind ("share" or "prior"), mark ({x,y}: the move a brain would play),
// lost ([[x,y]...]: moves a search proved lost), pv ([[x,y]...]: drawn as numbered
// ghosts), five ([[x,y]...]: the winning line), labels (bool), numbers (bool: move
// numbers on the stones).
export function drawBoard(svg, opts) {
  const w = opts.width, h = opts.height;
  svg.setAttribute("viewBox", `0 0 ${(w + 1) * CELL} ${(h + 1) * CELL}`);
  svg.dataset.width = w;
  svg.dataset.height = h;
  svg.replaceChildren();
  el("rect", {x: 0, y: 0, width: (w + 1) * CELL, height: (h + 1) * CELL, fill: "#e3b868"}, svg);
  const grid = el("g", {stroke: "#6b4a1c", "stroke-width": 1.2}, svg);
  for (let x = 0; x < w; x++) el("line", {x1: (x + 1) * CELL, y1: CELL, x2: (x + 1) * CELL, y2: h * CELL}, grid);
  for (let y = 0; y < h; y++) el("line", {x1: CELL, y1: (y + 1) * CELL, x2: w * CELL, y2: (y + 1) * CELL}, grid);
  if (opts.labels !== false) {
    // Protocol coordinates (x,y from 0 at the top left), as in the tables and the PV,
    // in the margin outside the stones of the first row and column.
    const text = el("g", {class: "labels", "font-size": 14, fill: "#5a3d12", "text-anchor": "middle"}, svg);
    for (let x = 0; x < w; x++) el("text", {class: "col", x: (x + 1) * CELL, y: CELL * 0.38}, text).textContent = x;
    for (let y = 0; y < h; y++) el("text", {class: "row", x: CELL * 0.25, y: (y + 1) * CELL + 4}, text).textContent = y;
  }
  const taken = new Set((opts.moves || []).map(([x, y]) => `${x},${y}`));
  if (opts.heat) drawHeat(svg, opts.heat, opts.heatKind || "share", taken);
  for (const [x, y] of opts.forbidden || []) cross(svg, x, y, "forbidden", "#c0392b");
  for (const [x, y] of opts.lost || []) if (!taken.has(`${x},${y}`)) cross(svg, x, y, "lost", "#555");
  (opts.moves || []).forEach(([x, y], i) => {
    const colour = i % 2 === 0 ? "black" : "white";
    const g = el("g", {class: `stone ${colour}`, "data-x": x, "data-y": y}, svg);
    el("circle", {cx: (x + 1) * CELL, cy: (y + 1) * CELL, r: CELL * 0.46,
      fill: colour === "black" ? "#111" : "#f8f8f8", stroke: "#333", "stroke-width": 1}, g);
    const last = i === opts.moves.length - 1;
    if (opts.numbers || last) {
      el("text", {x: (x + 1) * CELL, y: (y + 1) * CELL + 5, "text-anchor": "middle",
        "font-size": opts.numbers ? 15 : 20, fill: last ? "#e74c3c" : (colour === "black" ? "#fff" : "#111")}, g)
        .textContent = opts.numbers ? i + 1 : "•";
    }
  });
  if (opts.five) drawFive(svg, opts.five);
  if (opts.pv) drawPv(svg, opts.pv, (opts.moves || []).length, taken);
  if (opts.mark) {
    el("circle", {class: "best", cx: (opts.mark.x + 1) * CELL, cy: (opts.mark.y + 1) * CELL,
      r: CELL * 0.44, fill: "none", stroke: "#1f6feb", "stroke-width": 3}, svg);
  }
}

function cross(svg, x, y, kind, colour) {
  const g = el("g", {class: kind, "data-x": x, "data-y": y, stroke: colour, "stroke-width": 3}, svg);
  const cx = (x + 1) * CELL, cy = (y + 1) * CELL, r = CELL * 0.18;
  el("line", {x1: cx - r, y1: cy - r, x2: cx + r, y2: cy + r}, g);
  el("line", {x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r}, g);
}

// Least visits for a candidate's disc: a move tried once says nothing about the search.
const MIN_VISITS = 2;
const MIN_PRIOR = 0.005;

// The heat map: a disc per candidate, its opacity the visit share (or the policy's
// prior), for reports that count visits (our ANALYSIS lines).
function drawHeat(svg, rep, kind, taken) {
  const moves = rep.moves.filter((m) => !taken.has(`${m.x},${m.y}`) && m[kind] !== null &&
    (kind === "share" ? m.visits >= MIN_VISITS : m.prior >= MIN_PRIOR));
  const layer = el("g", {class: "heatmap", "data-state": rep.done ? "done" : "thinking"}, svg);
  if (!moves.length) return;
  const top = Math.max(1e-9, ...moves.map((m) => m[kind]));
  for (const m of moves) {
    const v = m[kind];
    const g = el("g", {class: "heat", "data-x": m.x, "data-y": m.y}, layer);
    const cx = (m.x + 1) * CELL, cy = (m.y + 1) * CELL;
    el("circle", {cx, cy, r: CELL * 0.45, fill: `rgba(214, 48, 49, ${(0.12 + 0.78 * v / top).toFixed(3)})`}, g);
    if (v >= 0.01) {
      el("text", {x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 12, fill: "#fff",
        "font-weight": 600}, g).textContent = Math.round(v * 100);
    }
    el("title", {}, g).textContent = `${m.x},${m.y}: ${m.visits} visits (${(m.share * 100).toFixed(1)}%), ` +
      `winrate ${m.winrate === null ? "–" : (m.winrate * 100).toFixed(1) + "%"}, prior ${(m.prior * 100).toFixed(1)}%`;
  }
}

// The winning line: a bar through its stones.
function drawFive(svg, cells) {
  const ends = [cells[0], cells[cells.length - 1]];
  el("line", {class: "five", x1: (ends[0][0] + 1) * CELL, y1: (ends[0][1] + 1) * CELL,
    x2: (ends[1][0] + 1) * CELL, y2: (ends[1][1] + 1) * CELL, stroke: "#e74c3c",
    "stroke-width": 6, "stroke-linecap": "round", opacity: 0.8}, svg);
}

// A principal variation as numbered ghost stones (the side to move first).
function drawPv(svg, pv, played, taken) {
  const layer = el("g", {class: "pv", opacity: 0.75}, svg);
  pv.slice(0, 12).forEach(([x, y], i) => {
    if (taken.has(`${x},${y}`)) return;
    const black = (played + i) % 2 === 0;
    el("circle", {cx: (x + 1) * CELL, cy: (y + 1) * CELL, r: CELL * 0.4, fill: black ? "#333" : "#fff",
      stroke: "#1f6feb", "stroke-width": 2}, layer);
    el("text", {x: (x + 1) * CELL, y: (y + 1) * CELL + 5, "text-anchor": "middle", "font-size": 15,
      fill: black ? "#fff" : "#111"}, layer).textContent = i + 1;
  });
}

// The five (or longer line) the last stone of moves made, or null: the longest run of
// its colour through it, a run of exactly five first (the one exact-five rules count).
export function winningLine(moves, width, height) {
  if (!moves.length) return null;
  const owner = new Map(moves.map(([x, y], i) => [`${x},${y}`, i % 2]));
  const [lx, ly] = moves[moves.length - 1];
  const colour = (moves.length - 1) % 2;
  let found = null;
  for (const [dx, dy] of DIRECTIONS) {
    const run = [[lx, ly]];
    for (const sign of [-1, 1]) {
      for (let k = 1; ; k++) {
        const x = lx + sign * k * dx, y = ly + sign * k * dy;
        if (x < 0 || y < 0 || x >= width || y >= height || owner.get(`${x},${y}`) !== colour) break;
        if (sign < 0) run.unshift([x, y]); else run.push([x, y]);
      }
    }
    if (run.length === 5) return run;
    if (run.length > 5 && (!found || run.length > found.length)) found = run;
  }
  return found;
}

// The board square under a mouse event, or null off the grid.
export function pointAt(svg, event) {
  const p = svg.createSVGPoint();
  p.x = event.clientX;
  p.y = event.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  const x = Math.round(q.x / CELL) - 1, y = Math.round(q.y / CELL) - 1;
  if (x < 0 || y < 0 || x >= +svg.dataset.width || y >= +svg.dataset.height) return null;
  return {x, y};
}

// A line chart in the svg's viewBox: points [[x, y]...] with y in [lo, hi]; extra
// horizontal lines [{y, colour, label}]; the x axis runs to maxX (default: the last x).
export function lineChart(svg, points, lo, hi, lines, maxX) {
  const box = svg.viewBox.baseVal;
  const W = box.width, H = box.height, pad = 24;
  svg.replaceChildren();
  const xs = Math.max(1, maxX || Math.max(1, ...points.map((p) => p[0])));
  const X = (x) => pad + (W - 2 * pad) * x / xs;
  const Y = (y) => H - pad + (2 * pad - H) * (y - lo) / (hi - lo);
  el("rect", {x: pad, y: pad, width: W - 2 * pad, height: H - 2 * pad, fill: "none", stroke: "#ccc"}, svg);
  for (const line of lines || []) {
    el("line", {x1: pad, x2: W - pad, y1: Y(line.y), y2: Y(line.y), stroke: line.colour, "stroke-dasharray": "4 3"}, svg);
    el("text", {x: W - pad + 2, y: Y(line.y) + 4, "font-size": 10, fill: line.colour}, svg).textContent = line.label || "";
  }
  if (points.length) {
    el("polyline", {class: "series", fill: "none", stroke: "#d63031", "stroke-width": 2,
      points: points.map(([x, y]) => `${X(x).toFixed(1)},${Y(Math.min(hi, Math.max(lo, y))).toFixed(1)}`).join(" ")}, svg);
    for (const [x, y] of points) el("circle", {cx: X(x), cy: Y(Math.min(hi, Math.max(lo, y))), r: 2.5, fill: "#d63031"}, svg);
  }
  el("text", {x: pad, y: H - 6, "font-size": 10, fill: "#666"}, svg).textContent = "0";
  el("text", {x: W - pad, y: H - 6, "font-size": 10, fill: "#666", "text-anchor": "end"}, svg).textContent = xs;
}
