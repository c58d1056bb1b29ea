"""Data files shipped with duelo: characters, weapons and scenarios per system (YAML)."""
