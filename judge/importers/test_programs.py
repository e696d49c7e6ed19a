"""Test-program benchmarks as ``test_program`` problems: MultiPL-E's JSON Lines (HumanEval and
MBPP in every language it ships), HumanEval-X's per-language files, MBXP (mxeval).

Nothing of a record runs here: its prompt and test code become a problem file's text, checked
for shape and size (``judge.problem.test_program``), and run later in the sandbox with the
candidate. A bad record is reported with its file and line; the others are written.

How each benchmark's evaluator assembles a program is kept: MultiPL-E runs
``prompt + completion + "\\n" + tests`` (the completion cut at ``stop_tokens``); HumanEval-X
(``codegeex/benchmark/evaluate_humaneval_x.py``) runs ``prompt + generation + "\\n" + test``,
Go with ``test_setup`` first and the prompt's ``import`` block replaced by the packages the
generation uses, Rust as ``fn main(){}`` + ``declaration`` + prompt + generation + test under
``cargo test``; MBXP (mxeval) ``prompt + completion + "\\n" + test``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

from judge import languages
from judge.errors import InputError, Issue
from judge.importers.base import Importer, file_name
from judge.importers.records import ImportReport, ProblemReport, read_records
from judge.languages.frameworks import BENCHMARK_LANGUAGES, HUMANEVAL_X_GO_IMPORTS
from judge.problem.test_program import MAX_TEXT, test_program_from_data


def _text(record: dict[str, Any], key: str, required: bool = True) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError("missing field %r (a non-empty string)" % key)
    if len(value) > MAX_TEXT:
        raise ValueError("field %r is longer than %d characters" % (key, MAX_TEXT))
    return value.replace("\r\n", "\n")


def _language(scheme: str, name: str) -> tuple[str, str | None]:
    found = BENCHMARK_LANGUAGES.get(scheme, {}).get(name)
    if found is None:
        raise ValueError("language %r of %s is not judged here (known: %s)" % (
            name, scheme, ", ".join(sorted(BENCHMARK_LANGUAGES.get(scheme, {})))))
    return found


def multipl_e(record: dict[str, Any]) -> dict[str, Any]:
    """A MultiPL-E record (``name``, ``language``, ``prompt``, ``tests``, ``stop_tokens``)."""
    name = _text(record, "name")
    language, framework = _language("multipl-e", _text(record, "language"))
    stops = record.get("stop_tokens") or []
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
        raise ValueError("stop_tokens must be a list of non-empty strings")
    tags = ["multipl-e"] + [str(record[k]) for k in ("doctests", "prompt_terminology")
                            if isinstance(record.get(k), str)]
    # the libraries MultiPL-E's evaluator gives the language (Java: javatuples)
    libraries = bool(languages.get(language).build_flags_in.get("multipl-e", {})
                     .get("libraries"))
    return {"kind": "test_program", "identifier": name, "language": language,
            "framework": framework, "prompt": _text(record, "prompt"),
            "tests": _text(record, "tests"), "stop_tokens": stops, "tags": tags,
            "source": "multipl-e", **({"libraries": True} if libraries else {})}


_RUST_CRATES = re.compile(r"^use (?:rand::Rng|regex::Regex|md5);\n", re.M)


def humaneval_x(record: dict[str, Any]) -> dict[str, Any]:
    """A HumanEval-X record (``task_id`` ``<Lang>/<n>``, ``prompt``, ``declaration``,
    ``canonical_solution``, ``test``; Go's ``import`` and ``test_setup``)."""
    task = _text(record, "task_id")
    language, framework = _language("humaneval-x", task.split("/", 1)[0].lower())
    prompt, tests = _text(record, "prompt"), _text(record, "test")
    setup, imports = "", []
    if language == "go":
        setup = _text(record, "test_setup")
        prompt = prompt.replace(_text(record, "import", False) or "\0", "")
        imports = list(HUMANEVAL_X_GO_IMPORTS)
    elif language == "rust":
        # cargo's crates (rand, regex, md5) are not here: their use lines are left out
        setup = "fn main(){}\n" + _RUST_CRATES.sub("", _text(record, "declaration"))
    # the task id as it is (``CPP/0``): HumanEval-X's samples name it so
    return {"kind": "test_program", "identifier": task, "language": language,
            "framework": framework, "prompt": prompt, "setup": setup, "tests": tests,
            "imports_if_used": imports, "reference": _text(record, "canonical_solution", False)
            or None, "tags": ["humaneval-x"], "source": "humaneval-x"}


def mbxp(record: dict[str, Any]) -> dict[str, Any]:
    """An MBXP / mxeval record (``task_id``, ``language``, ``prompt``, ``test``,
    ``canonical_solution``)."""
    task = _text(record, "task_id")
    language, framework = _language("mbxp", _text(record, "language").lower())
    return {"kind": "test_program", "identifier": task, "language": language,
            "framework": framework, "prompt": _text(record, "prompt"),
            "tests": _text(record, "test"),
            "reference": _text(record, "canonical_solution", False) or None,
            "tags": ["mbxp"], "source": "mbxp"}


class _TestPrograms(Importer):
    """One record per problem file; nothing of the dataset runs."""

    convert: Callable[[dict[str, Any]], dict[str, Any]]

    def import_suite(self, kind: str, path: Path, output: Path,
                     progress: Callable[[str], None] | None = None) -> ImportReport:
        if not path.is_file():
            raise InputError([Issue(str(path), "no such file")])
        output.mkdir(parents=True, exist_ok=True)
        report = ImportReport(kind, str(path), str(output))
        seen: dict[str, int] = {}
        for line, record, issue in read_records(path):
            if issue is not None:
                report.issues.append(issue)
                continue
            assert record is not None
            try:
                data = type(self).convert(record)
                target = output / file_name(data["identifier"], self)
                test_program_from_data(data, str(target))
            except (ValueError, InputError) as exc:
                report.issues.append(Issue(str(path), "%s" % exc, line=line))
                continue
            if data["identifier"] in seen:
                report.issues.append(Issue(str(path), "task %s is already on line %d"
                                           % (data["identifier"], seen[data["identifier"]]),
                                           line=line))
                continue
            seen[data["identifier"]] = line
            data = {k: v for k, v in data.items() if v not in (None, [], "")}
            target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                              encoding="utf-8")
            report.problems.append(ProblemReport(data["identifier"], file=str(target),
                                                 checks=1))
            if progress:
                progress(data["identifier"])
        return report


class MultiPLE(_TestPrograms):
    """MultiPL-E (``judge import multipl-e FILE``): HumanEval and MBPP in its languages."""

    label = "MultiPL-E"
    convert = staticmethod(multipl_e)


class HumanEvalX(_TestPrograms):
    """HumanEval-X's ``humaneval_<lang>.jsonl(.gz)`` with its own tests."""

    label = "HumanEval-X"
    convert = staticmethod(humaneval_x)


class Mbxp(_TestPrograms):
    """MBXP (amazon-science/mxeval)."""

    label = "MBXP"
    convert = staticmethod(mbxp)


__all__ = ["HumanEvalX", "Mbxp", "MultiPLE", "humaneval_x", "mbxp", "multipl_e"]
