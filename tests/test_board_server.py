"""The web board's server and the brain-to-page event stream, with real brain processes.

The search reports are asked for over the protocol (``INFO show_detail``, ``INFO
show_analysis``) and read from ``MESSAGE`` lines; the board's WebSocket passes them on
while the brain thinks.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from arena.board.app import board_server
from arena.board.server import BoardServer
from arena.brainspec import builtin_brain
from arena.records import GameRecord, GameResult, write_psq, write_sgf
from protocol.analysis import (
    AnalysisReport,
    Candidate,
    format_analysis,
    parse_analysis,
    parse_realtime,
)
from protocol.client import BrainProcess
from protocol.replies import parse_reply
from protocol.syntax import Point

#: Black's stones 6,7 7,7 and 8,8 8,9 with white far away: 8,7 is a double three.
RENJU_DOUBLE_THREE = [(6, 7), (0, 0), (7, 7), (0, 14), (8, 8), (14, 0), (8, 9), (14, 14)]


def test_analysis_lines_round_trip() -> None:
    report = AnalysisReport(
        done=True, time_ms=512, playouts=900, nodes=950, speed=1758, depth=4.4, seldepth=11,
        winrate=0.6125, pv=(Point(7, 7), Point(8, 8)),
        moves=(Candidate(Point(7, 7), 600, 0.6125, 0.25),
               Candidate(Point(9, 9), 0, None, 0.01)))
    text = format_analysis(report)
    assert text.startswith("ANALYSIS state=done ")
    assert parse_analysis(text) == report
    assert parse_analysis("winrate 50%") is None
    with pytest.raises(ValueError, match="move="):
        parse_analysis("ANALYSIS move=7,7;12")
    assert parse_realtime("REALTIME BEST 3,4").point == Point(3, 4)
    assert parse_realtime("REALTIME REFRESH").kind == "REFRESH"


def _think(info: dict[str, str]) -> tuple[str, ...]:
    spec = builtin_brain("mcts")
    with BrainProcess.spawn(spec.argv(), cwd=spec.cwd) as brain:
        brain.start(15, timeout_turn_ms=3000, info=info)
        reply = brain.play([(7, 7), (8, 8), (7, 8)], timeout=10.0)
    return tuple(parse_reply(m).text for m in reply.messages)  # type: ignore[union-attr]


def test_pbrain_zero_reports_its_search_only_when_asked() -> None:
    quiet = _think({})
    assert not any(parse_analysis(m) or parse_realtime(m) for m in quiet), quiet
    asked = _think({"show_detail": "1", "show_analysis": "100"})
    reports = [r for r in map(parse_analysis, asked) if r is not None]
    assert len(reports) >= 2, asked  # while thinking, and the last one
    assert [r.done for r in reports] == [False] * (len(reports) - 1) + [True]
    last = reports[-1]
    assert last.playouts >= reports[0].playouts > 0
    assert last.moves and last.pv and last.pv[0] == last.moves[0].point
    assert last.total_visits > 0 and 0 <= last.winrate <= 1
    best = [r for r in map(parse_realtime, asked) if r is not None and r.kind == "BEST"]
    assert best and best[-1].point == last.pv[0]


@pytest.fixture()
def server() -> Iterator[BoardServer]:
    board = board_server([builtin_brain("mcts"), builtin_brain("heuristic")], port=0)
    board.start()
    yield board
    board.stop()


def _events(ws: ClientConnection, until: Any, timeout: float = 20.0) -> list[dict[str, Any]]:
    """Events until ``until(event)`` is true (that one included)."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        seen.append(event)
        if until(event):
            return seen
    raise AssertionError(f"timed out; events: {[e['type'] for e in seen]}")


def _get(server: BoardServer, path: str) -> Any:
    with urllib.request.urlopen(server.url + path.lstrip("/"), timeout=10) as answer:
        return json.loads(answer.read())


def _post(server: BoardServer, path: str, data: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(server.url + path.lstrip("/"),
                                     data=json.dumps(data).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_person_plays_pbrain_zero_and_sees_its_search(server: BoardServer) -> None:
    ws_url = server.url.replace("http", "ws") + "ws"
    with connect(ws_url) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "state"
        ws.send(json.dumps({"op": "new", "width": 15, "height": 15, "rule": 0,
                            "turn_ms": 2500, "black": "human", "white": "0",
                            "moves": [[7, 7], [8, 8]]}))
        ws.send(json.dumps({"op": "play", "x": 7, "y": 8}))
        events = _events(ws, lambda e: e["type"] == "state" and len(e["moves"]) == 4)
        ws.send(json.dumps({"op": "play", "x": 0, "y": 0}))
        thinking = [e for e in events if e["type"] == "analysis" and not e["report"]["done"]]
        done = [e for e in events if e["type"] == "analysis" and e["report"]["done"]]
        assert thinking, [e["type"] for e in events]  # reports while it thought
        assert all(e["seat"] == "white" and e["ply"] == 3 for e in thinking + done)
        heat = done[-1]["report"]["moves"]
        assert abs(sum(m["share"] for m in heat) - 1) < 1e-6
        final = events[-1]
        assert final["moves"][3] == done[-1]["report"]["pv"][0]
        assert [ply for ply, _ in final["winrates"]] == [3]
        # Its move is on the board; the person's next move is taken, then undone.
        _events(ws, lambda e: e["type"] == "state" and len(e["moves"]) == 6)
        ws.send(json.dumps({"op": "undo"}))
        state = _events(ws, lambda e: e["type"] == "state" and len(e["moves"]) == 4)[-1]
        assert state["to_move"] == "black" and state["thinking"] is None
        ws.send(json.dumps({"op": "play", "x": 7, "y": 7}))
        assert "taken" in _events(ws, lambda e: e["type"] == "error")[-1]["text"]
    assert _get(server, "/api/state")["moves"][:4] == final["moves"]


def test_renju_forbidden_point_is_marked_and_refused(server: BoardServer) -> None:
    with connect(server.url.replace("http", "ws") + "ws") as ws:
        json.loads(ws.recv(timeout=5))
        ws.send(json.dumps({"op": "new", "width": 15, "height": 15, "rule": 4,
                            "turn_ms": 1000, "black": "human", "white": "human",
                            "moves": RENJU_DOUBLE_THREE}))
        state = _events(ws, lambda e: e["type"] == "state")[-1]
        assert [8, 7] in state["forbidden"]
        ws.send(json.dumps({"op": "play", "x": 8, "y": 7}))
        error = _events(ws, lambda e: e["type"] == "error")[-1]
        assert "forbidden for black (double-three)" in error["text"]
        assert len(_get(server, "/api/state")["moves"]) == len(RENJU_DOUBLE_THREE)


def test_two_brains_play_each_other_to_the_end(server: BoardServer) -> None:
    with connect(server.url.replace("http", "ws") + "ws") as ws:
        json.loads(ws.recv(timeout=5))
        ws.send(json.dumps({"op": "new", "width": 10, "height": 10, "rule": 0,
                            "turn_ms": 100, "black": "1", "white": "1"}))
        final = _events(ws, lambda e: e["type"] == "state" and e["result"], timeout=60)[-1]
    assert final["result"]["text"].startswith(("black wins", "white wins", "draw"))


def test_saved_games_load_and_are_analysed(server: BoardServer) -> None:
    record = GameRecord(15, 15, 0, "a", "b", ((7, 7), (8, 8), (7, 8), (8, 7)),
                        GameResult.DRAW, "draw: agreed")
    for name, text in (("g.sgf", write_sgf(record)), ("g.psq", write_psq(record)),
                       ("games.jsonl", record.to_json() + "\n")):
        status, data = _post(server, "/api/load", {"name": name, "text": text})
        assert status == 200, data
        assert [m[:2] for m in data["games"][0]["moves"]] == [[7, 7], [8, 8], [7, 8], [8, 7]]
    status, data = _post(server, "/api/load", {"name": "g.txt", "text": "x"})
    assert status == 400 and ".sgf, .psq" in data["error"]
    with connect(server.url.replace("http", "ws") + "ws") as ws:
        json.loads(ws.recv(timeout=5))
        ws.send(json.dumps({"op": "analyse", "brain": 0, "moves": [[7, 7], [8, 8], [7, 8]],
                            "width": 15, "height": 15, "rule": 0, "turn_ms": 4000}))
        events = _events(ws, lambda e: e["type"] == "realtime" and e["kind"] == "MOVE")
    reports = [e["report"] for e in events if e["type"] == "analysis"]
    assert reports and reports[-1]["done"] and all(e["seat"] == "analyst" for e in events
                                                   if e["type"] == "analysis")
    assert [events[-1]["x"], events[-1]["y"]] == reports[-1]["pv"][0]
