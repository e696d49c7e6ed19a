"""Reading the small files of a Kattis / ICPC problem package: YAML with line numbers,
DOMjudge's ``domjudge-problem.ini`` and ``.timelimit``, problem statements, and the
language of a submission from its file extension. Pure reading, nothing is run.
"""

from __future__ import annotations

import ast
import html as htmllib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from judge import languages
from judge.errors import InputError, Issue
from judge.languages.base import Language
from judge.problem.package_files import (MAX_SMALL_BYTES, MAX_TEXT_BYTES, MAX_YAML_BYTES,
                                           PackageFiles, Refused)

#: submission file extensions -> Kattis's name of a language no module of the judge runs
#: (listed, never judged). The judge's languages declare their own extensions and Kattis
#: names (:attr:`judge.languages.Language.names_in`); one that declares an extension here
#: takes it
OTHER_LANGUAGES = {
    ".py2": "python2",
    ".hs": "haskell", ".ml": "ocaml", ".lisp": "lisp", ".pas": "pascal", ".f90": "fortran",
    ".swift": "swift", ".m": "objectivec",
    # Kattis's Prolog (problemtools' languages.yaml): a package's .pl is never Perl
    ".pl": "prolog",
}
#: Kattis's Python 3: a file of it is Python 2 when its shebang or its syntax says so
PYTHON3 = "python3"


def kattis_name(lang: Language) -> str:
    """The name a package's submission in ``lang`` is listed under: Kattis's, else the
    judge's."""
    return lang.name_in("kattis") or lang.name


def judged(language: str | None) -> bool:
    """Whether the judge runs submissions listed under ``language`` (a Kattis name)."""
    return language is not None and (language in languages.all_named_in("kattis")
                                     or language in languages.REGISTRY)


@dataclass
class YamlFile:
    """A parsed YAML mapping with the line of each top-level key (1-based)."""

    path: Path
    data: dict[str, Any]
    lines: dict[str, int]

    def issue(self, message: str, key: str | None = None) -> Issue:
        return Issue(str(self.path), message, key or "", self.lines.get(key or "", None))


#: budgets of a package's YAML files (with ``MAX_YAML_BYTES``): nesting, nodes once every
#: alias is expanded (a billion-laughs file is refused before it is built), parse events,
#: and digits of an integer
YAML_MAX_DEPTH = 64
YAML_MAX_NODES = 100_000
YAML_MAX_EVENTS = 200_000
YAML_MAX_INT_CHARS = 100


def _yaml_issue(path: Path, message: str, mark: Any = None) -> InputError:
    return InputError([Issue(str(path), message, line=mark.line + 1 if mark else None)])


def _yaml_events(path: Path, text: str) -> None:
    """Nesting depth and size checked on the parser's events (iterative: a file nested
    20,000 deep is refused before anything recurses)."""
    depth = 0
    for count, event in enumerate(yaml.parse(text, Loader=yaml.SafeLoader)):
        if count >= YAML_MAX_EVENTS:
            raise _yaml_issue(path, "too large a YAML document (more than %d values)"
                              % YAML_MAX_EVENTS, event.start_mark)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > YAML_MAX_DEPTH:
                raise _yaml_issue(path, "YAML nested deeper than %d levels" % YAML_MAX_DEPTH,
                                  event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _yaml_nodes(path: Path, root: yaml.Node) -> None:
    """The composed node graph, aliases expanded, measured without expanding it: its size
    and depth (each node once, iteratively); a recursive alias, an expansion past the
    budgets and an integer of too many digits are refused with their line."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            if node.tag == "tag:yaml.org,2002:int" and len(node.value) > YAML_MAX_INT_CHARS:
                raise _yaml_issue(path, "an integer of %d characters (at most %d)"
                                  % (len(node.value), YAML_MAX_INT_CHARS), node.start_mark)
            size[key], depth[key] = 1, 0
            continue
        children = [c for pair in node.value for c in pair] \
            if isinstance(node, yaml.MappingNode) else list(node.value)
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            if size[key] > YAML_MAX_NODES:
                raise _yaml_issue(path, "its aliases expand to more than %d values"
                                  % YAML_MAX_NODES, node.start_mark)
            if depth[key] > YAML_MAX_DEPTH:
                raise _yaml_issue(path, "its aliases nest deeper than %d levels"
                                  % YAML_MAX_DEPTH, node.start_mark)
            continue
        if key in size:
            continue
        if key in on_path:
            raise _yaml_issue(path, "a recursive alias (a value that contains itself)",
                              node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise _yaml_issue(path, "a recursive alias (a value that contains itself)",
                                  child.start_mark)
            if id(child) not in size:
                stack.append((child, False))


def parse_yaml(path: Path, text: str) -> tuple[Any, yaml.Node | None]:
    """A YAML document parsed on a budget (see ``YAML_MAX_*``): the value and its node;
    InputError naming the file and line of whatever is wrong or past a budget."""
    try:
        _yaml_events(path, text)
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, None
            _yaml_nodes(path, node)
            return loader.construct_document(node), node
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise _yaml_issue(path, "invalid YAML: %s" % problem, mark) from None
    except RecursionError:
        raise _yaml_issue(path, "YAML nested too deeply") from None
    except (ValueError, TypeError, OverflowError) as exc:  # a value PyYAML cannot build
        if isinstance(exc, InputError):
            raise
        raise _yaml_issue(path, "invalid YAML value: %s" % str(exc)[:200]) from None


def read_yaml(path: Path, files: PackageFiles | None = None) -> YamlFile:
    """Parse a YAML mapping (an empty file is an empty mapping) read through ``files`` (the
    package's safe reader; by default one rooted at the file's folder), on a budget
    (``parse_yaml``); raise InputError naming the file and line of a syntax error, of a
    file refused or past a budget, or of a top level that is not a mapping."""
    files = files if files is not None else PackageFiles(path.parent)
    raw = files.read_bytes(path, MAX_YAML_BYTES, "YAML file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError([Issue(str(path), "not UTF-8 text (byte %d)" % exc.start)]) from None
    data, node = parse_yaml(path, text)
    if data is None:
        return YamlFile(path, {}, {})
    if not isinstance(data, dict):
        raise InputError([Issue(str(path), "expected a mapping of keys to values, got %s"
                                % type(data).__name__, line=1)])
    lines = {}
    if isinstance(node, yaml.MappingNode):
        for key, _value in node.value:
            if isinstance(key, yaml.ScalarNode):
                lines[str(key.value)] = key.start_mark.line + 1
    return YamlFile(path, {str(k): v for k, v in data.items()}, lines)


def as_number(value: Any) -> float | None:
    """A YAML number, also one PyYAML read as text (YAML 1.1 reads ``1e-6`` as a string)."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            return float(value.strip()[:400])
    except ValueError:
        return None
    except OverflowError:  # an int past a float's range: larger than any ceiling
        return float("inf") if value > 0 else float("-inf")
    return None


def as_args(value: Any) -> list[str] | None:
    """Validator flags/arguments: a string split on whitespace, or a list of scalars."""
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    return None


# ---- DOMjudge -------------------------------------------------------------------------------

def read_domjudge_ini(path: Path, files: PackageFiles | None = None
                      ) -> tuple[dict[str, str], list[Issue]]:
    """``key = value`` lines; values may be quoted (and then span lines). Read through
    ``files`` (the package's safe reader; by default one rooted at the file's folder)."""
    files = files if files is not None else PackageFiles(path.parent)
    try:
        text = files.read_text(path, MAX_SMALL_BYTES, "domjudge-problem.ini")
    except Refused as exc:
        return {}, list(exc.issues)
    values: dict[str, str] = {}
    issues: list[Issue] = []
    pattern = re.compile(r"""\s*([A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^\n]*)""",
                         re.DOTALL)
    pos = 0
    while pos < len(text):
        blank = re.compile(r"\s*(?:[;#][^\n]*)?\n?").match(text, pos)
        if blank and blank.end() > pos:
            pos = blank.end()
            continue
        match = pattern.match(text, pos)
        if not match:
            line = text.count("\n", 0, pos) + 1
            issues.append(Issue(str(path), "not a 'key = value' line", line=line))
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end + 1
            continue
        raw = match.group(2).strip()
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            raw = raw[1:-1]
        values[match.group(1).lower()] = raw
        pos = match.end()
    return values, issues


def read_timelimit(path: Path, files: PackageFiles | None = None
                   ) -> tuple[float | None, Issue | None]:
    """DOMjudge's ``.timelimit``: one number of seconds (read through ``files``)."""
    files = files if files is not None else PackageFiles(path.parent)
    try:
        text = files.read_text(path, MAX_SMALL_BYTES, ".timelimit").strip()
    except Refused as exc:
        return None, exc.issue
    number = as_number(text)
    if number is None or not number > 0:
        return None, Issue(str(path), "expected a positive number of seconds, got %r"
                           % text[:40], line=1)
    return number, None


# ---- statements -----------------------------------------------------------------------------

@dataclass
class Statement:
    path: Path | None
    name: str | None
    text: str
    input_format: str | None
    output_format: str | None


_TEX_SECTION = re.compile(r"\\section\*?\{\s*(Input|Output|Interaction|Scoring)[^}]*\}",
                          re.IGNORECASE)
_TEX_ENV = re.compile(r"\\(begin|end)\{(Input|Output|Interaction)\}", re.IGNORECASE)
_WORDS = r"(?:Input|Output|Interaction|Scoring)"
#: a Markdown heading (``## Input``), or a line that is only the word (``Input:``, plain text)
_MD_SECTION = re.compile(r"^(?:#{1,4}[ \t]*(?=%s\b)|(?=%s(?:[ \t]+(?:format|specification))?"
                         r"[ \t]*:?[ \t]*$))(Input|Output|Interaction|Scoring)[^\n]*$"
                         % (_WORDS, _WORDS), re.IGNORECASE | re.MULTILINE)


def _split(text: str, pattern: re.Pattern[str]) -> tuple[str, dict[str, str]]:
    """The text before the first section heading, and each named section's text."""
    matches = list(pattern.finditer(text))
    if not matches:
        return text.strip(), {}
    sections = {}
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        sections[match.group(1).lower()] = text[match.end():end].strip()
    return text[: matches[0].start()].strip(), sections


_KINDS = {"md": 0, "tex": 1, "txt": 2, "html": 3, "pdf": 4}


def statement_files(folder: Path, files: PackageFiles | None = None) -> list[Path]:
    """``problem[.<lang>].{md,tex,pdf}`` (and DOMjudge's ``problem.{txt,html,pdf}``); one
    that leads outside the package (or is not a regular file) is noted in ``files.issues``."""
    files = files if files is not None else PackageFiles(folder)
    if not files.is_dir(folder):
        return []
    return [p for p in files.listdir(folder)
            if re.fullmatch(r"problem(\.[A-Za-z-]+)?\.(md|tex|txt|html|pdf)", p.name)
            and files.is_file(p)]


def _language_rank(path: Path) -> tuple[int, int]:
    parts = path.name.split(".")
    language = parts[1] if len(parts) == 3 else "en"
    return (0 if language == "en" else 1, _KINDS[parts[-1]])


def _html_text(html: str) -> str:
    """The text of an HTML statement: scripts and styles dropped, tags to line breaks."""
    html = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>", "", html)
    html = re.sub(r"(?i)<\s*(br|/p|/div|/h[1-6]|/li|/pre|/tr)\b[^>]*>", "\n", html)
    html = re.sub(r"<[^>]*>", "", html)
    text = htmllib.unescape(html)
    return re.sub(r"\n\s*\n\s*\n+", "\n\n", text).strip()


def read_statement(folders: list[Path], files: PackageFiles | None = None
                   ) -> Statement | None:
    """The English statement (else the first), from the first folder that has one,
    Markdown before LaTeX before text before HTML; a PDF only names its file. Read through
    ``files`` (the package's safe reader: by default one rooted at the last folder); what
    it refuses is in ``files.issues`` (and there is no statement)."""
    if files is None and not folders:
        return None
    files = files if files is not None else PackageFiles(folders[-1])
    found = [(_language_rank(p)[0], order, _language_rank(p)[1], p)
             for order, folder in enumerate(folders) for p in statement_files(folder, files)]
    if not found:
        return None
    path = min(found)[-1]
    if path.suffix == ".pdf":
        return Statement(path, None, "", None, None)
    read = files.text(path, MAX_TEXT_BYTES, "statement")
    if read is None:
        return None
    text = read
    name = None
    if path.suffix == ".html":
        text = _html_text(text)
    if path.suffix == ".tex":
        found = re.search(r"\\problemname\{((?:[^{}]|\{[^{}]*\})*)\}", text)
        if found:
            name = found.group(1).strip()
            text = text[: found.start()] + text[found.end():]
        text = _TEX_ENV.sub(lambda m: "\\section*{%s}" % m.group(2)
                            if m.group(1) == "begin" else "", text)
        body, sections = _split(text, _TEX_SECTION)
    elif path.suffix in (".md", ".txt", ".html"):
        title = re.match(r"\s*#\s+(.+)\n", text)
        if title and not _MD_SECTION.match(title.group(0).strip()):
            name = title.group(1).strip()
            text = text[title.end():]
        body, sections = _split(text, _MD_SECTION)
    input_format = sections.get("input")
    output_format = sections.get("output") or sections.get("interaction")
    return Statement(path, name, body, input_format, output_format)


# ---- submissions ----------------------------------------------------------------------------

#: DOMjudge's verdict names (``@EXPECTED_RESULTS@: ...`` in a submission) -> the judge's
EXPECTED_RESULTS = {
    "CORRECT": ("pass",), "ACCEPTED": ("pass",), "WRONG-ANSWER": ("wrong_answer",),
    "WRONG_ANSWER": ("wrong_answer",), "NO-OUTPUT": ("wrong_answer",),
    "TIMELIMIT": ("timeout",), "TIME-LIMIT": ("timeout",), "TIME_LIMIT_EXCEEDED": ("timeout",),
    "RUN-ERROR": ("runtime_error", "memory_limit"), "RUN_TIME_ERROR": ("runtime_error",
                                                                       "memory_limit"),
    "MEMORY-LIMIT": ("memory_limit",), "OUTPUT-LIMIT": ("output_limit",),
    "COMPILER-ERROR": ("compile_error",),
}
_EXPECTED = re.compile(r"@EXPECTED_RESULTS@\s*:?\s*([A-Za-z_, \t-]+)")


def expected_results(text: str) -> tuple[str, ...] | None:
    """The verdicts a DOMjudge-style ``@EXPECTED_RESULTS@: TIMELIMIT, WRONG-ANSWER`` comment
    allows (judge vocabulary); None when the text has no such comment or names a result this
    judge does not know."""
    match = _EXPECTED.search(text)
    if match is None:
        return None
    names = [n.strip().upper() for n in re.split(r"[,\s]+", match.group(1)) if n.strip()]
    if not names or any(n not in EXPECTED_RESULTS for n in names):
        return None
    return tuple(dict.fromkeys(v for n in names for v in EXPECTED_RESULTS[n]))


#: statements and names only Python 2 has (a ``print x`` statement, ``except E, e:``,
#: backquotes, ``exec code``, the builtins Python 3 dropped)
_PYTHON2 = re.compile(r"^[ \t]*print[ \t]+[^\s(=.,)\[]|^[ \t]*print[ \t]*$|"
                      r"^[ \t]*except[ \t]+[\w.]+[ \t]*,[ \t]*\w+[ \t]*:|"
                      r"\b(?:raw_input|xrange|unichr|basestring|iteritems|itervalues)\s*\(|"
                      r"\.has_key\s*\(|`[^`\n]+`", re.M)


#: builtins Python 3 dropped: a call to one the program never defines cannot run there
_PYTHON2_ONLY = frozenset({"raw_input", "xrange", "unichr", "basestring", "unicode",
                           "long", "reduce", "execfile", "cmp"})


def looks_like_python2(text: str) -> bool:
    """A ``.py`` file without a python2 shebang that is Python 2 all the same: it does not
    compile as Python 3, or it calls what only Python 2 has (``raw_input``, ``xrange``...)
    without defining it. problemtools runs such a file as Python 3 (its error is the
    package's); this judge has no Python 2 runtime either, so it is listed, not judged."""
    if not _PYTHON2.search(text):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return True
    if re.search(r"except\s*(?:\(\s*)?(?:NameError|ImportError|Exception)\b|"
                 r"version_info|PY2|PY3", text):
        return False  # written for both: it checks which Python runs it
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id in _PYTHON2_ONLY}
    return bool(called - bound)


def _suffix(name: str) -> str:
    suffix = Path(name).suffix
    return suffix if suffix == ".C" else suffix.lower()


def sources_language(sources: dict[str, str]) -> str | None:
    """The language of a submission's code files (name -> text) from their extensions
    (Python 2 by its shebang, or by syntax only Python 2 has); None when there is none or
    several."""
    langs: list[Language] = []
    others: set[str] = set()  # languages the judge does not run
    python3 = languages.named_in("kattis", PYTHON3)
    for name, text in sorted(sources.items()):
        suffix = _suffix(name)
        lang = None if suffix in OTHER_LANGUAGES else languages.for_extension(suffix)
        if lang is python3:  # Python 3 unless its shebang says python2
            text = text[: 1 << 20]
            first = text.split("\n", 1)[0]
            if re.match(r"#!.*python2", first) or (
                    suffix == ".py" and not re.match(r"#!.*python3", first)
                    and looks_like_python2(text)):
                lang = None
                others.add("python2")
        if lang is not None:
            langs.append(lang)
        elif suffix in OTHER_LANGUAGES:
            others.add(OTHER_LANGUAGES[suffix])
    if others:
        return others.pop() if len(others) == 1 and not langs else None
    lang = languages.one_language(langs)  # C beside C++ is C++
    return kattis_name(lang) if lang is not None else None


def submission_language(path: Path, files: PackageFiles | None = None) -> str | None:
    """The language of a submission file or folder (``sources_language`` of its code
    files, read through ``files``: by default a reader rooted at the folder it is in)."""
    return sources_language(submission_sources(path, files) or {})


def _code_files(path: Path, files: PackageFiles) -> list[Path]:
    return [p for p in files.files(path, hidden=False) if _is_code(p.name)]


def _is_code(name: str) -> bool:
    """A file of a submission folder that is code: a language's source or header, or a
    file in a language the judge does not run."""
    suffix = _suffix(name)
    return suffix in OTHER_LANGUAGES or languages.for_extension(suffix) is not None \
        or languages.is_header(suffix)


def submission_sources(path: Path, files: PackageFiles | None = None) -> dict[str, str] | None:
    """The files the judge compiles for a submission (name -> text): the file itself, or
    every code file of a submission folder, headers included, under their own names
    (relative to the folder: a Java class is in its own file, a C++ file includes its
    headers). None when there is no code. Read through ``files`` (the package's safe
    reader; by default one rooted at the folder the submission is in): Refused (an
    InputError naming the file) for a link leading outside it, a special file, or a file
    or program past the bounds of ``judge.problem.package_files``."""
    files = files if files is not None else PackageFiles(path.parent)
    kind = files.kind(path)
    if kind == "file":
        return files.sources(path)
    if kind != "dir":
        return None
    code = {str(p) for p in _code_files(path, files)}
    if not code:
        return None
    return files.sources(path, keep=lambda p: str(p) in code)


def submission_source(path: Path, files: PackageFiles | None = None) -> Path | None:
    """The one source file the judge compiles for a submission: the file itself, or the
    only source file of a submission folder. The other files of a folder that are not code
    (notes, data: no extension the languages table knows) are not sources, as the format
    says, and are left out; a folder with several code files (headers included: the
    source may include them) is a multi-file program (``submission_sources``): None."""
    files = files if files is not None else PackageFiles(path.parent)
    kind = files.kind(path)
    if kind == "file":
        return path
    if kind != "dir":
        return None
    code = _code_files(path, files)
    return code[0] if len(code) == 1 else None


def package_name(config: YamlFile, ini: dict[str, str], statement_name: str | None,
                 identifier: str) -> str:
    """A package's name: problem.yaml's (English if several), DOMjudge's, the statement's,
    else its id."""
    name = config.data.get("name")
    if isinstance(name, dict):
        name = name.get("en") or next(iter(name.values()), None)
    return str(name or ini.get("name") or statement_name or identifier)


def package_languages(config: YamlFile, notes: list[str]) -> list[str] | None:
    """2023-07 ``languages``: the language codes a problem may be solved in (None: all)."""
    value = config.data.get("languages", "all")
    names = value.split() if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        notes.append("problem.yaml languages is not a list of names: ignored")
        return None
    return None if "all" in names else names
