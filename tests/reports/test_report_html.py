"""The self-contained HTML report (judge report RESULTS... --html FILE).

Rendered from hostile results (a ``<script>`` in a message stays text), then from a real run
(the shipped suites, reference / wrong / crashing solutions, two models, the process sandbox)
opened in a real headless Chromium: the page renders, its SVG charts are there, and no request
leaves ``file://`` (Chromium's own NetLog is read; a control page with an external image
proves the check sees a request when there is one). Chromium tests skip only where chromium
is not installed (scripts/ensure-toolchains.sh installs it).

``JUDGE_REPORT_SCREENSHOT=docs/img/report.png`` makes the screenshot test save its picture
there (that is how docs/img/report.png is made).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from judge.reports.html import render_html
from judge.reports.runs import Run
from judge.reports.tables import merge
from tests.paths import ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (scripts/ensure-toolchains.sh installs "
                             "it: apt-get install chromium)")
HOSTILE = "<script>alert('owned')</script>"


def _row(problem, model, verdict, tests=(), sample=None, **extra):
    tests = [dict(t) for t in tests]
    return {"problem_id": problem, "model": model, "prompt_id": None, "sample": sample,
            "verdict": verdict, "passed": sum(t["verdict"] == "pass" for t in tests),
            "total": len(tests), "tests": tests, "sandbox": "process", "time_s": 0.01, **extra}


def _page(*runs: Run) -> str:
    summary = merge([run.summary(tagged=len(runs) > 1) for run in runs])
    return render_html(list(runs), summary, [])


# ---- the page, without a browser -------------------------------------------------------------

def test_candidate_text_stays_text():
    evil_model = '"onmouseover="alert(1)'
    rows = [
        _row("<img src=x onerror=alert(1)>", evil_model, "runtime_error", [
            {"index": 0, "verdict": "runtime_error", "time_s": 0.002,
             "message": "ValueError: %s" % HOSTILE}]),
        _row("p</td><script>x()</script>", "m", "wrong_answer", [
            {"index": 0, "verdict": "wrong_answer", "time_s": 0.001,
             "message": "expected 1, got '</pre>%s'" % HOSTILE, "output": "</pre>" + HOSTILE}],
             message=HOSTILE, note="<b>note</b>"),
    ]
    page = _page(Run("r.jsonl", "r.jsonl", rows))
    assert "<script" not in page.lower()
    assert "<img" not in page and "<b>" not in page and "</td><script>" not in page
    assert '"onmouseover="' not in page  # an attribute cannot be opened by a model name
    assert page.count("&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;") >= 2
    assert "&lt;img src=x onerror=alert(1)&gt;" in page  # the problem id, shown as text


def test_page_is_self_contained():
    rows = [_row("p1", "m", "pass", [{"index": 0, "verdict": "pass", "time_s": 0.001}])]
    page = _page(Run("r.jsonl", "r.jsonl", rows))
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert "default-src 'none'" in page  # the browser is told to fetch nothing
    assert not re.search(r"https?://", page)
    assert not re.search(r"<(script|link|iframe|object|embed)\b", page, re.I)
    for chart in ("chart-pass-rates", "chart-verdicts", "chart-pass-at-k", "chart-times"):
        assert '<svg id="%s"' % chart in page


def test_matrix_worst_first_in_natural_order_with_links_to_failing_tests():
    t_pass = {"index": 0, "verdict": "pass", "time_s": 0.001}
    t_wrong = {"index": 1, "verdict": "wrong_answer", "time_s": 0.25,
               "message": "expected [1, 2], got [2, 1]"}
    rows = []
    for problem in ("HumanEval/10", "HumanEval/2", "HumanEval/1"):
        rows.append(_row(problem, "a", "pass", [t_pass]))
    rows.append(_row("HumanEval/7", "a", "wrong_answer", [t_pass, t_wrong]))
    rows.append(_row("HumanEval/30", "a", "wrong_answer", [t_wrong]))
    rows += [_row(p, "b", "pass", [t_pass]) for p in ("HumanEval/10", "HumanEval/2",
                                                      "HumanEval/1", "HumanEval/30")]
    rows.append(_row("HumanEval/7", "b", "wrong_answer", [t_wrong]))
    page = _page(Run("r.jsonl", "r.jsonl", rows))
    matrix = page[page.index('<table class="matrix">'):]
    matrix = matrix[: matrix.index("</table>")]
    order = re.findall(r'<td class="pid">([^<]*)</td>', matrix)
    # worst first (7 fails for both, 30 for one), then natural order among equals
    assert order == ["HumanEval/7", "HumanEval/30", "HumanEval/1", "HumanEval/2", "HumanEval/10"]
    links = re.findall(r'href="#([^"]+)"', matrix)
    assert len(links) == 3
    for anchor in links:
        assert '<section class="fail" id="%s">' % anchor in page
    failure = page[page.index('id="%s"' % links[0]):]
    failure = failure[: failure.index("</section>")]
    assert "HumanEval/7" in failure and "0.2500 s" in failure
    assert "<pre>[1, 2]</pre>" in failure and "<pre>[2, 1]</pre>" in failure  # expected, got
    assert "expected [1, 2], got [2, 1]" in failure  # and the message whole


def test_several_samples_draw_pass_at_k_curves():
    rows = [_row("p%d" % p, "m", "pass" if s < p else "wrong_answer", sample=s)
            for p in range(4) for s in range(3)]
    page = _page(Run("r.jsonl", "r.jsonl", rows))
    svg = page[page.index('<svg id="chart-pass-at-k"'):]
    svg = svg[: svg.index("</svg>")]
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 3
    assert "pass@3 = 75.0%" in svg  # p1, p2, p3 have at least one pass among 3


def test_two_runs_show_their_comparison_and_a_column_per_run_and_model(tmp_path):
    from judge.reports.compare import compare_runs

    base = Run("a.jsonl", "a.jsonl", [_row("p%d" % i, "m", "pass" if i < 3 else "timeout")
                                      for i in range(6)])
    other = Run("b.jsonl", "b.jsonl", [_row("p%d" % i, "m", "pass" if i != 2 else
                                            "runtime_error") for i in range(6)])
    summary = merge([run.summary(tagged=True) for run in (base, other)])
    page = render_html([base, other], summary, compare_runs([base, other], 500))
    assert "<th>m · a.jsonl</th>" in page and "<th>m · b.jsonl</th>" in page
    assert "b.jsonl vs a.jsonl (6 problems in both)" in page
    assert "<tr><th>fixed (3)</th><td>p3, p4, p5</td></tr>" in page
    assert "<tr><th>broke (1)</th><td>p2</td></tr>" in page
    # and through the command line, the page on stdout
    for run in (base, other):
        (tmp_path / run.label).write_text("".join(json.dumps(r) + "\n" for r in run.rows))
    done = _judge("report", "a.jsonl", "b.jsonl", "--format", "html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("<!DOCTYPE html>") and "fixed (3)" in done.stdout


def test_malformed_lines_do_not_break_the_page():
    rows = [_row("p1", "m", "wrong_answer"), _row("p2", "m", "pass")]
    rows[0].update(tests=5, time_s="slow", message={"nested": ["<b>x</b>"]}, sample=[1],
                   passed="many")
    rows[1].update(tests=[{"index": "0", "verdict": ["pass"], "time_s": float("nan")}, "junk"],
                   verdict="pass")
    rows.append({**_row("p3", "m", "timeout"), "tests": [
        {"index": 0, "verdict": "timeout", "time_s": True, "message": "x" * 100_000}]})
    page = _page(Run("r.jsonl", "r.jsonl", rows))
    assert "<b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "x" * 400 + "… (99600 more characters)" in page  # a long message is cut


def test_nothing_judged_still_renders():
    page = _page(Run("empty.jsonl", "empty.jsonl", []))
    assert "Nothing was judged." in page and "No failing candidate." in page


# ---- a real run in a real browser ----------------------------------------------------------

def _judge(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "judge", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=600)


#: a wrong answer of the right type where it can (the report then shows expected vs got)
WRONG = ("return (not result if isinstance(result, bool) else result + 1 "
         "if isinstance(result, (int, float)) else result[::-1] + '?' "
         "if isinstance(result, str) else result[1:] if isinstance(result, list) else None)")


def demo_solutions(path: Path, samples: int = 3) -> None:
    """Two models' samples for every shipped problem: the reference, a wrong version (a
    changed value on about half the tests) or a crashing one (raises there, with a
    ``<script>`` in its message)."""
    from judge.kinds.loader import load_suite

    suite = load_suite(str(ROOT / "problems"))
    with open(path, "w", encoding="utf-8") as out:
        for i, problem in enumerate(suite.problems):
            name = problem.function_name
            for model, wrong, crash in (("model-a", 5, 11), ("model-b", 3, 7)):
                for sample in range(samples):
                    code = problem.optimal_solution
                    kind = (i + 2 * sample) % wrong == 1 and "wrong" or (
                        (i + sample) % crash == 3 and "crash")
                    if kind:
                        action = WRONG if kind == "wrong" else "raise ValueError(%r)" % HOSTILE
                        code += ("\n\n_reference = %s\n\ndef %s(*args, **kwargs):\n"
                                 "    result = _reference(*args, **kwargs)\n"
                                 "    if len(repr(args)) %% 2:\n        %s\n"
                                 "    return result\n" % (name, name, action))
                    out.write(json.dumps({"problem_id": problem.identifier, "model": model,
                                          "sample": sample, "solution": code}) + "\n")


@pytest.fixture(scope="module")
def real_report(tmp_path_factory):
    """A real run of the shipped suites (process sandbox) and its HTML report."""
    folder = tmp_path_factory.mktemp("report")
    solutions, results, page = folder / "solutions.jsonl", folder / "results.jsonl", \
        folder / "report.html"
    demo_solutions(solutions)
    done = _judge("run", ROOT / "problems", "--solutions", solutions, "--sandbox", "process",
                  "--jobs", "2", "--output", results, "--format", "json")
    if done.returncode == 3:
        pytest.skip("the process sandbox is unavailable here: %s" % done.stderr[-300:])
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = json.loads(done.stdout)["verdicts"]
    assert {"pass", "wrong_answer", "runtime_error"} <= set(verdicts), verdicts
    done = _judge("report", results.name, "--html", page.name, cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "wrote %s" % page.name in done.stderr
    return page


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-default-apps", "--disable-extensions",
                  "--hide-scrollbars", "--proxy-server=http://127.0.0.1:9"]


def _chromium(page: Path, *args: str, tmp: Path) -> tuple[str, list[str]]:
    """Open ``page`` from file:// in headless Chromium (through a proxy that answers nothing);
    the serialized DOM and every URL the page itself asked for (from Chromium's NetLog: the
    requests of the file:// site, not the browser's own background traffic)."""
    netlog = tmp / ("%s.netlog.json" % page.stem)
    done = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, "--user-data-dir=%s" % (tmp / "profile"),
                           "--log-net-log=%s" % netlog, *args, page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    requested = set()
    events = json.loads(netlog.read_text(encoding="utf-8")).get("events", [])
    assert events, "Chromium wrote no NetLog: the network check would see nothing"
    for event in events:
        params = event.get("params") or {}
        if "url" in params and "file://" in str(params.get("network_isolation_key", "")):
            requested.add(params["url"])
    return done.stdout, sorted(requested)


def _outside(urls: list[str]) -> list[str]:
    return [u for u in urls if not u.startswith(("file:", "data:", "about:"))]


@needs_chromium
def test_the_netlog_check_sees_a_page_request(tmp_path):
    """The control: a page with an external image is caught by the same check."""
    page = tmp_path / "external.html"
    page.write_text('<!DOCTYPE html><p>x</p><img src="http://example.invalid/i.png">',
                    encoding="utf-8")
    _, requested = _chromium(page, "--dump-dom", tmp=tmp_path)
    assert "http://example.invalid/i.png" in _outside(requested)


@needs_chromium
def test_report_renders_in_chromium_from_file_without_network(real_report, tmp_path):
    dom, requested = _chromium(real_report, "--dump-dom", tmp=tmp_path)
    assert _outside(requested) == []
    # the page rendered: the DOM Chromium built has the four charts and their shapes
    for chart in ("chart-pass-rates", "chart-verdicts", "chart-pass-at-k", "chart-times"):
        found = re.search(r'<svg id="%s"[^>]*>(.*?)</svg>' % chart, dom, re.S)
        assert found, chart
        assert re.search(r"<(rect|circle|polyline)\b", found.group(1)), chart
    assert "model-a" in dom and "model-b" in dom
    assert '<table class="matrix">' in dom and '<section class="fail"' in dom
    # the crashing candidates' message is text in the DOM, never an element
    assert "<script" not in dom.lower()
    assert "&lt;script&gt;alert('owned')&lt;/script&gt;" in dom
    assert not re.search(r'\b(src|href)="(https?:)?//', dom)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@needs_chromium
def test_report_screenshot(real_report, tmp_path):
    shot = tmp_path / "report.png"
    _, requested = _chromium(real_report, "--window-size=1200,2300",
                             "--screenshot=%s" % shot, tmp=tmp_path)
    assert _outside(requested) == []
    width, height = _png_size(shot)
    assert (width, height) == (1200, 2300)
    assert shot.stat().st_size > 50_000  # drawn, not a blank page
    target = os.environ.get("JUDGE_REPORT_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)
