"""Esgrima (seed 002): 2d6 skirmishes with terrain, and the fencing duel played with cards."""
