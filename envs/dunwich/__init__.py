"""Estirpe de Dunwich (D.R.S.): melee maneuvers, reactions and Advantage Points."""
