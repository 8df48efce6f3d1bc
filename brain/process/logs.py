"""Where the brain's log goes: never to the manager's pipes, except as MESSAGE lines.

Piskvork reads a brain's stdout and stderr through one pipe and takes any line that is not
``MESSAGE``/``DEBUG`` as the reply to the pending request, so a log line or a traceback on
stderr loses the game. While the brain plays:

* the log goes to a file when one is asked for (``--log-file``), else nowhere;
* warnings and errors of the brain's own loggers also go out as one ``MESSAGE`` line each
  (no traceback), which every manager ignores or shows to the person watching;
* file descriptor 2 itself points at the log file or the null device, so nothing written
  to stderr (Python warnings, a C library's complaint, an uncaught exception in a thread)
  reaches the manager;
* uncaught exceptions, in any thread, are logged instead of printed.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from types import TracebackType

from protocol import replies

#: The loggers whose warnings and errors become MESSAGE lines.
BRAIN_LOGGER = "brain"
_FORMAT = "%(asctime)s %(threadName)s %(name)s %(levelname)s %(message)s"


class MessageHandler(logging.Handler):
    """Sends each record as one ``MESSAGE`` line through ``write`` (a reply writer)."""

    def __init__(self, write: Callable[[str], None], level: int = logging.WARNING) -> None:
        super().__init__(level)
        self.write = write
        self.addFilter(lambda record: record.name.split(".")[0] == BRAIN_LOGGER)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                text += f" ({type(error).__name__}: {error})"
            self.write(replies.message(f"{record.levelname.lower()}: {text}"))
        except Exception:  # a broken pipe while logging must not become a new error
            self.handleError(record)


def route_logs(log_file: str | None, verbose: bool,
               write: Callable[[str], None]) -> MessageHandler:
    """Send the log to ``log_file`` (or nowhere) and to MESSAGE lines through ``write``;
    point stderr at the same file (or the null device). Returns the MESSAGE handler, whose
    ``write`` the caller may replace once the session that filters replies exists.

    :raises OSError: ``log_file`` cannot be opened for appending.
    """
    sink = open(log_file or os.devnull, "a", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    sys.stderr.flush()
    os.dup2(sink.fileno(), 2)
    sys.stderr = sink
    logging.raiseExceptions = False  # a failing handler must not print its own traceback
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO if log_file else logging.WARNING)
    if log_file:
        to_file = logging.StreamHandler(sink)
        to_file.setFormatter(logging.Formatter(_FORMAT))
        root.addHandler(to_file)
    messages = MessageHandler(write)
    root.addHandler(messages)
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread
    return messages


def _log_uncaught(kind: type[BaseException], error: BaseException,
                  trace: TracebackType | None) -> None:
    logging.getLogger(BRAIN_LOGGER).critical("uncaught error", exc_info=(kind, error, trace))


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    logging.getLogger(BRAIN_LOGGER).critical(
        "uncaught error in thread %s", name,
        exc_info=(args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback))
