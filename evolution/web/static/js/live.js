// Talking to the host: JSON answers, and event streams that push each change (never polling).

import { fill, h, note, pageNumber } from "./dom.js";

export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function getJSON(url) {
  const answer = await fetch(url, { headers: { Accept: "application/json" } });
  if (!answer.ok) {
    let message = answer.statusText;
    try {
      message = (await answer.json()).error ?? message;
    } catch {
      // not JSON: keep the status text
    }
    throw new HttpError(answer.status, message);
  }
  return answer.json();
}

// The connection badge in the page's header.
export const status = {
  set(state, text) {
    const badge = document.getElementById("status");
    if (!badge) return;
    badge.className = `status ${state}`;
    badge.textContent = text ?? { live: "live", reconnecting: "reconnecting…", offline: "offline", done: "" }[state];
  },
};

// Follow an event stream: handlers[event](data, source). The browser reconnects by itself after
// a dropped connection (the host asks it to wait 3 s). When the host ends the stream for good
// (204: nothing to follow any more; 503: too many watchers), closed() runs after a pause.
export function follow(url, handlers, closed = null) {
  const source = new EventSource(url);
  for (const [event, handler] of Object.entries(handlers)) {
    source.addEventListener(event, (message) => handler(JSON.parse(message.data), source));
  }
  source.addEventListener("open", () => status.set("live"));
  source.addEventListener("error", () => {
    const over = source.readyState === EventSource.CLOSED;
    status.set(over ? "offline" : "reconnecting");
    if (over && closed) setTimeout(closed, 5000);
  });
  return source;
}

// The game or tournament a page at /games/ID or /tournaments/ID shows, from /api/...; when there
// is none, the page says why and this answers null.
export async function pageSubject(main, noun, api) {
  const id = pageNumber();
  if (id === null) {
    fill(main, note(`There is no such ${noun.toLowerCase()}.`, "warning"));
    return null;
  }
  try {
    return await getJSON(`${api}/${id}`);
  } catch (error) {
    fill(main, h("h1", {}, `${noun} ${id}`), note(error.message, "warning"));
    return null;
  }
}
