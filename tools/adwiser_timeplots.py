#!/usr/bin/env python3
"""The ADWISER (seed 002) time plots as the paper draws them: each timeline scenario of
``scenarios/adwiser/`` run as shipped (the box bypassed, then switched in by ``[[at]]``;
Figs. 16 and 21 also without the box), the throughput of each transfer and of the groups
the paper draws, 10-s means, against time, with the switch marked; Fig. 16 with C* of
each period. Writes ``OUT/figNN.png`` and prints each period's means (the numbers in
docs/reproductions/hegde-2013.md).

    python3 tools/adwiser_timeplots.py [--out DIR] [--jobs 2] [fig18 ...]
"""

from __future__ import annotations

import argparse
import copy
import tomllib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

import airqueue
from airqueue import plots, wifi

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Plot:
    """One figure: a scenario file, the groups of flows to draw (label → name prefixes),
    the periods to average (label, from, to in s), and whether a no-box run is drawn too."""

    fig: str
    file: str
    title: str
    groups: dict[str, tuple[str, ...]]
    periods: tuple[tuple[str, float, float], ...]
    each: tuple[str, ...] = ()
    no_box: bool = False
    c_star: tuple[tuple[float, float, float], ...] = field(default_factory=tuple)


def _cstar_a(m: tuple[int, int, int]) -> float:
    c = [wifi.tcp_rate("802.11a", r) / 1e6 for r in (54, 24, 6)]
    return sum(k * ci for k, ci in zip(m, c, strict=True)) / sum(m)


PLOTS = (
    Plot(
        "fig16",
        "fig16-join-leave.toml",
        "Fig. 16: aggregate download throughput as stations join and leave (802.11a)",
        {"aggregate": ("d",)},
        (
            ("3/3/3", 120, 1200),
            ("1/2/3", 1320, 2400),
            ("4/4/4", 2520, 3600),
        ),
        no_box=True,
        c_star=(
            (0, 1200, _cstar_a((3, 3, 3))),
            (1200, 2400, _cstar_a((1, 2, 3))),
            (2400, 3600, _cstar_a((4, 4, 4))),
        ),
    ),
    Plot(
        "fig17",
        "fig17-mixed-rates.toml",
        "Fig. 17: uploads and downloads at 11/5.5/2 Mb/s (box in at 300 s)",
        {"uploads": ("up",), "downloads": ("down",), "11 Mb/s pair": ("up11", "down11")},
        (("bypassed", 60, 300), ("box", 420, 600)),
        each=("up", "down"),
    ),
    Plot(
        "fig18",
        "fig18-up-down.toml",
        "Fig. 18: five uploads and five downloads at 11 Mb/s (box in at 300 s)",
        {"uploads": ("up",), "downloads": ("down",)},
        (("bypassed", 60, 300), ("box", 420, 600)),
        each=("up", "down"),
    ),
    Plot(
        "fig19",
        "fig19-uploads.toml",
        "Figs. 8, 19: ten uploads at 11 Mb/s (box in at 300 s)",
        {"aggregate": ("up",)},
        (("bypassed", 60, 300), ("box", 420, 600)),
        each=("up",),
    ),
    Plot(
        "fig20",
        "fig20-wan-lan.toml",
        "Figs. 9, 20: WAN and LAN downloads at 54 Mb/s (box in at 300 s)",
        {"WAN pair": ("wan",), "LAN pair": ("lan",)},
        (("bypassed", 60, 300), ("box", 420, 600)),
    ),
    Plot(
        "fig21",
        "fig21-voip-cac.toml",
        "Fig. 21: TCP download as G.711 calls start every 5 s from 50 s (box: CAC 12)",
        {"TCP": ("tcp",)},
        (("alone", 10, 50), ("after 250 s", 250, 300)),
        no_box=True,
    ),
    Plot(
        "fig22",
        "fig22-up-down-54.toml",
        "Fig. 22: a download, an upload from 200 s, at 54 Mb/s (box in at 400 s)",
        {"download": ("down",), "upload": ("up",)},
        (("download alone", 20, 200), ("bypassed", 250, 400), ("box", 450, 600)),
    ),
    Plot(
        "fig23",
        "fig23-uploads-54.toml",
        "Fig. 23: two uploads at 54 Mb/s (box in at 300 s)",
        {"up0": ("up0",), "up1": ("up1",)},
        (("bypassed", 60, 300), ("box", 360, 600)),
    ),
    Plot(
        "fig26",
        "fig26-gold-bronze.toml",
        "Fig. 26: gold and bronze WAN downloads, policy 4:1 (box in at 500 s)",
        {"gold": ("gold",), "bronze": ("bronze",)},
        (("bypassed", 100, 500), ("box", 620, 1000)),
    ),
)


def _scenario(p: Plot, bypass_all: bool) -> dict[str, Any]:
    data = tomllib.loads((ROOT / "scenarios" / "adwiser" / p.file).read_text())
    if bypass_all:
        data["at"] = [a for a in data.get("at", []) if "qdisc" not in a]
        if not data["at"]:
            data.pop("at")
        for q in data["qdiscs"]:
            if q.get("name") == "box":
                q["bypass"] = True
    return data


def _throughput(data: dict[str, Any]) -> pd.DataFrame:
    """Per-flow throughput (Mb/s) by second: columns are flows."""
    ts = airqueue.run(copy.deepcopy(data)).timeseries
    t = ts[(ts["kind"] == "flow") & (ts["metric"] == "throughput_bps")]
    return t.pivot(index="time_s", columns="name", values="value") / 1e6


def _group(df: pd.DataFrame, prefixes: tuple[str, ...]) -> pd.Series:
    cols = [c for c in df.columns if c.startswith(prefixes)]
    return df[cols].sum(axis=1)


def run_plot(args: tuple[Plot, Path]) -> str:
    p, out = args
    runs = {"": _throughput(_scenario(p, False))}
    if p.no_box:
        runs[" (no box)"] = _throughput(_scenario(p, True))
    fig = plots.new_figure(8.0, 4.6)
    ax = fig.add_subplot()
    lines = [f"{p.fig}: {p.title}"]
    for suffix, df in runs.items():
        smooth = df.rolling(10, min_periods=1).mean()
        for prefix in p.each:
            for c in (c for c in df.columns if c.startswith(prefix)):
                ax.plot(smooth.index, smooth[c], linewidth=0.5, alpha=0.5, color="grey")
        for label, prefixes in p.groups.items():
            ax.plot(smooth.index, _group(smooth, prefixes), linewidth=1.4, label=label + suffix)
            means = []
            for name, a, b in p.periods:
                g = _group(df, prefixes)
                means.append(f"{name} {g[(g.index > a) & (g.index <= b)].mean():.3f}")
            lines.append(f"  {label}{suffix}: " + ", ".join(means))
        if p.each:
            for name, a, b in p.periods:
                sel = df[(df.index > a) & (df.index <= b)].mean()
                each = sel[[c for c in df.columns if c.startswith(p.each)]]
                lines.append(
                    f"  each{suffix}, {name}: " + " ".join(f"{k}={v:.3f}" for k, v in each.items())
                )
    for a, b, c in p.c_star:
        ax.plot([a, b], [c, c], color="black", linewidth=2.5, label="C*" if a == 0 else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mbit/s, 10-s mean)")
    ax.set_title(p.title, loc="left", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    plots.save(fig, out / f"{p.fig}.png")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("figs", nargs="*")
    ap.add_argument("--out", default=str(ROOT / "docs" / "reproductions" / "img" / "hegde-2013"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    out = Path(a.out)
    todo = [(p, out) for p in PLOTS if not a.figs or p.fig in a.figs]
    with ProcessPoolExecutor(a.jobs) as ex:
        for text in ex.map(run_plot, todo):
            print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
