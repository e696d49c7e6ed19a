"""judge.genericize + judge.render: prompts as a model sees them, and the sandbox worker."""

from __future__ import annotations

import ast
import json
import re

import pytest

from judge.prompts.genericize import GENERIC_FUNCTION, rename_code, rename_text, renaming_for
from judge.problem.model import function_from_data
from judge.kinds.loader import load_problem, load_suite
from judge.prompts.render import RenderedPrompt, render_prompt, render_prompts
from judge.sandbox.harness import worker_files
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

DATA = ROOT / "tests" / "data" / "core"
SHIPPED = ["basics", "debugging", "types"]


def word(name: str) -> re.Pattern[str]:
    """The name as a whole word (a parameter may be a substring of another word)."""
    return re.compile(r"(?<!\w)%s(?!\w)" % re.escape(name))


def all_shipped_problems():
    return [problem for name in SHIPPED for problem in load_suite(ROOT / "problems" / name).problems]


SHIPPED_PROBLEMS = all_shipped_problems()


# ---- renaming primitives ----------------------------------------------------------------------

def test_renaming_for():
    renaming = renaming_for("word_count", ["text", "limit"])
    assert renaming.generic_function == GENERIC_FUNCTION == "func"
    assert renaming.mapping == {"word_count": "func", "text": "arg1", "limit": "arg2"}


def test_rename_text_renames_code_never_plain_words():
    mapping = renaming_for("count_words", ["words", "n"]).mapping
    text = "Call `count_words(words, n)`: words is a list; keywords and n_max and wordsmith stay."
    out = rename_text(text, mapping)
    # in backticks it is code; "words is a list" is English and stays
    assert out == "Call `func(arg1, arg2)`: words is a list; keywords and n_max and wordsmith stay."


def test_rename_text_prose_word_equal_to_a_parameter_is_not_renamed():
    """Issue 23 item 2: a parameter named like an English word."""
    mapping = renaming_for("sort_copy", ["a"]).mapping
    text = "Given a list a, return a sorted copy of a."
    assert rename_text(text, mapping) == text
    assert rename_text("Given a list `a`, call sort_copy(a); a = [2, 1] gives [1, 2].",
                       mapping) == "Given a list `arg1`, call func(arg1); arg1 = [2, 1] gives [1, 2]."


def test_rename_text_doctests_calls_and_code_spellings():
    mapping = renaming_for("has_close_elements", ["numbers", "threshold"]).mapping
    doc = ("Check if in given list of numbers, are any two numbers closer than threshold.\n"
           ">>> has_close_elements([1.0, 2.0], threshold=0.5)\n"
           "False\n"
           "... numbers\n"
           "0 <= threshold <= len(numbers); has_close_elements is the name\n")
    assert rename_text(doc, mapping) == (
        "Check if in given list of numbers, are any two numbers closer than threshold.\n"
        ">>> func([1.0, 2.0], arg2=0.5)\n"
        "False\n"
        "... arg1\n"
        "0 <= threshold <= len(arg1); func is the name\n")
    camel = renaming_for("f", ["maxValue", "x2"]).mapping
    assert rename_text("maxValue and x2 and value", camel) == "arg1 and arg2 and value"


def test_rename_text_leaves_attribute_access():
    mapping = renaming_for("greet", ["name"]).mapping
    assert rename_text("Use person.name and `name`.", mapping) == "Use person.name and `arg1`."


def test_rename_text_swaps_in_one_pass():
    mapping = renaming_for("f", ["arg2", "arg1"]).mapping  # arg2 -> arg1, arg1 -> arg2
    assert rename_text("f(arg2, arg1)", mapping) == "func(arg1, arg2)"


def test_rename_code_identifiers_docstrings_comments_but_not_data():
    mapping = renaming_for("greet", ["name", "times"]).mapping
    code = (
        'def greet(name, times):\n'
        '    """Greet `name`, times times: greet(name, times)."""\n'
        '    # repeat name_\n'
        '    label = "name"\n'
        "    other = 'times'\n"
        '    person.name = name\n'
        '    return (label + name) * times + greet.__name__\n'
    )
    out = rename_code(code, mapping)
    assert out == (
        'def func(arg1, arg2):\n'
        '    """Greet `arg1`, times times: func(arg1, arg2)."""\n'
        '    # repeat name_\n'
        '    label = "name"\n'
        "    other = 'times'\n"
        '    person.name = arg1\n'
        '    return (label + arg1) * arg2 + func.__name__\n'
    )
    ast.parse(out)


def test_rename_code_keeps_layout():
    mapping = renaming_for("f", ["x"]).mapping
    code = "def f( x ):\n\n    return   x+1   # x, `x`\n"
    assert rename_code(code, mapping) == "def func( arg1 ):\n\n    return   arg1+1   # x, `arg1`\n"


def test_rename_code_falls_back_for_broken_code():
    mapping = renaming_for("f", ["x"]).mapping
    out = rename_code("def f(x:\n    return x +\n", mapping)
    assert not word("x").search(out) and not word("f").search(out)
    assert "func(arg1" in out


def test_rename_code_scopes_parameters_to_the_function():
    """A helper of the prompt with a parameter of the same name keeps its own (HumanEval/38)."""
    mapping = renaming_for("decode", ["s"]).mapping
    code = ("def encode(s):\n    return s[::-1]\n\n\n"
            "def decode(s):\n    \"\"\"Decode s, made by encode(s).\"\"\"\n    return encode(s)\n")
    out = rename_code(code, mapping, scope="decode")
    assert out == ("def encode(s):\n    return s[::-1]\n\n\n"
                   "def func(arg1):\n    \"\"\"Decode s, made by encode(arg1).\"\"\"\n"
                   "    return encode(arg1)\n")


def test_rename_code_renames_inside_fstring_replacement_fields():
    mapping = renaming_for("greet", ["name"]).mapping
    out = rename_code('def greet(name):\n    return f"hello {name}"\n', mapping)
    assert out == 'def func(arg1):\n    return f"hello {arg1}"\n'


def test_rename_code_keeps_keyword_argument_names_of_other_calls():
    mapping = renaming_for("order", ["items", "key"]).mapping
    out = rename_code("def order(items, key):\n    return sorted(items, key=key)\n", mapping)
    assert out == "def func(arg1, arg2):\n    return sorted(arg1, key=arg2)\n"


# ---- rendering one problem ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def divmod_problem():
    return load_problem(DATA / "valid.json")


def test_plain_prompt_keeps_real_names(divmod_problem):
    rendered = render_prompt(divmod_problem, divmod_problem.prompt("plain"))
    assert isinstance(rendered, RenderedPrompt)
    assert rendered.genericized is False
    assert rendered.function_name == "split_div"
    text = rendered.prompt
    assert "def split_div(dividend: int, divisor: int) -> Tuple[int, int]:" in text
    assert "`split_div(7, 2)` returns `(3, 1)`" in text
    assert not word("func").search(text) and not word("arg1").search(text)


def test_genericized_prompt_renames_everywhere(divmod_problem):
    rendered = render_prompt(divmod_problem, divmod_problem.prompt("generic"))
    assert rendered.genericized is True
    assert rendered.function_name == "func"
    text = rendered.prompt
    assert "def func(arg1: int, arg2: int) -> Tuple[int, int]:" in text
    assert "`func(9, 3)` returns `(3, 0)`" in text
    assert "`(arg1 // arg2, arg1 % arg2)`" in text
    for name in ("split_div", "dividend", "divisor"):
        assert not word(name).search(text), name


def test_genericize_override(divmod_problem):
    plain = divmod_problem.prompt("plain")
    forced = render_prompt(divmod_problem, plain, genericize=True)
    assert forced.genericized and "def func(arg1: int, arg2: int)" in forced.prompt
    # False keeps a genericize prompt generic (it only overrides towards genericizing)
    kept = render_prompt(divmod_problem, divmod_problem.prompt("generic"), genericize=False)
    assert kept.genericized


def test_to_json(divmod_problem):
    data = render_prompt(divmod_problem, divmod_problem.prompt("plain")).to_json()
    assert data["problem_id"] == "core_divmod" and data["prompt_id"] == "plain"
    assert data["genericized"] is False and data["function_name"] == "split_div"
    assert data["prompt"].startswith("Write `split_div(dividend, divisor)`")
    json.dumps(data)


def test_input_code_and_additional_instructions_are_renamed():
    data = json.loads((DATA / "valid.json").read_text(encoding="utf-8"))
    data["additional_instructions"] = "Do not import anything in split_div; `divisor` is never 0."
    data["prompts"][1]["input_code"] = (
        "def split_div(dividend, divisor):\n"
        "    # divisor may be negative\n"
        "    label = 'divisor'\n"
        "    return dividend / divisor, dividend % divisor\n")
    problem = function_from_data(data, "ic.json")
    generic = render_prompt(problem, problem.prompt("generic")).prompt
    # comments are prose: the English word stays, the code is renamed
    assert "def func(arg1, arg2):\n    # divisor may be negative\n    label = 'divisor'\n" in generic
    assert "return arg1 / arg2, arg1 % arg2" in generic
    assert "Do not import anything in func; `arg2` is never 0." in generic
    plain = render_prompt(problem, problem.prompt("plain")).prompt
    assert "Do not import anything in split_div; `divisor` is never 0." in plain


def test_render_prompts_for_a_suite():
    suite = load_suite(DATA / "valid.json")
    prompts = render_prompts(suite)
    assert [(p.prompt_id, p.genericized) for p in prompts] == [("plain", False), ("generic", True)]
    assert all(p.genericized for p in render_prompts(suite, genericize=True))


# ---- the shipped problems ---------------------------------------------------------------------

@pytest.mark.parametrize("problem", SHIPPED_PROBLEMS, ids=lambda p: p.identifier)
def test_shipped_genericized_prompts_never_show_original_names(problem):
    names = [problem.function_name] + problem.parameter_names
    for prompt in problem.prompts:
        rendered = render_prompt(problem, prompt, genericize=True)
        assert rendered.genericized and rendered.function_name == GENERIC_FUNCTION
        for name in names:
            match = word(name).search(rendered.prompt)
            assert match is None, "%s/%s shows %r: ...%s..." % (
                problem.identifier, prompt.prompt_id, name,
                rendered.prompt[max(0, match.start() - 30):match.end() + 30])
        signature = "def func(%s)" % ", ".join(
            "arg%d: %s" % (i + 1, p.type) for i, p in enumerate(problem.function_prototype.parameters))
        assert signature in rendered.prompt


@pytest.mark.parametrize("problem", SHIPPED_PROBLEMS, ids=lambda p: p.identifier)
def test_shipped_plain_prompts_keep_real_names(problem):
    for prompt in problem.prompts:
        if prompt.genericize:
            continue
        rendered = render_prompt(problem, prompt)
        assert not rendered.genericized
        assert "def %s(" % problem.function_name in rendered.prompt
        for sample in prompt.sample_inputs_outputs:
            assert "`%s(" % problem.function_name in rendered.prompt
        assert not re.search(r"\bdef func\(", rendered.prompt)


def test_shipped_genericized_input_code_still_parses():
    seen = 0
    for problem in SHIPPED_PROBLEMS:
        for prompt in problem.prompts:
            if not prompt.input_code:
                continue
            seen += 1
            renamed = rename_code(prompt.input_code, renaming_for(
                problem.function_name, problem.parameter_names).mapping)
            try:
                ast.parse(prompt.input_code)
            except SyntaxError:
                continue  # deliberately broken code stays broken
            tree = ast.parse(renamed)
            defined = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
            assert GENERIC_FUNCTION in defined, problem.identifier
    assert seen > 0


# ---- the worker ------------------------------------------------------------------------------

def test_worker_files_compile_and_stand_alone():
    files = worker_files()
    for name, data in files.items():
        source = data.decode("utf-8")
        compile(source, name, "exec")
        assert not re.search(r"^(from|import)\s+judge\b", source, re.M), name  # top level
    assert b"$tuple" in files["judge_worker/wire.py"]  # the wire codec goes with it
