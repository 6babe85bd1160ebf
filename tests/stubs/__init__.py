"""Local stand-ins for outside services (LLM providers) used by tests and benchmarks."""
