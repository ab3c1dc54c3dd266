"""Writing a run's folder all at once: ``airqueue run`` writes every file into a staging
folder beside the destination and moves it into place only when all are written, so an
interrupted run (Ctrl-C, a crash, a full disk) leaves the previous results as they were.

The move is a rename (``os.replace``, same file system as the destination). A previous run
folder is replaced only then: it is renamed aside, the new folder renamed in, the entries
airqueue does not own (notes, other folders) carried over, and the old folder removed.
Ctrl-C during these renames is held until they are done. A folder that holds other things
but no run (``--out .``) is never renamed: the new files are moved into it one by one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

#: Marks a staging or set-aside folder: ``.<name>.<marker>-<pid>-<nonce>`` beside the
#: destination.
STAGING = "partial"
ASIDE = "old"

#: Images ``plot`` made from an earlier run; removed when the run is replaced.
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def side_folder(target: Path, marker: str) -> Path:
    return target.parent / f".{target.name}.{marker}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def owned_by_run(entry: Path, outputs: tuple[str, ...]) -> bool:
    """Whether ``entry`` (in a run folder) is a run's output: replaced, not carried over."""
    return entry.name in outputs or (entry.is_file() and entry.suffix in (".pcap", ".parquet"))


def is_run_folder(folder: Path) -> bool:
    return (folder / "summary.json").is_file()


def remove_abandoned(target: Path) -> None:
    """Removes staging folders of ``target`` left by processes that no longer run."""
    from airqueue.store import pid_alive

    prefix = f".{target.name}.{STAGING}-"
    if not target.parent.is_dir():
        return
    for entry in target.parent.iterdir():
        if not entry.name.startswith(prefix) or not entry.is_dir():
            continue
        pid = entry.name[len(prefix) :].split("-")[0]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Holds Ctrl-C until the block ends, then raises it (in the main thread only)."""
    try:
        previous = signal.getsignal(signal.SIGINT)
        caught: list[bool] = []

        def hold(_signum: int, _frame: FrameType | None) -> None:
            caught.append(True)

        signal.signal(signal.SIGINT, hold)
    except ValueError:  # not the main thread: signals cannot be set
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


@contextlib.contextmanager
def staged(target: Path) -> Iterator[Path]:
    """A fresh staging folder beside ``target``, removed if the block does not finish."""
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned(target)
    staging = side_folder(target, STAGING)
    staging.mkdir()
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def publish(staging: Path, target: Path, outputs: tuple[str, ...]) -> None:
    """Moves the complete run in ``staging`` to ``target`` (see the module documentation);
    ``outputs`` are the file names a run owns besides ``*.parquet`` and ``*.pcap``."""
    with sigint_held():
        if not target.exists() or (target.is_dir() and not any(target.iterdir())):
            if target.exists():
                target.rmdir()
            os.replace(staging, target)
        elif is_run_folder(target):
            replace_run_folder(staging, target, outputs)
        else:
            merge_into(staging, target)


def replace_run_folder(staging: Path, target: Path, outputs: tuple[str, ...]) -> None:
    aside = side_folder(target, ASIDE)
    os.replace(target, aside)
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(aside, target)
        raise
    for entry in aside.iterdir():
        if not owned_by_run(entry, outputs):
            os.replace(entry, target / entry.name)
    plots_dir = target / "plots"
    if plots_dir.is_dir():
        for f in plots_dir.iterdir():
            if f.suffix in PLOT_SUFFIXES and f.is_file():
                f.unlink()
    shutil.rmtree(aside, ignore_errors=True)


def merge_into(staging: Path, target: Path) -> None:
    for entry in staging.iterdir():
        os.replace(entry, target / entry.name)
    staging.rmdir()
