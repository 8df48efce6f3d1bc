// The search panel: what a brain says about its search, in words and a table. Shared by
// the play view and the viewer's analysis.
//
// A report (the server's arena/board/reports.py) comes from our ANALYSIS lines
// (source "analysis": playouts, speed, candidates with visits and priors) or from
// Yixin-Board and Rapfi lines (source "engine": depth, evaluation, principal variation);
// what a brain does not say is null. A brain that says nothing at all gets a plain
// sentence, never empty dashes.

import {duration, percent} from "./ui.js";

export const NO_DETAILS = "this engine reports no search details";

// What the panel says of a search without a report: nothing at all, or messages in a
// form of the engine's own (the newest is `said`).
export function silentNote(said) {
  return said ? `no search details in a form the board reads; it said: ${said}` : NO_DETAILS;
}

function div(parent, cls) {
  const node = document.createElement("div");
  node.className = cls;
  parent.appendChild(node);
  return node;
}

// The words for a report's numbers (one line).
export function statsLine(rep) {
  if (rep.source === "engine") {
    const parts = [];
    if (rep.depth !== null) parts.push(`depth ${rep.depth}`);
    if (rep.mate) {
      parts.push(rep.mate > 0 ? `a proven win in ${rep.mate} plies` : `a proven loss in ${-rep.mate} plies`);
    } else if (rep.eval !== null || rep.winrate !== null) {
      const scale = rep.winrate === null ? "" : ` (winrate ≈ ${percent(rep.winrate)})`;
      parts.push(`eval ${rep.eval === null ? "?" : rep.eval}${scale}`);
    }
    if (rep.best) parts.push(`best ${rep.best.join(",")}`);
    if (rep.lost.length) parts.push(`${rep.lost.length} moves proved lost`);
    return parts.join(" · ") || "reporting…";
  }
  if (!rep.playouts) {
    // The move came before any tree search: a five, a threat solver's win, the opening.
    if (!rep.done) return "starting…";
    if (rep.winrate !== null && rep.winrate >= 0.999) {
      if (!rep.pv.length) return "a five: no search needed";
      const line = rep.pv.length === 1 ? "winning move" : `${rep.pv.length}-move winning line`;
      return `a proven win (the threat search's ${line}): no playouts needed`;
    }
    return "no tree search for this move";
  }
  return `${rep.playouts} playouts · ${rep.speed}/s · depth ${rep.depth.toFixed(1)}-${rep.seldepth} · ` +
    `winrate ${percent(rep.winrate)}`;
}

function candidateRows(tbody, rep) {
  tbody.replaceChildren();
  for (const m of (rep ? rep.moves : []).slice(0, 10)) {
    const tr = document.createElement("tr");
    const visits = m.visits === null ? "–" : `${m.visits} (${(m.share * 100).toFixed(1)}%)`;
    for (const text of [`${m.x},${m.y}`, visits, percent(m.winrate), percent(m.prior)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
}

// A panel in `root`. show({head, note, report, thinking}) draws it; onPv(pv or null) is
// called when the pointer enters or leaves the principal variation, to draw it on the
// board.
export function searchPanel(root, onPv) {
  root.replaceChildren();
  const head = div(root, "search-head");
  const note = div(root, "search-note");
  const stats = div(root, "search-stats mono");
  const pv = div(root, "search-pv");
  const engine = div(root, "search-engine");
  const table = document.createElement("table");
  table.className = "candidates";
  table.innerHTML = "<thead><tr><th>move</th><th>visits</th><th>winrate</th><th>prior</th></tr></thead><tbody></tbody>";
  root.appendChild(table);
  let shown = null;
  pv.onmouseenter = () => { if (shown && shown.pv.length) onPv(shown.pv); };
  pv.onmouseleave = () => onPv(null);
  return {
    head,
    show({head: title, note: words, report}) {
      shown = report;
      head.textContent = title || "";
      note.textContent = words || "";
      note.hidden = !words;
      stats.textContent = report ? statsLine(report) : "";
      stats.dataset.state = report ? (report.done ? "done" : "thinking") : "none";
      pv.textContent = report && report.pv.length ? "PV " + report.pv.map(([x, y]) => `${x},${y}`).join(" ") : "";
      pv.title = report && report.pv.length ? "point here to see it on the board" : "";
      engine.textContent = report && report.line ? `its words: ${report.line}` : "";
      candidateRows(table.tBodies[0], report);
      table.hidden = !(report && report.moves.length);
    },
  };
}

// "white · Rapfi · thinking 1.2 s", "white · Rapfi · played 9,7 in 1043 ms (move 12)".
export function searchTitle(who, search, thinkingMs) {
  if (search.move === undefined || search.move === null) {
    return `${who} · thinking${thinkingMs === null ? "…" : ` ${duration(thinkingMs)}`}`;
  }
  return `${who} · played ${search.move.join(",")} in ${duration(search.ms)} (move ${search.ply + 1})`;
}
