"""Balanced openings: random openings that a judge brain rates near even.

Random openings (:func:`brain.game.openings.random_opening_stream`) are mostly lopsided:
on 15x15 freestyle the side with the extra stone wins nearly every game whoever plays
it, so a match on them measures little but the colours. Here each one is put to a judge
(any Gomocup brain that reports an evaluation: Rapfi and Yixin-style ``MESSAGE`` lines,
or ``ANALYSIS`` reports such as pbrain-zero's) and kept when the judge's winrate for the
side to move lies within ``balance`` of 0.5 and no win is proven. The kept ones, played
with both colours, make a match whose every game can go either way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from arena.errors import ArenaError
from brain.game.openings import Opening, random_opening_stream
from driver.teacher import Teacher
from protocol.syntax import Point


class BalanceError(ArenaError, RuntimeError):
    """The judge cannot rate openings, or too few near-even ones were found."""


@dataclass(frozen=True)
class JudgedOpening:
    """An opening the judge rates near even, with the judge's winrate for the side to
    move and how many openings had been judged when it was kept."""

    opening: Opening
    winrate: float
    judged: int

    @property
    def to_move(self) -> str:
        return "black" if self.opening.black_to_move else "white"

    def line(self) -> str:
        """Its line in an opening file: Gomocup offsets and the judge's rating as a
        comment."""
        return f"{self.opening.to_offsets()}  # {self.to_move} to move: {self.winrate:.3f}"


def balanced_openings(judge: Teacher, width: int, height: int, rule: int, *,
                      balance: float, stones: int = 3, radius: int = 3,
                      seed: int | None = None, max_judged: int
                      ) -> Iterator[JudgedOpening]:
    """The random openings (distinct under the board's symmetries, in the order of
    ``seed``) that ``judge`` rates within ``balance`` of even, as they are found.

    :raises ValueError: ``balance`` outside [0, 0.5), or openings that cannot be drawn.
    :raises BalanceError: the judge gave no evaluation for the first openings (it does
        not report one), or ``max_judged`` openings were judged (the message says how
        many were kept); a :class:`driver.teacher.TeacherError` if it fails.
    """
    if not 0 <= balance < 0.5:
        raise ValueError(f"balance {balance:g}: give a winrate distance from even, "
                         "0 <= balance < 0.5 (0.15 keeps 0.35-0.65)")
    stream = random_opening_stream(width, height, stones=stones, radius=radius, seed=seed)
    kept = rated = 0
    for judged, opening in enumerate(stream, 1):
        if judged > max_judged:
            raise BalanceError(
                f"{kept} near-even openings in {max_judged} judged (the limit); allow a "
                "wider balance, more stones or a larger radius, or judge more")
        judgement = judge.ask(tuple(Point(x, y) for x, y in opening.moves), width, height,
                              rule).judgement
        rated += judgement.winrate is not None
        if judged == 5 and not rated:
            raise BalanceError(
                f"the judge {' '.join(judge.config.command)!r} reported no evaluation for "
                "5 openings: it needs a brain that writes its winrate or score in MESSAGE "
                "lines (Rapfi, Yixin) or ANALYSIS reports (pbrain-zero with --info "
                "show_analysis=3600000)")
        if judgement.near_even(balance):
            kept += 1
            assert judgement.winrate is not None
            yield JudgedOpening(opening, judgement.winrate, judged)
