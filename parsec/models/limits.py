"""Limits several layers check (a light module: the config imports it on every start-up path)."""

MAX_PLAN_STEPS = 12  # a longer plan is a sign the request should be split
