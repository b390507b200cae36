// Building pages with DOM calls only. Text is always set as text (Text nodes, textContent),
// never parsed as HTML: a bot's name is data, whatever it holds.

// h("a", {href: "/games/3", class: "game"}, "Game ", 3): an element with attributes and children.
// Strings and numbers become Text nodes; null, undefined and false are left out.
export function h(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  add(node, children);
  return node;
}

// Replace a node's children (null, undefined and false left out, as in h()).
export function fill(node, ...children) {
  node.replaceChildren();
  return add(node, children);
}

export function add(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// A name as the host's logs and command lines show it (evolution.text.escape): every character
// a terminal or the page would interpret rather than show (control codes, bidirectional
// overrides, invisible format characters, separators, lone surrogates, a backslash) written as
// a visible escape such as \x1b or \u202e. One-to-one, so two names never look the same.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}\\]/gu;
const NAMED = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}

export function shown(text) {
  return String(text).replace(UNSAFE, (char) => {
    if (char in NAMED) return NAMED[char];
    const code = char.codePointAt(0);
    if (code <= 0xff) return "\\x" + hex(code, 2);
    if (code <= 0xffff) return "\\u" + hex(code, 4);
    return "\\U" + hex(code, 8);
  });
}

// A player's name: escaped, cut by the style sheet when long, whole in the tooltip, in its colour, and a link
// to the player's page (link: false where it stands inside another link, or on the player's own page).
// Its colour mark (a dot in the bot's own colour, nameClass) comes before it.
export function nameOf(name, { link = true, ...props } = {}) {
  const text = shown(name);
  const classes = `${props.class ?? "name"} hued ${nameClass(name)}`;
  return h(link ? "a" : "span", { title: text, href: link ? playerPath(name) : null, ...props, class: classes }, text);
}

// The address of a player's page, /players/NAME: the name's UTF-8 bytes percent-encoded, a lone
// surrogate (which encodeURIComponent refuses) as its three bytes, as the host decodes it.
export function playerPath(name) {
  let path = "";
  for (const char of String(name)) {
    if (/^[A-Za-z0-9_.~-]$/.test(char)) {
      path += char;
      continue;
    }
    for (const byte of utf8(char.codePointAt(0))) path += "%" + hex(byte, 2).toUpperCase();
  }
  return `/players/${path}`;
}

function utf8(code) {
  if (code < 0x80) return [code];
  if (code < 0x800) return [0xc0 | (code >> 6), 0x80 | (code & 63)];
  if (code < 0x10000) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)];
  return [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)];
}

// What the page shell says of the host (routes.py fills it in): its title ("Fish host") and the games
// a rating needs, played to the end, before it is established.
export const host = {
  title: document.querySelector('meta[name="application-name"]')?.content || "Game host",
  established: Number(document.querySelector('meta[name="established-games"]')?.content),
};

// "Game 3 · Fish host"
export function pageTitle(...parts) {
  document.title = [...parts, host.title].join(" · ");
}

// A rating's mark: "?" after a provisional one, with its reason in the tooltip.
export function provisionalMark(row) {
  if (!row.provisional) return null;
  const why = row.games === row.removals
    ? "provisional: removed from every game it played"
    : `provisional: fewer than ${plural(host.established, "game")} played to the end`;
  return h("abbr", { class: "provisional", title: why, "aria-label": why }, "?");
}

// "25.00 ± 8.33" and its mark
export function ratingText(row) {
  return [`${row.rating.toFixed(2)} ± ${row.rating_sigma.toFixed(2)}`, provisionalMark(row)];
}

// A bot's colour, the same on every page and in every game: one of twenty-four hues (style.css .hue-0 ...
// .hue-23), picked by a hash of its name (FNV-1a over its code points), never by its seat.
export const HUES = 24;

export function nameClass(name) {
  let hash = 0x811c9dc5;
  for (const char of String(name)) {
    hash ^= char.codePointAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `hue-${hash % HUES}`;
}

// "3 min ago", "2 h ago", "5 days ago" (the time itself in the tooltip).
export function ago(iso, now = Date.now()) {
  if (!iso) return h("span", { class: "muted" }, "—");
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return String(iso);
  const seconds = Math.max(0, Math.round((now - when.getTime()) / 1000));
  const [count, unit] = seconds < 60 ? [seconds, "s"] : seconds < 3600 ? [Math.floor(seconds / 60), "min"]
    : seconds < 86400 ? [Math.floor(seconds / 3600), "h"] : [Math.floor(seconds / 86400), "day"];
  const text = seconds < 10 ? "just now" : unit === "day" ? `${plural(count, "day")} ago` : `${count} ${unit} ago`;
  return h("time", { datetime: when.toISOString(), title: when.toLocaleString() }, text);
}

// A long board a page at a time: the rows of page ?page=N (1, 2, ...; `size` a page) and the links to the
// pages before and after ("rows 51-100 of 240").
export function paged(rows, size = 50) {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const asked = Number(new URLSearchParams(location.search).get("page"));
  const page = Number.isSafeInteger(asked) && asked >= 1 ? Math.min(asked, pages) : 1;
  const first = (page - 1) * size;
  const link = (number, text) => h("a", { href: number === 1 ? location.pathname : `${location.pathname}?page=${number}` }, text);
  const nav = pages === 1 ? null : h("p", { class: "note paging" },
    page > 1 ? [link(page - 1, "← previous"), " · "] : null,
    `rows ${first + 1}–${Math.min(rows.length, first + size)} of ${rows.length}`,
    page < pages ? [" · ", link(page + 1, "next →")] : null);
  return { rows: rows.slice(first, first + size), first, nav };
}

// A heading's words inside a sentence: "Turn 3" -> "turn 3".
export function inSentence(text) {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th";
  return `${n}${suffix}`;
}

// A place as the scores give it: "3rd", or "=3rd" when another player of the game scored the same
// (a removed player: "out"; a running game's: "").
export function placeText(player, players) {
  if (player.place === null || player.place === undefined) return player.removed ? "out" : "";
  const shared = players.some((other) => other !== player && other.place === player.place);
  return `${shared ? "=" : ""}${ordinal(player.place)}`;
}

export function plural(count, word, many = word + "s") {
  return `${count} ${count === 1 ? word : many}`;
}

export function clock(iso) {
  if (!iso) return "";
  const when = new Date(iso);
  return Number.isNaN(when.getTime()) ? String(iso) : when.toLocaleString();
}

export function section(title, ...children) {
  return h("section", { class: "panel" }, h("h2", {}, title), ...children);
}

export function note(text, kind = "note") {
  return h("p", { class: kind }, text);
}

// The game or tournament number of a page at /games/ID or /tournaments/ID.
export function pageNumber() {
  const number = Number(location.pathname.split("/").filter(Boolean)[1]);
  return Number.isSafeInteger(number) ? number : null;
}

// A host's name (twistd evolution --host-name), escaped as a name is.
export function hostName(name) {
  const text = shown(name ?? "");
  return h("span", { class: "host", title: text }, text);
}

// Whether these games were played by more than one host (then each says which).
export function manyHosts(games) {
  return new Set(games.map((game) => game.host).filter((host) => host !== null && host !== undefined)).size > 1;
}

// A running game's pill: "live" where this web view shows its picture, else the host that plays it
// (its live picture is on that host's own web view).
export function runningPill(game) {
  if (game.live === false) return h("span", { class: "pill elsewhere", title: "its live picture is on its host's own web view" }, "running elsewhere");
  return h("span", { class: "pill running" }, "live");
}
