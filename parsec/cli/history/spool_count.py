"""How many recorded commands wait in the hooks' spool files, not yet in the store.

The hooks append to a spool file when the daemon is down (fish always does; the daemon takes its
files every 2 s), so a count above zero for long means the daemon is not running. Read without
the daemon: `parsec history` and the search say it, so a missing command is not a mystery.
When the daemon answers, it is asked to take the spool in first (`stranded_commands`): fish's
last command is then shown, and nothing is said (fish said "is the daemon running?" after
nearly every command while it was).
"""

from __future__ import annotations

from pathlib import Path

RECORD = b'"type":"command_finished"'


def spooled_commands(directories: list[Path] | None = None) -> int:
    from ...protocol import endpoints

    if directories is None:
        directories = [endpoints.runtime_spool_dir(endpoints.runtime_dir())]
    import os

    count = 0
    for directory in directories:
        try:  # os.listdir, not Path.glob: no pattern to compile on Ctrl-R's start-up path
            names = [name for name in os.listdir(directory) if name.endswith((".jsonl", ".jsonl.taken"))]
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(directory, name), "rb") as handle:
                    count += sum(1 for line in handle if RECORD in line)
            except OSError:
                continue
    return count


# How long `parsec history` and Ctrl-R wait for a running daemon to put the spool into the store.
# Normally milliseconds; a loaded machine stretches the store's commit to seconds, and reading
# before it lands shows no command at all (3 s was too short: issue 28 item 7 came back). Past
# this the store counts as not answering (the daemon's own bound is the writer's 30 s).
FLUSH_WAIT_S = 10.0
# Ctrl-R opens on a key the user is waiting on: a daemon that does not answer within this only
# means the newest spooled command may be missing from this search, never a frozen key.
SEARCH_FLUSH_WAIT_S = 1.0


def stranded_commands(timeout: float = FLUSH_WAIT_S) -> int:
    """Spooled commands that no running daemon takes in: 0 once a daemon answered a flush (which
    puts what the spool holds into the store first: parsec/daemon/hook_spool.py)."""
    waiting = spooled_commands()
    if not waiting:
        return 0
    from ...protocol import endpoints
    from ...protocol.client import DaemonClient
    from ...protocol.messages import Flush

    try:
        client = DaemonClient.connect(endpoints.runtime_dir(), timeout=timeout)
    except Exception:  # no daemon: the spool is stranded
        return waiting
    try:
        with client:
            client.call(Flush())
    except Exception:
        pass  # a daemon that is running but slow to answer (a busy store) takes the spool in later
    return 0


def waiting_note(count: int) -> str:
    """`3 recorded commands wait in the spool`: what `parsec history` and the search both say."""
    return f"{count} recorded {'command waits' if count == 1 else 'commands wait'} in the spool"
