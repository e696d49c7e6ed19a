"""A hostile-package generator for issue 36's defect 1 (tests/importers/test_package_safety*.py): a
small valid Kattis package in one of three layouts, and a symbolic link to a root-only
secret (a file or a folder holding a random marker) placed at any path the importer reads.

``secret_tree(folder, marker)`` writes the secrets, each in the shape that would leak
where it is read (a YAML mapping naming the marker, a statement titled with it, a Python
program and output validator that print it, test data that is it); ``package(folder,
layout)`` writes a package that imports and verifies cleanly; ``HOSTILE`` lists every
(layout, path, secret) the generator can place; ``plant(root, path, secrets)`` places one.
"""

from __future__ import annotations

import os
from pathlib import Path

#: the validator every layout uses: tokens equal, else rejected with a message
VALIDATOR = '''import sys
answer = open(sys.argv[2]).read().split()
got = sys.stdin.read().split()
if got == answer:
    sys.exit(42)
open(sys.argv[3] + "/judgemessage.txt", "w").write("expected %r" % answer[:3])
sys.exit(43)
'''
ECHO = "print(input())\n"
STATEMENT = "# Echo\n\nEcho the number.\n\n## Input\n\nA number.\n\n## Output\n\nThe number.\n"

LAYOUTS = {
    "legacy": {
        "problem.yaml": "name: Echo\nvalidation: custom\n",
        ".timelimit": "2\n",
        "domjudge-problem.ini": "name = Echo\n",
        "problem_statement/problem.en.md": STATEMENT,
        "output_validators/check/check.py": VALIDATOR,
        "data/sample/1.in": "1\n", "data/sample/1.ans": "1\n",
        "data/secret/1.in": "2\n", "data/secret/1.ans": "2\n",
        "data/secret/testdata.yaml": "# the group's settings\n",
        "submissions/accepted/echo.py": ECHO,
        "submissions/accepted/multi/main.py": "import util\nprint(input())\n",
        "submissions/accepted/multi/util.py": "X = 1\n",
    },
    "2023-07": {
        "problem.yaml": "problem_format_version: 2023-07-draft\nname: Echo\n"
                        "limits:\n  time_limit: 2\n",
        "statement/problem.en.md": STATEMENT,
        "output_validator/validator.py": VALIDATOR,
        "include/python/helper.py": "X = 1\n",
        "data/test_group.yaml": "# the settings of every group\n",
        "data/sample/1.in": "1\n", "data/sample/1.ans": "1\n",
        "data/secret/1.in": "2\n", "data/secret/1.ans": "2\n",
        "submissions/accepted/echo.py": "import helper\nprint(input())\n",
    },
    "domjudge": {
        "problem.yaml": "name: Echo\n",
        ".timelimit": "2\n",
        "domjudge-problem.ini": "name = Echo\ntimelimit = 2\n",
        "problem.txt": STATEMENT,
        "data/sample/1.in": "1\n", "data/sample/1.ans": "1\n",
        "data/secret/1.in": "2\n", "data/secret/1.ans": "2\n",
        "submissions/accepted/echo.py": ECHO,
    },
}

#: (layout, path in the package, secret it links to): every path the importer reads
HOSTILE = [
    ("legacy", "problem.yaml", "secret.yaml"),
    ("legacy", ".timelimit", "secret.txt"),
    ("legacy", "domjudge-problem.ini", "secret.ini"),
    ("legacy", "problem_statement", "statement"),
    ("legacy", "problem_statement/problem.en.md", "statement/problem.en.md"),
    ("legacy", "output_validators", "validators"),
    ("legacy", "output_validators/check", "validator"),
    ("legacy", "output_validators/check/check.py", "validator/check.py"),
    ("legacy", "output_validators/check/util.py", "secret.py"),
    ("legacy", "data/secret/testdata.yaml", "secret.yaml"),
    ("legacy", "data/secret/1.yaml", "secret.yaml"),
    ("legacy", "data/secret/1.in", "data/1.in"),
    ("legacy", "data/secret/1.ans", "data/1.ans"),
    ("legacy", "data/sample/1.ans", "data/1.ans"),
    ("legacy", "data/sample/1.out", "data/1.ans"),
    ("legacy", "data/secret", "data"),
    ("legacy", "data/secret/1.files/notes.txt", "secret.txt"),
    ("legacy", "submissions/accepted/echo.py", "secret.py"),
    ("legacy", "submissions/accepted", "submissions"),
    ("legacy", "submissions/accepted/multi/util.py", "secret.py"),
    ("legacy", "submissions/accepted/multi", "submission"),
    ("2023-07", "problem.yaml", "secret.yaml"),
    ("2023-07", "statement", "statement"),
    ("2023-07", "statement/problem.en.md", "statement/problem.en.md"),
    ("2023-07", "output_validator", "validator"),
    ("2023-07", "output_validator/validator.py", "validator/check.py"),
    ("2023-07", "include/python", "include"),
    ("2023-07", "include/python/helper.py", "include/helper.py"),
    ("2023-07", "include", "includes"),
    ("2023-07", "data/test_group.yaml", "secret.yaml"),
    ("2023-07", "data/secret/test_group.yaml", "secret.yaml"),
    ("domjudge", "problem.txt", "statement/problem.en.md"),
    ("domjudge", "problem.html", "statement/problem.en.md"),
    ("domjudge", "problem.pdf", "secret.txt"),
    ("domjudge", "domjudge-problem.ini", "secret.ini"),
]


def secret_python(marker: str) -> str:
    """A program that says the marker every way it can: as a submission (its output, its
    error), as an output validator (its judge message), as an imported module."""
    return ('import sys\nM = "%s"\nif len(sys.argv) > 3:\n'
            '    open(sys.argv[3] + "/judgemessage.txt", "w").write(M)\n    sys.exit(43)\n'
            'print(M)\nsys.stderr.write(M)\nraise SystemExit(M)\n' % marker)


def secret_tree(folder: Path, marker: str) -> Path:
    """Root-only secrets (mode 600 files in a mode 700 folder) holding ``marker``."""
    folder.mkdir(mode=0o700, parents=True)
    statement = "# %s\n\n%s\n\n## Input\n\n%s\n\n## Output\n\n%s\n" % ((marker,) * 4)
    python = secret_python(marker)
    files = {
        "secret.txt": marker + "\n",
        "secret.yaml": "name: %s\nvalidator_flags: %s\noutput_validator_flags: %s\n"
                       "args: [%s]\n" % ((marker,) * 4),
        "secret.ini": "name = %s\ntimelimit = %s\n" % (marker, marker),
        "secret.py": python,
        "statement/problem.en.md": statement,
        "validators/check.py": python,
        "validator/check.py": python,
        "include/helper.py": python,
        "includes/python/helper.py": python,
        "submissions/leak.py": python,
        "submission/main.py": python,
        "data/1.in": marker + "\n", "data/1.ans": marker + "\n",
    }
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o600)
    return folder


def package(folder: Path, layout: str, name: str = "echo") -> Path:
    """A small valid package (one sample, one secret test, accepted Python submissions)."""
    root = folder / name
    for rel, text in LAYOUTS[layout].items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def plant(root: Path, rel: str, target: Path) -> None:
    """Put a symbolic link to ``target`` at ``rel`` (replacing what is there)."""
    path = root / rel
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        import shutil

        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def leaks(marker: str, *places: Path | str | bytes) -> list[str]:
    """Where ``marker`` shows: texts given, and every file under the folders given."""
    found = []
    needle = marker.encode()
    for place in places:
        if isinstance(place, (str, bytes)):
            data = place.encode() if isinstance(place, str) else place
            if needle in data:
                found.append("output: ...%s..." % data[max(0, data.find(needle) - 200):
                                                       data.find(needle) + 50])
            continue
        files = [place] if place.is_file() else \
            [p for p in place.rglob("*") if p.is_file() and not p.is_symlink()] \
            if place.is_dir() else []
        for file in files:
            if needle in file.read_bytes():
                found.append(str(file))
    return found
