"""Genericizing prompts: the renaming lives in :mod:`judge.candidates.generic` (the judge
maps a genericized prompt's names back with the same rule, and it is a lower layer)."""

from judge.candidates.generic import (GENERIC_FUNCTION, Renaming, rename_code, rename_text,
                                      rename_words, renaming_for)

__all__ = ["GENERIC_FUNCTION", "Renaming", "rename_code", "rename_text", "rename_words",
           "renaming_for"]
