// Fish's table, drawn: the hexagonal board (fish on every tile, holes), every penguin in its
// player's colour, each player's last move as an arrow (a placement as a ring), a legend of every
// mark under it, the players with their fish, whose turn it is, and the removals. Reads the Table JSON of
// evolution/games/fish/web/tables.py. The web view serves this module as
// /static/js/games/fish.js and its style sheet, drawing.css, as /static/js/games/fish.css; it
// exports what every game's drawing module exports:
//   table(data, {asking, changed, places})   the table after a step
//   changes(table, before)                  the tiles a replay marks as changed since the frame before
//   dealt(game)                             how a finished game was dealt, in words
//   words                                   steps, turns, scores and a replay frame in Fish's words
//   style                                   its style sheet, beside this module
//   title                                   the game's name, as people write it

import { h, nameOf, ordinal, plural, shown } from "../dom.js";
import { removals } from "../lines.js";

export const style = "fish.css";
export const title = "Fish";

const SVG = "http://www.w3.org/2000/svg";
const S = 20; // a tile is 3 S wide and 2 S high; columns are 4 S apart, odd rows shifted by 2 S, rows S apart
const MARGIN = S / 2;
const HEXAGON = [[S, 0], [2 * S, 0], [3 * S, S], [2 * S, 2 * S], [S, 2 * S], [0, S]];

const STEPS = {
  "playing-as": "telling colours", "playing-with": "telling colours", informed: "colours told",
  setup: "placing penguins", placed: "penguin placed",
  "take-turn": "moving", moved: "penguin moved", skipped: "a stuck player skipped",
  end: "game over",
};

export const words = {
  step: (step) => STEPS[step] ?? String(step),
  turn: (turn) => (turn ? `Turn ${turn}` : "Placement"),
  when: (turn) => (turn ? `T${turn}` : "P"),
  score: (score) => plural(score, "fish", "fish"),
  note: (frame) => `${words.step(frame.event)}; ${plural(frame.fish_left, "fish", "fish")} left on ${plural(frame.tiles_left, "tile")}`,
};

function svg(tag, attributes, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  for (const child of children.flat()) if (child) node.append(child instanceof Node ? child : String(child));
  return node;
}

const tooltip = (text) => svg("title", {}, text);

// The top-left corner and the centre of the tile at [row, col] (rules.md 1: odd rows shifted right by half a tile).
function corner(row, col) {
  return [MARGIN + 4 * S * col + (row % 2 ? 2 * S : 0), MARGIN + S * row];
}

function centre(row, col) {
  const [x, y] = corner(row, col);
  return [x + 1.5 * S, y + S];
}

// 1..5 small fish stacked on the left of the tile, as the course's own pictures draw them.
function fishStack(x, y, fish) {
  const gap = 0.3 * S;
  const top = y + S - ((fish - 1) * gap) / 2;
  const shoal = [];
  for (let i = 0; i < fish; i++) {
    const fx = x + 1.05 * S, fy = top + i * gap;
    shoal.push(svg("path", { class: "fish-glyph", d: `M${fx - 0.36 * S},${fy} q${0.3 * S},${-0.2 * S} ${0.6 * S},0`
      + ` l${0.16 * S},${-0.11 * S} v${0.22 * S} l${-0.16 * S},${-0.11 * S} q${-0.3 * S},${0.2 * S} ${-0.6 * S},0 z` }));
  }
  return svg("g", { class: "shoal", "aria-hidden": "true" }, shoal);
}

function tile(row, col, fish, changed) {
  const [x, y] = corner(row, col);
  const points = HEXAGON.map(([dx, dy]) => `${x + dx},${y + dy}`).join(" ");
  const where = `[${row}, ${col}]`;
  if (!fish) {
    return svg("g", { class: `tile hole${changed ? " changed" : ""}`, "data-at": `${row},${col}`, "data-fish": 0 },
      svg("polygon", { points }), tooltip(`${where}: a hole`));
  }
  return svg("g", { class: `tile fish-${fish}${changed ? " changed" : ""}`, "data-at": `${row},${col}`, "data-fish": fish },
    svg("polygon", { points }),
    fishStack(x, y, fish),
    svg("text", { class: "fish-count", x: x + 2.05 * S, y: y + 1.33 * S, "text-anchor": "middle" }, fish),
    svg("text", { class: "coordinates", x: x + 1.5 * S, y: y + 1.86 * S, "text-anchor": "middle" }, `${row},${col}`),
    tooltip(`${where}: ${plural(fish, "fish", "fish")}`));
}

// A penguin in its player's colour, standing on the right of its tile (the fish it stands on stay visible).
function penguin(row, col, player) {
  const [cx, cy] = centre(row, col);
  const x = cx + 0.5 * S, y = cy + 0.08 * S;
  return svg("g", { class: `penguin ${player.color}`, "data-at": `${row},${col}`, "data-seat": player.seat },
    svg("ellipse", { class: "body", cx: x, cy: y + 0.12 * S, rx: 0.36 * S, ry: 0.52 * S }),
    svg("ellipse", { class: "belly", cx: x, cy: y + 0.22 * S, rx: 0.22 * S, ry: 0.36 * S }),
    svg("circle", { class: "body", cx: x, cy: y - 0.42 * S, r: 0.24 * S }),
    svg("circle", { class: "eye", cx: x + 0.08 * S, cy: y - 0.47 * S, r: 0.05 * S }),
    svg("path", { class: "beak", d: `M${x + 0.2 * S},${y - 0.44 * S} l${0.2 * S},${0.06 * S} l${-0.2 * S},${0.06 * S} z` }),
    tooltip(`${shown(player.name)}'s penguin (${player.color}) on [${row}, ${col}]`));
}

// Each player's latest action of this round: a move as an arrow from the hole it left, a placement as a ring.
function trail(action, latest, names) {
  const who = shown(names.get(action.seat) ?? `seat ${action.seat}`);
  const kind = `trail ${action.color}${latest ? " latest" : ""}`;
  if (action.kind === "placed") {
    const [cx, cy] = centre(...action.to);
    return svg("g", { class: `${kind} placed` }, svg("circle", { cx, cy, r: 0.95 * S }),
      tooltip(`${who} placed a penguin on [${action.to.join(", ")}]`));
  }
  if (action.kind !== "moved") return null;
  const [x1, y1] = centre(...action.from), [x2, y2] = centre(...action.to);
  const length = Math.hypot(x2 - x1, y2 - y1);
  const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
  const [tx, ty] = [x2 - ux * 0.55 * S, y2 - uy * 0.55 * S]; // the arrow's tip, short of the penguin
  const [bx, by] = [tx - ux * 0.45 * S, ty - uy * 0.45 * S];
  const head = `${tx},${ty} ${bx - uy * 0.25 * S},${by + ux * 0.25 * S} ${bx + uy * 0.25 * S},${by - ux * 0.25 * S}`;
  return svg("g", { class: `${kind} moved` },
    svg("circle", { class: "left", cx: x1, cy: y1, r: 0.3 * S }),
    svg("line", { class: "casing", x1, y1, x2: bx, y2: by }),
    svg("polygon", { class: "casing", points: head }),
    svg("line", { x1, y1, x2: bx, y2: by }),
    svg("polygon", { points: head }),
    tooltip(`${who} moved [${action.from.join(", ")}] → [${action.to.join(", ")}]`));
}

function board(data, changed) {
  const wide = 4 * S * data.cols + (data.rows > 1 ? S : -S);
  const width = Math.max(wide, 3 * S) + 2 * MARGIN;
  const height = S * (data.rows + 1) + 2 * MARGIN;
  const names = new Map(data.players.map((player) => [player.seat, player.name]));
  const tiles = data.board.flatMap((row, r) => row.map((fish, c) => tile(r, c, fish, changed.has(`${r},${c}`))));
  const penguins = data.players.flatMap((player) => player.penguins.map(([r, c]) => penguin(r, c, player)));
  const last = data.last ?? [];
  const trails = last.map((action, i) => trail(action, i === last.length - 1, names));
  return svg("svg", { class: "fish-board", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `the board: ${data.rows} rows of ${data.cols} tiles, ${plural(data.fish_left ?? 0, "fish", "fish")} left` },
    svg("rect", { class: "sea", x: 0, y: 0, width, height, rx: S / 2 }),
    svg("g", { class: "tiles" }, tiles),
    svg("g", { class: "trails" }, trails),
    svg("g", { class: "penguins" }, penguins));
}

// One mark of the board, drawn as the board draws it, in a small picture of its own.
function icon(width, height, ...marks) {
  return svg("svg", { class: "legend-icon", viewBox: `0 0 ${width} ${height}`, "aria-hidden": "true" },
    svg("rect", { class: "sea", x: 0, y: 0, width, height, rx: S / 4 }), marks);
}

const ONE_TILE = [3 * S + 2 * MARGIN, 2 * S + 2 * MARGIN];
const TWO_TILES = [5 * S + 2 * MARGIN, 3 * S + 2 * MARGIN]; // [0, 0] and [1, 0], one step apart
const SAMPLE = { seat: 1, color: "red", name: "" };

// What every mark on the board means: the legend under it.
function legend() {
  const entry = (mark, picture, ...text) => h("li", { "data-mark": mark }, picture, h("span", {}, ...text));
  return h("ul", { class: "fish-legend", "aria-label": "what the marks on the board mean" },
    entry("fish", icon(...ONE_TILE, tile(0, 0, 3, false)),
      h("span", { class: "digit" }, "3"), " and 3 fish drawn: the fish on a tile; ", h("span", { class: "coordinates" }, "0,0"),
      ": its row and column"),
    entry("hole", icon(...ONE_TILE, tile(0, 0, 0, false)), "a hole: a tile a penguin has left"),
    entry("penguin", icon(...ONE_TILE, tile(0, 0, 2, false), penguin(0, 0, SAMPLE)), "a penguin, in its player's colour"),
    entry("moved", icon(...TWO_TILES, tile(0, 0, 0, false), tile(1, 0, 2, false), trail({ ...SAMPLE, kind: "moved", from: [0, 0], to: [1, 0] }, true, new Map())),
      "a player's last move, from the hole it left (the latest one bright)"),
    entry("placed", icon(...ONE_TILE, tile(0, 0, 2, false), trail({ ...SAMPLE, kind: "placed", to: [0, 0] }, true, new Map())),
      "a penguin placed this round"),
    entry("changed", icon(...ONE_TILE, tile(0, 0, 1, true)), "in a replay: a tile changed by this step"));
}

function lastText(action) {
  if (!action) return null;
  if (action.kind === "placed") return `placed on [${action.to.join(", ")}]`;
  if (action.kind === "moved") return `moved [${action.from.join(", ")}] → [${action.to.join(", ")}]`;
  return "skipped: could not move";
}

function badge(kind, text) {
  return h("span", { class: `badge ${kind}` }, text);
}

function playerCard(player, { data, asking, place, last }) {
  const acting = data.step === "setup" || data.step === "take-turn";
  const stuck = (data.step === "take-turn" || data.step === "end") && player.penguins.length && !player.can_move;
  return h("li", { class: `fish-player ${player.color}${asking ? " asking" : ""}`, "data-seat": player.seat },
    h("span", { class: `swatch ${player.color}`, title: `plays ${player.color}` }),
    h("div", { class: "who" },
      nameOf(player.name, { class: "name player-name" }),
      h("span", { class: "muted" }, `${player.color} · ${plural(player.penguins.length, "penguin")}`),
      h("span", { class: "last-action" }, lastText(last))),
    h("div", { class: "catch", title: "fish caught: the fish of every tile its penguins left" },
      place ? h("span", { class: "place" }, ordinal(place)) : null,
      h("span", { class: "score" }, player.score), h("span", { class: "count-label" }, "fish")),
    h("div", { class: "badges" },
      acting && data.to_act === player.seat ? badge("first", data.step === "setup" ? "places next" : "moves next") : null,
      asking ? badge("thinking", "thinking…") : null,
      stuck ? badge("stuck", "cannot move") : null));
}

// options: asking (seats being asked), changed (Set of "row,col"), places (Map seat -> place)
export function table(data, options = {}) {
  const asking = new Set(options.asking ?? data.asking ?? []);
  const changed = options.changed ?? new Set();
  const lastOf = new Map((data.last ?? []).map((action) => [action.seat, action]));
  const bySeat = [...data.players].sort((a, b) => a.seat - b.seat);
  return h("section", { class: "table fish", "aria-label": "the table" },
    h("div", { class: "table-head" },
      h("div", { class: "turn" }, h("span", { class: "turn-no" }, words.turn(data.turn)), h("span", { class: "step" }, words.step(data.step))),
      h("div", { class: "fish-left", title: "fish on the tiles still in play" },
        h("span", { class: "count-value" }, data.fish_left), ` fish left on ${plural(data.tiles_left, "tile")}`)),
    h("div", { class: "fish-layout" },
      h("figure", { class: "fish-figure" }, board(data, changed), h("figcaption", {}, legend())),
      h("ol", { class: "fish-players", "aria-label": "players" }, bySeat.map((player) => playerCard(player, {
        data, asking: asking.has(player.seat), place: options.places?.get(player.seat), last: lastOf.get(player.seat),
      })))),
    removals(data.removed, words));
}

// The tiles whose fish or penguins differ from the frame before.
export function changes(table, before) {
  const changed = new Set();
  if (!before) return changed;
  table.board.forEach((row, r) => row.forEach((fish, c) => {
    if (before.board[r]?.[c] !== fish) changed.add(`${r},${c}`);
  }));
  const at = (frame) => new Set(frame.players.flatMap((p) => p.penguins.map(([r, c]) => `${r},${c},${p.color}`)));
  const now = at(table), then = at(before);
  for (const key of [...now, ...then]) if (now.has(key) !== then.has(key)) changed.add(key.split(",").slice(0, 2).join(","));
  return changed;
}

export function dealt(game) {
  return game.deck === "fixed" ? "fixed board" : `board from seed ${game.seed}`;
}
