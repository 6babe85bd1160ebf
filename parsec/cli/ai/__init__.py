"""The model-facing commands: `parsec ask`/`resume`, `conversations`, `context`, `providers`, `risk`,
`trust` and `classify`."""
