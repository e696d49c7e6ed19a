"""The docker sandbox: warm containers of the judge's images (``sandbox.py``), spoken to
through direct pipes (``transport.py``); the images are named and found (``image.py``), built
without a registry (``build.py``), explained and tidied (``maintenance.py``). Its back end
(``backend.py``) gives each pool an image of its own (``sandboxes/<pool>/``)."""
