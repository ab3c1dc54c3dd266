"""ADWISER (seed 002, Hegde et al. 2013): the box bypassed and in the path
(docs/reproductions/hegde-2013.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from .core import (
    Reproduction,
    mean_mbit,
    paper_points,
    ratio,
    shipped_toml,
    sum_mbit,
)

# ---------------------------------------------------------------------------------------
# ADWISER (seed 002): the box bypassed (x = 0) and in the path (x = 1)
# ---------------------------------------------------------------------------------------

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
        data = shipped_toml("adwiser", file)
        data.pop("at", None)
        for q in data["qdiscs"]:
            if q.get("name") == "box":
                q["bypass"] = False
        data["run"]["duration"] = quick_duration if quick else duration
        data["run"]["warmup"] = quick_warmup if quick else warmup
        return data

    return build


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
    expected = paper_points(paper) if isinstance(paper, dict) else (lambda x, p=paper: p)
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
        lambda rows, r=rate: sum_mbit(f"up{r}")(rows) + sum_mbit(f"down{r}")(rows),
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
    mean_mbit("down"),
    "mean download goodput (Mbit/s)",
    0.48,
    0.15,
)
ADWISER_FIG18_UP = _adwiser(
    "hegde-adwiser-fig18-up",
    "ADWISER Fig. 18: per-upload throughput, 5 uploads + 5 downloads at 11 Mb/s",
    _FIG18,
    "As hegde-adwiser-fig18-down, the uploads.",
    mean_mbit("up"),
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
    ratio("sta1", "sta2"),
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
    sum_mbit("wan"),
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
    ratio("gold", "bronze"),
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
ENTRIES = (
    ADWISER_FIG17_TOTAL,
    *ADWISER_FIG17_CLASSES,
    ADWISER_FIG18_DOWN,
    ADWISER_FIG18_UP,
    ADWISER_TABLE1,
    ADWISER_FIG20,
    ADWISER_FIG26_RATIO,
    ADWISER_FIG26_TOTAL,
)
