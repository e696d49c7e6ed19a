"""Problem definitions: the strict model (``model``), the type language of prototypes
(``types``) and importers that turn other benchmarks into problem files (``importers``).

Lowest stage of the data flow: imports only ``judge.errors`` and ``judge.resources``.
"""

from judge.problem.model import Problem, Suite, load_problem, load_suite

__all__ = ["Problem", "Suite", "load_problem", "load_suite"]
