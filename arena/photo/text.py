"""Boards printed as text: :func:`read_text_board`.

A console program prints its board as characters of a monospaced font: a lattice of
glyphs with no lines drawn. Either every point shows a glyph, an empty one (``+``,
``.``) or a stone (``X`` and ``O``, ``●`` and ``○``, letters), or the stones stand
between separators (``| |b|w|``) and an empty cell is a blank. The grid search finds no
lines there (or takes the separators' columns for lines that meet in T-junctions), so
the reader asks this module when it finds no board.

The picture is split into ink and ground, the ink's rows and character columns found
by their periods, each character's glyph measured on the lattice and the glyphs sorted
into classes of near copies. The board is the block of the lattice where one class
(the empty glyph, or the separator) repeats in every row and column and few other
classes stand (the two players' stones, and a last move printed in a colour of its
own); which of them is black is told by the glyphs' shades, else by their shapes: a
disc or a cross is black against a ring (``●``/``○``, ``X``/``O``), a ``b`` against a
``w``, else by their counts. A picture of prose, or of a board drawn with lines, has no
such block and gives ``None``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np

from arena.photo.position import BLACK, EMPTY, WHITE, Layout

__all__ = ["TextBoard", "read_text_board"]

#: Longer side (pixels) a picture is brought down to: glyphs stay a dozen pixels high.
TEXT_SIDE = 2048
#: Least colour distance (grey levels) from the local ground that counts as ink.
MIN_INK = 24
#: Share of the folded rows' most ink from which a row's text is counted.
ROW_INK = 0.03
#: Share of the highest peak of the rows' autocorrelation from which a peak is their
#: period: on generated boards a multiple of it peaked up to twice as high.
FUNDAMENTAL = 0.5
#: Share of the best fit of the gaps between glyphs from which a width fits them
#: nearly as well (its multiples fit too: the largest such is the character's).
NEARLY_BEST = 0.97
#: Side of a glyph's form, pixels.
FORM = 16
#: Blur of a form (its pixels), so that a pixel's shift changes it little.
FORM_BLUR = 0.7
#: A form whose grey levels spread less than this is a filled box.
FILLED = 0.05
#: Two glyphs are near copies (one class) from this correlation of their forms...
SAME_GLYPH = 0.85
#: ... where their sizes differ by no more than this share (or 2 pixels)...
SAME_SIZE = 0.2
#: ... and their colours by no more than this many grey levels: a red X is not a blue one.
SAME_INK = 60.0
#: Shade difference (grey levels) from which the darker of two stone glyphs is black.
SHADE_APART = 80.0
#: A glyph is read surely where it is this much more like its class's first glyph on
#: the board than like any other class's there.
CLEAR_GLYPH = 0.15
#: Classes a board's row may print besides the empty point: the two stones' and a last
#: move's, printed in another colour.
ROW_CLASSES = 3
#: Share of the rows printing the empty point in which a board's column prints its
#: alphabet (a rule or a label may part the rows).
ALPHABET_ROWS = 0.8
#: Share of the cells between separators that may hold two glyphs or more (a stone
#: and a mark): more, and the separators part blocks of a board printed otherwise.
SHARED_CELLS = 0.05
#: Share of the rows from which a column beyond the outer separator printing one glyph
#: on them, which no cell between the separators holds, is a frame's, no cells'.
FRAME = 0.8
#: Share of a board row's separators that must be printed alike.
SEPARATED = 0.75
#: Share of the board's ink in strokes spanning it both ways above which it is drawn.
DRAWN_SHARE = 0.5
#: Smallest board read, points each way; the largest (a larger lattice of dots is a
#: pattern, not a board).
MIN_SIDE, MAX_SIDE = 5, 26
#: Confidence of a point whose glyph is a near copy of its class's.
SURE = 0.99
#: Confidence of a point whose glyph belongs to no class the board holds, or of stones
#: whose colours neither shade, shape nor count tells.
UNSURE = 0.5


@dataclass(frozen=True)
class TextBoard:
    """A board read from text.

    :ivar stones: :data:`EMPTY`, :data:`BLACK` or :data:`WHITE` per point, row by row.
    :ivar confidence: the probability that each point is read right.
    :ivar layout: ``"points"`` where every point prints a glyph, ``"cells"`` where the
        stones stand between separators.
    :ivar points: each point's centre in picture pixels (x, y), shape (rows, columns, 2).
    :ivar cell: the mean spacing of the points in picture pixels.
    """

    stones: np.ndarray
    confidence: np.ndarray
    layout: Layout
    points: np.ndarray
    cell: float


@dataclass(frozen=True)
class _Glyph:
    """The ink of one character: its bitmap cut to its bounding box, its mean colour,
    its form (the bitmap on a small square, blurred: where it lies on the lattice, a
    pixel either way, does not change it) and whether it encloses ground."""

    shape: np.ndarray
    colour: np.ndarray
    form: np.ndarray
    holed: bool
    spanning: bool  # from the row's top to its bottom: its height is the row's

    @classmethod
    def of(cls, shape: np.ndarray, strength: np.ndarray, colour: np.ndarray,
           spanning: bool) -> _Glyph:
        """The glyph of the ink ``shape`` (its bounding box) printed in ``colour``, the
        ink's ``strength`` (distance from the ground) over the box. Its hole is looked
        for in its core too, the ink at half its strongest: a small ``o``'s hole is
        filled by the pixels its stroke half covers."""
        height, width = shape.shape
        side = max(height, width)
        square = np.zeros((side, side), np.float32)
        square[(side - height) // 2:(side - height) // 2 + height,
               (side - width) // 2:(side - width) // 2 + width] = shape
        form = cv2.GaussianBlur(cv2.resize(square, (FORM, FORM), interpolation=cv2.INTER_AREA),
                                (0, 0), FORM_BLUR)
        core = shape & (strength >= 0.5 * float(strength[shape].max()))
        return cls(shape, colour, form / max(float(form.max()), 1e-6),
                   _has_hole(shape) or _has_hole(core), spanning)

    def likeness(self, other: _Glyph, colour: bool = True) -> float:
        """How alike two glyphs are, 0 to 1: nothing where their sizes or (if asked)
        colours differ (a ``.`` and a ``●``; a red ``X`` and a blue one) or one has a
        hole and the other none (a ``●`` and a ``○``), else the correlation of their
        forms."""
        sizes = np.array([self.shape.shape, other.shape.shape], np.float64)
        apart = np.abs(sizes[0] - sizes[1]) > np.maximum(2, SAME_SIZE * sizes.max(axis=0))
        # (A separator joined to the next row's spans its row, cut to its height.)
        if apart[1] or (apart[0] and not (self.spanning or other.spanning)):
            return 0.0
        if colour and np.abs(self.colour - other.colour).max() > SAME_INK:
            return 0.0
        if self.holed != other.holed:
            return 0.0
        one, two = self.form - self.form.mean(), other.form - other.form.mean()
        spread = float(np.sqrt((one * one).sum() * (two * two).sum()))
        if spread < 1e-6:  # a filled box: a dot, a disc, a bar's stub
            return float(max(self.form.std(), other.form.std()) < FILLED)
        return max(0.0, float((one * two).sum()) / spread)


@dataclass(frozen=True)
class _Lattice:
    """The characters' rows (top and bottom pixel of each) and columns (left edge of
    column 0 and the width of one)."""

    rows: list[tuple[int, int]]
    left: float
    width: float


def read_text_board(image: np.ndarray, first: int = BLACK) -> TextBoard | None:
    """The board printed as text in ``image`` (BGR), or ``None`` where it shows none.
    ``first`` is the colour that moved first (where neither the glyphs' shades nor their
    shapes tell the colours, the stones printed more are its)."""
    scale = min(1.0, TEXT_SIDE / max(image.shape[:2]))
    work = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale,
                                                   interpolation=cv2.INTER_AREA)
    if work.ndim == 2:
        work = cv2.cvtColor(work, cv2.COLOR_GRAY2BGR)
    ink, strength = _ink(work)
    lattice = _lattice(ink)
    if lattice is None:
        return None
    glyphs = _glyphs(ink, strength, work, lattice)
    if not glyphs:
        return None
    classes = _classes(glyphs)
    samples: dict[int, _Glyph] = {}
    for place, kind in classes.items():
        samples.setdefault(kind, glyphs[place])
    boards = [board for board in (_marked_board(classes, samples), _separated_board(classes))
              if board is not None]
    if not boards:
        return None
    # Stones stand on a board's points: of a marked board taken on the separators of
    # one whose stones stand between them, and of that one, the one holding them wins;
    # on an empty board, the one leaving no glyph between its points (a header's labels).
    board = max(boards, key=lambda board: (_held(board, classes), -_strays(board, classes),
                                           board.layout == "points"))
    if max(len(board.rows), len(board.columns)) > MAX_SIDE or _drawn_grid(ink, board, lattice):
        return None
    return _read(board, glyphs, classes, lattice, scale, first)


def _ink(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the picture departs from its local ground (a median over a window larger
    than a character) by more than Otsu's level between ink and ground, and by how
    much (grey levels, its strongest channel)."""
    side = min(image.shape[:2])
    window = min(255, max(15, side // 8) | 1)
    ground = cv2.medianBlur(image, window)
    distance = cv2.absdiff(image, ground).max(axis=2)
    level, _ = cv2.threshold(distance, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return distance > max(level, MIN_INK), distance


def _period(profile: np.ndarray) -> float | None:
    """The fundamental period of ``profile`` in samples, to a sub-sample: past its
    autocorrelation's central lobe, the first local peak of :data:`FUNDAMENTAL` of the
    highest or more (a multiple of the period may peak higher: rows parted by rules
    repeat best in blocks), or ``None`` where none stands out."""
    centred = profile - profile.mean()
    spectrum = np.fft.rfft(centred, 2 * len(centred))
    correlation = np.fft.irfft(spectrum * np.conj(spectrum))[:len(centred) // 2]
    if len(correlation) < 8 or correlation[0] <= 0:
        return None
    rising = np.flatnonzero(np.diff(correlation) > 0)  # the central lobe's end
    if not len(rising):
        return None
    low = max(2, int(rising[0]))
    top = correlation[low:-1].max(initial=0.0)
    if top <= 0.1 * correlation[0]:
        return None
    for lag in range(low, len(correlation) - 1):
        before, here, after = correlation[lag - 1:lag + 2]
        if here >= before and here >= after and here >= FUNDAMENTAL * top:
            bend = before - 2 * here + after
            return lag + (0.5 * (before - after) / bend if bend < 0 else 0.0)
    return None


def _down(glyphs: np.ndarray, length: int) -> np.ndarray:
    """The ink of ``glyphs`` (rows of top, height and area) down a picture ``length``
    pixels high, each glyph's spread evenly over its height."""
    profile = np.zeros(length)
    for top, height, area in glyphs:
        profile[top:top + height] += area / height
    return profile


def _lattice(ink: np.ndarray) -> _Lattice | None:
    """The rows and columns of characters the ink is printed on, or ``None`` where it
    shows no regular lines of text."""
    stats = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)[2][1:]
    heights, widths = stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_WIDTH]
    if (heights > 2).sum() < MIN_SIDE * MIN_SIDE:
        return None
    # Rows by the glyphs' ink down the picture: rules and dashes between the rows, flat
    # strokes, leave it out.
    glyphs = stats[(heights > 1) & (widths <= 3 * heights)][
        :, [cv2.CC_STAT_TOP, cv2.CC_STAT_HEIGHT, cv2.CC_STAT_AREA]]
    pitch = _period(_down(glyphs, ink.shape[0]))
    if pitch is None:
        return None
    # A row spans its text, the ink of the glyphs of one row (a frame's side or
    # separators stacked row on row, taller than a row, would fill the gaps between
    # rows) folded on the pitch, from where it is least (between rows) on: rules or
    # dashes printed between rows stay out (their flat strokes are not in it).
    single = _down(glyphs[glyphs[:, 1] <= pitch], ink.shape[0])
    phase = (np.arange(len(single)) % pitch).astype(int)
    folded = np.bincount(phase, single) / np.maximum(np.bincount(phase), 1)
    least = int(np.argmin(folded))
    inked = np.flatnonzero(np.roll(folded, -least) >= ROW_INK * folded.max())
    # A pixel or two more either way, within the gap: a row's place is rounded.
    margin = min(1 + 0.1 * (inked[-1] - inked[0]), (pitch - 1 - inked[-1] + inked[0]) / 2)
    height = round(inked[-1] - inked[0] + 1 + 2 * margin)
    rows = [(round(top), round(top) + height)
            for top in np.arange((least + inked[0] - margin) % pitch, ink.shape[0] - height,
                                 pitch)]
    width = _character_width(ink, rows, pitch)
    if width is None:
        return None
    centres = np.concatenate([_run_centres(ink[top:bottom]) for top, bottom in rows])
    return _Lattice(rows, _phase(centres, width) - width / 2, width)


def _phase(values: np.ndarray, period: float) -> float:
    """Where in the ``period`` the ``values`` lie, by their circular mean."""
    angle = np.angle(np.exp(2j * np.pi * values / period).mean())
    return float(angle / (2 * np.pi) * period % period)


def _run_centres(band: np.ndarray) -> np.ndarray:
    """The centres of the runs of ink columns of one row of text."""
    inked = np.r_[0, band.any(axis=0).astype(np.int8), 0]
    edges = np.flatnonzero(np.diff(inked))
    return (edges[0::2] + edges[1::2] - 1) / 2


def _character_width(ink: np.ndarray, rows: list[tuple[int, int]], pitch: float
                     ) -> float | None:
    """The width of a character: the largest spacing whose multiples the gaps between
    neighbouring glyphs of a row fit nearly as well as the best (the top of its peak of
    fits), refined by least squares on the short gaps that fit it."""
    gaps = np.concatenate([np.diff(_run_centres(ink[top:bottom])) for top, bottom in rows]
                          + [np.zeros(0)])
    gaps = gaps[gaps > 2]
    if len(gaps) < MIN_SIDE * MIN_SIDE:
        return None
    widths = np.arange(max(3.0, 0.3 * pitch), pitch, 0.05)  # fine: a gap of 3 widths is asked
    if not len(widths):
        return None
    fits = np.array([np.cos(2 * np.pi * gaps / width).mean() for width in widths])
    if fits.max() < 0.7:
        return None  # no monospaced lattice: prose in a proportional font, or a drawing
    peaks = np.flatnonzero((fits >= NEARLY_BEST * fits.max()) & (fits >= np.roll(fits, 1))
                           & (fits >= np.roll(fits, -1)))
    width = float(widths[peaks.max()])
    for _ in range(2):
        # Refined on the short gaps that fit it (a title in a proportional font fits
        # none; a long gap's multiple, counted wrong by one, would pull it off).
        steps = np.round(gaps / width)
        taken = (steps > 0) & (steps <= 4) & (np.abs(gaps / width - steps) < 0.15)
        if not taken.any():
            return None
        width = float((gaps[taken] * steps[taken]).sum() / (steps[taken] ** 2).sum())
    return width


def _glyphs(ink: np.ndarray, strength: np.ndarray, image: np.ndarray, lattice: _Lattice
            ) -> dict[tuple[int, int], _Glyph]:
    """Each character's glyph by (row, column): the ink components of a row whose
    centres fall in one character's column (a disc may be wider than its column)."""
    glyphs = {}
    for row, (top, bottom) in enumerate(lattice.rows):
        band = ink[top:bottom].astype(np.uint8)
        count, labels, stats, centres = cv2.connectedComponentsWithStats(band, connectivity=8)
        columns: dict[int, list[int]] = {}
        for label in range(1, count):
            column = int(np.floor((centres[label, 0] - lattice.left) / lattice.width))
            columns.setdefault(column, []).append(label)
        for column, members in columns.items():
            if stats[members, cv2.CC_STAT_AREA].sum() < 2:
                continue
            mask = np.isin(labels, members)
            ys, xs = np.nonzero(mask)
            box = np.s_[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
            glyphs[row, column] = _Glyph.of(mask[box], strength[top:bottom][box],
                                            image[top:bottom][ys, xs].mean(axis=0),
                                            ys.min() == 0 and ys.max() == bottom - top - 1)
    return glyphs


def _classes(glyphs: dict[tuple[int, int], _Glyph]) -> dict[tuple[int, int], int]:
    """Each glyph's class (from 1; 0 is a blank): the first glyph, in reading order, it
    is most like, at least :data:`SAME_GLYPH`."""
    firsts: list[_Glyph] = []
    classes = {}
    for place in sorted(glyphs):
        glyph = glyphs[place]
        best, chosen = SAME_GLYPH, 0
        for index, other in enumerate(firsts, 1):
            likeness = glyph.likeness(other)
            if likeness >= best:
                best, chosen = likeness, index
        if not chosen:
            firsts.append(glyph)
            chosen = len(firsts)
        classes[place] = chosen
    return classes


@dataclass(frozen=True)
class _Board:
    """Where a board lies on the lattice: its rows, and per column of points the
    character columns it spans; its empty glyph's class (0: a blank) and layout."""

    rows: list[int]
    columns: list[list[int]]
    empty: int
    layout: Layout


def _run(values: list[int], longest_step: int) -> list[int]:
    """The longest run of the sorted ``values`` whose steps are at most ``longest_step``."""
    best: list[int] = []
    current: list[int] = []
    for value in values:
        if current and value - current[-1] > longest_step:
            current = []
        current.append(value)
        if len(current) > len(best):
            best = list(current)
    return best


def _others(classes: dict[tuple[int, int], int], row: int, columns: list[list[int]],
            empty: int) -> set[int]:
    """The classes other than ``empty`` (and blank) in ``row`` on the board's points."""
    return {classes.get((row, column), 0) for span in columns for column in span} - {empty, 0}


def _board_rows(classes: dict[tuple[int, int], int], rows: list[int],
                columns: list[list[int]], empty: int) -> tuple[list[int], set[int]]:
    """The longest run of ``rows`` (those printing the board's frame; a rule or a blank
    line may part two, another row of the frame not) holding at most
    :data:`ROW_CLASSES` classes besides ``empty`` on the board's points (a row of labels
    holds more), and the classes they hold there."""
    best: list[int] = []
    current: list[int] = []
    for row in rows:
        plain = len(_others(classes, row, columns, empty)) <= ROW_CLASSES
        if not plain or (current and row - current[-1] > 2):
            current = []
        if plain:
            current.append(row)
        if len(current) > len(best):
            best = list(current)
    return best, set().union(*(_others(classes, row, columns, empty) for row in best))


def _marked_board(classes: dict[tuple[int, int], int], samples: dict[int, _Glyph]
                  ) -> _Board | None:
    """The board whose every point prints a glyph, or ``None``: for a class taken for the
    empty point, its alphabet is it and the two classes printed most in the columns it
    stands in; the board's columns are those printing that alphabet in nearly every row
    the empty point is printed in (a crowded column may print no empty point), and its
    rows those printing a glyph in all of them, the empty point or the alphabet.
    Of boards as large, :func:`_rank` tells the empty point."""
    counts = Counter(classes.values())
    best: _Board | None = None
    for empty, count in counts.most_common(6):
        if count < MIN_SIDE:
            break
        rows = sorted({row for (row, _), kind in classes.items() if kind == empty})
        seen = Counter(column for (_, column), kind in classes.items() if kind == empty)
        own = {column for column, times in seen.items() if times >= 2}
        others = Counter(kind for (row, column), kind in classes.items()
                         if column in own and row in rows and kind != empty)
        alphabet = {empty} | {kind for kind, _ in others.most_common(2)}
        printed = Counter(column for (row, column), kind in classes.items()
                          if kind in alphabet and row in rows)
        columns = sorted(column for column, times in printed.items()
                         if times >= ALPHABET_ROWS * len(rows))
        if len(columns) < MIN_SIDE:
            continue
        step = int(np.median(np.diff(columns)))
        columns = _run(columns, 2 * step)
        spans = [[column] for column in columns]
        # A row of the board prints a glyph on every column, and the empty point or
        # the alphabet but for one glyph at most (a last move printed apart; a rule, or
        # a row of stars under the board, neither).
        printed_rows = [row for row in sorted({row for row, _ in classes})
                        if all((row, column) in classes for column in columns)
                        and (row in rows or sum(classes[row, column] not in alphabet
                                                for column in columns) <= 1)]
        found, _ = _board_rows(classes, printed_rows, spans, empty)
        if min(len(found), len(columns)) < MIN_SIDE:
            continue
        board = _Board(found, spans, empty, "points")
        if best is None or _rank(board, samples) > _rank(best, samples):
            best = board
    return best


def _rank(board: _Board, samples: dict[int, _Glyph]) -> tuple[int, bool, float]:
    """How a marked board ranks: by its points, then by its empty point's glyph (a glyph
    of each class in ``samples``): one without a hole (``+``, ``.``; not ``○``, ``O``)
    and of the least ink (a crowded board prints more stones than empty points)."""
    empty = samples[board.empty]
    return len(board.rows) * len(board.columns), not empty.holed, -float(empty.shape.sum())


def _separated_board(classes: dict[tuple[int, int], int]) -> _Board | None:
    """The board whose stones stand between separators and whose empty cells are blank:
    the largest block of rows where one class (the separator) stands in the same evenly
    spaced columns and at most two other classes between them, or ``None``."""
    counts = Counter(classes.values())
    best: _Board | None = None
    for separator, count in counts.most_common(4):
        if count < (MIN_SIDE - 1) * MIN_SIDE:
            break
        per_row = Counter(row for (row, _), kind in classes.items() if kind == separator)
        rows = sorted(row for row, seen in per_row.items() if seen >= MIN_SIDE - 1)
        per_column = Counter(column for (row, column), kind in classes.items()
                             if kind == separator and row in rows)
        bars = sorted(column for column, seen in per_column.items() if seen >= 0.5 * len(rows))
        if len(bars) < MIN_SIDE - 1:
            continue
        step = Counter(np.diff(bars).tolist()).most_common(1)[0][0]
        if step < 2:
            continue
        bars = _run(bars, step)
        bars = [bar for bar in bars if (bar - bars[0]) % step == 0]
        spans = [list(range(left + 1, left + step)) for left in bars[:-1]]
        # A frame may join the outer separators (another glyph there); never a blank.
        rows, stones = _board_rows(classes, [row for row in rows
                                             if all((row, bar) in classes for bar in bars)
                                             and sum(classes[row, bar] == separator
                                                     for bar in bars)
                                             >= SEPARATED * len(bars)], spans, 0)
        crowded = sum(sum((row, column) in classes for column in span) > 1
                      for row in rows for span in spans)
        if not rows or crowded > SHARED_CELLS * len(rows) * len(spans):
            continue  # glyphs side by side between the separators: no cells of stones
        if any(_framed(classes, rows, span) >= FRAME * len(rows) for span in spans):
            continue  # one glyph down a column of cells: separators of another kind
        outer = [list(range(bars[0] - step + 1, bars[0])),
                 list(range(bars[-1] + 1, bars[-1] + step))]
        heads = [row for row in (rows[0] - 1, rows[-1] + 1)
                 if sum(any((row, column) in classes for column in span) for span in spans)
                 >= 0.8 * len(spans)]
        for side, span in enumerate(outer):
            # A cell beyond the outer separator: where a stone (of the classes a row
            # may print) stands in it, or the board's header labels it as it labels
            # the cells between; not a frame's column, on nearly every row one glyph
            # that no cell between holds.
            held = {classes.get((row, column), 0) for row in rows for column in span} - {0}
            labelled = any((head, column) in classes for head in heads for column in span)
            if ((held or labelled) and len(stones | held) <= ROW_CLASSES
                    and _framed(classes, rows, span, held - stones) < FRAME * len(rows)):
                spans = [span, *spans] if side == 0 else [*spans, span]
                stones |= held
        if min(len(rows), len(spans)) < MIN_SIDE:
            continue
        if best is None or len(rows) * len(spans) > len(best.rows) * len(best.columns):
            best = _Board(rows, spans, 0, "cells")
    return best


def _framed(classes: dict[tuple[int, int], int], rows: list[int], span: list[int],
            kinds: set[int] | None = None) -> int:
    """On how many of ``rows`` the columns ``span`` print the glyph they print most (of
    ``kinds`` if given): a frame's or a separator's column prints one on every row."""
    found = Counter(kind for row in rows for column in span
                    if (kind := classes.get((row, column), 0))
                    and (kinds is None or kind in kinds))
    return max(found.values(), default=0)


def _drawn_grid(ink: np.ndarray, board: _Board, lattice: _Lattice) -> bool:
    """Whether most of the ink on the board lies in strokes that span half of it both
    ways: lines drawn, not printed (a grid whose crossings passed for glyphs), which is
    the grid search's to read. Printed glyphs stand apart; a rule spans a board only
    across, a column of separators only down."""
    top, bottom = lattice.rows[board.rows[0]][0], lattice.rows[board.rows[-1]][1]
    left = max(0, round(lattice.left + board.columns[0][0] * lattice.width))
    right = round(lattice.left + (board.columns[-1][-1] + 1) * lattice.width)
    region = ink[top:bottom, left:right].astype(np.uint8)
    stats = cv2.connectedComponentsWithStats(region, connectivity=8)[2]
    spanning = ((stats[1:, cv2.CC_STAT_WIDTH] >= 0.5 * region.shape[1])
                & (stats[1:, cv2.CC_STAT_HEIGHT] >= 0.5 * region.shape[0]))
    return bool(stats[1:, cv2.CC_STAT_AREA][spanning].sum() > DRAWN_SHARE * max(region.sum(), 1))


def _held(board: _Board, classes: dict[tuple[int, int], int]) -> int:
    """How many glyphs other than the empty one stand on the board's points."""
    return sum(classes.get((row, column), 0) not in (0, board.empty)
               for row in board.rows for span in board.columns for column in span)


def _strays(board: _Board, classes: dict[tuple[int, int], int]) -> int:
    """How many glyphs stand between the board's points on its rows, in columns that
    not every row prints (a separator's column does)."""
    points = {column for span in board.columns for column in span}
    inside = range(board.columns[0][0], board.columns[-1][-1] + 1)
    between = [column for column in inside if column not in points
               and not all((row, column) in classes for row in board.rows)]
    return sum((row, column) in classes for row in board.rows for column in between)


def _holes(shape: np.ndarray) -> np.ndarray:
    """The ground the glyph's ink encloses (in ``o``, ``○``, ``b``; none in ``x``, ``●``)."""
    outside = np.pad(shape.astype(np.uint8), 1)
    cv2.floodFill(outside, None, (0, 0), 1)
    return (outside == 0)[1:-1, 1:-1]


def _has_hole(shape: np.ndarray) -> bool:
    """Whether the glyph encloses ground (:func:`_a_hole`)."""
    return _a_hole(_holes(shape), shape)


def _a_hole(holes: np.ndarray, shape: np.ndarray) -> bool:
    """Whether the ground ``holes`` a glyph's ink ``shape`` encloses makes a hole: a few
    pixels, and a few hundredths of its box."""
    return bool(holes.sum() >= max(2, 0.03 * shape.size))


def _is_b(shape: np.ndarray) -> bool:
    """Whether the glyph is shaped as a ``b``: taller than wide, a hole in its lower
    half and a stem rising on its left."""
    height, width = shape.shape
    holes = _holes(shape)
    if height < 1.1 * width or not _a_hole(holes, shape):
        return False
    upper = shape[:height // 3]
    return bool(np.nonzero(holes)[0].mean() > 0.55 * height
                and upper[:, :width // 2].sum() > 2 * upper[:, width - width // 2:].sum())


def _stone_pair(found: Counter[int], samples: dict[int, _Glyph]) -> list[int]:
    """The two players' stone classes of those ``found`` on the board. Where they are
    of two shapes or more, the two shapes printed most, each by its class printed in
    the other's colour (the last move, printed in a colour of its own, is another class
    of its shape); else the two classes printed most (discs told by colour alone)."""
    groups: list[list[int]] = []
    for kind, _ in found.most_common():
        group = next((group for group in groups
                      if samples[kind].likeness(samples[group[0]], colour=False)
                      >= SAME_GLYPH), None)
        if group is None:
            groups.append([kind])
        else:
            group.append(kind)
    if len(groups) < 2:
        return [kind for kind, _ in found.most_common(2)]
    first, second = sorted(groups, key=lambda group: -sum(found[kind] for kind in group))[:2]

    def nearest(group: list[int], other: int) -> int:
        return min(group, key=lambda kind: float(np.abs(samples[kind].colour
                                                         - samples[other].colour).max()))
    one = nearest(first, second[0])
    return [one, nearest(second, one)]


def _colours(samples: dict[int, _Glyph], counts: Counter[int], first: int
             ) -> tuple[dict[int, int], bool]:
    """Each stone class's colour, and whether it is in doubt: the darker of two glyphs
    is black where their shades differ; else a ``b`` against another letter; else the
    glyph without a hole (``X``, ``●``) against one with (``O``, ``○``); else the one
    printed more often is the ``first`` colour's. A lone class is black's unless it has
    a hole and is no ``b``."""
    kinds = list(samples)
    shapes = [samples[kind].shape for kind in kinds]
    letters = [_is_b(shape) for shape in shapes]
    holes = [samples[kind].holed for kind in kinds]
    if len(kinds) == 1:
        return {kinds[0]: BLACK if letters[0] or not holes[0] else WHITE}, False
    shades = [float(samples[kind].colour.mean()) for kind in kinds]
    if abs(shades[0] - shades[1]) >= SHADE_APART:
        black = shades[0] < shades[1]
    elif letters[0] != letters[1]:
        black = letters[0]
    elif holes[0] != holes[1]:
        black = holes[1]
    elif counts[kinds[0]] != counts[kinds[1]]:
        black = (counts[kinds[0]] > counts[kinds[1]]) == (first == BLACK)
    else:
        return {kinds[0]: BLACK, kinds[1]: WHITE}, True
    return {kinds[0]: BLACK if black else WHITE, kinds[1]: WHITE if black else BLACK}, False


def _read(board: _Board, glyphs: dict[tuple[int, int], _Glyph],
          classes: dict[tuple[int, int], int], lattice: _Lattice, scale: float, first: int
          ) -> TextBoard:
    """The position on ``board``: each point's glyph read as empty or as a stone."""
    height, width = len(board.rows), len(board.columns)
    kinds = np.zeros((height, width), np.int32)
    sure = np.full((height, width), SURE, np.float32)
    points = np.zeros((height, width, 2))
    samples: dict[int, _Glyph] = {}
    placed: dict[tuple[int, int], _Glyph] = {}
    for y, row in enumerate(board.rows):
        top, bottom = lattice.rows[row]
        for x, span in enumerate(board.columns):
            middle = (span[0] + span[-1] + 1) / 2
            points[y, x] = (lattice.left + middle * lattice.width, (top + bottom) / 2)
            held = [column for column in span if (row, column) in classes]
            if not held:
                continue
            if len(held) > 1:
                sure[y, x] = UNSURE  # two glyphs in one cell: no stone prints so
            place = (row, min(held, key=lambda column: abs(column + 0.5 - middle)))
            kinds[y, x] = classes[place]
            samples.setdefault(classes[place], glyphs[place])
            placed[y, x] = glyphs[place]
    for (y, x), glyph in placed.items():
        # A glyph much more like its class's first on the board than like any other
        # class's there is read surely.
        own = glyph.likeness(samples[kinds[y, x]])
        others = [glyph.likeness(sample) for kind, sample in samples.items()
                  if kind != kinds[y, x]]
        if own < max(others, default=0.0) + CLEAR_GLYPH:
            sure[y, x] = UNSURE
    if board.layout == "points":
        sure[kinds == 0] = UNSURE  # a point printed blank where every point prints a glyph
    found = Counter(kinds[(kinds != board.empty) & (kinds != 0)].tolist())
    two = _stone_pair(found, samples)
    stones = np.full((height, width), EMPTY, np.int8)
    if two:
        # Another look of a stone (the last move printed in a colour of its own) is of
        # the one stone glyph whose shape it has; else neither colour's.
        looks = {kind: kind for kind in two}
        for kind in set(found) - set(two):
            shaped = [samples[kind].likeness(samples[other], colour=False) for other in two]
            if max(shaped) >= SAME_GLYPH and abs(shaped[0] - shaped[1]) >= CLEAR_GLYPH:
                looks[kind] = two[int(np.argmax(shaped))]
            else:
                sure[kinds == kind] = UNSURE
        counts = Counter({kind: sum(found[look] for look in looks if looks[look] == kind)
                          for kind in two})
        colours, doubt = _colours({kind: samples[kind] for kind in two}, counts, first)
        for look, kind in looks.items():
            stones[kinds == look] = colours[kind]
            if doubt:
                sure[kinds == look] = UNSURE
    return TextBoard(stones, sure, board.layout, points / scale,
                     float(np.mean([lattice.rows[1][0] - lattice.rows[0][0],
                                    lattice.width * _columns_step(board)])) / scale)


def _columns_step(board: _Board) -> float:
    """The mean spacing of the board's columns of points, in characters."""
    middles = [(span[0] + span[-1]) / 2 for span in board.columns]
    return float(np.mean(np.diff(middles))) if len(middles) > 1 else 1.0
