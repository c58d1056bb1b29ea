"""Vampiro: La Mascarada (Storyteller, Revised with the seed's V20 rules): d10 pools."""
