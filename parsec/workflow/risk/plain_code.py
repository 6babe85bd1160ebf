"""Whether a one-line program in another language (python -c, perl -e, ruby -e, node -e …) is
plainly harmless: it only computes and prints. Anything else — a call we do not know, an import
beyond a few pure modules, backticks, string interpolation that can run code — is not.

Python is read with `ast`; the others with a pattern for print statements of literals (and, for
perl, the s///, tr/// and print-a-field one-liners that sed and awk users write)."""

from __future__ import annotations

import ast
import builtins
import re

PURE_MODULES = {
    "sys",
    "json",
    "math",
    "cmath",
    "platform",
    "datetime",
    "time",
    "re",
    "string",
    "textwrap",
    "random",
    "statistics",
    "itertools",
    "functools",
    "collections",
    "decimal",
    "fractions",
    "uuid",
    "hashlib",
    "base64",
    "calendar",
    "pprint",
    "unicodedata",
    "secrets",
    "struct",
    "operator",
    "locale",
    "html",
    "urllib.parse",
}
PURE_BUILTINS = {
    "print",
    "len",
    "str",
    "int",
    "float",
    "bool",
    "repr",
    "sorted",
    "reversed",
    "sum",
    "min",
    "max",
    "abs",
    "round",
    "range",
    "list",
    "dict",
    "set",
    "tuple",
    "frozenset",
    "enumerate",
    "zip",
    "map",
    "filter",
    "any",
    "all",
    "hex",
    "oct",
    "bin",
    "ord",
    "chr",
    "format",
    "divmod",
    "pow",
    "hash",
    "isinstance",
    "type",
    "bytes",
    "bytearray",
    "complex",
    "ascii",
    "iter",
    "next",
    "slice",
}
# What of `os` only reads (os.path has nothing that writes): a cwd, the environment, a listing.
OS_READS = {"getcwd", "getenv", "environ", "listdir", "getpid", "getppid", "cpu_count", "uname", "path", "sep"}
OS_READS |= {"linesep", "pathsep", "name", "curdir", "getuid", "getgid", "getlogin", "get_terminal_size", "scandir"}
# Attributes that reach further than computing: module tables, process and file operations.
_REACHING_ATTRIBUTES = {"modules", "popen", "remove", "unlink", "rmdir", "rmtree", "kill", "fork"}
# open, exec, eval, getattr, vars, __import__ …: named at all (not only called), they are not pure.
_REACHING_BUILTINS = {name for name in dir(builtins) if name[:1].islower()} - PURE_BUILTINS
_REACHING_ATTRIBUTES |= {"setrecursionlimit", "settrace", "setprofile", "exit_hooks", "addaudithook", "stdin_fd"}


def plainly_harmless(language: str, code: str) -> bool:
    if language == "python":
        return _python_harmless(code)
    return bool(_PRINT_ONLY.get(language, _NOTHING).fullmatch(code.strip()))


def _python_harmless(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    os_names = {"os"}  # and what `import os as o` calls it
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name not in PURE_MODULES | {"os", "os.path"} for a in node.names):
                return False
            os_names |= {a.asname for a in node.names if a.name == "os" and a.asname}
        elif isinstance(node, ast.ImportFrom):
            if node.module == "os" and any(a.name not in OS_READS for a in node.names):
                return False
            if node.module not in PURE_MODULES | {"os", "os.path"}:
                return False
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in os_names:
            if node.attr not in OS_READS:
                return False
        elif (
            isinstance(node, ast.Name)
            and (node.id.startswith("__") or node.id in _REACHING_BUILTINS)
            or isinstance(node, ast.Attribute)
            and (node.attr.startswith("_") or node.attr in _REACHING_ATTRIBUTES)
            or isinstance(node, ast.Call)
            and not _pure_call(node.func)
        ):
            return False
    return True


def _pure_call(func: ast.expr) -> bool:
    """A builtin that only computes, or a method (every name it hangs off was checked on its own)."""
    if isinstance(func, ast.Name):
        return func.id in PURE_BUILTINS
    return True  # a method of a value the code made, or of an imported pure module


_NOTHING = re.compile(r"(?!)")
_LITERAL = r"""(?:"(?:[^"`$@#\\{]|\\[nt"\\])*"|'[^']*'|-?\d+(?:\.\d+)?)"""
_EXPRESSION = rf"{_LITERAL}(?:\s*[-+*/,.]\s*{_LITERAL})*"
_PERL_VARIABLE = r"(?:\$(?:_|\d|F\[\d+\]|\.))"
_PERL_ITEM = rf"(?:{_LITERAL}|{_PERL_VARIABLE})"
_PERL_STATEMENT = (
    rf"(?:print|say)\s*\(?\s*(?:{_PERL_ITEM}(?:\s*[,.]\s*{_PERL_ITEM})*)?\s*\)?(?:\s+(?:if|unless)\s+/[^/`]*/i?)?"
    r"|s/[^/`]*/[^/`$@]*/[gimsx]*|tr/[^/`]*/[^/`]*/[cdsr]*|y/[^/`]*/[^/`]*/[cdsr]*"
    r"|(?:next|last)\s+(?:if|unless)\s+/[^/`]*/i?|chomp"
)
_PRINT_ONLY = {
    "perl": re.compile(rf"(?:{_PERL_STATEMENT})(?:\s*;\s*(?:{_PERL_STATEMENT}))*\s*;?"),
    "ruby": re.compile(rf"(?:puts|print|p)\s*\(?\s*(?:{_EXPRESSION})?\s*\)?\s*;?"),
    "node": re.compile(rf"(?:console\.log\s*\(\s*(?:{_EXPRESSION})?\s*\)|{_EXPRESSION})\s*;?"),
    "php": re.compile(rf"(?:echo|print)\s*\(?\s*{_EXPRESSION}\s*\)?\s*;?"),
    "lua": re.compile(rf"print\s*\(\s*(?:{_EXPRESSION})?\s*\)\s*;?"),
}
