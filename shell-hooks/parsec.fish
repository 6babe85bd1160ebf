# Parsec shell hook for fish >= 3.1.   Load it from ~/.config/fish/config.fish with:
#     parsec init fish | source
# A template: `parsec init` writes the protocol version (parsec/protocol/version.py) into the "v" of each message.
#
# fish has no socket builtin and no way to open a file without blocking, so:
# - recording appends one JSON line per command to a spool file (a builtin redirection, no
#   fork); the daemon ingests the spool as it arrives (docs/hooks.md);
# - routing at Enter needs an answer from the daemon, so lines that are not plainly commands
#   ask it through one short `bash` helper (FIFOs in the private runtime directory); plain
#   commands fork nothing.
# Every name starts with __parsec_.

# Only interactive shells, once, and not when disabled (`return` ends a sourced file).
if not status is-interactive; or set -q __parsec_loaded; or test "$PARSEC_DISABLE" = 1
    return 0
end
# This file is a template: a message without the version `parsec init` writes in is refused by the
# daemon, so the file sourced as it is says so, once, and installs nothing.
if string match -qr '^@' -- '@PROTOCOL_VERSION@'
    builtin printf 'parsec: load the hook with `parsec init fish | source`, not %s directly: nothing is recorded\n' (status filename) >&2
    return 0
end
set -g __parsec_loaded 1
test -e "$__parsec_hook_file"; or set -g __parsec_hook_file '' # no file to watch (__parsec_installed)

# Loading forks nothing where it can help it (a fork costs fish several ms of start-up).
if string match -q '/*' -- "$XDG_RUNTIME_DIR" # as parsec.paths.runtime_dir(): TMPDIR only when absolute
    set -g __parsec_runtime $XDG_RUNTIME_DIR/parsec
else if string match -q '/*' -- "$TMPDIR"
    set -g __parsec_runtime (string replace -r '/$' '' -- "$TMPDIR")/parsec-(id -u)
else
    set -g __parsec_runtime /tmp/parsec-(id -u)
end
# The session is `<pid>-<start time>`; the start time is the boot time plus this process's start
# in clock ticks (USER_HZ, 100 on Linux), both read by builtins, else `date`.
function __parsec_start_time
    set -l boot (string match -r '^btime [0-9]+$' </proc/stat 2>/dev/null | string replace 'btime ' '')
    read -l stat </proc/self/stat 2>/dev/null
    set -l ticks (string split ' ' -- (string replace -r '.*\) ' '' -- "$stat"))[20]
    if string match -qr '^[0-9]+$' -- "$boot"; and string match -qr '^[0-9]+$' -- "$ticks"
        builtin math -s2 "$boot + $ticks / 100"
    else
        command date +%s.%N
    end
end
set -g __parsec_session $fish_pid-(__parsec_start_time)
builtin functions -e __parsec_start_time
set -g __parsec_seq 0
set -g __parsec_spool $__parsec_runtime/spool/fish-$__parsec_session.jsonl
set -g __parsec_kind ''
set -g __parsec_routed ''
set -g __parsec_cwd0 $PWD
set -gx PARSEC_CD_FILE $__parsec_runtime/cd-$fish_pid
set -g __parsec_fifo $__parsec_runtime/hooks.fifo
set -g __parsec_reply $__parsec_runtime/reply/$__parsec_session
set -g __parsec_qid 0

set -g __parsec_unanswered 0 # 1: the last question got no answer (a hung or busy daemon)

# The classify round trip, run only for lines that might be prose: bash can wait on a FIFO with a
# timeout. It reads the question from its stdin, writes it to the daemon's FIFO (only once the
# daemon has read everything before it, waiting at most $5 times 10 ms for that) and reads the
# answer with the question's id from this shell's reply FIFO.
set -g __parsec_classify_sh '
IFS= read -r request || exit 1
exec 3<>"$1" 4<>"$2" || exit 1
for ((i = 0; i < ${5:-5}; i++)); do read -t 0 -u 3 || break; read -t 0.01 -u 4 _; done
read -t 0 -u 3 && exit 1
printf "%s\n" "{\"id\":$3,\"reply_to\":\"${2##*/}\",${request#\{}" >&3 || exit 1
while read -r -t "${4:-0.15}" -u 4 reply; do
    [[ $reply =~ \"id\":\ ?$3[,}] ]] || continue
    [[ $reply =~ \"decision\":\ *\"([a-z]+)\" ]] && printf %s "${BASH_REMATCH[1]}"
    exit 0
done
exit 1'

# A PARSEC_HOOKS_* switch is on when unset or empty, or when it starts with 1, t or T (as in bash
# and zsh: `${VAR:-1} == [1tT]*`).
function __parsec_switch_on --argument-names value
    test -z "$value"; or string match -qr '^[1tT]' -- $value
end

# ---- JSON --------------------------------------------------------------------------------------

function __parsec_json --description 'print $argv[1] as a JSON string literal'
    set -l s $argv[1]
    if string match -qr '[\\\\"\x01-\x1f\x7f]' -- $s # most text needs no escaping: skip the work
        set s (string replace -a '\\' '\\\\' -- $s | string replace -a '"' '\\"' | string replace -a \t '\\t' | string replace -a \r '\\r' | string join '\n')
        # Other control characters are kept, escaped, so the text is stored exactly as typed.
        if string match -qr '[\x01-\x1f\x7f]' -- "$s"
            for code in 01 02 03 04 05 06 07 08 0b 0c 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 7f
                set s (string replace -a -- (builtin printf "\x$code") "\\u00$code" "$s")
            end
        end
    end
    builtin printf '"%s"' "$s"
end

# ---- transport: the spool ----------------------------------------------------------------------

# True when the runtime directory is a real directory (not a symlink), ours, mode 0700; it is
# created so when missing. Anything else (a /tmp/parsec-<uid> made by another local user to
# receive what we send) is refused for the life of this shell, and said once.
function __parsec_dir_ok
    test "$__parsec_private" != 0; or return 1
    set -l dir $__parsec_runtime
    test -e $dir; or test -L $dir; or command mkdir -m 700 -- $dir 2>/dev/null
    if test -d $dir; and not test -L $dir; and test -O $dir
        test "$__parsec_private" = 1; and return 0
        # Once per shell: fish cannot read a mode.
        if string match -qr '^drwx------[ .]' -- (command ls -ldn -- $dir 2>/dev/null)
            set -g __parsec_private 1
            return 0
        end
    end
    set -g __parsec_private 0
    builtin printf 'parsec: %s is not a private directory of yours (a real directory you own, mode 0700): nothing is recorded\n' $dir >&2
    return 1
end

function __parsec_send --description 'hand one JSON line to `parsec shell`, or append it to the spool'
    if set -q PARSEC_PTY_FD; and string match -qr '^[0-9]+$' -- $PARSEC_PTY_FD
        if not set -q __parsec_pty_started
            __parsec_session_start >&$PARSEC_PTY_FD 2>/dev/null
        end
        if builtin printf '%s\n' $argv[1] >&$PARSEC_PTY_FD 2>/dev/null
            set -g __parsec_pty_started 1
            return 0
        end
    end
    __parsec_spool_line $argv[1]
end

function __parsec_spool_line --description 'append one JSON line to the spool file: 0600 in the private directory, never through a symlink'
    __parsec_dir_ok; or return 0
    test -L $__parsec_spool; and return 0
    if not test -e $__parsec_spool
        test -d $__parsec_runtime/spool; or command mkdir -m 700 -- $__parsec_runtime/spool 2>/dev/null
        # $umask is what fish's umask function sets: set here, without that function (it
        # calls `count` and `contains`, which a user's function of the same name would replace).
        set -l mask $umask
        set -g umask 0077
        __parsec_session_start >>$__parsec_spool 2>/dev/null
        set -g umask $mask
    end
    builtin printf '%s\n' $argv[1] >>$__parsec_spool 2>/dev/null
end

# A command's text in a file of its own beside the spool (`command_file`), written raw: the
# daemon reads both (parsec/daemon/hook_spool.py).
function __parsec_spool_text --argument-names name text
    __parsec_dir_ok; or return 1
    set -l path $__parsec_runtime/spool/$name
    test -d $__parsec_runtime/spool; or command mkdir -m 700 -- $__parsec_runtime/spool 2>/dev/null
    test -e $path; or test -L $path; and return 1
    set -l mask $umask # (as in __parsec_spool_line)
    set -g umask 0077
    builtin printf '%s' $text >$path 2>/dev/null
    set -l written $status
    set -g umask $mask
    return $written
end

function __parsec_session_start
    set -l env
    for name in SHELL TERM LANG LC_ALL EDITOR VISUAL PAGER VIRTUAL_ENV CONDA_DEFAULT_ENV TERM_PROGRAM
        set -q $name; and test -n "$$name"; or continue
        set -a env "\"$name\":"(__parsec_json "$$name")
    end
    builtin printf '{"v":@PROTOCOL_VERSION@,"type":"session_start","noreply":true,"session":"%s","shell":"fish","pid":%s,"tty":null,"user":%s,"host":%s,"cwd":%s,"env":{%s}}\n' \
        $__parsec_session $fish_pid (__parsec_json "$USER") (__parsec_json "$hostname") (__parsec_json "$PWD") (string join , -- $env)
end

# Starts the daemon in the background, at most once a minute, when its socket is missing; never
# after the user's `parsec daemon stop` (its marker lasts until `parsec daemon start` or a reboot).
# $argv[1] is the time now, in epoch seconds (fish has no clock builtin, `date` would fork).
function __parsec_autostart --argument-names now
    test -S $__parsec_runtime/daemon.sock; and return 0
    test -e $__parsec_runtime/daemon.stopped; and return 0
    test -n "$now"; or return 0
    __parsec_switch_on "$PARSEC_HOOKS_AUTOSTART_DAEMON"; or return 0
    test (builtin math "$now - 0$__parsec_autostart_at") -ge 60; or return 0
    set -g __parsec_autostart_at $now
    set -l bin parsec
    set -q __parsec_bin; and set bin $__parsec_bin # written by `parsec init`
    set -q PARSEC_BIN; and set bin $PARSEC_BIN
    command -q $bin; or return 0
    command $bin daemon start --auto </dev/null >/dev/null 2>&1 &
    disown 2>/dev/null
end

# ---- routing at Enter --------------------------------------------------------------------------

# A line is plainly a command, with no need to ask the daemon, when its first word resolves and
# it is one word, or uses shell syntax (| ; & < > $ =) or an option (" -x"). Prose never does both,
# but after a command that changes state the daemon decides even so: `set alias "m" for command
# "mplayer -loop 0"` has an option and would overwrite $1 (__parsec_state_changing, from
# `parsec init`: the classifier's list).
function __parsec_plain_command --argument-names line kind word
    test $kind != none; or return 1
    string match -qr '^\s*\S+\s*$' -- $line; and return 0 # one word
    builtin contains -- $word $__parsec_state_changing; and return 1
    string match -qr '[|;&<>$=]|\s-' -- $line
end

function __parsec_make_ask --argument-names line
    set -l ask parsec ask
    set -q PARSEC_ASK_COMMAND; and set ask $PARSEC_ASK_COMMAND
    builtin commandline -r -- "$ask "(string escape -- (string trim -- $line))
    set -g __parsec_routed 1
end

function __parsec_feedback --argument-names line kind chosen
    __parsec_send (builtin printf '{"v":@PROTOCOL_VERSION@,"type":"classify_feedback","noreply":true,"session":"%s","text":%s,"first_word":"%s","chosen":"%s"}' \
        $__parsec_session (__parsec_json "$line") $kind $chosen)
end

function __parsec_enter --description 'Parsec: route the line, then run it'
    set -l line (builtin commandline | string collect)
    set -g __parsec_kind ''
    set -g __parsec_routed ''
    # Incomplete (a block still open): let fish insert the newline.
    builtin commandline --is-valid
    set -l validity $status # 0 parses, 1 a syntax error, 2 incomplete
    if test $validity -eq 2; and not __parsec_open_by_apostrophe $line
        builtin commandline -f execute
        return
    end
    if test "$PARSEC_DISABLE" != 1; and string match -qr '\S' -- $line; and not string match -qr '^\s' -- $line
        if string match -q '\?*' -- $line
            __parsec_overridden (string sub -s 2 -- $line) prompt
            __parsec_make_ask (string sub -s 2 -- $line)
        else if string match -qr '^(\\\\|command )' -- $line
            __parsec_overridden (string replace -r '^(\\\\|command )' '' -- $line) command
        else if not __parsec_unfinished $line
            # A line fish cannot run as it is (a syntax error, or a quote opened by an
            # apostrophe inside a word: `what's new`) is asked about too: prose the classifier
            # then sees, told it does not parse.
            set -l parses true
            test $validity -eq 0; or set parses false
            __parsec_route $line $parses
            or return # the user chose to edit
        end
    end
    builtin commandline -f execute
end

# True when the line is incomplete only because an apostrophe inside a word opened a quote
# (`what's using port 8080`): the same line with those apostrophes as letters is not incomplete
# (fish checks only its own command line, so the buffer holds that copy for a moment).
function __parsec_open_by_apostrophe --argument-names line
    string match -qr "[[:alnum:]]'[[:alpha:]]" -- $line; or return 1
    set -l cursor (builtin commandline -C)
    builtin commandline -r -- (string replace -ar "([[:alnum:]])'([[:alpha:]])" '${1}a$2' -- $line | string collect)
    builtin commandline --is-valid
    set -l validity $status
    builtin commandline -r -- $line
    builtin commandline -C $cursor
    test $validity -ne 2
end

# Lines that go to fish unasked: a line ending in an odd number of `\` (fish continues it,
# though `commandline --is-valid` says 1 there) and a block typed over several lines (shell
# syntax, never prose). A real unfinished command (validity 2) never gets here.
function __parsec_unfinished --argument-names line
    set -l tail (string match -r -- '\\\\*$' $line) # the trailing backslashes
    test (builtin math (string length -- "$tail") % 2) -eq 1; and return 0
    string match -q -- "*"\n"*" $line
end

# The user typed again, with an override, a line the daemon had just sorted the other way
# (`\line` after it became a prompt, `?line` after it ran as a command): learn from it.
function __parsec_overridden --argument-names line chosen
    test -n "$__parsec_last_decision"; and test "$line" = "$__parsec_last_line"; and test "$chosen" != "$__parsec_last_decision"
    or return 0
    set -g __parsec_last_decision ''
    set -l word (string split -n -m1 ' ' -- (string trim -- $line))[1]
    __parsec_feedback $line (builtin type -t -- $word 2>/dev/null; or builtin echo none)[1] $chosen
end

# The one-key question (an ambiguous line's, the exit-127 offer): shows $question, then, once
# keys count, the legend after it, and prints the key read ('' for Enter). Only a key typed after
# the question is shown answers it: keys typed before, or within the grace time after (nobody
# reads a question that fast; docs/hooks.md), are type-ahead: it fails, with the question taken
# off by $erase and the keys left unread for the shell. With $drop = drop, type-ahead is read and
# dropped until the keyboard is quiet for the grace time, and then it asks.
function __parsec_one_key --argument-names question legend erase drop
    test "$drop" = drop; or not __parsec_input_pending; or return 1
    builtin printf '%s' $question >&2
    if test "$drop" = drop
        command bash --noprofile --norc -c 'while read -rsn1 -t 0.3; do :; done' 2>/dev/null # type-ahead: dropped
    else if __parsec_key_within_grace
        builtin printf '%s' $erase >&2
        return 1
    end
    read -n 1 -P (string trim -l -c \n -- $question)"$legend " -l key
    builtin printf '%s' $key
end

# True when keys are waiting on the terminal. fish cannot poll its input, so one bash does
# (only before the one-key question, which is rare).
function __parsec_input_pending
    command bash --noprofile --norc -c 'read -t 0' 2>/dev/null
end

# True when a key arrives within the grace time (15 naps of 20 ms, reads from a pipe nobody
# writes to), without reading it.
function __parsec_key_within_grace
    command bash --noprofile --norc -c 'exec 9<> <(:); for nap in {1..15}; do read -t 0.02 -u 9; read -t 0 && exit 0; done; exit 1' 2>/dev/null
end

function __parsec_ask_daemon --argument-names request --description 'one classify round trip: print the decision'
    set -l timeout 0.15
    set -q PARSEC_HOOK_TIMEOUT; and set timeout $PARSEC_HOOK_TIMEOUT
    __parsec_dir_ok; and test -p $__parsec_fifo; and not test -L $__parsec_fifo; and test -O $__parsec_fifo; or return 1
    test (string length -- $request) -lt 1000; or return 1 # one atomic FIFO write (4096 bytes)
    test -e $__parsec_reply; or test -L $__parsec_reply; or command mkfifo -m 600 -- $__parsec_reply 2>/dev/null
    test -p $__parsec_reply; and not test -L $__parsec_reply; and test -O $__parsec_reply; or return 1
    set -g __parsec_qid (builtin math $__parsec_qid + 1)
    # After a question with no answer, no waiting for the daemon to catch up: a hung daemon costs
    # one timeout, then only a look at its FIFO, until it answers again (as in bash and zsh).
    set -l waits 5
    test $__parsec_unanswered = 1; and set waits 0
    # The request (the typed line) on the helper's stdin, never in its argv: any local user can read
    # /proc/PID/cmdline.
    if builtin printf '%s\n' $request | command bash --noprofile --norc -c $__parsec_classify_sh parsec-classify $__parsec_fifo $__parsec_reply $__parsec_qid $timeout $waits 2>/dev/null
        set -g __parsec_unanswered 0
    else
        set -g __parsec_unanswered 1
        return 1
    end
end

# [privacy] exclude_commands, as `parsec init` wrote them (fish's regexes are PCRE2, like
# Python's): a matching line is neither classified nor recorded.
function __parsec_excluded --argument-names line
    for re in $__parsec_exclude
        string match -qr -- $re $line 2>/dev/null; and return 0
    end
    return 1
end

# $parses: `false` for a line fish cannot run as it is, which becomes a prompt or goes to fish as
# typed (its error, or its continuation): never the one-key question.
function __parsec_route --argument-names line parses
    test (string length -- $line) -lt 1000; or return 0 # a big paste runs as typed: too long to ask about
    __parsec_excluded $line; and return 0
    set -l word (string split -n -m1 ' ' -- (string trim -- $line))[1]
    set -g __parsec_kind (builtin type -t -- $word 2>/dev/null; or builtin echo none)[1]
    __parsec_switch_on "$PARSEC_HOOKS_ROUTE_PROMPTS"; or return 0
    __parsec_plain_command $line $__parsec_kind $word; and return 0
    test -p $__parsec_fifo; and __parsec_dir_ok; or return 0 # no daemon: do not start a helper to find out
    set -l request (builtin printf '{"v":@PROTOCOL_VERSION@,"type":"classify","session":"%s","text":%s,"first_word":"%s","parses":%s,"cwd":%s,"shell":"fish"}' \
        $__parsec_session (__parsec_json "$line") $__parsec_kind $parses (__parsec_json "$PWD"))
    set -l decision (__parsec_ask_daemon $request)
    test $parses = true; or test "$decision" = prompt; or set decision ''
    set -g __parsec_last_line $line
    set -g __parsec_last_decision $decision
    switch "$decision"
        case prompt
            __parsec_make_ask $line
        case ambiguous
            # Type-ahead (__parsec_one_key) leaves the line to run as without Parsec, the keys
            # unread for the next prompt. Not a line whose command changes state (`rm the old
            # logs`): it never runs unasked, so its type-ahead is dropped and the question waits.
            set -l drop (builtin contains -- $word $__parsec_state_changing; and builtin echo drop)
            set -l key (__parsec_one_key \n'parsec: command or question?' '  [Enter] run  [a] ask Parsec  [e] edit' \r\e'[2K'\e'[1A' "$drop")
            or return 0
            switch "$key" # (quoted: `?` alone is a wildcard even in a case)
                case '' r R
                    __parsec_feedback $line $__parsec_kind command
                case a A '\?'
                    __parsec_feedback $line $__parsec_kind prompt
                    __parsec_make_ask $line
                case '*'
                    builtin commandline -f repaint
                    return 1
            end
    end
    return 0
end

# ---- recording ---------------------------------------------------------------------------------

function __parsec_preexec --on-event fish_preexec
    set -g __parsec_cwd0 $PWD
    # The command's own start, as seconds since boot (a builtin read, no fork): fish has no clock
    # builtin, and its history holds the previous line's time until this one is saved.
    set -g __parsec_up0 ''
    read -l up rest </proc/uptime 2>/dev/null; and set -g __parsec_up0 $up
    set -q PARSEC_OSC133; and builtin printf '\e]133;C\a' >/dev/tty 2>/dev/null
end

# Parsec uninstalled under an open shell (`parsec init fish --uninstall` removed the hook file):
# the hook turns itself off without a word (nothing recorded, nothing spooled, no routing) and
# gives Ctrl-R and the up arrow back to fish. A stat per command.
function __parsec_installed
    test -z "$__parsec_hook_file"; or test -e "$__parsec_hook_file"
end

function __parsec_leave
    set -g PARSEC_DISABLE 1
    # Only the keys still bound to Parsec's search: a tool loaded after it (atuin, fzf) keeps the
    # key it took.
    for mode in default insert
        for key in $__parsec_search_keys \e\[A \eOA
            builtin bind -M $mode $key 2>/dev/null | string match -q -- '*__parsec_search*'
            and builtin bind -M $mode -e $key 2>/dev/null
        end
    end
    set -g __parsec_search_keys
end

function __parsec_postexec --on-event fish_postexec
    set -l exit_status $status
    set -l pipe $pipestatus
    set -l duration $CMD_DURATION
    set -l line $argv[1]
    set -l seq ''
    test "$PARSEC_DISABLE" = 1; or __parsec_installed; or __parsec_leave
    if test "$PARSEC_DISABLE" != 1; and test -z "$__parsec_routed"; and string match -qr '\S' -- $line; and not string match -qr '^\s' -- $line
        and not __parsec_excluded $line
        set -g __parsec_seq (builtin math $__parsec_seq + 1)
        set seq $__parsec_seq
        set -l started (__parsec_started_at $duration)
        set -l started_field ''
        test -n "$started"; and set started_field "\"started_at\":$started,"
        set -l command_field
        set -l long
        if test (string length -- $line) -lt 1000
            set command_field '"command":'(__parsec_json "$line")
        else # a big paste: escaping it would take seconds; it goes to the spool raw (docs/hooks.md)
            set long fish-$__parsec_session-$seq.txt
            set command_field "\"command_file\":\"$long\""
            __parsec_spool_text $long $line; or set command_field '"command":""'
        end
        set -l record (builtin printf '{"v":@PROTOCOL_VERSION@,"type":"command_finished","noreply":true,"session":"%s","seq":%s,%s,%s"duration_ms":%s,"exit_status":%s,"pipeline_statuses":[%s],"cwd":%s,"cwd_after":%s}' \
            $__parsec_session $seq $command_field "$started_field" $duration $exit_status \
            (string join , -- $pipe) (__parsec_json "$__parsec_cwd0") (__parsec_json "$PWD"))
        if test -n "$long" # only the daemon's spool reader knows command_file
            __parsec_spool_line $record
        else
            __parsec_send $record
        end
        __parsec_autostart $started
    end
    if test $exit_status -eq 127; and test "$__parsec_kind" = none; and test -z "$__parsec_routed"
        and string match -qr '[[:alpha:]]\s+\S*[[:alpha:]]' -- $line
        __parsec_offer_ask $line
    end
    if set -q PARSEC_OSC133
        builtin printf '\e]133;D;%s%s\a' $exit_status (test -n "$seq"; and builtin printf ';parsec=%s:%s' $__parsec_session $seq) >/dev/tty 2>/dev/null
    end
    set -g __parsec_routed ''
    __parsec_follow_cd
end

# When the command started, in epoch seconds: the uptime its preexec read plus the wall clock's
# offset from it, taken once per shell (one fork, after its first command). Without /proc/uptime,
# the clock now minus the duration (one fork per command).
function __parsec_started_at --argument-names duration
    if string match -qr '^[0-9]+(\.[0-9]+)?$' -- "$__parsec_up0"
        if not set -q __parsec_clock_offset
            read -l up rest </proc/uptime 2>/dev/null
            set -l now (command date +%s.%N 2>/dev/null)
            string match -qr '^[0-9]+\.[0-9]+$' -- "$now"; and string match -qr '^[0-9.]+$' -- "$up"
            and set -g __parsec_clock_offset (builtin math -s3 "$now - $up")
        end
        if set -q __parsec_clock_offset
            builtin math -s3 "$__parsec_clock_offset + $__parsec_up0"
            return
        end
    end
    set -l now (command date +%s 2>/dev/null)
    string match -qr '^[0-9]+$' -- "$now"; and builtin math -s3 "$now - $duration / 1000"
end

# After "command not found" on something the daemon says reads like prose (not a typo such as
# `gti status`): one key sends it to Parsec. No daemon, no offer.
function __parsec_offer_ask --argument-names line
    __parsec_switch_on "$PARSEC_HOOKS_OFFER_PROMPT_ON_127"; or return 0
    test -p $__parsec_fifo; and __parsec_dir_ok; or return 0
    set -l request (builtin printf '{"v":@PROTOCOL_VERSION@,"type":"classify","session":"%s","text":%s,"first_word":"none","after_127":true,"shell":"fish"}' \
        $__parsec_session (__parsec_json "$line"))
    set -l decision (__parsec_ask_daemon $request)
    test "$decision" = prompt; or return 0
    set -l key (__parsec_one_key 'parsec: ask Parsec instead?' ' [y/N]' \r\e'[2K')
    or return 0
    string match -qr '^[yY]$' -- "$key"; or return 0
    __parsec_feedback $line none prompt
    set -l ask parsec ask
    set -q PARSEC_ASK_COMMAND; and set ask $PARSEC_ASK_COMMAND
    eval $ask (string escape -- (string trim -- $line))
end

# `parsec ask` leaves the workflow's final directory in PARSEC_CD_FILE; follow it.
function __parsec_follow_cd
    test -s $PARSEC_CD_FILE; and not test -L $PARSEC_CD_FILE; or return 0
    __parsec_dir_ok; or return 0
    read -l dir <$PARSEC_CD_FILE
    true >$PARSEC_CD_FILE
    test -n "$dir" -a -d "$dir" -a "$dir" != "$PWD"; and builtin cd -- $dir
    return 0
end

if set -q PARSEC_OSC133
    function __parsec_osc_prompt --on-event fish_prompt
        builtin printf '\e]133;A\a' >/dev/tty 2>/dev/null
    end
end

# ---- install -----------------------------------------------------------------------------------

function __parsec_bind_enter
    set -g __parsec_bound_for "$fish_key_bindings"
    if test "$fish_key_bindings" = fish_vi_key_bindings
        # As fish's own vi bindings: Enter in normal mode also goes back to insert mode.
        builtin bind -M default -m insert \r __parsec_enter 2>/dev/null
        builtin bind -M default -m insert \n __parsec_enter 2>/dev/null
    else # emacs keys live in the default mode: leaving it would leave every key unbound
        builtin bind -M default \r __parsec_enter 2>/dev/null
        builtin bind -M default \n __parsec_enter 2>/dev/null
    end
    builtin bind -M insert \r __parsec_enter 2>/dev/null
    builtin bind -M insert \n __parsec_enter 2>/dev/null
end
__parsec_bind_enter
# fish sets up its key bindings at the first prompt and again when the mode changes (vi keys),
# erasing ours: check before each prompt (a builtin call, no fork) and bind again if needed. A
# switch to vi keys (`fish_vi_key_bindings` after this file) erases only fish's own bindings:
# ours stay, bound for emacs keys (normal-mode Enter would not go back to insert mode).
function __parsec_keep_bound --on-event fish_prompt
    test "$__parsec_bound_for" = "$fish_key_bindings"
    and string match -q '*__parsec_enter*' -- (builtin bind \r 2>/dev/null)
    or __parsec_bind_enter
end

# The session key, for `parsec history --session current` and `parsec ask` (the daemon derives the
# session id from it, and so can they: parsec/models/session_ids.py).
set -gx PARSEC_SESSION $__parsec_session

# ---- history search (Ctrl-R) ---------------------------------------------------------------------
# `parsec search` draws on /dev/tty and prints `run`, `edit` or `cancel`, a newline and the line.
# [search] bind_ctrl_r = false leaves Ctrl-R alone; `key` binds another; bind_up_arrow the up arrow.
function __parsec_search --description 'search the recorded history (parsec search)'
    set -l bin parsec
    set -q PARSEC_BIN; and set bin $PARSEC_BIN
    if not __parsec_installed; or not command -q $bin
        # Parsec is gone: this key press gets fish's own search (its history pager, or the
        # previous line for the up arrow).
        __parsec_installed; or __parsec_leave
        if contains -- session $argv
            builtin commandline -f up-or-search
        else
            builtin commandline -f history-pager 2>/dev/null; or builtin commandline -f history-search-backward
        end
        return 0
    end
    # The typed line goes in the environment, not argv: other users can read argv.
    set -lx PARSEC_SEARCH_QUERY (builtin commandline | string collect)
    set -l out (command $bin search --session-key $__parsec_session \
        $argv </dev/tty 2>/dev/tty | string collect)
    set -l parts (string split -m 1 \n -- $out)
    switch "$parts[1]"
        case run
            builtin commandline -r -- $parts[2]
            builtin commandline -f repaint execute
        case edit
            builtin commandline -r -- $parts[2]
            builtin commandline -f repaint
        case '*'
            builtin commandline -f repaint
    end
end

set -g __parsec_search_keys
__parsec_switch_on "$PARSEC_SEARCH_BIND_CTRL_R"; and set -a __parsec_search_keys \cr
set -q PARSEC_SEARCH_KEY; and test -n "$PARSEC_SEARCH_KEY"; and set -a __parsec_search_keys $PARSEC_SEARCH_KEY

function __parsec_bind_search
    for mode in default insert
        for key in $__parsec_search_keys
            builtin bind -M $mode $key __parsec_search 2>/dev/null
        end
        if set -q PARSEC_SEARCH_BIND_UP_ARROW; and string match -qr '^[1tT]' -- $PARSEC_SEARCH_BIND_UP_ARROW
            builtin bind -M $mode \e\[A '__parsec_search --filter session' 2>/dev/null
            builtin bind -M $mode \eOA '__parsec_search --filter session' 2>/dev/null
        end
    end
end
__parsec_bind_search
# fish can reset key bindings on a mode change: bind again when the key is left with fish's own
# binding only. A tool loaded after Parsec that took the key (atuin, fzf) keeps it, as in bash
# and zsh, where the last binding wins.
function __parsec_keep_search_bound --on-event fish_prompt
    set -q __parsec_search_keys[1]; or return 0
    builtin bind $__parsec_search_keys[1] 2>/dev/null | string match -qv -- 'bind --preset *'; or __parsec_bind_search
end
