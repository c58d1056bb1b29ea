"""Combat systems as rulesets, and the generic Gymnasium adapter over them."""
