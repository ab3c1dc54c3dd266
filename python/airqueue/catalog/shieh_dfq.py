"""DFQ (seed 003, Shieh et al.): the gateway qdiscs compared on the Fig. 7 testbed
(docs/reproductions/shieh-dfq.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from .core import (
    Reproduction,
    completion_s,
    goodput_mbit,
    paper_points,
    shipped_toml,
)

# ---------------------------------------------------------------------------------------
# DFQ (seed 003): the gateway qdiscs compared on the Fig. 7 testbed
# ---------------------------------------------------------------------------------------

#: The downlink disciplines compared, in x order (x = index).
DFQ_QDISCS = ("pfifo", "dfq", "host_drr", "cake", "sfq")


def _dfq_scenario(
    *, file: str, duration: str, quick_duration: str
) -> Callable[[bool], dict[str, Any]]:
    """The scenario ``scenarios/dfq/<file>`` as a dict, shortened for ``--quick``."""

    def build(quick: bool) -> dict[str, Any]:
        data = shipped_toml("dfq", file)
        data["run"]["duration"] = quick_duration if quick else duration
        return data

    return build


def _dfq(
    *,
    name: str,
    title: str,
    file: str,
    description: str,
    ours: Callable[[pd.DataFrame], float],
    y_label: str,
    paper: dict[int, float],
    duration: str = "30s",
    quick_duration: str = "10s",
) -> Reproduction:
    return Reproduction(
        name=name,
        title=title,
        reference="Shieh, Miao, Shieh, Hwang, Dynamic Fair Queuing (DFQ), seed 003 §5 "
        "(Linux 2.4 testbed, pttcp, 5 s intervals); the paper measures FIFO and DFQ only, so "
        "host_drr, cake and sfq are shown, not checked. docs/reproductions/shieh-dfq.md "
        "explains why we differ",
        description=description,
        scenario=_dfq_scenario(file=file, duration=duration, quick_duration=quick_duration),
        param="qdiscs.downlink.kind",
        values=DFQ_QDISCS,
        x_of=lambda v: float(DFQ_QDISCS.index(str(v))),
        x_label="downlink qdisc (0 pfifo, 1 dfq, 2 host_drr, 3 cake, 4 sfq)",
        y_label=y_label,
        ours=ours,
        expected=paper_points(paper),
        tolerance=0.5,
        checked=lambda x: round(x) in paper,
        reference_label="Shieh et al. (FIFO, DFQ)",
        seeds=3,
        quick_seeds=1,
    )


DFQ_1W1WL = _dfq(
    name="shieh-dfq-1w1wl",
    title="DFQ Figs. 8-9: wireless goodput beside one wired connection",
    file="one-plus-one.toml",
    description="Bull→dragon (wired) and snake→ms1 (802.11b) bulk TCP through the gateway's "
    "downlink.",
    ours=goodput_mbit("snake-ms1"),
    y_label="wireless goodput (Mbit/s)",
    paper={0: 0.5, 1: 1.8},
)
DFQ_1W1WL_WIRED = _dfq(
    name="shieh-dfq-1w1wl-wired",
    title="DFQ Figs. 8-9: wired goodput beside one wireless connection",
    file="one-plus-one.toml",
    description="Bull→dragon (wired) and snake→ms1 (802.11b) bulk TCP through the gateway's "
    "downlink.",
    ours=goodput_mbit("bull-dragon"),
    y_label="wired goodput (Mbit/s)",
    paper={1: 40.0},
)
DFQ_MAIL = _dfq(
    name="shieh-dfq-mail",
    title="DFQ §5.3: completion time of a 1 MB mail to a wireless host beside a 100 MB file",
    file="mail-vs-file.toml",
    description="A 1 MB transfer snake→ms1 (802.11b) beside a 100 MB transfer bull→dragon, both "
    "from 1 s.",
    ours=completion_s("mail"),
    y_label="mail completion time (s)",
    paper={0: 12.5, 1: 4.4},
    duration="40s",
    quick_duration="15s",
)
DFQ_FILE = _dfq(
    name="shieh-dfq-file",
    title="DFQ §5.3: completion time of the 100 MB wired file beside the mail",
    file="mail-vs-file.toml",
    description="A 100 MB transfer bull→dragon beside a 1 MB transfer snake→ms1, both from 1 s.",
    ours=completion_s("file"),
    y_label="file completion time (s)",
    paper={0: 11.4, 1: 13.1},
    duration="40s",
    quick_duration="15s",
)


ENTRIES = (DFQ_1W1WL, DFQ_1W1WL_WIRED, DFQ_MAIL, DFQ_FILE)
