"""Infierno de Cobardes (seed 000): d20 Wild West duels."""

from duelo.envs.infierno.env import InfiernoEnv
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import InfiernoOptions, load_catalog
from duelo.envs.infierno.state import Action

__all__ = ["Action", "InfiernoEnv", "InfiernoOptions", "InfiernoRuleset", "load_catalog"]
