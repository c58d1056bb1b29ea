"""NPC policies: scripted brains behind the `Policy` protocol, and their registry."""

from duelo.agents.brain import NumpyBrain, load_brain
from duelo.agents.encode import encode, entries
from duelo.agents.random_policy import RandomPolicy
from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.policy import Policy

__all__ = [
    "NumpyBrain",
    "Policy",
    "RandomPolicy",
    "encode",
    "entries",
    "load_brain",
    "make_policy",
    "policy_names",
]
