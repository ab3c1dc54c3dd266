"""The ``airqueue`` command line: run, validate and benchmark scenarios, list what exists.

Exit codes: 0 success; 1 an internal error (or a run whose packet conservation check
failed); 2 invalid input (a scenario problem, a bad ``--set``, a usage error, a run that
ran out of memory). Tracebacks
are shown only with ``AIRQUEUE_DEBUG=1``.

The commands are in one module per family (``run``: run, validate, bench; ``sweep``;
``plot``: plot, report; ``reproduce``; ``listing``: list, schema), the console tables they
print in ``render``; ``typer_app`` builds the typer app from them. This module is the entry
point and imports none of them: ``airqueue run FILE`` and ``airqueue validate FILE`` with
plain options take the fast path (``fast``, ``actions``), which imports neither typer nor
pandas; every other command line, ``--help`` included, goes to the typer app. ``app`` and
the other names below are loaded on first use (PEP 562).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from airqueue import ScenarioError

from .console import InputError, Interrupted, err, plural

#: Set to 1 to see tracebacks of internal errors.
DEBUG_ENV = "AIRQUEUE_DEBUG"

#: Names loaded on first use, and the module of each.
_LAZY = {
    "app": "typer_app",
    "list_app": "typer_app",
    "RUN_OUTPUTS": "actions",
    "draw": "plot",
    "SweepProgress": "progress",
    "runs_per_second": "progress",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


# ---------------------------------------------------------------------------------------
# Entry point and error handling
# ---------------------------------------------------------------------------------------


def report_problems(problems: list[tuple[str, str]], header: str) -> None:
    """Prints a header and each problem as ``path: message`` in red on stderr."""
    from rich.text import Text

    err.print(Text(header, style="bold red"))
    for path, message in problems:
        err.print(Text(f"  {path}: {message}", style="red"), soft_wrap=True)


def report_unexpected(exc: BaseException) -> None:
    """One line about an exception that is not the input's fault; the traceback only with
    AIRQUEUE_DEBUG=1."""
    from rich.text import Text

    import airqueue

    lines = str(exc).strip().splitlines()
    detail = lines[0] if lines else ""
    if isinstance(exc, airqueue.InternalError):
        line = detail or "internal error in the airqueue core"
    elif isinstance(exc, OSError):
        line = f"error: {detail or type(exc).__name__}"
    else:
        line = f"internal error: {type(exc).__name__}{': ' + detail if detail else ''}"
    err.print(Text(line, style="red"), soft_wrap=True)
    if os.environ.get(DEBUG_ENV) == "1":
        traceback.print_exception(exc)
    else:
        err.print(f"re-run with {DEBUG_ENV}=1 for a traceback", soft_wrap=True)


def is_the_program() -> bool:
    """Whether this process is the ``airqueue`` program (its console script, or ``python
    -m airqueue[.cli]``), not a program that called :func:`main` itself: only then may
    main end the process without the interpreter's teardown."""
    path = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if path is None or not path.is_file():
        return False
    if path.name == "airqueue":
        return True
    package = Path(__file__).resolve().parent
    return path.name == "__main__.py" and path.resolve().parent in (package, package.parent)


def release_semaphores() -> None:
    """Unlinks the semaphores multiprocessing still holds, as its exit handler would.

    An interrupted Dask sweep leaves its nannies' queues alive a moment after the cluster
    was killed; ``os._exit`` skips the interpreter's exit handlers, so the resource tracker
    (a separate process) then finds those semaphores registered and warns of "leaked
    semaphore objects" (CI saw 12, on a loaded machine, after a 5 s wait for the queue
    threads). Running multiprocessing's finalizers of priority >= 0 is what its own
    ``atexit`` handler does first: each semaphore is unlinked and unregistered (the queue
    threads may still use it; an unlinked POSIX semaphore lives on until closed)."""
    util = sys.modules.get("multiprocessing.util")
    run_finalizers = getattr(util, "_run_finalizers", None)
    if callable(run_finalizers):
        # Exiting anyway: a failed cleanup must not hide the exit code.
        with contextlib.suppress(Exception):
            run_finalizers(0)


def main() -> None:
    """The ``airqueue`` console script."""
    from .fast import fast_command

    try:
        command = fast_command(sys.argv[1:])
        if command is not None:
            command()
            if is_the_program():
                # Done, and every file closed: skip the interpreter's teardown (20-30 ms
                # of CPU with NumPy and pyarrow loaded, a tenth of a small run).
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                except OSError:  # the reader went away (`| head`): exit 1 as click does
                    os._exit(1)
                os._exit(0)
        else:
            # The module's `app` (a test may have put another in its place).
            application = globals()["app"] if "app" in globals() else __getattr__("app")
            application(prog_name="airqueue")
    except ScenarioError as e:
        problems = e.problems or [("(scenario)", str(e))]
        report_problems(problems, f"error: the scenario has {plural(len(problems), 'problem')}:")
        sys.exit(2)
    except InputError as e:
        report_problems(e.problems, "error:")
        sys.exit(2)
    except (Interrupted, KeyboardInterrupt) as e:
        from rich.text import Text

        err.print(Text(str(e) or "interrupted", style="red"))
        # Nothing is pending (results are written only after a run ends), so skip the
        # interpreter's teardown (hundreds of ms with pandas and pyarrow loaded).
        sys.stdout.flush()
        sys.stderr.flush()
        release_semaphores()
        os._exit(130)
    except MemoryError as e:
        # Python, NumPy or Arrow could not allocate (the core's own failures exit 2 in
        # its allocator, crates/airqueue-py/src/oom.rs): the run did not fit this
        # process's memory limit, which is the input's size, not a bug.
        detail = str(e).strip().splitlines()[0] if str(e).strip() else "an allocation failed"
        from rich.text import Text

        err.print(
            Text(
                f"error: out of memory ({detail}); make the run smaller (run.duration, a "
                "longer run.sample_interval, fewer flows) or pass a smaller --max-memory",
                style="red",
            ),
            soft_wrap=True,
        )
        sys.exit(2)
    except Exception as e:
        report_unexpected(e)
        sys.exit(1)


__all__ = [
    "RUN_OUTPUTS",
    "InputError",
    "Interrupted",
    "SweepProgress",
    "app",
    "draw",
    "list_app",
    "main",
    "runs_per_second",
]
