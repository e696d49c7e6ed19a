"""SandboxFusion's own tests (upstream/) import ``sandbox``, which exists only on the shim's
path (shim/): tests/service/test_sandboxfusion_upstream.py runs them in a pytest of their own. The
suite's own run never collects them."""

collect_ignore = ["upstream", "shim"]
