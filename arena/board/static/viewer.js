// The viewer: saved games stepped through, a brain's analysis of the position shown, and
// "play from here". Other parts of the page open games in it with openGames().

import {drawBoard, winningLine} from "./draw.js";
import {on, send} from "./link.js";
import {brains, newGame} from "./play.js";
import {searchPanel, silentNote} from "./search.js";
import {$, RULES, duration, notice, showView} from "./ui.js";

const viewer = {
  games: [], game: null, ply: 0,
  // The analysis of the position at analysedPly: its report, the move the brain would
  // play, whether it is still thinking, and since when.
  report: null, move: null, analysedPly: -1, analysing: false, since: 0, brain: "", ms: 0,
  said: "", pv: null,
};
let heatKind = "share";
let panel = null;

// Opens these games (records as the server sends them) in the viewer, on the first one.
export function openGames(games) {
  viewer.games = games;
  const list = $("game-list");
  list.replaceChildren();
  games.forEach((g, i) => list.appendChild(new Option(
    `${i + 1}. ${g.black} – ${g.white} (${g.result}, ${g.moves.length} moves)`, String(i))));
  if (games.length) {
    list.value = "0";
    showGame(0);
  }
}

function showGame(index) {
  viewer.game = viewer.games[index];
  $("ply").max = viewer.game.moves.length;
  $("move-list").textContent = viewer.game.moves.map(([x, y], i) => `${i + 1}. ${x},${y}`).join("  ");
  stepTo(viewer.game.moves.length);
}

function stepTo(ply) {
  if (!viewer.game) return;
  viewer.ply = Math.max(0, Math.min(viewer.game.moves.length, ply));
  viewer.pv = null;
  renderViewer();
}

function shownMoves() {
  return viewer.game.moves.slice(0, viewer.ply).map((m) => [m[0], m[1]]);
}

// A game won by a five: the viewer marks the line at the last move (not for a renju
// foul, whose overline is no win).
function finalFive(g) {
  if (viewer.ply !== g.moves.length || g.result === "draw" || /forbid|foul/i.test(g.reason)) return null;
  return winningLine(shownMoves(), g.width, g.height);
}

export function renderViewer() {
  const g = viewer.game;
  if (!g) return;
  const fresh = viewer.analysedPly === viewer.ply;
  const report = fresh ? viewer.report : null;
  drawBoard($("viewer-board"), {width: g.width, height: g.height, moves: shownMoves(), numbers: true,
    heat: report && report.source === "analysis" ? report : null, heatKind,
    mark: fresh && viewer.move ? viewer.move : (report && report.best ? {x: report.best[0], y: report.best[1]} : null),
    lost: report ? report.lost : [], pv: viewer.pv, five: finalFive(g)});
  $("ply").value = viewer.ply;
  const end = viewer.ply === g.moves.length ? ` · ${g.result}: ${g.reason}` : "";
  $("viewer-status").textContent = `${g.black} (black) – ${g.white} (white) · move ${viewer.ply} of ${g.moves.length} · ${RULES[g.rule]}${end}`;
  renderAnalysis(fresh);
}

function renderAnalysis(fresh) {
  if (!fresh) {
    panel.show({head: "Choose a brain and analyse the position shown."});
    return;
  }
  const who = viewer.brain;
  if (viewer.analysing) {
    panel.show({head: `${who} · thinking ${duration(performance.now() - viewer.since)}`,
      note: viewer.report ? "" : "waiting for its first report…", report: viewer.report});
  } else if (viewer.move) {
    panel.show({head: `${who} would play ${viewer.move.x},${viewer.move.y} (thought ${duration(viewer.ms)})`,
      note: viewer.report ? "" : silentNote(viewer.said), report: viewer.report});
  } else {
    panel.show({head: `${who} did not finish its analysis.`, report: viewer.report});
  }
}

function analyse() {
  const g = viewer.game;
  if (!g) {
    notice("Open a game first: the viewer analyses the position it shows.");
    return;
  }
  const brain = $("analyst").value;
  if (brain === "") return;
  const sent = send({op: "analyse", brain: +brain, moves: shownMoves(), width: g.width,
    height: g.height, rule: g.rule, turn_ms: +$("analyse-ms").value}, "the analysis request");
  if (!sent) return;
  Object.assign(viewer, {report: null, move: null, analysedPly: viewer.ply, analysing: true,
    since: performance.now(), brain: brains()[+brain] || "the brain", ms: 0});
  renderViewer();
}

export function setViewerHeatKind(kind) {
  heatKind = kind;
  renderViewer();
}

export function wireViewer() {
  panel = searchPanel($("viewer-search"), (pv) => { viewer.pv = pv; renderViewer(); });
  on("analysis", (event) => {
    if (event.seat !== "analyst" || !viewer.analysing) return;
    viewer.report = event.report;
    renderViewer();
  });
  on("realtime", (event) => {
    if (event.seat !== "analyst" || event.kind !== "MOVE" || !viewer.analysing) return;
    Object.assign(viewer, {move: {x: event.x, y: event.y}, analysing: false, said: event.said,
      ms: performance.now() - viewer.since});
    renderViewer();
  });
  on("error", () => {
    if (viewer.analysing) {
      viewer.analysing = false;
      renderViewer();
    }
  });
  $("file").onchange = () => { if ($("file").files.length) loadFile($("file").files[0]); };
  $("game-list").onchange = () => showGame(+$("game-list").value);
  $("first").onclick = () => stepTo(0);
  $("prev").onclick = () => stepTo(viewer.ply - 1);
  $("next").onclick = () => stepTo(viewer.ply + 1);
  $("last").onclick = () => stepTo(viewer.game ? viewer.game.moves.length : 0);
  $("ply").oninput = () => stepTo(+$("ply").value);
  document.addEventListener("keydown", (event) => {
    if ($("viewer").hidden || ["INPUT", "SELECT"].includes(event.target.tagName)) return;
    if (event.key === "ArrowLeft") stepTo(viewer.ply - 1);
    if (event.key === "ArrowRight") stepTo(viewer.ply + 1);
    if (event.key === "Home") stepTo(0);
    if (event.key === "End") stepTo(viewer.game ? viewer.game.moves.length : 0);
  });
  $("analyse").onclick = analyse;
  $("play-from-here").onclick = () => {
    const g = viewer.game;
    if (!g) {
      notice("Open a game first: play goes on from the position the viewer shows.");
      return;
    }
    $("rule").value = String(g.rule);
    showView("play");
    newGame(shownMoves(), g.width, g.height);
  };
  setInterval(() => { if (viewer.analysing) renderAnalysis(viewer.analysedPly === viewer.ply); }, 250);
}

async function loadFile(file) {
  const text = await file.text();
  const answer = await fetch("/api/load", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({name: file.name, text, rule: +$("psq-rule").value})});
  const data = await answer.json();
  if (!answer.ok) {
    notice(data.error);
    $("viewer-status").textContent = data.error;
    return;
  }
  openGames(data.games);
}
