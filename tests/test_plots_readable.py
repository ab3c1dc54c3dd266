"""Readable figures (issue 33, item 16): axes named with the unit their values are in,
legends with units, overlapping CDF curves that stay visible, 3-D tick labels that do not
run together, every value drawn when there are few seeds, and a smoothing window for
time series. Each test reads the matplotlib objects the figure is made of."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from typer.testing import CliRunner

import airqueue
from airqueue import cli, plots
from airqueue.cli.common import InputError
from airqueue.quantities import param_axis
from airqueue.sweep import SweepResult, aggregate, load_sweep
from support import DUMBBELL, UDP_BOTTLENECK

RATE = "links.bottleneck.rate"
LIMIT = "qdiscs.router.bottleneck.limit"
DELAY = "links.bottleneck.delay"


def fake_sweep(
    grid: dict[str, Sequence[Any]],
    seeds: int,
    goodput: Callable[[int, int], float],
    flows: int = 2,
) -> SweepResult:
    """A sweep's tables without running anything: ``goodput(point, seed)`` per flow."""
    rows = []
    for point, combo in enumerate(itertools.product(*grid.values())):
        for seed in range(1, seeds + 1):
            for f in range(flows):
                rows.append(
                    {
                        "point": point,
                        **dict(zip(grid, combo, strict=True)),
                        "seed": seed,
                        "key": f"k{point}-{seed}",
                        "flow": f"f{f}",
                        "goodput_bps": goodput(point, seed) + 1e5 * f,
                        "rx_packets": 100,
                        "delay_mean_ms": 10.0 + point,
                    }
                )
    runs = pd.DataFrame(rows)
    params = list(grid)
    return SweepResult(runs=runs, points=aggregate(runs, params), info={}, params=params)


@pytest.fixture(scope="module")
def real_sweep(tmp_path_factory: pytest.TempPathFactory) -> SweepResult:
    out = tmp_path_factory.mktemp("readable") / "sw"
    airqueue.sweep(
        UDP_BOTTLENECK,
        grid={RATE: ["5Mbit", "10Mbit"], LIMIT: [20, 100]},
        seeds=3,
        jobs=1,
        out=out,
        set=["run.duration=1s", "run.warmup=0s"],
    )
    return load_sweep(out)


@pytest.fixture(scope="module")
def dumbbell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dumbbell-smooth") / "run"
    airqueue.run(DUMBBELL, set={"run.duration": "6s", "run.warmup": "0s"}).write(out)
    return out


def legend_texts(fig: Figure) -> list[str]:
    leg = fig.axes[0].get_legend()
    assert leg is not None
    return [t.get_text() for t in leg.get_texts()]


# --- axis names and units -----------------------------------------------------------------


def test_swept_axes_are_named_by_their_leaf_with_the_unit_the_values_are_in(
    real_sweep: SweepResult,
) -> None:
    """Not ``links.bottleneck.rate (Mbit)``: the values are 5 and 10 Mbit/s, a pfifo's limit
    is packets (the schema's pfifo ``limit``, chosen by the base scenario's qdisc kind)."""
    fig = plots.line(real_sweep, x=RATE)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "bottleneck rate (Mbit/s)"
    assert sorted({float(x) for ln in ax.get_lines() for x in ln.get_xdata()}) == [5.0, 10.0]
    assert legend_texts(fig) == ["limit = 20 packets", "limit = 100 packets"]
    fig = plots.line(real_sweep, x=LIMIT)
    assert fig.axes[0].get_xlabel() == "router.bottleneck limit (packets)"
    assert legend_texts(fig) == ["rate = 5 Mbit/s", "rate = 10 Mbit/s"]
    surf = plots.surface(real_sweep).axes[0]
    assert surf.get_xlabel() == "bottleneck rate (Mbit/s)"
    assert surf.get_ylabel() == "router.bottleneck limit (packets)"
    ticks = [t.get_text() for t in plots.box(real_sweep).axes[0].get_xticklabels()]
    assert ticks[0] == "rate = 5 Mbit/s\nlimit = 20 packets"


def test_values_are_converted_as_the_core_reads_them() -> None:
    """kbit is 1000 bit/s; mixed units share one axis; durations in ms; a bfifo's limit is
    bytes where a pfifo's is packets; a loss probability in %."""
    rate = param_axis(RATE, ["500kbit", "2Mbit", "1Kibit"])
    assert rate.unit == "Mbit/s" and rate.numbers == {
        "500kbit": 0.5,
        "2Mbit": 2.0,
        "1Kibit": pytest.approx(0.001024),
    }
    delay = param_axis(DELAY, ["500us", "20ms"])
    assert delay.label == "bottleneck delay (ms)" and delay.numbers == {"500us": 0.5, "20ms": 20.0}
    bfifo = {"qdiscs": [{"dev": "router.bottleneck", "kind": "bfifo"}]}
    pfifo = {"qdiscs": [{"dev": "router.bottleneck", "kind": "pfifo"}]}
    assert param_axis(LIMIT, [3000, 30000], bfifo).label == "router.bottleneck limit (KiB)"
    assert param_axis(LIMIT, [20], pfifo).text(20) == "20 packets"
    assert param_axis(LIMIT, [20]).unit == ""  # unknown kind: no unit rather than a wrong one
    loss = param_axis("links.bottleneck.impairment.loss", [0.01, "2%"])
    assert loss.unit == "%" and loss.numbers == {0.01: 1.0, "2%": 2.0}
    assert param_axis("flows.cbr.app.rate", ["1Mbit"]).label == "cbr.app rate (Mbit/s)"


# --- overlapping CDF curves ---------------------------------------------------------------


def test_identical_cdf_curves_are_both_visible_and_the_legend_says_so() -> None:
    grid = {RATE: ["5Mbit", "10Mbit"], DELAY: ["10ms", "20ms", "40ms"]}
    sw = fake_sweep(grid, 3, lambda p, s: 1e6)
    fig = plots.cdf(sw, flow="")
    lines = fig.axes[0].get_lines()
    assert len(lines) == 6
    styles = [(ln.get_linestyle(), ln.get_marker()) for ln in lines]
    assert len(set(styles)) == len(styles), styles
    # Later curves are drawn over earlier ones and thinner, so the one below shows around it.
    assert [ln.get_zorder() for ln in lines] == sorted(ln.get_zorder() for ln in lines)
    assert lines[1].get_linewidth() < lines[0].get_linewidth()
    texts = legend_texts(fig)
    assert texts[0] == "rate = 5 Mbit/s, delay = 10 ms"
    assert texts[1].endswith("(the same values as rate = 5 Mbit/s, delay = 10 ms)")


def test_identical_lines_of_a_line_plot_are_both_visible_and_the_legend_says_so() -> None:
    sw = fake_sweep({RATE: ["5Mbit", "10Mbit"], DELAY: ["10ms", "20ms"]}, 3, lambda p, s: 1e6)
    fig = plots.line(sw, x=RATE)
    lines = fig.axes[0].get_lines()
    assert len({(ln.get_linestyle(), ln.get_marker()) for ln in lines}) == 2
    assert lines[1].get_zorder() > lines[0].get_zorder()
    assert lines[1].get_markersize() < lines[0].get_markersize()
    same = "delay = 20 ms\n(the same means as delay = 10 ms)"
    assert legend_texts(fig) == ["delay = 10 ms", same]


def test_different_cdf_curves_are_not_called_the_same() -> None:
    sw = fake_sweep({LIMIT: [20, 100]}, 3, lambda p, s: 1e6 * (p + 1) + s)
    assert not any("same" in t for t in legend_texts(plots.cdf(sw, flow="")))


# --- 3-D tick labels ----------------------------------------------------------------------


def test_surface_ticks_are_few_short_and_do_not_overlap() -> None:
    rates = [f"{r}kbit" for r in range(500, 12_500, 1000)]  # 12 values, 0.5 to 11.5 Mbit/s
    delays = [f"{d}ms" for d in range(0, 600, 50)]  # 12 values
    sw = fake_sweep({RATE: rates, DELAY: delays}, 2, lambda p, s: 1e5 * p + 7777.0 * s)
    fig = plots.surface(sw)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    ax = fig.axes[0]
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        lo, hi = sorted(axis.get_view_interval())
        pairs = zip(axis.get_majorticklocs(), axis.get_ticklabels(), strict=True)
        labels = [t for loc, t in pairs if lo <= loc <= hi and t.get_visible() and t.get_text()]
        assert 2 <= len(labels) <= plots.SURFACE_TICKS + 1, [t.get_text() for t in labels]
        assert all(len(t.get_text()) <= 6 for t in labels), [t.get_text() for t in labels]
        boxes = [t.get_window_extent(renderer) for t in labels]
        for a, b in itertools.combinations(boxes, 2):
            assert not a.overlaps(b), (axis.axis_name, [t.get_text() for t in labels])
    assert ax.get_xlabel() == "bottleneck rate (Mbit/s)"
    assert ax.get_ylabel() == "bottleneck delay (ms)"


# --- few seeds: points, not boxes ---------------------------------------------------------


def test_three_seeds_are_drawn_as_points_with_mean_and_ci_not_boxes() -> None:
    sw = fake_sweep({DELAY: ["10ms", "1s"]}, 3, lambda p, s: 1e6 * (p + 1) + 1e4 * s)
    fig = plots.box(sw)
    ax = fig.axes[0]
    dots = [c for c in ax.collections if isinstance(c, PathCollection)]
    ys = sorted(float(y) for c in dots for y in c.get_offsets()[:, 1])
    # Run totals of 2 flows: 2 * goodput + 1e5 (the second flow's offset), in Mbit/s.
    want = sorted((2 * (1e6 * (p + 1) + 1e4 * s) + 1e5) / 1e6 for p in (0, 1) for s in (1, 2, 3))
    assert ys == pytest.approx(want)
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2
    mean = bars[0].lines[0].get_ydata()[0]
    assert mean == pytest.approx(np.mean(want[:3]))
    assert "each seed" in ax.get_title(loc="left")
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "delay = 10 ms",
        "delay = 1000 ms",
    ]


def test_many_seeds_still_get_boxes() -> None:
    sw = fake_sweep({LIMIT: [20, 100]}, plots.STRIP_MAX_SEEDS + 3, lambda p, s: 1e6 + 1e4 * s)
    ax = plots.box(sw).axes[0]
    assert not ax.collections and not ax.containers
    assert "spread over seeds" in ax.get_title(loc="left")


# --- smoothing ----------------------------------------------------------------------------


def test_smoothing_is_a_centred_moving_average_of_the_stated_window(dumbbell: Path) -> None:
    res = airqueue.Result.read(dumbbell)
    raw = plots.timeseries(res).axes[0]
    smooth = plots.timeseries(res, smooth=1.0).axes[0]
    assert raw.get_title(loc="left") == "throughput per flow"
    assert smooth.get_title(loc="left") == (
        "throughput per flow, moving average over 1 s (10 samples)"
    )
    for r, s in zip(raw.get_lines(), smooth.get_lines(), strict=True):
        y = np.asarray(r.get_ydata(), dtype=float)
        got = np.asarray(s.get_ydata(), dtype=float)
        assert np.array_equal(r.get_xdata(), s.get_xdata())
        # Interior samples: the mean of the 10 samples around each (5 before, 4 after).
        want = np.convolve(y, np.ones(10) / 10, mode="valid")
        assert got[5 : 5 + len(want)] == pytest.approx(want)
        assert not np.allclose(got, y)
    # cwnd and backlog stay raw.
    for r, s in zip(
        plots.timeseries(res).axes[1:], plots.timeseries(res, smooth=1.0).axes[1:], strict=True
    ):
        assert "moving average" not in s.get_title(loc="left")
        for a, b in zip(r.get_lines(), s.get_lines(), strict=True):
            assert np.array_equal(a.get_ydata(), b.get_ydata())


def test_smooth_option_of_the_cli(dumbbell: Path, tmp_path: Path) -> None:
    def invoke(*args: str | Path) -> Any:
        return CliRunner().invoke(cli.app, ["plot", str(dumbbell), *map(str, args)])

    res = invoke("--smooth", "500ms", "--out", tmp_path / "s.png")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "s.png").stat().st_size > 1000
    for args, says in (
        (["--smooth", "50ms"], "give at least 200 ms"),
        (["--smooth", "soon"], "not a duration"),
        (["--kind", "box", "--smooth", "1s"], "smooths time series only"),
    ):
        res = invoke(*args)
        assert isinstance(res.exception, InputError) and says in str(res.exception), args
        assert str(res.exception).startswith("--smooth"), res.exception
