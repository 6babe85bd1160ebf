"""The protocol version: the one place it is written. Every speaker takes it from here — the
message models, the light clients that skip pydantic (current_session.py, cli/shell/hook_relay.py) and
the shell hooks, into which `parsec init` writes it (cli/shell/hook_scripts.py). Standard library only:
`parsec init` and the hooks' fast paths import it."""

PROTOCOL_VERSION = 1
