"""Training NPC brains with stable-baselines3 / sb3-contrib (see the training issue)."""
