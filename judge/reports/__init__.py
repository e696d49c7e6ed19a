"""Reports: results files summarised as tables, markdown, JSON or HTML, with pass@k.

Imports ``judge.execution.verdicts`` and ``judge.scoring.passk``.
"""
