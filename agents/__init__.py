"""NPC policies: scripted brains behind the `Policy` protocol, and their registry."""

from duelo.agents.random_policy import RandomPolicy
from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.policy import Policy

__all__ = ["Policy", "RandomPolicy", "make_policy", "policy_names"]
