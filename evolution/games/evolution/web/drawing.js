// Evolution's table, drawn: the watering hole, each player's species boards with their trait
// cards, hands, bags and scores, and the removals. Reads the Table JSON of
// evolution/games/evolution/web/tables.py. The web view serves this module as
// /static/js/games/evolution.js; every game's drawing module exports the same three, and may
// export words (js/drawings.js):
//   table(data, {asking, changed, places})   the table after a step
//   changes(table, before)                  what a replay marks as changed since the frame before
//   dealt(game)                             how a finished game was dealt, in words
//   words                                   the dealer's steps, and a replay frame, in words
//   title                                   the game's name, as people write it

import { h, nameOf, ordinal, plural, nameClass, shown } from "../dom.js";
import { removals } from "../lines.js";

const STEPS = {
  start: "cards dealt",
  choose: "playing cards",
  "start-of-feeding": "feeding begins",
  feed: "feeding",
  "end-of-turn": "end of turn",
  end: "game over",
};

export const title = "Evolution";

export const words = {
  step: (step) => STEPS[step] ?? String(step),
  note: (frame) => `${words.step(frame.event)}; ${plural(frame.watering_hole, "token")} in the watering hole`,
};

const KINDS = {
  carnivore: "attack", ambush: "attack", "pack-hunting": "attack",
  burrowing: "defence", climbing: "defence", "hard-shell": "defence", herding: "defence",
  horns: "defence", "warning-call": "defence", symbiosis: "defence",
  cooperation: "food", "fat-tissue": "food", fertile: "food", foraging: "food",
  "long-neck": "food", scavenger: "food",
};
const MAX_TRAITS = 3;

export function traitCard(trait, food = null) {
  const kind = KINDS[trait] ?? "other";
  return h(
    "li",
    { class: `trait ${kind}`, title: `${trait} (${kind} trait)` },
    h("span", { class: "trait-name" }, trait),
    food === null ? null : h("span", { class: "card-food", title: "food value" }, food > 0 ? `+${food}` : food),
  );
}

function pips(filled, total, kind, label) {
  const row = h("span", { class: `pips ${kind}`, role: "img", "aria-label": label, title: label });
  for (let i = 0; i < total; i++) row.append(h("span", { class: i < filled ? "pip full" : "pip" }));
  return row;
}

function count(label, value, title) {
  return h("div", { class: "count", title }, h("span", { class: "count-value" }, value), h("span", { class: "count-label" }, label));
}

export function speciesBoard(species, index, changed = false) {
  const traits = h("ul", { class: "traits" }, species.traits.map((trait) => traitCard(trait)));
  for (let i = species.traits.length; i < MAX_TRAITS; i++) traits.append(h("li", { class: "trait empty", "aria-hidden": "true" }));
  const fat = species.traits.includes("fat-tissue");
  return h(
    "div",
    { class: changed ? "species changed" : "species" },
    h("div", { class: "species-head" }, h("span", { class: "species-no" }, `#${index + 1}`),
      species.traits.includes("carnivore") ? h("span", { class: "diet carnivore" }, "carnivore") : h("span", { class: "diet" }, "vegetarian")),
    h("div", { class: "counts" },
      count("population", species.population, "animals of this species (1..7)"),
      count("body", species.body, "body size (0..7)")),
    h("div", { class: "meter", title: "food eaten this turn, of its population" },
      h("span", { class: "meter-label" }, `food ${species.food}/${species.population}`),
      pips(species.food, species.population, "food", `food ${species.food} of ${species.population}`)),
    fat ? h("div", { class: "meter", title: "food stored on the fat-tissue card, of its body size" },
      h("span", { class: "meter-label" }, `fat ${species.fat_food}/${species.body}`),
      pips(species.fat_food, species.body, "fat", `fat food ${species.fat_food} of ${species.body}`)) : null,
    traits,
  );
}

function handBacks(size) {
  const backs = h("span", { class: "hand-backs", "aria-hidden": "true" });
  for (let i = 0; i < Math.min(size, 12); i++) backs.append(h("span", { class: "card-back" }));
  return backs;
}

function playerPanel(player, { first, asking, changed, place }) {
  const boards = h("div", { class: "boards" });
  player.species.forEach((species, index) => boards.append(speciesBoard(species, index, changed?.has(index))));
  if (!player.species.length) boards.append(h("p", { class: "note" }, "no species"));
  return h(
    "article",
    { class: `player ${nameClass(player.name)}${asking ? " asking" : ""}`, "data-seat": player.seat },
    h("header", { class: "player-head" },
      h("span", { class: "seat-no", title: "seat (player id)" }, player.seat),
      nameOf(player.name, { class: "name player-name" }),
      h("span", { class: "score", title: "score: bag + species + traits" }, place ? `${ordinal(place)} · ` : "", plural(player.score, "pt", "pts"))),
    h("div", { class: "facts" },
      h("span", { class: "fact", title: "food tokens in the bag" }, "bag ", h("b", {}, player.bag)),
      h("span", { class: "fact", title: "cards in hand" }, "hand ", h("b", {}, player.hand), handBacks(player.hand)),
      first ? h("span", { class: "badge first" }, "starts this turn") : null,
      asking ? h("span", { class: "badge thinking" }, "thinking…") : null),
    boards,
    player.cards ? h("ul", { class: "hand", "aria-label": "cards in hand" }, player.cards.map(([food, trait]) => traitCard(trait, food))) : null,
  );
}

// Which boards differ from the frame before (by player seat and board index), to mark them.
export function changes(table, before) {
  const changed = new Map();
  if (!before) return changed;
  const old = new Map(before.players.map((p) => [p.seat, p.species]));
  for (const player of table.players) {
    const previous = old.get(player.seat) ?? [];
    const marks = new Set();
    player.species.forEach((species, i) => {
      if (JSON.stringify(species) !== JSON.stringify(previous[i])) marks.add(i);
    });
    changed.set(player.seat, marks);
  }
  return changed;
}

// options: asking (seats being asked), changed (Map seat -> Set of board indexes), places (Map seat -> place)
export function table(data, options = {}) {
  const asking = new Set(options.asking ?? data.asking ?? []);
  const first = data.players.length ? data.players[0].seat : null;
  return h(
    "section",
    { class: "table", "aria-label": "the table" },
    h("div", { class: "table-head" },
      h("div", { class: "watering-hole", title: "food tokens in the watering hole" },
        h("span", { class: "wh-count" }, data.watering_hole), h("span", { class: "wh-label" }, "watering hole")),
      h("div", { class: "turn" }, h("span", { class: "turn-no" }, `Turn ${data.turn}`), h("span", { class: "step" }, words.step(data.step))),
      h("div", { class: "deck", title: "cards left in the deck" }, plural(data.deck, "card"), " in the deck")),
    h("div", { class: "players" },
      data.players.map((player) => playerPanel(player, {
        first: player.seat === first && data.step !== "end",
        asking: asking.has(player.seat),
        changed: options.changed?.get(player.seat),
        place: options.places?.get(player.seat),
      }))),
    removals(data.removed, words),
  );
}

export function dealt(game) {
  return game.deck === "sorted" ? "sorted deck" : `deck shuffled with seed ${game.seed}`;
}
