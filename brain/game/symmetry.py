"""The symmetries of a board: 8 on a square board, 4 on a rectangle."""

from __future__ import annotations

from enum import IntEnum

#: A square as ``(x, y)``: ``x`` the column, ``y`` the row, both 0-based.
Point = tuple[int, int]


class Symmetry(IntEnum):
    """The 8 symmetries of a square board (the first 4 ``RECTANGLE_SAFE`` ones also
    exist on rectangular boards).  All map the board onto itself:

    ===============  ==========================
    IDENTITY         (x, y)
    FLIP_X           (w-1-x, y)  mirror left/right
    FLIP_Y           (x, h-1-y)  mirror top/bottom
    ROTATE_180       (w-1-x, h-1-y)
    TRANSPOSE        (y, x)
    ANTI_TRANSPOSE   (n-1-y, n-1-x)
    ROTATE_90        (n-1-y, x)  clockwise on screen (y down)
    ROTATE_270       (y, n-1-x)
    ===============  ==========================

    The board's geometric centre is fixed; on even board sizes it lies between
    squares, so an opening centred on ``(w//2, h//2)`` moves by one square under some
    symmetries (it always stays on the board).
    """

    IDENTITY = 0
    FLIP_X = 1
    FLIP_Y = 2
    ROTATE_180 = 3
    TRANSPOSE = 4
    ANTI_TRANSPOSE = 5
    ROTATE_90 = 6
    ROTATE_270 = 7

    @property
    def inverse(self) -> Symmetry:
        """The symmetry that undoes this one."""
        if self is Symmetry.ROTATE_90:
            return Symmetry.ROTATE_270
        if self is Symmetry.ROTATE_270:
            return Symmetry.ROTATE_90
        return self

    @property
    def rectangle_safe(self) -> bool:
        """Whether the symmetry keeps a non-square board's width and height."""
        return self <= Symmetry.ROTATE_180

    @classmethod
    def for_board(cls, width: int, height: int) -> tuple[Symmetry, ...]:
        """All symmetries of a ``width × height`` board: 8 if square, else 4."""
        if width == height:
            return tuple(cls)
        return tuple(s for s in cls if s.rectangle_safe)


def transform_point(point: Point, symmetry: Symmetry, width: int, height: int) -> Point:
    """Apply ``symmetry`` to one square of a ``width × height`` board.

    :raises ValueError: for a symmetry that swaps the axes on a non-square board.
    """
    x, y = point
    if not symmetry.rectangle_safe and width != height:
        raise ValueError(
            f"{symmetry.name} swaps the axes and needs a square board, got {width}x{height}"
        )
    xm, ym = width - 1 - x, height - 1 - y
    match symmetry:
        case Symmetry.IDENTITY:
            return (x, y)
        case Symmetry.FLIP_X:
            return (xm, y)
        case Symmetry.FLIP_Y:
            return (x, ym)
        case Symmetry.ROTATE_180:
            return (xm, ym)
        case Symmetry.TRANSPOSE:
            return (y, x)
        case Symmetry.ANTI_TRANSPOSE:
            return (ym, xm)
        case Symmetry.ROTATE_90:
            return (ym, x)
        case Symmetry.ROTATE_270:
            return (y, xm)
    raise AssertionError(symmetry)  # pragma: no cover
