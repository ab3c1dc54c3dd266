"""Figures of runs and sweeps (matplotlib, headless: figures are built with the object API
on the Agg canvas, never through pyplot, so nothing needs a display).

- :func:`timeseries`: one run over time: throughput per flow, cwnd per traced TCP flow, the
  backlog of every queue that held packets.
- :func:`box`, :func:`cdf`: a metric across the runs of a sweep (boxes over seeds per grid
  point; the empirical CDF of the per-flow values of each point).
- :func:`line`: a metric against one swept parameter, mean with its 95 % confidence band,
  one line per value of a second parameter.
- :func:`surface`: a metric over two swept parameters as a 3-D surface (the thesis's
  figures).

Grid values with a unit (``"10Mbit"``) are placed on a numeric axis when all values of the
parameter share the unit; otherwise they are categories.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .result import Result
from .sweep import ALL_FLOWS, SweepResult, run_totals

#: Kinds `airqueue plot --kind` accepts.
KINDS = ("timeseries", "box", "cdf", "line", "surface")

_NUMBER_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*$")


class PlotError(ValueError):
    """A plot that cannot be drawn from what the folder holds (names the fix)."""


def new_figure(width: float = 8.0, height: float = 4.5) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path: str | Path, dpi: int = 110) -> Path:
    """Saves a figure; the format follows the suffix (png, svg, pdf)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=dpi)
    return p


#: Human names of the metrics plots are asked for most (others: underscores to spaces).
METRIC_NAMES = {
    "goodput_bps": "goodput",
    "throughput_bps": "throughput",
    "delay_mean_ms": "mean delay",
    "delay_p50_ms": "median delay",
    "delay_p99_ms": "99th-percentile delay",
    "delay_max_ms": "maximum delay",
    "jain_index": "Jain's fairness index",
    "drops": "drops (packets)",
    "tx_packets": "packets sent",
    "rx_packets": "packets received",
    "cwnd_bytes": "congestion window",
}


def metric_name(metric: str) -> str:
    """A metric's name for a title: ``goodput``, not ``goodput_bps``."""
    if metric in METRIC_NAMES:
        return METRIC_NAMES[metric]
    for suffix in ("_bps", "_bytes", "_ms"):
        metric = metric.removesuffix(suffix)
    return metric.replace("_", " ")


def metric_scale(metric: str) -> tuple[float, str]:
    """A divisor and an axis label for a metric: bit rates in Mbit/s, bytes in KiB."""
    name = metric_name(metric)
    if metric.endswith("_bps"):
        return 1e6, f"{name} (Mbit/s)"
    if metric.endswith("_bytes"):
        return 1024.0, f"{name} (KiB)"
    if metric.endswith("_ms"):
        return 1.0, f"{name} (ms)"
    return 1.0, name


def who_label(flow: str) -> str:
    """Whose values a sweep figure shows, for its title."""
    if flow == ALL_FLOWS:
        return "all flows of a run together"
    return f"flow {flow}" if flow else "every flow of every run"


#: Lines drawn one by one in a panel; beyond, the largest are kept and the rest summed.
MAX_LINES = 8


def outside_legend(ax: Any, **kw: Any) -> None:
    """A legend right of the axes, where it cannot cover data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def top_series(df: pd.DataFrame, combine: str) -> list[tuple[str, pd.DataFrame]]:
    """The lines of a panel: every series when there are at most :data:`MAX_LINES`, else the
    ``MAX_LINES - 1`` with the largest mean and one line for the others, their ``combine``
    (``sum`` or ``mean``) per sample time, labelled with how many they are."""
    names = list(dict.fromkeys(df["name"].astype(str)))
    named = df.assign(name=df["name"].astype(str))
    if len(names) <= MAX_LINES:
        return [(n, named[named["name"] == n]) for n in names]
    means = named.groupby("name")["value"].mean().sort_values(ascending=False)
    top = list(means.index[: MAX_LINES - 1])
    rest = named[~named["name"].isin(top)]
    combined = rest.groupby("time_s", as_index=False)["value"].agg(combine)
    label = f"{len(names) - len(top)} others ({combine})"
    return [(n, named[named["name"] == n]) for n in top] + [(label, combined)]


def axis_numbers(values: Sequence[Any]) -> tuple[np.ndarray | None, str]:
    """Numeric positions of grid values and their common unit, or (None, "") when the
    values are not all numbers of one unit (then they are categories)."""
    if all(isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        return np.asarray(values, dtype=float), ""
    units, nums = set(), []
    for v in values:
        m = _NUMBER_UNIT.match(str(v))
        if not m:
            return None, ""
        nums.append(float(m.group(1)))
        units.add(m.group(2))
    if len(units) != 1:
        return None, ""
    return np.asarray(nums), units.pop()


def _axis_label(param: str, unit: str) -> str:
    return f"{param} ({unit})" if unit else param


# ---------------------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------------------


def timeseries_panels(
    res: Result, flow: str | None = None
) -> list[tuple[str, pd.DataFrame, str, float, str]]:
    """The panels of :func:`timeseries`: (title, series, unit, divisor, how the series
    beyond :data:`MAX_LINES` combine). Throughput per flow, cwnd per traced flow (when
    recorded), throughput per class of classful qdiscs (when there are any, as seed 000's
    bandwidth-over-time figures), the backlog of queues that held packets and of driver
    queues below them that did. ``flow``
    keeps that flow's panels only (throughput and cwnd); an unknown flow is a
    :class:`PlotError` naming the flows."""
    ts = res.timeseries
    flows = ts[ts["kind"] == "flow"]
    if flow is not None:
        known = sorted(set(flows["name"].astype(str)))
        if flow not in known:
            raise PlotError(f'no flow "{flow}" in this run; flows: {", ".join(known)}')
        flows = flows[flows["name"].astype(str) == flow]
    panels: list[tuple[str, pd.DataFrame, str, float, str]] = []
    tput = flows[flows["metric"] == "throughput_bps"]
    who = f"flow {flow}" if flow is not None else "per flow"
    panels.append((f"throughput {who}", tput, "Mbit/s", 1e6, "sum"))
    cwnd = flows[flows["metric"] == "cwnd_bytes"]
    if len(cwnd):
        panels.append(("congestion window", cwnd, "KiB", 1024.0, "mean"))
    if flow is not None:
        return panels
    classes = ts[(ts["kind"] == "class") & (ts["metric"] == "throughput_bps")]
    if len(classes):
        panels.append(("throughput per class", classes, "Mbit/s", 1e6, "sum"))
    backlog = ts[(ts["kind"] == "queue") & (ts["metric"] == "backlog_packets")]
    busy = backlog.groupby("name", observed=True)["value"].max()
    backlog = backlog[backlog["name"].isin(busy[busy > 0].index)]
    panels.append(("queue backlog", backlog, "packets", 1.0, "sum"))
    # Driver (hardware) queues below the qdiscs, when a medium models them and they held
    # packets: the queue the qdisc's backlog does not show.
    drivers = ts[(ts["kind"] == "driver") & (ts["metric"] == "backlog_packets")]
    held = drivers.groupby("name", observed=True)["value"].max()
    drivers = drivers[drivers["name"].isin(held[held > 0].index)]
    if len(drivers):
        panels.append(("driver queue backlog (below the qdisc)", drivers, "packets", 1.0, "sum"))
    return panels


def timeseries(res: Result, title: str | None = None, flow: str | None = None) -> Figure:
    """The panels of :func:`timeseries_panels`, one above the other, each with its legend
    outside the axes (it never covers data); a panel of more than :data:`MAX_LINES` series
    shows the largest and the others combined (:func:`top_series`). Timeline changes are
    marked on every panel."""
    panels = timeseries_panels(res, flow)
    fig = new_figure(9.5, 2.6 * len(panels) + 0.6)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (name, df, unit, scale, combine) in zip(axes, panels, strict=True):
        lines = top_series(df, combine)
        for n, s in lines:
            ax.plot(s["time_s"], s["value"] / scale, label=n, linewidth=1.0)
        ax.set_title(name, loc="left", fontsize=10)
        ax.set_ylabel(unit)
        ax.grid(alpha=0.3)
        if not lines:
            ax.text(
                0.5,
                0.5,
                "nothing recorded",
                ha="center",
                va="center",
                transform=ax.transAxes,
                color="grey",
            )
        else:
            outside_legend(ax, fontsize=7)
    mark_timeline(axes, res.summary.get("timeline", []))
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title or "time series", fontsize=11)
    return fig


def mark_timeline(axes: Sequence[Any], changes: Sequence[dict[str, Any]]) -> None:
    """Marks each change of the scenario's timeline (``summary.json``'s ``timeline``) with a
    dashed vertical line on every panel, labelled once, above the top panel (where no data
    or legend is), with what changed (``bottleneck: rate 5Mbit``)."""
    for k, c in enumerate(changes):
        t = float(c["at_seconds"])
        for ax in axes:
            ax.axvline(t, color="0.35", linestyle="--", linewidth=0.8, zorder=0)
        # Alternate two rows so that neighbouring changes do not overwrite each other.
        axes[0].annotate(
            f"{c['target']}: {c['what']}",
            xy=(t, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(2, 14 + 9 * (k % 2)),
            textcoords="offset points",
            fontsize=7,
            color="0.25",
            ha="center",
            va="bottom",
            arrowprops={"arrowstyle": "-", "color": "0.6", "linewidth": 0.6},
        )


# ---------------------------------------------------------------------------------------
# Across runs
# ---------------------------------------------------------------------------------------


def _metric_values(sw: SweepResult, metric: str, flow: str) -> pd.DataFrame:
    """Per (point, seed) values of a metric: a flow's, or the run totals for ``(all)``."""
    if flow == ALL_FLOWS:
        totals = run_totals(sw.runs)
        if metric not in totals:
            raise PlotError(
                f'run totals have no "{metric}"; choose one of {", ".join(totals.columns)}'
            )
        return totals[metric].rename("value").reset_index()
    if metric not in sw.runs:
        raise PlotError(f'no metric "{metric}" in the runs table')
    sel = sw.runs[sw.runs["flow"] == flow] if flow else sw.runs
    if sel.empty:
        raise PlotError(f'no flow "{flow}"; flows: {", ".join(sorted(set(sw.runs["flow"])))}')
    return sel[["point", "seed"]].assign(value=sel[metric].to_numpy(dtype=float))


def _point_labels(sw: SweepResult) -> dict[int, str]:
    heads = sw.runs.drop_duplicates("point").set_index("point")
    return {
        int(p): ", ".join(f"{k.rsplit('.', 1)[-1]}={heads.loc[p, k]}" for k in sw.params) or "base"
        for p in heads.index
    }


def box(sw: SweepResult, metric: str = "goodput_bps", flow: str = ALL_FLOWS) -> Figure:
    """Boxes of a metric over the seeds of every grid point."""
    vals = _metric_values(sw, metric, flow)
    scale, label = metric_scale(metric)
    labels = _point_labels(sw)
    points = sorted(vals["point"].unique())
    fig = new_figure(max(6.0, 0.9 * len(points) + 2), 4.5)
    ax = fig.add_subplot()
    data = [vals.loc[vals["point"] == p, "value"].to_numpy() / scale for p in points]
    ax.boxplot(data, tick_labels=[labels[int(p)] for p in points])
    ax.set_ylabel(label)
    ax.grid(alpha=0.3, axis="y")
    if len(points) > 4:
        ax.tick_params(axis="x", labelrotation=30)
    ax.set_title(
        f"{metric_name(metric)} ({who_label(flow)}): spread over seeds", loc="left", fontsize=10
    )
    return fig


def cdf(sw: SweepResult, metric: str = "goodput_bps", flow: str = "") -> Figure:
    """Empirical CDF of a metric over every flow of every run, one curve per grid point."""
    vals = _metric_values(sw, metric, flow)
    scale, label = metric_scale(metric)
    labels = _point_labels(sw)
    fig = new_figure(7.0, 4.5)
    ax = fig.add_subplot()
    for p in sorted(vals["point"].unique()):
        v = np.sort(vals.loc[vals["point"] == p, "value"].to_numpy() / scale)
        v = v[np.isfinite(v)]
        if len(v):
            ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=labels[int(p)])
    ax.set_xlabel(label)
    ax.set_ylabel("fraction ≤ x")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    outside_legend(ax, fontsize=7)
    ax.set_title(f"CDF of {metric_name(metric)} ({who_label(flow)})", loc="left", fontsize=10)
    return fig


def _agg(sw: SweepResult, metric: str, flow: str) -> pd.DataFrame:
    pts = sw.points[(sw.points["metric"] == metric) & (sw.points["flow"] == flow)]
    if pts.empty:
        have = sorted(set(sw.points.loc[sw.points["flow"] == flow, "metric"]))
        raise PlotError(f'no aggregate of "{metric}" for flow "{flow}"; have: {", ".join(have)}')
    return pts


def _param(sw: SweepResult, name: str | None, index: int) -> str:
    if name:
        if name not in sw.params:
            raise PlotError(f'"{name}" is not swept; swept: {", ".join(sw.params) or "nothing"}')
        return name
    if len(sw.params) <= index:
        raise PlotError(
            f"this plot needs {index + 1} swept parameter(s); the sweep has {len(sw.params)}"
        )
    return sw.params[index]


def line(
    sw: SweepResult,
    metric: str = "goodput_bps",
    x: str | None = None,
    flow: str = ALL_FLOWS,
    hue: str | None = None,
) -> Figure:
    """Mean of a metric against a swept parameter with the 95 % CI as a band; one line per
    value of ``hue`` (by default the other swept parameter, if any)."""
    xp = _param(sw, x, 0)
    others = [p for p in sw.params if p != xp]
    hp = hue if hue is not None else (others[0] if others else None)
    pts = _agg(sw, metric, flow)
    scale, label = metric_scale(metric)
    fig = new_figure(7.5, 4.5)
    ax = fig.add_subplot()
    groups = [(None, pts)] if hp is None else list(pts.groupby(hp, sort=False))
    xs_all, unit = axis_numbers(list(dict.fromkeys(pts[xp])))
    for key, g in groups:
        # With more than two swept parameters, the others are averaged out.
        g = g.groupby(xp, sort=False)[["mean", "ci95_low", "ci95_high"]].mean().reset_index()
        xs, _ = axis_numbers(list(g[xp]))
        order = np.argsort(xs) if xs is not None else np.arange(len(g))
        xpos = xs[order] if xs is not None else np.arange(len(g))
        mean = g["mean"].to_numpy()[order] / scale
        lo = g["ci95_low"].to_numpy()[order] / scale
        hi = g["ci95_high"].to_numpy()[order] / scale
        lab = None if key is None else f"{hp.rsplit('.', 1)[-1]}={key}"
        (ln,) = ax.plot(xpos, mean, marker="o", label=lab)
        ax.fill_between(xpos, lo, hi, alpha=0.25, color=ln.get_color(), linewidth=0)
        if xs is None:
            ax.set_xticks(np.arange(len(g)), [str(v) for v in g[xp].to_numpy()[order]])
    ax.set_xlabel(_axis_label(xp, unit if xs_all is not None else ""))
    ax.set_ylabel(label)
    ax.grid(alpha=0.3)
    if hp is not None:
        outside_legend(ax, fontsize=8)
    ax.set_title(
        f"{metric_name(metric)} ({who_label(flow)}): mean and 95 % CI over seeds",
        loc="left",
        fontsize=10,
    )
    return fig


def surface(
    sw: SweepResult,
    metric: str = "goodput_bps",
    x: str | None = None,
    y: str | None = None,
    flow: str = ALL_FLOWS,
) -> Figure:
    """Mean of a metric over two swept parameters as a 3-D surface."""
    xp, yp = _param(sw, x, 0), _param(sw, y, 1)
    if xp == yp:
        yp = _param(sw, None, 1 if xp == sw.params[0] else 0)
    pts = _agg(sw, metric, flow)
    grid = pts.groupby([xp, yp], sort=False)["mean"].mean().reset_index()
    xv, xu = axis_numbers(list(dict.fromkeys(grid[xp])))
    yv, yu = axis_numbers(list(dict.fromkeys(grid[yp])))
    xcats, ycats = list(dict.fromkeys(grid[xp])), list(dict.fromkeys(grid[yp]))
    xmap = dict(zip(xcats, xv if xv is not None else np.arange(len(xcats)), strict=True))
    ymap = dict(zip(ycats, yv if yv is not None else np.arange(len(ycats)), strict=True))
    xs, ys = sorted(set(xmap.values())), sorted(set(ymap.values()))
    z = np.full((len(ys), len(xs)), np.nan)
    scale, label = metric_scale(metric)
    for row in grid.itertuples(index=False):
        xi, yi = xs.index(xmap[row[0]]), ys.index(ymap[row[1]])
        z[yi, xi] = row[2] / scale
    fig = new_figure(7.5, 6.0)
    ax = fig.add_subplot(projection="3d")
    gx, gy = np.meshgrid(xs, ys)
    ax.plot_surface(
        gx, gy, np.ma.masked_invalid(z), cmap="viridis", edgecolor="k", linewidth=0.3, alpha=0.9
    )
    ax.set_xlabel(_axis_label(xp, xu if xv is not None else ""), fontsize=8)
    ax.set_ylabel(_axis_label(yp, yu if yv is not None else ""), fontsize=8)
    ax.set_zlabel(label, fontsize=8)
    if xv is None:
        ax.set_xticks(range(len(xcats)), [str(c) for c in xcats])
    if yv is None:
        ax.set_yticks(range(len(ycats)), [str(c) for c in ycats])
    ax.set_title(f"{metric_name(metric)} ({who_label(flow)}), mean over seeds", fontsize=10)
    return fig
