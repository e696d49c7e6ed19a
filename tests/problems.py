"""Problems the sandbox tests share: built here once, so each test file says only its cases."""

from __future__ import annotations

from typing import Any


def next_number_data(cases: list[tuple[int, int]]) -> dict[str, Any]:
    """``next_number(n) -> int`` with the given (n, expected) cases: the smallest function
    problem every language can express (hostile candidates are written against it)."""
    return {
        "identifier": "next_number", "description": "n + 1",
        "prompts": [{"prompt_id": "plain", "prompt": "Return n + 1.", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "next_number",
                               "parameters": [{"name": "n", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"n": n}, "expected_output": [out]}
                                   for n, out in cases]}
