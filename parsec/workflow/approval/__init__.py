"""The confirmation gate: what the user's answer means for a command of a given risk, and the
step's side of asking it."""
