"""The rules for particular commands, one module per family. Each holds a Walker subclass whose
`_cmd_NAME(rest, verdict)` methods the walker finds by the command's name (Walker._handler);
the checker in risk/__init__.py combines them all. script_readers.py reads sed and awk scripts.
"""
