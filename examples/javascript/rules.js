// The rules a bot must know to never make an illegal move, as docs/rules.md states them.
//
// Offers:
//   speciesFromJson(json)            a species board as a plain object
//   mayAttack(attacker, target, left, right)
//                                    the five attack checks (docs/rules.md section 7.2)
//   feedingOptions(boards, others, wateringHole)
//                                    every legal answer to feed-next (section 6.3)
//   checkAction4(action, boards, hand)
//                                    null if the Action4 is legal, else the reason (section 5.2)
//
// Data definitions (the host's JSON, docs/rules.md section 3):
//   Species  {food, body, population, traits: [trait, ...], fatFood}
//   Card     [foodValue, trait]
//   Boards   [Species, ...]            one player's row, index 0 is the leftmost
//   Action4  [foodCard, [GP...], [GB...], [BT...], [RT...]]
//            GP/GB = [board, card]; BT = [payment, card...]; RT = [board, position, card]

export const MAX_POPULATION = 7;
export const MAX_BODY = 7;
export const MAX_TRAITS = 3;

// -- species ------------------------------------------------------------------

// [["food",F],["body",B],["population",N],["traits",T]] plus an optional ["fat-food",K].
// The message already passed its schema, so the fields are where the schema says.
export function speciesFromJson(json) {
  const species = {
    food: json[0][1],
    body: json[1][1],
    population: json[2][1],
    traits: json[3][1],
    fatFood: json.length > 4 ? json[4][1] : 0,
  };
  // What a schema cannot say (schemas/README.md, "What the schemas cannot say").
  if (species.food > species.population) throw new Error(`food ${species.food} > population ${species.population}`);
  if (species.fatFood > species.body) throw new Error(`fat-food ${species.fatFood} > body ${species.body}`);
  return species;
}

export const has = (species, trait) => species.traits.includes(trait);
export const isHungry = (species) => species.food < species.population;
export const isCarnivore = (species) => has(species, "carnivore");

// Room left on a fat-tissue card (0 without fat-tissue).
export function fatRoom(species) {
  return has(species, "fat-tissue") ? species.body - species.fatFood : 0;
}

// -- attacks (docs/rules.md section 7) ----------------------------------------

export function bodyNumber(x) {
  if (has(x, "hard-shell")) return x.body + 4;
  if (has(x, "pack-hunting") && has(x, "carnivore")) return x.body + x.population;
  return x.body;
}

export function popNumber(x) {
  return has(x, "pack-hunting") ? x.body + x.population : x.population;
}

// May `attacker` attack `target`, whose neighbours in its owner's row are `left` and
// `right` (null at the ends of the row)? The checks in the order the host makes them.
export function mayAttack(attacker, target, left, right) {
  if (!has(attacker, "carnivore")) return false;
  const warned = (left !== null && has(left, "warning-call")) || (right !== null && has(right, "warning-call"));
  if (warned && !has(attacker, "ambush")) return false; // 1. warning call
  if (has(target, "burrowing") && target.food >= target.population) return false; // 2. burrowing
  if (has(target, "climbing") && !has(attacker, "climbing")) return false; // 3. climbing
  if (has(target, "herding") && popNumber(attacker) <= popNumber(target)) return false; // 4. herding
  if (has(target, "hard-shell") && bodyNumber(attacker) <= bodyNumber(target)) return false; // 5. hard shell
  return true;
}

export function neighbours(row, index) {
  return [index > 0 ? row[index - 1] : null, index + 1 < row.length ? row[index + 1] : null];
}

// -- feeding (docs/rules.md section 6.3) --------------------------------------

// Every answer the host accepts to a feed-next showing `boards` and `others` (the other
// players' rows, starting with the player after us). Each option is
//   {kind: "vegetarian", species, choice: s}
//   {kind: "fat-tissue", species, room, choice: [s, n]}      n = the most it may ask for
//   {kind: "attack", attacker, target, choice: [a, p, d]}
// For fat tissue any n from 1 to `room` is legal; `choice` asks for what the watering
// hole can give, never more than the room.
export function feedingOptions(boards, others, wateringHole) {
  const options = [];
  boards.forEach((species, s) => {
    if (!isCarnivore(species) && isHungry(species)) options.push({ kind: "vegetarian", species, choice: s });
  });
  boards.forEach((species, s) => {
    const room = fatRoom(species);
    if (room > 0) options.push({ kind: "fat-tissue", species, room, choice: [s, Math.min(room, wateringHole)] });
  });
  boards.forEach((attacker, a) => {
    if (!isCarnivore(attacker) || !isHungry(attacker)) return;
    others.forEach((row, p) => {
      row.forEach((target, d) => {
        const [left, right] = neighbours(row, d);
        if (mayAttack(attacker, target, left, right)) options.push({ kind: "attack", attacker, target, choice: [a, p, d] });
      });
    });
  });
  return options;
}

// -- card actions (docs/rules.md section 5.2) ----------------------------------

const isIndex = (value, limit) => Number.isInteger(value) && value >= 0 && value < limit;

// null when `action` is a legal answer to choose for a player with these boards and this
// hand (both from the latest start message); otherwise the reason the host would give.
export function checkAction4(action, boards, hand) {
  if (!Array.isArray(action) || action.length !== 5) return "an Action4 has 5 elements";
  const [foodCard, gps, gbs, bts, rts] = action;
  const boardCount = boards.length + bts.length;
  const used = new Set();
  const card = (index) => {
    if (!isIndex(index, hand.length)) throw new Error(`card ${index} is not in the hand of ${hand.length} cards`);
    if (used.has(index)) throw new Error(`card ${index} is used twice`);
    used.add(index);
    return hand[index];
  };
  const board = (index) => {
    if (!isIndex(index, boardCount)) throw new Error(`board ${index} does not exist`);
    return index;
  };
  // The traits of a board before any replacement (a new board: its BT's trait cards).
  const traitsOf = (b) => (b < boards.length ? [...boards[b].traits] : bts[b - boards.length].slice(1).map((c) => hand[c][1]));
  const unique = (list) => new Set(list).size === list.length;
  try {
    card(foodCard);
    for (const bt of bts) {
      if (bt.length < 1 || bt.length > 1 + MAX_TRAITS) throw new Error("a BT has 1 to 4 cards");
      const traits = bt.map(card).slice(1).map((c) => c[1]);
      if (!unique(traits)) throw new Error("the new board would have a trait twice");
    }
    const grow = (growths, limit, start, what) => {
      const counts = new Map();
      for (const [b, c] of growths) {
        board(b);
        card(c);
        counts.set(b, (counts.get(b) ?? 0) + 1);
        if (start(b) + counts.get(b) > limit) throw new Error(`board ${b} would grow beyond ${limit} (${what})`);
      }
    };
    // A new board counts from 1 for population and, a quirk of the reference dealer, for body.
    grow(gps, MAX_POPULATION, (b) => (b < boards.length ? boards[b].population : 1), "population");
    grow(gbs, MAX_BODY, (b) => (b < boards.length ? boards[b].body : 1), "body");
    const combined = new Map();
    for (const [b, position, c] of rts) {
      board(b);
      const trait = card(c)[1];
      const before = traitsOf(b);
      if (!isIndex(position, before.length)) throw new Error(`board ${b} has no trait at position ${position}`);
      const alone = [...before];
      alone[position] = trait;
      if (!combined.has(b)) combined.set(b, [...before]);
      combined.get(b)[position] = trait;
      if (!unique(alone) || !unique(combined.get(b))) throw new Error(`board ${b} would have the trait ${trait} twice`);
    }
  } catch (error) {
    return error.message;
  }
  return null;
}
