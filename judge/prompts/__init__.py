"""Prompts: a problem rendered with jinja2 into the text a model sees, plain or genericized.

Imports ``judge.problem`` (what to render) and ``judge.sandbox.harness`` (the shared strict
jinja2 settings) only.
"""
