"""The Parsec daemon: socket server, session recording, durable journal, store writer, jobs.

`parsec daemon run` (or `python -m parsec.daemon`) serves in the foreground. Nothing heavy is
imported here."""
