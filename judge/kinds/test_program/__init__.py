"""The ``test_program`` kind: a candidate run with the benchmark's own test code."""
