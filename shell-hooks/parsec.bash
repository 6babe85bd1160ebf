# Parsec shell hook for bash >= 4.4.   Load it from ~/.bashrc with:   eval "$(parsec init bash)"
# A template: `parsec init` writes the protocol version (parsec/protocol/version.py) into the "v" of each message.
# shellcheck shell=bash
#
# What it does (docs/hooks.md has the details):
# - records every interactive command (text as typed, start, duration, exit and pipeline statuses,
#   cwd before/after) as one fire-and-forget NDJSON line to the daemon's FIFO in the private
#   runtime directory, or appends it to a spool file when the daemon is down or behind;
# - at Enter, asks the daemon whether the line is a command, a prompt for `parsec ask`, or
#   ambiguous (one key decides);
# - emits OSC 133 marks when running inside `parsec shell` (PARSEC_OSC133=1).
#
# The normal path forks nothing: the line comes from READLINE_LINE, the start time from a PS0
# expansion, the clock from EPOCHREALTIME; the daemon's FIFO stays open (close-on-exec where bash
# can set it: __parsec_cloexec).
# Every name starts with __parsec_ (or PARSEC_ for the user's settings).

# Aliases are expanded when a function is defined: ours are defined with none, so an `alias
# printf=...` made before cannot reach into them; functions that shadow a builtin cannot either
# (every builtin is called as `builtin ...`, external commands as `command ...`).
if \builtin shopt -q expand_aliases; then __parsec_aliases=1; \builtin shopt -u expand_aliases; else __parsec_aliases=0; fi
# This file is a template: a message without the version `parsec init` writes in is refused by the
# daemon, so the file sourced as it is says so, once, and installs nothing.
if [[ $- == *i* && ${PARSEC_DISABLE:-0} != 1 && -z ${__parsec_loaded-} && @PROTOCOL_VERSION@ != [0-9]* ]]; then
    # shellcheck disable=SC2016 # the backquotes and `$(` are the text shown
    \builtin printf 'parsec: load the hook with `eval "$(parsec init bash)"`, not %s directly: nothing is recorded\n' "${BASH_SOURCE[0]-the template}" >&2
elif [[ $- == *i* && ${PARSEC_DISABLE:-0} != 1 && -z ${__parsec_loaded-} ]] \
    && ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))); then
__parsec_loaded=1
[[ -n ${__parsec_exclude+x} ]] || __parsec_exclude=() # set by `parsec init` from the config
[[ -e ${__parsec_hook_file-} ]] || __parsec_hook_file= # no file to watch (__parsec_installed)

__parsec_session="$$-${EPOCHREALTIME/,/.}"
__parsec_seq=0
__parsec_fd=                 # the daemon's FIFO (hooks.fifo), opened read-write
__parsec_qid=0               # the id of the last question
__parsec_unanswered=0        # 1: the last question timed out
__parsec_unread=0            # lines written since the FIFO was last seen empty
__parsec_started=0           # session_start sent on the current FIFO
__parsec_autostart_at=0
__parsec_empty=
__parsec_private=            # the runtime directory: '' not checked yet, 1 private, 0 refused
if [[ ${XDG_RUNTIME_DIR-} == /* ]]; then # as parsec.paths.runtime_dir(): TMPDIR only when absolute
    __parsec_runtime=$XDG_RUNTIME_DIR/parsec
elif [[ ${TMPDIR-} == /* ]]; then
    __parsec_runtime=${TMPDIR%/}/parsec-$UID
else
    __parsec_runtime=/tmp/parsec-$UID
fi
__parsec_spool="$__parsec_runtime/spool/bash-$__parsec_session.jsonl"
__parsec_fifo=$__parsec_runtime/hooks.fifo
__parsec_reply=$__parsec_runtime/reply/$__parsec_session
__parsec_reply_timeout=${PARSEC_HOOK_TIMEOUT:-0.15}
# `parsec ask` writes the workflow's final directory here; the shell follows it.
export PARSEC_CD_FILE="$__parsec_runtime/cd-$$"

# ---- JSON --------------------------------------------------------------------------------------

# Sets REPLY to $1 as a JSON string literal.
__parsec_json() {
    if [[ $1 != *[\\\"$'\x01'-$'\x1f\x7f']* ]]; then # most text needs no escaping
        REPLY="\"$1\""
        return 0
    fi
    local s=$1 out='' c i
    s=${s//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\n'/\\n}
    s=${s//$'\t'/\\t}
    s=${s//$'\r'/\\r}
    if [[ $s == *[$'\x01'-$'\x1f\x7f']* ]]; then # rare: other control characters
        for ((i = 0; i < ${#s}; i++)); do
            c=${s:i:1}
            if [[ $c == [$'\x01'-$'\x1f\x7f'] ]]; then
                builtin printf -v c '\\u%04x' "'$c"
            fi
            out+=$c
        done
        s=$out
    fi
    REPLY="\"$s\""
}

# ---- transport ---------------------------------------------------------------------------------
# Two FIFOs in the private runtime directory (docs/hooks.md, "Transport"), opened read-write so
# an open never blocks and a write never meets a missing reader (no SIGPIPE):
# __parsec_fd, the daemon's hooks.fifo, shared by every shell: one line per write, at most
# PIPE_BUF bytes, so the kernel never interleaves lines. While lines wait in the FIFO (the daemon
# has not read them yet) a shell adds at most 4 more, then spools: a hung, slow or gone daemon
# holds at most 4 lines of ours, the FIFO never fills and no write blocks.
# reply/<session>, this shell's, made on the first question: the daemon answers there; open
# (fd 9) only while a question waits for its answer, so no command the user runs inherits it;
# a reply carries the question's id, so a late answer is never taken for the next one.

__parsec_close() {
    [[ -z $__parsec_fd ]] || builtin exec {__parsec_fd}>&-
    __parsec_fd=
    __parsec_started=0
}

# Starts the daemon in the background, at most once a minute, silently; never after the user's
# `parsec daemon stop` (its marker lasts until `parsec daemon start` or a reboot).
__parsec_autostart() {
    [[ ${PARSEC_HOOKS_AUTOSTART_DAEMON:-1} == [1tT]* && ! -e $__parsec_runtime/daemon.stopped ]] || return 0
    ((EPOCHSECONDS - __parsec_autostart_at >= 60)) || return 0
    __parsec_autostart_at=$EPOCHSECONDS
    local bin=${PARSEC_BIN:-${__parsec_bin:-parsec}} # __parsec_bin: written by `parsec init`
    builtin type -P "$bin" >/dev/null 2>&1 || [[ -x $bin ]] || return 0
    (command "$bin" daemon start --auto </dev/null >/dev/null 2>&1 &) 2>/dev/null
}

# True when the runtime directory is a real directory (not a symlink), ours, mode 0700; it is
# created so when missing. Anything else (a /tmp/parsec-<uid> made by another local user to
# receive what we send) is refused for the life of this shell, and said once.
__parsec_dir_ok() {
    [[ $__parsec_private != 0 ]] || return 1
    local dir=$__parsec_runtime mode=
    [[ -e $dir || -L $dir ]] || command mkdir -m 700 -- "$dir" 2>/dev/null
    if [[ -d $dir && ! -L $dir && -O $dir ]]; then
        [[ $__parsec_private != 1 ]] || return 0
        mode=$(command ls -ldn -- "$dir" 2>/dev/null) # once per shell: bash cannot read a mode
        if [[ $mode == 'drwx------'[\ .]* ]]; then
            __parsec_private=1
            return 0
        fi
    fi
    __parsec_private=0
    builtin printf 'parsec: %s is not a private directory of yours (a real directory you own, mode 0700): nothing is recorded\n' "$dir" >&2
    return 1
}

# True when the daemon's FIFO is open and keeping up: it is empty (the daemon has read everything
# sent before), or holds fewer than 4 lines written since it last was. Reopens it when the daemon
# made a new one (it restarted) and announces the session again.
__parsec_ready() {
    if [[ -n $__parsec_fd && ! $__parsec_fifo -ef /dev/fd/$__parsec_fd ]]; then __parsec_close; fi
    if [[ -z $__parsec_fd ]]; then
        __parsec_dir_ok || return 1
        if [[ ! -p $__parsec_fifo || -L $__parsec_fifo || ! -O $__parsec_fifo ]]; then
            __parsec_autostart
            return 1
        fi
        { builtin exec {__parsec_fd}<>"$__parsec_fifo"; } 2>/dev/null || { __parsec_fd=; return 1; }
        __parsec_cloexec "$__parsec_fd"
        __parsec_unread=4 # until it is seen empty: a daemon killed with -9 may have left lines
    fi
    if ! builtin read -t 0 -u "$__parsec_fd" 2>/dev/null; then
        __parsec_unread=0
    elif [[ ${1-} != q ]] && ((__parsec_unread >= 4)); then # q: a question, see __parsec_request
        __parsec_autostart
        return 1
    fi
}

# Marks descriptor $1 close-on-exec, so the commands the user runs do not inherit it (a program
# such as `lvs` complains of a leaked descriptor). bash cannot do it itself; its loadable
# `fdflags` builtin (bash >= 5.1, Debian's bash-builtins) can: loaded from an absolute directory
# only (never `.`), used and unloaded again, once per FIFO the shell opens; a `fdflags` the user
# loaded is used and left loaded. Without it, the commands inherit this one descriptor.
__parsec_cloexec() {
    if builtin enable fdflags 2>/dev/null; then # already loaded (by the user): theirs stays
        builtin fdflags -s +cloexec "$1" 2>/dev/null
        return 0
    fi
    local dir dirs
    IFS=: builtin read -ra dirs <<<"${BASH_LOADABLES_PATH-}:/usr/local/lib/bash:/usr/lib/bash:/usr/lib64/bash"
    for dir in "${dirs[@]}"; do
        [[ $dir == /* && -f $dir/fdflags ]] || continue
        builtin enable -f "$dir/fdflags" fdflags 2>/dev/null || continue
        builtin fdflags -s +cloexec "$1" 2>/dev/null
        builtin enable -d fdflags 2>/dev/null
        return 0
    done
    return 1
}

# True when $1 and its newline fit one atomic FIFO write (PIPE_BUF: 4096 bytes).
__parsec_fits() {
    local chars=${#1}
    ((chars < 1024)) && return 0 # at most 4 bytes a character
    ((chars < 4096)) || return 1
    local LC_ALL=C # ${#1} counts bytes now
    ((${#1} < 4096))
}

__parsec_session_start() {
    local env='' name
    for name in SHELL TERM LANG LC_ALL EDITOR VISUAL PAGER VIRTUAL_ENV CONDA_DEFAULT_ENV TERM_PROGRAM; do
        [[ -n ${!name-} ]] || continue
        __parsec_json "${!name}"
        env+="${env:+,}\"$name\":$REPLY"
    done
    __parsec_json "$PWD"
    local cwd=$REPLY
    __parsec_json "${USER:-${LOGNAME-}}"
    local user=$REPLY
    __parsec_json "${HOSTNAME-}"
    REPLY="{\"v\":@PROTOCOL_VERSION@,\"type\":\"session_start\",\"noreply\":true,\"session\":\"$__parsec_session\",\"shell\":\"bash\",\"pid\":$$,\"tty\":null,\"user\":$user,\"host\":$REPLY,\"cwd\":$cwd,\"env\":{$env}}"
}

# Sends one fire-and-forget line: to `parsec shell` when running inside it, else to the daemon's
# FIFO when it is keeping up, else to the spool.
__parsec_send() {
    local line=$1
    if [[ -n ${PARSEC_PTY_FD-} ]]; then
        if [[ -z ${__parsec_pty_started-} ]]; then
            __parsec_session_start
            line="$REPLY"$'\n'"$line"
        fi
        if { builtin printf '%s\n' "$line" >&"$PARSEC_PTY_FD"; } 2>/dev/null; then
            __parsec_pty_started=1
            return 0
        fi
        line=$1
    fi
    if __parsec_fits "$line" && __parsec_ready; then
        if ((!__parsec_started)); then
            __parsec_session_start
            if __parsec_fits "$REPLY"$'\n'"$line"; then line="$REPLY"$'\n'"$line"
            elif __parsec_fits "$REPLY"; then builtin printf '%s\n' "$REPLY" >&"$__parsec_fd" && ((++__parsec_unread))
            fi
            __parsec_started=1
        fi
        if { builtin printf '%s\n' "$line" >&"$__parsec_fd"; } 2>/dev/null; then
            ((++__parsec_unread))
            return 0
        fi
        __parsec_close
    fi
    __parsec_spool_line "$line"
}

# Appends to this shell's spool file: 0600 in the private directory, never through a symlink.
__parsec_spool_line() {
    local line=$1
    __parsec_dir_ok || return 0
    [[ ! -L $__parsec_spool ]] || return 0
    if [[ ! -e $__parsec_spool ]]; then
        [[ -d ${__parsec_spool%/*} ]] || command mkdir -m 700 -- "${__parsec_spool%/*}" 2>/dev/null
        (builtin umask 077 && : >>"$__parsec_spool") 2>/dev/null # once per file: a mode bash can set
        __parsec_session_start
        line="$REPLY"$'\n'"$line"
    fi
    { builtin printf '%s\n' "$line" >>"$__parsec_spool"; } 2>/dev/null
}

# A record whose command is in a file of its own (`command_file`, $1), written raw from
# __parsec_lines: the daemon reads both from the spool (parsec/daemon/hook_spool.py).
__parsec_spool_text() {
    __parsec_dir_ok || return 0
    local text=${__parsec_spool%/*}/$1
    [[ -d ${__parsec_spool%/*} ]] || command mkdir -m 700 -- "${__parsec_spool%/*}" 2>/dev/null
    [[ ! -e $text && ! -L $text ]] || return 0
    (builtin umask 077 && builtin printf '%s' "$__parsec_lines" >"$text") 2>/dev/null || return 0
    __parsec_spool_line "$2"
}

# True when this shell's reply FIFO is there (made on the first question: one fork per shell).
__parsec_reply_ready() {
    [[ -e $__parsec_reply || -L $__parsec_reply ]] || command mkfifo -m 600 -- "$__parsec_reply" 2>/dev/null
    [[ -p $__parsec_reply && ! -L $__parsec_reply && -O $__parsec_reply ]]
}

# A request that needs an answer (classify). Sets REPLY to the reply line; fails fast: it gets
# PARSEC_HOOK_TIMEOUT seconds to answer. Lines waiting in the shared FIFO (other shells') do not
# stop a question, but after one that timed out the daemon is not asked again until it has read
# the FIFO.
__parsec_request() {
    REPLY=
    __parsec_fits "$1" && __parsec_ready q && __parsec_reply_ready || return 1
    if ((__parsec_unanswered && __parsec_unread)); then return 1; fi
    # The reply FIFO is open before the question leaves, so the answer finds its reader.
    if __parsec_exchange "$1" 2>/dev/null 9<>"$__parsec_reply"; then
        __parsec_unanswered=0
        return 0
    fi
    [[ -n $__parsec_fd ]] || return 1 # the question was not sent
    __parsec_unanswered=1
    REPLY=
    return 1
}

# Sends question $1 and waits for its answer on fd 9 (the reply FIFO). An answer that comes
# after the FIFO is closed again finds no reader and is dropped by the daemon; one to an earlier
# question that timed out, written while a later one waits, is skipped. `read -t` costs about 2
# us a byte (bash sets a timer per byte read from a pipe), so only the first byte is read with
# the timeout: the daemon writes each answer whole in one write, the rest is there.
__parsec_exchange() {
    local id=$((++__parsec_qid)) first
    builtin printf '%s\n' "{\"id\":$id,\"reply_to\":\"${__parsec_reply##*/}\",${1#\{}" >&"$__parsec_fd" || { __parsec_close; return 1; }
    ((++__parsec_unread))
    while builtin read -r -t "$__parsec_reply_timeout" -N 1 -u 9; do
        [[ $REPLY != $'\n' ]] || continue
        first=$REPLY
        builtin read -r -u 9 || break
        REPLY=$first$REPLY
        [[ ! $REPLY =~ \"id\":\ ?${id}[,}] ]] || return 0
    done
    return 1
}

# ---- routing at Enter --------------------------------------------------------------------------

# What the first word of $1 resolves to: alias, keyword, function, builtin, file or none; the
# word itself in __parsec_word. (`type -t` would need $(...), a fork; these lookups are builtins.)
__parsec_builtins=" . : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait "
__parsec_first_word() {
    local word=${1#"${1%%[![:space:](]*}"} # without leading blanks and subshell parentheses
    word=${word%%[[:space:];|&<>()]*}
    __parsec_word=$word
    REPLY=none
    if [[ -z $word ]]; then return 0
    elif [[ $word == [A-Za-z_]*([A-Za-z0-9_])=* ]]; then REPLY=builtin # an assignment
    elif [[ -n ${BASH_ALIASES[$word]+x} ]]; then REPLY='alias'
    elif [[ $word == @(if|then|else|elif|fi|case|esac|for|select|while|until|do|done|function|time|'{'|'}'|'!'|'[['|coproc) ]]; then REPLY=keyword
    elif builtin declare -F -- "$word" >/dev/null 2>&1; then REPLY=function
    elif [[ $__parsec_builtins == *" $word "* ]]; then REPLY=builtin
    elif [[ $word == */* ]]; then [[ -x $word && ! -d $word ]] && REPLY='file'
    elif builtin type -P -- "$word" >/dev/null 2>&1; then REPLY='file'
    fi
    return 0
}

# A line is plainly a command, with no need to ask the daemon, when its first word resolves and
# it is one word, or uses shell syntax (| ; & < > $ =) or an option (" -x"). Prose never does both,
# but after a command that changes state the daemon decides even so: `set alias "m" for command
# "mplayer -loop 0"` has an option and would overwrite $1 (__parsec_state_changing, from
# `parsec init`: the classifier's list). So does a line with a command substitution, which the
# shell runs first: `help with \`git reset --hard\`` quotes code in a sentence.
__parsec_plain_command() {
    [[ $__parsec_kind != none ]] || return 1
    [[ $1 != *[[:space:]]*[![:space:]]* ]] && return 0 # one word
    [[ ${__parsec_state_changing-} != *" $__parsec_word "* ]] || return 1
    # shellcheck disable=SC2016 # a literal backtick and `$(`, not expansions
    [[ $1 != *'`'* && $1 != *'$('* ]] || return 1
    [[ $1 == *[\|\;\&\<\>\$=]* || $1 == *[[:space:]]-* ]]
}

# Whether bash would run $1 as it is, in __parsec_parses: `true`; `false` when it would reject it
# (a syntax error: `show disk usage (human readable)`) or ask for more (PS2) only because of an
# apostrophe inside a word (`what's using port 8080`), prose the classifier then sees; empty for
# a line the shell keeps for itself, unasked: a real unfinished command (an open quote, `(`,
# `$(`, `if`/`case`/`for` without its end, a trailing `|` or `&&`) or one that cannot be checked.
# A line ending in an odd number of `\` is never parsed here: `eval`ing it inside the `bind -x`
# handler leaves bash 5.2's parser joining the next line wrongly (the first word ran alone). The
# others are checked by defining, never running, a function whose body is the line; a line with
# a `}` (it could close that body and run the rest) or a here-document (it would upset the
# shell's own pending one) cannot be checked this way, so it goes to the shell too.
__parsec_parse_check() {
    __parsec_parses=
    local tail=${1##*[!\\]} # the trailing backslashes
    ((${#tail} % 2 == 0)) || return 0
    [[ ${1//\$\{/} != *\}* && $1 != *'<<'* ]] || return 0
    if __parsec_parses_as_is "$1"; then
        __parsec_parses=true
    elif [[ $REPLY == error ]]; then
        __parsec_parses=false
    elif [[ $1 == *[[:alnum:]]\'[[:alpha:]]* ]]; then # an apostrophe inside a word opened a quote?
        __parsec_parses_as_is "${1//[[:alnum:]]\'[[:alpha:]]/aaa}" || [[ $REPLY == error ]] || return 0
        __parsec_parses=false
    fi
    return 0
}

# True when $1 parses; else REPLY says why: `error` (bash would reject it) or `more` (it would
# continue it). Only a line that does not parse is checked again for bash's message (in C, in a
# private file: no fork): an unfinished line runs into the probe's closing `}` or its end.
__parsec_parses_as_is() {
    REPLY='more'
    if { builtin eval "__parsec_parse_probe() {
$1
}"; } 2>/dev/null; then
        builtin unset -f __parsec_parse_probe 2>/dev/null
        return 0
    fi
    __parsec_dir_ok || return 1
    local LC_ALL=C why='' probe=$__parsec_runtime/parse-$$
    [[ ! -L $probe ]] || return 1
    { builtin eval "__parsec_parse_probe() {
$1
}"; } 2>|"$probe" # (>|: the user's noclobber must not keep the message out)
    { builtin read -r -d '' why <"$probe"; : >|"$probe"; } 2>/dev/null # the message quotes the line
    [[ $why == *"unexpected token \`}'"* || $why == *'unexpected EOF'* || $why == *'unexpected end of file'* ]] || REPLY=error
    return 1
}

# Sets REPLY to the command line `parsec ask '<line>'` for $1 (without its leading blanks).
__parsec_ask_line() {
    local text=${1#"${1%%[![:space:]]*}"}
    REPLY="${PARSEC_ASK_COMMAND:-parsec ask} ${text@Q}"
}

# Rewrites READLINE_LINE to `parsec ask '<line>'`; that is what runs and what history keeps.
__parsec_make_ask() {
    __parsec_ask_line "$1"
    READLINE_LINE=$REPLY
    READLINE_POINT=${#READLINE_LINE}
    __parsec_routed=1
}

__parsec_feedback() { # $1 line, $2 first-word kind, $3 chosen
    __parsec_json "$1"
    __parsec_send "{\"v\":@PROTOCOL_VERSION@,\"type\":\"classify_feedback\",\"noreply\":true,\"session\":\"$__parsec_session\",\"text\":$REPLY,\"first_word\":\"$2\",\"chosen\":\"$3\"}"
}

# Bound to the first half of Enter (the second half is accept-line, or nothing after "edit").
__parsec_route() {
    local line=$READLINE_LINE
    if [[ ${__parsec_accept_bound:-1} != 1 ]]; then
        builtin bind '"\C-x\C-]\C-a": accept-line'
        __parsec_accept_bound=1
    fi
    # A command is running (PS0 has fired): this Enter belongs to its `read -e`, not to us.
    [[ -z ${__parsec_t0+x} ]] || return 0
    __parsec_hook_in
    if [[ -n ${__parsec_lines+x} ]]; then # a continuation line (PS2)
        __parsec_lines+=$'\n'$line
        return 0
    fi
    __parsec_lines=$line
    __parsec_cwd0=$PWD
    __parsec_kind=
    __parsec_routed=
    [[ ${PARSEC_DISABLE:-0} != 1 && $line == *[![:space:]]* ]] || return 0
    case $line in
    ' '*) return 0 ;;                         # private: never leaves the shell
    \\*) __parsec_overridden "${line#\\}" command; return 0 ;;          # forced to the shell
    'command '*) __parsec_overridden "${line#command }" command; return 0 ;;
    '?'*) __parsec_overridden "${line#\?}" prompt; __parsec_make_ask "${line#\?}"; return 0 ;; # forced to Parsec
    esac
    __parsec_fits "$line" || return 0 # a big paste runs as typed: too long to ask about
    __parsec_excluded "$line" && return 0
    __parsec_first_word "$line"
    __parsec_kind=$REPLY
    [[ ${PARSEC_HOOKS_ROUTE_PROMPTS:-1} == [1tT]* ]] || return 0
    __parsec_plain_command "$line" && return 0
    __parsec_parse_check "$line"
    [[ -n $__parsec_parses ]] || return 0
    __parsec_json "$line"
    local text=$REPLY
    __parsec_json "$PWD"
    __parsec_request "{\"v\":@PROTOCOL_VERSION@,\"type\":\"classify\",\"session\":\"$__parsec_session\",\"text\":$text,\"first_word\":\"$__parsec_kind\",\"parses\":$__parsec_parses,\"cwd\":$REPLY,\"shell\":\"bash\"}" || return 0
    [[ $REPLY =~ \"decision\":\ *\"([a-z]+)\" ]] || return 0
    # A line bash cannot run as it is becomes a prompt, or goes to bash as typed (its error, or
    # its continuation): never the one-key question.
    [[ $__parsec_parses == true || ${BASH_REMATCH[1]} == prompt ]] || return 0
    __parsec_last_line=$line __parsec_last_decision=${BASH_REMATCH[1]}
    case ${BASH_REMATCH[1]} in
    prompt) __parsec_make_ask "$line" ;;
    ambiguous) __parsec_ask_key "$line" ;;
    esac
    return 0
}

# The user typed again, with an override, a line the daemon had just sorted the other way
# (`\line` after it became a prompt, `?line` after it ran as a command): learn from it.
__parsec_overridden() { # $1 the line without its override, $2 what the user forced
    [[ -n ${__parsec_last_decision-} && $1 == "${__parsec_last_line-}" && $2 != "$__parsec_last_decision" ]] || return 0
    __parsec_last_decision=
    __parsec_first_word "$1"
    __parsec_feedback "$1" "$REPLY" "$2"
}

# One key for an ambiguous line: Enter/r runs it, a asks Parsec, anything else edits it. Type-ahead
# (__parsec_one_key) leaves the line to run as it would without Parsec, the keys unread for the
# next prompt. Not a line whose command changes state (`rm the old logs`): it never runs unasked,
# so its type-ahead is dropped and the question waits. The question shows the line (readline
# took it off the screen).
__parsec_ask_key() {
    local shown=${1//$'\n'/ } drop=
    [[ ${__parsec_state_changing-} == *" $__parsec_word "* ]] && drop=drop
    ((${#shown} <= 60)) || shown="${shown:0:57}..."
    __parsec_one_key $'\r\n\e[2mparsec: '"$shown"$'\n  command or question?\e[0m' \
        $'\e[2m  [Enter] run  [a] ask Parsec  [e] edit\e[0m ' $'\r\e[2K\e[1A\r\e[2K\e[1A' "$drop" || return 0
    case $REPLY in
    '' | r | R) __parsec_feedback "$1" "$__parsec_kind" command ;;
    a | A | '?')
        __parsec_feedback "$1" "$__parsec_kind" prompt
        __parsec_make_ask "$1"
        ;;
    *) # edit: keep the line, do not accept it
        builtin unset __parsec_lines
        builtin bind '"\C-x\C-]\C-a": redraw-current-line'
        __parsec_accept_bound=0
        ;;
    esac
}

# The one-key question (an ambiguous line's, the exit-127 offer): shows $1, then, once keys
# count, the legend $2, and reads one key into REPLY ('' for Enter); $3 takes it off the screen.
# Only a key typed after the question is shown answers it: keys typed before, or within the grace
# time after (nobody reads a question that fast; docs/hooks.md), are type-ahead: it fails, with
# the question gone and the keys left unread for the shell. With $4 = drop, type-ahead is read
# and dropped until the keyboard is quiet for the grace time, and then it asks.
__parsec_one_key() {
    local key=
    REPLY=
    [[ ${4-} == drop ]] || ! builtin read -t 0 -u 0 2>/dev/null || return 1
    builtin printf '%s' "$1" >&2
    if [[ ${4-} == drop ]]; then
        while builtin read -rsn1 -t 0.3 2>/dev/null; do builtin :; done # type-ahead: dropped
    elif __parsec_key_within_grace; then
        builtin printf '%s' "$3" >&2
        return 1
    fi
    builtin printf '%s' "$2" >&2
    builtin read -rsn1 key
    builtin printf '%s' "$3" >&2
    REPLY=$key
}

# True when a key arrives within the grace time (15 naps of 20 ms), without reading it. bash
# has no sleep builtin: the naps are reads from the reply FIFO (there: a question was just
# answered), open only for them.
__parsec_key_within_grace() {
    __parsec_naps 2>/dev/null 9<>"$__parsec_reply"
}
__parsec_naps() {
    local naps=15
    while ((naps--)); do
        builtin read -r -t 0.02 -u 9
        builtin read -t 0 -u 0 && return 0
    done
    return 1
}

# ---- recording ---------------------------------------------------------------------------------

# [privacy] exclude_commands, as `parsec init` wrote them (the ones an extended regex can test):
# a matching line is neither classified nor recorded. The daemon drops the others itself.
__parsec_excluded() {
    local re
    for re in "${__parsec_exclude[@]}"; do
        [[ $1 =~ $re ]] && return 0
    done
    return 1
}

# Parsec uninstalled under an open shell (`parsec init bash --uninstall` removed the hook file):
# the hook turns itself off without a word (nothing recorded, nothing spooled, no routing) and
# gives Ctrl-R and the up arrow back to readline. A stat per prompt. Only the keys still bound
# to Parsec's macros are given back: a tool loaded after it (atuin, fzf) keeps the key it took.
__parsec_installed() { [[ -z ${__parsec_hook_file-} || -e $__parsec_hook_file ]]; }
__parsec_leave() {
    PARSEC_DISABLE=1
    local map ours search='"\C-x\C-]f\C-x\C-]g"' up='"\C-x\C-]u\C-x\C-]g"'
    for map in emacs vi-insert; do
        ours=$(builtin bind -m "$map" -s 2>/dev/null) # the macros; once, on leaving
        [[ $ours == *"\"\\C-r\": $search"* ]] && builtin bind -m "$map" '"\C-r": reverse-search-history'
        [[ -n ${PARSEC_SEARCH_KEY-} && $ours == *"\"$PARSEC_SEARCH_KEY\": $search"* ]] \
            && builtin bind -m "$map" -r "$PARSEC_SEARCH_KEY"
        [[ $ours == *"\"\\e[A\": $up"* ]] && builtin bind -m "$map" '"\e[A": previous-history'
        [[ $ours == *"\"\\eOA\": $up"* ]] && builtin bind -m "$map" '"\eOA": previous-history'
    done
    return 0
}

# First in PROMPT_COMMAND (or bash-preexec's precmd_functions): records the command that just ran.
__parsec_precmd() {
    local status=$? pipe=("${PIPESTATUS[@]}")
    local now=$EPOCHREALTIME
    # Called by bash-preexec: PIPESTATUS is its own by now, BP_PIPESTATUS is the command's.
    if [[ ${FUNCNAME[1]-} == __bp_* ]]; then pipe=("${BP_PIPESTATUS[@]}"); fi
    if [[ ${PARSEC_DISABLE:-0} != 1 ]] && ! __parsec_installed; then __parsec_leave; fi
    __parsec_hook_in
    [[ $PS0 == *"$__parsec_ps0"* ]] || PS0+=$__parsec_ps0
    # A line run without our Enter (Atuin's Ctrl-R, operate-and-get-next): history has it.
    [[ -n ${__parsec_t0+x} && -z ${__parsec_lines+x} ]] && __parsec_line_from_history
    if [[ -n ${__parsec_t0+x} && -n ${__parsec_lines+x} ]]; then
        __parsec_record "$status" "$now" "${pipe[*]}"
    elif [[ -n ${PARSEC_OSC133-} ]]; then
        builtin printf '\e]133;D\a' >/dev/tty 2>/dev/null
    fi
    builtin unset __parsec_t0 __parsec_lines
    __parsec_histcmd=$HISTCMD __parsec_cwd0=$PWD __parsec_kind='' __parsec_routed=''
    [[ -n ${PARSEC_OSC133-} ]] && __parsec_osc_prompt
    __parsec_follow_cd
    # The command's status for what runs next in PROMPT_COMMAND; under `set -e` a non-zero
    # return would end the shell (bash restores $? for the prompt itself).
    [[ $- == *e* ]] || return "$status"
}

__parsec_record() { # $1 status, $2 now, $3 pipeline statuses
    local line=$__parsec_lines seq=
    if [[ ${PARSEC_DISABLE:-0} != 1 && -z $__parsec_routed && $line != ' '* && $line == *[![:space:]]* ]] \
        && ! __parsec_excluded "$line"; then
        seq=$((++__parsec_seq))
        local t0=$__parsec_t0 t1=${2//[.,]/} # microseconds (any locale's decimal mark)
        local cmd="" long=""
        if __parsec_fits "$line"; then
            __parsec_json "$line"
            cmd="\"command\":$REPLY"
        else # a big paste: escaping it would take seconds; it goes to the spool raw (docs/hooks.md)
            long="bash-$__parsec_session-$seq.txt"
            cmd="\"command_file\":\"$long\""
        fi
        __parsec_json "$__parsec_cwd0"
        local cwd=$REPLY
        [[ $PWD == "$__parsec_cwd0" ]] || __parsec_json "$PWD" # REPLY: cwd_after
        local statuses=$3
        local record="{\"v\":@PROTOCOL_VERSION@,\"type\":\"command_finished\",\"noreply\":true,\"session\":\"$__parsec_session\",\"seq\":$seq,$cmd,\"started_at\":${t0:0:-6}.${t0: -6},\"finished_at\":${t1:0:-6}.${t1: -6},\"duration_ms\":$(((t1 - t0) / 1000)),\"exit_status\":$1,\"pipeline_statuses\":[${statuses// /,}],\"cwd\":$cwd,\"cwd_after\":$REPLY}"
        if [[ -n $long ]]; then __parsec_spool_text "$long" "$record"; else __parsec_send "$record"; fi
    fi
    if [[ -n ${PARSEC_OSC133-} ]]; then
        builtin printf '\e]133;D;%s%s\a' "$1" "${seq:+;parsec=$__parsec_session:$seq}" >/dev/tty 2>/dev/null
    fi
    if [[ $1 == 127 && $__parsec_kind == none && $line == *[[:alpha:]]\ *[[:alpha:]]* && -z $__parsec_routed ]]; then
        __parsec_offer_ask "$line"
    fi
}

# After "command not found" on something the daemon says reads like prose (not a typo such as
# `gti status`): one key sends it to Parsec. No daemon, no offer.
__parsec_offer_ask() {
    [[ ${PARSEC_HOOKS_OFFER_PROMPT_ON_127:-1} == [1tT]* ]] || return 0
    __parsec_json "$1"
    __parsec_request "{\"v\":@PROTOCOL_VERSION@,\"type\":\"classify\",\"session\":\"$__parsec_session\",\"text\":$REPLY,\"first_word\":\"none\",\"after_127\":true}" || return 0
    [[ $REPLY =~ \"decision\":\ *\"prompt\" ]] || return 0
    __parsec_one_key $'\e[2mparsec: ask Parsec instead?' $' [y/N]\e[0m ' $'\r\e[2K' || return 0
    [[ $REPLY == [yY] ]] || return 0
    __parsec_feedback "$1" none prompt
    __parsec_ask_line "$1"
    local cmd=$REPLY
    builtin history -s -- "$cmd"
    builtin eval "$cmd"
}

# `parsec ask` leaves the workflow's final directory in PARSEC_CD_FILE; follow it.
__parsec_follow_cd() {
    [[ -s $PARSEC_CD_FILE && ! -L $PARSEC_CD_FILE ]] || return 0
    __parsec_dir_ok || return 0
    local dir=
    { builtin read -r dir <"$PARSEC_CD_FILE"; : >"$PARSEC_CD_FILE"; } 2>/dev/null
    [[ -n $dir && -d $dir && $dir != "$PWD" ]] && { builtin cd -- "$dir" || return 0; }
    return 0
}

__parsec_osc_prompt() {
    builtin printf '\e]133;A\a' >/dev/tty 2>/dev/null
    [[ $PS1 == *'133;B'* ]] || PS1+='\[\e]133;B\a\]'
}

# Keeps __parsec_precmd where it sees the command's $? and pipeline statuses: first in
# PROMPT_COMMAND, or in bash-preexec's precmd_functions when bash-preexec is loaded (it saves
# both for its functions). Runs at every prompt and every Enter, so a later
# `PROMPT_COMMAND=...` in an rc file or a prompt tool that put itself in front is repaired.
__parsec_hook_in() {
    if builtin declare -F __bp_precmd_invoke_cmd >/dev/null; then
        # First of the precmd functions (the end time), last of the preexec ones (the start
        # time, later than PS0's when other tools' preexec functions run), whatever the rc order.
        [[ ${precmd_functions[0]-} == __parsec_precmd ]] || precmd_functions=(__parsec_precmd "${precmd_functions[@]/#__parsec_precmd/}")
        [[ ${preexec_functions[*]: -1} == __parsec_preexec ]] || preexec_functions=("${preexec_functions[@]/#__parsec_preexec/}" __parsec_preexec)
        __parsec_pc_without
    elif [[ -n ${PROMPT_COMMAND+x} && ${PROMPT_COMMAND@a} == *a* ]]; then
        [[ ${PROMPT_COMMAND[0]-} == __parsec_precmd ]] && return 0
        __parsec_pc_without
        PROMPT_COMMAND=(__parsec_precmd "${PROMPT_COMMAND[@]}")
    else
        [[ ${PROMPT_COMMAND-} == __parsec_precmd* ]] && return 0
        __parsec_pc_without
        # shellcheck disable=SC2178
        PROMPT_COMMAND=__parsec_precmd$'\n'${PROMPT_COMMAND-}
    fi
}

__parsec_pc_without() {
    [[ ${PROMPT_COMMAND[*]-} == *__parsec_precmd* ]] || return 0
    if [[ ${PROMPT_COMMAND@a} == *a* ]]; then
        local -a rest=()
        local item
        for item in "${PROMPT_COMMAND[@]}"; do
            [[ $item == __parsec_precmd ]] || rest+=("$item")
        done
        PROMPT_COMMAND=("${rest[@]}")
    else
        local pc=${PROMPT_COMMAND[0]}
        pc=${pc//__parsec_precmd$'\n'/}
        pc=${pc//__parsec_precmd;/}
        # shellcheck disable=SC2178
        PROMPT_COMMAND=${pc//__parsec_precmd/}
    fi
}

# With bash-preexec: the latest point before the command runs, after the other tools' preexec
# functions (Atuin's forks a process). Only for a line PS0 has seen start.
__parsec_preexec() {
    [[ -z ${__parsec_t0+x} ]] || __parsec_t0=${EPOCHREALTIME//[.,]/}
}

# The line of a command run without our Enter, from history (one fork, on this rare path only),
# if history took a new line since the last prompt (else it was not kept: e.g. a leading space).
__parsec_line_from_history() {
    ((HISTCMD > ${__parsec_histcmd:-HISTCMD})) || return 0
    local line
    line=$(HISTTIMEFORMAT='' builtin history 1 2>/dev/null) || return 0
    [[ $line =~ ^\ *[0-9]+\*?\ \ (.*)$ ]] && __parsec_lines=${BASH_REMATCH[1]}
}

# ---- install -----------------------------------------------------------------------------------

# PS0 is expanded (in this shell, no fork) only when a command is about to run: the arithmetic
# assignment stores its start time in microseconds and the expansion prints nothing.
# shellcheck disable=SC2016
__parsec_ps0='${__parsec_empty:0:$((__parsec_t0=${EPOCHREALTIME//[.,]/}))}'
[[ -z ${PARSEC_OSC133-} ]] || __parsec_ps0+=$'\e]133;C\a'
PS0=${PS0-}$__parsec_ps0

__parsec_hook_in

for __parsec_map in emacs vi-insert vi-command; do
    # `"$_"`: the handler's last argument is the line's `$_`, so `$_` stays what the user had.
    # shellcheck disable=SC2016
    builtin bind -m "$__parsec_map" -x '"\C-x\C-]\C-r": __parsec_route "$_"'
    builtin bind -m "$__parsec_map" '"\C-x\C-]\C-a": accept-line'
    builtin bind -m "$__parsec_map" '"\C-m": "\C-x\C-]\C-r\C-x\C-]\C-a"'
    builtin bind -m "$__parsec_map" '"\C-j": "\C-x\C-]\C-r\C-x\C-]\C-a"'
done
builtin unset __parsec_map
if [[ -n ${PARSEC_OSC133-} ]]; then __parsec_osc_prompt; fi


# The session key, for `parsec history --session current` and `parsec ask` (the daemon derives the
# session id from it, and so can they: parsec/models/session_ids.py).
export PARSEC_SESSION=$__parsec_session

# ---- history search (Ctrl-R) ---------------------------------------------------------------------
# `parsec search` draws on /dev/tty and prints `run`, `edit` or `cancel`, a newline and the line.
# The key runs two internal sequences: the first calls __parsec_search (bind -x), which binds the
# second to Enter (so the chosen line goes through the same Enter path as a typed one: routing,
# recording) or to a redraw. [search] bind_ctrl_r = false leaves Ctrl-R alone; `key` binds another.
__parsec_search() {
    local out
    local bin=${PARSEC_BIN:-parsec} found=1
    if [[ $bin == */* ]]; then [[ -x $bin ]] || found=0; else builtin hash -- "$bin" 2>/dev/null || found=0; fi
    if ! __parsec_installed || ((!found)); then
        # Parsec is gone: this key press gets readline's own search (the key's second sequence).
        __parsec_installed || __parsec_leave
        if ((${#__parsec_search_args[@]})); then
            builtin bind '"\C-x\C-]g": previous-history'
        else
            builtin bind '"\C-x\C-]g": reverse-search-history'
        fi
        __parsec_search_args=()
        return 0
    fi
    # The typed line goes in the environment, not argv: other users can read argv.
    out=$(PARSEC_SEARCH_QUERY=$READLINE_LINE command "${PARSEC_BIN:-parsec}" search --session-key "$__parsec_session" \
        "${__parsec_search_args[@]}" </dev/tty 2>/dev/tty)
    builtin bind '"\C-x\C-]g": redraw-current-line'
    case ${out%%$'\n'*} in
    run) READLINE_LINE=${out#*$'\n'} READLINE_POINT=${#READLINE_LINE}; builtin bind '"\C-x\C-]g": "\C-m"' ;;
    edit) READLINE_LINE=${out#*$'\n'} READLINE_POINT=${#READLINE_LINE} ;;
    esac
    __parsec_search_args=()
}
__parsec_search_up() { __parsec_search_args=(--filter session); __parsec_search; }
__parsec_bind_search() {
    local map key keys=()
    [[ ${PARSEC_SEARCH_BIND_CTRL_R:-1} == [1tT]* ]] && keys+=('\C-r')
    [[ -n ${PARSEC_SEARCH_KEY-} ]] && keys+=("$PARSEC_SEARCH_KEY")
    for map in emacs vi-insert; do
        builtin bind -m "$map" -x '"\C-x\C-]f": __parsec_search'
        builtin bind -m "$map" -x '"\C-x\C-]u": __parsec_search_up'
        builtin bind -m "$map" '"\C-x\C-]g": redraw-current-line'
        for key in "${keys[@]}"; do
            builtin bind -m "$map" "\"$key\": \"\C-x\C-]f\C-x\C-]g\""
        done
        if [[ ${PARSEC_SEARCH_BIND_UP_ARROW:-0} == [1tT]* ]]; then
            builtin bind -m "$map" '"\e[A": "\C-x\C-]u\C-x\C-]g"'
            builtin bind -m "$map" '"\eOA": "\C-x\C-]u\C-x\C-]g"'
        fi
    done
}
__parsec_search_args=()
__parsec_bind_search

fi
if ((__parsec_aliases)); then \builtin shopt -s expand_aliases; fi
\builtin unset __parsec_aliases # the last status of the rc file is the first prompt's $?: 0
