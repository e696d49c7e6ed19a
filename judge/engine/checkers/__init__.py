"""Output checkers, each one module behind :class:`~judge.engine.checkers.base.Checker`
(``tokens``, ``exact``, ``lines``, ``validator``), found by name in ``CHECKERS``."""
