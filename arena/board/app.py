"""Starting the board from the command line: the brains, the games to open, the run to
follow, and a clear message when the ``board`` extra is not installed."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.brainspec import BrainSpec, unique_names
from arena.errors import ArenaError
from brain.game.records import GameRecord

if TYPE_CHECKING:
    from arena.board.runview import RunView
    from arena.board.server import BoardServer

__all__ = ["BoardMissing", "board_server"]


class BoardMissing(ArenaError, RuntimeError):
    """The web board's libraries are not installed."""


def board_server(roster: Sequence[BrainSpec], *, host: str = "127.0.0.1", port: int = 8000,
                 games: Sequence[GameRecord] = (), run: RunView | None = None,
                 names: Sequence[str] | None = None, psq_rule: int = 0) -> BoardServer:
    """A :class:`~arena.board.server.BoardServer` (bound, not yet serving) for ``roster``.

    Brains are named ``names`` if given, else by their explicit name or file name (no
    process is started until a brain plays).

    :raises BoardMissing: Starlette or uvicorn is missing (the message says what to
        install).
    :raises OSError: the address cannot be bound (port in use...).
    """
    missing = [m for m in ("starlette", "uvicorn", "websockets")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise BoardMissing(f"the web board needs {', '.join(missing)}: install the board "
                           "extra (pip install -e '.[board]')")
    from arena.board.server import BoardServer, create_app

    labels = list(names) if names is not None else unique_names(
        [spec.name or spec.fallback_name() for spec in roster])
    app = create_app(roster, labels, games=games, run=run, psq_rule=psq_rule)
    return BoardServer(app, host, port)
