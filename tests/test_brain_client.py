"""driver.client.BrainProcess against real subprocesses: our brain and faulty test brains."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from driver.client import (
    BrainClosed,
    BrainCrashed,
    BrainProcess,
    BrainProtocolError,
    BrainRefused,
    BrainStartError,
    BrainTimeout,
    IllegalMove,
    session_pids,
)

FAULTY = Path(__file__).parent / "brains" / "faulty.py"


def faulty(fault: str = "none", **options: object) -> list[str]:
    """Command line of the faulty test brain."""
    command = [sys.executable, str(FAULTY), "--fault", fault]
    for key, value in options.items():
        command += [f"--{key}", str(value)]
    return command


def started(command: list[str], **spawn: object) -> BrainProcess:
    brain = BrainProcess.spawn(command, **spawn)  # type: ignore[arg-type]
    brain.start(15, timeout_turn_ms=1000)
    return brain


def test_our_brain_handshake_moves_and_end(tmp_path: Path) -> None:
    transcript = tmp_path / "io.log"
    command = [sys.executable, "-m", "brain", "--engine", "heuristic"]
    with BrainProcess.spawn(command, transcript=transcript) as brain:
        about = brain.about(timeout=10)
        assert about.name and brain.name == about.name
        assert brain.start(15, rule=0, timeout_turn_ms=500, timeout_match_ms=0) < 5
        first = brain.play([], time_left_ms=10_000, timeout=10)
        assert first.command == "BEGIN" and first.point == (7, 7)
        second = brain.play([first.point, (8, 8)], timeout=5)
        assert second.command == "TURN"
        third = brain.play([(0, 0), (1, 1), (2, 2)], timeout=5)  # not what it knew
        assert third.command == "BOARD" and third.point not in {(0, 0), (1, 1), (2, 2)}
        assert brain.restart() < 5
        assert brain.play([(7, 7)], timeout=5).command == "BOARD"
        exited_in = brain.close()
    assert exited_in is not None and exited_in < 0.5
    text = transcript.read_text()
    assert "> START 15" in text and "> INFO timeout_turn 500" in text and "> INFO rule 0" in text
    assert "> INFO time_left 10000" in text and "< 7,7" in text


def test_messages_at_start_up_are_skipped_and_kept() -> None:
    with BrainProcess.spawn(faulty("chatty")) as brain:
        assert brain.about().name == "faulty"
        brain.start(15)
        result = brain.play([], timeout=5)
        assert "MESSAGE hello from a chatty brain" in result.messages
        assert "MESSAGE thinking about move 1" in result.messages


def test_about_timeout_does_not_hang_or_kill() -> None:
    with BrainProcess.spawn(faulty("no-about"), name="silent") as brain:
        started_at = time.monotonic()
        with pytest.raises(BrainTimeout, match="ABOUT"):
            brain.about(timeout=0.3)
        assert time.monotonic() - started_at < 1.0
        assert brain.alive
        brain.start(15)
        assert brain.play([], timeout=5).point == (7, 7)


def test_slow_start_within_and_beyond_the_timeout() -> None:
    with BrainProcess.spawn(faulty("slow-start", delay=0.3)) as brain:
        assert 0.3 <= brain.start(15, timeout=5) < 3
    with BrainProcess.spawn(faulty("slow-start", delay=5)) as brain:
        with pytest.raises(BrainTimeout, match="START"):
            brain.start(15, timeout=0.3)
        assert not brain.alive
        with pytest.raises(BrainClosed):
            brain.start(15)


def test_start_error_is_a_refusal() -> None:
    with BrainProcess.spawn(faulty("start-error")) as brain:
        with pytest.raises(BrainRefused, match="refuses to start") as info:
            brain.start(15)
        assert info.value.kind == "ERROR"


def test_crash_reports_the_exit_code() -> None:
    with started(faulty("crash", at=2)) as brain:
        brain.play([], timeout=5)
        with pytest.raises(BrainCrashed) as info:
            brain.play([(7, 7), (8, 8)], timeout=5)
        assert info.value.exit_code == 3
        assert "exited with code 3" in str(info.value)


def test_hang_times_out_kills_and_closes() -> None:
    with started(faulty("hang", at=1)) as brain:
        started_at = time.monotonic()
        with pytest.raises(BrainTimeout) as info:
            brain.play([], timeout=0.4)
        assert 0.4 <= time.monotonic() - started_at < 1.5
        assert info.value.limit_s == 0.4
        assert not brain.alive
        with pytest.raises(BrainClosed):
            brain.play([], timeout=1)


def test_late_reply_is_never_read_as_the_next_answer() -> None:
    with started(faulty("late", at=1, delay=0.8)) as brain:
        with pytest.raises(BrainTimeout):
            brain.play([], timeout=0.3)
        time.sleep(0.6)  # the late move would have arrived by now
        with pytest.raises(BrainClosed):
            brain.play([(1, 1)], timeout=1)


def test_extra_lines_are_stale_not_answers() -> None:
    with started(faulty("extra")) as brain:
        first = brain.play([], timeout=5)
        time.sleep(0.1)  # let the duplicate arrive before the next request
        second = brain.play([first.point, (0, 0)], timeout=5)
        assert second.point != first.point
        assert brain.stale_lines == [f"{first.point.x},{first.point.y}"]


@pytest.mark.parametrize(
    ("fault", "error", "match"),
    [
        ("junk", BrainProtocolError, "expected a move"),
        ("error", BrainRefused, "cannot think today"),
        ("offboard", IllegalMove, "off the 15x15 board"),
        ("illegal", IllegalMove, "occupied"),
    ],
)
def test_bad_replies_raise_typed_errors(fault: str, error: type[Exception], match: str) -> None:
    with started(faulty(fault, at=2)) as brain:
        first = brain.play([], timeout=5)
        with pytest.raises(error, match=match):
            brain.play([first.point, (0, 0)], timeout=5)


def test_skipping_non_moves_reads_past_error_and_junk_lines_as_c_gomoku_cli() -> None:
    """Piskvork's reading loses on the first line that is not a move; with
    ``skip_non_moves`` the move after them counts and the lines come back with it, while
    a brain that never moves still times out."""
    with started(faulty("quirky", at=2)) as brain:
        first = brain.play([], timeout=5)
        with pytest.raises(BrainRefused, match="TIME_LEFT"):
            brain.play([first.point, (0, 0)], timeout=5)
    with started(faulty("quirky", at=2)) as brain:
        brain.skip_non_moves = True
        first = brain.play([], timeout=5)
        assert first.skipped == ()
        second = brain.play([first.point, (0, 0)], timeout=5)
        assert second.point not in (first.point, (0, 0))
        assert second.skipped == ("ERROR Unknown command: TIME_LEFT",
                                  "-\x16 ev +v11 nd 255 tm 2 sp 127")
    with started(faulty("junk", at=1)) as brain:
        brain.skip_non_moves = True
        with pytest.raises(BrainTimeout):
            brain.play([], timeout=0.5)


def test_stderr_flood_is_drained_and_capped(tmp_path: Path) -> None:
    log = tmp_path / "stderr.log"
    with started(faulty("stderr", mb=6), stderr_path=log, stderr_limit=100_000) as brain:
        result = brain.play([], timeout=10)
        assert result.point == (7, 7)
        brain.close()
        assert brain.stderr_bytes >= 6 << 20
    assert 100_000 <= log.stat().st_size < 101_000


@pytest.mark.parametrize("fault", ["log", "log-after"])
def test_a_log_line_on_stderr_is_harmless_apart_and_a_bad_reply_merged(fault: str) -> None:
    """With stderr apart (GomocupJudge, c-gomoku-cli) a log line is drained and the game
    goes on; merged into stdout (Piskvork) it is read as the reply and loses, whether it
    comes before the move or after it, outside any request."""
    with started(faulty(fault, at=2)) as brain:
        first = brain.play([], timeout=5)
        second = brain.play([first.point, (0, 0)], timeout=5)
        brain.play([first.point, (0, 0), second.point, (0, 1)], timeout=5)
        assert brain.stderr_bytes > 0
    with started(faulty(fault, at=2), merge_stderr=True) as brain:
        assert brain.merged_stderr
        first = brain.play([], timeout=5)
        with pytest.raises(BrainProtocolError, match="WARNING" if fault == "log" else "INFO"):
            second = brain.play([first.point, (0, 0)], timeout=5)
            brain.play([first.point, (0, 0), second.point, (0, 1)], timeout=5)


def test_close_kills_the_whole_process_tree() -> None:
    brain = started(faulty("child"))
    deadline = time.monotonic() + 5
    while len(session_pids(brain.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(session_pids(brain.pid)) == 2
    brain.close()
    assert session_pids(brain.pid) == []


def test_memory_usage_of_the_tree() -> None:
    with started(faulty("memory", mb=64)) as brain:
        before = brain.memory_usage()
        brain.play([], timeout=10)
        assert brain.memory_usage() - before >= 60 << 20


def test_missing_program_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(BrainStartError, match="does not exist"):
        BrainProcess.spawn([str(tmp_path / "pbrain-nothing")])
    script = tmp_path / "pbrain-noexec"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(BrainStartError, match="permission denied"):
        BrainProcess.spawn([str(script)])


def _state(pid: int, wanted: str) -> str:
    """The process state letter from /proc (``T``: stopped), polled for up to a second
    until it is ``wanted`` (signals are delivered asynchronously)."""
    deadline = time.monotonic() + 1.0
    while True:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == wanted or time.monotonic() > deadline:
            return state
        time.sleep(0.01)


def test_suspended_brain_is_frozen_and_answers_once_resumed() -> None:
    command = [sys.executable, "-m", "brain", "--engine", "heuristic"]
    with BrainProcess.spawn(command) as brain:
        brain.start(15, rule=0, timeout_turn_ms=1000)
        first = brain.play([], timeout=10)
        brain.suspend()
        pid = brain._process.pid
        assert _state(pid, "T") == "T"
        # The request is written to the frozen brain, which is resumed right after.
        second = brain.play([first.point, (8, 8)], timeout=5)
        assert second.command == "TURN" and second.point not in {first.point, (8, 8)}
        assert _state(pid, "S") != "T"
        brain.suspend()
        exited_in = brain.close()
    assert exited_in is not None and exited_in < 0.5
