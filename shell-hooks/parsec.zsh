# Parsec shell hook for zsh >= 5.1.   Load it from ~/.zshrc with:   eval "$(parsec init zsh)"
# A template: `parsec init` writes the protocol version (parsec/protocol/version.py) into the "v" of each message.
#
# Records every interactive command as one line written to the daemon's FIFO in the private
# runtime directory (zsh/system, no fork), or appends it to a spool file when the daemon is down
# or behind; routes the
# line at Enter (a wrapper around the accept-line widget); emits OSC 133 marks inside
# `parsec shell`. docs/hooks.md has the details. Every name starts with __parsec_.

# This file is a template: a message without the version `parsec init` writes in is refused by the
# daemon, so the file sourced as it is says so, once, and installs nothing.
if [[ -o interactive && ${PARSEC_DISABLE:-0} != 1 && -z ${__parsec_loaded-} && @PROTOCOL_VERSION@ != [0-9]* ]]; then
    builtin print -ru2 -- "parsec: load the hook with \`eval \"\$(parsec init zsh)\"\`, not ${${(%):-%x}:-the template} directly: nothing is recorded"
elif [[ -o interactive && ${PARSEC_DISABLE:-0} != 1 && -z ${__parsec_loaded-} ]] \
    && builtin zmodload zsh/datetime zsh/system zsh/zselect zsh/parameter 2>/dev/null \
    && builtin zmodload -F zsh/stat b:zstat 2>/dev/null; then # only zstat: a `stat` builtin would shadow the user's
typeset -g __parsec_loaded=1
(( ${+__parsec_exclude} )) || typeset -ga __parsec_exclude # set by `parsec init` from the config
[[ -e ${__parsec_hook_file-} ]] || typeset -g __parsec_hook_file= # no file to watch (__parsec_installed)

typeset -g __parsec_session="$$-${EPOCHREALTIME/,/.}"
typeset -gi __parsec_seq=0 __parsec_started=0 __parsec_autostart_at=0 __parsec_refused=0 __parsec_qid=0 __parsec_unread=0 __parsec_unanswered=0
typeset -g __parsec_parses= __parsec_fd= __parsec_rfd= __parsec_line= __parsec_t0= __parsec_cwd0= __parsec_kind= __parsec_word= __parsec_routed=
typeset -g __parsec_runtime
if [[ ${XDG_RUNTIME_DIR-} == /* ]]; then # as parsec.paths.runtime_dir(): TMPDIR only when absolute
    __parsec_runtime=$XDG_RUNTIME_DIR/parsec
elif [[ ${TMPDIR-} == /* ]]; then
    __parsec_runtime=${TMPDIR%/}/parsec-$UID
else
    __parsec_runtime=/tmp/parsec-$UID
fi
typeset -g __parsec_spool=$__parsec_runtime/spool/zsh-$__parsec_session.jsonl
typeset -g __parsec_fifo=$__parsec_runtime/hooks.fifo __parsec_reply=$__parsec_runtime/reply/$__parsec_session
typeset -g __parsec_reply_timeout=${PARSEC_HOOK_TIMEOUT:-0.15}
# `parsec ask` writes the workflow's final directory here; the shell follows it.
export PARSEC_CD_FILE=$__parsec_runtime/cd-$$

# ---- JSON --------------------------------------------------------------------------------------

# Sets REPLY to $1 as a JSON string literal.
__parsec_json() {
    builtin emulate -L zsh
    if [[ $1 != *[\\\"$'\x01'-$'\x1f\x7f']* ]]; then # most text needs no escaping
        REPLY="\"$1\""
        return 0
    fi
    local s=$1 out= c
    s=${s//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\n'/\\n}
    s=${s//$'\t'/\\t}
    s=${s//$'\r'/\\r}
    if [[ $s == *[$'\x01'-$'\x1f\x7f']* ]]; then # rare: other control characters
        for c in ${(s::)s}; do
            [[ $c == [$'\x01'-$'\x1f\x7f'] ]] && c=${(l:4::0:)$(( [##16] #c ))} && c="\\u$c"
            out+=$c
        done
        s=$out
    fi
    REPLY="\"$s\""
}

# ---- transport ---------------------------------------------------------------------------------
# Two FIFOs in the private runtime directory (docs/hooks.md, "Transport"), opened read-write so
# an open never blocks and a write never meets a missing reader (no SIGPIPE):
# __parsec_fd, the daemon's hooks.fifo, shared by every shell and opened non-blocking: one line
# per write, at most PIPE_BUF bytes, so the kernel never interleaves lines and a write into a full
# FIFO fails instead of waiting. While lines wait in the FIFO (the daemon has not read them yet) a
# shell adds at most 4 more, then spools: a hung, slow or gone daemon holds at most 4 lines of ours.
# __parsec_rfd, this shell's reply/<session>, made on the first question: the daemon answers
# there; a reply carries the question's id, so a late answer is never taken for the next one.

__parsec_close() {
    [[ -n $__parsec_fd ]] && builtin exec {__parsec_fd}>&-
    __parsec_fd=
    __parsec_started=0
    return 0
}

# Starts the daemon in the background, at most once a minute, silently; never after the user's
# `parsec daemon stop` (its marker lasts until `parsec daemon start` or a reboot).
__parsec_autostart() {
    [[ ${PARSEC_HOOKS_AUTOSTART_DAEMON:-1} == [1tT]* && ! -e $__parsec_runtime/daemon.stopped ]] || return 0
    (( EPOCHSECONDS - __parsec_autostart_at >= 60 )) || return 0
    __parsec_autostart_at=$EPOCHSECONDS
    local bin=${PARSEC_BIN:-${__parsec_bin:-parsec}} # __parsec_bin: written by `parsec init`
    (( $+commands[$bin] )) || [[ -x $bin ]] || return 0
    ( command $bin daemon start --auto </dev/null >/dev/null 2>&1 &! ) 2>/dev/null
}

# True when the runtime directory is a real directory (not a symlink), ours, mode 0700; it is
# created so when missing. Anything else (a /tmp/parsec-<uid> made by another local user to
# receive what we send) is refused for the life of this shell, and said once.
__parsec_dir_ok() {
    (( ! __parsec_refused )) || return 1
    local dir=$__parsec_runtime
    local -A st
    [[ -e $dir || -L $dir ]] || command mkdir -m 700 -- $dir 2>/dev/null
    if builtin zstat -L -H st -- $dir 2>/dev/null && (( st[uid] == EUID && (st[mode] & 8#170777) == 8#040700 )); then
        return 0
    fi
    __parsec_refused=1
    builtin print -ru2 -- "parsec: $dir is not a private directory of yours (a real directory you own, mode 0700): nothing is recorded"
    return 1
}

# True when the daemon's FIFO is open and keeping up: it is empty (the daemon has read everything
# sent before), or holds fewer than 4 lines written since it last was. Reopens it when the daemon
# made a new one (it restarted) and announces the session again.
__parsec_ready() {
    local -a ready
    [[ -n $__parsec_fd && ! $__parsec_fifo -ef /dev/fd/$__parsec_fd ]] && __parsec_close
    if [[ -z $__parsec_fd ]]; then
        __parsec_dir_ok || return 1
        if [[ ! -p $__parsec_fifo || -L $__parsec_fifo || ! -O $__parsec_fifo ]]; then
            __parsec_autostart
            return 1
        fi
        builtin sysopen -rw -o nonblock,nofollow,cloexec -u __parsec_fd -- $__parsec_fifo 2>/dev/null || { __parsec_fd=; return 1 }
        __parsec_unread=4 # until it is seen empty: a daemon killed with -9 may have left lines
    fi
    if ! builtin zselect -a ready -t 0 -r $__parsec_fd 2>/dev/null; then
        __parsec_unread=0
    elif [[ ${1-} != q ]] && (( __parsec_unread >= 4 )); then # q: a question, see __parsec_request
        __parsec_autostart
        return 1
    fi
    return 0
}

# True when $1 and its newline fit one atomic FIFO write (PIPE_BUF: 4096 bytes).
__parsec_fits() {
    (( ${#1} < 1024 )) && return 0 # at most 4 bytes a character
    setopt local_options no_multibyte # ${#1} counts bytes now
    (( ${#1} < 4096 ))
}

__parsec_session_start() {
    local env= name cwd user
    for name in SHELL TERM LANG LC_ALL EDITOR VISUAL PAGER VIRTUAL_ENV CONDA_DEFAULT_ENV TERM_PROGRAM; do
        [[ -n ${(P)name-} ]] || continue
        __parsec_json "${(P)name}"
        env+="${env:+,}\"$name\":$REPLY"
    done
    __parsec_json "$PWD"; cwd=$REPLY
    __parsec_json "${USER:-${LOGNAME-}}"; user=$REPLY
    local tty=null
    [[ -n ${TTY-} ]] && __parsec_json "$TTY" && tty=$REPLY
    __parsec_json "${HOST-}"
    REPLY="{\"v\":@PROTOCOL_VERSION@,\"type\":\"session_start\",\"noreply\":true,\"session\":\"$__parsec_session\",\"shell\":\"zsh\",\"pid\":$$,\"tty\":$tty,\"user\":$user,\"host\":$REPLY,\"cwd\":$cwd,\"env\":{$env}}"
}

# Sends one fire-and-forget line: to `parsec shell` when running inside it, else to the daemon's
# FIFO when it is keeping up, else to the spool.
__parsec_send() {
    if [[ -n ${PARSEC_PTY_FD-} ]]; then
        local first=
        if [[ -z ${__parsec_pty_started-} ]]; then
            __parsec_session_start
            first=$REPLY$'\n'
        fi
        if { builtin print -r -- "$first$1" >&$PARSEC_PTY_FD } 2>/dev/null; then
            typeset -g __parsec_pty_started=1
            return 0
        fi
    fi
    local line=$1
    if __parsec_fits "$line" && __parsec_ready; then
        if (( ! __parsec_started )); then
            __parsec_session_start
            if __parsec_fits "$REPLY"$'\n'"$line"; then line=$REPLY$'\n'$line
            elif __parsec_fits "$REPLY"; then builtin syswrite -o $__parsec_fd -- "$REPLY"$'\n' 2>/dev/null && (( ++__parsec_unread ))
            fi
            __parsec_started=1
        fi
        if builtin syswrite -o $__parsec_fd -- "$line"$'\n' 2>/dev/null; then
            (( ++__parsec_unread ))
            return 0
        fi
        line=$1  # the FIFO filled up since the check: the session is in the spool file's head
    fi
    __parsec_spool_line "$line"
}

# Appends to this shell's spool file: 0600 in the private directory, never through a symlink.
__parsec_spool_line() {
    local line=$1 fd
    __parsec_dir_ok || return 0
    if [[ ! -e $__parsec_spool && ! -L $__parsec_spool ]]; then
        [[ -d ${__parsec_spool:h} ]] || command mkdir -m 700 -- ${__parsec_spool:h} 2>/dev/null
        __parsec_session_start
        line="$REPLY"$'\n'"$line"
    fi
    builtin sysopen -a -o create,nofollow,cloexec -m 600 -u fd -- $__parsec_spool 2>/dev/null || return 0
    builtin print -r -u $fd -- "$line" 2>/dev/null
    builtin exec {fd}>&-
}

# A record whose command is in a file of its own (`command_file`, $1), written raw from
# __parsec_line: the daemon reads both from the spool (parsec/daemon/hook_spool.py).
__parsec_spool_text() {
    local fd
    __parsec_dir_ok || return 0
    [[ -d ${__parsec_spool:h} ]] || command mkdir -m 700 -- ${__parsec_spool:h} 2>/dev/null
    builtin sysopen -w -o create,excl,nofollow,cloexec -m 600 -u fd -- ${__parsec_spool:h}/$1 2>/dev/null || return 0
    builtin print -rn -u $fd -- "$__parsec_line" 2>/dev/null
    builtin exec {fd}>&-
    __parsec_spool_line "$2"
}

# Opens this shell's reply FIFO (made on the first question: one fork per shell).
__parsec_reply_ready() {
    if [[ -n $__parsec_rfd ]]; then
        [[ $__parsec_reply -ef /dev/fd/$__parsec_rfd ]] && return 0
        builtin exec {__parsec_rfd}>&-
        __parsec_rfd=
    fi
    [[ -e $__parsec_reply || -L $__parsec_reply ]] || command mkfifo -m 600 -- $__parsec_reply 2>/dev/null
    [[ -p $__parsec_reply && ! -L $__parsec_reply && -O $__parsec_reply ]] || return 1
    builtin sysopen -rw -o nofollow,cloexec -u __parsec_rfd -- $__parsec_reply 2>/dev/null || { __parsec_rfd=; return 1 }
}

# A request that needs an answer (classify). Sets REPLY to the reply line; fails fast: it gets
# PARSEC_HOOK_TIMEOUT seconds to answer. Lines waiting in the shared FIFO (other shells') do not
# stop a question, but after one that timed out the daemon is not asked again until it has read
# the FIFO.
__parsec_request() {
    REPLY=
    __parsec_fits "$1" && __parsec_ready q && __parsec_reply_ready || return 1
    (( __parsec_unanswered && __parsec_unread )) && return 1
    local id=$(( ++__parsec_qid ))
    builtin syswrite -o $__parsec_fd -- "{\"id\":$id,\"reply_to\":\"${__parsec_reply:t}\",${1#\{}"$'\n' 2>/dev/null || return 1
    (( ++__parsec_unread ))
    # Answers to earlier questions that timed out come first: skip them. One sysread takes what
    # is there (`read -t` would read it a byte at a time); each answer is one atomic write.
    local buf= chunk= line
    while builtin sysread -t $__parsec_reply_timeout -i $__parsec_rfd chunk 2>/dev/null; do
        buf+=$chunk
        while [[ $buf == *$'\n'* ]]; do
            line=${buf%%$'\n'*}
            buf=${buf#*$'\n'}
            [[ $line =~ "\"id\": ?${id}[,}]" ]] && { REPLY=$line; __parsec_unanswered=0; return 0 }
        done
    done
    __parsec_unanswered=1
    REPLY=
    return 1
}

# ---- routing at Enter --------------------------------------------------------------------------

# What the first word of $1 resolves to (like `whence -w`, without the $(...) fork); the word
# itself in __parsec_word.
__parsec_first_word() {
    local -a words=(${(z)${1##[[:space:](]#}})  # without leading blanks and subshell parentheses
    local word=${words[1]-}
    __parsec_word=$word
    REPLY=none
    if [[ -z $word ]]; then return 0
    elif [[ $word =~ '^[A-Za-z_][A-Za-z0-9_]*=' ]]; then REPLY=builtin # an assignment
    elif (( $+aliases[$word] )); then REPLY=alias
    elif (( ${reswords[(Ie)$word]} )); then REPLY=keyword
    elif (( $+functions[$word] )); then REPLY=function
    elif (( $+builtins[$word] )); then REPLY=builtin
    elif [[ $word == */* ]]; then [[ -x $word && ! -d $word ]] && REPLY=file
    elif (( $+commands[$word] )); then REPLY=file
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
    [[ $1 != *[[:space:]]*[^[:space:]]* ]] && return 0 # one word
    [[ ${__parsec_state_changing-} != *" $__parsec_word "* ]] || return 1
    [[ $1 != *'`'* && $1 != *'$('* ]] || return 1
    [[ $1 == *[\|\;\&\<\>\$=]* || $1 == *[[:space:]]-* ]]
}

# Whether zsh would run $1 as it is, in __parsec_parses: `true`; `false` when it would reject it
# (a parse error: `do not overwrite newer files`) or ask for more only because of an apostrophe
# inside a word (`what's using port 8080`), prose the classifier then sees; empty for a line the
# shell keeps for itself, unasked: a real unfinished command (an open quote, `(`, `$(`,
# `if`/`case`/`for` without its end, a trailing `|` or `&&`) or one that cannot be checked.
# Assigning a function body parses it without running it; it takes a trailing `\` as a literal
# and `while true`/`until true` without `do` as complete, so those are checked first: an odd
# number of trailing `\`, or a line led by a keyword that parses (shell syntax, never prose).
# Here-documents would upset the shell's own pending one: such lines go to the shell too.
__parsec_parse_check() {
    __parsec_parses=
    local tail=${1##*[^\\]} # the trailing backslashes
    (( ${#tail} % 2 == 0 )) && [[ $1 != *'<<'* ]] || return 0
    if __parsec_parses_as_is "$1"; then
        [[ $__parsec_kind == keyword ]] || __parsec_parses=true
    elif [[ $REPLY == error ]]; then
        __parsec_parses=false
    elif [[ $1 == *[[:alnum:]]\'[[:alpha:]]* ]]; then # an apostrophe inside a word opened a quote?
        __parsec_parses_as_is "${1//[[:alnum:]]\'[[:alpha:]]/aaa}" || [[ $REPLY == error ]] || return 0
        __parsec_parses=false
    fi
    return 0
}

# True when $1 parses; else REPLY says why: `error` (zsh would reject it) or `more` (it would
# continue it). Only a line that does not parse is checked again for zsh's message (in a
# private file: no fork): an unfinished line is unmatched, or its parse error is at its last word.
__parsec_parses_as_is() {
    REPLY=more
    builtin unset 'functions[__parsec_parse_probe]' 2>/dev/null
    { functions[__parsec_parse_probe]=$1 } 2>/dev/null
    if (( $+functions[__parsec_parse_probe] )); then
        builtin unset 'functions[__parsec_parse_probe]' 2>/dev/null
        return 0
    fi
    __parsec_dir_ok || return 1
    local why= probe=$__parsec_runtime/parse-$$ fd
    local -a words=(${(z)1})
    builtin sysopen -w -o create,truncate,nofollow,cloexec -m 600 -u fd -- $probe 2>/dev/null || return 1
    { functions[__parsec_parse_probe]=$1 } 2>&$fd
    builtin exec {fd}>&-
    builtin unset 'functions[__parsec_parse_probe]' 2>/dev/null
    { builtin read -r -d '' why <$probe; : >|$probe } 2>/dev/null # the message quotes the line
    [[ $why == *'unmatched '* || $why == *"parse error near \`${words[-1]-}'"* ]] || REPLY=error
    return 1
}

# Sets REPLY to the command line `parsec ask '<line>'` for $1 (without its leading blanks).
__parsec_ask_line() {
    builtin emulate -L zsh -o extendedglob # `#`: any number of blanks, whoever calls it
    local text=${1##[[:space:]]#}
    REPLY="${PARSEC_ASK_COMMAND:-parsec ask} ${(qq)text}"
}

__parsec_make_ask() {
    __parsec_ask_line "$1"
    BUFFER=$REPLY
    CURSOR=$#BUFFER
    __parsec_routed=1
}

__parsec_feedback() { # $1 line, $2 first-word kind, $3 chosen
    __parsec_json "$1"
    __parsec_send "{\"v\":@PROTOCOL_VERSION@,\"type\":\"classify_feedback\",\"noreply\":true,\"session\":\"$__parsec_session\",\"text\":$REPLY,\"first_word\":\"$2\",\"chosen\":\"$3\"}"
}

# Returns 1 when the user chose to edit the line instead of running it.
__parsec_route() {
    builtin emulate -L zsh
    builtin setopt extendedglob
    local line=$BUFFER
    __parsec_kind= __parsec_routed=
    [[ -z $PREBUFFER ]] || return 0                      # a continuation line
    [[ ${PARSEC_DISABLE:-0} != 1 && $line == *[^[:space:]]* ]] || return 0
    case $line in
    ([[:space:]]*) return 0 ;;                              # private: never leaves the shell
    (\\*) __parsec_overridden "${line#\\}" command; return 0 ;;  # forced to the shell
    ('command '*) __parsec_overridden "${line#command }" command; return 0 ;;
    ('?'*) __parsec_overridden "${line#\?}" prompt; __parsec_make_ask "${line#\?}"; return 0 ;;  # forced to Parsec
    esac
    __parsec_fits "$line" || return 0 # a big paste runs as typed: too long to ask about
    __parsec_excluded "$line" && return 0
    __parsec_first_word "$line"
    __parsec_kind=$REPLY
    [[ ${PARSEC_HOOKS_ROUTE_PROMPTS:-1} == [1tT]* ]] || return 0
    __parsec_plain_command "$line" && return 0
    __parsec_parse_check "$line"
    [[ -n $__parsec_parses ]] || return 0
    local text
    __parsec_json "$line"; text=$REPLY
    __parsec_json "$PWD"
    __parsec_request "{\"v\":@PROTOCOL_VERSION@,\"type\":\"classify\",\"session\":\"$__parsec_session\",\"text\":$text,\"first_word\":\"$__parsec_kind\",\"parses\":$__parsec_parses,\"cwd\":$REPLY,\"shell\":\"zsh\"}" || return 0
    [[ $REPLY =~ '"decision": *"([a-z]+)"' ]] || return 0
    # A line zsh cannot run as it is becomes a prompt, or goes to zsh as typed (its error, or
    # its continuation): never the one-key question.
    [[ $__parsec_parses == true || $match[1] == prompt ]] || return 0
    __parsec_last_line=$line __parsec_last_decision=$match[1]
    case $match[1] in
    (prompt) __parsec_make_ask "$line" ;;
    (ambiguous) __parsec_ask_key "$line" || return 1 ;;
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
# so its type-ahead is dropped and the question waits.
__parsec_ask_key() {
    local drop=
    [[ ${__parsec_state_changing-} == *" $__parsec_word "* ]] && drop=drop
    __parsec_one_key "parsec: command or question?" "  [Enter] run  [a] ask Parsec  [e] edit" $drop || return 0
    case $REPLY in
    ($'\r' | $'\n' | r | R) __parsec_feedback "$1" "$__parsec_kind" command ;;
    (a | A | '?') __parsec_feedback "$1" "$__parsec_kind" prompt; __parsec_make_ask "$1" ;;
    (*) return 1 ;;
    esac
    return 0
}

# The one-key question (an ambiguous line's, in zle; the exit-127 offer's, before the prompt):
# shows $1, then, once keys count, the legend $2 after it, and reads one key into REPLY. Only a
# key typed after the question is shown answers it: keys typed before, or within the grace time
# after (nobody reads a question that fast; docs/hooks.md), are type-ahead: it fails, with the
# question gone and the keys left unread for the shell. With $3 = drop, type-ahead is read and
# dropped until the keyboard is quiet for the grace time, and then it asks.
__parsec_one_key() {
    local key=
    REPLY=
    [[ ${3-} == drop ]] || ! __parsec_key_pending || return 1
    __parsec_show "$1"
    if [[ ${3-} == drop ]]; then
        while __parsec_key_within_grace; do builtin read -s -k 1 key; done # type-ahead: dropped
    elif __parsec_key_within_grace; then
        __parsec_show ""
        return 1
    fi
    __parsec_show "$1$2"
    builtin read -s -k 1 key
    __parsec_show ""
    REPLY=$key
}

# The question under the line being edited (in zle), or on the terminal's line (before the
# prompt); "" takes it away.
__parsec_show() {
    if builtin zle; then
        builtin zle -R "$1"
    elif [[ -n $1 ]]; then
        builtin print -rn -- $'\r\e[2K\e[2m'"$1"$'\e[0m ' >&2
    else
        builtin print -rn -- $'\r\e[2K' >&2
    fi
}

# True when a key is waiting: in zle its $PENDING (a widget's stdin is /dev/null). Before the
# prompt the terminal on stdin is in line mode, where a key shows only once its line is ended:
# a key of a line being typed is seen only by reading it (-k: one key, raw), and it is put back
# for the next prompt (print -z: the line editor starts with it; the keys after it follow).
__parsec_key_pending() {
    if builtin zle; then
        (( PENDING || KEYS_QUEUED_COUNT ))
    else
        builtin zselect -t 0 -r 0 2>/dev/null && return 0
        local key=
        builtin read -s -t 0 -k 1 key 2>/dev/null || return 1
        [[ $key == [$'\r\n'] ]] || builtin print -z -- "$key"
        return 0
    fi
}

# True when a key arrives within the grace time (15 naps of 20 ms), without reading it.
__parsec_key_within_grace() {
    local nap
    for nap in {1..15}; do
        builtin zselect -t 2 2>/dev/null
        __parsec_key_pending && return 0
    done
    return 1
}

__parsec_accept_line() {
    __parsec_route || return 0
    builtin zle __parsec_orig_accept_line -- "$@"
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

__parsec_preexec() {
    __parsec_line=${1:-$3}
    # First of the precmd functions (the end time), whatever the rc order; fixed here, not while
    # zsh runs through them.
    [[ ${precmd_functions[1]-} == __parsec_precmd ]] || precmd_functions=(__parsec_precmd ${precmd_functions:#__parsec_precmd})
    __parsec_t0=$EPOCHREALTIME
    __parsec_cwd0=$PWD
    [[ -n ${PARSEC_OSC133-} ]] && builtin print -rn -- $'\e]133;C\a' >/dev/tty 2>/dev/null
    return 0
}

# Parsec uninstalled under an open shell (`parsec init zsh --uninstall` removed the hook file):
# the hook turns itself off without a word (nothing recorded, nothing spooled, no routing) and
# gives Ctrl-R and the up arrow back to zle. A stat per prompt.
__parsec_installed() { [[ -z ${__parsec_hook_file-} || -e $__parsec_hook_file ]]; }
__parsec_leave() {
    typeset -g PARSEC_DISABLE=1
    local map
    for map in emacs viins; do
        # Only the keys still bound to Parsec's widgets: a tool loaded after it (atuin, fzf)
        # keeps the key it took.
        __parsec_bound_to $map '^R' __parsec_search_widget \
            && builtin bindkey -M $map '^R' history-incremental-search-backward
        [[ -n ${PARSEC_SEARCH_KEY-} ]] && __parsec_bound_to $map "$PARSEC_SEARCH_KEY" __parsec_search_widget \
            && builtin bindkey -M $map -r "$PARSEC_SEARCH_KEY"
        __parsec_bound_to $map '^[[A' __parsec_search_up_widget && builtin bindkey -M $map '^[[A' up-line-or-history
        __parsec_bound_to $map '^[OA' __parsec_search_up_widget && builtin bindkey -M $map '^[OA' up-line-or-history
    done
    return 0
}

# True when key $2 of keymap $1 runs widget $3 (`bindkey -M map key` says `"key" widget`).
__parsec_bound_to() {
    local bound
    bound=$(builtin bindkey -M $1 "$2" 2>/dev/null) # once, on leaving
    [[ ${bound##* } == $3 ]]
}

__parsec_precmd() {
    local exit_status=$? pipe=("${pipestatus[@]}")
    local now=$EPOCHREALTIME seq=
    builtin emulate -L zsh
    if [[ ${PARSEC_DISABLE:-0} != 1 ]] && ! __parsec_installed; then __parsec_leave; fi
    if [[ -n $__parsec_t0 ]]; then
        local line=$__parsec_line
        if [[ ${PARSEC_DISABLE:-0} != 1 && -z $__parsec_routed && $line != [[:space:]]* && $line == *[^[:space:]]* ]] \
            && ! __parsec_excluded "$line"; then
            seq=$(( ++__parsec_seq ))
            local cmd cwd long= duration=$(( (now - __parsec_t0) * 1000 ))
            if __parsec_fits "$line"; then
                __parsec_json "$line"; cmd="\"command\":$REPLY"
            else # a big paste: escaping it would take seconds; it goes to the spool raw (docs/hooks.md)
                long=zsh-$__parsec_session-$seq.txt
                cmd="\"command_file\":\"$long\""
            fi
            __parsec_json "$__parsec_cwd0"; cwd=$REPLY
            __parsec_json "$PWD"
            local record="{\"v\":@PROTOCOL_VERSION@,\"type\":\"command_finished\",\"noreply\":true,\"session\":\"$__parsec_session\",\"seq\":$seq,$cmd,\"started_at\":$__parsec_t0,\"finished_at\":$now,\"duration_ms\":${duration%.*},\"exit_status\":$exit_status,\"pipeline_statuses\":[${(j:,:)pipe}],\"cwd\":$cwd,\"cwd_after\":$REPLY}"
            if [[ -n $long ]]; then __parsec_spool_text $long "$record"; else __parsec_send "$record"; fi
        fi
        [[ -n ${PARSEC_OSC133-} ]] && builtin print -rn -- $'\e]133;D;'$exit_status${seq:+;parsec=$__parsec_session:$seq}$'\a' >/dev/tty 2>/dev/null
        if [[ $exit_status == 127 && $__parsec_kind == none && -z $__parsec_routed && $line == *[[:alpha:]]' '*[[:alpha:]]* ]]; then
            __parsec_offer_ask "$line"
        fi
    fi
    __parsec_t0= __parsec_line= __parsec_routed=
    # Last of the preexec functions (the start time, after other tools' own work).
    [[ ${preexec_functions[-1]-} == __parsec_preexec ]] || preexec_functions=(${preexec_functions:#__parsec_preexec} __parsec_preexec)
    [[ -n ${PARSEC_OSC133-} ]] && __parsec_osc_prompt
    __parsec_follow_cd
    return $exit_status
}

# After "command not found" on something the daemon says reads like prose (not a typo such as
# `gti status`): one key sends it to Parsec. No daemon, no offer.
__parsec_offer_ask() {
    [[ ${PARSEC_HOOKS_OFFER_PROMPT_ON_127:-1} == [1tT]* ]] || return 0
    __parsec_json "$1"
    __parsec_request "{\"v\":@PROTOCOL_VERSION@,\"type\":\"classify\",\"session\":\"$__parsec_session\",\"text\":$REPLY,\"first_word\":\"none\",\"after_127\":true}" || return 0
    [[ $REPLY =~ '"decision": *"prompt"' ]] || return 0
    __parsec_one_key "parsec: ask Parsec instead?" " [y/N]" || return 0
    [[ $REPLY == [yY] ]] || return 0
    __parsec_feedback "$1" none prompt
    __parsec_ask_line "$1"
    local cmd=$REPLY
    builtin print -s -r -- "$cmd"
    builtin eval "$cmd"
}

# `parsec ask` leaves the workflow's final directory in PARSEC_CD_FILE; follow it.
__parsec_follow_cd() {
    [[ -s $PARSEC_CD_FILE && ! -L $PARSEC_CD_FILE ]] || return 0
    __parsec_dir_ok || return 0
    local dir=
    { builtin read -r dir <$PARSEC_CD_FILE; : >$PARSEC_CD_FILE } 2>/dev/null
    [[ -n $dir && -d $dir && $dir != $PWD ]] && builtin cd -q -- $dir
    return 0
}

__parsec_osc_prompt() {
    builtin print -rn -- $'\e]133;A\a' >/dev/tty 2>/dev/null
    [[ $PS1 == *'133;B'* ]] || PS1+=$'%{\e]133;B\a%}'
}

# ---- install -----------------------------------------------------------------------------------

# First in precmd_functions so $? and $pipestatus are still the command's.
(( ${+precmd_functions} )) || typeset -ga precmd_functions
(( ${+preexec_functions} )) || typeset -ga preexec_functions
precmd_functions=(__parsec_precmd ${precmd_functions:#__parsec_precmd})
preexec_functions=(${preexec_functions:#__parsec_preexec} __parsec_preexec)

# Wrap whatever accept-line is now (the builtin, or another plugin's wrapper).
if [[ ${widgets[accept-line]-} == user:* ]]; then
    builtin zle -A accept-line __parsec_orig_accept_line
else
    builtin zle -A .accept-line __parsec_orig_accept_line
fi
builtin zle -N accept-line __parsec_accept_line
if [[ -n ${PARSEC_OSC133-} ]]; then __parsec_osc_prompt; fi


# The session key, for `parsec history --session current` and `parsec ask` (the daemon derives the
# session id from it, and so can they: parsec/models/session_ids.py).
export PARSEC_SESSION=$__parsec_session

# ---- history search (Ctrl-R) ---------------------------------------------------------------------
# `parsec search` draws on /dev/tty and prints `run`, `edit` or `cancel`, a newline and the line.
# Enter accepts through the accept-line widget (ours: routing and recording as for a typed line).
# [search] bind_ctrl_r = false leaves Ctrl-R alone; `key` binds another; bind_up_arrow the up arrow.
__parsec_search_widget() {
    local out
    local bin=${PARSEC_BIN:-parsec}
    [[ $bin == */* ]] || bin=${commands[$bin]-} # the command hash: no fork
    if ! __parsec_installed || [[ ! -x $bin ]]; then
        # Parsec is gone: this key press gets zle's own search.
        __parsec_installed || __parsec_leave
        if [[ -n $__parsec_search_args ]]; then builtin zle up-line-or-history; else builtin zle history-incremental-search-backward; fi
        __parsec_search_args=
        return 0
    fi
    # The typed line goes in the environment, not argv: other users can read argv.
    out=$(PARSEC_SEARCH_QUERY=$BUFFER command ${PARSEC_BIN:-parsec} search --session-key "$__parsec_session" \
        ${=__parsec_search_args} </dev/tty 2>/dev/tty)
    __parsec_search_args=
    case ${out%%$'\n'*} in
    run) BUFFER=${out#*$'\n'}; CURSOR=$#BUFFER; builtin zle accept-line ;;
    edit) BUFFER=${out#*$'\n'}; CURSOR=$#BUFFER; builtin zle redisplay ;;
    *) builtin zle redisplay ;;
    esac
}
__parsec_search_up_widget() { __parsec_search_args="--filter session"; __parsec_search_widget; }
typeset -g __parsec_search_args=
builtin zle -N __parsec_search_widget
builtin zle -N __parsec_search_up_widget
() {
    local map key
    local -a keys
    [[ ${PARSEC_SEARCH_BIND_CTRL_R:-1} == [1tT]* ]] && keys+=('^R')
    [[ -n ${PARSEC_SEARCH_KEY-} ]] && keys+=("$PARSEC_SEARCH_KEY")
    for map in emacs viins; do
        for key in $keys; do builtin bindkey -M $map "$key" __parsec_search_widget; done
        if [[ ${PARSEC_SEARCH_BIND_UP_ARROW:-0} == [1tT]* ]]; then
            builtin bindkey -M $map '^[[A' __parsec_search_up_widget
            builtin bindkey -M $map '^[OA' __parsec_search_up_widget
        fi
    done
    return 0
}

fi # the last status of the rc file is the first prompt's $?: this file ends with 0
