"""The symmetries of a board: 8 on a square board, 4 on a rectangle."""

from __future__ import annotations

from collections.abc import Callable

Transform = Callable[[int, int], tuple[int, int]]


def transforms(width: int, height: int) -> list[Transform]:
    """Coordinate maps (x, y) -> (x', y') of the board's symmetry group, identity first.

    On a square board these are the four rotations and their mirror images; on a
    rectangle only the identity, the two mirrors and the half turn keep its shape.
    """
    w, h = width - 1, height - 1
    maps: list[Transform] = [
        lambda x, y: (x, y),
        lambda x, y: (w - x, y),
        lambda x, y: (x, h - y),
        lambda x, y: (w - x, h - y),
    ]
    if width == height:
        maps += [
            lambda x, y: (y, x),
            lambda x, y: (h - y, x),
            lambda x, y: (y, w - x),
            lambda x, y: (h - y, w - x),
        ]
    return maps
