"""The reproduction catalog: named paper figures (or closed forms) that airqueue re-derives.

Each :class:`Reproduction` is a scenario, a sweep over one parameter with several seeds, a
way to read our number from each run, and the reference numbers with a stated tolerance.
``airqueue reproduce NAME`` runs the sweep and writes the figure (ours with 95 % CI, the
reference as a line) and ``comparison.csv`` (our numbers beside the reference's).

What exists today is wired links, FIFOs and TCP, so the first entries are the classic
closed forms those models must meet; the seed papers' wireless figures are registered here
as their models land.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.table import Table

from . import plots
from .store import atomic_write_bytes
from .sweep import ProgressHook, SweepResult, mean_ci, sweep


@dataclass(frozen=True)
class Reproduction:
    """A registered reproduction (see the module documentation)."""

    name: str
    #: What is reproduced (a figure, a table, a closed form).
    title: str
    #: Where the reference numbers come from.
    reference: str
    #: How the scenario realises the reference's assumptions.
    description: str
    #: The scenario as a dict (``quick``: shorter runs).
    scenario: Callable[[bool], dict[str, Any]]
    #: The swept path and its values.
    param: str
    values: tuple[Any, ...]
    #: The x coordinate of a grid value (e.g. load ρ from an inter-arrival time).
    x_of: Callable[[Any], float]
    x_label: str
    y_label: str
    #: Our number from one run's flow rows.
    ours: Callable[[pd.DataFrame], float]
    #: The reference number at x.
    expected: Callable[[float], float]
    #: Relative tolerance of the mean over seeds against the reference.
    tolerance: float
    #: Whether x lies where the reference claims to hold (other points are shown, not checked).
    checked: Callable[[float], bool]
    #: Legend of the reference curve.
    reference_label: str = "reference"
    seeds: int = 5
    quick_seeds: int = 2
    log_x: bool = False
    log_y: bool = False


@dataclass
class ReproductionResult:
    reproduction: Reproduction
    table: pd.DataFrame
    sweep: SweepResult
    figure: Path
    table_path: Path
    #: Whether every checked point is within its tolerance; ``None`` for a quick run,
    #: which checks nothing (too few seeds and too short runs to judge a tolerance).
    passed: bool | None
    quick: bool


# ---------------------------------------------------------------------------------------
# M/D/1: Pollaczek–Khinchine
# ---------------------------------------------------------------------------------------

#: Service time of a 1000-B datagram at 10 Mbit/s.
MD1_SERVICE_S = 1000 * 8 / 10e6
MD1_LOADS = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9)


def _md1_scenario(quick: bool) -> dict[str, Any]:
    return {
        "description": "Poisson arrivals of 1000-B datagrams into an unbounded pfifo on a "
        "10 Mbit link (D = 800 µs, no propagation delay): M/D/1.",
        "run": {"duration": "40s" if quick else "210s", "warmup": "10s", "sample_interval": "1s"},
        "nodes": [{"name": "sender"}, {"name": "receiver"}],
        "links": [{"name": "link", "between": ["sender", "receiver"], "rate": "10Mbit"}],
        "qdiscs": [{"dev": "sender.link", "kind": "pfifo", "limit": 100_000_000}],
        "flows": [
            {
                "name": "poisson",
                "from": "sender",
                "to": "receiver",
                "app": {"kind": "poisson", "size": 972, "interval": "1600000ns"},
            }
        ],
    }


def _md1_interval(rho: float) -> str:
    return f"{round(MD1_SERVICE_S * 1e9 / rho)}ns"


def _md1_wait_us(rows: pd.DataFrame) -> float:
    # FIFO on a dedicated link without propagation delay: one-way delay = W_q + D.
    return float(rows["delay_mean_ms"].iloc[0]) * 1e3 - MD1_SERVICE_S * 1e6


def _pk_wait_us(rho: float) -> float:
    """Pollaczek–Khinchine mean wait for deterministic service: W_q = ρD / (2(1 - ρ))."""
    return rho * MD1_SERVICE_S / (2 * (1 - rho)) * 1e6


MD1 = Reproduction(
    name="md1-pollaczek-khinchine",
    title="M/D/1 mean queueing delay against offered load",
    reference="closed form: Pollaczek–Khinchine, W_q = ρD / (2(1 - ρ)) (Kleinrock, Queueing "
    "Systems I, 1975, §5.7)",
    description=_md1_scenario(False)["description"],
    scenario=_md1_scenario,
    param="flows.poisson.app.interval",
    values=tuple(_md1_interval(r) for r in MD1_LOADS),
    x_of=lambda v: MD1_SERVICE_S * 1e9 / float(str(v).removesuffix("ns")),
    x_label="offered load ρ",
    y_label="mean wait in queue W_q (µs)",
    ours=_md1_wait_us,
    expected=_pk_wait_us,
    tolerance=0.05,
    checked=lambda rho: True,
    reference_label="Pollaczek–Khinchine",
)


# ---------------------------------------------------------------------------------------
# TCP throughput against loss: Mathis et al.
# ---------------------------------------------------------------------------------------

MATHIS_MSS = 1448
MATHIS_RTT_S = 0.050 + 1500 * 8 / 100e6  # two 25 ms propagation delays + one serialization
MATHIS_LOSSES = ("0.05%", "0.1%", "0.2%", "0.5%", "1%", "2%", "5%")


def _mathis_scenario(quick: bool) -> dict[str, Any]:
    return {
        "description": "One bulk TCP NewReno flow (MSS 1448, no delayed ACKs, 64 MiB receive "
        "buffer) over a 100 Mbit, 25 ms link with Bernoulli loss in both directions: the "
        "window, never the link, limits the rate.",
        "run": {"duration": "60s" if quick else "200s", "warmup": "20s"},
        "nodes": [{"name": "sender"}, {"name": "receiver"}],
        "links": [
            {
                "name": "path",
                "between": ["sender", "receiver"],
                "rate": "100Mbit",
                "delay": "25ms",
                "impairment": {"loss": "1%"},
            }
        ],
        "qdiscs": [{"dev": "sender.path", "kind": "pfifo", "limit": 10000}],
        "flows": [
            {
                "name": "tcp",
                "from": "sender",
                "to": "receiver",
                "transport": {
                    "kind": "tcp",
                    "variant": "newreno",
                    "mss": MATHIS_MSS,
                    "delayed_ack": False,
                    "rcv_buffer": "64MiB",
                    "min_rto": "200ms",
                },
                "app": {"kind": "bulk"},
            }
        ],
    }


def _mathis_bw_mbit(p: float) -> float:
    """Mathis, Semke, Mahdavi, Ott 1997, eq. (3): BW = MSS/RTT · C/√p, C = √(3/2) (one ACK
    per segment)."""
    return MATHIS_MSS * 8 / MATHIS_RTT_S * math.sqrt(1.5) / math.sqrt(p) / 1e6


MATHIS = Reproduction(
    name="tcp-mathis",
    title="TCP NewReno throughput against random loss",
    reference="closed form: Mathis, Semke, Mahdavi, Ott, The Macroscopic Behavior of the TCP "
    "Congestion Avoidance Algorithm, CCR 27(3), 1997, eq. (3), C = √(3/2); it assumes losses "
    "are recovered by fast retransmit, so points with p > 1 % (timeouts dominate) are shown, "
    "not checked",
    description=_mathis_scenario(False)["description"],
    scenario=_mathis_scenario,
    param="links.path.impairment.loss",
    values=MATHIS_LOSSES,
    x_of=lambda v: float(str(v).removesuffix("%")) / 100,
    x_label="loss probability p",
    y_label="goodput (Mbit/s)",
    ours=lambda rows: float(rows["goodput_bps"].iloc[0]) / 1e6,
    expected=_mathis_bw_mbit,
    tolerance=0.10,
    checked=lambda p: p <= 0.01,
    reference_label="Mathis et al. 1997, C = √(3/2)",
    log_x=True,
    log_y=True,
)

# ---------------------------------------------------------------------------------------
# DFQ (seed 003): the gateway qdiscs compared on the Fig. 7 testbed
# ---------------------------------------------------------------------------------------

#: The downlink disciplines compared, in x order (x = index).
DFQ_QDISCS = ("pfifo", "dfq", "host_drr", "cake", "sfq")
_SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "dfq"


def _dfq_scenario(
    file: str, duration: str, quick_duration: str
) -> Callable[[bool], dict[str, Any]]:
    """The scenario ``scenarios/dfq/<file>`` as a dict, shortened for ``--quick``."""

    def build(quick: bool) -> dict[str, Any]:
        import tomllib

        # The repository's scenarios (a source checkout, or an installed package run from
        # the repository root).
        candidates = [_SCENARIOS / file, Path.cwd() / "scenarios" / "dfq" / file]
        path = next((c for c in candidates if c.exists()), None)
        if path is None:
            raise FileNotFoundError(
                f"scenarios/dfq/{file} not found; run `airqueue reproduce` from the "
                "airqueue repository root"
            )
        data = tomllib.loads(path.read_text())
        data["run"]["duration"] = quick_duration if quick else duration
        return data

    return build


def _goodput_mbit(name: str) -> Callable[[pd.DataFrame], float]:
    return lambda rows: float(rows.loc[rows["flow"] == name, "goodput_bps"].iloc[0]) / 1e6


def _completion_s(name: str) -> Callable[[pd.DataFrame], float]:
    return lambda rows: float(rows.loc[rows["flow"] == name, "completion_s"].iloc[0])


def _paper(points: dict[int, float]) -> Callable[[float], float]:
    """The paper's number at a discipline index (NaN where it has none)."""
    return lambda x: points.get(round(x), math.nan) if abs(x - round(x)) < 1e-9 else math.nan


def _dfq(
    name: str,
    title: str,
    file: str,
    desc: str,
    ours: Callable[[pd.DataFrame], float],
    y_label: str,
    paper: dict[int, float],
    duration: str = "30s",
    quick: str = "10s",
) -> Reproduction:
    return Reproduction(
        name=name,
        title=title,
        reference="Shieh, Miao, Shieh, Hwang, Dynamic Fair Queuing (DFQ), seed 003 §5 "
        "(Linux 2.4 testbed, pttcp, 5 s intervals); the paper measures FIFO and DFQ only, so "
        "host_drr, cake and sfq are shown, not checked. docs/reproductions/shieh-dfq.md "
        "explains why we differ",
        description=desc,
        scenario=_dfq_scenario(file, duration, quick),
        param="qdiscs.downlink.kind",
        values=DFQ_QDISCS,
        x_of=lambda v: float(DFQ_QDISCS.index(str(v))),
        x_label="downlink qdisc (0 pfifo, 1 dfq, 2 host_drr, 3 cake, 4 sfq)",
        y_label=y_label,
        ours=ours,
        expected=_paper(paper),
        tolerance=0.5,
        checked=lambda x: round(x) in paper,
        reference_label="Shieh et al. (FIFO, DFQ)",
        seeds=3,
        quick_seeds=1,
    )


DFQ_1W1WL = _dfq(
    "shieh-dfq-1w1wl",
    "DFQ Figs. 8-9: wireless goodput beside one wired connection",
    "one-plus-one.toml",
    "Bull→dragon (wired) and snake→ms1 (802.11b) bulk TCP through the gateway's downlink.",
    _goodput_mbit("snake-ms1"),
    "wireless goodput (Mbit/s)",
    {0: 0.5, 1: 1.8},
)
DFQ_1W1WL_WIRED = _dfq(
    "shieh-dfq-1w1wl-wired",
    "DFQ Figs. 8-9: wired goodput beside one wireless connection",
    "one-plus-one.toml",
    "Bull→dragon (wired) and snake→ms1 (802.11b) bulk TCP through the gateway's downlink.",
    _goodput_mbit("bull-dragon"),
    "wired goodput (Mbit/s)",
    {1: 40.0},
)
DFQ_MAIL = _dfq(
    "shieh-dfq-mail",
    "DFQ §5.3: completion time of a 1 MB mail to a wireless host beside a 100 MB file",
    "mail-vs-file.toml",
    "A 1 MB transfer snake→ms1 (802.11b) beside a 100 MB transfer bull→dragon, both from 1 s.",
    _completion_s("mail"),
    "mail completion time (s)",
    {0: 12.5, 1: 4.4},
    duration="40s",
    quick="15s",
)
DFQ_FILE = _dfq(
    "shieh-dfq-file",
    "DFQ §5.3: completion time of the 100 MB wired file beside the mail",
    "mail-vs-file.toml",
    "A 100 MB transfer bull→dragon beside a 1 MB transfer snake→ms1, both from 1 s.",
    _completion_s("file"),
    "file completion time (s)",
    {0: 11.4, 1: 13.1},
    duration="40s",
    quick="15s",
)

# ---------------------------------------------------------------------------------------
# Striping (seed 004): Wang, Hwang, Chou 2005, the trunk over 802.11b ad hoc channels
# ---------------------------------------------------------------------------------------

_STRIPING = Path(__file__).resolve().parents[2] / "scenarios" / "striping"
WANG_REFERENCE = (
    "Wang, Hwang, Chou, On Striping Traffic over Multiple IEEE 802.11(b) Wireless Channels, "
    "2005 (seed 004; NCTUns 1.0, FreeBSD TCP, 250 s runs); docs/reproductions/wang-2005.md"
)


def _striping_file(file: str) -> dict[str, Any]:
    import tomllib

    candidates = [_STRIPING / file, Path.cwd() / "scenarios" / "striping" / file]
    path = next((c for c in candidates if c.exists()), None)
    if path is None:
        raise FileNotFoundError(
            f"scenarios/striping/{file} not found; run `airqueue reproduce` from the "
            "airqueue repository root"
        )
    return tomllib.loads(path.read_text())


#: Trunk sizes of Fig. 37 (1 = Fig. 11's single channel, 3 = Fig. 12).
WANG_CHANNELS = (1, 2, 3, 5, 7, 10)


def _wang_channels_scenario(quick: bool) -> dict[str, Any]:
    data = _striping_file("channels-10.toml")
    data["run"]["duration"] = "20s" if quick else "60s"
    return data


def _as_list(v: Any) -> list[Any]:
    """A list-valued grid point, as given or as the JSON text the sweep's columns hold."""
    return list(json.loads(v)) if isinstance(v, str) else list(v)


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
    x_of=lambda v: float(len(_as_list(v))),
    x_label="channels N",
    y_label="TCP goodput (Mbit/s)",
    ours=_goodput_mbit("stcp"),
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
    x_of=lambda v: _wang_ideal_sum(tuple(_as_list(v))),
    x_label="ideal sum of the members' shares (Mbit/s)",
    y_label="trunk TCP goodput (Mbit/s)",
    ours=_goodput_mbit("stcp"),
    expected=lambda x: x,
    tolerance=0.10,
    checked=lambda x: True,
    reference_label="Wang et al. (sum of 2.5 per shared, 5 per free channel)",
    seeds=2,
    quick_seeds=1,
)

# ---------------------------------------------------------------------------------------
# ADWISER (seed 002): the box bypassed (x = 0) and in the path (x = 1)
# ---------------------------------------------------------------------------------------

_ADWISER = Path(__file__).resolve().parents[2] / "scenarios" / "adwiser"
#: AP driver buffers swept (packets; Fig. 5's range 10–350): with the box in the path the
#: queue is drawn into the box, so its shares must not depend on the AP's buffer. The
#: baselines (box bypassed; mac80211 airtime fairness with FQ-CoDel at the AP) are run with
#: ``--set qdiscs.box.bypass=true`` / ``--set cells.wlan.ap_queues=mac80211`` and compared
#: in docs/reproductions/hegde-2013.md.
ADWISER_AP_BUFFERS = (10, 50, 100, 200, 350)


def _adwiser_scenario(
    file: str, duration: str, warmup: str, quick_duration: str, quick_warmup: str
) -> Callable[[bool], dict[str, Any]]:
    """``scenarios/adwiser/<file>`` as a dict, with the box in the path for the whole run
    (the timeline that switches it in is dropped), and the averages taken after ``warmup``
    (the rate adaptation's transient)."""

    def build(quick: bool) -> dict[str, Any]:
        import tomllib

        candidates = [_ADWISER / file, Path.cwd() / "scenarios" / "adwiser" / file]
        path = next((c for c in candidates if c.exists()), None)
        if path is None:
            raise FileNotFoundError(
                f"scenarios/adwiser/{file} not found; run `airqueue reproduce` from the "
                "airqueue repository root"
            )
        data = tomllib.loads(path.read_text())
        data.pop("at", None)
        for q in data["qdiscs"]:
            if q.get("name") == "box":
                q["bypass"] = False
        data["run"]["duration"] = quick_duration if quick else duration
        data["run"]["warmup"] = quick_warmup if quick else warmup
        return data

    return build


def _sum_mbit(prefix: str) -> Callable[[pd.DataFrame], float]:
    """Aggregate goodput, Mb/s, of the flows whose names start with ``prefix``."""
    return lambda rows: (
        float(rows.loc[rows["flow"].str.startswith(prefix), "goodput_bps"].sum()) / 1e6
    )


def _mean_mbit(prefix: str) -> Callable[[pd.DataFrame], float]:
    """Mean per-flow goodput, Mb/s, of the flows whose names start with ``prefix``."""
    return lambda rows: (
        float(rows.loc[rows["flow"].str.startswith(prefix), "goodput_bps"].mean()) / 1e6
    )


def _ratio(num: str, den: str) -> Callable[[pd.DataFrame], float]:
    return lambda rows: _sum_mbit(num)(rows) / _sum_mbit(den)(rows)


def _adwiser(
    name: str,
    title: str,
    scenario: Callable[[bool], dict[str, Any]],
    desc: str,
    ours: Callable[[pd.DataFrame], float],
    y_label: str,
    paper: float | dict[int, float],
    tolerance: float,
    param: str = "cells.wlan.ap_buffer",
    values: tuple[Any, ...] = ADWISER_AP_BUFFERS,
    x_label: str = "AP buffer (packets), box in the path",
) -> Reproduction:
    """``paper``: the paper's number (measured with a 100-packet AP buffer; the box's claim
    is that it holds at every buffer size), or numbers at some grid points."""
    expected = _paper(paper) if isinstance(paper, dict) else (lambda x, p=paper: p)
    checked = (lambda x: round(x) in paper) if isinstance(paper, dict) else (lambda x: True)
    return Reproduction(
        name=name,
        title=title,
        reference="Hegde et al., Experiences with a centralized scheduling approach for "
        "performance management of IEEE 802.11 WLANs (ADWISER), IEEE/ACM ToN 2013, seed "
        "002 §IV (hybrid Qualnet testbed and a Cisco AP); docs/reproductions/hegde-2013.md "
        "has the baselines and explains where and why we differ",
        description=desc,
        scenario=scenario,
        param=param,
        values=values,
        x_of=float,
        x_label=x_label,
        y_label=y_label,
        ours=ours,
        expected=expected,
        tolerance=tolerance,
        checked=checked,
        reference_label="Hegde et al. 2013",
        seeds=2,
        quick_seeds=1,
    )


_FIG17 = _adwiser_scenario("fig17-mixed-rates.toml", "300s", "120s", "90s", "60s")
ADWISER_FIG17_TOTAL = _adwiser(
    "hegde-adwiser-fig17-total",
    "ADWISER Fig. 17: aggregate TCP throughput, 11/5.5/2 Mb/s stations (C* = 3.26 Mb/s)",
    _FIG17,
    "Six 802.11b stations (two each at 11, 5.5, 2 Mb/s), one upload and one download per "
    "rate, LAN server; the box in the path from 0 s, averages after the adaptation.",
    lambda rows: float(rows["goodput_bps"].sum()) / 1e6,
    "aggregate goodput (Mbit/s)",
    3.156,
    0.10,
)
ADWISER_FIG17_CLASSES = tuple(
    _adwiser(
        f"hegde-adwiser-fig17-{rate}",
        f"ADWISER Fig. 17: the {rate} Mb/s pair's aggregate (ratio of the C_i)",
        _FIG17,
        f"As hegde-adwiser-fig17-total; the {rate} Mb/s upload plus download.",
        lambda rows, r=rate: _sum_mbit(f"up{r}")(rows) + _sum_mbit(f"down{r}")(rows),
        f"{rate} Mb/s pair goodput (Mbit/s)",
        paper,
        0.10,
    )
    for rate, paper in (("11", 1.556), ("5", 1.09), ("2", 0.51))
)
_FIG18 = _adwiser_scenario("fig18-up-down.toml", "300s", "120s", "90s", "60s")
ADWISER_FIG18_DOWN = _adwiser(
    "hegde-adwiser-fig18-down",
    "ADWISER Fig. 18: per-download throughput, 5 uploads + 5 downloads at 11 Mb/s",
    _FIG18,
    "Ten 802.11b stations at 11 Mb/s, five uploads and five downloads, LAN server.",
    _mean_mbit("down"),
    "mean download goodput (Mbit/s)",
    0.48,
    0.15,
)
ADWISER_FIG18_UP = _adwiser(
    "hegde-adwiser-fig18-up",
    "ADWISER Fig. 18: per-upload throughput, 5 uploads + 5 downloads at 11 Mb/s",
    _FIG18,
    "As hegde-adwiser-fig18-down, the uploads.",
    _mean_mbit("up"),
    "mean upload goodput (Mbit/s)",
    0.48,
    0.15,
)
_TABLE1 = _adwiser_scenario("table1-policy.toml", "300s", "120s", "90s", "60s")
ADWISER_TABLE1 = _adwiser(
    "hegde-adwiser-table1",
    "ADWISER Table I: policy ratio sta1:sta2 (5:1 and 9:1)",
    _TABLE1,
    "Two 802.11b stations at 11 Mb/s downloading; one queue per station, policy weights.",
    _ratio("sta1", "sta2"),
    "throughput ratio sta1 / sta2",
    {5: 3.879 / 0.776, 9: 4.190 / 0.465},
    0.05,
    param="qdiscs.box.policy.gold.weight",
    values=(2, 3, 5, 7, 9),
    x_label="configured weight ratio",
)
_FIG20 = _adwiser_scenario("fig20-wan-lan.toml", "300s", "120s", "120s", "60s")
ADWISER_FIG20 = _adwiser(
    "hegde-adwiser-fig20",
    "ADWISER Fig. 20: WAN transfers' aggregate beside two LAN transfers",
    _FIG20,
    "Four 802.11g stations at 54 Mb/s: two download over an 8 Mb/s, 300 ms RTT WAN, two "
    "from the LAN. The paper: near 8 Mb/s with the box (its A-WAN server runs at 7.2).",
    _sum_mbit("wan"),
    "WAN downloads' aggregate goodput (Mbit/s)",
    7.2,
    0.10,
)
_FIG26 = _adwiser_scenario("fig26-gold-bronze.toml", "400s", "150s", "150s", "75s")
ADWISER_FIG26_RATIO = _adwiser(
    "hegde-adwiser-fig26-ratio",
    "ADWISER Fig. 26: gold:bronze throughput ratio (policy 4:1)",
    _FIG26,
    "Four 802.11g stations at 54 Mb/s downloading over the 8 Mb/s WAN; gold RTT 300 ms, "
    "bronze 200 ms; policy 4:1 in the A-WAN server.",
    _ratio("gold", "bronze"),
    "gold / bronze goodput",
    4.0,
    0.10,
)
ADWISER_FIG26_TOTAL = _adwiser(
    "hegde-adwiser-fig26-total",
    "ADWISER Fig. 26: total WAN throughput (90 % of 8 Mb/s = 7.2 Mb/s)",
    _FIG26,
    "As hegde-adwiser-fig26-ratio, the total.",
    lambda rows: float(rows["goodput_bps"].sum()) / 1e6,
    "total goodput (Mbit/s)",
    7.2,
    0.10,
)
ADWISER = (
    ADWISER_FIG17_TOTAL,
    *ADWISER_FIG17_CLASSES,
    ADWISER_FIG18_DOWN,
    ADWISER_FIG18_UP,
    ADWISER_TABLE1,
    ADWISER_FIG20,
    ADWISER_FIG26_RATIO,
    ADWISER_FIG26_TOTAL,
)

#: Every reproduction, by name.
REGISTRY: Mapping[str, Reproduction] = {
    r.name: r
    for r in (
        MD1,
        MATHIS,
        DFQ_1W1WL,
        DFQ_1W1WL_WIRED,
        DFQ_MAIL,
        DFQ_FILE,
        WANG_CHANNELS_REP,
        WANG_CONGESTION,
        *ADWISER,
    )
}


# ---------------------------------------------------------------------------------------
# Running one
# ---------------------------------------------------------------------------------------


def compare(rep: Reproduction, sw: SweepResult) -> pd.DataFrame:
    """Our mean (95 % CI over seeds) beside the reference at every grid point."""
    rows = []
    for value, g in sw.runs.groupby(rep.param, sort=False):
        per_seed = np.array([rep.ours(r) for _, r in g.groupby("seed", sort=True)])
        n, mean, _, lo, hi = mean_ci(per_seed)
        x = rep.x_of(value)
        ref = rep.expected(x)
        rel = mean / ref - 1 if ref else math.nan
        checked = rep.checked(x)
        rows.append(
            {
                "x": x,
                rep.param: value,
                "reference": ref,
                "ours": mean,
                "ci95_low": lo,
                "ci95_high": hi,
                "seeds": n,
                "rel_error": rel,
                "tolerance": rep.tolerance if checked else math.nan,
                "within": bool(abs(rel) <= rep.tolerance) if checked else None,
            }
        )
    return pd.DataFrame(rows).sort_values("x", ignore_index=True)


def figure(rep: Reproduction, table: pd.DataFrame) -> Any:
    fig = plots.new_figure(7.5, 4.8)
    ax = fig.add_subplot()
    xs = table["x"].to_numpy()
    dense = (
        np.geomspace(xs.min(), xs.max(), 200) if rep.log_x else np.linspace(xs.min(), xs.max(), 200)
    )
    ax.plot(
        dense,
        [rep.expected(x) for x in dense],
        color="black",
        linewidth=1.2,
        label=rep.reference_label,
    )
    err = np.vstack([table["ours"] - table["ci95_low"], table["ci95_high"] - table["ours"]])
    ax.errorbar(
        xs,
        table["ours"],
        yerr=np.nan_to_num(err),
        fmt="o",
        color="tab:red",
        capsize=3,
        label="airqueue (mean, 95 % CI)",
    )
    if rep.log_x:
        ax.set_xscale("log")
    if rep.log_y:
        ax.set_yscale("log")
    ax.set_xlabel(rep.x_label)
    ax.set_ylabel(rep.y_label)
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    ax.set_title(rep.title, loc="left", fontsize=10)
    return fig


def reproduce(
    name: str,
    out: str | Path,
    jobs: int | None = None,
    quick: bool = False,
    progress: ProgressHook | None = None,
) -> ReproductionResult:
    """Runs a reproduction's sweep into ``out/sweep`` and writes ``out/figure.png``,
    ``out/comparison.csv`` and ``out/reproduction.json``."""
    rep = REGISTRY[name]
    out_dir = Path(out)
    sw = sweep(
        rep.scenario(quick),
        grid={rep.param: list(rep.values)},
        seeds=rep.quick_seeds if quick else rep.seeds,
        jobs=jobs,
        out=out_dir / "sweep",
        progress=progress,
    )
    table = compare(rep, sw)
    fig_path = plots.save(figure(rep, table), out_dir / "figure.png")
    table_path = out_dir / "comparison.csv"
    atomic_write_bytes(table_path, table.to_csv(index=False).encode())
    # A quick run is a smoke test: too few seeds and too short runs to judge a tolerance.
    passed = None if quick else bool(table["within"].dropna().all())
    meta = {
        "name": rep.name,
        "title": rep.title,
        "reference": rep.reference,
        "description": rep.description,
        "tolerance": rep.tolerance,
        "quick": quick,
        "checked": not quick,
        "passed": passed,
        "version": sw.info["version"],
        "seeds": sw.info["seeds"],
    }
    atomic_write_bytes(out_dir / "reproduction.json", (json.dumps(meta, indent=2) + "\n").encode())
    return ReproductionResult(rep, table, sw, fig_path, table_path, passed, quick)


def _percent(v: float, digits: int) -> str:
    """``-7.8 %`` as the docs write it, with a true minus sign (U+2212) and a space."""
    text = f"{v * 100:+.{digits}f}"
    if float(text) == 0:  # no sign on a zero that rounding made (-0.0)
        text = f"{0:.{digits}f}"
    return f"{text} %".replace("-", "\u2212")


def measured_summary(res: ReproductionResult) -> str:
    """The "measured" cell of docs/experiments.md's reproduction table, generated from a
    full run (tests compare the docs with it, so the documented figures cannot drift):
    the range of the checked points' relative errors, then each shown-only point's."""
    rep, table = res.reproduction, res.table
    checked = table[table["within"].notna()]
    parts = []
    if len(checked):
        lo, hi = checked["rel_error"].min(), checked["rel_error"].max()
        parts.append(f"{_percent(lo, 1)} … {_percent(hi, 1)} (checked points)")
    shown = table[table["within"].isna()]
    if len(shown):
        var = rep.x_label.split()[-1]
        each = ", ".join(
            f"{_percent(r.rel_error, 0)} at {var} = {r.x:g}" for r in shown.itertuples()
        )
        parts.append(f"{each} (shown, not checked)")
    return "; ".join(parts)


#: What a quick run's verdicts and caption say.
QUICK_NOTE = "quick run: fewer seeds and shorter runs, so nothing is checked"


def verdict(res: ReproductionResult, within: Any) -> str:
    """A point's verdict: not checked (outside the reference's domain, or a quick run), or
    within / outside the tolerance."""
    rep = res.reproduction
    if res.quick:
        return "not checked (quick)"
    if within is None or (isinstance(within, float) and math.isnan(within)):
        return "not checked"
    return f"ok (±{rep.tolerance:.0%})" if within else f"OUT (±{rep.tolerance:.0%})"


def comparison_table(res: ReproductionResult) -> Table:
    """Our numbers beside the reference's, in the units of the figure's y axis (named in
    the heading); a quick run says in its caption and verdicts that it checks nothing."""
    rep = res.reproduction
    caption = f"reference: {rep.reference}"
    if res.quick:
        caption = f"{QUICK_NOTE}\n{caption}"
    t = Table(
        title=f"{rep.name}: {rep.title}\nvalues: {rep.y_label}",
        caption=caption,
        title_justify="left",
        caption_justify="left",
    )
    for col in (rep.x_label, "reference", "airqueue", "95 % CI", "error (% of ref.)", "verdict"):
        t.add_column(col, justify="right")
    for r in res.table.itertuples(index=False):
        t.add_row(
            f"{r.x:g}",
            f"{r.reference:.4g}",
            f"{r.ours:.4g}",
            f"{r.ci95_low:.4g} – {r.ci95_high:.4g}",
            f"{r.rel_error:+.1%}",
            verdict(res, r.within),
        )
    return t
