// Fish's table, drawn: the hexagonal board (fish per tile, holes), every penguin in its
// player's colour, the players with their fish, whose turn it is, and the removals. Reads the
// Table JSON of evolution/games/fish/web/tables.py. The web view serves this module as
// /static/js/games/fish.js; it exports what every game's drawing module exports:
//   table(data, {asking, changed, places})   the table after a step
//   changes(table, before)                  the tiles a replay marks as changed since the frame before
//   dealt(game)                             how a finished game was dealt, in words

import { h, nameOf, ordinal, stepName } from "../dom.js";
import { removals } from "../lines.js";

const SVG = "http://www.w3.org/2000/svg";
const SIZE = 14; // a tile is 3 SIZE wide and 2 SIZE high; columns are 4 SIZE apart, odd rows shifted by 2 SIZE
const PENGUIN = { red: "#c62828", white: "#f5f5f5", brown: "#795548", black: "#212121" };
const WATER = ["#dfe9f2", "#cfe3f5", "#aacdee", "#80b3e3", "#5596d4", "#2f78c2"]; // by fish: 0 (a hole) .. 5

function svg(tag, attributes, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child instanceof Node ? child : String(child));
  return node;
}

// The top-left corner of the tile at [row, col] (rules.md 1: odd rows shifted right by half a tile).
function corner(row, col) {
  return [4 * SIZE * col + (row % 2 ? 2 * SIZE : 0), SIZE * row];
}

function hexagon(row, col, fish, changed) {
  const [x, y] = corner(row, col);
  const points = [[SIZE, 0], [2 * SIZE, 0], [3 * SIZE, SIZE], [2 * SIZE, 2 * SIZE], [SIZE, 2 * SIZE], [0, SIZE]]
    .map(([dx, dy]) => `${x + dx},${y + dy}`).join(" ");
  const tile = svg("polygon", {
    points, fill: fish ? WATER[fish] : "none", stroke: fish ? (changed ? "#e65100" : "#33658a") : "#c5d3de",
    "stroke-width": changed ? 2 : 1, "stroke-dasharray": fish ? "" : "2 2",
  });
  const title = svg("title", {}, fish ? `[${row}, ${col}]: ${fish} fish` : `[${row}, ${col}]: a hole`);
  tile.append(title);
  const label = fish ? svg("text", { x: x + 1.5 * SIZE, y: y + SIZE + 4, "text-anchor": "middle", "font-size": 11,
    fill: fish >= 4 ? "#ffffff" : "#12324a" }, fish) : null;
  return [tile, label];
}

function penguin(row, col, color, name) {
  const [x, y] = corner(row, col);
  const mark = svg("circle", { cx: x + 1.5 * SIZE, cy: y + SIZE, r: SIZE * 0.62, fill: PENGUIN[color] ?? "#888",
    stroke: color === "black" ? "#f5f5f5" : "#111", "stroke-width": 1.5 });
  mark.append(svg("title", {}, `${name}'s penguin (${color}) on [${row}, ${col}]`));
  return mark;
}

function board(data, changed) {
  const width = 4 * SIZE * data.cols + 2 * SIZE + 2;
  const height = SIZE * (data.rows + 1) + 2;
  const tiles = [];
  data.board.forEach((row, r) => row.forEach((fish, c) => tiles.push(...hexagon(r, c, fish, changed.has(`${r},${c}`)))));
  const penguins = data.players.flatMap((player) =>
    player.penguins.map(([r, c]) => penguin(r, c, player.color, player.name)));
  return svg("svg", { class: "fish-board", viewBox: `-1 -1 ${width} ${height}`, role: "img",
    "aria-label": `the board: ${data.rows} rows of ${data.cols} tiles` }, ...tiles, ...penguins);
}

function playerRow(player, options, first) {
  const place = options.places?.get(player.seat);
  return h("li", { class: `fish-player${first ? " first" : ""}${options.asking.has(player.seat) ? " asking" : ""}` },
    h("span", { class: `swatch ${player.color}`, title: player.color }, player.color),
    nameOf(player.name),
    h("span", { class: "score" }, `${player.score} fish`),
    place ? h("span", { class: "place" }, ordinal(place)) : null,
    first ? h("span", { class: "to-act" }, "to act") : null);
}

// options: asking (seats being asked), changed (Set of "row,col"), places (Map seat -> place)
export function table(data, options = {}) {
  const asking = new Set(options.asking ?? data.asking ?? []);
  const changed = options.changed ?? new Set();
  const first = data.players.length && data.step !== "end" ? data.players[0].seat : null;
  return h("section", { class: "table fish", "aria-label": "the table" },
    h("div", { class: "table-head" },
      h("div", { class: "turn" }, h("span", { class: "turn-no" }, `Turn ${data.turn}`),
        h("span", { class: "step" }, stepName(data.step)))),
    h("div", { class: "fish-layout" },
      board(data, changed),
      h("ol", { class: "fish-players" },
        data.players.map((player) => playerRow(player, { ...options, asking }, player.seat === first)))),
    removals(data.removed));
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
