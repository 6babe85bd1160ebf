"""Running approved commands: the conversation's persistent shell, the sandbox for --yes, the
processes they start, and what a step changed."""
