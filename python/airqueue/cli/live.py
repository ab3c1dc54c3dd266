"""``airqueue live``: run a scenario in real time with its real hosts as network namespaces
(docs/live.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from .. import live as livemod
from ..result import Result
from . import publish
from .common import InputError, SeedOpt, SetOpt, err, load, out, out_option
from .render import print_run_summary
from .run import RUN_OUTPUTS


def live(
    file: Annotated[
        Path | None,
        typer.Argument(metavar="FILE", help="A scenario TOML file.", show_default=False),
    ] = None,
    out_dir: Annotated[Path | None, out_option("results/FILE-STEM-live")] = None,
    execs: Annotated[
        list[str] | None,
        typer.Option(
            "--exec",
            metavar="NODE=CMD",
            help="Run CMD (sh -c) in real host NODE's namespace during the run; its output "
            "goes to DIR/exec-NODE-K.log (repeatable).",
            show_default=False,
        ),
    ] = None,
    duration: Annotated[
        str | None,
        typer.Option(
            "--duration",
            help="How long to run (overrides run.duration), e.g. 10s.",
            show_default=False,
        ),
    ] = None,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    spin_us: Annotated[
        int | None,
        typer.Option(
            "--spin-us",
            min=0,
            help="Spin instead of sleeping when the next event is this close (µs; default "
            "50, which covers a real-time thread's wake-up latency): longer buys little and "
            "can keep the loop from ever sleeping.",
            show_default=False,
        ),
    ] = None,
    priority: Annotated[
        int,
        typer.Option(
            "--priority",
            min=0,
            max=99,
            help="SCHED_FIFO priority of the emulator's loop thread while it runs (1-99; 0 = "
            "normal scheduling): not descheduled by the real hosts' programs or other jobs. "
            "The --exec commands keep normal scheduling. If the kernel refuses, the run goes "
            "on with normal scheduling and says so.",
        ),
    ] = 50,
    pcap: Annotated[
        bool,
        typer.Option(
            "--pcap",
            help="Write DIR/NODE.pcap per real host: what tcpdump -i aq0 in its namespace "
            "would see (full bytes, ns timestamps since the start; the wall-clock origin is "
            "live.origin_unix_ns in summary.json).",
        ),
    ] = False,
    cleanup: Annotated[
        bool,
        typer.Option(
            "--cleanup",
            help="Remove the namespaces (aq-*) of live runs whose process is gone, killing "
            "any program still inside them (a run killed with kill -9 leaves its --exec "
            "programs running), and exit.",
        ),
    ] = False,
) -> None:
    """Run a scenario in real time: each real host (a node with real = true) is a network
    namespace with a TUN interface, and what its programs send crosses the emulated
    network. Ends at run.duration (or --duration) or Ctrl-C; writes the results as run
    does, with the real packets' conservation, release timing and what ran behind real
    time in summary.json, and timing.parquet: per packet written to a real host, its
    model release time and write time (ns).
    """
    try:
        livemod.check_can_run()
    except livemod.LiveError as e:
        err.print(Text(str(e), style="red"))
        raise typer.Exit(1) from None
    if cleanup:
        removed = livemod.remove_namespaces(livemod.stale_namespaces())
        out.print(
            f"removed {len(removed)} stale namespace(s)"
            + (": " + ", ".join(removed) if removed else "")
        )
        return
    if file is None:
        raise InputError("FILE", "a scenario file is needed (or --cleanup)")
    all_sets = list(sets or [])
    if duration is not None:
        all_sets.append(f"run.duration={duration}")
    scenario = load(file, all_sets)
    by_node: dict[str, list[str]] = {}
    for item in execs or []:
        node, sep, command = item.partition("=")
        if not sep or not node or not command:
            raise InputError("--exec", f"{item!r}: write NODE=CMD, e.g. a='ping 10.0.0.2'")
        by_node.setdefault(node, []).append(command)
    target = out_dir if out_dir is not None else Path("results") / f"{file.stem}-live"
    with publish.staged(target) as staging:
        try:
            raw, codes = livemod.run_live(
                scenario.to_json(),
                by_node,
                staging,
                seed,
                spin_us,
                priority,
                staging if pcap else None,
            )
        except livemod.ExecError as e:
            raise InputError("--exec", str(e)) from None
        except livemod.LiveError as e:
            err.print(Text(str(e), style="red"))
            raise typer.Exit(1) from None
        result = Result.from_native(raw)
        info: dict[str, Any] = dict(raw["live"])
        info["exec"] = [
            {"node": e.node, "command": e.command, "log": e.log.name, "exit_code": code}
            for e, code in codes
        ]
        info["pcap"] = [
            {"node": node, "file": Path(path).name, "packets": packets}
            for node, path, packets in raw["pcap"]
        ]
        result.summary["live"] = info
        result.write(staging)
        logs = tuple(e.log.name for e, _ in codes)
        publish.publish(staging, target, RUN_OUTPUTS + logs)
    print_run_summary(result)
    print_live(info)
    out.print(f"wrote {target}{os.sep}")
    if not result.summary["conservation_ok"]:
        err.print(Text("packet conservation failed", style="bold red"))
        raise typer.Exit(1)


def print_live(info: dict[str, Any]) -> None:
    """The real packets' conservation and the release-timing table."""
    answers, absorbed = info.get("answers", 0), info.get("absorbed", 0)
    errors = info.get("errors", 0)
    out.print(
        f"real packets: {info['read']} read, {info['unsupported']} not carried (not IPv4 "
        f"ICMP/TCP/UDP)"
        + (f", {answers} answers to emulated pings" if answers else "")
        + f", {info['injected']} injected"
        + (f" + {errors} ICMP errors from emulated routers" if errors else "")
        + f" = {info['written']} written + "
        f"{info['dropped']} dropped + "
        + (f"{absorbed} ended at emulated nodes + " if absorbed else "")
        + f"{info['in_flight']} in flight"
    )
    if info.get("probes"):
        out.print(f"emulated pings written to real hosts: {info['probes']} echo requests")
    if info["packets"]:
        out.print(
            f"release timing (write time - model release time), {info['packets']} packets: "
            f"p50 {info['p50_ns'] / 1e3:.1f} µs, p99 {info['p99_ns'] / 1e3:.1f} µs, "
            f"max {info['max_ns'] / 1e3:.1f} µs"
        )
    out.print(
        f"scheduling: {info['scheduling']}; events more than 1 ms late: "
        f"{info['events_behind']} (latest {info['max_event_late_ns'] / 1e3:.1f} µs)"
    )
    if info["behind"] or info["events_behind"]:
        err.print(
            Text(
                f"fell behind real time in {info['episodes']} episode(s): "
                f"{info['events_behind']} events run and {info['behind']} packets written "
                "more than 1 ms late",
                style="yellow",
            )
        )
    for p in info["pcap"]:
        out.print(f"pcap {p['node']}: {p['packets']:,} packets in {p['file']}")
    for e in info["exec"]:
        out.print(f"exec {e['node']}: {e['command']!r} exited {e['exit_code']} ({e['log']})")
