"""Candidates: code pulled out of a model's reply, and solutions files read line by line.

Text in, code out: :mod:`judge.candidates.extract` reads solutions files and takes Python code
out of a reply; :mod:`judge.candidates.submission` holds the other languages' step and the
:class:`~judge.candidates.submission.Submission` both produce. A language calls them through
``judge.languages.get(name).submission(problem, candidate)``. Knows nothing of sandboxes.
"""
