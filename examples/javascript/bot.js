#!/usr/bin/env node
// An Evolution bot in JavaScript (Node 18+): signs up with a host, plays until the host
// hangs up, and never makes an illegal move.
//
//   node bot.js [host] [port] [name]          defaults: 127.0.0.1 45678 "javascript bot"
//   BOT_VERBOSE=1 node bot.js ...             also logs every message and answer on stderr
//   EVOLUTION_KEY=SECRET node bot.js ...      proves the bot's account on a host with --accounts:
//                                             signs up with ["sign-up", name, {"key": SECRET}]
//
// Exit status: 0 when the host closes the connection after sign-up (the normal end of a
// game), 1 when the sign-up is refused ("game full"), the connection fails, or the host
// sends something that breaks the protocol.
//
// How it works, in the order of this file:
//   1. JsonStream   cuts the byte stream into JSON values (a value may span reads, several
//                   may come in one read; never assume one per line);
//   2. loadSchemas  compiles the project's JSON Schemas (../../schemas) with Ajv, strict;
//   3. messageKind  tells the host's messages apart by their shape (schemas/README.md);
//   4. Bot          validates every message, remembers the latest start, and answers
//                   choose and feed-next with strategy.js (whose moves rules.js checks);
//   5. main         connects, signs up, and feeds the socket's data to the above.
// The rules it follows are those of docs/rules.md.

import { readFileSync } from "node:fs";
import net from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";

import { speciesFromJson } from "./rules.js";
import { chooseAction, chooseFeeding } from "./strategy.js";

const SCHEMA_DIR = fileURLToPath(new URL("../../schemas/", import.meta.url));
const MAX_MESSAGE = 1024 * 1024; // the host never sends more; protect ourselves anyway
const VERBOSE = Boolean(process.env.BOT_VERBOSE); // BOT_VERBOSE=1: log every message on stderr

// -- 1. framing --------------------------------------------------------------------

// Feed it text as it arrives; it returns the complete JSON values so far. Values are
// separated by whitespace (or nothing, after an array or a string). A number at the very
// end of the text is not complete until a delimiter follows: `1` may still become `12`.
export class JsonStream {
  constructor() {
    this.text = "";
    this.resetScan();
  }

  resetScan() {
    this.start = -1; // where the current value begins, -1 between values
    this.scan = 0; // how far the current value has been scanned
    this.depth = 0; // open [ and { of the current value
    this.inString = false;
    this.escaped = false;
  }

  push(chunk) {
    this.text += chunk;
    const values = [];
    for (let end = this.findEnd(); end >= 0; end = this.findEnd()) {
      values.push(this.take(end));
    }
    if (this.start >= 0 && this.text.length - this.start > MAX_MESSAGE) {
      throw new Error(`a message longer than ${MAX_MESSAGE} characters`);
    }
    return values;
  }

  // At the end of the stream: a last value without a delimiter after it (a bare number).
  end() {
    if (this.start < 0) return [];
    if (this.depth > 0 || this.inString) throw new Error("the stream ended inside a value");
    return [this.take(this.text.length)];
  }

  // The index just after the current value, or -1 if it is not complete yet.
  findEnd() {
    const text = this.text;
    if (this.start < 0) {
      const first = text.slice(this.scan).search(/[^ \t\r\n]/);
      if (first < 0) {
        this.text = "";
        this.scan = 0;
        return -1;
      }
      this.start = this.scan + first;
      this.scan = this.start;
    }
    const scalar = !"[{\"".includes(text[this.start]);
    for (let i = this.scan; i < text.length; i++) {
      const c = text[i];
      if (scalar) {
        if (" \t\r\n[]{}\",:".includes(c)) return i;
      } else if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === "\\") this.escaped = true;
        else if (c === '"') {
          this.inString = false;
          if (this.depth === 0) return i + 1; // a string on its own
        }
      } else if (c === '"') this.inString = true;
      else if (c === "[" || c === "{") this.depth += 1;
      else if (c === "]" || c === "}") {
        this.depth -= 1;
        if (this.depth === 0) return i + 1;
        if (this.depth < 0) throw new Error(`unexpected ${c}`);
      }
      this.scan = i + 1;
    }
    this.scan = text.length;
    return -1;
  }

  take(end) {
    const source = this.text.slice(this.start, end);
    this.text = this.text.slice(end);
    this.resetScan();
    try {
      return JSON.parse(source);
    } catch {
      throw new Error(`not JSON: ${source.slice(0, 60)}`);
    }
  }
}

// -- 2. schemas ----------------------------------------------------------------------

const MESSAGES = ["signup-reply", "start", "choose", "feed-next", "score", "removed"];

// One validating function per message the host sends, from the project's schemas.
export function loadSchemas(dir = SCHEMA_DIR) {
  const ajv = new Ajv2020({
    strict: true, // the schemas compile with no error and no warning in Ajv's strict mode
    allErrors: false,
  });
  ajv.addSchema(JSON.parse(readFileSync(`${dir}/defs.json`, "utf8")));
  const validators = {};
  for (const name of MESSAGES) {
    ajv.addSchema(JSON.parse(readFileSync(`${dir}/${name}.json`, "utf8")));
    validators[name] = ajv.getSchema(`urn:evolution:${name}`); // compiles it, strictly
  }
  return { validators, errorsText: (errors) => ajv.errorsText(errors, { dataVar: "message" }) };
}

// -- 3. telling messages apart ----------------------------------------------------------

const isInt = Number.isInteger;

// schemas/README.md: a string is the sign-up reply; a list of lists of integers is the
// score message; [wh, bag, boards, hand] starts with two integers; feed-next has 5
// elements; choose is [before, after], two lists.
export function messageKind(value) {
  if (typeof value === "string") return "signup-reply";
  if (!Array.isArray(value)) return "unknown";
  if (value.length === 2 && value[0] === "removed") return "removed";
  if (value.length > 0 && value.every((e) => Array.isArray(e) && e.length > 0 && e.every(isInt))) return "score";
  if (value.length === 4 && isInt(value[0]) && isInt(value[1])) return "start";
  if (value.length === 5) return "feed-next";
  if (value.length === 2 && value.every(Array.isArray)) return "choose";
  return "unknown";
}

// -- 4. the conversation ------------------------------------------------------------------

class ProtocolError extends Error {}
class Refused extends Error {}
class Removed extends Error {}

export class Bot {
  constructor(schemas, send) {
    this.schemas = schemas;
    this.send = (value) => {
      if (VERBOSE) console.error(`bot: -> ${JSON.stringify(value)}`);
      send(value); // writes one JSON value and a newline
    };
    this.signedUp = false;
    this.me = null; // {boards, hand} of the latest start
    this.turns = 0;
    this.feedings = 0;
    this.scores = null;
  }

  // One message from the host: check it against its schema, then act on it.
  receive(value) {
    if (VERBOSE) console.error(`bot: <- ${JSON.stringify(value)}`);
    const kind = this.signedUp ? messageKind(value) : "signup-reply";
    if (kind === "signup-reply" && !this.signedUp && value === "ack") {
      this.signedUp = true; // "ack" is how other Evolution hosts spell "ok"
      return;
    }
    if (kind === "unknown" || (kind === "signup-reply" && this.signedUp)) {
      throw new ProtocolError(`a message of no known kind: ${JSON.stringify(value).slice(0, 80)}`);
    }
    const validate = this.schemas.validators[kind];
    if (!validate(value)) {
      throw new ProtocolError(`an invalid ${kind} message: ${this.schemas.errorsText(validate.errors)}`);
    }
    switch (kind) {
      case "signup-reply": // "ok", or "game full"
        if (value !== "ok") throw new Refused(`the host refused the sign-up: ${JSON.stringify(value)}`);
        this.signedUp = true;
        break;
      case "start": // [watering-hole, bag, boards, hand]: every turn, and the first of every game
        this.turns += 1;
        this.me = { boards: value[2].map(speciesFromJson), hand: value[3] };
        break;
      case "choose": // [before, after]: answer for the hand and boards of the latest start
        if (this.me === null) throw new ProtocolError("choose before any start");
        this.send(chooseAction(this.me.boards, this.me.hand));
        break;
      case "feed-next": { // [bag, boards, hand, watering-hole, others]: answer one of our options
        const [, boards, , wateringHole, others] = value;
        this.feedings += 1;
        const rows = others.map((row) => row.map(speciesFromJson));
        this.send(chooseFeeding(boards.map(speciesFromJson), rows, wateringHole));
        break;
      }
      case "score": // [[id, score], ...]: only if the host runs with --send-scores
        this.scores = value;
        break;
      case "removed": // ["removed", reason]: only if the host runs with --tell-removed; it hangs up next
        throw new Removed(`the host removed this bot: ${value[1]}`);
    }
  }
}

// -- 5. connecting ------------------------------------------------------------------------

function connect(host, port, retries) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.once("connect", () => resolve(socket));
    socket.once("error", (error) => {
      if (retries > 0 && error.code === "ECONNREFUSED") {
        setTimeout(() => connect(host, port, retries - 1).then(resolve, reject), 1000);
      } else reject(error);
    });
  });
}

export async function main(argv) {
  const [host = "127.0.0.1", portText = "45678", name = "javascript bot"] = argv;
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`bot: ${portText} is not a port number`);
    return 1;
  }
  const schemas = loadSchemas(); // before connecting: compiling takes a moment
  let socket;
  try {
    socket = await connect(host, port, 3);
  } catch (error) {
    console.error(`bot: cannot connect to ${host}:${port}: ${error.message}`);
    return 1;
  }
  socket.setNoDelay(true);
  socket.setEncoding("utf8"); // a character split between two reads is put back together
  const send = (value) => socket.write(`${JSON.stringify(value)}\n`);
  const bot = new Bot(schemas, send);
  const stream = new JsonStream();
  const key = process.env.EVOLUTION_KEY; // the secret its organiser issued (docs/accounts.md), if any
  send(key ? ["sign-up", name, { key }] : name); // answered "ok" either way

  return new Promise((resolve) => {
    let status = null;
    const stop = (code, message) => {
      if (status !== null) return;
      status = code;
      if (message) console.error(`bot: ${message}`);
      socket.destroy();
      resolve(code);
    };
    const handle = (values) => {
      for (const value of values) {
        if (status !== null) return;
        bot.receive(value);
      }
    };
    socket.on("data", (chunk) => {
      try {
        handle(stream.push(chunk));
      } catch (error) {
        stop(1, error instanceof Refused || error instanceof Removed ? error.message : `giving up: ${error.message}`);
      }
    });
    socket.on("end", () => {
      try {
        handle(stream.end());
      } catch (error) {
        return stop(1, error instanceof Refused || error instanceof Removed ? error.message : `giving up: ${error.message}`);
      }
      if (!bot.signedUp) return stop(1, "the host closed the connection before accepting the sign-up");
      const scores = bot.scores ? `, scores ${JSON.stringify(bot.scores)}` : "";
      stop(0, `the host closed the connection after ${bot.turns} turns and ${bot.feedings} feeding choices${scores}`);
    });
    socket.on("error", (error) => stop(1, `connection error: ${error.message}`));
    socket.on("close", () => stop(bot.signedUp ? 0 : 1, null));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
