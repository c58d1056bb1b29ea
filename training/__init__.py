"""Training NPC brains with stable-baselines3 / sb3-contrib (`duelo train`, `duelo export`).

Needs the `train` extra; the rest of duelo never imports this package.
"""
