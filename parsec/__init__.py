"""Parsec: a shell-integrated workflow orchestrator.

Kept free of imports on purpose: the shell hooks and `parsec init` run through here and must not
pay for pydantic, SQLAlchemy or httpx.
"""

__version__ = "0.1.0"
