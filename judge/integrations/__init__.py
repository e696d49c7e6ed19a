"""The judge inside the eval frameworks people already run (optional extras).

- :mod:`judge.integrations.inspect_ai`: an inspect_ai scorer (and a task helper) that judges
  ``state.output.completion`` against a judge problem (``pip install 'judge[inspect]'``);
- :mod:`judge.integrations.lm_eval`: an lm-evaluation-harness task folder and metric that
  score code tasks with the judge, offline (``pip install 'judge[lm-eval]'``).

Each is a thin layer over :class:`judge.Judge` (the one judging path); neither is imported
by ``import judge``. A judge that could not judge (``sandbox_error``: our failure) raises,
so the framework records an error for the sample rather than a failing score.
"""
