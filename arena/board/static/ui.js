// What every part of the page shares: element lookup, the views, the notice bar, rules.

export const $ = (id) => document.getElementById(id);
export const RULES = {0: "freestyle", 1: "exact five", 4: "renju", 8: "caro", 9: "caro, exact five"};

// Shows one view (play, viewer, tournament) and marks its tab.
export function showView(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === name);
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== name;
}

let noticeTimer = null;

// A message the person must see, kept apart from the status lines that redraw with every
// event (a refused move, a request that could not be sent); it goes after NOTICE_MS.
const NOTICE_MS = 8000;
export function notice(text) {
  const box = $("notice");
  box.textContent = text;
  box.hidden = !text;
  clearTimeout(noticeTimer);
  if (text) noticeTimer = setTimeout(() => { box.hidden = true; }, NOTICE_MS);
}

// "850 ms", "2.4 s".
export function duration(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function percent(rate) {
  return rate === null || rate === undefined ? "–" : `${(rate * 100).toFixed(1)}%`;
}
