"""The command line: one module per command group, all on top of the public API.

``main`` (validate, prompts, run, report, sandbox; builds the parser and registers the
others), ``importing`` (import), ``scoring`` (score, aime, match, agreement), ``grade``
(grade), ``serve`` (serve). What they share (exit statuses, the parser class, option types
and groups, messages on stderr) is in ``common``; no command module imports another's.
"""

from judge.cli.main import main

__all__ = ["main"]
