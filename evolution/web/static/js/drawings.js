// Each game's own drawing module (/static/js/games/NAME.js), loaded once per page with its style
// sheet, and its words for what the pages around the table say about a game.
//
// A drawing module exports table(data, options), changes(table, before) and dealt(game); it may
// export `title` (the game's name as people write it), `style` (a style sheet beside it, loaded
// before the module is used) and `words`, any of:
//   step(step)    a step or replay event of its referee, in words ("feeding", "penguin moved")
//   turn(turn)    a turn's heading ("Turn 3")
//   when(turn)    a turn, as short as a line's margin takes it ("T3")
//   score(score)  a score with its unit ("12 pts")
//   note(frame)   one line saying where a replay's frame stands

import { plural } from "./dom.js";

const PLAIN_WORDS = {
  step: (step) => String(step),
  turn: (turn) => `Turn ${turn}`,
  when: (turn) => `T${turn}`,
  score: (score) => plural(score, "pt", "pts"),
};

// A game's words, those it does not give in plain words.
export function wordsOf(given = {}) {
  const words = { ...PLAIN_WORDS, ...given };
  words.note ??= (frame) => words.step(frame.event);
  return words;
}

const loaded = new Map();

function styleSheet(href) {
  return new Promise((resolve) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve); // the table is still drawn, unstyled
    document.head.append(link);
  });
}

async function load(name) {
  const url = new URL(`./games/${name}.js`, import.meta.url);
  const module = await import(url.href);
  if (module.style) await styleSheet(new URL(module.style, url).href);
  return { ...module, words: wordsOf(module.words) };
}

// The drawing of a game (an /api/games answer): its module's exports, with `words` complete.
export function drawingOf(game) {
  const name = game.game ?? "evolution";
  if (!loaded.has(name)) loaded.set(name, load(name));
  return loaded.get(name);
}
