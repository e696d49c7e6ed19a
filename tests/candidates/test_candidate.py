"""judge.candidate: code pulled out of model replies, and solutions files read line by line."""

from __future__ import annotations

import ast
import gzip
import json

import pytest

from judge.candidates.extract import Candidate, extract_code, fenced_blocks, read_solutions, with_completion_prefix

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

FUNC = "def f(x):\n    return x + 1\n"


# ---- extract_code ----------------------------------------------------------------------------

def test_bare_code_is_taken_whole():
    code = "import math\n\n" + FUNC
    assert extract_code(code, ["f"]) == (code, None)


def test_prose_and_one_fence():
    reply = "Here is my solution:\n\n```python\n%s```\n\nIt adds one to x." % FUNC
    assert extract_code(reply, ["f"]) == (FUNC, None)


def test_several_fences_take_the_one_that_defines_the_function():
    reply = ("First install:\n```bash\npip install nothing\n```\n"
             "A helper:\n```python\ndef helper():\n    return 0\n```\n"
             "The answer:\n```python\n%s```\n"
             "Usage:\n```python\nprint(f(1))\n```\n" % FUNC)
    code, note = extract_code(reply, ["f"])
    assert code == FUNC
    assert note is not None and "block 2 of 3" in note and "defines f" in note


def test_several_defining_fences_take_the_last():
    reply = ("```python\ndef f(x):\n    return 0\n```\nBetter:\n"
             "```python\ndef f(x):\n    return 1\n```\n")
    code, note = extract_code(reply, ["f"])
    assert code == "def f(x):\n    return 1\n"
    assert "block 2 of 2" in note


def test_names_are_tried_in_order():
    reply = "```python\ndef func(a):\n    return a\n```\n```python\nx = 1\n```\n"
    code, note = extract_code(reply, ["func", "real_name"])
    assert code == "def func(a):\n    return a\n"
    assert "defines func" in note


@pytest.mark.parametrize("fence", ["```py", "```python3", "```Python", "```", "~~~", "~~~python"])
def test_fence_spellings(fence):
    close = fence[:3]
    reply = "Answer:\n%s\n%s%s\nDone." % (fence, FUNC, close)
    assert extract_code(reply, ["f"])[0] == FUNC


def test_fences_in_other_languages_are_ignored():
    assert fenced_blocks("```js\nlet x = 1;\n```\n```python\nx = 2\n```\n") == ["x = 2\n"]


def test_longer_fence_may_contain_backticks():
    reply = "````python\ndef f(x):\n    return '```'\n````\n"
    assert extract_code(reply, ["f"])[0] == "def f(x):\n    return '```'\n"


def test_unfenced_prose_around_code():
    reply = "Sure! Here's the solution.\n\n%s\nThis returns x plus one." % FUNC
    code, note = extract_code(reply, ["f"])
    assert code.strip() == FUNC.strip()
    assert note == "removed prose around the code"
    ast.parse(code)


def test_unfenced_prose_with_imports_first():
    reply = "Solution below.\nimport math\n\ndef f(x):\n    return math.floor(x)\nHope it helps!"
    code, note = extract_code(reply, ["f"])
    assert code == "import math\n\ndef f(x):\n    return math.floor(x)"
    assert note == "removed prose around the code"


def test_unterminated_final_fence():
    reply = "Here you go:\n```python\n%s" % FUNC
    assert extract_code(reply, ["f"]) == (FUNC, None)
    reply = "One:\n```python\nx = 1\n```\nTwo:\n```python\n%s" % FUNC
    code, note = extract_code(reply, ["f"])
    assert code == FUNC and "block 2 of 2" in note


def test_blocks_without_the_function_are_joined():
    reply = "```python\nimport math\n```\n```python\nX = 1\n```\n"
    code, note = extract_code(reply, ["f"])
    assert "import math" in code and "X = 1" in code
    assert "joined 2 code blocks" in note and "none defines f" in note


def test_text_without_code_is_returned_as_is():
    reply = "I cannot solve this."
    assert extract_code(reply, ["f"]) == (reply, None)


def test_indented_fence_inside_a_list_item_is_dedented():
    reply = ("1. Define the function:\n\n    ```python\n    def f(x):\n        return x + 1\n"
             "    ```\n")
    code, _ = extract_code(reply, ["f"])
    ast.parse(code)


# ---- with_completion_prefix --------------------------------------------------------------------

PREFIX = 'import math\n\n\ndef f(x):\n    """Return x plus one."""\n'


def test_completion_body_continues_the_prefix():
    code, how = with_completion_prefix("    return x + 1\n", PREFIX, "f")
    assert code == PREFIX + "    return x + 1\n"
    assert how == "body continuing the prompt"
    namespace = {}
    exec(compile(code, "c", "exec"), namespace)
    assert namespace["f"](1) == 2


def test_full_function_is_appended_after_the_prefix():
    full = "def f(x):\n    return math.floor(x) + 1\n"
    code, how = with_completion_prefix(full, PREFIX, "f")
    assert how.startswith("full function")
    assert code.startswith("import math")
    assert code.endswith(full)
    namespace = {}
    exec(compile(code, "c", "exec"), namespace)
    assert namespace["f"](1.5) == 2  # the candidate's definition wins and sees the import


def test_full_function_after_other_code():
    full = "import math\n\ndef f(x):\n    return 7\n"
    code, how = with_completion_prefix(full, PREFIX, "f")
    assert how.startswith("full function") and code.endswith(full)


# ---- read_solutions ----------------------------------------------------------------------------

def write_lines(path, lines):
    path.write_bytes(b"".join((l if isinstance(l, bytes) else l.encode()) + b"\n" for l in lines))
    return path


def test_read_solutions_fields(tmp_path):
    path = write_lines(tmp_path / "s.jsonl", [json.dumps(
        {"problem_id": "p", "solution": FUNC, "model": "m", "prompt_id": "q", "sample": 3})])
    ((candidate, issue),) = list(read_solutions(path))
    assert issue is None
    assert candidate == Candidate("p", FUNC, "m", "q", 3, 1)


def test_aliases(tmp_path):
    path = write_lines(tmp_path / "s.jsonl", [
        json.dumps({"task_id": "HumanEval/0", "completion": "    return 1\n"}),
        json.dumps({"problem_id": "p", "code": "x = 1", "run": 2}),
    ])
    results = list(read_solutions(path))
    assert [i for _, i in results] == [None, None]
    first, second = (c for c, _ in results)
    assert (first.problem_id, first.solution, first.sample) == ("HumanEval/0", "    return 1\n", None)
    assert (second.problem_id, second.solution, second.sample) == ("p", "x = 1", 2)


def test_bad_lines_are_reported_and_the_rest_still_yielded(tmp_path):
    path = write_lines(tmp_path / "s.jsonl", [
        json.dumps({"problem_id": "a", "solution": "1"}),
        '{"problem_id": "b", "solution": ',
        "",
        b'{"problem_id": "c", "solution": "caf\xe9"}',
        json.dumps({"solution": "no id"}),
        json.dumps({"problem_id": "d"}),
        json.dumps({"problem_id": "e", "solution": "s", "sample": "1"}),
        json.dumps({"problem_id": "e", "solution": "s", "sample": True}),
        json.dumps({"problem_id": "e", "solution": "s", "sample": 1.5}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"problem_id": "f", "solution": "s", "model": 5}),
        json.dumps({"problem_id": "g", "solution": "last"}),
    ])
    results = list(read_solutions(path))
    good = [(c.problem_id, c.line) for c, i in results if c is not None]
    assert good == [("a", 1), ("g", 12)]
    issues = {i.line: i.message for c, i in results if i is not None}
    assert sorted(issues) == [2, 4, 5, 6, 7, 8, 9, 10, 11]
    assert "invalid JSON" in issues[2]
    assert "not UTF-8" in issues[4] and "0xe9" in issues[4]
    assert "problem_id" in issues[5]
    assert "solution" in issues[6]
    assert all("sample must be an integer" in issues[n] for n in (7, 8, 9))
    assert "JSON object" in issues[10]
    assert "model must be a string" in issues[11]
    for _, issue in results:
        if issue is not None:
            assert issue.file == str(path)
            assert str(issue).startswith("%s:%d: " % (path, issue.line))


def test_empty_solution_text_is_read_not_dropped(tmp_path):
    path = write_lines(tmp_path / "s.jsonl", [json.dumps({"problem_id": "p", "solution": ""})])
    ((candidate, issue),) = list(read_solutions(path))
    assert issue is None and candidate.solution == ""  # the batch runner judges it


def test_gzip_file(tmp_path):
    path = tmp_path / "s.jsonl.gz"
    with gzip.open(path, "wb") as handle:
        handle.write((json.dumps({"task_id": "p", "completion": FUNC}) + "\n").encode())
        handle.write(b"{bad\n")
    results = list(read_solutions(path))
    assert results[0][0].problem_id == "p" and results[0][0].solution == FUNC
    assert results[1][0] is None and results[1][1].line == 2


def test_lines_without_trailing_newline_and_crlf(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(json.dumps({"problem_id": "a", "solution": "x"}).encode() + b"\r\n"
                     + json.dumps({"problem_id": "b", "solution": "y"}).encode())
    assert [c.problem_id for c, _ in read_solutions(path)] == ["a", "b"]
