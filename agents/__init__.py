"""Agents for pinochle-rl: the agent interface, bots, neural policies and the arena (see the issues)."""
