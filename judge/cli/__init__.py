"""The command line: one module per command group, all on top of the public API.

``main`` (validate, prompts, run, report, sandbox), ``importing`` (import), ``scoring``
(score, aime, match, agreement).
"""

from judge.cli.main import main

__all__ = ["main"]
