"""Why a picture could not be read. Every message says what was wrong with the picture
and what to do about it; no position is ever guessed instead."""

from __future__ import annotations

from arena.errors import ArenaError

__all__ = ["BoardCutOff", "ImpossiblePosition", "NoBoardFound", "PhotoError", "PoorImage",
           "UncertainStones", "UnreadableImage"]


class PhotoError(ArenaError, ValueError):
    """The root of the recognition's errors: the picture does not give a position.

    It derives from :class:`arena.errors.ArenaError`, the root of everything the arena
    raises, and keeps :class:`ValueError` for callers that catch that."""


class UnreadableImage(PhotoError):
    """The file is not an image OpenCV can decode (or is empty)."""


class PoorImage(PhotoError):
    """Too dark, too bright, too flat or too blurred to see the grid or the stones."""


class NoBoardFound(PhotoError):
    """No grid of at least 5 by 5 evenly spaced lines in the picture.

    :ivar stage: how far the search got (0: no lines at all, 1: lines but no grid of
        them, 2: a grid that is not a board's); of two searches (dark lines, light lines)
        the one that got further explains the failure better.
    """

    def __init__(self, reason: str, stage: int = 1) -> None:
        super().__init__(reason)
        self.stage = stage


class BoardCutOff(PhotoError):
    """The grid runs off the picture: part of the board is not in it."""

    @classmethod
    def on(cls, side: str) -> BoardCutOff:
        """The board running off the picture on ``side`` (left, right, top or bottom)."""
        return cls(f"the board runs off the picture on the {side}: take it again with the "
                   "whole board and a margin around it in the frame")


class UncertainStones(PhotoError):
    """The grid was found but some points could not be told apart (empty, black or
    white) with enough confidence."""


class ImpossiblePosition(PhotoError):
    """The stones read cannot come from a game (the colour that moved first has as many
    stones as the other or one more)."""
