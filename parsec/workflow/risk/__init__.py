"""The risk check: a verdict (low / medium / high + reasons) for a shell command.

The command is parsed with bashlex and every simple command, pipeline, redirection, command
substitution and function definition in it is analysed. Nothing here greps substrings: `git log
--format=%h` is read-only, `format c:` is not; `rm -rf ./build` stays inside the working tree,
`rm -rf ~` does not. A `cd` earlier in the line moves where later relative paths point (`cd / &&
rm -rf usr`), but "inside the working tree" always means under the directory the line starts in.
Commands that run other commands (sh -c, eval, su -c, find -exec, fd -x, xargs, watch, sed's e,
awk's system()) have those checked too, and so does text fed into a shell (`echo … | sh`,
`bash <<< …`, here-documents): it is judged as the command it is. Code in another language
(python -c, perl -e …) is high unless plainly harmless; code that cannot be read before it runs
(decoded, downloaded, or a script the same line writes) is high. assess never raises: what cannot
be parsed or analysed is at least medium.

Levels: `low` — read-only or only changes the shell's own state (cd, export); the gate runs it on
an empty answer and `--yes` approves it. `medium` — changes files or the system in an ordinary way;
needs a `y`. `high` — destructive or hard to undo; needs an explicit `yes`, never auto-approved.

The package: verdict.py (the levels and RiskVerdict), command_names.py (what a command's name alone
says), words.py (reading words, options and operands), syntax_tree.py (bashlex's tree),
path_danger.py (where paths point; protected places), walker.py (the walk over the line, cd included)
runners.py and feeds.py (where the code a shell or interpreter runs comes from, and what a command
prints into it), plain_code.py (whether a one-line program is plainly harmless), and rules/ (one
module per family of commands: files, archives, git, search, text, processes, interpreters,
downloads, system (crontab, services, firewall, signals), data_stores (SQL, redis, kubectl, aws …),
catalogue (what GTFOBins lists a program as able to run or write, from data/gtfobins.json)).
sql.py reads what an SQL text does.
"""

from __future__ import annotations

import os

from .rules.archives import ArchiveRules
from .rules.catalogue import CatalogueRules
from .rules.data_stores import DataStoreRules
from .rules.downloads import DownloadRules
from .rules.files import FileRules
from .rules.git import GitRules
from .rules.interpreters import InterpreterRules
from .rules.per_match import SearchRules
from .rules.processes import ProcessRules
from .rules.sed_awk import TextRules
from .rules.system import SystemRules
from .verdict import HIGH, LOW, MEDIUM, RiskVerdict
from .walker import UNANALYSED

__all__ = ["HIGH", "LOW", "MEDIUM", "UNANALYSED", "RiskVerdict", "assess"]


class _Checker(
    FileRules,
    ArchiveRules,
    GitRules,
    SearchRules,
    TextRules,
    ProcessRules,
    InterpreterRules,
    DownloadRules,
    SystemRules,
    DataStoreRules,
    CatalogueRules,
):
    """The tree walk with every command's rule (a command without one is judged by its name)."""


def assess(command: str, cwd: str | None = None, home: str | None = None) -> RiskVerdict:
    """The verdict for `command` as it would run in `cwd`. Never raises."""
    try:
        start = os.path.normpath(cwd or os.getcwd())
        return _Checker(start, start, os.path.normpath(home or os.path.expanduser("~"))).check(command)
    except Exception:  # a bug here must neither crash the gate nor let the command pass as low
        return RiskVerdict(MEDIUM, [UNANALYSED])
