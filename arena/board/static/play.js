// The play view: a game against brains (or between two), with the search of the brain
// to move drawn while it thinks. The server owns the game (its "state" events, with the
// newest search of the game); "analysis" events refresh that search as it goes.

import {drawBoard, lineChart, pointAt, winningLine} from "./draw.js";
import {on, send} from "./link.js";
import {searchPanel, searchTitle, silentNote} from "./search.js";
import {$, RULES, notice} from "./ui.js";

let game = null;            // the last "state" event
let thinkingSince = null;   // performance.now() when the brain to move began, as seen here
let heatKind = "share";
let pvShown = null;         // a principal variation drawn while the pointer is on it
let panel = null;

export function brains() {
  return game ? game.brains : [];
}

function seatName(seat) {
  return seat === "human" ? "you" : game.brains[+seat];
}

function hasBrain() {
  return game.seats.black !== "human" || game.seats.white !== "human";
}

// The search shown on the board: the one of the position on the board (live), if any.
function liveSearch() {
  const search = game.search;
  return search && search.ply === game.moves.length && search.move === undefined ? search : null;
}

export function renderGame() {
  if (!game) return;
  const ply = game.moves.length;
  const live = liveSearch();
  const report = live ? live.report : null;
  const five = game.result && game.result.ending === "five" ? winningLine(game.moves, game.width, game.height) : null;
  drawBoard($("play-board"), {width: game.width, height: game.height, moves: game.moves,
    forbidden: game.forbidden, heat: report && report.source === "analysis" ? report : null, heatKind,
    mark: report && report.best ? {x: report.best[0], y: report.best[1]} : null,
    lost: report ? report.lost : [], pv: pvShown, five});
  const status = $("status");
  if (game.result) status.textContent = `Game over: ${game.result.text}`;
  else if (game.thinking === "black" || game.thinking === "white")
    status.textContent = `${game.thinking} (${seatName(game.seats[game.thinking])}) is thinking…`;
  else status.textContent = `${game.to_move} to move (${seatName(game.seats[game.to_move])}) · ${RULES[game.rule]} · ${game.width}×${game.height}`;
  renderSearch();
  lineChart($("winrate-graph"), game.winrates, 0, 1, [{y: 0.5, colour: "#999", label: "50%"}],
    Math.max(10, ply));
}

function renderSearch() {
  const search = game.search;
  if (!search) {
    panel.show({head: hasBrain() ? "No search yet in this game." : "No brain plays in this game: nothing to show here."});
    return;
  }
  const who = `${search.seat} · ${search.brain}`;
  const thinking = game.thinking === search.seat && search.ply === game.moves.length;
  const title = searchTitle(who, search, thinking && thinkingSince !== null ? performance.now() - thinkingSince : null);
  let note = "";
  if (!search.report) {
    if (search.silent) note = silentNote(search.said);
    else if (search.reported === false) note = "no search details for this move";
    else if (thinking) note = "waiting for its first report…";
  }
  panel.show({head: title, note, report: search.report});
}

function onState(state) {
  const first = !game;
  const before = game;
  game = state;
  const thinking = state.thinking === "black" || state.thinking === "white";
  const same = before && before.game === state.game && before.thinking === state.thinking &&
    before.moves.length === state.moves.length;
  if (!thinking) thinkingSince = null;
  else if (!same || thinkingSince === null) thinkingSince = performance.now();
  if (before && before.game !== state.game) {
    pvShown = null;
    addMessage(`— game ${state.game} —`);
  }
  fillBrainSelects(state.brains);
  if (first) {
    $("black").value = state.seats.black;
    $("white").value = state.seats.white;
    if (state.width === state.height) showSize(state.width);
    $("rule").value = String(state.rule);
    $("turn-ms").value = state.turn_ms;
  }
  renderGame();
}

function onAnalysis(event) {
  if (event.seat === "analyst" || !game || event.game !== game.game) return;
  const search = game.search;
  if (search && search.seat === event.seat && search.ply === event.ply) {
    search.report = event.report;
    renderGame();
  }
}

function fillBrainSelects(names) {
  for (const id of ["black", "white", "analyst"]) {
    const select = $(id);
    const chosen = select.value;
    select.replaceChildren();
    if (id !== "analyst") select.appendChild(new Option("human", "human"));
    names.forEach((name, i) => select.appendChild(new Option(name, String(i))));
    if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
  }
}

function addMessage(text) {
  const log = $("messages");
  log.textContent += text + "\n";
  log.scrollTop = log.scrollHeight;
}

// Starts a game on the settings chosen, from moves (default: an empty board) on a board
// of width x height (default: the size chosen).
export function newGame(moves, width, height) {
  if (width !== undefined && width === height) showSize(width);
  const size = +$("size").value;
  send({op: "new", width: width || size, height: height || size, rule: +$("rule").value,
    turn_ms: +$("turn-ms").value, black: $("black").value, white: $("white").value,
    moves: moves || []}, "the new game");
}

// Selects a square board size, adding it to the choices if it is not there.
function showSize(size) {
  const select = $("size");
  if (![...select.options].some((o) => o.value === String(size))) {
    select.appendChild(new Option(`${size}×${size}`, String(size)));
  }
  select.value = String(size);
}

export function setHeatKind(kind) {
  heatKind = kind;
  renderGame();
}

export function wirePlay() {
  panel = searchPanel($("play-search"), (pv) => { pvShown = pv; renderGame(); });
  on("state", onState);
  on("analysis", onAnalysis);
  on("message", (event) => addMessage(`${event.seat}: ${event.text}`));
  on("error", (event) => { notice(event.text); addMessage(`error: ${event.text}`); });
  $("play-board").addEventListener("click", (event) => {
    const p = pointAt($("play-board"), event);
    if (p) send({op: "play", x: p.x, y: p.y}, `your move ${p.x},${p.y}`);
  });
  $("new-game").onclick = () => newGame();
  $("undo").onclick = () => send({op: "undo"}, "the undo");
  $("swap").onclick = () => {
    if (!send({op: "swap"}, "the swap")) return;
    const b = $("black").value;
    $("black").value = $("white").value;
    $("white").value = b;
  };
  // The thinking time ticks on between two events.
  setInterval(() => { if (game && thinkingSince !== null) renderSearch(); }, 250);
}
