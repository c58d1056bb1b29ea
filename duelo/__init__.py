"""duelo: tabletop RPG combat rules as Gymnasium duel environments for NPC brains.

Importing duelo registers its env ids with Gymnasium:

    import gymnasium as gym
    import duelo  # noqa: F401
    env = gym.make("duelo/Infierno-v2")
"""

from duelo.registration import SYSTEMS, register_envs

__version__ = "0.1.0"
__all__ = ["SYSTEMS", "__version__"]

register_envs()
