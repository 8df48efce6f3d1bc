"""Game rules as Gomocup numbers them, and what each rule means for one colour's lines."""

from __future__ import annotations

import enum

from brain.errors import PbrainError


class UnsupportedRuleError(PbrainError, ValueError):
    """The manager asked for a rule this engine does not play."""


class LineRule(enum.IntEnum):
    """How one colour's stones in one line make a winning five.

    A rule such as renju treats the two colours differently, so every colour gets its own
    line rule (see :meth:`Rule.line_rule`).
    """

    #: Five or more in a row wins.
    FREESTYLE = 0
    #: Exactly five wins; six or more is no win.
    EXACT = 1
    #: Exactly five wins, an overline is forbidden, and only a straight four is a four
    #: that makes a three real (renju black).
    RENJU_BLACK = 2
    #: Five wins unless blocked at both ends by opponent stones; six or more always wins.
    CARO = 3
    #: Exactly five, not blocked at both ends by opponent stones, wins.
    CARO_EXACT = 4

    @property
    def exact(self) -> bool:
        """Whether an overline (six or more) fails to win."""
        return self in (LineRule.EXACT, LineRule.RENJU_BLACK, LineRule.CARO_EXACT)

    @property
    def caro(self) -> bool:
        """Whether a five blocked at both ends by opponent stones fails to win."""
        return self in (LineRule.CARO, LineRule.CARO_EXACT)


class Rule(enum.IntEnum):
    """The game rule, valued as the Gomocup ``INFO rule`` bitmask."""

    FREESTYLE = 0
    STANDARD = 1
    RENJU = 4
    CARO = 8
    CARO_STANDARD = 9

    @classmethod
    def from_gomocup(cls, value: int) -> Rule:
        """Return the rule for an ``INFO rule`` value.

        Raises :class:`UnsupportedRuleError` for values this engine does not play, such as
        2 (continuous game) or Yixin-Board's private numbers.
        """
        try:
            return cls(value)
        except ValueError:
            raise UnsupportedRuleError(
                f"rule {value} is not supported: use 0 (freestyle), 1 (exact five), "
                "4 (renju), 8 (caro) or 9 (caro with exact five)"
            ) from None

    def line_rule(self, color: int) -> LineRule:
        """The line rule for ``color`` (1 black, 2 white) under this rule."""
        if self is Rule.FREESTYLE:
            return LineRule.FREESTYLE
        if self is Rule.STANDARD:
            return LineRule.EXACT
        if self is Rule.RENJU:
            return LineRule.RENJU_BLACK if color == 1 else LineRule.FREESTYLE
        if self is Rule.CARO:
            return LineRule.CARO
        return LineRule.CARO_EXACT

    @property
    def has_forbidden_moves(self) -> bool:
        """Whether black has forbidden points (renju)."""
        return self is Rule.RENJU

    @property
    def move_limit(self) -> int | None:
        """Moves after which Gomocup declares a draw regardless of the board, if any."""
        return 200 if self is Rule.RENJU else None
