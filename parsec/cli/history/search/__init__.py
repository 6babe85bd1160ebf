"""The interactive history search (`parsec search`, bound to Ctrl-R by the shell hooks).

One job per module: `query` turns the typed text into a TextMatch, `scope` turns a filter mode
into `parsec history`'s filters, `source` reads candidates from the store (parsec/store/search.py)
slice by slice, `ranking` orders them, `render` draws a frame as text, `terminal` owns /dev/tty
(raw mode, keys), `app` ties them together and hands the chosen line back to the shell.
Standard library only: Ctrl-R must draw its first frame within 100 ms (docs/history.md).
"""
