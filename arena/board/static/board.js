// The web board's page: plain JavaScript modules drawing SVG, fed by the server's
// WebSocket, no build step. Views: Play (play.js: a game against brains, with their
// search live), Viewer (viewer.js: saved games stepped through and analysed; other parts
// open games in it with openGames), Tournament (tournament.js: a followed arena run),
// Photo (photo.js: a position read from a picture, corrected by clicks).
// Shared: ui.js (views, notices), link.js (the socket), draw.js (SVG), search.js (the
// search panel).

import {connect} from "./link.js";
import {wirePhoto} from "./photo.js";
import {setHeatKind, wirePlay} from "./play.js";
import {onRun, wireTournament} from "./tournament.js";
import {$, showView} from "./ui.js";
import {openGames, setViewerHeatKind, wireViewer} from "./viewer.js";

async function start() {
  for (const tab of document.querySelectorAll(".tab")) tab.onclick = () => showView(tab.dataset.view);
  for (const radio of document.querySelectorAll("input[name=heat]")) {
    radio.onchange = () => { setHeatKind(radio.value); setViewerHeatKind(radio.value); };
  }
  wirePlay();
  wireViewer();
  wireTournament();
  wirePhoto();
  connect();
  // Games given on the command line (board --open) open in the viewer, a followed run
  // on its page.
  const games = await (await fetch("/api/games")).json();
  if (games.games.length) {
    openGames(games.games);
    showView("viewer");
  }
  const run = await fetch("/api/run");
  if (run.ok) {
    onRun(await run.json());
    showView("tournament");
  }
  $("connection").dataset.ready = "1";
}

start();
