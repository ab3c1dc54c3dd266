"""Progress bars on stderr: a sweep's or a reproduction's (:class:`SweepProgress`); one
run's (:class:`RunProgress`) is in :mod:`airqueue.cli.run_progress`, which imports rich's
progress bars only when it shows one."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from .console import err
from .run_progress import RunProgress


def runs_per_second(task: Task) -> float | None:
    """Runs finished per second of wall time since the runs started (the bar's task is
    added when they start): the sweep summary's ``runs_per_second``, not rich's moving
    estimate, which chunked runs (many finishing at once) made disagree with it."""
    elapsed = task.finished_time if task.finished_time is not None else task.elapsed
    if not elapsed or not task.completed:
        return None
    return task.completed / elapsed


class RateColumn(ProgressColumn):
    """Finished runs per second since the runs started (:func:`runs_per_second`)."""

    def render(self, task: Task) -> Text:
        speed = runs_per_second(task)
        return Text("-- runs/s" if speed is None else f"{speed:.1f} runs/s", style="cyan")


class SweepProgress:
    """A rich progress bar (done/total, rate, ETA) driven by the sweep's progress hook."""

    def __init__(self, enabled: bool) -> None:
        self.bar = Progress(
            TextColumn("sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=err.get(),
            disable=not enabled,
        )
        self.task: TaskID | None = None

    def __call__(self, done: int, total: int, skipped: int) -> None:
        if self.task is None:
            self.task = self.bar.add_task("sweep", total=total)
            if skipped:
                self.bar.console.print(f"{skipped} of {total} runs are in the store already")
            # Runs from the store do not count towards the rate.
            self.bar.update(self.task, completed=0, total=total - skipped)
            return
        self.bar.update(self.task, completed=done - skipped)


__all__ = ["RateColumn", "RunProgress", "SweepProgress", "runs_per_second"]
