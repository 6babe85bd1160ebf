"""Commands that change state: prose that starts with one of them is never run without asking.

`exit Steam` closes the shell, `kill screen session 23536` still signals 23536, `set alias "m"
for command "mplayer"` overwrites the positional parameters, `unset a secret` deletes two
variables. For these the cost of running prose is harm, not a "command not found".
"""

from __future__ import annotations

STATE_CHANGING = frozenset(
    """exit logout exec kill pkill killall skill xkill set unset export source . eval alias unalias
    shift trap readonly declare typeset local rm rmdir shred unlink mv cp dd truncate chmod chown
    chgrp ln install shutdown reboot halt poweroff init telinit mkfs wipefs fdisk sfdisk parted
    crontab userdel groupdel passwd""".split()
)
# Their arguments are numbers, signals, job specs or flags; an ordinary word is not one of them.
TAKES_NO_WORDS = frozenset("exit logout kill shift shutdown reboot halt poweroff init telinit".split())
# ... except these, which they do take (`shutdown now`, `kill %1` is a job spec, not a word).
WORDS_THEY_TAKE = frozenset("now".split())
