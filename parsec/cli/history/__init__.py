"""The history commands: `parsec history`, `sessions`, `search`, `import`, `export`, `stats`,
`prune` and `forget` (recorded commands read, searched and managed)."""
