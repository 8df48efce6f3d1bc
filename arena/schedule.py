"""The tournament schedule: a deterministic list of game pairs.

A *pair* is one opening played twice by two brains with the colours swapped; it is the
unit of scheduling, of resuming and of pentanomial statistics. Pair ``k`` holds games
``2k`` (``first`` plays black) and ``2k + 1`` (``second`` plays black).

Order: for each pair number ``p`` of a pairing, every pairing gets its ``p``-th pair
before any gets its ``p+1``-th, so the standings stay balanced whenever the run stops.
Pairing ``p`` uses opening ``order[p % n]``; with ``symmetry`` the ``q``-th pass through
the opening list uses the board symmetry ``q % 8`` (c-gomoku-cli's ``-transform``), so
up to ``8 n`` distinct positions are played. ``order`` is the file order, or a shuffle
seeded by ``seed`` (``random_order``).

Because the list depends only on these parameters, re-running the same configuration
gives the same pairs with the same numbers, which is what resuming relies on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from brain.game.symmetry import Symmetry

__all__ = ["PairJob", "build_schedule", "pairings"]


@dataclass(frozen=True)
class PairJob:
    """Two games: ``first`` is black in game ``2 * index``, ``second`` in the next one.

    ``first``/``second`` index the tournament's brain list; ``opening`` its opening list.
    """

    index: int
    first: int
    second: int
    opening: int
    symmetry: Symmetry

    def game_ids(self) -> tuple[int, int]:
        """Ids of the pair's two games."""
        return (2 * self.index, 2 * self.index + 1)

    def colours(self, half: int) -> tuple[int, int]:
        """``(black, white)`` brain indices of game ``half`` (0 or 1) of the pair."""
        return (self.first, self.second) if half == 0 else (self.second, self.first)


def pairings(brains: int, gauntlet: int = 0) -> list[tuple[int, int]]:
    """Who meets whom: every pair of brains (round robin), or with ``gauntlet = g > 0``
    each of the first ``g`` brains against every later brain.

    :raises ValueError: fewer than two brains, or no later brain for the gauntlet.
    """
    if brains < 2:
        raise ValueError(f"a tournament needs at least two brains, got {brains}")
    if gauntlet < 0 or gauntlet >= brains:
        raise ValueError(
            f"gauntlet seeds must be between 1 and {brains - 1} (the number of brains - 1), "
            f"got {gauntlet}"
        )
    seeds = gauntlet or brains
    return [(i, j) for i in range(seeds) for j in range(i + 1, brains)]


def build_schedule(
    brains: int,
    openings: int,
    pairs_per_pairing: int,
    *,
    gauntlet: int = 0,
    symmetry: bool = False,
    board: tuple[int, int] = (15, 15),
    random_order: bool = False,
    seed: int = 0,
) -> list[PairJob]:
    """All pairs of the tournament in playing order (see the module docstring).

    :param board: ``(width, height)``: a square board has 8 symmetries, others 4.
    :raises ValueError: no openings, or ``pairs_per_pairing < 1``.
    """
    if openings < 1:
        raise ValueError("the tournament needs at least one opening")
    if pairs_per_pairing < 1:
        raise ValueError(f"pairs per pairing must be at least 1, got {pairs_per_pairing}")
    symmetries = Symmetry.for_board(*board)
    rng = random.Random(seed)
    order: list[int] = []
    jobs: list[PairJob] = []
    matches = pairings(brains, gauntlet)
    for p in range(pairs_per_pairing):
        if p % openings == 0:
            order = list(range(openings))
            if random_order:
                rng.shuffle(order)
        sym = symmetries[(p // openings) % len(symmetries)] if symmetry else Symmetry.IDENTITY
        for first, second in matches:
            jobs.append(PairJob(len(jobs), first, second, order[p % openings], sym))
    return jobs
