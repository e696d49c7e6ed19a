"""Grading with language models: the chat-completions client and the judges built on it.

Imports ``judge.scoring`` (the questions and matchers it answers); nothing above.
"""
