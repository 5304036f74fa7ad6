#!/usr/bin/env node
// A random Pinochle bot speaking pinochle-rl's bot protocol (docs/bot_protocol.md), Node.js only.
//
// The table writes one JSON object per line to the bot's standard input; the bot answers "hello"
// and every "decide" with one line on its standard output, and exits when its input ends. It picks
// a legal action uniformly at random with a small seeded generator (mulberry32), seeded by
// "match_start", so a match replays exactly.
//
//     pinochle-arena heuristic "program:cmd=node examples/random_bot.js"
//     pinochle-bot-check "node examples/random_bot.js"
"use strict";

const readline = require("readline");

const PROTOCOL = 1;

function generator(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = generator(0);

function answer(message) {
  switch (message.type) {
    case "hello":
      return { type: "hello", protocol: PROTOCOL, name: "random-node" };
    case "match_start":
      random = generator(message.seed);
      return null;
    case "decide": {
      const [action] = message.legal[Math.floor(random() * message.legal.length)];
      return { type: "action", decision: message.decision, action: action };
    }
    default:
      return null; // hand_start, hand_end, match_end: nothing to say
  }
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const reply = answer(JSON.parse(line));
  if (reply !== null) {
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
});
