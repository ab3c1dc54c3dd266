"""Striping (seed 004, Wang, Hwang, Chou 2005): trunks over 802.11b ad hoc channels
(docs/reproductions/wang-2005.md)."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import plots
from ..sweep import ProgressHook
from .core import (
    Reproduction,
    ReproductionResult,
    as_list,
    goodput_mbit,
    shipped_toml,
)
from .findings import Check, Task, below, entry, finish, run_tasks, within

# ---------------------------------------------------------------------------------------
# Striping (seed 004): Wang, Hwang, Chou 2005, the trunk over 802.11b ad hoc channels
# ---------------------------------------------------------------------------------------

WANG_REFERENCE = (
    "Wang, Hwang, Chou, On Striping Traffic over Multiple IEEE 802.11(b) Wireless Channels, "
    "2005 (seed 004; NCTUns 1.0, FreeBSD TCP, 250 s runs); docs/reproductions/wang-2005.md"
)


def _striping_file(file: str) -> dict[str, Any]:
    return shipped_toml("striping", file)


#: Trunk sizes of Fig. 37 (1 = Fig. 11's single channel, 3 = Fig. 12).
WANG_CHANNELS = (1, 2, 3, 5, 7, 10)


def _wang_channels_scenario(quick: bool) -> dict[str, Any]:
    data = _striping_file("channels-10.toml")
    data["run"]["duration"] = "20s" if quick else "60s"
    return data


def _members(n: int) -> tuple[str, ...]:
    return tuple(f"ch{c}" for c in range(1, n + 1))


WANG_CHANNELS_REP = Reproduction(
    name="wang-striping-channels",
    title="Striping Figs. 11, 12, 37: TCP throughput of a trunk over N 802.11b channels",
    reference=WANG_REFERENCE + "; the paper reads about 5 Mb/s per channel, N * 5 Mb/s",
    description="Greedy TCP over a trunk of the first N of ten 802.11b ad hoc channels "
    "(11 Mb/s, BER 0) with the proposed striping method.",
    scenario=_wang_channels_scenario,
    param="trunks.trunk.members",
    values=tuple(_members(n) for n in WANG_CHANNELS),
    x_of=lambda v: float(len(as_list(v))),
    x_label="channels N",
    y_label="TCP goodput (Mbit/s)",
    ours=goodput_mbit("stcp"),
    expected=lambda n: 5.0 * n,
    tolerance=0.10,
    checked=lambda n: True,
    reference_label="Wang et al. (≈ 5 Mb/s * N)",
    seeds=2,
    quick_seeds=1,
)


#: Free channels added beside the congested 1, 5 and 9 (independent media).
WANG_FREE = ("ch11", "ch12", "ch13")
#: Trunks over congested (ch1, ch5, ch9: a greedy TCP pair on each) and free channels; the
#: paper's ideal is 2.5 Mb/s per congested member and 5 per free one (Figs. 17, 19, 21).
WANG_CONGESTION_TRUNKS = (
    ("ch11", "ch12", "ch13"),
    ("ch1", "ch11", "ch12"),
    ("ch1", "ch5", "ch11"),
    ("ch1", "ch5", "ch9"),
    ("ch1", "ch5"),
)


def _wang_ideal_sum(members: tuple[str, ...]) -> float:
    return sum(5.0 if m in WANG_FREE else 2.5 for m in members)


def _wang_congestion_scenario(quick: bool) -> dict[str, Any]:
    data = _striping_file("congestion-3ch.toml")
    data["run"]["duration"] = "20s" if quick else "60s"
    template = next(c for c in data["cells"] if c["name"] == "ch1")
    for k, name in enumerate(WANG_FREE):
        free = {**template, "name": name, "channel": 11 + k}
        free["stations"] = [st for st in template["stations"] if st["node"] in ("node1", "node2")]
        data["cells"].append(free)
    return data


WANG_CONGESTION = Reproduction(
    name="wang-striping-congestion",
    title="Striping Figs. 17, 19, 21: a trunk gets the sum of what its channels leave it",
    reference=WANG_REFERENCE + "; 12.5, 10 and 7.5 Mb/s with 1, 2, 3 of 3 channels shared "
    "with a greedy TCP pair (2.5 Mb/s per shared channel, 5 per free one)",
    description="Trunks over channels 1, 5, 9 (each shared with a greedy TCP pair) and free "
    "channels 11-13; x is the paper's ideal sum for the trunk's members.",
    scenario=_wang_congestion_scenario,
    param="trunks.trunk.members",
    values=WANG_CONGESTION_TRUNKS,
    x_of=lambda v: _wang_ideal_sum(tuple(as_list(v))),
    x_label="ideal sum of the members' shares (Mbit/s)",
    y_label="trunk TCP goodput (Mbit/s)",
    ours=goodput_mbit("stcp"),
    expected=lambda x: x,
    tolerance=0.10,
    checked=lambda x: True,
    reference_label="Wang et al. (sum of 2.5 per shared, 5 per free channel)",
    seeds=2,
    quick_seeds=1,
)


#: Bit error rates of Figs. 23–25 and 43 (and BER 0, Figs. 12, 13, 42), and 2e-5 beyond.
WANG_BERS = (0.0, 1e-6, 5e-6, 1e-5, 2e-5)
#: The proposed method's three-channel TCP throughput at those BERs (Figs. 12, 24), Mb/s:
#: what SRR (Figs. 13, 25) and JKM (Figs. 42, 43) fall below.
WANG_PROPOSED_BY_BER = {0.0: 15.0, 1e-6: 14.7, 5e-6: 13.5, 1e-5: 12.0}


def _ber_cells(ber: float) -> list[dict[str, Any]]:
    """The three channels of ``ber-3ch.toml`` with ``ber`` on both trunk stations."""
    cells = _striping_file("ber-3ch.toml")["cells"]
    for c in cells:
        c["stations"] = [{**st, "ber": ber} for st in c["stations"]]
    return cells


def _cells_ber(v: Any) -> float:
    return float(as_list(v)[0]["stations"][0]["ber"])


def _proposed_at(ber: float) -> float:
    """The paper's points joined by straight lines; NaN beyond its last BER."""
    xs, ys = zip(*sorted(WANG_PROPOSED_BY_BER.items()), strict=True)
    if ber > xs[-1] * (1 + 1e-9):
        return math.nan
    return float(np.interp(ber, xs, ys))


def _scheme_ber_scenario(file: str) -> Callable[[bool], dict[str, Any]]:
    def build(quick: bool) -> dict[str, Any]:
        data = _striping_file(file)
        data["run"]["duration"] = "20s" if quick else "60s"
        return data

    return build


def _scheme_ber(*, scheme: str, file: str, figs: str, why: str) -> Reproduction:
    return Reproduction(
        name=f"wang-striping-{scheme}-ber",
        title=f"Striping Figs. {figs}: {scheme.upper()} on three 802.11b channels against BER",
        reference=WANG_REFERENCE + "; the line is the proposed method's throughput (Figs. 12, "
        f"24: 15, 14.7, 13.5, 12 Mb/s), which {scheme.upper()} falls below ({why}); the paper "
        "gives no numbers of its own for these curves, so nothing is checked here (the Rust "
        "tests check that it is lower)",
        description=f"Greedy TCP over the three-channel trunk with the {scheme.upper()} scheme; "
        "the BER of every channel swept.",
        scenario=_scheme_ber_scenario(file),
        param="cells",
        values=tuple(_ber_cells(b) for b in WANG_BERS),
        x_of=_cells_ber,
        x_label="bit error rate BER",
        y_label="TCP goodput (Mbit/s)",
        ours=goodput_mbit("stcp"),
        expected=_proposed_at,
        tolerance=0.10,
        checked=lambda x: False,
        reference_label="Wang et al., proposed method (Figs. 12, 24)",
        seeds=2,
        quick_seeds=1,
    )


WANG_SRR_BER = _scheme_ber(
    scheme="srr",
    file="srr-ber-3ch.toml",
    figs="13, 25",
    why="marker packets; 14 Mb/s at most at BER 0",
)
WANG_JKM_BER = _scheme_ber(
    scheme="jkm", file="jkm-ber-3ch.toml", figs="42, 43", why="its many ACK packets"
)


def _srr_congestion_scenario(quick: bool) -> dict[str, Any]:
    data = _wang_congestion_scenario(quick)
    data["trunks"][0]["scheme"] = "srr"
    return data


#: Fig. 22: SRR gets 6 Mb/s with one of its three channels shared (x = 12.5).
WANG_SRR_FIG22 = {12.5: 6.0}

WANG_SRR_CONGESTION = Reproduction(
    name="wang-striping-srr-congestion",
    title="Striping Fig. 22: SRR with congested channels (6 Mb/s where the proposed gets 12.5)",
    reference=WANG_REFERENCE + "; Fig. 22: SRR 6 Mb/s with one of three channels shared with "
    "a greedy TCP pair (checked, 15 %); the other points are shown (SRR shares bytes equally, "
    "so the slowest member limits it)",
    description="SRR trunks over channels 1, 5, 9 (each shared with a greedy TCP pair) and "
    "free channels 11-13; x is the proposed method's ideal sum for the trunk's members.",
    scenario=_srr_congestion_scenario,
    param="trunks.trunk.members",
    values=WANG_CONGESTION_TRUNKS,
    x_of=lambda v: _wang_ideal_sum(tuple(as_list(v))),
    x_label="ideal sum of the members' shares (Mbit/s)",
    y_label="trunk TCP goodput with SRR (Mbit/s)",
    ours=goodput_mbit("stcp"),
    expected=lambda x: WANG_SRR_FIG22.get(x, math.nan),
    tolerance=0.15,
    checked=lambda x: x in WANG_SRR_FIG22,
    reference_label="Wang et al., SRR (Fig. 22)",
    seeds=2,
    quick_seeds=1,
)


#: Offered loads of Fig. 36, kB/s (the paper's reach 650 kB/s, below one channel).
WANG_LOW_LOADS_KBPS = (100, 200, 300, 400, 500, 600)


def _low_load_interval(kbps: float) -> str:
    return f"{round(1448 / (kbps * 1e3) * 1e9)}ns"


def _low_load_scenario(quick: bool) -> dict[str, Any]:
    data = _striping_file("low-load-3ch.toml")
    data["run"]["duration"] = "20s" if quick else "60s"
    return data


WANG_LOW_LOAD = Reproduction(
    name="wang-striping-low-load",
    title="Striping Fig. 36: below one channel's capacity the trunk carries the offered load",
    reference=WANG_REFERENCE + "; Fig. 36: with less offered than one channel carries, the "
    "three-channel trunk's throughput is that of a single channel, i.e. the offered load",
    description="A TCP connection writing 1448-B messages at constant intervals over the "
    "three-channel trunk (channels 1, 5, 9, BER 0).",
    scenario=_low_load_scenario,
    param="flows.stcp.app.interval",
    values=tuple(_low_load_interval(k) for k in WANG_LOW_LOADS_KBPS),
    x_of=lambda v: 1448 / float(str(v).removesuffix("ns")) * 1e6,
    x_label="offered load (kB/s)",
    y_label="TCP goodput (kB/s)",
    ours=lambda rows: goodput_mbit("stcp")(rows) * 1e3 / 8,
    expected=lambda x: x,
    tolerance=0.02,
    checked=lambda x: True,
    reference_label="offered load (Wang et al.: trunk = one channel)",
    seeds=2,
    quick_seeds=1,
)


#: Hop counts of Figs. 38–39.
WANG_HOPS = (1, 2, 3, 4, 5)


def _chain(*, file: str, per_hop: float, figs: str, channels: str) -> Reproduction:
    def build(quick: bool) -> dict[str, Any]:
        data = _striping_file(file)
        data["run"]["duration"] = "20s" if quick else "60s"
        return data

    return Reproduction(
        name=f"wang-striping-chain-{channels}",
        title=f"Striping Fig. {figs}: TCP along an N-hop chain, {channels}",
        reference=WANG_REFERENCE + f"; Fig. {figs}: about 1/N of one hop on an N-hop chain "
        f"({per_hop:g} Mb/s / N; the paper's curve levels off near 1/7 for long chains, "
        "through spatial reuse our cells do not model: each channel is one collision domain)",
        description=f"Greedy TCP n0 -> nN along a five-hop chain ({channels}, each hop a "
        "trunk); x is the number of hops to the receiver.",
        scenario=build,
        param="flows.stcp.to",
        values=tuple(f"n{h}" for h in WANG_HOPS),
        x_of=lambda v: float(str(v).removeprefix("n")),
        x_label="hops N",
        y_label="TCP goodput (Mbit/s)",
        ours=goodput_mbit("stcp"),
        expected=lambda n: per_hop / n,
        tolerance=0.10,
        checked=lambda n: True,
        reference_label=f"Wang et al. (≈ {per_hop:g} Mb/s / N)",
        seeds=2,
        quick_seeds=1,
    )


WANG_CHAIN_1CH = _chain(file="chain-1ch.toml", per_hop=5.0, figs="38", channels="1ch")
WANG_CHAIN_3CH = _chain(file="chain-3ch.toml", per_hop=15.0, figs="39", channels="3ch")


#: Trunks over the hidden channel 1 and free channels 5 and 9 (Figs. 29–31): channel 1
#: alone is Fig. 29's node 2 -> node 1 flow, all three Fig. 30's trunk.
WANG_HIDDEN_TRUNKS = (("ch1",), ("ch1", "ch5"), ("ch1", "ch5", "ch9"))
#: What the paper's node 2 gets on the hidden channel (Fig. 29) and what a free channel
#: gives the trunk in its sum for Fig. 30 (§4.2.4: "the sum of 0.3, 5, and 5").
WANG_HIDDEN_SHARE, WANG_FREE_SHARE = 0.3, 5.0


def _wang_hidden_sum(n: float) -> float:
    return WANG_HIDDEN_SHARE + WANG_FREE_SHARE * (n - 1)


def _hidden_scenario(scheme: str) -> Callable[[bool], dict[str, Any]]:
    def build(quick: bool) -> dict[str, Any]:
        data = _striping_file("hidden-terminal-3ch.toml")
        data["run"]["duration"] = "20s" if quick else "60s"
        data["trunks"][0]["scheme"] = scheme
        return data

    return build


def _hidden(
    *, name: str, title: str, reference: str, description: str, scheme: str, **kw: Any
) -> Reproduction:
    """Greedy UDP over trunks of the hidden channel 1 and free channels 5 and 9 with
    ``scheme``; the paper's number is the three-channel trunk's (10 %)."""
    return Reproduction(
        name=name,
        title=title,
        reference=WANG_REFERENCE + "; " + reference,
        description=description,
        scenario=_hidden_scenario(scheme),
        param="trunks.trunk.members",
        values=WANG_HIDDEN_TRUNKS,
        x_of=lambda v: float(len(as_list(v))),
        x_label="channels N (channel 1 hidden)",
        ours=goodput_mbit("stcp"),
        expected=_wang_hidden_sum,
        tolerance=0.10,
        checked=lambda n: n == 3,
        seeds=2,
        quick_seeds=1,
        **kw,
    )


WANG_HIDDEN_UDP = _hidden(
    name="wang-striping-hidden-udp",
    title="Striping Figs. 29-30: greedy UDP over a trunk whose channel 1 has a hidden terminal",
    reference="§4.2.4: node 2 -> node 1 gets 0.3 Mb/s on the hidden channel (Fig. 29) and the "
    "three-channel trunk about 10.3 Mb/s, the sum of 0.3, 5 and 5 (Fig. 30, checked, 10 %); "
    "the two-channel point is that sum's rule, shown",
    description="Greedy UDP (1472-B datagrams at 20 Mb/s) node 2 -> node 1 over trunks of channel "
    "1 (shared with the hidden pair node 3 -> node 4, who hears whom as Fig. 28) and free "
    "channels 5 and 9; x is the number of channels.",
    scheme="proposed",
    y_label="trunk UDP goodput (Mbit/s)",
    reference_label="Wang et al. (0.3 + 5 per free channel)",
)
WANG_SRR_HIDDEN_UDP = _hidden(
    name="wang-striping-srr-hidden-udp",
    title="Striping Fig. 31: SRR's UDP over a trunk whose channel 1 has a hidden terminal",
    reference="§4.2.4: SRR's UDP throughput is less than the proposed method's 10.3 Mb/s (Fig. 31; "
    "checked as an upper bound, 10 %) and fluctuates",
    description="As wang-striping-hidden-udp with the SRR scheme (3 000-B quantum, markers).",
    scheme="srr",
    y_label="trunk UDP goodput with SRR (Mbit/s)",
    reference_label="Wang et al., proposed method (upper bound for SRR)",
    bound="upper",
)


# ---------------------------------------------------------------------------------------
# Mobility (Figs. 32-35, 44): the trunk's two nodes part at 0.7 m/s from 100 m
# ---------------------------------------------------------------------------------------

#: The lines of Figs. 33, 34, 35 and 44: (label, shipped file, trunk scheme or None).
WANG_MOBILITY_LINES = (
    ("one channel (Fig. 33)", "mobility-1ch.toml", None),
    ("trunk, proposed (Fig. 34)", "mobility-3ch.toml", "proposed"),
    ("trunk, SRR (Fig. 35)", "mobility-3ch.toml", "srr"),
    ("trunk, JKM (Fig. 44)", "mobility-3ch.toml", "jkm"),
)
#: §4.2.5: the nodes start 100 m apart and part at 0.7 m/s; the shipped runs last 1 800 s
#: (to 1 360 m, past the CCK 11 range). A quick run moves ten times faster for 180 s
#: (the same distances, each window a tenth as long).
WANG_MOBILITY_START_M, WANG_MOBILITY_SPEED, WANG_MOBILITY_S = 100.0, 0.7, 1800.0
#: Goodput is averaged over windows of 100 s (70 m) of the full run.
WANG_MOBILITY_WINDOW_S = 100.0


def _mobility_scenario(file: str, scheme: str | None, speedup: float) -> dict[str, Any]:
    data = copy.deepcopy(_striping_file(file))
    data["run"]["duration"] = f"{WANG_MOBILITY_S / speedup:g}s"
    for m in data["propagation"]["motion"]:
        m["velocity"] = [v * speedup for v in m["velocity"]]
    if scheme is not None:
        data["trunks"][0]["scheme"] = scheme
    return data


def _mobility_windows(res: Any, speedup: float) -> pd.DataFrame:
    """Mean TCP goodput (Mb/s) per window, with the distance at its middle."""
    ts = res.timeseries
    ts = ts[(ts["kind"] == "flow") & (ts["name"] == "stcp") & (ts["metric"] == "throughput_bps")]
    window = WANG_MOBILITY_WINDOW_S / speedup
    k = np.floor((ts["time_s"].to_numpy(dtype=float) - 1e-9) / window)
    g = pd.DataFrame({"k": k, "v": ts["value"].to_numpy(dtype=float)}).groupby("k")["v"].mean()
    mid_s = (g.index.to_numpy(dtype=float) + 0.5) * window
    dist = WANG_MOBILITY_START_M + WANG_MOBILITY_SPEED * speedup * mid_s
    return pd.DataFrame({"distance_m": dist, "goodput_mbit": g.to_numpy() / 1e6})


def _first_below(w: pd.DataFrame, level: float) -> float:
    """The distance of the first window under ``level`` Mb/s (NaN if none)."""
    low = w[w["goodput_mbit"] < level]
    return float(low["distance_m"].iloc[0]) if len(low) else math.nan


def _mobility_run(
    rep: Reproduction,
    out: str | Path,
    jobs: int | None = None,
    quick: bool = False,
    progress: ProgressHook | None = None,
) -> ReproductionResult:
    speedup = 10.0 if quick else 1.0
    tasks = [
        Task((label,), _mobility_scenario(file, scheme, speedup))
        for label, file, scheme in WANG_MOBILITY_LINES
    ]

    def metrics(task: Task, res: Any) -> list[dict[str, Any]]:
        w = _mobility_windows(res, speedup)
        w.insert(0, "line", task.label[0])
        return w.to_dict("records")

    data = run_tasks(tasks, metrics, jobs, progress)
    line = {label: data[data["line"] == label] for label, _, _ in WANG_MOBILITY_LINES}
    one, trunk, srr, jkm = (line[label] for label, _, _ in WANG_MOBILITY_LINES)
    total = {k: float(v["goodput_mbit"].sum()) for k, v in line.items()}
    t_one, t_trunk = total[WANG_MOBILITY_LINES[0][0]], total[WANG_MOBILITY_LINES[1][0]]
    t_srr, t_jkm = total[WANG_MOBILITY_LINES[2][0]], total[WANG_MOBILITY_LINES[3][0]]
    checks = [
        within(
            "one channel at 100-170 m ≈ 5 Mb/s (Fig. 33, §4.2.1's single channel), ±10 %",
            float(one["goodput_mbit"].iloc[0]),
            5.0,
            0.10,
        ),
        within(
            "the trunk carries almost three times one channel over the whole run (Fig. 34: "
            "bytes, trunk / one channel ≈ 3), ±10 %",
            t_trunk / t_one if t_one else math.nan,
            3.0,
            0.10,
        ),
        within(
            "the trunk falls under 10 % of its start where one channel does (Figs. 33-34: "
            "the BER ends both; distance, m), ±10 %",
            _first_below(trunk, 0.1 * float(trunk["goodput_mbit"].iloc[0])),
            _first_below(one, 0.1 * float(one["goodput_mbit"].iloc[0])),
            0.10,
        ),
        below(
            "SRR carries less than the proposed method over the run (Fig. 35: it drops to 0 "
            "once the BER rises; sum of the window means, Mb/s)",
            t_srr,
            t_trunk,
        ),
        below(
            "JKM carries much less than the proposed method (Fig. 44: TCP timeouts while it "
            "holds packets for holes; sum of the window means, Mb/s)",
            t_jkm,
            t_trunk,
        ),
        Check(
            "SRR reaches 0 (under 0.1 Mb/s) no farther than the proposed method (Fig. 35: "
            '"quickly drops to 0"; distance, m)',
            _first_below(srr, 0.1),
            _first_below(trunk, 0.1),
            bool(_first_below(srr, 0.1) <= _first_below(trunk, 0.1)),
        ),
    ]
    del jkm
    return finish(rep, Path(out), data, checks, _mobility_figure(data), quick)


def _mobility_figure(data: pd.DataFrame) -> Any:
    """Figs. 33-35 and 44 on one axis: TCP goodput against the distance."""
    fig = plots.new_figure(8.0, 4.5)
    ax = fig.subplots()
    for label, _, _ in WANG_MOBILITY_LINES:
        d = data[data["line"] == label]
        ax.plot(d["distance_m"], d["goodput_mbit"], marker=".", lw=1.0, label=label)
    ax.set_xlabel("distance between the trunk's nodes (m); they part at 0.7 m/s")
    ax.set_ylabel("TCP goodput (Mbit/s), 100-s means")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Wang et al. Figs. 33-35, 44: TCP as the nodes move apart", fontsize=10)
    return fig


WANG_MOBILITY = entry(
    name="wang-striping-mobility",
    title="Striping Figs. 33-35, 44: TCP on one channel and on trunks as the nodes part",
    reference=WANG_REFERENCE
    + "; §4.2.5 and §5: one channel falls with distance, the proposed trunk "
    "stays almost three times it, SRR drops to 0, JKM much lower; the figures' axes are "
    "lost, so the findings are checked (single channel 5 Mb/s, ratio 3, 10 %)",
    description="Greedy TCP node 2 -> node 1 while the two move apart at 0.7 m/s from 100 m (free "
    "space, CCK 11 BER from the SNR), 1 800 s: one channel, and three-channel trunks with the "
    "proposed method, SRR and JKM. Goodput in 100-s windows against distance.",
    scenario=lambda quick: _mobility_scenario("mobility-3ch.toml", None, 10.0 if quick else 1.0),
    lines=tuple(label for label, _, _ in WANG_MOBILITY_LINES),
    runner=_mobility_run,
    tolerance=0.10,
    reference_label="Wang et al. 2005",
    x_label="distance (m)",
    y_label="TCP goodput (Mbit/s)",
    param="trunks.trunk.scheme",
)


ENTRIES = (
    WANG_CHANNELS_REP,
    WANG_CONGESTION,
    WANG_SRR_BER,
    WANG_SRR_CONGESTION,
    WANG_JKM_BER,
    WANG_LOW_LOAD,
    WANG_CHAIN_1CH,
    WANG_CHAIN_3CH,
    WANG_HIDDEN_UDP,
    WANG_SRR_HIDDEN_UDP,
    WANG_MOBILITY,
)
