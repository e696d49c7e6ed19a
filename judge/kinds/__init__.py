"""Problem kinds, each one module behind :class:`~judge.kinds.base.ProblemKind`: how a kind
loads, becomes a submission, is judged on the engine and is prompted. ``loader`` reads
problem files and suites by kind; ``lookup`` finds a problem by identifier.
"""
