"""Cases that read the same in bash and zsh (the sh-like syntax both share); fish's table picks
the ones that read the same in fish too (`pick`), so each case is written once.

Words the stand-in classifier reacts to: "please" (prose) and "maybe" (ambiguous). A case that
contains one on a line the shell would continue checks that such a line never reaches it.
"""

from __future__ import annotations

from .driver import Case, Step, case

LONG = "x" * 3000
EDITOR_DONE = r"\x1b\[\?2004l"  # the line editor gave the terminal back: the command runs


def started(marker: str) -> str:
    """A wait for `marker` printed by the command (typed split by quotes, so the echo of the
    typed line does not match)."""
    return r"[\r\n]" + marker + r"\r\n"


def shown_below(text: str) -> str:
    """A wait for `text` (a regex) shown at the start of a line below the typed one, such as a
    prompt the command prints: the echo of the typed line contains `text` too, and matching that
    sent the next keys while the command had not yet started."""
    return r"\n(?:\r|\x1b\[[0-9;?]*[A-Za-z])*" + text


def pick(table: list[Case], *names: str) -> list[Case]:
    """The cases of `table` named `names`, in that order (a shell's table reusing shared cases)."""
    by_name = {c.name: c for c in table}
    return [by_name[name] for name in names]


SIMPLE = [
    case("echo", "echo hello"),
    case("echo words", "echo hello big world"),
    case("touch", "touch a b c"),
    case("redirect", "printf '%s\\n' one two > out.txt"),
    case("append", "echo one > f; echo two >> f"),
    case("false", "false"),
    case("exit status", "(exit 3)"),
    case("assign", "x=5", vars="x"),
    case("assign two", "x=hello; y=$x-world", vars="x y"),
    case("mkdir cd", "mkdir sub && cd sub"),
    case("cd fails", "cd ./no/such/dir"),
    case("cd dash", "mkdir d1", "cd d1", "cd -"),
    case("last argument", "echo last-arg", "echo $_ > out"),
    case("last argument prose-like", "echo some words here", "echo $_ > out"),
    case("pipe", "echo abc | tr a-c x-z"),
    case("pipe status", "false | true"),
    case("and or", "true && echo yes || echo no"),
    case("not found", "nosuchcommand with args"),
    case("not found one word", "nosuchcommand"),
    case("arith", "echo $((6 * 7))"),
    case("command subst", 'echo "$(echo inner)" > sub.txt'),
    case("glob", "touch g1 g2 h1", "echo g*"),
    case("brace group", "{ echo grouped; echo braces; } > grp"),
    case("subshell", "(cd /; pwd)"),
    case("function", 'f() { echo "f:$1"; }', "f arg"),
    case("alias", "alias ll='echo LL'", "ll x"),
    case("export", "export EXPORTED=1", vars="EXPORTED"),
    case("unset", "x=1", "unset x", vars="x"),
    case("stderr", "echo to-stderr >&2"),
    case("comment", "echo visible # hidden"),
    case("only comment", "# a comment line"),
    case("semicolons", "echo one; echo two; touch three"),
    case("background wait", "sleep 0.1 & wait"),
    case("here string", "tr a-z A-Z <<< 'here string' > hs"),
    case("heredoc", "cat <<EOF > here.txt", "line one", "EOF"),
    case("heredoc quoted", "cat <<'EOF'", "$HOME is not expanded", "EOF"),
    case("heredoc pipe", "cat <<EOF | tr a-z A-Z", "shout", "EOF"),
    case("empty line", ""),
    case("blank line", "   "),
    case("leading space", " echo private"),
    case("tab in text", "echo $'a\\tb' > tab"),
    case("quotes", "echo 'single' \"double\" $'ansi\\tc'"),
    case("escaped", 'echo a\\ b\\"c'),
    case("semicolon only", ";"),
    case("syntax error", "echo )"),
    case("long line", "echo " + LONG + " > long"),
    case("long words", "echo " + " ".join(["word"] * 600) + " > words"),
    case("unicode", "echo naïve ☃ 😀 > u8"),
    case("non-utf8 escape", "printf '\\xff\\xfe\\n' > raw"),
    case("non-utf8 dir", "mkdir $'d\\xff' && cd $'d\\xff' && touch inside"),
]

CONTINUATIONS = [
    case("backslash", "touch aaa \\", "bbb"),
    case("backslash printf", "printf '%s\\n' one \\", "two > out"),
    case("backslash maybe", "echo maybe \\", "continued > out"),
    case("backslash twice", "echo a \\", "b \\", "c > out"),
    case("double backslash", "echo a\\\\ > out"),
    case("open double quote", 'echo "open', 'close" > out'),
    case("open single quote", "echo 'open", "close' > out"),
    case("open quote maybe", 'echo "maybe', 'touch typed" > out'),
    case("apostrophe prose", "what's the date", "'"),
    case("trailing pipe", "echo abc |", "tr a-c x-z > out"),
    case("trailing and", "true &&", "touch and"),
    case("trailing or", "false ||", "touch or"),
    case("trailing pipe maybe", "echo maybe |", "tr a-z A-Z > out"),
    case("function open", "mkf() {", "touch made", "}", "mkf"),
    case("function open maybe", "maybe_f() {", "touch made", "}", "maybe_f"),
    case("function keyword", "function kf {", "echo kf", "}", "kf"),
    case("if", "if true; then", "touch yes", "fi"),
    case("if else", "if false", "then touch no", "else touch else", "fi"),
    case("for", "for i in 1 2 3", "do touch f$i", "done"),
    case("for maybe", "for maybe in 1 2", "do touch f$maybe", "done"),
    case("while", "i=0; while [ $i -lt 2 ]", "do i=$((i+1)); touch w$i", "done", vars="i"),
    case("until", "until true", "do :", "done"),
    case("case", "case x in", "x) touch matched;;", "esac"),
    case("brace open", "{", "echo in-brace", "} > out"),
    case("paren open", "(", "touch in-sub", ")"),
    case("command subst open", "echo $(", "echo inner", ") > out"),
    case("continuation then ctrl-c", 'echo "never', "\x03"),
    case("heredoc then more", "cat <<A; echo after", "body", "A"),
    case("nested if for", "for i in 1 2; do", "if [ $i = 2 ]; then", "touch two", "fi", "done"),
]

TYPING = [
    case("ctrl-c at prompt", "echo partial\x03", "touch after"),
    case("ctrl-c during command", Step("sh -c \"echo st''arted; exec sleep 30\"\r", wait=started("started")), "\x03"),
    case("ctrl-u", "echo gone\x15touch kept\r"),
    case("ctrl-w", "echo one two\x17three > out\r"),
    case("ctrl-a comment", "touch nothing\x01# \r"),
    case("backspace", "touch abcd\x7f\x7fx\r"),
    case(
        "type-ahead",
        Step("sleep 0.3\r", wait=None),
        Step("touch ahead\r", wait=None),
        Step("echo ah''ead-done\r", wait=started("ahead-done")),
        screen=False,
    ),
    # The line and the keys typed after it in one write: they are waiting when the hook would ask
    # (as two writes, a loaded machine could deliver the second after the question).
    case(
        "type-ahead after maybe",
        Step("echo maybe now\rtouch typed\r", wait=None),
        Step("echo ty''ped-done\r", wait=started("typed-done")),
        screen=False,
    ),
    case("type-ahead continuation", Step('echo "maybe\r', wait=None), Step('x" > out\r', wait="ps1"), screen=False),
    # The exit-127 offer (the stand-in calls a "kindly" line prose after 127) with keys typed ahead
    # in the same write: they are the next command, never the offer's answer (its `y` would be).
    case(
        "type-ahead after not found prose",
        Step("kindly list files\ryes | head -n 1 > typed\r", wait=None),
        Step("echo ty''ped-done\r", wait=started("typed-done")),
        screen=False,
    ),
    case("read from terminal", Step("read -r v\r", wait=EDITOR_DONE, cooked=True), "typed input", vars="v"),
    case("bracketed paste", "\x1b[200~echo one > p1\recho two > p2\x1b[201~\r"),
    case("bracketed paste function", "\x1b[200~pf() {\recho pasted\r}\x1b[201~\r", "pf"),
    case("history bang bang", "echo one > h1", "!!"),
    case("history last arg", "touch first-file", "echo !$ > out"),
    case("history caret", "echo aaa > h", "^aaa^bbb"),
]

# Keys of the next line typed ahead, their Enter only after the offer's grace time: not in bash's
# table (a known limit there: docs/hooks.md, the exit-127 offer).
TYPING_LINE_MODE = [
    case(
        "type-ahead keys then enter after not found prose",
        Step("kindly list files\rtouch typed; echo ty''ped-done", wait=None, pause=0.6),
        Step("\r", wait=started("typed-done")),
        screen=False,
    ),
]

ROUTED = [
    case("prose", "please list the files", routed="please list the files"),
    case("prose question mark", "?how big is this folder", routed="how big is this folder"),
    case("forced command", "\\echo please run me"),
    case("command prefix", "command echo please too"),
]

# Real commands with apostrophes and parentheses, one line or several, next to prose the shell
# cannot parse (issue 28 item 1): a line the shell rejects, or continues only because of an
# apostrophe inside a word, is asked about (the stand-in says "command", or "ambiguous" with
# "maybe": both leave it to the shell, with no question), and a "please" line is routed.
UNPARSABLE = [
    case("apostrophe in double quotes", 'echo "it\'s" > out'),
    case("apostrophe quoted", "echo 'don'\\''t' > out"),
    case("apostrophe closes a quote", "echo 'it's'", "closed' > out"),
    case("apostrophe in an open quote", "echo \"it's", 'fine" > out'),
    case("apostrophe maybe", "echo maybe it's", "fine' > out"),
    case("subshell", "mkdir x", "(cd x && touch made)"),
    case("subshell lines", "mkdir x", "(cd x &&", "touch made)"),
    case("subshell apostrophe", "mkdir x", '(cd x && echo "it\'s" > made)'),
    case("command subst lines", 'echo "$(echo one', 'echo two)" > out'),
    case("case patterns", "case it in", "(it) touch matched;;", "esac"),
    case("case apostrophe", 'case "it\'s" in', '"it\'s") touch matched;;', "esac"),
    case("case one line", "case x in x) touch one;; esac"),
    case("heredoc apostrophe", "cat <<EOF > h", "it's (here)", "EOF"),
    case("syntax error maybe", "echo maybe )"),
    case("parenthesis in words", "list file(s) in it"),
    case("prose parenthesis", "please show usage (human readable)", routed="please show usage (human readable)"),
    case("prose apostrophe", "please tell me what's new", routed="please tell me what's new"),
    case("prose both", "please don't (ever) stop", routed="please don't (ever) stop"),
]

# Line-editor keys (emacs keymap, the default).
EDITING = [
    case("emacs ctrl-a ctrl-e", "cho x\x01e\x05 > out\r"),
    case("emacs alt-b", "echo one three\x1bbtwo \r"),
    case("emacs ctrl-k", "echo keep gone\x1bb\x0b\r"),
    case("emacs ctrl-y", "echo one\x17two \x19\r"),
    case("emacs transpose", "ehco ok\x01\x06\x06\x14\r"),
    case("emacs history up", "echo up-arrow > u1", "\x1b[A\r"),
    case("emacs ctrl-p", "echo ctrl-p > p1", "\x10\r"),
    case("tab completion", "touch unique-file-name", "ls uniq\t\r"),
]

# Typed with the vi keymap on.
VI = [
    case("vi insert", "echo typed-in-insert > out"),
    case("vi escape then enter", "echo typed-then-escape > out\x1b\r"),
    case("vi edit word", "echo wrong > out\x1bbcwright\x1b\r"),
    case("vi x", "echo abcd > out\x1bxx\r"),
    case("vi history k", "echo from-history > h1", "\x1bk\r"),
    case("vi maybe escape", "echo maybe vi > out\x1b\r"),
    case("vi prose escape", "please list files\x1b\r", routed="please list files"),
    case("vi continuation", 'echo "open', 'close" > out'),
    case("vi backslash", "touch aaa \\", "bbb"),
    case("vi function", "vf() {", "touch vf", "}", "vf"),
]

# Typed with nounset/pipefail on.
STRICT = [
    case("unset variable", "echo ${undefined_var}"),
    case("unset ok", "echo fine"),
    case("pipefail", "false | true"),
    case("prose", "please tell me", routed="please tell me"),
    case("continuation", 'echo "a', 'b"'),
    case("backslash", "touch aaa \\", "bbb"),
    case("not found", "nosuchcommand with args"),
    case("function", "sf() {", "echo sf", "}", "sf"),
]

# Typed with errexit on: a failing command ends the shell the same way with the hook.
ERREXIT = [
    case("true keeps the shell", "true"),
    case("false ends the shell", "false"),
    case("not found ends the shell", "nosuchcommand with args"),
    case("pipeline", "false | true"),
    case("prose", "please help", routed="please help"),
]

# Typed with the hook's builtins shadowed by the user's functions and aliases.
SHADOWED = [
    case("echo", "echo hello"),
    case("echo words", "echo hello big world"),
    case("false", "false"),
    case("not found", "nosuchcommand with args"),
    case("cd", "mkdir sub", "cd sub"),
    case("prose", "please list the files", routed="please list the files"),
    case("backslash", "touch aaa \\", "bbb"),
    case("open quote", 'echo "a', 'b" > out'),
    case("function", "sf() {", "echo sf", "}", "sf"),
    case("ctrl-c", "echo partial\x03", "true"),
]

# Typed with another tool hooking the same places (preexec/precmd, Atuin, zoxide, fzf).
OTHERS = [
    case("echo", "echo hello"),
    case("false", "false", vars="__mine_ran __other_status"),
    case("pipeline", "false | true"),
    case("prose", "please list", routed="please list"),
    case("continuation", 'echo "a', 'b"'),
    case("backslash", "touch aaa \\", "bbb"),
    case("cd", "mkdir sub", "cd sub"),
    case("not found", "nosuchcommand with args"),
    case("function", "of() {", "echo of", "}", "of"),
]

# Typed with direnv's hook loaded (fish too).
DIRENV = [
    case(
        "envrc",
        "direnv allow . 2>/dev/null",
        "cd .",
        vars="DIFF_DIRENV",
        files={".envrc": "export DIFF_DIRENV=loaded\n"},
    ),
    case("false", "false"),
    case("prose", "please list", routed="please list"),
]
