// Replaying a finished game frame by frame: step, play, jump to a turn. The frames come from
// /api/games/ID/replay: the table after every step of the referee, re-run from the stored log,
// drawn by the game's own drawing module (table, changes) and told in its words (drawings.js).

import { fill, h, inSentence } from "./dom.js";
import { lines } from "./lines.js";

const SPEEDS = [["0.5×", 1600], ["1×", 800], ["2×", 400], ["4×", 200]];
let current = null; // the replay the keys drive: one at a time

export class Replay {
  constructor(root, replay, names, places, drawing) {
    this.root = root;
    this.drawing = drawing;
    this.words = drawing.words;
    this.frames = replay.frames;
    this.names = names;
    this.places = places;
    this.index = this.frames.length - 1; // opens on the end: the result
    this.timer = null;
    this.delay = 800;
    this.build();
    this.show(this.index);
  }

  build() {
    const last = this.frames.length - 1;
    const button = (label, title, action) => h("button", { type: "button", title, "aria-label": title, onclick: action }, label);
    this.playButton = button("▶ play", "play (space)", () => this.toggle());
    this.slider = h("input", { type: "range", min: 0, max: last, value: last, "aria-label": "step of the replay", oninput: () => this.show(Number(this.slider.value)) });
    this.turnPicker = h("select", { "aria-label": "jump to turn", onchange: () => this.jumpToTurn(Number(this.turnPicker.value)) });
    const turns = [...new Set(this.frames.map((frame) => frame.turn))];
    for (const turn of turns) this.turnPicker.append(h("option", { value: turn }, this.words.turn(turn)));
    const speed = h("select", { "aria-label": "speed", onchange: () => { this.delay = Number(speed.value); if (this.timer) this.play(); } },
      SPEEDS.map(([label, delay]) => h("option", { value: delay, selected: delay === this.delay }, label)));
    this.position = h("span", { class: "position", "aria-live": "polite" });
    this.board = h("div", { class: "replay-board" });
    this.said = h("div", { class: "replay-lines" });
    fill(this.root,
      h("div", { class: "controls", role: "toolbar", "aria-label": "replay controls" },
        button("|◀", "first step (Home)", () => this.show(0)),
        button("◀ step", "step back (←)", () => this.show(this.index - 1)),
        this.playButton,
        button("step ▶", "step forward (→)", () => this.show(this.index + 1)),
        button("▶|", "last step (End)", () => this.show(last)),
        this.turnPicker, speed, this.position),
      this.slider,
      h("div", { class: "game-layout" }, this.board, h("aside", { class: "side" }, h("h3", {}, "This step"), this.said)),
    );
    if (current) current.close();
    current = this;
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
  }

  close() {
    this.pause();
    document.removeEventListener("keydown", this.onKey);
  }

  key(event) {
    if (event.target.closest?.("input, select, textarea")) return;
    const moves = { ArrowLeft: () => this.show(this.index - 1), ArrowRight: () => this.show(this.index + 1),
      Home: () => this.show(0), End: () => this.show(this.frames.length - 1), " ": () => this.toggle() };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      move();
    }
  }

  show(index) {
    this.index = Math.max(0, Math.min(index, this.frames.length - 1));
    const frame = this.frames[this.index];
    const atEnd = this.index === this.frames.length - 1;
    this.slider.value = this.index;
    this.turnPicker.value = frame.turn;
    this.position.textContent = `step ${this.index + 1} of ${this.frames.length} · ${inSentence(this.words.turn(frame.turn))}`
      + ` · ${this.words.step(frame.event)}`;
    fill(this.board, this.drawing.table(frame, {
      asking: [],
      changed: this.drawing.changes(frame, this.frames[this.index - 1]),
      places: atEnd ? this.places : undefined,
    }));
    fill(this.said,
      h("p", { class: "note" }, this.words.note(frame)),
      lines(frame.lines, this.names, { newestFirst: false, words: this.words }),
    );
    if (atEnd) this.pause();
  }

  jumpToTurn(turn) {
    const first = this.frames.findIndex((frame) => frame.turn === turn);
    if (first >= 0) this.show(first);
  }

  toggle() {
    if (this.timer) this.pause();
    else this.play();
  }

  play() {
    this.pause();
    if (this.index >= this.frames.length - 1) this.show(0);
    this.playButton.textContent = "❙❙ pause";
    this.playButton.title = "pause (space)";
    this.timer = setInterval(() => this.show(this.index + 1), this.delay);
  }

  pause() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.playButton.textContent = "▶ play";
    this.playButton.title = "play (space)";
  }
}
