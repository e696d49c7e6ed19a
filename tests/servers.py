"""The `judge serve` process the service tests start and stop (not a test module): the
``Server`` of ``benchmarks/service_load.py``, loaded once under its module name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "service_load" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("service_load", ROOT / "benchmarks" /
                                                  "service_load.py")
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["service_load"] = _module
    _spec.loader.exec_module(_module)
Server = sys.modules["service_load"].Server

__all__ = ["ROOT", "Server"]
