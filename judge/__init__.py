"""judge: a sandboxed judge for LLM-generated code and answers."""

__version__ = "0.1.0"
