"""The process sandbox: warm local worker processes (``sandbox.py``), as root each running
candidates as its own uid without network, with a private /tmp and the host's world-writable
places hidden (``hostfs.py``); its back end (``backend.py``) serves every pool with one."""
