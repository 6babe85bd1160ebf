"""The context engine: collect → score → budget → assemble what a model sees for a step.

Import the pieces from their modules (`parsec.context.engine`, `parsec.context.tokens`, ...);
this package stays free of heavy imports.
"""
