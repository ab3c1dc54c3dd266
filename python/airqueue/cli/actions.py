"""What ``airqueue run`` and ``airqueue validate`` do, without typer: the typer commands of
:mod:`airqueue.cli.run` and the fast path of :mod:`airqueue.cli.fast` both call these, so
the two give the same output (issue 37: a run of a small scenario takes about 0.2 s, most
of it Python's imports)."""

from __future__ import annotations

import os
from pathlib import Path

import airqueue

from .console import (
    Interrupted,
    err,
    load,
    memory_budget,
    out,
    plural,
    print_warnings,
)

#: What ``airqueue run`` writes into its folder, besides ``LINK.pcap`` files; ``plot``
#: and ``report`` add ``plots/`` and ``report.html`` (made from the files of a run).
RUN_OUTPUTS = (
    "summary.json",
    "flows.csv",
    "flows.parquet",
    "timeseries.parquet",
    "queues.parquet",
    "classes.parquet",
    "scenario.toml",
    "report.html",
)


def run_scenario(
    file: Path,
    out_dir: Path | None = None,
    seed: int | None = None,
    sets: list[str] | None = None,
    pcap: list[str] | None = None,
    quiet: bool = False,
    max_memory: str | None = None,
) -> None:
    """``airqueue run``: runs, writes the results, prints a summary. Raises SystemExit(1)
    if the packet conservation check fails (after writing the results)."""
    from . import publish
    from .run_progress import RunProgress

    scenario = load(file, sets)
    target_dir = out_dir if out_dir is not None else Path("results") / file.stem
    if scenario.has_sweep and not quiet:
        out.print(
            "the [sweep] table is not used by run (this is the base point); use airqueue sweep",
            style="dim",
        )
    progress = RunProgress(enabled=not quiet)
    kept = (
        f"; the previous results in {target_dir} are intact"
        if publish.is_run_folder(target_dir)
        else ""
    )
    with publish.staged(target_dir) as staging:
        try:
            # The columns as buffers: this process never imports NumPy (result.py).
            result = airqueue._run(
                scenario,
                seed=seed,
                pcap=pcap,
                pcap_dir=staging,
                max_memory=memory_budget(max_memory),
                progress=progress,
                buffers=True,
            )
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted; no results were written{kept}") from None
        finally:
            progress.close()
        if not quiet:
            print_warnings([(w["path"], w["message"]) for w in result.summary.get("warnings", [])])
        # This process writes the files and prints: pyarrow needs no NumPy here.
        from airqueue.result import import_pyarrow

        import_pyarrow(hide_numpy=True)
        try:
            result.write(staging)
            publish.publish(staging, target_dir, RUN_OUTPUTS)
        except KeyboardInterrupt:
            raise Interrupted(
                f"interrupted while writing the results; nothing was written{kept}"
            ) from None
    result.pcap = {
        link: (target_dir / path.name, packets) for link, (path, packets) in result.pcap.items()
    }
    if not quiet:
        from .render import print_run_summary

        print_run_summary(result)
        for link, (path, packets) in result.pcap.items():
            out.print(f"pcap {link}: {packets:,} packets in {path}")
        out.print(f"wrote {target_dir}{os.sep}")
    if not result.summary["conservation_ok"]:
        from rich.text import Text

        err.print(Text("packet conservation failed:", style="bold red"))
        for line in result.summary["packets"].get("errors", []):
            err.print(Text(f"  {line}", style="red"), soft_wrap=True)
        raise SystemExit(1)


def validate_scenario(
    file: Path, sets: list[str] | None = None, max_memory: str | None = None
) -> None:
    """``airqueue validate``: prints what the scenario contains, or raises its problems."""
    found, warnings = load(file, sets).counts(memory_budget(max_memory))
    print_warnings(warnings)
    counts = [
        plural(found.get(section, 0), word)
        for section, word in (
            ("nodes", "node"),
            ("links", "link"),
            ("flows", "flow"),
            ("qdiscs", "qdisc"),
        )
    ]
    for section, word in (
        ("segments", "segment"),
        ("cells", "802.11 cell"),
        ("piconets", "piconet"),
        ("bridges", "scatternet bridge"),
        ("virtual_devs", "virtual device"),
        ("trunks", "trunk"),
    ):
        if found.get(section):
            counts.append(plural(found[section], word))
    out.line("OK: " + ", ".join(counts))
