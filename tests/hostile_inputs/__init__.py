"""The hostile-input suite (issue 28): each case an outside input once crashed, hung or
silently changed a result with; one module per kind of input."""
