"""What the first word is to the shell: alias, function, builtin, keyword, file on PATH, or nothing.

The hook sends the real answer (`type -t`); without it (batch mode, tests) the classifier looks
the word up itself: the shell's keyword and builtin lists (bash's unless the shell is known), then
PATH (cached, refreshed when PATH changes). zsh's and fish's lists are what zsh 5.9
(`${(k)reswords}`, `${(k)builtins}`) and fish 3.6 (`builtin -n`) print, so `parsec classify
--shell fish 'status full'` says what the fish hook, which asks `type -t`, would.
"""

from __future__ import annotations

import os
from typing import NamedTuple

KEYWORDS = frozenset(
    "if then else elif fi case esac for select while until do done in function time coproc { } ! [[ ]]".split()
)
BUILTINS = frozenset(
    """. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare
    dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let
    local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source
    suspend test times trap true type typeset ulimit umask unalias unset wait""".split()
)
ZSH_KEYWORDS = frozenset(
    """! [[ case coproc declare do done elif else end esac export fi float for foreach function if
    integer local nocorrect readonly repeat select then time typeset until while { }""".split()
)
ZSH_BUILTINS = frozenset(
    """- . : [ alias autoload bg bindkey break builtin bye cd chdir command compadd comparguments compcall
    compctl compdescribe compfiles compgroups compquote compset comptags comptry compvalues continue
    declare dirs disable disown echo echotc echoti emulate enable eval exec exit export false fc fg
    float functions getln getopts hash history integer jobs kill let limit local log logout noglob
    popd print printf private pushd pushln pwd r read readonly rehash return sched set setopt shift
    source suspend test times trap true ttyctl type typeset ulimit umask unalias unfunction unhash
    unlimit unset unsetopt vared wait whence where which zcompile zformat zle zmodload zparseopts
    zregexparse zstyle""".split()
)
# fish's `type -t` calls its keywords (if, for, begin, and ...) builtins too.
FISH_BUILTINS = frozenset(
    """. : [ _ abbr and argparse begin bg bind block break breakpoint builtin case cd command
    commandline complete contains continue count disown echo else emit end eval exec exit false fg
    for function functions history if jobs math not or path printf pwd random read realpath return
    set set_color source status string switch test time true type ulimit wait while""".split()
)
# Functions fish 3.6 ships (`$__fish_data_dir/functions`) that `type -t` calls "function" in any
# fish: fish wraps ls, grep, man, cd and history in functions. They are no sign that the user
# defined the word, as their own functions are (`open` and `seq` are only defined where no
# program of that name exists, so they are left to PATH).
FISH_FUNCTIONS = frozenset(
    """N_ alias cd cdh contains_seq diff dirh dirs down-or-search edit_command_buffer export
    fish_add_path fish_breakpoint_prompt fish_clipboard_copy fish_clipboard_paste
    fish_command_not_found fish_commandline_append fish_commandline_prepend fish_config
    fish_default_key_bindings fish_default_mode_prompt fish_delta fish_git_prompt fish_greeting
    fish_hg_prompt fish_hybrid_key_bindings fish_is_root_user fish_job_summary fish_mode_prompt
    fish_opt fish_print_git_action fish_print_hg_root fish_prompt fish_status_to_signal
    fish_svn_prompt fish_title fish_update_completions fish_vcs_prompt fish_vi_cursor
    fish_vi_key_bindings funced funcsave grep help history isatty la ll ls man nextd popd prevd
    prompt_hostname prompt_login prompt_pwd psub pushd realpath setenv suspend trap umask
    up-or-search vared""".split()
)


class ShellWords(NamedTuple):
    """What one shell knows without PATH: `type -t` answers in the order functions, keywords,
    builtins (fish's `cd` function shadows its builtin)."""

    keywords: frozenset[str]
    builtins: frozenset[str]
    functions: frozenset[str] = frozenset()


# Each shell's words; bash's when the shell is not known.
SHELL_WORDS: dict[str | None, ShellWords] = {
    None: ShellWords(KEYWORDS, BUILTINS),
    "bash": ShellWords(KEYWORDS, BUILTINS),
    "zsh": ShellWords(ZSH_KEYWORDS, ZSH_BUILTINS),
    "fish": ShellWords(frozenset(), FISH_BUILTINS, FISH_FUNCTIONS),
}
# Words that only hand the rest of the line to another command; the real command follows them.
WRAPPERS = frozenset("sudo doas env nohup nice ionice time command exec builtin stdbuf chronic xargs watch".split())


class PathIndex:
    """Executable names on PATH, listed once per distinct PATH value."""

    def __init__(self, path: str | None = None) -> None:
        self._path: str | None = None
        self._names: frozenset[str] = frozenset()
        self.refresh(path)

    def refresh(self, path: str | None = None) -> None:
        path = os.environ.get("PATH", "") if path is None else path
        if path == self._path:
            return
        names: set[str] = set()
        for directory in path.split(os.pathsep):
            try:
                with os.scandir(directory or ".") as entries:
                    for entry in entries:
                        names.add(entry.name)
            except OSError:
                continue
        self._path, self._names = path, frozenset(names)

    def __contains__(self, name: str) -> bool:
        return name in self._names


def resolve(word: str, path_index: PathIndex, shell: str | None = None) -> str:
    """The `type -t`-style kind of `word` in `shell` (bash when unknown): keyword, function (one
    fish ships), builtin, file or none."""
    words = SHELL_WORDS.get(shell, SHELL_WORDS[None])
    if word in words.functions:
        return "function"
    if word in words.keywords:
        return "keyword"
    if word in words.builtins:
        return "builtin"
    if "/" in word:
        try:
            return "file" if os.access(os.path.expanduser(word), os.X_OK) else "none"
        except ValueError:  # an embedded NUL byte: no such file
            return "none"
    if word in path_index:
        return "file"
    return "none"
