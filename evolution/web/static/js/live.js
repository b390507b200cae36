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

// The organiser's announcement ({text, since}, or null: none), a calm line under the header.
export function showAnnouncement(announcement) {
  let banner = document.getElementById("announcement");
  if (!announcement) {
    banner?.remove();
    return;
  }
  if (!banner) {
    banner = h("p", { id: "announcement", class: "announcement", role: "status" });
    document.querySelector("header.top").after(banner);
  }
  banner.textContent = announcement.text;
  banner.title = `since ${new Date(announcement.since).toLocaleString()}`;
}

// Every stream the host sends begins with the announcement (if one is up) and carries each
// change; a page that follows none of its own follows the announcement's alone. So a page
// holds one stream at a time (a browser allows only a few connections to one host).
const following = new Set();
let alone = null;

function hearAnnouncements(source) {
  source.addEventListener("announcement", (message) => showAnnouncement(JSON.parse(message.data)));
}

function streamEnded(source) {
  following.delete(source);
  if (following.size === 0 && alone === null) {
    alone = new EventSource("/api/announcement/events");
    hearAnnouncements(alone);
  }
}

export function followAnnouncements() {
  if (following.size === 0 && alone === null) streamEnded(null);
}

// Follow an event stream: handlers[event](data, source). The browser reconnects by itself after
// a dropped connection (the host asks it to wait 3 s). When the host ends the stream for good
// (204: nothing to follow any more; 503: too many watchers), closed() runs after a pause.
export function follow(url, handlers, closed = null) {
  const source = new EventSource(url);
  following.add(source);
  alone?.close();
  alone = null;
  hearAnnouncements(source);
  const close = source.close.bind(source);
  source.close = () => {
    close();
    streamEnded(source);
  };
  for (const [event, handler] of Object.entries(handlers)) {
    source.addEventListener(event, (message) => handler(JSON.parse(message.data), source));
  }
  source.addEventListener("open", () => status.set("live"));
  source.addEventListener("error", () => {
    const over = source.readyState === EventSource.CLOSED;
    status.set(over ? "offline" : "reconnecting");
    if (over) streamEnded(source);
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
