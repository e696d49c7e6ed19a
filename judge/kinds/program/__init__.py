"""The ``program`` kind: a whole program on stdin/stdout (contest problems, Kattis/ICPC
packages, the RL datasets), run once per test; its output checked by the problem's checker
(:mod:`judge.engine.checkers`) or output validator (``judge``)."""
