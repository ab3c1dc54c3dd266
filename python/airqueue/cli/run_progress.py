"""One run's progress line on stderr (:class:`RunProgress`), apart from the sweep's bars
of :mod:`airqueue.cli.progress`: rich's progress module is imported only when the line is
shown (a run that ends within a second, or runs piped, never shows it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .console import err

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class RunProgress:
    """A progress line for one run (simulated time, events/s, ETA) on stderr, shown once
    the run has taken a second and only on a terminal; called by the core about every
    200 ms."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and err.is_terminal
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def make_bar(self) -> Progress:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        return Progress(
            TextColumn("run"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}", style="cyan"),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=err.get(),
            transient=True,
        )

    def __call__(self, sim_s: float, stop_s: float, events: int, wall_s: float) -> None:
        if not self.enabled or wall_s < 1.0:
            return
        fields = {
            "sim": f"{sim_s:,.1f} / {stop_s:,.1f} s simulated",
            "rate": f"{events / max(wall_s, 1e-9) / 1e6:,.1f} M events/s",
        }
        if self.bar is None:
            self.bar = self.make_bar()
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("run", total=stop_s, **fields)
        self.bar.update(self.task, completed=sim_s, **fields)

    def close(self) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.stop()
