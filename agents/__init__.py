"""NPC policies: scripted brains behind the `Policy` protocol, trained brains and the
sandbox for someone's own; policy names are resolved one layer up, in
`duelo.agents.registry` (a name may also ask for the solved play)."""

from duelo.agents.brain import NumpyBrain, load_brain
from duelo.agents.encode import encode, entries
from duelo.agents.random_policy import RandomPolicy
from duelo.envs.core.policy import Policy

__all__ = [
    "NumpyBrain",
    "Policy",
    "RandomPolicy",
    "encode",
    "entries",
    "load_brain",
]
