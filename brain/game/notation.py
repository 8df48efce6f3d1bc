"""Algebraic cell names as renju books and problem sets write them: ``H8``.

The letter is the column (``A`` = x 0; the letter ``I`` is used), the number the row
counted from the bottom, so on a 15-row board ``A15`` is the top-left cell (x 0, y 0 in
the protocol's top-origin coordinates) and ``A1`` the bottom-left one.
"""

from __future__ import annotations

import string

from brain.errors import PbrainError

_LETTERS = string.ascii_uppercase


class NotationError(PbrainError, ValueError):
    """A cell name that does not name a cell of the board."""


def parse_point(text: str, width: int, height: int) -> int:
    """Cell index (``y * width + x``) of an algebraic name such as ``H8``."""
    name = text.strip().upper()
    if len(name) < 2 or name[0] not in _LETTERS or not name[1:].isdigit():
        raise NotationError(f"{text!r} is not a cell name like 'H8'")
    x, row = _LETTERS.index(name[0]), int(name[1:])
    if not (x < width and 1 <= row <= height):
        raise NotationError(f"{text!r} is off the {width}x{height} board")
    return (height - row) * width + x

