"""TCP over Bluetooth piconets and scatternets (seed 001, Venugopal 2006, M.Sc. thesis):
the goodput surfaces of Chapter 6 over offered load by token buffer S, by scheduling
parameter M, by token rate tb (docs/reproductions/venugopal-2006.md)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from .core import Reproduction, shipped_toml

VENUGOPAL_REFERENCE = (
    "Venugopal, Modeling and Performance Analysis of TCP traffic in a Bluetooth "
    "Scatternet, M.Sc. thesis, University of Manitoba, 2006 (seed 001; Artifex, 480 s runs "
    "with a 60 s warm-up, 10 seeds); docs/reproductions/venugopal-2006.md"
)

#: The thesis's token buffers S (baseband packets), Figs. 6.1, 6.7, 6.13-6.16.
S_VALUES = (5, 10, 15, 20, 25)


def _kbit(v: Any) -> float:
    """``"80kbit"`` -> 80.0."""
    text = str(v).strip()
    return float(text[: -len("kbit")]) if text.endswith("kbit") else float(text) / 1e3


def _loads(start: int, stop: int, step: int) -> tuple[str, ...]:
    return tuple(f"{k}kbit" for k in range(start, stop + 1, step))


def _scenario(file: str) -> Callable[[bool], dict[str, Any]]:
    def make(quick: bool) -> dict[str, Any]:
        data = shipped_toml("bluetooth-tcp", file)
        if quick:
            data["run"]["duration"] = "60s"
            data["run"]["warmup"] = "10s"
        return data

    return make


def mean_kbit(rows: pd.DataFrame) -> float:
    """Mean per-connection TCP goodput, kb/s (the thesis averages its connections, §4.1)."""
    tcp = rows[rows["flow"].str.startswith("tcp")]
    return float(tcp["goodput_bps"].mean()) / 1e3


def _at(points: dict[tuple[float, float], float]) -> Callable[[float, float], float]:
    """The thesis's number at (load, y); NaN elsewhere."""
    return lambda x, y: points.get((round(x), round(y)), math.nan)


def _everywhere(value: float, y: float) -> Callable[[float, float], float]:
    """The thesis's number at every load for one y (a flat statement such as "around
    14 kb/s irrespective of load")."""
    return lambda x, yy: value if round(yy) == y else math.nan


def _surface(
    name: str,
    figure: str,
    file: str,
    loads: tuple[str, ...],
    param2: str,
    values2: tuple[Any, ...],
    y2_label: str,
    expected_xy: Callable[[float, float], float],
    reference_note: str,
    description: str,
    y_of: Callable[[Any], float] = float,
    tolerance: float = 0.10,
) -> Reproduction:
    return Reproduction(
        name=name,
        title=f"Venugopal 2006 {figure}: TCP NewReno goodput per connection",
        reference=f"{VENUGOPAL_REFERENCE}; {reference_note}",
        description=description,
        scenario=_scenario(file),
        param="flows.*.app.rate",
        values=loads,
        x_of=_kbit,
        x_label="offered load per slave (kbit/s)",
        y_label="TCP goodput per connection (kbit/s)",
        ours=mean_kbit,
        expected=lambda x: math.nan,
        tolerance=tolerance,
        checked=lambda x: True,
        reference_label="thesis (text)",
        seeds=10,
        quick_seeds=1,
        param2=param2,
        values2=values2,
        y_of=y_of,
        y2_label=y2_label,
        expected_xy=expected_xy,
    )


FIG_6_1 = _surface(
    "venugopal-fig6-1",
    "Fig. 6.1 (piconet, 2 slaves, PPL, load x S)",
    "piconet-2-ppl.toml",
    _loads(80, 240, 20),
    "piconets.bt.flow_control.buffer",
    S_VALUES,
    "token buffer S",
    _at({(240, 25): 170.0}),
    "2 slaves reach about 170 kb/s at S = 25 (§6.1.1, §6.4); goodput rises with S and "
    "is flat from S = 25 on",
    "Two slaves, TCP NewReno s1 -> s2 and s2 -> s1 through the master; M = 5, tb = 250 "
    "kb/s, L = 20, perfect channel (Table 3.1).",
)

FIG_6_2 = _surface(
    "venugopal-fig6-2",
    "Fig. 6.2 (piconet, 2 slaves, PPL, load x M)",
    "piconet-2-ppl.toml",
    _loads(80, 240, 40),
    "piconets.bt.limit",
    (5, 10, 15, 20, 25),
    "scheduling parameter M",
    _at({(240, 5): 170.0}),
    "the maximum goodput is at M = 5 (§6.1.1); 170 kb/s as in Fig. 6.1 at S = 25",
    "As Fig. 6.1 with S = 25, E-limited M from 5 to 25.",
)

FIG_6_3 = _surface(
    "venugopal-fig6-3",
    "Fig. 6.3 (piconet, 2 slaves, PPL, load x tb)",
    "piconet-2-ppl.toml",
    _loads(80, 240, 40),
    "piconets.bt.flow_control.token_rate",
    ("150kbit", "200kbit", "250kbit", "300kbit", "350kbit"),
    "token rate tb (kbit/s)",
    _at({(240, 250): 170.0}),
    "goodput falls when tb exceeds about 250 kb/s (§6.1.1); 170 kb/s at tb = 250",
    "As Fig. 6.1 with S = 25, M = 5, token rate tb from 150 to 350 kb/s.",
    y_of=_kbit,
)

FIG_6_7 = _surface(
    "venugopal-fig6-7",
    "Fig. 6.7 (scatternet, 1 slave/piconet, PPL, load x S)",
    "scatternet-1-ppl.toml",
    _loads(80, 180, 20),
    "piconets.*.flow_control.buffer",
    S_VALUES,
    "token buffer S",
    _at({(180, 15): 160.0, (180, 25): 160.0}),
    "the goodput peaks at 160 kb/s from S = 15 on, RTT about 600 ms, double the piconet's (§6.2.1)",
    "Two piconets joined by a walk-in slave/slave bridge (M_b = n*M = 5), one slave each; "
    "TCP NewReno between them both ways (4 hops); M = 5, tb = 250 kb/s, L = 20.",
)

FIG_6_13 = _surface(
    "venugopal-fig6-13",
    "Fig. 6.13 (piconet, 2 slaves, IPL, load x S)",
    "piconet-2-ipl.toml",
    _loads(80, 200, 30),
    "piconets.bt.flow_control.buffer",
    S_VALUES,
    "token buffer S",
    _everywhere(44.0, 25),
    "about 44 kb/s at S = 25 whatever the load, RTT about 100 ms, losses recovered by "
    "timeouts (§6.3.1)",
    "As Fig. 6.1 over Gilbert-Elliott links (Table 6.1's BERs), no ARQ.",
)

FIG_6_14 = _surface(
    "venugopal-fig6-14",
    "Fig. 6.14 (piconet, 4 slaves, IPL, load x S)",
    "piconet-4-ipl.toml",
    _loads(40, 100, 15),
    "piconets.bt.flow_control.buffer",
    S_VALUES,
    "token buffer S",
    _everywhere(34.0, 25),
    "4 slaves: about 34 kb/s at S = 25, RTT about 200 ms (§6.3.1)",
    "Four slaves, TCP NewReno slave i -> i+1; M = 5, tb = 110 kb/s, Gilbert-Elliott links.",
)

FIG_6_15 = _surface(
    "venugopal-fig6-15",
    "Fig. 6.15 (scatternet, 1 slave/piconet, IPL, load x S)",
    "scatternet-1-ipl.toml",
    _loads(80, 180, 20),
    "piconets.*.flow_control.buffer",
    S_VALUES,
    "token buffer S",
    _everywhere(14.0, 25),
    "around 14 kb/s whatever the load and S; a segment crosses 4 hops with success "
    "35.5 % and timeouts dominate (§6.3.2)",
    "As Fig. 6.7 over Gilbert-Elliott links (Table 6.1's BERs), no ARQ.",
)

FIG_6_16 = _surface(
    "venugopal-fig6-16",
    "Fig. 6.16 (scatternet, 2 slaves/piconet, IPL, load x S)",
    "scatternet-2-ipl.toml",
    _loads(40, 100, 15),
    "piconets.*.flow_control.buffer",
    S_VALUES,
    "token buffer S",
    lambda x, y: math.nan,
    "no number in the text: goodput flat in S from 10 on and below the 1-slave "
    "scatternet's (§6.3.2); shown, not checked",
    "Two slaves per piconet, tb = 120 kb/s, M = 5 (M_b = 10), Gilbert-Elliott links.",
)

ENTRIES = (FIG_6_1, FIG_6_2, FIG_6_3, FIG_6_7, FIG_6_13, FIG_6_14, FIG_6_15, FIG_6_16)
