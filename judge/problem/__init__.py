"""Problem definitions: the strict models of each kind's problems (``model``: typed functions;
``program``: whole programs), the type language of prototypes (``types``), and the safe
reader of a problem package's files (``package_files``). Loading a file by its kind is
:mod:`judge.kinds.loader`.

A low stage of the data flow: imports only ``judge.errors`` and ``judge.resources``.
"""

from judge.problem.model import Problem, Suite

__all__ = ["Problem", "Suite"]
