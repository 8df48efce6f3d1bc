"""``python -m arena photo IMAGE [BRAIN]``: read a board from a picture, print it, save it,
and ask a brain for its move.

Exit status 0 when the position was read (and the brain answered), 1 with a message on
stderr when it cannot be: no board, a board cut off, a picture too dark or blurred,
points in doubt, stone counts no game can reach (the message says which and what to do).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from arena.brainspec import parse_brain
from arena.photo.errors import NoBoardFound, PhotoError
from arena.photo.position import BLACK, COLOUR_NAMES, COLOURS, MIN_CONFIDENCE, WHITE, Position
from brain.game.board import MAX_SIZE, MIN_SIZE
from driver.client import BrainError, BrainProcess
from driver.judgement import Judgement, read_judgement
from protocol.analysis import SHOW_ANALYSIS_KEY, SHOW_DETAIL_KEY, about_extensions

__all__ = ["add_parser", "run"]

#: Extra seconds a brain's move may take beyond its thinking time.
TOLERANCE_S = 10.0


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The ``photo`` command's arguments, added to the arena's sub-commands."""
    photo = commands.add_parser(
        "photo", help="read a board from a picture (photo, scan, screenshot)",
        description="Read the position on a Gomoku board from a picture: a phone photo at an "
                    "angle, a scan or a screenshot, stones on the intersections or in the "
                    "cells. Prints the board (X black, O white); with --out saves it; with "
                    "a BRAIN prints that brain's move and its view of the position. Exits "
                    "with status 1 and says why when no position can be read.")
    photo.add_argument("image", metavar="IMAGE", help="the picture (JPEG, PNG, ...)")
    photo.add_argument("brain", nargs="?", metavar="BRAIN",
                       help="a brain to ask for its move (as for run: a path, a command "
                            "line, builtin:ENGINE[:LEVEL])")
    photo.add_argument("--out", metavar="FILE",
                       help="save the position: .sgf (setup stones AB/AW) or .psq (Piskvork; "
                            "the stones as moves, the first colour's first)")
    photo.add_argument("--layout", choices=["points", "cells"],
                       help="where the stones stand: on the intersections (points) or in "
                            "the cells (default: decided from the stones)")
    photo.add_argument("--corners", metavar="X,Y", nargs=4,
                       help="set the board's grid by hand where it is not found or is read "
                            "at the wrong size: its four corners in picture pixels, any "
                            "order (the outer intersections; with --layout cells, the "
                            "outer corners of the corner cells); needs --size")
    photo.add_argument("--size", metavar="N|CxR",
                       help="with --corners: the board's points each way (15, or 15x20: "
                            "columns by rows)")
    photo.add_argument("--first", choices=list(COLOURS), default="black",
                       help="the colour that moved first (default black, as in Gomoku; "
                            "white in some programs): the counts of stones, the side to "
                            "move and the saved moves' order follow it")
    photo.add_argument("--min-confidence", type=float, default=MIN_CONFIDENCE, metavar="P",
                       help=f"refuse the reading when a point's probability is below P "
                            f"(default {MIN_CONFIDENCE})")
    photo.add_argument("--rule", type=int, default=0, choices=[0, 1, 4, 8, 9],
                       help="rule the brain plays by (default 0, freestyle)")
    photo.add_argument("--think", type=int, default=2000, metavar="MS",
                       help="the brain's time for its move in ms (default 2000)")


def _save(position: Position, path: Path, source: str) -> None:
    suffix = path.suffix.lower()
    if suffix == ".sgf":
        text = position.to_sgf(comment=f"read from {source}")
    elif suffix == ".psq":
        text = position.to_psq()
    else:
        raise PhotoError(f"--out {path}: give a file ending in .sgf or .psq")
    path.write_text(text, encoding="utf-8")


def _ask(spec_text: str, position: Position, rule: int, think_ms: int
         ) -> tuple[str, tuple[int, int], Judgement]:
    """The brain's name, move and judgement in ``position``."""
    spec = parse_brain(spec_text)
    for side in (position.width, position.height):
        if not MIN_SIZE <= side <= MAX_SIZE:
            raise PhotoError(f"a {position.size_text} board is outside the brains' sizes "
                             f"({MIN_SIZE} to {MAX_SIZE})")
    moves = position.moves()
    with BrainProcess.spawn(spec.argv(), cwd=spec.cwd) as brain:
        extensions = about_extensions(brain.about(timeout=10.0).fields)
        info = {SHOW_DETAIL_KEY: "1", **dict(spec.info)}
        if SHOW_ANALYSIS_KEY in extensions:  # one report, at the end of the search
            info[SHOW_ANALYSIS_KEY] = str(max(think_ms * 10, 60_000))
        brain.start(position.width, position.height, rule=rule, timeout_turn_ms=think_ms,
                    info=info)
        result = brain.play(moves, timeout=think_ms / 1000 + TOLERANCE_S)
        judgement = read_judgement(result.messages, position.width, position.height)
        return brain.name, (result.point.x, result.point.y), judgement


def _describe(name: str, move: tuple[int, int], judgement: Judgement, to_move: str) -> str:
    lines = [f"{name} plays {move[0]},{move[1]} ({to_move} to move)"]
    if judgement.mate:
        outcome = "wins" if judgement.mate > 0 else "loses"
        lines.append(f"  {to_move} {outcome} by force in {abs(judgement.mate)} plies")
    if judgement.winrate is not None:
        depth = f", depth {judgement.depth}" if judgement.depth else ""
        lines.append(f"  winrate for {to_move}: {100 * judgement.winrate:.1f} %{depth}")
    if judgement.pv:
        lines.append("  line: " + " ".join(f"{p.x},{p.y}" for p in judgement.pv))
    if judgement.candidates:
        lines.append("  candidates: " + ", ".join(
            f"{c.point.x},{c.point.y} {100 * c.winrate:.1f} %" for c in judgement.candidates[:8]))
    if len(lines) == 1:
        lines.append("  (the brain said nothing about the position)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """The ``photo`` command; returns the exit status."""
    if importlib.util.find_spec("cv2") is None:
        print("arena photo: reading pictures needs OpenCV: install the photo extra "
              "(pip install -e '.[photo]')", file=sys.stderr)
        return 1
    from arena.photo.hand import HandGrid
    from arena.photo.read import read_board

    source = Path(args.image)
    if (args.corners is None) != (args.size is None):
        print("arena photo: a grid set by hand needs both --corners (its four corners) and "
              "--size (its points each way)", file=sys.stderr)
        return 1
    try:
        hand = None if args.corners is None else HandGrid.parse(
            " ".join(args.corners), args.size, args.layout or "points")
        reading = read_board(source, layout=args.layout, first=COLOURS[args.first], hand=hand)
        reading.verify(args.min_confidence)
    except PhotoError as exc:
        print(f"arena photo: cannot read a position from {source}: {exc}", file=sys.stderr)
        if isinstance(exc, NoBoardFound) and args.corners is None:
            print("arena photo: to set the grid by hand, give its four corners and size: "
                  "--corners X,Y X,Y X,Y X,Y --size N", file=sys.stderr)
        return 1
    position = reading.position
    black, white = position.count(BLACK), position.count(WHITE)
    where = "on the intersections" if position.layout == "points" else "in the cells"
    print(f"{source}: {position.size_text} board, stones {where}; {black} black (X), "
          f"{white} white (O); least confidence {position.confidence.min():.3f}; read in "
          f"{reading.seconds:.2f} s")
    print(position.diagram())
    if args.out:
        try:
            _save(position, Path(args.out), source.name)
        except (PhotoError, ValueError) as exc:
            print(f"arena photo: {exc}", file=sys.stderr)
            return 1
        print(f"saved to {args.out}")
    if args.brain:
        to_move = COLOUR_NAMES[position.to_move()]
        try:
            name, move, judgement = _ask(args.brain, position, args.rule, args.think)
        except (BrainError, PhotoError, ValueError) as exc:
            print(f"arena photo: the brain failed: {exc}", file=sys.stderr)
            return 1
        print(_describe(name, move, judgement, to_move))
    return 0
