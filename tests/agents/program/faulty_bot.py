"""A bot program for the tests that misbehaves as its first argument says, at its third decision
(before that it plays the first legal action); standard library only, like a bot someone else wrote.
With a second and third argument ``FILE K``, it counts its decisions in ``FILE`` over all its
processes instead and misbehaves only at the ``K``-th: once in a whole arena run and its resume.

Faults: ``hang`` (never answers), ``illegal`` (an id not legal), ``garbage`` (not JSON), ``crash``
(exits with status 3 after a line on standard error), ``linger`` (plays well but never exits),
``version`` (speaks protocol 99), ``chatty`` (plays well, writing to standard error at every decision),
``announce`` (plays well, writing its process id and the match's seed to standard error at each
``match_start``), ``once`` (plays well, but exits at ``match_end``: one match per process, as
the protocol once allowed), ``none`` (plays well).
"""

import json
import os
import sys
import time

FAULT = sys.argv[1]
COUNTER, AT = (sys.argv[2], int(sys.argv[3])) if len(sys.argv) > 3 else (None, 3)
decisions = 0


def count():
    """This decision's number (from 1): in this process, or over every process sharing the counter."""
    if COUNTER is None:
        return decisions
    try:
        with open(COUNTER) as stream:
            total = int(stream.read()) + 1
    except FileNotFoundError:
        total = 1
    with open(COUNTER, "w") as stream:
        stream.write(str(total))
    return total


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "hello", "protocol": 99 if FAULT == "version" else 1, "name": f"faulty-{FAULT}"}
    elif message["type"] == "match_start" and FAULT == "announce":
        print(f"process {os.getpid()} starts a match, seed {message['seed']}", file=sys.stderr, flush=True)
        continue
    elif message["type"] == "decide":
        decisions += 1
        now = count()
        reply = {"type": "action", "action": message["legal"][0][0]}
        if FAULT == "chatty":
            print(f"thinking about decision {message['decision']}", file=sys.stderr, flush=True)
        if now == AT and FAULT == "hang":
            time.sleep(3600)
        if now == AT and FAULT == "illegal":
            reply = {"type": "action", "action": 999}
        if now == AT and FAULT == "garbage":
            sys.stdout.write("let me think...\n")
            sys.stdout.flush()
            continue
        if now == AT and FAULT == "crash":
            print("Traceback: something broke", file=sys.stderr, flush=True)
            sys.exit(3)
    elif message["type"] == "match_end" and FAULT == "once":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
if FAULT == "linger":
    time.sleep(3600)
