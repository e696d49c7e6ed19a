"""Charts of the HTML report as plain geometry (rectangles, lines, circles, polylines, text),
drawn as inline SVG by ``templates/charts.html.j2``. Nothing here writes markup: every label
(model names, verdicts) reaches the page through jinja2's autoescaping."""

from __future__ import annotations

import math
from typing import Any, Sequence

#: one colour per verdict (colour-blind friendly where it matters: pass vs the rest)
VERDICT_COLORS = {
    "pass": "#2e7d32", "wrong_answer": "#d84315", "runtime_error": "#6a1b9a",
    "timeout": "#f9a825", "memory_limit": "#8d6e63", "output_limit": "#ec407a",
    "compile_error": "#546e7a", "sandbox_error": "#212121",
}
VERDICT_ORDER = list(VERDICT_COLORS)
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]
LABEL_W, PLOT_W, NOTE_W, ROW_H = 230, 440, 170, 26


def color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def verdict_color(verdict: str) -> str:
    return VERDICT_COLORS.get(verdict, "#9e9e9e")


def short(text: str, size: int = 34) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def _chart(title: str, width: float, height: float) -> dict[str, Any]:
    return {"title": title, "width": width, "height": height, "elements": []}


def _text(chart: dict[str, Any], x: float, y: float, text: str, anchor: str = "start",
          size: int = 12, fill: str = "#222", title: str | None = None) -> None:
    chart["elements"].append({"kind": "text", "x": round(x, 1), "y": round(y, 1), "text": text,
                              "anchor": anchor, "size": size, "fill": fill, "title": title})


def _rect(chart: dict[str, Any], x: float, y: float, w: float, h: float, fill: str,
          title: str | None = None) -> None:
    chart["elements"].append({"kind": "rect", "x": round(x, 1), "y": round(y, 1),
                              "w": round(max(w, 0.0), 1), "h": round(h, 1), "fill": fill,
                              "title": title})


def _line(chart: dict[str, Any], x1: float, y1: float, x2: float, y2: float,
          stroke: str = "#222", width: float = 1.0, dash: str | None = None) -> None:
    chart["elements"].append({"kind": "line", "x1": round(x1, 1), "y1": round(y1, 1),
                              "x2": round(x2, 1), "y2": round(y2, 1), "stroke": stroke,
                              "width": width, "dash": dash})


def _percent_axis(chart: dict[str, Any], x0: float, top: float, bottom: float,
                  width: float) -> None:
    for tick in range(0, 101, 20):
        x = x0 + width * tick / 100
        _line(chart, x, top, x, bottom, "#ddd", 1, "2,2" if tick not in (0, 100) else None)
        _text(chart, x, bottom + 14, "%d%%" % tick, "middle", 11, "#555")


def pass_rates(models: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One bar per model: its pass rate, the 95 % interval as a whisker."""
    top = 10
    chart = _chart("Pass rate per model (95% Wilson interval)", LABEL_W + PLOT_W + NOTE_W,
                   top + ROW_H * len(models) + 30)
    bottom = top + ROW_H * len(models)
    _percent_axis(chart, LABEL_W, top, bottom, PLOT_W)
    for i, model in enumerate(models):
        y = top + i * ROW_H
        rate, (low, high) = model["pass_rate"], model["ci95"]
        label = model["label"]
        _text(chart, LABEL_W - 8, y + 17, short(label), "end", title=label)
        _rect(chart, LABEL_W, y + 5, PLOT_W * rate, ROW_H - 10, color(i),
              "%s: %.1f%% (%d of %d), 95%% CI %.1f%%-%.1f%%" % (
                  label, 100 * rate, model["passed"], model["candidates"], 100 * low,
                  100 * high))
        mid = y + ROW_H / 2
        _line(chart, LABEL_W + PLOT_W * low, mid, LABEL_W + PLOT_W * high, mid, "#111", 1.5)
        for end in (low, high):
            _line(chart, LABEL_W + PLOT_W * end, mid - 6, LABEL_W + PLOT_W * end, mid + 6,
                  "#111", 1.5)
        _text(chart, LABEL_W + PLOT_W + 8, y + 17,
              "%.1f%% [%.1f, %.1f] ±%.1f" % (100 * rate, 100 * low, 100 * high,
                                             100 * model["stderr"]), size=11)
    return chart


def verdict_bars(models: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One stacked bar per model: the share of each verdict among its candidates."""
    top = 34
    chart = _chart("Verdicts per model", LABEL_W + PLOT_W + NOTE_W,
                   top + ROW_H * len(models) + 30)
    present = [v for v in VERDICT_ORDER if any(m["verdicts"].get(v) for m in models)]
    present += sorted({v for m in models for v in m["verdicts"]} - set(VERDICT_ORDER))
    x = LABEL_W
    for verdict in present:  # the legend
        _rect(chart, x, 8, 12, 12, verdict_color(verdict))
        _text(chart, x + 16, 18, verdict, size=11)
        x += 26 + 7 * len(verdict)
    bottom = top + ROW_H * len(models)
    _percent_axis(chart, LABEL_W, top, bottom, PLOT_W)
    for i, model in enumerate(models):
        y = top + i * ROW_H
        total = sum(model["verdicts"].values()) or 1
        _text(chart, LABEL_W - 8, y + 17, short(model["label"]), "end", title=model["label"])
        x = LABEL_W
        for verdict in present:
            count = model["verdicts"].get(verdict, 0)
            if not count:
                continue
            width = PLOT_W * count / total
            _rect(chart, x, y + 4, width, ROW_H - 8, verdict_color(verdict),
                  "%s: %s %d of %d (%.1f%%)" % (model["label"], verdict, count, total,
                                                100 * count / total))
            x += width
        _text(chart, LABEL_W + PLOT_W + 8, y + 17, "%d candidates" % total, size=11)
    return chart


def passk_curves(models: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """pass@k against k, one line per model (k on a log scale when it spans a decade)."""
    left, top, width, height = 60, 20, 520, 220
    chart = _chart("pass@k", left + width + 250, top + height + 50)
    ks = sorted({k for m in models for k in m["passk"]})
    if not ks:
        ks = [1]
    use_log = ks[-1] >= 10
    lo, hi = (math.log10(ks[0]), math.log10(ks[-1])) if use_log else (ks[0], ks[-1])

    def x_of(k: int) -> float:
        value = math.log10(k) if use_log else k
        return left + (width * (value - lo) / (hi - lo) if hi > lo else width / 2)

    for tick in range(0, 101, 20):
        y = top + height * (1 - tick / 100)
        _line(chart, left, y, left + width, y, "#ddd", 1, None if tick in (0, 100) else "2,2")
        _text(chart, left - 6, y + 4, "%d%%" % tick, "end", 11, "#555")
    for k in ks:
        _line(chart, x_of(k), top + height, x_of(k), top + height + 4, "#555")
        _text(chart, x_of(k), top + height + 17, str(k), "middle", 11, "#555")
    _text(chart, left + width / 2, top + height + 36, "k (samples drawn per problem)",
          "middle", 11, "#555")
    for i, model in enumerate(models):
        points = [(x_of(k), top + height * (1 - v)) for k, v in sorted(model["passk"].items())]
        if len(points) > 1:
            chart["elements"].append({"kind": "polyline", "stroke": color(i), "points": " ".join(
                "%.1f,%.1f" % p for p in points)})
        for (k, value), (x, y) in zip(sorted(model["passk"].items()), points):
            chart["elements"].append({"kind": "circle", "cx": round(x, 1), "cy": round(y, 1),
                                      "r": 4, "fill": color(i), "title": "%s: pass@%d = %.1f%%"
                                      % (model["label"], k, 100 * value)})
        _rect(chart, left + width + 20, top + 4 + 20 * i, 12, 12, color(i))
        _text(chart, left + width + 38, top + 14 + 20 * i, short(model["label"], 30),
              title=model["label"])
    return chart


def seconds(value: float) -> str:
    """A duration for a label: ``0 s``, ``850 µs``, ``1.06 ms``, ``2.5 s``."""
    if value <= 0:
        return "0 s"
    if value < 1e-3:
        return "%.3g µs" % (value * 1e6)
    if value < 1:
        return "%.3g ms" % (value * 1e3)
    return "%.3g s" % value


def _quantile(values: Sequence[float], q: float) -> float:
    position = (len(values) - 1) * q
    below, above = math.floor(position), math.ceil(position)
    return values[below] + (values[above] - values[below]) * (position - below)


def time_boxes(times: dict[str, list[float]], floor: float = 1e-4,
               ceiling: float = 1e6) -> dict[str, Any]:
    """A box plot per verdict of the tests' times (seconds, log scale; min, quartiles,
    median, max). Times below ``floor`` are drawn at the floor, times above ``ceiling`` (a
    results file may say anything finite: ``1e308``) at the ceiling; labels say the times
    as they are."""
    verdicts = [v for v in VERDICT_ORDER if times.get(v)]
    verdicts += sorted(v for v in times if v not in VERDICT_ORDER and times[v])
    top = 10
    above = any(t > ceiling for v in verdicts for t in times[v])
    chart = _chart("Time per test, by verdict (log scale; below %s drawn at %s%s)"
                   % (seconds(floor), seconds(floor), "; above %s drawn at %s"
                      % (seconds(ceiling), seconds(ceiling)) if above else ""),
                   LABEL_W + PLOT_W + NOTE_W, top + ROW_H * max(1, len(verdicts)) + 30)
    every = [min(ceiling, max(floor, t)) for v in verdicts for t in times[v]]
    lo = math.floor(math.log10(min(every))) if every else -4
    hi = math.ceil(math.log10(max(every))) if every else 1
    hi = max(hi, lo + 1)

    def x_of(seconds: float) -> float:
        return LABEL_W + PLOT_W * (math.log10(min(ceiling, max(floor, seconds))) - lo) \
            / (hi - lo)

    bottom = top + ROW_H * max(1, len(verdicts))
    for power in range(lo, hi + 1):
        x = x_of(10.0 ** power)
        _line(chart, x, top, x, bottom, "#ddd", 1, "2,2")
        _text(chart, x, bottom + 14, seconds(10.0 ** power), "middle", 11, "#555")
    for i, verdict in enumerate(verdicts):
        values = sorted(times[verdict])
        y = top + i * ROW_H
        mid = y + ROW_H / 2
        q1, median, q3 = (_quantile(values, q) for q in (0.25, 0.5, 0.75))
        _text(chart, LABEL_W - 8, y + 17, verdict, "end")
        _line(chart, x_of(values[0]), mid, x_of(values[-1]), mid, "#555", 1)
        for end in (values[0], values[-1]):
            _line(chart, x_of(end), mid - 5, x_of(end), mid + 5, "#555", 1)
        _rect(chart, x_of(q1), y + 5, max(2.0, x_of(q3) - x_of(q1)), ROW_H - 10,
              verdict_color(verdict), "%s: %d tests, min %s, median %s, max %s"
              % (verdict, len(values), seconds(values[0]), seconds(median),
                 seconds(values[-1])))
        _line(chart, x_of(median), y + 4, x_of(median), y + ROW_H - 4, "#111", 2)
        _text(chart, LABEL_W + PLOT_W + 8, y + 17, "n=%d, median %s" % (len(values),
                                                                       seconds(median)),
              size=11)
    return chart
