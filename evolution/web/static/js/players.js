// Every player with a game stored (/players), with a search (?q=TEXT: names holding it, any case), 50 a
// page in the store's order of names (?after=NAME for the next): its games and when it was last seen.

import { ago, fill, h, nameOf, note, pageTitle, plural, section } from "./dom.js";
import { getJSON, status } from "./live.js";

const main = document.getElementById("main");
const query = new URLSearchParams(location.search);
const search = query.get("q") ?? "";
const after = query.get("after");

// The search: the page's address with ?q= (the page's policy sends no form: the script goes there).
function form() {
  const submit = (event) => {
    event.preventDefault();
    const text = event.target.elements.q.value.trim();
    location.assign(text ? `/players?${new URLSearchParams({ q: text })}` : "/players");
  };
  return h("form", { class: "search", role: "search", onsubmit: submit },
    h("label", { for: "player-search" }, "Find a player"),
    h("input", { id: "player-search", type: "search", name: "q", value: search, placeholder: "part of a name", maxlength: 200 }),
    h("button", { type: "submit" }, "Search"),
    search ? h("a", { href: "/players" }, "every player") : null);
}

function address(next) {
  const params = new URLSearchParams();
  if (search) params.set("q", search);
  if (next !== null) params.set("after", next);
  const text = params.toString();
  return text ? `/players?${text}` : "/players";
}

function render(data) {
  pageTitle("Players");
  status.set("done");
  const paging = h("p", { class: "note paging" },
    after !== null ? h("a", { href: address(null) }, "← first names") : null,
    after !== null && data.next ? " · " : null,
    data.next ? h("a", { href: address(data.next) }, "more names →") : null);
  fill(main,
    h("div", { class: "page-head" }, h("h1", {}, "Players"),
      h("span", { class: "muted" }, search ? `names holding “${search}”` : "every name with a game stored")),
    section(after !== null ? "More players" : "Players",
      form(),
      data.players.length ? h("div", { class: "scroll" }, h("table", { class: "grid players-list" },
        h("thead", {}, h("tr", {}, ["Player", "Games", "Last seen"].map((head) => h("th", {}, head)))),
        h("tbody", {}, data.players.map((row) => h("tr", {},
          h("td", {}, nameOf(row.name)),
          h("td", {}, plural(row.games, "game")),
          h("td", {}, ago(row.last_seen)))))))
        : note(search ? "No player's name holds that." : "No game has been stored yet."),
      paging));
}

async function start() {
  const params = new URLSearchParams({ limit: "50" });
  if (search) params.set("q", search);
  if (after !== null) params.set("after", after);
  try {
    render(await getJSON(`/api/players?${params}`));
  } catch (error) {
    fill(main, h("h1", {}, "Players"), form(), note(`The host did not answer: ${error.message}`, "warning"));
  }
}

start();
