"""A workflow from request to end: the wiring (`start`, `quickstart`), the runner, questions, and
how a run ends (outcome, hand-off to the shell, the JSON document, the wrap-up)."""
