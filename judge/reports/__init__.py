"""Reports: results files summarised as tables, markdown, JSON or a self-contained HTML page,
with pass@k, standard errors and intervals, run metadata, and runs compared.

``tables`` (summaries and their text forms), ``scores`` (what scored problems add: mean
score, points, groups, score@k), ``stats`` (Wilson intervals, standard errors,
paired bootstrap, McNemar), ``runs`` (a results file with its run metadata), ``compare``
(fixed / broke / still failing, the difference and its interval), ``charts`` and ``html``
(the page, from ``templates/``). Imports ``judge.engine.verdicts`` and ``judge.scoring.passk``.
"""
