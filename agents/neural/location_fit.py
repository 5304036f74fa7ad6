"""Make a location model (:mod:`.location`) from self-play.

    python -m agents.neural.location_fit --out FILE [--deals 10000] [--seed 5903] [--policy bundled]
                                         [--epochs 8] [--workers 2]

Deals of the partnership game under the default rules are played by ``checkpoint:POLICY`` in every
seat (greedy). At every card play, the views of two seats drawn at random are recorded: each one's
observation, and the hands of the other seats at that moment (:func:`record_positions`). The
network (:class:`agents.neural.network.LocationNetwork`, two layers of 256) is then fitted with
cross-entropy on where each hidden copy is (:func:`fit`): Adam, batches of 1,024, the positions of
the last tenth of the deals held out, and the epoch with the lowest held-out loss kept. The file
is written with a ``.json`` record beside it (the command, the positions, the fit by epoch and the
minutes each step took): the bundled model's record, ``agents/bundled/location/partnership.json``,
is one. Deals are seeded by ``[seed, deal]``, so the positions are the same for any ``--workers``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pinochle_env.cards import NUM_TYPES
from pinochle_env.encoding import ENCODER_VERSION
from pinochle_env.games.kit import variant_kit
from pinochle_env.rules.switches import Rules

from .location import FORMAT, FORMAT_VERSION, other_seats

#: Seats whose views are recorded at each card play, and deals per worker job.
VIEWS_PER_PLAY = 2
DEALS_PER_JOB = 50
HIDDEN = (256, 256)
BATCH = 1024
HELD_OUT = 0.1


def record_positions(policy: str, seed: int, deals: range) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations as float16, the other seats' hands as int8 (positions, others, types), each
    position's deal number) of the ``deals`` (seeded ``[seed, deal]``) played by
    ``checkpoint:policy`` in every seat."""
    from agents.base import decide

    from .agent import load_checkpoint_agent

    rules = Rules()
    kit = variant_kit(rules)
    seats = rules.num_seats
    agent = load_checkpoint_agent(policy, seed)
    observations, hands, deal_of = [], [], []
    for deal in deals:
        game = kit.new_game(np.random.default_rng([seed, deal]))
        chooser = np.random.default_rng([seed, deal, 1])
        while not game.hand_over:
            if game.view(game.to_act).phase.name == "PLAY":
                held = np.asarray(game.hands)
                for seat in chooser.choice(seats, VIEWS_PER_PLAY, replace=False):
                    observations.append(kit.observation_from_view(game.view(seat)).astype(np.float16))
                    hands.append(held[other_seats(seat, seats)].astype(np.int8))
                    deal_of.append(deal)
            game.apply(decide(agent, game))
    size, others = kit.spec.size, seats - 1
    return (
        np.array(observations, dtype=np.float16).reshape(-1, size),
        np.array(hands, dtype=np.int8).reshape(-1, others, NUM_TYPES),
        np.array(deal_of, dtype=np.int64),
    )


def _record_job(job: tuple[str, int, int, int]) -> tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    policy, seed, first, count = job
    return first, record_positions(policy, seed, range(first, first + count))


def collect(policy: str, seed: int, deals: int, workers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`record_positions` of deals ``0 .. deals - 1`` on ``workers`` processes, in deal order;
    progress on stderr."""
    from agents.arena.workers import execute

    jobs = [(policy, seed, first, min(DEALS_PER_JOB, deals - first)) for first in range(0, deals, DEALS_PER_JOB)]
    parts: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    start = time.perf_counter()
    done = 0
    for first, part in execute(jobs, workers, _record_job):
        parts[first] = part
        done += min(DEALS_PER_JOB, deals - first)
        print(f"  played {done:,}/{deals:,} deals ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    ordered = [parts[first] for first in sorted(parts)]
    return tuple(np.concatenate([part[index] for part in ordered]) for index in range(3))  # type: ignore[return-value]


def cross_entropy(network: Any, observations: Any, hands: Any) -> Any:
    """The mean, over every copy in the other seats' hands, of minus the log-probability the network
    gives the seat that holds it. Copies the seat knows the place of (shown meld, the cards it
    passed) count too: the network learns to be sure of them, and the figure is lower for them."""
    log_probabilities = network(observations.float())  # (positions, types, others)
    copies = hands.float().transpose(1, 2)
    return -(copies * log_probabilities).sum() / copies.sum()


def by_hand_size(hands: np.ndarray) -> float:
    """:func:`cross_entropy` of a guess by the number of cards each other seat holds (which knows
    nothing of shown meld or passed cards): the baseline."""
    sizes = hands.sum(axis=2, keepdims=True).astype(np.float64)
    shares = np.log(np.maximum(sizes / np.maximum(sizes.sum(axis=1, keepdims=True), 1), 1e-12))
    return float(-(hands * shares).sum() / hands.sum())


def held_out(deal_of: np.ndarray) -> np.ndarray:
    """Which positions are held out of the fit: those of the last tenth of the deals."""
    deals = np.unique(deal_of)
    if not len(deals):
        return np.zeros(0, dtype=bool)
    return deal_of >= deals[min(len(deals) - 1, int(len(deals) * (1 - HELD_OUT)))]


def fit(
    observations: np.ndarray, hands: np.ndarray, deal_of: np.ndarray, epochs: int, seed: int
) -> tuple[Any, list[dict[str, float]]]:
    """A :class:`~agents.neural.network.LocationNetwork` fitted to the positions (the last tenth of
    the deals held out; the epoch with the lowest held-out loss kept) and the loss by epoch: on the
    held-out positions, :func:`cross_entropy` over all their copies; in training, the mean of the
    batches' losses as the epoch went, each weighted by its positions (a guide, not comparable to
    the held-out figure to the third decimal)."""
    import torch

    from .network import LocationNetwork

    torch.manual_seed(seed)
    held = held_out(deal_of)
    train, test = np.flatnonzero(~held), np.flatnonzero(held)
    if not (len(train) and len(test)):
        raise ValueError(f"{len(np.unique(deal_of))} deal(s) with card play are too few to fit on and hold out a tenth")
    x, y = torch.from_numpy(observations), torch.from_numpy(hands)
    network = LocationNetwork(observations.shape[1], HIDDEN, hands.shape[1])
    optimizer = torch.optim.Adam(network.parameters(), lr=3e-4, weight_decay=1e-5)
    history: list[dict[str, float]] = []
    best: tuple[float, dict[str, Any]] | None = None
    for epoch in range(1, epochs + 1):
        network.train()
        order = torch.from_numpy(train)[torch.randperm(len(train))]
        losses = []
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            loss = cross_entropy(network, x[batch], y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item() * len(batch))
        network.eval()
        with torch.no_grad():
            test_loss = cross_entropy(network, x[test], y[test]).item()
        history.append({"epoch": epoch, "train": sum(losses) / len(train), "held_out": test_loss})
        print(f"  epoch {epoch}/{epochs}: train {history[-1]['train']:.4f}, held out {test_loss:.4f}", file=sys.stderr)
        if best is None or test_loss < best[0]:
            best = (test_loss, {name: tensor.clone() for name, tensor in network.state_dict().items()})
    assert best is not None
    network.load_state_dict(best[1])
    return network, history


def out_problem(out: Path) -> str:
    """Why ``out`` must not be written (empty when it may): only a location model, and its record,
    may be replaced. A policy there would be lost, and a record among the bundled agents' (every
    ``.json`` of ``agents/bundled/`` is read as one) would stop every checkpoint agent loading."""
    from .agent import BUNDLED_DIR
    from .location import load_location_model

    if out.absolute().parent.resolve() == BUNDLED_DIR:
        return f"{BUNDLED_DIR} holds the bundled agents' records; a location model goes in its location/ folder"
    if out.exists():
        try:
            load_location_model(out)
        except (ValueError, OSError):
            return "it exists and is not a location model, which is all this command replaces"
    record = out.with_suffix(".json")
    if record.exists() and not out.exists():
        return f"{record} exists without its model: it is not this model's record"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.neural.location_fit",
        description="Make a location model (guided:locate=FILE) from self-play of a policy (docstring: "
        "python -c 'import agents.neural.location_fit as m; help(m)').",
    )
    parser.add_argument("--out", type=Path, required=True, help="the model file to write (a .json record beside it)")
    parser.add_argument("--deals", type=int, default=10_000, help="deals to play (default 10,000)")
    parser.add_argument("--seed", type=int, default=5903, help="seed of the deals and the fit (default 5903)")
    parser.add_argument("--policy", default="bundled", help="checkpoint:POLICY plays every seat (default bundled)")
    parser.add_argument("--epochs", type=int, default=8, help="passes over the positions (default 8)")
    parser.add_argument("--workers", type=int, default=2, help="processes that play the deals (default 2)")
    args = parser.parse_args(argv)
    for name, least in (("deals", 20), ("epochs", 1), ("workers", 1)):
        if getattr(args, name) < least:
            parser.error(f"--{name} must be at least {least}")
    if args.out.suffix == ".json" or args.out.is_dir():
        parser.error("--out is the model file to write (its .json record is written beside it)")
    problem = out_problem(args.out)
    if problem:
        parser.error(f"--out {args.out}: {problem}")
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error(f"cannot make the folder of --out: {error}")
    if not os.access(args.out.parent, os.W_OK):
        parser.error(f"cannot write in {args.out.parent}")
    from agents.arena.runtime import file_sha256
    from agents.arena.workers import WorkerFailure
    from agents.base import check_plays

    from .agent import load_checkpoint_agent
    from .checkpoints import save_checkpoint

    try:
        policy = load_checkpoint_agent(args.policy)
        check_plays(policy, Rules())  # the workers would fail on the first deal
        policy_file = policy.path
        started = time.perf_counter()
        print(f"playing {args.deals:,} deals with checkpoint:{args.policy} in every seat", file=sys.stderr)
        observations, hands, deal_of = collect(args.policy, args.seed, args.deals, args.workers)
        played = time.perf_counter()
        print(f"fitting on {len(observations):,} positions", file=sys.stderr)
        network, history = fit(observations, hands, deal_of, args.epochs, args.seed)
    except (ValueError, WorkerFailure) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    fitted = time.perf_counter()
    kept = min(history, key=lambda epoch: epoch["held_out"])
    rules = Rules()
    record = {
        "variant": rules.variant,
        "file": args.out.name,
        "made_with": "python -m agents.neural.location_fit " + " ".join(sys.argv[1:] if argv is None else argv),
        "policy": args.policy,
        "policy_sha256": file_sha256(policy_file),
        "seed": args.seed,
        "deals": args.deals,
        "positions": len(observations),
        "held_out_cross_entropy": round(kept["held_out"], 4),
        "kept_epoch": kept["epoch"],
        "by_hand_size_cross_entropy": round(by_hand_size(hands[held_out(deal_of)]), 4),
        "epochs": [{key: round(value, 4) for key, value in epoch.items()} for epoch in history],
        "minutes": {"play": round((played - started) / 60, 1), "fit": round((fitted - played) / 60, 1)},
    }
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "encoder_version": ENCODER_VERSION,
        "variant": rules.variant,
        "observation_size": observations.shape[1],
        "others": hands.shape[1],
        "hidden": list(HIDDEN),
        "network": network.state_dict(),
        "rules": rules.to_dict(),
        "made_with": {key: record[key] for key in ("made_with", "policy", "policy_sha256", "seed", "deals")},
    }
    save_checkpoint(payload, args.out)
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(
        f"wrote {args.out} (held-out cross-entropy {kept['held_out']:.4f} per copy in the other hands, "
        f"epoch {kept['epoch']}; by hand size {record['by_hand_size_cross_entropy']:.4f})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
