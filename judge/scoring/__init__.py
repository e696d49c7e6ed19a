"""Scoring: deterministic primitives and scoring specs (``primitives``), math answers,
reference-answer matching, agreement metrics and pass@k.

Independent of code execution; imports only ``judge.errors`` (and ``judge.resources`` for
shipped examples).
"""
