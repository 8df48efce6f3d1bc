"""Opening positions: the :class:`Opening` type, opening-file parsers and a generator.

Coordinates are Gomocup protocol coordinates: ``(x, y)``, 0-based, ``x`` the column
(left to right) and ``y`` the row (top to bottom).  Moves are in play order, black
(the first player) first, colours alternating.

Supported opening-file formats (one opening per line; blank lines and lines starting
with ``#`` are ignored; text after ``#`` on a line is a comment):

``offset``
    Piskvork / Gomocup / GomocupJudge / c-gomoku-cli ``type=offset`` files:
    ``dx,dy, dx,dy, ...``.  A pair is the square ``(width//2 + dx, height//2 + dy)``
    (Piskvork's loader uses ``x0 = width/2``, ``y0 = height/2`` in integer arithmetic;
    its y axis points down).  A trailing comma is tolerated, as Piskvork does.
``pos``
    c-gomoku-cli ``type=pos`` / Rapfi compact strings such as ``h8g7f6``: each letter
    starts a move, the letter is ``x`` (``a`` = 0) and the digits after it are ``y + 1``.
``algebraic``
    RenjuNet notation, whitespace separated: ``h8 h9 i10``.  The letter is the column
    (``a`` = 0, ``i`` is used), the number the row counted **from the bottom**, so
    ``y = height - number``.  Used by ``renju26_canonical.tsv``.
``gtp``
    Like ``algebraic`` but the letter ``I`` is skipped (``J`` is column 8), as in
    KataGomo's ``renju5_982.txt``.

Tab-separated lines (``id<TAB>name<TAB>moves``) are accepted in every format: the last
field holds the moves and the other fields become :attr:`Opening.name`.

Format detection (:func:`detect_format`): every line is matched against the formats
it could be written in and the first format (in the order offset, pos, gtp,
algebraic) that fits *all* lines wins.  A single compact token such as ``h8`` is read
as ``pos``; upper-case space-separated tokens are ``gtp`` unless some token uses the
column letter ``I``; lower-case ones are ``algebraic``.  Pass ``fmt=`` to override.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from brain.errors import PbrainError
from brain.game.symmetry import Point, Symmetry, transform_point

__all__ = [
    "IllegalOpeningError",
    "Opening",
    "OpeningFileError",
    "OpeningFormat",
    "dedupe_openings",
    "detect_format",
    "load_openings",
    "parse_opening_line",
    "parse_openings",
    "random_opening_stream",
    "random_openings",
    "validate_moves",
]

_GTP_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


class IllegalOpeningError(PbrainError, ValueError):
    """An opening's stones are off the board or repeat a square."""


class OpeningFileError(PbrainError, ValueError):
    """A line of an opening file could not be used.

    Attributes: ``source`` (file name or ``"<string>"``), ``line_number`` (1-based),
    ``line`` (the raw text) and ``reason``.
    """

    def __init__(self, source: str, line_number: int, line: str, reason: str) -> None:
        self.source = source
        self.line_number = line_number
        self.line = line
        self.reason = reason
        super().__init__(f"{source}:{line_number}: {reason} (line: {line.strip()!r})")


class OpeningFormat(Enum):
    """Text notations of opening lines (see the module docstring)."""

    OFFSET = "offset"
    POS = "pos"
    GTP = "gtp"
    ALGEBRAIC = "algebraic"


def validate_moves(moves: Sequence[Point], width: int, height: int) -> None:
    """Check that every stone is on a ``width × height`` board and no square repeats.

    :raises IllegalOpeningError: naming the first offending move (1-based).
    """
    if width < 1 or height < 1:
        raise IllegalOpeningError(f"board size must be positive, got {width}x{height}")
    seen: dict[Point, int] = {}
    for number, move in enumerate(moves, start=1):
        if (
            not isinstance(move, tuple)
            or len(move) != 2
            or not all(isinstance(c, int) and not isinstance(c, bool) for c in move)
        ):
            raise IllegalOpeningError(f"move {number} must be an (x, y) tuple of ints: {move!r}")
        x, y = move
        if not (0 <= x < width and 0 <= y < height):
            raise IllegalOpeningError(
                f"move {number} at ({x},{y}) is outside the {width}x{height} board "
                f"(x must be 0..{width - 1}, y 0..{height - 1})"
            )
        if move in seen:
            raise IllegalOpeningError(
                f"move {number} at ({x},{y}) repeats move {seen[move]} on the same square"
            )
        seen[move] = number


@dataclass(frozen=True)
class Opening:
    """A sequence of opening stones on a ``width × height`` board, black first.

    The constructor validates the stones (:func:`validate_moves`), so every
    ``Opening`` is legal.  ``name`` is informational and ignored by ``==``/``hash``.
    """

    moves: tuple[Point, ...]
    width: int = 15
    height: int = 15
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        moves = tuple(tuple(m) if isinstance(m, list) else m for m in self.moves)
        object.__setattr__(self, "moves", moves)
        validate_moves(moves, self.width, self.height)

    # -- basic properties ----------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def black_to_move(self) -> bool:
        """True when the next stone (the first engine move) is black's."""
        return len(self.moves) % 2 == 0

    @property
    def black_stones(self) -> tuple[Point, ...]:
        """Stones of the first player."""
        return self.moves[0::2]

    @property
    def white_stones(self) -> tuple[Point, ...]:
        """Stones of the second player."""
        return self.moves[1::2]

    def fits(self, width: int, height: int) -> bool:
        """Whether these absolute coordinates are all on a ``width × height`` board."""
        return all(0 <= x < width and 0 <= y < height for x, y in self.moves)

    # -- symmetry --------------------------------------------------------------------------

    def transform(self, symmetry: Symmetry | int) -> Opening:
        """The opening mapped by one board symmetry (``Symmetry`` or its number 0–7).

        :raises ValueError: for an axis-swapping symmetry on a non-square board.
        """
        sym = Symmetry(symmetry)
        moves = tuple(transform_point(m, sym, self.width, self.height) for m in self.moves)
        return Opening(moves, self.width, self.height, self.name)

    def symmetries(self) -> tuple[Opening, ...]:
        """The distinct images of this opening under the board's symmetries."""
        out: dict[tuple[Point, ...], Opening] = {}
        for sym in Symmetry.for_board(self.width, self.height):
            image = self.transform(sym)
            out.setdefault(image.moves, image)
        return tuple(out.values())

    def canonical(self) -> Opening:
        """The representative of this opening's symmetry class (smallest move tuple).

        Two openings are equivalent up to symmetry iff their canonical forms are equal.
        """
        return min(self.symmetries(), key=lambda o: o.moves)

    # -- conversions -----------------------------------------------------------------------

    def to_offsets(self) -> str:
        """Piskvork offset line, e.g. ``"0,0, 1,0, 1,3"`` (relative to ``(w//2, h//2)``)."""
        cx, cy = self.width // 2, self.height // 2
        return ", ".join(f"{x - cx},{y - cy}" for x, y in self.moves)

    def to_pos(self) -> str:
        """c-gomoku-cli ``pos`` string, e.g. ``"h8i9"``.

        :raises ValueError: if the board is wider than 26 columns.
        """
        if self.width > 26:
            raise ValueError(f"pos notation has 26 column letters; board is {self.width} wide")
        return "".join(f"{chr(ord('a') + x)}{y + 1}" for x, y in self.moves)

    def recentered(self, width: int, height: int) -> Opening:
        """The same centre offsets on another board size (how offset files are reused).

        :raises IllegalOpeningError: if a stone falls off the new board.
        """
        dx, dy = width // 2 - self.width // 2, height // 2 - self.height // 2
        return Opening(tuple((x + dx, y + dy) for x, y in self.moves), width, height, self.name)

    @classmethod
    def from_offsets(cls, text: str, width: int = 15, height: int | None = None) -> Opening:
        """Parse one offset line such as ``"0,0, 1,0, 1,3"``."""
        return parse_opening_line(text, OpeningFormat.OFFSET, width, height)

    @classmethod
    def from_pos(cls, text: str, width: int = 15, height: int | None = None) -> Opening:
        """Parse one ``pos`` string such as ``"h8i9j10"``."""
        return parse_opening_line(text, OpeningFormat.POS, width, height)


# ---------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------

_OFFSET_RE = re.compile(r"^\s*-?\d+\s*,\s*-?\d+(\s*,\s*-?\d+\s*,\s*-?\d+)*\s*,?\s*$")
_POS_RE = re.compile(r"^([A-Za-z]\d+)+$")
_POS_TOKEN_RE = re.compile(r"([A-Za-z])(\d+)")
_TOKEN_RE = re.compile(r"^[A-Za-z]\d+$")


class _LineError(ValueError):
    """Internal: a reason why a line is bad (turned into :class:`OpeningFileError`)."""


def _split_name(text: str) -> tuple[str | None, str]:
    """Strip a ``#`` comment and split ``id<TAB>name<TAB>moves`` into (name, moves)."""
    text = text.split("#", 1)[0].rstrip("\r\n")
    if "\t" in text:
        fields = [f.strip() for f in text.split("\t")]
        name = " ".join(f for f in fields[:-1] if f) or None
        return name, fields[-1]
    return None, text.strip()


def _candidates(moves_text: str) -> list[OpeningFormat]:
    out: list[OpeningFormat] = []
    if _OFFSET_RE.match(moves_text):
        out.append(OpeningFormat.OFFSET)
    if _POS_RE.match(moves_text):
        out.append(OpeningFormat.POS)
    tokens = moves_text.split()
    if tokens and all(_TOKEN_RE.match(t) for t in tokens):
        letters = "".join(t[0] for t in tokens)
        if letters.isupper() and "I" not in letters:
            out.append(OpeningFormat.GTP)
        if letters.islower() or letters.isupper():
            out.append(OpeningFormat.ALGEBRAIC)
    return out


def _parse_moves(moves_text: str, fmt: OpeningFormat, width: int, height: int) -> list[Point]:
    if fmt is OpeningFormat.OFFSET:
        if not _OFFSET_RE.match(moves_text):
            raise _LineError(
                "expected comma-separated offset pairs 'dx,dy, dx,dy, ...' "
                "(an even number of integers)"
            )
        numbers = [int(v) for v in moves_text.replace(" ", "").strip(",").split(",")]
        cx, cy = width // 2, height // 2
        return [(cx + numbers[k], cy + numbers[k + 1]) for k in range(0, len(numbers), 2)]
    if fmt is OpeningFormat.POS:
        if not _POS_RE.match(moves_text):
            raise _LineError("expected a compact pos string such as 'h8i9j10' (no spaces)")
        return [
            (ord(letter.lower()) - ord("a"), int(digits) - 1)
            for letter, digits in _POS_TOKEN_RE.findall(moves_text)
        ]
    tokens = moves_text.split()
    if not tokens:
        raise _LineError("no moves")
    out: list[Point] = []
    for token in tokens:
        if not _TOKEN_RE.match(token):
            raise _LineError(f"bad coordinate {token!r}: expected a letter and a row number")
        letter, row = token[0], int(token[1:])
        if fmt is OpeningFormat.GTP:
            if letter.upper() not in _GTP_LETTERS:
                raise _LineError(f"bad GTP coordinate {token!r}: GTP skips the letter I")
            x = _GTP_LETTERS.index(letter.upper())
        else:
            x = ord(letter.lower()) - ord("a")
        out.append((x, height - row))
    return out


def parse_opening_line(
    text: str,
    fmt: OpeningFormat | str | None = None,
    width: int = 15,
    height: int | None = None,
) -> Opening:
    """Parse a single opening written in ``fmt`` (detected when ``None``).

    :raises ValueError: (an :class:`OpeningFileError` for ``"<string>"`` line 1) when the
        text is not a valid opening in that format or does not fit the board.
    """
    openings = parse_openings(text.split("\n", 1)[0], fmt, width, height)
    if len(openings) != 1:
        raise OpeningFileError("<string>", 1, text, "no opening on the line")
    return openings[0]


def _meaningful_lines(text: str) -> Iterator[tuple[int, str, str | None, str]]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.lstrip().startswith("#"):
            continue
        name, moves_text = _split_name(raw)
        if moves_text:
            yield number, raw, name, moves_text


def detect_format(text: str, source: str = "<string>") -> OpeningFormat:
    """Guess the notation of an opening file's contents (see the module docstring).

    :raises OpeningFileError: if a line fits no format, or no format fits every line.
    """
    common: list[OpeningFormat] | None = None
    first: tuple[int, str] | None = None
    for number, raw, _, moves_text in _meaningful_lines(text):
        cands = _candidates(moves_text)
        if not cands:
            raise OpeningFileError(
                source,
                number,
                raw,
                "not an opening in any known notation (offset 'dx,dy, ...', pos 'h8i9', "
                "algebraic 'h8 i9', GTP 'H8 J9')",
            )
        if common is None:
            common, first = cands, (number, raw)
            continue
        narrowed = [f for f in common if f in cands]
        if not narrowed:
            assert first is not None
            raise OpeningFileError(
                source,
                number,
                raw,
                f"notation {'/'.join(f.value for f in cands)} does not match line {first[0]} "
                f"({'/'.join(f.value for f in common)}); pass fmt= to choose one",
            )
        common = narrowed
    if common is None:
        raise OpeningFileError(source, 0, "", "no openings found (only blank or comment lines)")
    return common[0]


def parse_openings(
    text: str,
    fmt: OpeningFormat | str | None = None,
    width: int = 15,
    height: int | None = None,
    source: str = "<string>",
) -> list[Opening]:
    """Parse every opening in ``text`` (one per line) for a ``width × height`` board.

    ``height`` defaults to ``width``.  ``fmt`` is an :class:`OpeningFormat` (or its value);
    ``None`` detects it.  Blank and ``#`` lines are skipped.

    :raises OpeningFileError: naming ``source`` and the line for text that does not
        parse, or an opening that is off the board or repeats a square.
    """
    height = width if height is None else height
    if fmt is None:
        fmt = detect_format(text, source)
    fmt = OpeningFormat(fmt)
    out: list[Opening] = []
    for number, raw, name, moves_text in _meaningful_lines(text):
        try:
            moves = _parse_moves(moves_text, fmt, width, height)
            out.append(Opening(tuple(moves), width, height, name))
        except (_LineError, IllegalOpeningError) as exc:
            raise OpeningFileError(source, number, raw, f"{fmt.value} opening: {exc}") from None
    return out


def load_openings(
    path: str | Path,
    width: int = 15,
    height: int | None = None,
    fmt: OpeningFormat | str | None = None,
) -> list[Opening]:
    """Read an opening file (format detected unless ``fmt`` is given).

    :raises OSError: if the file cannot be read.
    :raises OpeningFileError: on a bad line (file, line number, reason).
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8-sig", errors="strict")
    return parse_openings(text, fmt, width, height, source=str(path))


def dedupe_openings(openings: Iterable[Opening]) -> list[Opening]:
    """Drop openings equivalent (up to board symmetry) to an earlier one; keeps order."""
    seen: set[tuple[tuple[Point, ...], int, int]] = set()
    out: list[Opening] = []
    for opening in openings:
        key = (opening.canonical().moves, opening.width, opening.height)
        if key not in seen:
            seen.add(key)
            out.append(opening)
    return out


# ---------------------------------------------------------------------------------------
# Random openings
# ---------------------------------------------------------------------------------------

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _has_three(stones: set[Point]) -> bool:
    """Whether 3 of ``stones`` lie within one 5-square window of a line."""
    for x, y in stones:
        for dx, dy in _DIRECTIONS:
            # windows starting at (x, y): a stone and the next 4 squares in direction d
            if sum((x + k * dx, y + k * dy) in stones for k in range(5)) >= 3:
                return True
    return False


def random_openings(
    count: int,
    width: int = 15,
    height: int | None = None,
    *,
    stones: int = 3,
    radius: int = 2,
    seed: int | None = None,
    max_attempts: int = 100_000,
) -> list[Opening]:
    """Generate ``count`` reproducible random openings near the centre.

    "Balanced-ish" means: the first stone is on the centre ``(w//2, h//2)``; all
    stones are within ``radius`` squares (Chebyshev distance) of it; neither colour has
    three stones inside one five-square window of a line (no ready-made three); and no
    two openings are equivalent under the board's symmetries.  Real balance can only be
    measured by playing the openings both ways (or by asking a strong brain:
    ``arena openings``).

    :raises ValueError: for impossible arguments, or if ``max_attempts`` random draws
        do not yield ``count`` distinct openings (raise ``radius`` or lower ``count``).
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    stream = random_opening_stream(width, height, stones=stones, radius=radius, seed=seed,
                                   max_attempts=max_attempts)
    return [next(stream) for _ in range(count)]


def random_opening_stream(width: int, height: int | None, *, stones: int, radius: int,
                          seed: int | None, max_attempts: int = 100_000) -> Iterator[Opening]:
    """The openings of :func:`random_openings`, one at a time, for as long as the caller
    takes them (the first ``count`` are ``random_openings(count, ...)`` with the same
    arguments).

    :raises ValueError: for impossible arguments (at once), or once ``max_attempts``
        random draws in all found no new distinct opening.
    """
    height = width if height is None else height
    if stones < 1:
        raise ValueError(f"stones must be >= 1, got {stones}")
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    cx, cy = width // 2, height // 2
    area = [
        (x, y)
        for x in range(max(0, cx - radius), min(width, cx + radius + 1))
        for y in range(max(0, cy - radius), min(height, cy + radius + 1))
    ]
    if stones > len(area):
        raise ValueError(
            f"{stones} stones do not fit within radius {radius} of the centre "
            f"({len(area)} squares); raise radius"
        )
    return _draw_openings(width, height, stones, radius, area, random.Random(seed),
                          max_attempts)


def _draw_openings(width: int, height: int, stones: int, radius: int,
                   area: list[tuple[int, int]], rng: random.Random,
                   max_attempts: int) -> Iterator[Opening]:
    cx, cy = width // 2, height // 2
    others = [p for p in area if p != (cx, cy)]
    seen: set[tuple[Point, ...]] = set()
    attempts = 0
    while True:
        attempts += 1
        if attempts > max_attempts:
            raise ValueError(
                f"only {len(seen)} distinct openings found in {max_attempts} attempts with "
                f"stones={stones}, radius={radius}; raise radius or ask for fewer"
            )
        moves = ((cx, cy), *rng.sample(others, stones - 1))
        if _has_three(set(moves[0::2])) or _has_three(set(moves[1::2])):
            continue
        opening = Opening(moves, width, height)
        key = opening.canonical().moves
        if key in seen:
            continue
        seen.add(key)
        yield opening
