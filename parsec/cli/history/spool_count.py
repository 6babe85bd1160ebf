"""How many recorded commands wait in the hooks' spool files, not yet in the store.

The hooks append to a spool file when the daemon is down (fish always does; the daemon takes its
files every 2 s), so a count above zero for long means the daemon is not running. Read without
the daemon: `parsec history` and the search say it, so a missing command is not a mystery.
When the daemon answers, it is asked to take the spool in first (`take_in_spool`): fish's
last command is then shown, and nothing is said (fish said "is the daemon running?" after
nearly every command while it was). What the daemon refuses, it says: a refused flush leaves the
spool where it was, and a refused spooled command is dropped; either is reported, never counted
as taken in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def spooled_commands(directories: list[Path] | None = None) -> int:
    from ...protocol import endpoints

    if directories is None:
        directories = [endpoints.runtime_spool_dir(endpoints.runtime_dir())]
    import os

    from ...protocol.endpoints import SPOOLED_COMMAND

    count = 0
    for directory in directories:
        try:  # os.listdir, not Path.glob: no pattern to compile on Ctrl-R's start-up path
            names = [name for name in os.listdir(directory) if name.endswith((".jsonl", ".jsonl.taken"))]
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(directory, name), "rb") as handle:
                    count += sum(1 for line in handle if SPOOLED_COMMAND in line)
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


@dataclass(frozen=True)
class SpoolState:
    """What became of the spooled commands when the daemon was asked to take them in."""

    waiting: int = 0  # no running daemon took them in: they are not in the store yet
    refused: int = 0  # the daemon refused them (all the spool held, when it refused the flush)
    reason: str = ""  # its error code, for a refused flush

    def notes(self) -> list[str]:
        """What `parsec history` says, one line each."""
        notes = []
        if self.waiting:
            notes.append(
                f"{waiting_note(self.waiting)}, not shown here: is the daemon running? (`parsec daemon start`)"
            )
        if self.refused:
            from ... import paths

            notes.append(f"{self._refused_note()}: not in the store; see {paths.state_dir() / 'daemon.log'}")
        return notes

    def status(self) -> str:
        """What the search's status line says (short: it is one line of the screen)."""
        parts = [f"{waiting_note(self.waiting)} (is the daemon running?)"] if self.waiting else []
        return "; ".join(parts + ([self._refused_note()] if self.refused else []))

    def _refused_note(self) -> str:
        what = f"{self.refused} spooled {'command' if self.refused == 1 else 'commands'}"
        return f"the daemon refused {what}" + (f" ({self.reason})" if self.reason else "")


def take_in_spool(timeout: float = FLUSH_WAIT_S) -> SpoolState:
    """Ask a running daemon to put what the spool holds into the store (a flush catches the spool
    up first: parsec/daemon/hook_spool.py). Nothing waits once it answered; what it refused is
    counted as refused."""
    waiting = spooled_commands()
    if not waiting:
        return SpoolState()
    from ...protocol import endpoints
    from ...protocol.client import DaemonClient, DaemonError
    from ...protocol.messages import Flush

    try:
        client = DaemonClient.connect(endpoints.runtime_dir(), timeout=timeout)
    except Exception:  # no daemon: the spool is stranded
        return SpoolState(waiting=waiting)
    try:
        with client:
            reply = client.call(Flush())
    except DaemonError as err:  # it answered no: the spool was not taken in
        return SpoolState(refused=waiting, reason=err.code)
    except Exception:
        return SpoolState()  # running but slow to answer (a busy store): it takes the spool in later
    return SpoolState(refused=reply.spool_refused)


def waiting_note(count: int) -> str:
    """`3 recorded commands wait in the spool`: what `parsec history` and the search both say."""
    return f"{count} recorded {'command waits' if count == 1 else 'commands wait'} in the spool"
