"""What the check knows about commands by their name alone: which only read, which run other
commands or wrap one, which download or write, and which are dangerous whatever their arguments.

Option tables that only one command's rule needs live with that rule, in rules/.
"""

# Commands that only read, or only change the shell's own state. (Not `source` / `.`: they run a script.)
READ_ONLY = {
    "ls",
    "ll",
    "la",
    "cat",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "pwd",
    "echo",
    "printf",
    "wc",
    "du",
    "df",
    "stat",
    "file",
    "which",
    "type",
    "whoami",
    "id",
    "uname",
    "date",
    "printenv",
    "tree",
    "sort",
    "uniq",
    "cut",
    "diff",
    "cmp",
    "comm",
    "test",
    "[",
    "true",
    "false",
    ":",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "ps",
    "jq",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "hostname",
    "uptime",
    "free",
    "lsblk",
    "column",
    "nl",
    "tr",
    "fold",
    "seq",
    "sleep",
    "whereis",
    "locate",
    "help",
    "history",
    "env",
    "cd",
    "pushd",
    "popd",
    "export",
    "unset",
    "alias",
    "set",
    "hash",
    "command",
    "tac",
    "rev",
    "od",
    "xxd",
    "hexdump",
    "base64",
    "base32",
    "basenc",
    "strings",
    "zcat",
    "bat",
    "fd",
    "dirs",
    "lsof",
    "nproc",
    "getconf",
    "locale",
    "tty",
    "git",  # git is refined by its rule (rules/git.py)
}
# less, more, man and top are read-only too, but wait for keys: not auto-approved under --yes.
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"}
SH_LIKE = {
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "ash",
    "mksh",
    "csh",
    "tcsh",
    "elvish",
    "yash",
    "posh",
}  # take a script with -c
EXECUTORS = SHELLS | {"eval", "source", "."}  # run their arguments as code
USER_SWITCHERS = {"su", "runuser"}  # start a shell as another user, reading commands from stdin
DOWNLOADERS = {"curl", "wget", "fetch"}
WRAPPERS = {
    "sudo",
    "doas",
    "pkexec",
    "env",
    "nohup",
    "time",
    "nice",
    "ionice",
    "command",
    "exec",
    "builtin",
    "stdbuf",
    "timeout",
}
ROOT_WRAPPERS = {"sudo", "doas", "pkexec"}
# Wrapper options that take the next word as their value (sudo -u root, nice -n 10, env -u VAR).
WRAPPER_VALUE_OPTIONS = {
    "sudo": {"-u", "-g", "-C", "-D", "-p", "-r", "-t", "-T", "-U"},
    "doas": {"-u", "-C"},
    "pkexec": {"--user"},
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "--class", "-n", "--classdata", "-p", "-P", "-u"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e"},
    "exec": {"-a"},
}
DISK_TOOLS = {"mkfs", "wipefs", "fdisk", "sfdisk", "parted", "sgdisk", "gdisk", "format", "mkswap", "blkdiscard"}
POWER = {"shutdown", "reboot", "halt", "poweroff"}
WRITERS = {
    "cp",
    "mv",
    "tee",
    "touch",
    "install",
    "ln",
    "rm",
    "rmdir",
    "mkdir",
    "truncate",
    "rsync",
    "chmod",
    "chown",
    "chgrp",
}
COPIERS = {"cp", "install", "ln", "rsync"}  # only the destination (last operand or -t DIR) is written

# Variables that make an ordinary (even read-only) command run another program.
CODE_VARIABLES = {
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "GIT_EXTERNAL_DIFF",
    "GIT_EXEC_PATH",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
}
HARMLESS_PAGERS = {"", "cat", "less", "more"}

# Commands handled by another command's rule.
HANDLER_NAMES = {".": "source", "gawk": "awk", "mawk": "awk", "nawk": "awk", "fdfind": "fd"}
HANDLER_NAMES |= {shell: "sh" for shell in SH_LIKE - {"sh"}}
HANDLER_NAMES |= {"python2": "python", "python3": "python", "pypy": "python", "pypy3": "python", "nodejs": "node"}
HANDLER_NAMES |= {"perl5": "perl", "luajit": "lua", "vi": "vim", "nvim": "vim", "ex": "vim", "view": "vim"}
HANDLER_NAMES |= {"vimdiff": "vim", "rvim": "vim"}
HANDLER_NAMES |= {
    firewall: "iptables" for firewall in ("ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-nft")
}
HANDLER_NAMES |= {"mariadb": "mysql", "sqlite": "sqlite3", "tofu": "terraform", "podman": "docker", "bsdtar": "tar"}
