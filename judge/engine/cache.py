"""Verdicts remembered across runs (opt-in): ``judge run --cache DIR``, ``Judge(cache=DIR)``.

A content-addressed store: a candidate's result is kept under the hash of everything that
decides it, and a later run (a training loop's next step, a re-run) that meets the same
candidate again takes the result instead of judging it:

- the judge's version and the code that judges (every source file of ``judge/`` and of the
  worker, ``runners/``: a changed judge never reuses an old verdict);
- the problem's content (its fingerprint: tests, expected outputs, types, limits...) and the
  run's limits;
- how it is judged: sandbox kind, test isolation, fail-fast, all-tests, reference timing;
- the candidate: language, function name and code.

Identity (model, sample, prompt, line) is not part of the key: the stored result is given the
candidate's own, as a duplicate within a run is (``cached: true`` says where it came from).

Only verdicts are stored: a ``sandbox_error`` (our infrastructure failed) never is, so it is
judged again next time. One file per key (``DIR/ab/abcdef....json``), written to a temporary
file in the same folder and renamed into place, so concurrent writers (several runs, several
processes) never leave a partial file, and the last complete one wins; an unreadable or
foreign file is a miss, never an error.

With reference timing, per-test limits follow the reference solution's time on the machine
that judged first: a cache shared between machines of different speeds keeps the first one's.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from judge.engine.verdicts import CandidateResult, Verdict
from judge.jsonl import json_text

#: results-line fields that are the candidate's identity or this run's, never stored
IDENTITY = ("model", "prompt_id", "sample", "key", "line", "judged_with", "note",
            "duplicate_of", "run", "cached", "language")
_FORMAT = 1
_CODE: dict[str, str] = {}


def code_version() -> str:
    """The judge's version and a hash of its own source (the package and the worker)."""
    if "version" not in _CODE:
        import judge

        digest = hashlib.sha256(judge.__version__.encode())
        package = Path(judge.__file__).resolve().parent
        roots = [package, package.parent / "runners"]
        for root in roots:
            if not root.is_dir():
                continue
            for path in sorted(root.rglob("*")):
                if path.suffix in (".py", ".j2", ".c", ".h", ".js") and path.is_file():
                    digest.update(str(path.relative_to(root)).encode())
                    digest.update(path.read_bytes())
        _CODE["version"] = "%s+%s" % (judge.__version__, digest.hexdigest()[:16])
    return _CODE["version"]


class VerdictCache:
    """Results by content (see the module's docstring). Thread- and process-safe."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.version = code_version()
        self.hits = 0
        self.stored = 0

    def key(self, *, problem_fp: str, limits_fp: str, how: dict[str, Any], language: str,
            function: str, code: str) -> str:
        parts = [str(_FORMAT), self.version, problem_fp, limits_fp,
                 json.dumps(how, sort_keys=True), language, function, code]
        return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / ("%s.json" % key)

    def get(self, key: str) -> CandidateResult | None:
        """The stored result (without identity), or None."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            if data.get("cache_key") != key:
                return None
            result = _from_json(data["result"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        if result.verdict is Verdict.SANDBOX_ERROR:
            return None
        self.hits += 1
        return result

    def put(self, key: str, result: CandidateResult) -> bool:
        """Store a verdict (never a sandbox_error); False when it was not stored."""
        if result.verdict is Verdict.SANDBOX_ERROR or any(
                t.verdict is Verdict.SANDBOX_ERROR for t in result.tests):
            return False
        line = {k: v for k, v in result.to_json().items() if k not in IDENTITY}
        payload = json_text({"cache_key": key, "result": line})
        if not write_atomically(self._path(key), payload):
            return False  # a cache that cannot be written only costs speed
        self.stored += 1
        return True


def write_atomically(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` through a temporary file in the same folder renamed into
    place (concurrent writers never leave a partial file; the last complete one wins). The
    folders are made as needed. False when it could not be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
    except (OSError, ValueError):
        return False
    return True


def _from_json(data: dict[str, Any]) -> CandidateResult:
    return CandidateResult.from_line(data)
