"""Figures of runs and sweeps (matplotlib, headless: figures are built with the object API
on the Agg canvas, never through pyplot, so nothing needs a display).

- :func:`timeseries`: one run over time: throughput per flow, cwnd per traced TCP flow, the
  backlog of every queue that held packets; optionally throughput as a moving average.
- :func:`box`, :func:`cdf`: a metric across the runs of a sweep (boxes over seeds per grid
  point, or every value with the mean and its CI when there are few seeds; the empirical
  CDF of the per-flow values of each point).
- :func:`line`: a metric against one swept parameter, mean with its 95 % confidence band,
  one line per value of a second parameter.
- :func:`surface`: a metric over two swept parameters as a 3-D surface (the thesis's
  figures).

Swept parameters are named from their path with the unit their values are shown in
(``bottleneck rate (Mbit/s)``, ``router.bottleneck limit (packets)``; the quantity comes from
the scenario schema, :mod:`airqueue.quantities`), and legends give values with units
(``limit = 20 packets``). Values of a known quantity go on a numeric axis even when written
in different units (``500kbit`` and ``2Mbit``); others are categories.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

from .quantities import DURATION, ParamAxis, display_unit, param_axis
from .result import Result
from .sweep import ALL_FLOWS, SweepResult, mean_ci, run_totals

#: Kinds `airqueue plot --kind` accepts.
KINDS = ("timeseries", "box", "cdf", "line", "surface")


class PlotError(ValueError):
    """A plot that cannot be drawn from what the folder holds (names the fix)."""


class SmoothingError(PlotError):
    """A smoothing window that cannot be used on the run's samples."""


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


def sweep_scenario(sw: SweepResult) -> dict[str, Any] | None:
    """The sweep's base scenario (``runs.parquet``'s metadata), or None when the folder has
    none to read: it picks a qdisc's kind when a swept path's unit depends on it."""
    from .result import parquet_metadata
    from .scenario import loads_toml

    if sw.out is None:
        return None
    try:
        text = parquet_metadata(Path(sw.out) / "runs.parquet").get("scenario")
        return loads_toml(text) if text else None
    except (OSError, ValueError):
        return None


def sweep_axes(sw: SweepResult) -> dict[str, ParamAxis]:
    """Every swept path as figures show it: a human name, the unit its values are shown in
    (``bottleneck rate (Mbit/s)``, ``router.bottleneck limit (packets)``) and each value's
    number (:func:`airqueue.quantities.param_axis`)."""
    scenario = sweep_scenario(sw)
    return {
        p: param_axis(p, list(dict.fromkeys(sw.runs[p])) if p in sw.runs else [], scenario)
        for p in sw.params
    }


def value_label(axes: dict[str, ParamAxis], path: str, value: Any) -> str:
    """``limit = 20 packets``: a grid value with its unit, named by the path's leaf (by
    its owner and leaf when another swept path shares the leaf)."""
    ax = axes[path]
    clash = sum(a.short == ax.short for a in axes.values()) > 1
    return f"{ax.name if clash else ax.short} = {ax.text(value)}"


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


def duration_text(seconds: float) -> str:
    """``1 s``, ``500 ms``: a duration in the unit that reads best."""
    div, unit = (1.0, "s") if seconds >= 1.0 else display_unit(DURATION, seconds)
    return f"{seconds / div:.4g} {unit}"


def moving_average(series: pd.DataFrame, window_s: float) -> tuple[pd.Series, int]:
    """The centred moving average of a series' ``value`` over ``window_s`` seconds (the
    number of samples nearest the window at the series' sample interval; shorter at the
    ends), and that number of samples. A window of less than two samples is a
    :class:`SmoothingError` (it would change nothing)."""
    if not window_s > 0:
        raise SmoothingError(f"a smoothing window must be longer than 0 s, not {window_s:g} s")
    t = series["time_s"].to_numpy(dtype=float)
    step = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    if step <= 0:
        return series["value"].astype(float), 1
    n = round(window_s / step)
    if n < 2:
        raise SmoothingError(
            f"a {duration_text(window_s)} smoothing window is not two samples of "
            f"{duration_text(step)}; give at least {duration_text(2 * step)}"
        )
    values = series["value"].astype(float).reset_index(drop=True)
    return values.rolling(n, center=True, min_periods=1).mean(), n


def timeseries(
    res: Result, title: str | None = None, flow: str | None = None, smooth: float | None = None
) -> Figure:
    """The panels of :func:`timeseries_panels`, one above the other, each with its legend
    outside the axes (it never covers data); a panel of more than :data:`MAX_LINES` series
    shows the largest and the others combined (:func:`top_series`). Timeline changes are
    marked on every panel.

    ``smooth`` (seconds; default None, the raw samples) draws the throughput panels as a
    centred moving average over that window (:func:`moving_average`), said in their
    titles (``throughput per flow, moving average over 1 s (10 samples)``); cwnd and
    backlog stay raw."""
    panels = timeseries_panels(res, flow)
    fig = new_figure(9.5, 2.6 * len(panels) + 0.6)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (name, df, unit, scale, combine) in zip(axes, panels, strict=True):
        lines = top_series(df, combine)
        window = smooth if name.startswith("throughput") else None
        samples = 0
        for n, s in lines:
            values = s["value"].astype(float).reset_index(drop=True)
            if window is not None and len(s):
                values, samples = moving_average(s, window)
            ax.plot(s["time_s"].to_numpy(), values.to_numpy() / scale, label=n, linewidth=1.0)
        if window is not None and samples:
            name = f"{name}, moving average over {duration_text(window)} ({samples} samples)"
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


def _point_labels(sw: SweepResult, sep: str = ", ") -> dict[int, str]:
    """Each grid point by its values with units: ``rate = 5 Mbit/s, limit = 20 packets``."""
    axes = sweep_axes(sw)
    heads = sw.runs.drop_duplicates("point").set_index("point")
    return {
        int(p): sep.join(value_label(axes, k, heads.loc[p, k]) for k in sw.params) or "base"
        for p in heads.index
    }


#: With at most this many seeds at a point, :func:`box` draws every value (a box of three
#: values is a flat line that hides how many there are) with the mean and its 95 % CI.
STRIP_MAX_SEEDS = 5


def box(sw: SweepResult, metric: str = "goodput_bps", flow: str = ALL_FLOWS) -> Figure:
    """The spread of a metric over the seeds of every grid point: boxes when every point
    has more than :data:`STRIP_MAX_SEEDS` values, else each value as a dot with the mean
    and its 95 % confidence interval (Student's t) as an error bar beside them."""
    vals = _metric_values(sw, metric, flow)
    scale, label = metric_scale(metric)
    points = sorted(vals["point"].unique())
    labels = _point_labels(sw, "\n" if len(sw.params) > 1 else ", ")
    fig = new_figure(max(6.0, 1.1 * len(points) + 2), 4.8)
    ax = fig.add_subplot()
    data = [vals.loc[vals["point"] == p, "value"].to_numpy(dtype=float) / scale for p in points]
    data = [d[np.isfinite(d)] for d in data]
    ticks = [labels[int(p)] for p in points]
    few = max((len(d) for d in data), default=0) <= STRIP_MAX_SEEDS
    if few:
        pos = np.arange(1, len(points) + 1, dtype=float)
        for k, d in enumerate(data):
            # Dots spread sideways in a fixed order (no randomness: the figure is reproducible).
            offs = np.linspace(-0.12, 0.12, len(d)) if len(d) > 1 else np.zeros(len(d))
            ax.scatter(
                pos[k] - 0.08 + offs,
                d,
                s=22,
                color="C0",
                alpha=0.8,
                zorder=3,
                label="one seed" if k == 0 else None,
            )
            _, mean, _, lo, hi = mean_ci(d)
            if np.isfinite(mean):
                # One value has no interval: the mean alone.
                err = [[mean - lo], [hi - mean]] if np.isfinite(lo) else None
                ax.errorbar(
                    [pos[k] + 0.2],
                    [mean],
                    yerr=err,
                    fmt="D",
                    color="C3",
                    markersize=5,
                    capsize=4,
                    zorder=4,
                    label="mean, 95 % CI" if k == 0 else None,
                )
        ax.set_xticks(pos, ticks)
        ax.set_xlim(0.4, len(points) + 0.6)
        outside_legend(ax, fontsize=8)
        what = f"each seed, mean and 95 % CI (≤ {STRIP_MAX_SEEDS} seeds per point)"
    else:
        ax.boxplot(data, tick_labels=ticks)
        what = "spread over seeds"
    ax.set_ylabel(label)
    ax.grid(alpha=0.3, axis="y")
    if len(points) > 4:
        ax.tick_params(axis="x", labelrotation=30)
    ax.set_title(f"{metric_name(metric)} ({who_label(flow)}): {what}", loc="left", fontsize=10)
    return fig


#: Line styles and markers of CDF curves: neighbouring curves differ in both, so that curves
#: lying on top of each other stay visible (a dashed line over a solid one shows both).
CDF_STYLES = ("-", "--", ":", "-.")
CDF_MARKERS = ("o", "s", "^", "D", "v", "x", "P", "*")


def cdf(sw: SweepResult, metric: str = "goodput_bps", flow: str = "") -> Figure:
    """Empirical CDF of a metric over every flow of every run, one curve per grid point.
    Each curve has its own colour, line style and marker; later curves are drawn thinner and
    on top, and a curve identical to an earlier one says so in the legend
    (``(same as rate = 15 Mbit/s, limit = 20 packets)``)."""
    vals = _metric_values(sw, metric, flow)
    scale, label = metric_scale(metric)
    labels = _point_labels(sw)
    fig = new_figure(8.5, 4.5)
    ax = fig.add_subplot()
    drawn: list[tuple[np.ndarray, str]] = []
    points = sorted(vals["point"].unique())
    for k, p in enumerate(points):
        v = np.sort(vals.loc[vals["point"] == p, "value"].to_numpy(dtype=float) / scale)
        v = v[np.isfinite(v)]
        if not len(v):
            continue
        lab = labels[int(p)]
        same = next((other for w, other in drawn if np.array_equal(w, v)), None)
        y = np.arange(1, len(v) + 1) / len(v)
        ax.step(
            v,
            y,
            where="post",
            label=lab if same is None else f"{lab}\n(the same values as {same})",
            linestyle=CDF_STYLES[k % len(CDF_STYLES)],
            marker=CDF_MARKERS[k % len(CDF_MARKERS)],
            markevery=max(1, len(v) // 6),
            markersize=5,
            fillstyle="none",
            linewidth=max(0.9, 2.4 - 0.3 * k),
            alpha=0.9,
            zorder=2 + k,
        )
        drawn.append((v, lab))
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


def _positions(axis: ParamAxis, values: Sequence[Any]) -> np.ndarray | None:
    """Numeric positions of grid values (in the axis's unit), or None for categories."""
    if axis.numbers is None or any(v not in axis.numbers for v in values):
        return None
    return np.asarray([axis.numbers[v] for v in values], dtype=float)


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
    axes = sweep_axes(sw)
    xaxis = axes[xp]
    scale, label = metric_scale(metric)
    fig = new_figure(7.5, 4.5)
    ax = fig.add_subplot()
    groups = [(None, pts)] if hp is None else list(pts.groupby(hp, sort=False))
    drawn: list[tuple[np.ndarray, str]] = []
    for k, (key, g) in enumerate(groups):
        # With more than two swept parameters, the others are averaged out.
        g = g.groupby(xp, sort=False)[["mean", "ci95_low", "ci95_high"]].mean().reset_index()
        xs = _positions(xaxis, list(g[xp]))
        order = np.argsort(xs) if xs is not None else np.arange(len(g))
        xpos = xs[order] if xs is not None else np.arange(len(g))
        mean = g["mean"].to_numpy()[order] / scale
        lo = g["ci95_low"].to_numpy()[order] / scale
        hi = g["ci95_high"].to_numpy()[order] / scale
        lab = None if key is None or hp is None else value_label(axes, hp, key)
        same = next((o for m, o in drawn if np.array_equal(m, mean, equal_nan=True)), None)
        if lab is not None:
            drawn.append((mean, lab))
        # As in cdf(): later lines thinner, on top, with smaller hollow markers, so that a
        # line lying on another shows both.
        (ln,) = ax.plot(
            xpos,
            mean,
            marker=CDF_MARKERS[k % len(CDF_MARKERS)],
            linestyle=CDF_STYLES[k % len(CDF_STYLES)],
            linewidth=max(0.9, 2.2 - 0.3 * k),
            markersize=max(4.0, 9.0 - 1.5 * k),
            fillstyle="none",
            zorder=2 + k,
            label=lab if same is None else f"{lab}\n(the same means as {same})",
        )
        ax.fill_between(xpos, lo, hi, alpha=0.25, color=ln.get_color(), linewidth=0)
        if xs is None:
            ax.set_xticks(np.arange(len(g)), [xaxis.text(v) for v in g[xp].to_numpy()[order]])
    ax.set_xlabel(xaxis.label)
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


#: Most ticks on each axis of a 3-D surface (more run together in the projection).
SURFACE_TICKS = 5


def _number_text(v: float, _pos: Any = None) -> str:
    return f"{v:.4g}"


def surface(
    sw: SweepResult,
    metric: str = "goodput_bps",
    x: str | None = None,
    y: str | None = None,
    flow: str = ALL_FLOWS,
) -> Figure:
    """Mean of a metric over two swept parameters as a 3-D surface. Each axis has at most
    :data:`SURFACE_TICKS` ticks, numbers written short (``1e+04`` not ``10000.0``), so that
    the projected tick labels do not run together."""
    xp, yp = _param(sw, x, 0), _param(sw, y, 1)
    if xp == yp:
        yp = _param(sw, None, 1 if xp == sw.params[0] else 0)
    pts = _agg(sw, metric, flow)
    axes = sweep_axes(sw)
    grid = pts.groupby([xp, yp], sort=False)["mean"].mean().reset_index()
    xcats, ycats = list(dict.fromkeys(grid[xp])), list(dict.fromkeys(grid[yp]))
    xv, yv = _positions(axes[xp], xcats), _positions(axes[yp], ycats)
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
    ax.set_xlabel(axes[xp].label, fontsize=8, labelpad=8)
    ax.set_ylabel(axes[yp].label, fontsize=8, labelpad=8)
    ax.set_zlabel(label, fontsize=8, labelpad=6)
    for axis, cats, numeric in ((ax.xaxis, xcats, xv), (ax.yaxis, ycats, yv)):
        if numeric is None:
            step = max(1, -(-len(cats) // SURFACE_TICKS))
            keep = list(range(0, len(cats), step))
            axis.set_ticks(keep, [str(cats[i]) for i in keep])
        else:
            grid_values = np.unique(numeric)
            gaps = np.diff(grid_values)
            span = float(grid_values[-1] - grid_values[0]) if len(grid_values) > 1 else 0.0
            if len(grid_values) <= SURFACE_TICKS and (not len(gaps) or gaps.min() >= 0.08 * span):
                # Few values, well apart: tick exactly the grid's values.
                axis.set_major_locator(FixedLocator(grid_values))
            else:
                axis.set_major_locator(MaxNLocator(SURFACE_TICKS, steps=[1, 2, 2.5, 5, 10]))
            axis.set_major_formatter(FuncFormatter(_number_text))
    ax.zaxis.set_major_locator(MaxNLocator(SURFACE_TICKS, steps=[1, 2, 2.5, 5, 10]))
    ax.zaxis.set_major_formatter(FuncFormatter(_number_text))
    ax.tick_params(labelsize=8, pad=2)
    ax.set_title(f"{metric_name(metric)} ({who_label(flow)}), mean over seeds", fontsize=10)
    return fig
