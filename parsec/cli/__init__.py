"""The `parsec` command line (typer). `entry.main` is the console script."""
