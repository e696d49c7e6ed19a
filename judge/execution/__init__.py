"""Execution: a candidate run against a problem's tests in a sandbox, turned into verdicts.

``executor`` builds jobs (code + test inputs, never expected outputs), sends them to a
sandbox and compares what came back by declared type (``compare``); ``batch`` runs many
candidates in parallel and in order; ``verdicts`` is the vocabulary. Imports the problem,
prompt, candidate and sandbox stages; nothing above.
"""
