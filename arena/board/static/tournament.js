// The tournament page: standings, Elo chart, crosstable, SPRT, the games in progress and
// the finished games, redrawn from each "run" event. Games keep one number, their place
// in the run's schedule, while they are played and once finished.

import {drawBoard, el, lineChart} from "./draw.js";
import {on} from "./link.js";
import {$, showView} from "./ui.js";
import {openGames} from "./viewer.js";

function cells(tr, values, tag) {
  for (const v of values) {
    const td = document.createElement(tag || "td");
    td.textContent = v;
    tr.appendChild(td);
  }
  return tr;
}

function fmt(v, digits) { return v === null || v === undefined ? "–" : v.toFixed(digits || 0); }

export function onRun(run) {
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
    box.dataset.game = g.number;
    const svg = el("svg", {});
    box.appendChild(svg);
    drawBoard(svg, {width: g.width, height: g.height, moves: g.moves, labels: false});
    box.appendChild(document.createTextNode(`#${g.number} ${g.black} – ${g.white}`));
    minis.appendChild(box);
  }
  if (!run.live.length) minis.textContent = "none";
  const finished = $("finished").tBodies[0];
  finished.replaceChildren();
  for (const g of run.games.slice().reverse()) {
    const tr = cells(document.createElement("tr"), [g.number, g.black, g.white, g.result, g.moves, g.reason]);
    tr.dataset.game = g.number;
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
  // One row per brain: the chart is as tall as its rows.
  const W = 360, rowH = 28, left = 110, H = 20 + rated.length * rowH;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const lo = Math.min(...rated.map((p) => p.elo - (p.error || 0))) - 20;
  const hi = Math.max(...rated.map((p) => p.elo + (p.error || 0))) + 20;
  const X = (v) => left + (W - left - 10) * (v - lo) / (hi - lo);
  el("line", {x1: X(0), x2: X(0), y1: 5, y2: H - 5, stroke: "#bbb", "stroke-dasharray": "3 3"}, svg);
  rated.forEach((p, i) => {
    const y = 20 + i * rowH;
    el("text", {x: 4, y: y + 4, "font-size": 11}, svg).textContent = p.name;
    const e = p.error || 0;
    el("line", {class: "errorbar", x1: X(p.elo - e), x2: X(p.elo + e), y1: y, y2: y, stroke: "#555", "stroke-width": 1.5}, svg);
    el("circle", {cx: X(p.elo), cy: y, r: 4, fill: "#d63031"}, svg);
    el("text", {x: X(p.elo), y: y - 6, "font-size": 10, "text-anchor": "middle"}, svg).textContent = fmt(p.elo);
  });
}

export function wireTournament() {
  on("run", onRun);
}
