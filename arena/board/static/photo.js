// Open a photo: a picture of a board (file picker, drag and drop, or paste) is sent to
// the server (POST /api/photo), which reads its position; the stones read are drawn over
// the picture, points read with little confidence ringed in orange, and a click on a
// point corrects it (empty, black, white in turn). The position then starts a game
// (Play) or opens in the viewer for a brain's analysis. Where the grid was not found, or
// found at the wrong size, the person sets it by hand: the board's size, then a click on
// each of its four corners, and the picture is read again on that grid. The view (its
// tab, its section and its style sheet) is built here, so the page's own files only
// import wirePhoto.

import {el} from "./draw.js";
import {newGame} from "./play.js";
import {$, notice, showView} from "./ui.js";
import {openGames} from "./viewer.js";

const EMPTY = 0, BLACK = 1, WHITE = 2;
const photo = {blob: null, url: null, image: null, reading: null, stones: null, corners: null};

const VIEW = `
<div class="photocol">
  <div id="photo-drop" class="photo-drop" tabindex="0">
    <p>Drop a picture of a board here, paste one (Ctrl+V), or
      <label class="photo-pick">choose a file<input id="photo-file" type="file" accept="image/*" hidden></label>.</p>
    <p class="hint">A phone photo (at an angle is fine), a scan or a screenshot; stones on
      the intersections or in the cells; the whole board in the picture.</p>
  </div>
  <div id="photo-stage" class="photo-stage" hidden>
    <img id="photo-image" alt="the picture">
    <svg id="photo-marks" class="photo-marks" role="img" aria-label="stones read"></svg>
  </div>
</div>
<div class="side">
  <fieldset>
    <legend>Position read</legend>
    <div id="photo-summary" class="status">No picture yet.</div>
    <ul id="photo-problems" class="photo-problems"></ul>
    <div class="hint">Click a point to correct it: empty → black → white. Orange rings: points
      read with little confidence.</div>
    <div class="buttons">
      <button id="photo-swap" title="for a program in which white moves first">Swap colours</button>
      <button id="photo-play" disabled>Play from here</button>
      <button id="photo-analyse" disabled>Open in the viewer</button>
      <button id="photo-other">Another picture</button>
    </div>
  </fieldset>
  <fieldset>
    <legend>Grid by hand</legend>
    <div class="hint">Grid not found, or read at the wrong size? Give the board's size, then
      click its four corners: the corner intersections, or the outer corners of the corner
      cells for stones in the cells.</div>
    <label>Size <input id="photo-size" value="15" size="6" title="points each way: 15, or 15x20 (columns x rows)"></label>
    <label>Stones <select id="photo-layout"><option value="points">on the intersections</option>
      <option value="cells">in the cells</option></select></label>
    <div class="buttons"><button id="photo-corners" disabled>Click the corners</button></div>
    <div id="photo-corner-status" class="status"></div>
  </fieldset>
</div>`;

function build() {
  const tab = document.createElement("button");
  tab.className = "tab";
  tab.dataset.view = "photo";
  tab.textContent = "Photo";
  tab.onclick = () => showView("photo");
  document.querySelector("nav").appendChild(tab);
  const section = document.createElement("section");
  section.id = "photo";
  section.className = "view";
  section.hidden = true;
  section.innerHTML = VIEW;
  document.querySelector("main").appendChild(section);
  const style = document.createElement("link");
  style.rel = "stylesheet";
  style.href = "/static/photo.css";
  document.head.appendChild(style);
}

// Black and white stones as the board counts them, and the moves in turn (black first),
// or null when the counts cannot come from a game.
function moves() {
  const black = [], white = [];
  photo.stones.forEach((row, y) => row.forEach((v, x) => {
    if (v === BLACK) black.push([x, y]);
    if (v === WHITE) white.push([x, y]);
  }));
  if (black.length - white.length !== 0 && black.length - white.length !== 1) return {black, white, order: null};
  const order = [];
  black.forEach((m, i) => { order.push(m); if (i < white.length) order.push(white[i]); });
  return {black, white, order};
}

function summary() {
  const r = photo.reading;
  const {black, white, order} = moves();
  const where = r.layout === "points" ? "on the intersections" : "in the cells";
  $("photo-summary").textContent = `${r.width}×${r.height} board, stones ${where}: ` +
    `${black.length} black, ${white.length} white (read in ${r.seconds.toFixed(2)} s)`;
  const problems = $("photo-problems");
  problems.replaceChildren();
  const doubtful = countDoubtful();
  const lines = [];
  if (doubtful) lines.push(`${doubtful} point${doubtful > 1 ? "s" : ""} in doubt (orange): check them.`);
  if (!order) lines.push(`${black.length} black and ${white.length} white stones cannot come from a game ` +
    "(black moves first): correct the stones" +
    (white.length - black.length === 1 ? ", or swap the colours if white moved first in the program shown." : "."));
  for (const text of lines) {
    const li = document.createElement("li");
    li.textContent = text;
    problems.appendChild(li);
  }
  $("photo-play").disabled = $("photo-analyse").disabled = !order;
}

function countDoubtful() {
  const r = photo.reading;
  let count = 0;
  r.confidence.forEach((row, y) => row.forEach((c, x) => {
    if (c < r.min_confidence && photo.stones[y][x] === r.stones[y][x]) count++;
  }));
  return count;
}

// The marks over the picture: the SVG has the picture's own pixel coordinates. While
// corners are being clicked, only they are drawn.
function drawMarks() {
  const r = photo.reading;
  const svg = $("photo-marks");
  svg.setAttribute("viewBox", `0 0 ${photo.image.naturalWidth} ${photo.image.naturalHeight}`);
  svg.replaceChildren();
  if (photo.corners) {
    const size = Math.max(photo.image.naturalWidth, photo.image.naturalHeight) / 60;
    for (const [x, y] of photo.corners) {
      el("path", {d: `M${x - size},${y}H${x + size}M${x},${y - size}V${y + size}`, class: "photo-corner"}, svg);
    }
    return;
  }
  if (!r) return;
  const radius = r.cell * 0.42;
  r.points.forEach((row, y) => row.forEach(([px, py], x) => {
    const value = photo.stones[y][x];
    const changed = value !== r.stones[y][x];
    const doubtful = r.confidence[y][x] < r.min_confidence && !changed;
    const g = el("g", {class: "photo-point", "data-x": x, "data-y": y,
      "data-stone": ["empty", "black", "white"][value]}, svg);
    el("circle", {cx: px, cy: py, r: radius, class: "hit"}, g);
    if (value === EMPTY) {
      el("circle", {cx: px, cy: py, r: Math.max(2, r.cell * 0.08), class: "dot"}, g);
    } else {
      el("circle", {cx: px, cy: py, r: radius * 0.55,
        class: value === BLACK ? "mark black" : "mark white"}, g);
    }
    if (doubtful) el("circle", {cx: px, cy: py, r: radius, class: "doubt"}, g);
    if (changed) el("circle", {cx: px, cy: py, r: radius, class: "changed"}, g);
    el("title", {}, g).textContent = `${x},${y}: ${["empty", "black", "white"][value]}` +
      (changed ? " (corrected)" : `, read with ${(r.confidence[y][x] * 100).toFixed(1)} % confidence`);
  }));
}

function render() {
  drawMarks();
  if (photo.reading) summary();
  else $("photo-play").disabled = $("photo-analyse").disabled = true;
  $("photo-corners").disabled = !photo.blob;
}

// The picture shown, and read: by the server's own grid search, or on the grid set by
// ``hand`` ({corners, size, layout}). A picture the server cannot read stays shown, with
// the reason, for its grid to be set by hand.
async function read(blob, hand = null) {
  if (!blob || !blob.type.startsWith("image/")) {
    notice("That is not a picture: open a JPEG, PNG or other image file.");
    return;
  }
  showView("photo");
  $("photo-summary").textContent = "Reading the picture…";
  $("photo-problems").replaceChildren();
  if (blob !== photo.blob) {
    if (photo.url) URL.revokeObjectURL(photo.url);
    photo.blob = blob;
    photo.url = URL.createObjectURL(blob);
    photo.reading = photo.stones = photo.corners = null;
    const image = $("photo-image");
    await new Promise((resolve) => {
      image.onload = image.onerror = resolve;  // (the server says what is wrong with it)
      image.src = photo.url;
    });
    photo.image = image;
    $("photo-drop").hidden = true;
    $("photo-stage").hidden = false;
    render();
  }
  let url = "/api/photo";
  if (hand) {
    const corners = hand.corners.map(([x, y]) => `${Math.round(x)},${Math.round(y)}`).join(";");
    url += `?${new URLSearchParams({corners, size: hand.size, layout: hand.layout})}`;
  }
  let answer;
  try {
    const response = await fetch(url, {method: "POST", body: blob});
    answer = await response.json();
    if (!response.ok) throw new Error(answer.error || `the server answered ${response.status}`);
  } catch (error) {
    const reason = String(error.message || error);
    $("photo-summary").textContent = "No position read.";
    const li = document.createElement("li");
    li.textContent = reason;
    $("photo-problems").replaceChildren(li);
    photo.reading = photo.stones = null;
    render();
    notice(reason);
    return;
  }
  notice("");  // (a refusal of the picture read before is no longer news)
  photo.reading = answer;
  photo.stones = answer.stones.map((row) => row.slice());
  render();
}

// A click on the picture while corners are asked for: one more corner, and with the
// fourth the picture is read again on that grid.
function clickCorner(event) {
  const svg = $("photo-marks");
  const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
  photo.corners.push([at.x, at.y]);
  const left = 4 - photo.corners.length;
  $("photo-corner-status").textContent = left ? `${left} more corner${left > 1 ? "s" : ""} to click.` : "";
  drawMarks();
  if (left) return;
  const hand = {corners: photo.corners, size: $("photo-size").value.trim(), layout: $("photo-layout").value};
  photo.corners = null;
  read(photo.blob, hand);
}

function click(event) {
  if (photo.corners) {
    clickCorner(event);
    return;
  }
  const g = event.target.closest(".photo-point");
  if (!g || !photo.reading) return;
  const x = +g.dataset.x, y = +g.dataset.y;
  photo.stones[y][x] = (photo.stones[y][x] + 1) % 3;
  render();
}

function record(order) {
  const r = photo.reading;
  return {black: "photo", white: "photo", result: "draw", reason: "a position read from a photo",
    width: r.width, height: r.height, rule: 0, opening_length: 0,
    moves: order.map(([x, y]) => [x, y, null]), tags: {}};
}

export function wirePhoto() {
  build();
  $("photo-file").onchange = (event) => read(event.target.files[0]);
  const drop = $("photo-drop");
  for (const target of [drop, $("photo-stage")]) {
    target.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
    target.addEventListener("dragleave", () => drop.classList.remove("over"));
    target.addEventListener("drop", (event) => {
      event.preventDefault();
      drop.classList.remove("over");
      read(event.dataTransfer.files[0]);
    });
  }
  // A picture pasted anywhere on the page opens here.
  document.addEventListener("paste", (event) => {
    const item = [...(event.clipboardData || {items: []}).items].find((i) => i.type.startsWith("image/"));
    if (item) {
      event.preventDefault();
      read(item.getAsFile());
    }
  });
  $("photo-marks").addEventListener("click", click);
  $("photo-corners").onclick = () => {
    photo.corners = [];
    $("photo-corner-status").textContent = "Click the board's four corners on the picture.";
    drawMarks();
  };
  $("photo-other").onclick = () => {
    $("photo-stage").hidden = true;
    $("photo-drop").hidden = false;
    $("photo-file").value = "";
    $("photo-file").click();
  };
  // A program in which white moves first: its first player's stones become black, as
  // the board plays them.
  $("photo-swap").onclick = () => {
    if (!photo.stones) return;
    photo.stones = photo.stones.map((row) => row.map((v) => (v === EMPTY ? v : BLACK + WHITE - v)));
    render();
  };
  $("photo-play").onclick = () => {
    const {order} = moves();
    newGame(order, photo.reading.width, photo.reading.height);
    showView("play");
  };
  $("photo-analyse").onclick = () => {
    openGames([record(moves().order)]);
    showView("viewer");
  };
}
