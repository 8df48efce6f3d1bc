// The WebSocket to the board server: requests out, events in (dispatched by type), and a
// plain word when a request cannot go out.

import {$, notice} from "./ui.js";

let socket = null;
const handlers = new Map();   // event type -> functions

// Calls handler(event) for every event of this type ("state", "analysis", ...).
export function on(type, handler) {
  if (!handlers.has(type)) handlers.set(type, []);
  handlers.get(type).push(handler);
}

// Sends a request; a request made while disconnected is not lost silently: the person
// is told that it was not sent (what: "your move", ...). Returns whether it went out.
export function send(request, what) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(request));
    return true;
  }
  notice(`Not connected to the board server (reconnecting…): ${what || "the request"} was not sent.`);
  return false;
}

export function connect() {
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  const status = $("connection");
  socket.onopen = () => {
    status.textContent = "connected";
    status.classList.remove("lost");
  };
  socket.onclose = () => {
    status.textContent = "disconnected, retrying…";
    status.classList.add("lost");
    setTimeout(connect, 1000);
  };
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    for (const handler of handlers.get(event.type) || []) handler(event);
  };
}
