"""The shared duel core: dice, the ruleset contract, observations, the generic env."""
