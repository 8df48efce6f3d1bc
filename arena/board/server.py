"""The web board's server: a Starlette app with a WebSocket, served by uvicorn.

``GET /`` is the page (``static/``: HTML, CSS and plain JavaScript, no build step).
``GET /api/state`` is the live game (:class:`arena.board.live.LiveGame`);
``POST /api/load`` reads a game file sent by the page (SGF, Piskvork ``.psq``, an arena
``games.jsonl``) into game records; ``GET /api/games`` lists the games given on the
command line; ``GET /api/run`` and ``GET /api/run/game/N`` are the tournament page's
data (:class:`arena.board.runview.RunView`), when one is served. ``POST /api/photo``
reads a position from a picture (:mod:`arena.board.photo_route`).

``/ws`` carries everything live. The page sends requests, JSON objects with an ``op``:
``new`` (a :class:`~arena.board.live.Setup`), ``play`` (``x``, ``y``), ``undo``,
``swap`` and ``analyse`` (``brain``, ``moves``, ``width``, ``height``, ``rule``,
``turn_ms``). The server sends the game's events to every page (``state``, ``analysis``,
``realtime``, ``message``, ``error``), ``run`` snapshots when a followed
run's files change, and an ``error`` to the page whose request failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.board.live import BoardRequestError, LiveGame, Setup
from arena.board.photo_route import PHOTO_ROUTES
from arena.board.runview import RunView
from arena.brainspec import BrainSpec
from brain.game.records import GameRecord, GameResult, RecordFormatError, parse_psq, parse_sgf

__all__ = ["STATIC", "BoardServer", "Hub", "create_app", "parse_game_file"]

STATIC = Path(__file__).resolve().parent / "static"
#: Seconds between two looks at a followed run's files.
RUN_POLL_S = 1.0


def parse_game_file(name: str, text: str, rule: int = 0) -> list[GameRecord]:
    """The games in a file's text, by its name's suffix: ``.sgf``, ``.psq`` (``rule``:
    PSQ does not store it) or ``.jsonl`` (arena records, one per line).

    :raises RecordFormatError: an unknown suffix or a malformed file (the message says
        which, and what the viewer opens).
    """
    suffix = Path(name).suffix.lower()
    if suffix == ".sgf":
        return [parse_sgf(text, source=name)]
    if suffix == ".psq":
        try:
            return [parse_psq(text, rule=rule, source=name)]
        except RecordFormatError as exc:
            if "cannot infer the result" not in str(exc):
                raise
            # A position or an unfinished game: still worth stepping through.
            return [parse_psq(text, rule=rule, source=name, result=GameResult.DRAW,
                              reason="unfinished (no result in the file)")]
    if suffix == ".jsonl":
        return [GameRecord.from_json(line) for line in text.splitlines() if line.strip()]
    if suffix == ".json":
        raise RecordFormatError(
            f"{name} is no game file: the viewer opens games, as .sgf, .psq or an arena "
            "run's games.jsonl (a run's results.json holds its standings: open the "
            "games.jsonl beside it, or the run with arena board --open RUN)")
    raise RecordFormatError(f"{name}: the viewer opens games, as .sgf, .psq or an arena "
                            "run's games.jsonl")


class Hub:
    """Fans events out to every connected page; :meth:`publish` works from any thread."""

    def __init__(self) -> None:
        self._queues: set[asyncio.Queue[str]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def publish(self, event: dict[str, Any]) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        text = json.dumps(event)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._fan_out, text)

    def _fan_out(self, text: str) -> None:
        for queue in self._queues:
            queue.put_nowait(text)

    def subscribe(self) -> asyncio.Queue[str]:
        queue: asyncio.Queue[str] = asyncio.Queue()
        self._queues.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[str]) -> None:
        self._queues.discard(queue)


def create_app(roster: Sequence[BrainSpec], names: Sequence[str], *,
               games: Sequence[GameRecord] = (), run: RunView | None = None,
               psq_rule: int = 0) -> Starlette:
    """The board app for the brains ``roster`` (named ``names``), with ``games`` to open
    in the viewer and ``run``, a tournament to follow."""
    hub = Hub()
    live = LiveGame(roster, names, hub.publish)
    preloaded = [g.to_dict() for g in games]

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def state(request: Request) -> Response:
        return JSONResponse(live.state())

    async def listed(request: Request) -> Response:
        return JSONResponse({"games": preloaded})

    async def load(request: Request) -> Response:
        data = await request.json()
        try:
            found = parse_game_file(str(data.get("name", "")), str(data.get("text", "")),
                                    int(data.get("rule", psq_rule)))
        except (RecordFormatError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"games": [g.to_dict() for g in found]})

    async def run_data(request: Request) -> Response:
        if run is None:
            return JSONResponse({"error": "no tournament is served"}, status_code=404)
        return JSONResponse(await asyncio.to_thread(run.snapshot))

    async def run_game(request: Request) -> Response:
        if run is None:
            return JSONResponse({"error": "no tournament is served"}, status_code=404)
        try:
            return JSONResponse(run.game(int(request.path_params["index"])))
        except IndexError as exc:
            return JSONResponse({"error": str(exc)}, status_code=404)

    async def socket_endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        queue = hub.subscribe()
        await websocket.send_text(json.dumps(live.state()))

        async def forward() -> None:
            while True:
                await websocket.send_text(await queue.get())

        sender = asyncio.create_task(forward())
        try:
            while True:
                request = json.loads(await websocket.receive_text())
                try:
                    _dispatch(live, request)
                except (BoardRequestError, KeyError, TypeError, ValueError) as exc:
                    await websocket.send_text(json.dumps({"type": "error", "text": str(exc)}))
        except WebSocketDisconnect:
            pass
        finally:
            sender.cancel()
            hub.unsubscribe(queue)

    async def watch_run() -> None:
        assert run is not None
        while True:
            if run.changed():
                hub.publish(await asyncio.to_thread(run.snapshot))
            await asyncio.sleep(RUN_POLL_S)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.bind(asyncio.get_running_loop())
        watcher = asyncio.create_task(watch_run()) if run is not None else None
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
            live.close()

    app = Starlette(routes=[
        Route("/", index),
        Route("/api/state", state),
        Route("/api/games", listed),
        Route("/api/load", load, methods=["POST"]),
        Route("/api/run", run_data),
        Route("/api/run/game/{index:int}", run_game),
        *PHOTO_ROUTES,
        WebSocketRoute("/ws", socket_endpoint),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    app.state.live = live
    return app


def _dispatch(live: LiveGame, request: dict[str, Any]) -> None:
    op = request.get("op")
    if op == "new":
        live.new_game(Setup.from_json(request, len(live.roster)))
    elif op == "play":
        live.play(int(request["x"]), int(request["y"]))
    elif op == "undo":
        live.undo()
    elif op == "swap":
        live.swap()
    elif op == "analyse":
        live.analyse(int(request["brain"]), [(int(x), int(y)) for x, y in request["moves"]],
                     int(request["width"]), int(request["height"]), int(request["rule"]),
                     int(request["turn_ms"]))
    else:
        raise BoardRequestError(f"unknown request {op!r}")


class BoardServer:
    """uvicorn serving an app on a socket bound at once (so the URL is known, port 0
    included), in the foreground (:meth:`run`) or in a thread (:meth:`start`)."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = 8000) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self._socket.listen(128)  # connections wait from now on, while uvicorn starts
        self.port = self._socket.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        if host in ("0.0.0.0", "::"):
            shown = socket.gethostname()
        self.url = f"http://{shown}:{self.port}/"
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning",
                                                    ws="websockets-sansio"))
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        """Serve until interrupted (Ctrl-C)."""
        self._server.run(sockets=[self._socket])

    def start(self) -> None:
        """Serve from a daemon thread; returns once the server accepts connections."""
        self._thread = threading.Thread(target=self.run, name="board-server", daemon=True)
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise OSError(f"the board server did not start on {self.url}")
            self._thread.join(0.02)

    def stop(self) -> None:
        """Stop a server started with :meth:`start` (the brains are ended)."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10.0)
