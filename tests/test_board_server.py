"""The web board's server and the brain-to-page event stream, with real brain processes.

The search reports are asked for over the protocol (``INFO show_detail`` of every brain,
``INFO show_analysis`` of brains whose ABOUT lists it) and read from ``MESSAGE`` lines;
the board's WebSocket passes them on while the brain thinks. ``tests/brains/rapfi_like.py``
talks as Rapfi does (word by word: an unknown INFO key's value is answered ``ERROR
Unknown command``; Rapfi's search lines and Yixin-Board's ``REALTIME`` lines).
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from arena.board.app import board_server
from arena.board.reports import SearchWatch
from arena.board.server import BoardServer
from arena.brainspec import BrainSpec, builtin_brain, parse_brain
from brain.game.records import GameRecord, GameResult, write_psq, write_sgf
from driver.client import BrainProcess, BrainRefused
from protocol.analysis import (
    AnalysisReport,
    Candidate,
    about_extensions,
    format_analysis,
    parse_analysis,
    parse_realtime,
)
from protocol.replies import parse_reply
from protocol.syntax import Point

RAPFI_LIKE = Path(__file__).resolve().parent / "brains" / "rapfi_like.py"


def rapfi_like(*info: tuple[str, str]) -> BrainSpec:
    """The Rapfi-like test brain, with extra INFO keys for it (as a run's --info gives)."""
    return parse_brain(f"{sys.executable} {RAPFI_LIKE}", name="rapfi-like", info=info)

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


def test_a_brain_lists_the_extensions_it_reads_in_about() -> None:
    for spec, listed in ((builtin_brain(), {"show_detail", "show_analysis"}),
                         (builtin_brain("heuristic"), set()), (rapfi_like(), set())):
        with BrainProcess.spawn(spec.argv(), cwd=spec.cwd) as brain:
            assert about_extensions(brain.about(timeout=15.0).fields) == listed
    assert builtin_brain("linenet").name == "pbrain-zero"  # the default engine, named


def test_an_error_answer_to_an_unknown_info_is_not_a_refusal() -> None:
    """Rapfi reads ``250`` of ``INFO show_analysis 250`` as a command and answers
    ``ERROR Unknown command: 250``: the next move is still read, the line is kept; a real
    refusal of a move is still one."""
    spec = rapfi_like()
    with BrainProcess.spawn(spec.argv(), cwd=spec.cwd) as brain:
        brain.start(15, timeout_turn_ms=400, info={"show_detail": "1", "show_analysis": "250"})
        reply = brain.play([(7, 7)], timeout=5.0)  # at once: the ERROR comes after BOARD
        assert brain.refused_infos == ["ERROR Unknown command: 250"]
        assert not brain.stale_lines
        texts = [parse_reply(m).text for m in reply.messages]  # type: ignore[union-attr]
        assert "Unknown Info Parameter: SHOW_ANALYSIS" in texts
        assert any(t.startswith("Depth ") for t in texts), texts
        with pytest.raises(BrainRefused, match="ERROR"):
            brain.turn([(7, 7), reply.point, reply.point], timeout=5.0)  # an occupied square


def test_rapfi_lines_make_a_report() -> None:
    watch = SearchWatch(15, 15)
    for line in ("MESSAGE OptiTime 450ms | MaxTime 1000ms", "MESSAGE REALTIME REFRESH",
                 "MESSAGE REALTIME BEST 8,7", "MESSAGE Depth 3-9 | Eval 200 | Time 31ms | I8 H9 G7",
                 "MESSAGE REALTIME POS 6,6", "MESSAGE REALTIME LOST 0,0",
                 "MESSAGE Depth 3-9 | Eval 200 | Time 38ms | I8",  # the PV's start only
                 "MESSAGE Speed 964K | Depth 3-9 | Eval 200 | Node 30K | Time 40ms",
                 "DEBUG depth 8, nodes 1234", "ERROR Unknown command: 250", "8,7"):
        watch.hear(line)
    report = watch.report(done=True)
    assert report is not None and report["source"] == "engine" and report["done"]
    assert report["depth"] == 3 and report["eval"] == "200"
    assert abs(report["winrate"] - 1 / (1 + 2.718281828 ** -1)) < 1e-3  # Rapfi's scale: 200
    assert report["pv"] == [[8, 7], [7, 8], [6, 6]] and report["best"] == [8, 7]
    assert report["lost"] == [[0, 0]] and report["line"].startswith("Speed 964K")
    heard = [SearchWatch(15, 15).hear(line)[0].value for line in (
        "MESSAGE OptiTime 450ms", "DEBUG depth 8", "ERROR Unknown command: 250", "7,7")]
    assert heard == ["message", "message", "nothing", "nothing"]
    silent = SearchWatch(15, 15)
    assert silent.report() is None  # a brain that said nothing
    silent.hear("MESSAGE dep - ev -130 nd 626k tm 883 sp 708")  # PentaZen's own words
    assert silent.report() is None and silent.said == "dep - ev -130 nd 626k tm 883 sp 708"


def _think(info: dict[str, str]) -> tuple[str, ...]:
    spec = builtin_brain("linenet")
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
    board = board_server([builtin_brain("linenet"), builtin_brain("heuristic")], port=0)
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
    assert final["result"]["ending"] in ("five", "board full")


def test_every_engine_plays_a_rapfi_like_brain_against_pbrain_zero() -> None:
    """A Rapfi-like brain given an INFO key it does not know (as a run's --info would)
    plays a whole game against pbrain-zero: its ERROR answer is shown, not a forfeit;
    pbrain-zero, which lists show_analysis in its ABOUT, gets it and reports visits, the
    Rapfi-like brain reports its depth and evaluation."""
    board = board_server([rapfi_like(("hash_size", "64")), builtin_brain()], port=0)
    board.start()
    try:
        with connect(board.url.replace("http", "ws") + "ws") as ws:
            json.loads(ws.recv(timeout=5))
            ws.send(json.dumps({"op": "new", "width": 10, "height": 10, "rule": 0,
                                "turn_ms": 400, "black": "0", "white": "1"}))
            events = _events(ws, lambda e: e["type"] == "state" and e["result"], timeout=240)
    finally:
        board.stop()
    final = events[-1]
    assert final["result"]["ending"] in ("five", "board full"), final["result"]
    reports = {seat: [e["report"] for e in events if e["type"] == "analysis"
                      and e["seat"] == seat and e["report"]] for seat in ("black", "white")}
    assert {r["source"] for r in reports["black"]} == {"engine"}
    assert {r["source"] for r in reports["white"]} == {"analysis"}
    assert any(r["depth"] and r["eval"] is not None and r["pv"] for r in reports["black"])
    messages = [e["text"] for e in events if e["type"] == "message"]
    assert any("ERROR Unknown command: 64 (its answer to an INFO key it does not know; "
               "ignored)" in m for m in messages), messages
    assert not [e for e in events if e["type"] == "error"]
    # Both brains' evaluations go into black's winrate graph.
    plies = [ply for ply, _ in final["winrates"]]
    assert any(p % 2 == 0 for p in plies) and any(p % 2 == 1 for p in plies)
    assert final["search"]["reported"] and final["search"]["move"] == final["moves"][-1]


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
