"""Where things are, for the test modules (which sit one folder down, in tests/<room>/):
``ROOT`` the repository, ``TESTS`` this folder (helpers such as proof_server.py, and the
vendored sandboxfusion/), ``DATA`` the test data (tests/data/)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
