"""judge.jsonl: the one JSON Lines reader and writer, on broken and hostile files."""

from __future__ import annotations

import gzip
import json

import pytest

from judge import jsonl
from judge.errors import InputError

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def lines(path, **kw):
    return list(jsonl.read_lines(path, **kw))


def test_good_lines_and_blank_lines(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"a": 1}\n\n  \n{"a": 2}\n', encoding="utf-8")
    got = lines(path)
    assert [(l.number, l.value) for l in got] == [(1, {"a": 1}), (4, {"a": 2})]


def test_bad_lines_are_located_and_skipped(tmp_path):
    path = tmp_path / "bad.jsonl"
    deep = "[" * 100000 + "]" * 100000
    path.write_bytes(b'{"a": 1}\n{"a": \n\xff\xfe{"x": 1}\n' + deep.encode() + b'\n[1, 2]\n'
                     + b'{"n": ' + b"9" * 5000 + b'}\n{"a": 3}\n')
    got = lines(path)
    good = [l.value for l in got if l.ok]
    issues = {l.number: str(l.issue) for l in got if not l.ok}
    assert good == [{"a": 1}, {"a": 3}]
    assert set(issues) == {2, 3, 4, 5, 6}
    assert all(text.startswith("%s:%d: " % (path, n)) for n, text in issues.items())
    assert "invalid JSON" in issues[2]
    assert "not UTF-8 (byte 0xff at column 1)" in issues[3]
    assert "nested too deeply" in issues[4]
    assert "must hold a JSON object, got an array" in issues[5]
    assert "invalid JSON" in issues[6] and "digits" in issues[6]


def test_truncated_last_line_is_named(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1}\n{"a": 2, "b": [1, 2', encoding="utf-8")
    got = lines(path)
    assert got[0].value == {"a": 1}
    assert "truncated last line" in str(got[1].issue)


def test_complete_last_line_without_newline_is_fine(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}', encoding="utf-8")
    assert [l.value for l in lines(path)] == [{"a": 1}, {"a": 2}]


def test_gzip_by_content_not_name(tmp_path):
    path = tmp_path / "samples.jsonl"  # no .gz suffix, gzip inside
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write('{"a": 1}\n{"a": 2}\n')
    assert [l.value for l in lines(path)] == [{"a": 1}, {"a": 2}]
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(path.read_bytes()[:20])
    with pytest.raises(InputError, match="cannot read"):
        lines(broken)


def test_over_long_line_is_skipped_without_reading_it_whole(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_text('{"a": "%s"}\n{"a": 2}\n' % ("x" * 5000), encoding="utf-8")
    got = lines(path, max_line_bytes=1000)
    assert "line of 5010 bytes is over the 1000-byte limit" in str(got[0].issue)
    assert got[1].value == {"a": 2} and got[1].number == 2


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        lines(tmp_path / "nope.jsonl")


def test_bom_on_first_line(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n')
    assert lines(path)[0].value == {"a": 1}


def test_dumps_survives_lone_surrogates():
    text = jsonl.dumps({"message": "bad \udcff char"})
    text.encode("utf-8")  # writable as UTF-8
    assert json.loads(text) == {"message": "bad \udcff char"}


def test_append_never_glues_records(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n{"a": 2, "b"', encoding="utf-8")  # killed mid-write
    notes = []
    with jsonl.open_write(path, append=True, notice=notes.append) as writer:
        writer.write({"a": 3})
    assert [l.value for l in lines(path)] == [{"a": 1}, {"a": 3}]
    assert notes and "truncated" in notes[0]
    path.write_text('{"a": 1}', encoding="utf-8")  # complete, just no newline
    with jsonl.open_write(path, append=True) as writer:
        writer.write({"a": 2})
    assert [l.value for l in lines(path)] == [{"a": 1}, {"a": 2}]


def test_read_objects_reports_each_bad_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\nnope\n{"a": 2}\n', encoding="utf-8")
    issues = []
    assert [n for n, _ in jsonl.read_objects(path, issues.append)] == [1, 3]
    assert len(issues) == 1 and issues[0].line == 2


@pytest.mark.parametrize("reader", ["lines", "json"])
def test_a_gzip_header_with_corrupt_data_is_a_located_read_error(tmp_path, reader):
    good = gzip.compress(b'{"a": 1}\n' * 50)
    path = tmp_path / "broken.jsonl"
    path.write_bytes(good[:10] + b"\x00garbage" * 10)  # the magic, then no deflate stream
    with pytest.raises(InputError) as exc:
        if reader == "lines":
            list(jsonl.read_lines(path))
        else:
            jsonl.read_json(path)
    issue = exc.value.issues[0]
    assert issue.file == str(path) and "corrupt gzip data" in issue.message
