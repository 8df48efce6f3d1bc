// The web board's page: plain JavaScript drawing SVG, fed by the server's WebSocket.
// Views: Play (a game against brains, with their search live), Viewer (saved games,
// stepped through and analysed), Tournament (a followed arena run).
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const CELL = 40;
const RULES = {0: "freestyle", 1: "exact five", 4: "renju", 8: "caro", 9: "caro, exact five"};
const $ = (id) => document.getElementById(id);

let socket = null;
let game = null;            // the last "state" event
let report = null;          // {seat, ply, report}: the newest analysis of the play board
let best = null;            // {seat, ply, x, y}: Yixin-Board REALTIME BEST
let heatKind = "share";
const viewer = {games: [], game: null, ply: 0, report: null, reportPly: -1, move: null};

// ---------------------------------------------------------------------------- drawing

function el(name, attrs, parent) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Draws a board. opts: width, height, moves ([[x,y]...]), forbidden, heat (report),
// heatKind, mark ({x,y}: a ring), labels (bool), numbers (bool: move numbers).
function drawBoard(svg, opts) {
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
    const text = el("g", {"font-size": 13, fill: "#5a3d12", "text-anchor": "middle"}, svg);
    // Protocol coordinates (x,y from 0 at the top left), as in the tables and the PV.
    for (let x = 0; x < w; x++) el("text", {x: (x + 1) * CELL, y: CELL * 0.55}, text).textContent = x;
    for (let y = 0; y < h; y++) el("text", {x: CELL * 0.45, y: (y + 1) * CELL + 4}, text).textContent = y;
  }
  const taken = new Set((opts.moves || []).map(([x, y]) => `${x},${y}`));
  if (opts.heat) drawHeat(svg, opts.heat, opts.heatKind || "share", taken);
  for (const [x, y] of opts.forbidden || []) {
    const g = el("g", {class: "forbidden", "data-x": x, "data-y": y, stroke: "#c0392b", "stroke-width": 3}, svg);
    const cx = (x + 1) * CELL, cy = (y + 1) * CELL, r = CELL * 0.18;
    el("line", {x1: cx - r, y1: cy - r, x2: cx + r, y2: cy + r}, g);
    el("line", {x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r}, g);
  }
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
  if (opts.mark) {
    el("circle", {class: "best", cx: (opts.mark.x + 1) * CELL, cy: (opts.mark.y + 1) * CELL,
      r: CELL * 0.44, fill: "none", stroke: "#1f6feb", "stroke-width": 3}, svg);
  }
}

// The heat map: a disc per candidate, its opacity the visit share (or the policy's prior).
function drawHeat(svg, rep, kind, taken) {
  const moves = rep.moves.filter((m) => !taken.has(`${m.x},${m.y}`));
  const top = Math.max(1e-9, ...moves.map((m) => m[kind]));
  const layer = el("g", {class: "heatmap", "data-state": rep.done ? "done" : "thinking"}, svg);
  for (const m of moves) {
    const v = m[kind];
    if (v <= 0) continue;
    const g = el("g", {class: "heat", "data-x": m.x, "data-y": m.y}, layer);
    const cx = (m.x + 1) * CELL, cy = (m.y + 1) * CELL;
    el("circle", {cx, cy, r: CELL * 0.45, fill: `rgba(214, 48, 49, ${(0.12 + 0.78 * v / top).toFixed(3)})`}, g);
    if (v >= 0.01) {
      el("text", {x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 12, fill: "#fff",
        "font-weight": 600}, g).textContent = Math.round(v * 100);
    }
    el("title", {}, g).textContent = `${m.x},${m.y}: ${(m.share * 100).toFixed(1)}% of visits, ` +
      `winrate ${m.winrate === null ? "–" : (m.winrate * 100).toFixed(1) + "%"}, prior ${(m.prior * 100).toFixed(1)}%`;
  }
}

function pointAt(svg, event) {
  const p = svg.createSVGPoint();
  p.x = event.clientX;
  p.y = event.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  const x = Math.round(q.x / CELL) - 1, y = Math.round(q.y / CELL) - 1;
  if (x < 0 || y < 0 || x >= +svg.dataset.width || y >= +svg.dataset.height) return null;
  return {x, y};
}

function candidatesTable(tbody, rep) {
  tbody.replaceChildren();
  for (const m of (rep ? rep.moves : []).slice(0, 10)) {
    const tr = document.createElement("tr");
    for (const text of [`${m.x},${m.y}`, `${m.visits} (${(m.share * 100).toFixed(1)}%)`,
      m.winrate === null ? "–" : `${(m.winrate * 100).toFixed(1)}%`, `${(m.prior * 100).toFixed(1)}%`]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
}

function searchLine(rep) {
  if (!rep) return "–";
  const rate = rep.winrate === null ? "–" : `${(rep.winrate * 100).toFixed(1)}%`;
  return `${rep.done ? "done" : "thinking"} · ${rep.time_ms} ms · ${rep.playouts} playouts · ` +
    `${rep.speed}/s · depth ${rep.depth.toFixed(1)}-${rep.seldepth} · winrate ${rate}`;
}

function pvLine(rep) {
  return rep && rep.pv.length ? "PV " + rep.pv.map(([x, y]) => `${x},${y}`).join(" ") : "";
}

// A line chart in a viewBox of 300x110 (or the svg's own): points [[x, y]...] with y in
// [lo, hi]; extra horizontal lines [{y, colour}].
function lineChart(svg, points, lo, hi, lines, maxX) {
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

// ------------------------------------------------------------------------- the game

function setStatus(text, error) {
  const s = $("status");
  s.textContent = text;
  s.classList.toggle("error", !!error);
}

function seatName(seat) {
  return seat === "human" ? "you" : game.brains[+seat];
}

function renderGame() {
  if (!game) return;
  const ply = game.moves.length;
  const live = report && report.ply === ply && report.seat !== "analyst" ? report.report : null;
  const mark = best && best.ply === ply && best.seat !== "analyst" ? best : null;
  drawBoard($("play-board"), {width: game.width, height: game.height, moves: game.moves,
    forbidden: game.forbidden, heat: live, heatKind, mark});
  if (game.result) setStatus(`Game over: ${game.result.text}`);
  else if (game.thinking === "black" || game.thinking === "white")
    setStatus(`${game.thinking} (${seatName(game.seats[game.thinking])}) is thinking…`);
  else setStatus(`${game.to_move} to move (${seatName(game.seats[game.to_move])}) · ${RULES[game.rule]} · ${game.width}×${game.height}`);
  lineChart($("winrate-graph"), game.winrates, 0, 1, [{y: 0.5, colour: "#999", label: "50%"}],
    Math.max(10, ply));
}

function fillBrainSelects(brains) {
  for (const id of ["black", "white", "analyst"]) {
    const select = $(id);
    const chosen = select.value;
    select.replaceChildren();
    if (id !== "analyst") select.appendChild(new Option("human", "human"));
    brains.forEach((name, i) => select.appendChild(new Option(name, String(i))));
    if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
  }
}

function onState(state) {
  const first = !game;
  game = state;
  fillBrainSelects(state.brains);
  if (first) {
    $("black").value = state.seats.black;
    $("white").value = state.seats.white;
    $("size").value = String(state.width);
    $("rule").value = String(state.rule);
    $("turn-ms").value = state.turn_ms;
  }
  renderGame();
  if (viewer.move && state.thinking !== "analyst") renderViewer();
}

function addMessage(text) {
  const log = $("messages");
  log.textContent += text + "\n";
  log.scrollTop = log.scrollHeight;
}

function onEvent(event) {
  switch (event.type) {
    case "state": onState(event); break;
    case "analysis":
      if (event.seat === "analyst") {
        viewer.report = event.report;
        renderViewer();
      } else {
        report = {seat: event.seat, ply: event.ply, report: event.report};
        $("search-line").textContent = `${event.seat}: ` + searchLine(event.report);
        $("pv-line").textContent = pvLine(event.report);
        candidatesTable($("candidates").tBodies[0], event.report);
        renderGame();
      }
      break;
    case "realtime":
      if (event.seat === "analyst" && event.kind === "MOVE") {
        viewer.move = {x: event.x, y: event.y};
        renderViewer();
      } else if (event.kind === "BEST" && game) {
        best = {seat: event.seat, ply: game.moves.length, x: event.x, y: event.y};
        renderGame();
      }
      break;
    case "message": addMessage(`${event.seat}: ${event.text}`); break;
    case "error": setStatus(event.text, true); addMessage(`error: ${event.text}`); break;
    case "run": onRun(event); break;
  }
}

function send(request) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(request));
}

function connect() {
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  socket.onopen = () => { $("connection").textContent = "connected"; };
  socket.onclose = () => {
    $("connection").textContent = "disconnected, retrying…";
    setTimeout(connect, 1000);
  };
  socket.onmessage = (message) => onEvent(JSON.parse(message.data));
}

function newGame(moves) {
  const size = +$("size").value;
  report = null;
  best = null;
  send({op: "new", width: size, height: size, rule: +$("rule").value, turn_ms: +$("turn-ms").value,
    black: $("black").value, white: $("white").value, moves: moves || []});
}

// ------------------------------------------------------------------------- the viewer

function openGames(games) {
  viewer.games = games;
  const list = $("game-list");
  list.replaceChildren();
  games.forEach((g, i) => list.appendChild(new Option(
    `${i + 1}. ${g.black} – ${g.white} (${g.result}, ${g.moves.length} moves)`, String(i))));
  if (games.length) { list.value = "0"; showGame(0); }
}

function showGame(index) {
  viewer.game = viewer.games[index];
  viewer.ply = viewer.game.moves.length;
  viewer.report = null;
  viewer.move = null;
  $("ply").max = viewer.game.moves.length;
  $("move-list").textContent = viewer.game.moves.map(([x, y], i) => `${i + 1}. ${x},${y}`).join("  ");
  renderViewer();
}

function stepTo(ply) {
  if (!viewer.game) return;
  viewer.ply = Math.max(0, Math.min(viewer.game.moves.length, ply));
  viewer.report = null;
  viewer.move = null;
  renderViewer();
}

function renderViewer() {
  const g = viewer.game;
  if (!g) return;
  const moves = g.moves.slice(0, viewer.ply).map((m) => [m[0], m[1]]);
  const fresh = viewer.reportPly === viewer.ply;
  drawBoard($("viewer-board"), {width: g.width, height: g.height, moves, numbers: true,
    heat: fresh ? viewer.report : null, heatKind, mark: fresh ? viewer.move : null});
  $("ply").value = viewer.ply;
  const end = viewer.ply === g.moves.length ? ` · ${g.result}: ${g.reason}` : "";
  $("viewer-status").textContent = `${g.black} (black) – ${g.white} (white) · move ${viewer.ply} of ${g.moves.length} · ${RULES[g.rule]}${end}`;
  $("viewer-search").textContent = fresh && viewer.report ? searchLine(viewer.report) + "\n" + pvLine(viewer.report) : "–";
  candidatesTable($("viewer-candidates").tBodies[0], fresh ? viewer.report : null);
}

function viewerMoves() {
  return viewer.game.moves.slice(0, viewer.ply).map((m) => [m[0], m[1]]);
}

async function loadFile(file) {
  const text = await file.text();
  const answer = await fetch("/api/load", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({name: file.name, text, rule: +$("psq-rule").value})});
  const data = await answer.json();
  if (!answer.ok) { $("viewer-status").textContent = data.error; return; }
  openGames(data.games);
}

// --------------------------------------------------------------------- the tournament

function cells(tr, values, tag) {
  for (const v of values) {
    const td = document.createElement(tag || "td");
    td.textContent = v;
    tr.appendChild(td);
  }
  return tr;
}

function fmt(v, digits) { return v === null || v === undefined ? "–" : v.toFixed(digits || 0); }

function onRun(run) {
  $("tournament-tab").hidden = false;
  $("run-title").textContent = run.title;
  const rep = run.report;
  const body = $("standings").tBodies[0];
  body.replaceChildren();
  const players = rep ? rep.players : [];
  players.forEach((p, i) => body.appendChild(cells(document.createElement("tr"),
    [i + 1, p.name, fmt(p.elo), fmt(p.error), p.games, p.wins, p.draws, p.losses, p.points, p.faults])));
  eloChart($("elo-chart"), players);
  const table = $("crosstable");
  table.replaceChildren();
  const names = run.names;
  table.appendChild(cells(document.createElement("tr"), ["", ...names], "th"));
  for (const a of names) {
    table.appendChild(cells(document.createElement("tr"), [a, ...names.map((b) => {
      const c = (run.crosstable[a] || {})[b];
      return a === b ? "·" : c ? `${c[0]}/${c[1]}` : "";
    })]));
  }
  const sprt = rep && rep.sprt;
  $("sprt-box").hidden = !sprt;
  if (sprt) {
    $("sprt-line").textContent = `H0 ${sprt.elo0} vs H1 ${sprt.elo1} Elo: LLR ${fmt(sprt.llr, 2)} in [${fmt(sprt.lower, 2)}, ${fmt(sprt.upper, 2)}] · ${sprt.state}`;
    const lo = Math.min(sprt.lower * 1.2, ...run.llr.map((p) => p[1]));
    const hi = Math.max(sprt.upper * 1.2, ...run.llr.map((p) => p[1]));
    lineChart($("llr-chart"), run.llr, lo, hi, [{y: sprt.lower, colour: "#c0392b", label: "H0"},
      {y: sprt.upper, colour: "#27ae60", label: "H1"}, {y: 0, colour: "#999"}]);
  }
  const minis = $("live-games");
  minis.replaceChildren();
  for (const g of run.live) {
    const box = document.createElement("div");
    box.className = "mini";
    const svg = document.createElementNS(SVGNS, "svg");
    box.appendChild(svg);
    drawBoard(svg, {width: g.width, height: g.height, moves: g.moves, labels: false});
    box.appendChild(document.createTextNode(`#${g.game} ${g.black} – ${g.white}`));
    minis.appendChild(box);
  }
  if (!run.live.length) minis.textContent = "none";
  const finished = $("finished").tBodies[0];
  finished.replaceChildren();
  for (const g of run.games.slice().reverse()) {
    const tr = cells(document.createElement("tr"), [g.id + 1, g.black, g.white, g.result, g.moves, g.reason]);
    tr.dataset.game = g.id;
    tr.onclick = async () => {
      const record = await (await fetch(`/api/run/game/${g.id}`)).json();
      openGames([record]);
      showView("viewer");
    };
    finished.appendChild(tr);
  }
}

function eloChart(svg, players) {
  svg.replaceChildren();
  const rated = players.filter((p) => p.elo !== null);
  if (!rated.length) return;
  const W = 360, rowH = Math.min(28, 130 / rated.length), left = 110;
  const lo = Math.min(...rated.map((p) => p.elo - (p.error || 0))) - 20;
  const hi = Math.max(...rated.map((p) => p.elo + (p.error || 0))) + 20;
  const X = (v) => left + (W - left - 10) * (v - lo) / (hi - lo);
  el("line", {x1: X(0), x2: X(0), y1: 5, y2: 150, stroke: "#bbb", "stroke-dasharray": "3 3"}, svg);
  rated.forEach((p, i) => {
    const y = 15 + i * rowH;
    el("text", {x: 4, y: y + 4, "font-size": 11}, svg).textContent = p.name;
    const e = p.error || 0;
    el("line", {class: "errorbar", x1: X(p.elo - e), x2: X(p.elo + e), y1: y, y2: y, stroke: "#555", "stroke-width": 1.5}, svg);
    el("circle", {cx: X(p.elo), cy: y, r: 4, fill: "#d63031"}, svg);
    el("text", {x: X(p.elo), y: y - 6, "font-size": 10, "text-anchor": "middle"}, svg).textContent = fmt(p.elo);
  });
}

// ------------------------------------------------------------------------------ wiring

function showView(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === name);
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== name;
}

function wire() {
  for (const tab of document.querySelectorAll(".tab")) tab.onclick = () => showView(tab.dataset.view);
  $("play-board").addEventListener("click", (event) => {
    const p = pointAt($("play-board"), event);
    if (p) send({op: "play", x: p.x, y: p.y});
  });
  $("new-game").onclick = () => newGame();
  $("undo").onclick = () => send({op: "undo"});
  $("swap").onclick = () => {
    const b = $("black").value;
    $("black").value = $("white").value;
    $("white").value = b;
    send({op: "swap"});
  };
  for (const radio of document.querySelectorAll("input[name=heat]")) {
    radio.onchange = () => { heatKind = radio.value; renderGame(); renderViewer(); };
  }
  $("file").onchange = () => { if ($("file").files.length) loadFile($("file").files[0]); };
  $("game-list").onchange = () => showGame(+$("game-list").value);
  $("first").onclick = () => stepTo(0);
  $("prev").onclick = () => stepTo(viewer.ply - 1);
  $("next").onclick = () => stepTo(viewer.ply + 1);
  $("last").onclick = () => stepTo(viewer.game ? viewer.game.moves.length : 0);
  $("ply").oninput = () => stepTo(+$("ply").value);
  document.addEventListener("keydown", (event) => {
    if ($("viewer").hidden || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowLeft") stepTo(viewer.ply - 1);
    if (event.key === "ArrowRight") stepTo(viewer.ply + 1);
  });
  $("analyse").onclick = () => {
    const g = viewer.game;
    if (!g) return;
    viewer.report = null;
    viewer.move = null;
    viewer.reportPly = viewer.ply;
    send({op: "analyse", brain: +$("analyst").value, moves: viewerMoves(), width: g.width,
      height: g.height, rule: g.rule, turn_ms: +$("analyse-ms").value});
  };
  $("play-from-here").onclick = () => {
    const g = viewer.game;
    if (!g) return;
    $("size").value = String(g.width);
    $("rule").value = String(g.rule);
    showView("play");
    newGame(viewerMoves());
  };
}

async function start() {
  wire();
  connect();
  const games = await (await fetch("/api/games")).json();
  if (games.games.length) openGames(games.games);
  const run = await fetch("/api/run");
  if (run.ok) { onRun(await run.json()); showView("tournament"); }
}

start();
