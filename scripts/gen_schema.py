"""Write the JSON Schemas of the documented formats, generated from their pydantic models.

    python scripts/gen_schema.py            # (re)write docs/schema/*.schema.json
    python scripts/gen_schema.py --check    # exit 1 when a committed schema is out of date

The problem file's schema comes from ``judge.problem.model.Problem``, the program problem
file's from ``judge.problem.program.ProgramProblem``, the results line's from
the HTTP service's response model (``judge.service.models.ResultLine``, which is the line
``judge run`` writes). tests/house/test_docs.py runs the check.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "docs" / "schema"


def _problem() -> dict[str, Any]:
    from judge.problem.model import Problem

    schema = Problem.model_json_schema()
    schema["title"] = "judge problem file"
    schema["description"] = ("One problem definition (docs/formats.md). The shape only: "
                             "`judge validate` also checks types, names and values.")
    return schema


def _program() -> dict[str, Any]:
    from judge.problem.program import ProgramProblem

    schema = ProgramProblem.model_json_schema()
    schema["title"] = "judge program problem file"
    schema["description"] = ("One program problem (stdin/stdout; docs/programs.md). The shape "
                             "only: `judge validate` also checks files, names and values.")
    return schema


def _result_line() -> dict[str, Any]:
    from judge.service.models import ResultLine

    schema = ResultLine.model_json_schema()
    schema["title"] = "judge results line"
    return schema


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "problem.schema.json": _problem,
    "program-problem.schema.json": _program,
    "result-line.schema.json": _result_line,
}


def render(build: Callable[[], dict[str, Any]]) -> str:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **build()}
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing them")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    stale = []
    for name, build in SCHEMAS.items():
        path = SCHEMA_DIR / name
        text = render(build)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print("wrote %s" % path.relative_to(ROOT))
    if stale:
        print("out of date (run: python scripts/gen_schema.py): %s" % ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
