"""A deterministic stand-in "model" for recording the shipped proof-grading example.

No language model runs on the machines this project is built on, so the example's cache was
recorded from this bag-of-words stand-in behind a real local chat-completions server
(tests/proof_server.py).  It reads the prompts our templates render and answers every step
in the step's schema:

* clustering drops short posts (discussion) and merges posts sharing >= 50% of their words;
* matching picks the strategy sharing most words with the attempt;
* analysis turns sentences of the representative into main steps (approachability grows
  with a step's length); the rubric splits 7 points by sub-step count, by the suggested
  approachability split, or evenly over milestones;
* single-turn grading is optimistic (long answers score high), as the paper observes of
  real single-turn graders; ref3 scores word coverage of the reference; rubric grading
  awards each item by coverage of its words (milestones: all or nothing at 50%).

Its grades say nothing about any real model.  They exist so that ``judge grade --offline``
has something real to replay, end to end, on a fresh machine.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from proof_server import REF, solution_of  # noqa: E402

from judge.grading.proofs.workflows import proportional_points  # noqa: E402

STOP = set("that this with then there their these those from have which since into each some must both "
           "also more than they them when where were what does only such same will would could should".split())


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4 and w not in STOP}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def _cluster(user: str) -> str:
    posts = [(pid, t) for pid, t in REF.findall(user) if len(t.split()) >= 25]
    groups: list[list[str]] = []
    for _, text in posts:
        for g in groups:
            a, b = words(g[0]), words(text)
            if len(a & b) / max(1, len(a | b)) >= 0.5:
                g.append(text)
                break
        else:
            groups.append([text])
    out = []
    for i, g in enumerate(groups):
        rep = min(g, key=len)
        out.append({"class_id": f"C{i + 1}", "main_steps": [s[:80] for s in sentences(rep)[:3]],
                    "representative_solution": rep})
    return json.dumps({"clusters": out})


def _match(body: dict) -> str:
    user = body["messages"][1]["content"]
    sol = words(solution_of(body))
    scored = [(len(sol & words(t)) / max(1, len(words(t))), cid) for cid, t in REF.findall(user)]
    best = max(scored, key=lambda x: x[0])  # max keeps the first of equals
    return json.dumps({"closest_rep_id": best[1], "justification": f"shares {best[0]:.0%} of its words"})


def _analysis(user: str) -> str:
    rep = REF.findall(user)[0][1]
    sents = sentences(rep)
    n = min(4, max(1, len(sents) // 2))
    chunks = [sents[i * len(sents) // n:(i + 1) * len(sents) // n] for i in range(n)]
    steps = []
    for ch in chunks:
        text = " ".join(ch)
        steps.append({"title": ch[0][:70], "unlock": text, "importance": "needed for the conclusion",
                      "principle": "as used", "substeps": ch,
                      "approachability": max(1, min(5, 1 + len(words(text)) // 6)),
                      "approachability_rationale": "longer steps are harder to find"})
    return json.dumps({"main_steps": steps})


def _rubric(user: str) -> str:
    blocks = re.findall(r"Main step \d+: (.*?)\n(.*?)(?=\nMain step \d+:|\n\nReply)", user, re.S)
    subs = [re.findall(r"^\s+\d+\. (.*)$", b, re.M) for _, b in blocks]
    m = re.search(r"rounded to whole points, is: ([\d, ]+)", user)
    milestones = '"kind": "milestones"' in user
    if m:
        pts = [int(x) for x in m.group(1).split(",")]
    elif milestones:
        pts = proportional_points([1] * len(blocks))
    else:
        pts = proportional_points([len(s) or 1 for s in subs])
    items = [{"id": f"R{i + 1}", "title": t.strip()[:70], "points": p, "requirements": " ".join(s),
              "partial_credit": "in proportion to the sub-steps done"} for i, ((t, _), s, p) in enumerate(zip(blocks, subs, pts))]
    return json.dumps({"kind": "milestones" if milestones else "steps", "items": items,
                       "benchmarks": ["7: every item", "5: one item incomplete"], "zero_credit": "no item started"})


def _report(score: int, why: str) -> str:
    return json.dumps({"overall_assessment": {"score": score, "rationale": why},
                       "step_by_step_analysis": [why], "identified_errors": [] if score == 7 else [
                           {"type": "other", "description": "parts of the expected argument are missing",
                            "location": "overall"}],
                       "clarity_structure_notation": "readable", "constructive_feedback": why})


def _grade(step: str, body: dict) -> str:
    user = body["messages"][1]["content"]
    sol = words(solution_of(body))
    if step == "grade_single":
        n = len(solution_of(body).split())
        return _report(min(7, 3 + n // 20), f"{n} words; the argument looks plausible")
    if step == "grade_ref3":
        ref = words(REF.findall(user)[0][1])
        cov = len(sol & ref) / max(1, len(ref))
        return _report(min(7, round(7 * min(1.0, cov * 1.4))), f"covers {cov:.0%} of the reference")
    items = re.findall(r"^R\d+\. .*? - (\d+) points?\n\s+full points: (.*)$", user, re.M)
    milestones = "(milestones, 7 points)" in user
    total = 0.0
    for pts, req in items:
        cov = len(sol & words(req)) / max(1, len(words(req)))
        if milestones:
            total += int(pts) if cov >= 0.5 else 0
        else:
            total += round(2 * int(pts) * max(0.0, min(1.0, (cov - 0.15) / 0.55))) / 2
    return _report(max(0, min(7, round(total))), f"rubric items covered: {total:.1f} points")


def standin(step: str, body: dict) -> str:
    user = body["messages"][1]["content"]
    if step == "cluster":
        return _cluster(user)
    if step == "match":
        return _match(body)
    if step == "analysis":
        return _analysis(user)
    if step == "rubric":
        return _rubric(user)
    return _grade(step, body)
