"""Candidates: code pulled out of a model's reply, and solutions files read line by line.

Knows nothing of problems or sandboxes: text in, code out.
"""
