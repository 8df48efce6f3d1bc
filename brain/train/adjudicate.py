"""``python -m brain.train adjudicate``: self-play results decided by a stronger judge.

Self-play games are mostly decided early, by a move that gives away a win twenty plies
deep which neither player sees; the side given the win then loses it in about one game in
seven (docs/network.md, sessions 25 and 29), and every position of such a game carries
the wrong result into the value target. Here a judge engine (Rapfi, built outside the
project) searches each game's positions in order from its first sample until it proves a
win (a mate score); the game's result becomes that win for all its samples. Games the
judge proves nothing in, and games under rules it does not know, keep their results.

**Resuming.** Each judged game is one line of ``OUT/proofs.jsonl``, written as it ends;
``OUT/adjudicate.json`` keeps the settings and the sample file's size, and a re-run with
the same ``--out`` judges only the games not yet there. ``OUT/samples.npz`` is written
when every game is judged. Samples, search values and visit targets are kept; only
``result`` changes.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from brain.errors import PbrainError
from brain.game.board import Board, Color
from brain.train.samples import LOSS, WIN, SampleStore
from driver.teacher import Teacher, TeacherConfig
from protocol.syntax import Point

#: Gomocup rules Rapfi plays: freestyle, standard (exact five) and renju; not caro.
JUDGED_RULES = (0, 1, 4)


class AdjudicationMismatch(PbrainError, ValueError):
    """An adjudication folder holds another file's or another judge's verdicts."""


@dataclass(frozen=True)
class Proof:
    """The judge's first proven win in game ``game``: after ``ply`` stones, ``winner``
    (1 black, 2 white) wins in ``length`` plies. ``ply`` -1: no proof (``winner`` 0)."""

    game: int
    ply: int
    length: int
    winner: int


@dataclass(frozen=True)
class AdjudicationReport:
    """What adjudication did: games judged, proofs found, games whose result it changed
    (the proven side had lost or drawn) and samples whose result changed."""

    games: int
    proofs: int
    changed_games: int
    changed_samples: int


def game_cells(store: SampleStore, game: int) -> list[int]:
    """The cells of ``game``'s stones in play order (black first)."""
    return [int(c) for c in store.stones[store.start[game]:store.start[game + 1]]]


def first_proof(store: SampleStore, game: int, rows: np.ndarray, teacher: Teacher) -> Proof:
    """The teacher's first proven win in ``game``, whose samples are ``rows``
    (:meth:`SampleStore.rows_by_game`), searching its positions in order from the first
    one sampled (no proof, or no samples: ``Proof(game, -1, 0, 0)``)."""
    cells = game_cells(store, game)
    width, height, rule = int(store.width[game]), int(store.height[game]), int(store.rule[game])
    board = Board(width, height)
    points = [Point(*board.xy(c)) for c in cells]
    first = int(store.count[rows].min()) if len(rows) else len(cells)
    for ply in range(first, len(cells)):
        judgement = teacher.ask(points[:ply], width, height, rule).judgement
        if judgement.mate is not None:
            mover = Color.BLACK if ply % 2 == 0 else Color.WHITE
            wins = judgement.mate > 0 or (judgement.mate == 0 and (judgement.winrate or 0) > 0.5)
            return Proof(game, ply, abs(judgement.mate),
                         int(mover if wins else mover.opponent))
    return Proof(game, -1, 0, 0)


def apply_proofs(store: SampleStore, proofs: Sequence[Proof],
                 rows_of: Sequence[np.ndarray]) -> tuple[SampleStore, AdjudicationReport]:
    """``store`` with the result of every sample of a proven game set to its proof's
    winner, and what changed (``rows_of``: :meth:`SampleStore.rows_by_game`)."""
    result = store.result.copy()
    changed_games = 0
    for proof in proofs:
        if proof.ply < 0:
            continue
        rows = rows_of[proof.game]
        wanted = np.where(store.to_move[rows] == proof.winner, WIN, LOSS).astype(result.dtype)
        if np.any(result[rows] != wanted):
            changed_games += 1
        result[rows] = wanted
    changed = int(np.count_nonzero(result != store.result))
    report = AdjudicationReport(len(proofs), sum(p.ply >= 0 for p in proofs), changed_games,
                                changed)
    return replace(store, result=result), report


def _read_proofs(path: Path) -> dict[int, Proof]:
    """The proofs of ``path`` by game (a last line cut short by a kill is ignored)."""
    proofs: dict[int, Proof] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                proof = Proof(**json.loads(line))
            except (ValueError, TypeError):
                continue
            proofs[proof.game] = proof
    return proofs


def adjudicate(samples: Path, out: Path, teacher: TeacherConfig, workers: int = 1,
               rules: Sequence[int] = JUDGED_RULES,
               progress: Callable[[int, int], None] | None = None) -> AdjudicationReport:
    """Judge the games of the sample file ``samples`` into the folder ``out`` (resuming
    what it holds) with ``workers`` teacher processes; write ``out/samples.npz``.

    :raises AdjudicationMismatch: ``out`` was started on another file or judge.
    """
    store = SampleStore.load(samples)
    settings = {"samples": str(samples), "bytes": samples.stat().st_size,
                "teacher": list(teacher.command), "move_ms": teacher.move_ms,
                "rules": sorted(rules)}
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "adjudicate.json"
    if saved.exists() and json.loads(saved.read_text()) != settings:
        raise AdjudicationMismatch(f"{out} holds verdicts of {saved.read_text().strip()}, "
                                   f"not of {json.dumps(settings)}: use another --out")
    saved.write_text(json.dumps(settings, indent=1) + "\n")
    log = out / "proofs.jsonl"
    proofs = _read_proofs(log)
    # Written again whole, so that a line a kill cut short is not continued.
    log.write_text("".join(json.dumps(asdict(p)) + "\n" for p in proofs.values()))
    games = [g for g in range(len(store.start) - 1)
             if int(store.rule[g]) in rules and g not in proofs]
    # Games of one board and rule in a row: the judge restarts its game less often.
    games.sort(key=lambda g: (int(store.width[g]), int(store.height[g]), int(store.rule[g])))
    rows_of = store.rows_by_game()
    todo: queue.Queue[int] = queue.Queue()
    for game in games:
        todo.put(game)
    lock = threading.Lock()
    failures: list[Exception] = []
    total = len(proofs) + len(games)

    def judge() -> None:
        with Teacher(teacher) as engine, log.open("a") as file:
            while not failures:
                try:
                    game = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    proof = first_proof(store, game, rows_of[game], engine)
                except Exception as exc:  # raised again in the calling thread
                    failures.append(exc)
                    return
                with lock:
                    file.write(json.dumps(asdict(proof)) + "\n")
                    file.flush()
                    proofs[game] = proof
                    if progress is not None:
                        progress(len(proofs), total)

    threads = [threading.Thread(target=judge, daemon=True) for _ in range(max(1, workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    judged, report = apply_proofs(store, sorted(proofs.values(), key=lambda p: p.game),
                                  rows_of)
    judged.save(out / "samples.npz")
    return report
