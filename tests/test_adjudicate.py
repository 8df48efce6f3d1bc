"""Self-play results decided by a judge engine's first proven win
(``python -m brain.train adjudicate``), with a real judge process: the Rapfi-like test
brain, whose alpha-beta reports mate scores as Rapfi does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brain.game.board import Board, Color
from brain.train.adjudicate import (
    AdjudicationMismatch,
    AdjudicationReport,
    Proof,
    adjudicate,
)
from brain.train.samples import LOSS, WIN, SampleBuilder, SampleStore
from driver.teacher import TeacherConfig

ROOT = Path(__file__).resolve().parents[1]
JUDGE = (sys.executable, str(ROOT / "tests" / "brains" / "rapfi_like.py"))
#: Black builds an open four on row 7 (after seven stones, a win white cannot stop)
#: while white lines up on the edge; then black looks away and white's five ends it.
THROWN = [(7, 7), (0, 0), (8, 7), (1, 0), (9, 7), (2, 0), (10, 7), (3, 0), (14, 14), (4, 0)]
#: The same start, black playing its five.
CONVERTED = [*THROWN[:8], (11, 7)]


def add_game(builder: SampleBuilder, rule: int, moves: list[tuple[int, int]],
             winner: Color) -> None:
    """A 15x15 game of ``moves`` after a two-stone opening (its first two moves), a
    sample at every later position, each with ``winner``'s result."""
    board = Board(15, 15)
    cells = [board.index(x, y) for x, y in moves]
    game = builder.add_game(15, 15, rule, [(c, 1 + n % 2) for n, c in enumerate(cells)])
    for count in range(2, len(cells)):
        to_move = 1 + count % 2
        builder.add_sample(game, count, cells[count], to_move,
                           WIN if to_move == winner else LOSS)


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    builder = SampleBuilder("selfplay")
    add_game(builder, 0, THROWN, Color.WHITE)     # game 0: freestyle, the win thrown
    add_game(builder, 0, CONVERTED, Color.BLACK)  # game 1: freestyle, the win played
    add_game(builder, 8, THROWN, Color.WHITE)     # game 2: caro, which the judge does not know
    path = tmp_path / "selfplay.npz"
    builder.store().save(path)
    return path


def results_for(store: SampleStore, game: int, winner: Color) -> bool:
    rows = store.game == game
    wanted = np.where(store.to_move[rows] == winner, WIN, LOSS)
    return bool(np.array_equal(store.result[rows], wanted))


def test_a_thrown_win_becomes_the_proven_sides_and_a_rerun_judges_nothing_again(
        samples: Path, tmp_path: Path) -> None:
    out = tmp_path / "judged"
    done = subprocess.run(
        [sys.executable, "-m", "brain.train", "adjudicate", str(samples), "--out", str(out),
         "--teacher", " ".join(JUDGE), "--teacher-ms", "100", "--workers", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "2 games judged, a win proven in 2; 1 results changed (8 samples)" in done.stdout
    proofs = {p.game: p for p in (Proof(**json.loads(line))
                                  for line in (out / "proofs.jsonl").read_text().splitlines())}
    assert set(proofs) == {0, 1}
    # Black's open four with white to move is a proven win at the latest, and nothing
    # before the first sample is searched.
    for proof in proofs.values():
        assert proof.winner == Color.BLACK and 2 <= proof.ply <= 7 and proof.length >= 1
    judged, played = SampleStore.load(out / "samples.npz"), SampleStore.load(samples)
    assert results_for(played, 0, Color.WHITE) and results_for(judged, 0, Color.BLACK)
    assert results_for(judged, 1, Color.BLACK) and results_for(judged, 2, Color.WHITE)
    assert np.array_equal(judged.move, played.move) and np.array_equal(judged.count, played.count)

    # Resumed after a kill that cut its last line short: only the games missing are judged.
    log = out / "proofs.jsonl"
    log.write_text(log.read_text().splitlines()[0] + '\n{"game": ')
    judging: list[int] = []
    config = TeacherConfig(JUDGE, move_ms=100)
    report = adjudicate(samples, out, config, progress=lambda done, total: judging.append(done))
    assert judging == [2] and report == AdjudicationReport(2, 2, 1, 8)
    assert adjudicate(samples, out, config, progress=lambda *_: judging.append(0)) == report
    assert judging == [2]
    with pytest.raises(AdjudicationMismatch, match="another --out"):
        adjudicate(samples, out, TeacherConfig(JUDGE, move_ms=200))


def test_the_rows_of_each_game_are_found_whatever_the_sample_order() -> None:
    builder = SampleBuilder("t")
    for _ in range(3):
        builder.add_game(15, 15, 0, [(0, 1)])
    for game in (2, 0, 2, 0):  # game 1 has no samples
        builder.add_sample(game, 1, 5, 2, WIN)
    rows = builder.store().rows_by_game()
    assert [list(r) for r in rows] == [[1, 3], [], [0, 2]]
