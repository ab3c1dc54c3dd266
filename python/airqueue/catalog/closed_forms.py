"""Closed forms the wired models must meet: M/D/1 (Pollaczek–Khinchine) and TCP against
random loss (Mathis et al. 1997)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .core import (
    Reproduction,
)

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


ENTRIES = (MD1, MATHIS)
