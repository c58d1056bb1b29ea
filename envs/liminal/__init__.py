"""Liminal (seed 001): 2d6 + skill against 8 + the rival's skill, quick and deadly duels."""
