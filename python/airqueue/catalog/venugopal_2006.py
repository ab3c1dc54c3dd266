"""TCP over Bluetooth piconets and scatternets (seed 001, Venugopal 2006, M.Sc. thesis):
the goodput surfaces of Chapter 6 over offered load by token buffer S, by scheduling
parameter M, by token rate tb (docs/reproductions/venugopal-2006.md)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from pathlib import Path
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


def _scenario(file: str, residence: str | None = None) -> Callable[[bool], dict[str, Any]]:
    """The shipped scenario ``file``; ``residence`` sets its bridge's (``"visit"``: it leaves
    after its own visit, docs/reproductions/venugopal-2006.md)."""

    def make(quick: bool) -> dict[str, Any]:
        data = shipped_toml("bluetooth-tcp", file)
        if residence is not None:
            for bridge in data["bridges"]:
                bridge["residence"] = residence
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
    *,
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
    residence: str | None = None,
) -> Reproduction:
    return Reproduction(
        name=name,
        title=f"Venugopal 2006 {figure}: TCP NewReno goodput per connection",
        reference=f"{VENUGOPAL_REFERENCE}; {reference_note}",
        description=description,
        scenario=_scenario(file, residence),
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
    name="venugopal-fig6-1",
    figure="Fig. 6.1 (piconet, 2 slaves, PPL, load x S)",
    file="piconet-2-ppl.toml",
    loads=_loads(80, 240, 20),
    param2="piconets.bt.flow_control.buffer",
    values2=S_VALUES,
    y2_label="token buffer S",
    expected_xy=_at({(240, 25): 170.0}),
    reference_note="2 slaves reach about 170 kb/s at S = 25 (§6.1.1, §6.4); goodput rises with S "
    "and is flat from S = 25 on",
    description="Two slaves, TCP NewReno s1 -> s2 and s2 -> s1 through the master; M = 5, tb = 250 "
    "kb/s, L = 20, perfect channel (Table 3.1).",
)

FIG_6_2 = _surface(
    name="venugopal-fig6-2",
    figure="Fig. 6.2 (piconet, 2 slaves, PPL, load x M)",
    file="piconet-2-ppl.toml",
    loads=_loads(80, 240, 40),
    param2="piconets.bt.limit",
    values2=(5, 10, 15, 20, 25),
    y2_label="scheduling parameter M",
    expected_xy=_at({(240, 5): 170.0}),
    reference_note="the maximum goodput is at M = 5 (§6.1.1); 170 kb/s as in Fig. 6.1 at S = 25",
    description="As Fig. 6.1 with S = 25, E-limited M from 5 to 25.",
)

FIG_6_3 = _surface(
    name="venugopal-fig6-3",
    figure="Fig. 6.3 (piconet, 2 slaves, PPL, load x tb)",
    file="piconet-2-ppl.toml",
    loads=_loads(80, 240, 40),
    param2="piconets.bt.flow_control.token_rate",
    values2=("150kbit", "200kbit", "250kbit", "300kbit", "350kbit"),
    y2_label="token rate tb (kbit/s)",
    expected_xy=_at({(240, 250): 170.0}),
    reference_note="goodput falls when tb exceeds about 250 kb/s (§6.1.1); 170 kb/s at tb = 250",
    description="As Fig. 6.1 with S = 25, M = 5, token rate tb from 150 to 350 kb/s.",
    y_of=_kbit,
)

FIG_6_7 = _surface(
    name="venugopal-fig6-7",
    figure="Fig. 6.7 (scatternet, 1 slave/piconet, PPL, load x S)",
    file="scatternet-1-ppl.toml",
    loads=_loads(80, 180, 20),
    param2="piconets.*.flow_control.buffer",
    values2=S_VALUES,
    y2_label="token buffer S",
    expected_xy=_at({(180, 15): 160.0, (180, 25): 160.0}),
    reference_note="the goodput peaks at 160 kb/s from S = 15 on, RTT about 600 ms, double the "
    "piconet's (§6.2.1)",
    description="Two piconets joined by a walk-in slave/slave bridge (M_b = n*M = 5), one slave "
    "each; TCP NewReno between them both ways (4 hops); M = 5, tb = 250 kb/s, L = 20.",
)

FIG_6_7_VISIT = _surface(
    name="venugopal-fig6-7-visit",
    figure="Fig. 6.7 with a bridge that leaves after its own visit (scatternet, 1 slave/piconet, "
    "PPL, load x S)",
    file="scatternet-1-ppl.toml",
    loads=_loads(80, 180, 20),
    param2="piconets.*.flow_control.buffer",
    values2=S_VALUES,
    y2_label="token buffer S",
    expected_xy=_at({(180, 15): 160.0, (180, 25): 160.0}),
    reference_note="the goodput peaks at 160 kb/s from S = 15 on (§6.2.1); here the bridge reads "
    "§3.1.1's 'one piconet cycle' as the rest of the master's cycle up to its own visit",
    description='As venugopal-fig6-7 with the bridge\'s residence = "visit": it leaves at the next '
    "visit start after the master polled it, not after a whole cycle from its arrival.",
    residence="visit",
)

FIG_6_13 = _surface(
    name="venugopal-fig6-13",
    figure="Fig. 6.13 (piconet, 2 slaves, IPL, load x S)",
    file="piconet-2-ipl.toml",
    loads=_loads(80, 200, 30),
    param2="piconets.bt.flow_control.buffer",
    values2=S_VALUES,
    y2_label="token buffer S",
    expected_xy=_everywhere(44.0, 25),
    reference_note="about 44 kb/s at S = 25 whatever the load, RTT about 100 ms, losses recovered "
    "by timeouts (§6.3.1)",
    description="As Fig. 6.1 over Gilbert-Elliott links (Table 6.1's BERs), no ARQ.",
)

FIG_6_14 = _surface(
    name="venugopal-fig6-14",
    figure="Fig. 6.14 (piconet, 4 slaves, IPL, load x S)",
    file="piconet-4-ipl.toml",
    loads=_loads(40, 100, 15),
    param2="piconets.bt.flow_control.buffer",
    values2=S_VALUES,
    y2_label="token buffer S",
    expected_xy=_everywhere(34.0, 25),
    reference_note="4 slaves: about 34 kb/s at S = 25, RTT about 200 ms (§6.3.1)",
    description="Four slaves, TCP NewReno slave i -> i+1; M = 5, tb = 110 kb/s, Gilbert-Elliott "
    "links.",
)

FIG_6_15 = _surface(
    name="venugopal-fig6-15",
    figure="Fig. 6.15 (scatternet, 1 slave/piconet, IPL, load x S)",
    file="scatternet-1-ipl.toml",
    loads=_loads(80, 180, 20),
    param2="piconets.*.flow_control.buffer",
    values2=S_VALUES,
    y2_label="token buffer S",
    expected_xy=_everywhere(14.0, 25),
    reference_note="around 14 kb/s whatever the load and S; a segment crosses 4 hops with success "
    "35.5 % and timeouts dominate (§6.3.2)",
    description="As Fig. 6.7 over Gilbert-Elliott links (Table 6.1's BERs), no ARQ.",
)

FIG_6_16 = _surface(
    name="venugopal-fig6-16",
    figure="Fig. 6.16 (scatternet, 2 slaves/piconet, IPL, load x S)",
    file="scatternet-2-ipl.toml",
    loads=_loads(40, 100, 15),
    param2="piconets.*.flow_control.buffer",
    values2=S_VALUES,
    y2_label="token buffer S",
    expected_xy=lambda x, y: math.nan,
    reference_note="no number in the text: goodput flat in S from 10 on and below the 1-slave "
    "scatternet's (§6.3.2); shown, not checked",
    description="Two slaves per piconet, tb = 120 kb/s, M = 5 (M_b = 10), Gilbert-Elliott links.",
)

ENTRIES = (
    FIG_6_1,
    FIG_6_2,
    FIG_6_3,
    FIG_6_7,
    FIG_6_7_VISIT,
    FIG_6_13,
    FIG_6_14,
    FIG_6_15,
    FIG_6_16,
)


# ---------------------------------------------------------------------------------------
# Fig. 6.17: piconet against scatternet, PPL against IPL (§6.4); the x axis is the topology
# ---------------------------------------------------------------------------------------

#: Fig. 6.17's topologies, (shipped scenario stem, slaves per piconet, offered load per
#: slave in kb/s). §6.4 fixes M = 5, S = 25 and the token rates (the shipped scenarios'); it
#: does not say the load, and its numbers are the maxima the text reads off Figs. 6.1-6.16,
#: so each topology runs at the top of its own figure's load range (Figs. 6.1, 6.4, 6.7,
#: 6.10 for PPL; 6.13-6.16 for IPL).
TOPOLOGIES_6_17: dict[str, tuple[tuple[str, int, int], ...]] = {
    "ppl": (
        ("piconet-2", 2, 240),
        ("piconet-4", 4, 120),
        ("piconet-6", 6, 100),
        ("scatternet-1", 1, 180),
        ("scatternet-2", 2, 100),
        ("scatternet-4", 4, 55),
        ("scatternet-6", 6, 35),
    ),
    "ipl": (
        ("piconet-2", 2, 200),
        ("piconet-4", 4, 100),
        ("piconet-6", 6, 90),
        ("scatternet-1", 1, 180),
        ("scatternet-2", 2, 100),
        ("scatternet-4", 4, 55),
        ("scatternet-6", 6, 35),
    ),
}

#: The numbers the thesis's text gives for the topologies of Fig. 6.17, per connection:
#: (layer, stem) -> (goodput kb/s, RTT ms); NaN where it gives none. PPL goodput §6.4
#: (2 slaves 170; 6 slaves 60; scatternet fully loaded about 25), §6.1.2 (4 slaves about
#: 90), §6.2.1 (1 slave/piconet 160), §6.2.2 (2 slaves/piconet 80); PPL RTT §6.4 (piconet
#: 200 ms to "more than 1 s"; scatternet to "more than 3.5 s"), §6.1.2 (4 slaves 900 ms),
#: §6.2.1 (1 slave/piconet 600 ms); the 2-slaves/piconet RTT is 500 ms in §6.4 and 1.2 s in
#: §6.2.2, so it is not checked. IPL §6.3.1 (44, 34, 28 kb/s; 100, 200, 280 ms), §6.3.2
#: (14 kb/s).
THESIS_6_17: dict[tuple[str, str], tuple[float, float]] = {
    ("ppl", "piconet-2"): (170.0, 200.0),
    ("ppl", "piconet-4"): (90.0, 900.0),
    ("ppl", "piconet-6"): (60.0, 1000.0),
    ("ppl", "scatternet-1"): (160.0, 600.0),
    ("ppl", "scatternet-2"): (80.0, math.nan),
    ("ppl", "scatternet-4"): (math.nan, math.nan),
    ("ppl", "scatternet-6"): (25.0, 3500.0),
    ("ipl", "piconet-2"): (44.0, 100.0),
    ("ipl", "piconet-4"): (34.0, 200.0),
    ("ipl", "piconet-6"): (28.0, 280.0),
    ("ipl", "scatternet-1"): (14.0, math.nan),
    ("ipl", "scatternet-2"): (math.nan, math.nan),
    ("ipl", "scatternet-4"): (math.nan, math.nan),
    ("ipl", "scatternet-6"): (math.nan, math.nan),
}


def _fig_6_17_runs(out: Path, jobs: int | None, quick: bool, progress: Any) -> pd.DataFrame:
    """Every topology of Fig. 6.17 in PPL and IPL (10 seeds of 480 s, or one of 60 s):
    one row per run with the per-connection means the thesis plots (goodput kb/s, RTT ms,
    timeouts per second)."""
    from ..sweep import sweep

    rows = []
    todo = [(layer, t) for layer, ts in TOPOLOGIES_6_17.items() for t in ts]
    for i, (layer, (stem, slaves, load)) in enumerate(todo):
        data = _scenario(f"{stem}-{layer}.toml")(quick)
        measured = _seconds(data["run"]["duration"]) - _seconds(data["run"]["warmup"])
        sw = sweep(
            data,
            grid={"flows.*.app.rate": [f"{load}kbit"]},
            seeds=1 if quick else 10,
            jobs=jobs,
            out=out / "sweep" / f"{stem}-{layer}",
        )
        tcp = sw.runs[sw.runs["flow"].str.startswith("tcp")]
        for seed, run in tcp.groupby("seed"):
            rows.append(
                {
                    "layer": layer,
                    "topology": stem,
                    "scatternet": stem.startswith("scatternet"),
                    "slaves": slaves,
                    "load_kbit": load,
                    "seed": int(seed),
                    "goodput_kbit": float(run["goodput_bps"].mean()) / 1e3,
                    "rtt_ms": float(run["rtt_mean_ms"].mean()),
                    "timeouts_per_s": float(run["timeouts"].mean()) / measured,
                    "fast_retransmits_per_s": float(run["fast_retransmits"].mean()) / measured,
                }
            )
        if progress is not None:
            progress(i + 1, len(todo), 0)
    return pd.DataFrame(rows)


def _seconds(text: Any) -> float:
    """``"480s"`` -> 480.0 (the shipped scenarios write whole seconds)."""
    return float(str(text).removesuffix("s"))


def _fig_6_17_checks(m: pd.DataFrame) -> list[Any]:
    """§6.4's findings on the means over seeds, then the thesis's numbers within 10 %."""
    from .findings import Check, below, within

    def at(layer: str, stem: str, col: str) -> float:
        sel = m[(m["layer"] == layer) & (m["topology"] == stem)]
        return float(sel[col].iloc[0])

    def falls(layer: str, stems: tuple[str, ...], col: str, text: str) -> Check:
        v = [at(layer, s, col) for s in stems]
        return Check(text, v[-1], v[0], all(a > b for a, b in itertools.pairwise(v)))

    def rises(layer: str, stems: tuple[str, ...], col: str, text: str) -> Check:
        v = [at(layer, s, col) for s in stems]
        return Check(text, v[-1], v[0], all(a < b for a, b in itertools.pairwise(v)))

    pico = ("piconet-2", "piconet-4", "piconet-6")
    scat = ("scatternet-1", "scatternet-2", "scatternet-4", "scatternet-6")
    stems = pico + scat
    ipl_below = all(at("ipl", s, "goodput_kbit") < at("ppl", s, "goodput_kbit") for s in stems)
    ipl_rtt = all(at("ipl", s, "rtt_ms") < at("ppl", s, "rtt_ms") for s in stems)
    # "timeouts are negligible for PPL": at each topology, PPL's below a tenth of IPL's.
    to = [(at("ppl", s, "timeouts_per_s"), at("ipl", s, "timeouts_per_s")) for s in stems]
    worst = max(to, key=lambda pi: pi[0] / pi[1] if pi[1] > 0 else math.inf)
    checks = [
        falls("ppl", pico, "goodput_kbit", "PPL piconet goodput falls 2 -> 4 -> 6 slaves (6 vs 2)"),
        falls("ppl", scat, "goodput_kbit", "PPL scatternet goodput falls 1 -> 6 slaves/piconet"),
        falls("ipl", pico, "goodput_kbit", "IPL piconet goodput falls 2 -> 4 -> 6 slaves"),
        Check(
            "IPL goodput below PPL's at every topology (2-slave piconet: IPL vs PPL)",
            at("ipl", "piconet-2", "goodput_kbit"),
            at("ppl", "piconet-2", "goodput_kbit"),
            ipl_below,
        ),
        rises("ppl", pico, "rtt_ms", "PPL piconet RTT rises with the slaves (ms, 6 vs 2)"),
        rises("ppl", scat, "rtt_ms", "PPL scatternet RTT rises with the slaves/piconet (ms)"),
        Check(
            "RTT rises with the hops, PPL: scatternet 1/piconet vs piconet 2 slaves (ms)",
            at("ppl", "scatternet-1", "rtt_ms"),
            at("ppl", "piconet-2", "rtt_ms"),
            at("ppl", "scatternet-1", "rtt_ms") > at("ppl", "piconet-2", "rtt_ms"),
        ),
        Check(
            "RTT rises with the hops, IPL: scatternet 1/piconet vs piconet 2 slaves (ms)",
            at("ipl", "scatternet-1", "rtt_ms"),
            at("ipl", "piconet-2", "rtt_ms"),
            at("ipl", "scatternet-1", "rtt_ms") > at("ipl", "piconet-2", "rtt_ms"),
        ),
        Check(
            "IPL RTT below PPL's at every topology (6 slaves/piconet: IPL vs PPL, ms)",
            at("ipl", "scatternet-6", "rtt_ms"),
            at("ppl", "scatternet-6", "rtt_ms"),
            ipl_rtt,
        ),
        Check(
            "PPL timeouts negligible: under a tenth of IPL's at each topology (worst: PPL vs"
            " IPL, per connection per s)",
            worst[0],
            worst[1],
            all(p < 0.1 * q for p, q in to),
        ),
        below(
            "IPL timeouts fall with the hops: scatternet 1/piconet vs piconet 2 (per s)",
            at("ipl", "scatternet-1", "timeouts_per_s"),
            at("ipl", "piconet-2", "timeouts_per_s"),
        ),
    ]
    for (layer, stem), (g, rtt) in THESIS_6_17.items():
        if not math.isnan(g):
            checks.append(
                within(
                    f"{layer.upper()} {stem} goodput (kb/s)",
                    at(layer, stem, "goodput_kbit"),
                    g,
                    0.10,
                )
            )
        if not math.isnan(rtt):
            checks.append(
                within(f"{layer.upper()} {stem} RTT (ms)", at(layer, stem, "rtt_ms"), rtt, 0.10)
            )
    return checks


def _fig_6_17_figure(m: pd.DataFrame) -> Any:
    """As the thesis draws Fig. 6.17: goodput, RTT and timeouts (columns) in the piconet
    and the scatternet (rows) against the slaves per piconet, PPL and IPL, our means with
    95 % CIs and the thesis's numbers as open markers."""
    import matplotlib.pyplot as plt

    from ..sweep import mean_ci

    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5), constrained_layout=True)
    cols = (
        ("goodput_kbit", "TCP goodput per connection (kb/s)", 0),
        ("rtt_ms", "RTT (ms)", 1),
        ("timeouts_per_s", "timeouts per connection per s", None),
    )
    for r, scat in enumerate((False, True)):
        for c, (col, label, ref) in enumerate(cols):
            ax = axes[r][c]
            for layer, colour in (("ppl", "tab:blue"), ("ipl", "tab:red")):
                sel = m[(m["layer"] == layer) & (m["scatternet"] == scat)]
                xs, ys, lo, hi = [], [], [], []
                for slaves, g in sel.groupby("slaves"):
                    _, mean, _, low, high = mean_ci(g[col].to_numpy(dtype=float))
                    xs.append(slaves)
                    ys.append(mean)
                    lo.append(0.0 if math.isnan(low) else mean - low)
                    hi.append(0.0 if math.isnan(high) else high - mean)
                ax.errorbar(
                    xs,
                    ys,
                    yerr=[lo, hi],
                    marker="o",
                    color=colour,
                    capsize=3,
                    label=f"airqueue {layer.upper()}",
                )
                if ref is not None:
                    pts = [
                        (s, THESIS_6_17[(layer, stem)][ref])
                        for stem, s, _ in TOPOLOGIES_6_17[layer]
                        if stem.startswith("scatternet") == scat
                        and not math.isnan(THESIS_6_17[(layer, stem)][ref])
                    ]
                    if pts:
                        ax.plot(
                            *zip(*pts, strict=True),
                            linestyle="none",
                            marker="D",
                            markerfacecolor="none",
                            color=colour,
                            markersize=8,
                            label=f"thesis {layer.upper()} (text)",
                        )
            hops = "scatternet (4 hops)" if scat else "piconet (2 hops)"
            ax.set_title(f"({'abcdef'[2 * c + r]}) {label.split(' (')[0]} in {hops}", fontsize=9)
            ax.set_xlabel("slaves per piconet")
            ax.set_ylabel(label)
            if col == "rtt_ms":
                ax.set_yscale("log")
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=7)
    fig.suptitle(
        "Venugopal 2006 Fig. 6.17: TCP NewReno in a piconet and a scatternet, M = 5, S = 25",
        fontsize=10,
    )
    return fig


def _run_fig_6_17(
    rep: Reproduction,
    out: str | Path,
    jobs: int | None = None,
    quick: bool = False,
    progress: Any = None,
) -> Any:
    from .findings import finish

    out_dir = Path(out)
    runs = _fig_6_17_runs(out_dir, jobs, quick, progress)
    means = (
        runs.groupby(["layer", "topology", "scatternet", "slaves", "load_kbit"], as_index=False)
        .mean(numeric_only=True)
        .drop(columns="seed")
    )
    return finish(rep, out_dir, runs, _fig_6_17_checks(means), _fig_6_17_figure(runs), quick)


FIG_6_17 = Reproduction(
    name="venugopal-fig6-17",
    title="Venugopal 2006 Fig. 6.17: piconet vs scatternet, PPL vs IPL (M = 5, S = 25)",
    reference=f"{VENUGOPAL_REFERENCE}; §6.4 and the numbers of §6.1.2, §6.2, §6.3",
    description=(
        "The seven topologies (piconet with 2, 4, 6 slaves; scatternet with 1, 2, 4, 6 "
        "slaves per piconet) over a perfect and an imperfect channel, each at the top of "
        "its own figure's load range, with the thesis's token rates; §6.4's findings as "
        "checks and the text's numbers within 10 %."
    ),
    scenario=_scenario("piconet-2-ppl.toml"),
    param="topology",
    values=tuple(stem for stem, _, _ in TOPOLOGIES_6_17["ppl"]),
    x_of=lambda v: float(
        TOPOLOGIES_6_17["ppl"][[s for s, _, _ in TOPOLOGIES_6_17["ppl"]].index(v)][1]
    ),
    x_label="slaves per piconet",
    y_label="goodput (kb/s), RTT (ms), timeouts per s",
    ours=lambda rows: math.nan,
    expected=lambda x: math.nan,
    tolerance=0.10,
    checked=lambda x: True,
    reference_label="thesis (text)",
    seeds=10,
    quick_seeds=1,
    runner=_run_fig_6_17,
)

ENTRIES = (*ENTRIES, FIG_6_17)
