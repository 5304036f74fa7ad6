#!/usr/bin/env python3
"""A random Pinochle bot speaking pinochle-rl's bot protocol (docs/bot_protocol.md), standard library only.

The table writes one JSON object per line to the bot's standard input; the bot answers ``hello``
and every ``decide`` with one line on its standard output, and exits when its input ends. It picks
a legal action uniformly at random, seeded by ``match_start``, so a match replays exactly.

    pinochle-arena heuristic "program:cmd=python3 examples/random_bot.py"
    pinochle-bot-check "python3 examples/random_bot.py"
"""

import json
import random
import sys

PROTOCOL = 1


def answer(message, rng):
    """The reply to one table message (None where the protocol expects none)."""
    if message["type"] == "hello":
        return {"type": "hello", "protocol": PROTOCOL, "name": "random-python"}
    if message["type"] == "match_start":
        rng.seed(message["seed"])
    if message["type"] == "decide":
        action, _name = rng.choice(message["legal"])
        return {"type": "action", "decision": message["decision"], "action": action}
    return None  # hand_start, hand_end, match_end: nothing to say


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        reply = answer(json.loads(line), rng)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
