"""Infierno de Cobardes (seed 000): d20 Wild West duels.

The package exports the rules layer only (no Gymnasium); the env is
`duelo.envs.infierno.env.InfiernoEnv`.
"""

from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import InfiernoOptions, load_catalog
from duelo.envs.infierno.state import Action

__all__ = ["Action", "InfiernoOptions", "InfiernoRuleset", "load_catalog"]
