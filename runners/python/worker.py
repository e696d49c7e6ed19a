"""Starts the judge's sandbox worker (the ``judge_worker`` package beside this file):
``python3 -I worker.py --workroot DIR ...``. The judge itself starts it with
``judge.sandbox.harness.worker_command``, which imports the package from its bytecode."""

import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from judge_worker.main import main

    sys.exit(main(sys.argv[1:]))
