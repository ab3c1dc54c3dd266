"""Striping (seed 004, Wang, Hwang, Chou 2005): trunks over 802.11b ad hoc channels
(docs/reproductions/wang-2005.md)."""

from __future__ import annotations

from typing import Any

from .core import (
    Reproduction,
    as_list,
    goodput_mbit,
    shipped_toml,
)

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


ENTRIES = (WANG_CHANNELS_REP, WANG_CONGESTION)
