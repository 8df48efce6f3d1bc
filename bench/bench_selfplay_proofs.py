"""How early are our self-play games decided, and do their players convert the wins?

For a sample of the 15x15 freestyle games of kept self-play files
(``weights/training/linenet-selfplay-*.npz``), a strong engine (Rapfi, built outside the
project from shared/docs/sparring-engines.md) judges each position from the game's first
sample on, until its search proves a win for one side (a mate score;
:func:`brain.train.adjudicate.first_proof`). Printed: at which ply that first proof comes
(and how many plies after the opening: the first ten are the ones self-play samples at a
temperature) and how long the proven win is, how much of each game is played after it,
and whether the side it proved the win for went on to win the game: where it did not, the
game's result (the value's target) says the opposite of what the position is. With
``--own-seconds S`` our own search (the shipped line network, the brain's search, S
seconds) judges each first-proof position too: does a search of ours, deeper than the
players', see the win that decided the game?

Run: ``.venv/bin/python bench/bench_selfplay_proofs.py weights/training/linenet-selfplay-lrl15b.npz
--teacher /work/peers/bin/rapfi/pbrain-rapfi [--games 60] [--teacher-ms 100] [--seed 25]
[--own-seconds 1]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from brain.eval.linenet import LineNet
from brain.game.board import Board, Color
from brain.game.rules import Rule
from brain.resources import weights_dir
from brain.search.linesearch import LineSearch
from brain.train.adjudicate import Proof, first_proof, game_cells
from brain.train.samples import LOSS, WIN, SampleStore
from driver.teacher import Teacher, TeacherConfig

#: The plies after the opening whose moves self-play samples from the visits
#: (:attr:`brain.train.lineplay.LinePlayConfig.sample_plies`).
SAMPLED_PLIES = 10


@dataclass
class JudgedGame:
    """A game's first proven win (:func:`brain.train.adjudicate.first_proof`) with what
    the summary needs: ``opening`` stones before its first sample, ``result`` who won
    the game (None: a draw or no result), ``plies`` its stones at the end and ``cells``
    the stones of the proof's position."""

    proof: Proof
    opening: int
    result: Color | None
    plies: int
    cells: list[int]

    @property
    def ply(self) -> int:
        return self.proof.ply

    @property
    def winner(self) -> Color:
        return Color(self.proof.winner)


def game_winner(store: SampleStore, row: int) -> Color | None:
    """Who won the game of sample ``row`` (None for a draw or no result)."""
    mover, result = Color(int(store.to_move[row])), int(store.result[row])
    if result == WIN:
        return mover
    if result == LOSS:
        return mover.opponent
    return None


def judge_game(store: SampleStore, game: int, rows: np.ndarray,
               teacher: Teacher) -> JudgedGame | None:
    """The teacher's first proven win in ``game`` (samples ``rows``) after its opening,
    None if none."""
    proof = first_proof(store, game, rows, teacher)
    if proof.ply < 0:
        return None
    cells = game_cells(store, game)
    return JudgedGame(proof, int(store.count[rows].min()), game_winner(store, int(rows[0])),
                      len(cells), cells[:proof.ply])


def own_winrate(proof: JudgedGame, search: LineSearch, seconds: float) -> float:
    """Our search's winrate for the proven side at the proof's position (15x15 freestyle)."""
    board = Board(15, 15, Rule.FREESTYLE)
    for cell in proof.cells:
        board.play(cell)
    search.reset()
    search.search(board, time.monotonic() + seconds, use_all=True)
    rate = search.info.winrate
    return rate if board.to_move == proof.winner else 1 - rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="self-play sample files")
    parser.add_argument("--teacher", required=True, help="the judging engine's command")
    parser.add_argument("--teacher-ms", type=int, default=100)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--own-seconds", type=float, default=0.0,
                        help="judge the first-proof positions with our search too (0: not)")
    args = parser.parse_args()
    store = SampleStore.concatenate([SampleStore.load(path) for path in args.files])
    games = [g for g in range(len(store.start) - 1) if store.width[g] == 15
             and store.height[g] == 15 and store.rule[g] == Rule.FREESTYLE]
    rng = np.random.default_rng(args.seed)
    chosen = sorted(rng.choice(games, size=min(args.games, len(games)), replace=False))
    proofs: list[JudgedGame] = []
    lengths: list[int] = []
    sampled_plies = 0
    rows_of = store.rows_by_game()
    with Teacher(TeacherConfig((args.teacher,), move_ms=args.teacher_ms)) as teacher:
        for game in chosen:
            lengths.append(int(store.start[game + 1] - store.start[game]))
            sampled_plies += lengths[-1] - int(store.count[rows_of[game]].min())
            if (proof := judge_game(store, int(game), rows_of[game], teacher)) is not None:
                proofs.append(proof)
    print(f"{len(chosen)} games of 15x15 freestyle ({len(games)} in the files), "
          f"{args.teacher_ms} ms a position; a win proven before the end in {len(proofs)}")
    if not proofs:
        return
    won = sum(p.result == p.winner for p in proofs)
    drawn = sum(p.result is None for p in proofs)
    print(f"the side proven to win won {won}, drew {drawn}, lost {len(proofs) - won - drawn}")
    print(f"first proof after {statistics.median(p.ply for p in proofs):g} stones (median; "
          f"range {min(p.ply for p in proofs)} - {max(p.ply for p in proofs)}), a win in "
          f"{statistics.median(p.proof.length for p in proofs):g} plies; games "
          f"{statistics.median(lengths):g} plies long")
    sampled = sum(p.ply - p.opening <= SAMPLED_PLIES for p in proofs)
    print(f"first proof within the {SAMPLED_PLIES} plies after the opening whose moves are "
          f"sampled: {sampled} of {len(proofs)}")
    after = sum(p.plies - p.ply for p in proofs)
    print(f"positions after the first proof: {after} of {sampled_plies} past the opening")
    if args.own_seconds > 0:
        search = LineSearch(LineNet.from_file(weights_dir() / "linenet.npz"))
        rates = [own_winrate(p, search, args.own_seconds) for p in proofs]
        print(f"our search ({args.own_seconds:g} s) at the first proofs, the proven side's "
              f"winrate: median {statistics.median(rates):.2f}; >= 0.7 in "
              f"{sum(r >= 0.7 for r in rates)}, >= 0.5 in {sum(r >= 0.5 for r in rates)} "
              f"of {len(rates)}")
        thrown = [r for p, r in zip(proofs, rates, strict=True) if p.result != p.winner]
        if thrown:
            print(f"  in the {len(thrown)} games the proven side did not win: >= 0.7 in "
                  f"{sum(r >= 0.7 for r in thrown)}, >= 0.5 in {sum(r >= 0.5 for r in thrown)}")


if __name__ == "__main__":
    main()
