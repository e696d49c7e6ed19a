"""The judging engine: what every problem kind judges on.

One :class:`~judge.engine.engine.Engine` per sandbox holds the run's limits and options, the
compile step and its cache (``compile_step``), the helper processes that evaluate ``check``
expressions (``check_pool``), and the verdict vocabulary (``verdicts``). What a sandbox
reported becomes verdicts in one place (``classify``), values are compared by declared type
(``compare``) and program outputs by the output checkers found by name (``checkers``).
Imports the problem, candidate, language and sandbox stages; nothing above: the kinds
(:mod:`judge.kinds`) build on it.
"""
