"""The shell integration: `parsec init` (the hook file, the rc lines) and `parsec shell` (the pty
proxy that records each command's output and relays the hooks' records)."""
