"""Brains shipped with duelo, one folder each (manifest.json + weights.npz)."""
