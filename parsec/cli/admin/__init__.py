"""Keeping Parsec itself running: `parsec config`, `daemon` and `doctor`."""
