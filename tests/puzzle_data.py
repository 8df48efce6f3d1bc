"""Test positions: readers for the tactics data sets in ``shared/data/tactics`` (see its
README) and a builder for hand-made positions.

Shared by the solver and engine tests and the benchmarks; positions come back as boards
with the side to solve to move.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from brain.game.board import Board, Color
from brain.game.notation import parse_point
from brain.game.rules import Rule
from brain.resources import shared_data_dir

TACTICS = shared_data_dir() / "tactics"
QUINTET_MATES = TACTICS / "quintet_mate_tests.jsonl"
LFZ_PUZZLES = TACTICS / "lfz084_renju_puzzles.jsonl"
LFZ_FREESTYLE_LABELS = TACTICS / "lfz084_vcf_freestyle_labels.jsonl"

_COLORS = {"black": Color.BLACK, "white": Color.WHITE}


def cell(name: str) -> int:
    """Cell index of an algebraic name (``H8``) on a 15x15 board."""
    return parse_point(name, 15, 15)


def position(black: str, white: str, to_move: Color, rule: Rule = Rule.FREESTYLE) -> Board:
    """A 15x15 board from space-separated algebraic cells, ``to_move`` to move."""
    board = Board(15, rule=rule)
    for color, cells in ((Color.BLACK, black), (Color.WHITE, white)):
        for name in cells.split():
            board.place(cell(name), color)
    board.to_move = to_move
    return board


def _read_jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


@dataclass(frozen=True)
class QuintetMate:
    """A renju VCF/VCT test: whether ``board.to_move`` wins within the limits."""

    id: str
    board: Board
    vct: bool
    max_attacks: int | None
    #: For a VCT, how deep a VCF a non-four threat may threaten (quintet's threat limit).
    threat_depth: int
    proven: bool
    solutions: tuple[tuple[int, ...], ...]


def quintet_mates() -> list[QuintetMate]:
    """The quintet mate tests (renju), boards built from their ``rows`` diagrams."""
    mates = []
    for record in _read_jsonl(QUINTET_MATES):
        board = Board(15, rule=Rule.RENJU)
        for y, row in enumerate(record["rows"]):
            for x, symbol in enumerate(row):
                if symbol in "BW":
                    board.place(board.index(x, y), Color.BLACK if symbol == "B" else Color.WHITE)
        board.to_move = _COLORS[record["attacker"]]
        vct = any(name.startswith("VCT") for name in record["search"])
        solutions = tuple(
            tuple(parse_point(p, 15, 15) for p in line) for line in record["solutions"] or ()
        )
        mates.append(
            QuintetMate(
                record["id"],
                board,
                vct,
                record["max_attacks"],
                record["threat_limit"] or 0,
                record["proven"],
                solutions,
            )
        )
    return mates


@dataclass(frozen=True)
class FreestyleVcf:
    """An lfz084 VCF puzzle re-labelled under freestyle rules."""

    name: str
    board: Board
    has_vcf: bool
    #: All first moves of a VCF, or (when the labeller's budget ran out) some of them.
    winning_first_moves: frozenset[int]
    first_moves_complete: bool


def lfz_board(puzzle: dict, rule: Rule) -> Board:
    """The position of an lfz084 puzzle record under ``rule``, solver to move.

    ``moves`` alternate black and white (``A0`` keeps the alternation without a stone);
    ``extra_black`` / ``extra_white`` add stones of a fixed colour.
    """
    size = puzzle["size"]
    board = Board(size, rule=rule)
    for n, point in enumerate(puzzle["moves"]):
        if point != "A0":
            board.place(parse_point(point, size, size), Color.BLACK if n % 2 == 0 else Color.WHITE)
    for key, color in (("extra_black", Color.BLACK), ("extra_white", Color.WHITE)):
        for point in puzzle.get(key) or ():
            board.place(parse_point(point, size, size), color)
    board.to_move = _COLORS[puzzle["side_to_move"]]
    return board


def freestyle_vcf_puzzles(every: int = 1) -> list[FreestyleVcf]:
    """The labelled lfz084 VCF puzzles (freestyle rule); every ``every``-th label only."""
    puzzles = {(p["collection"], p["index"]): p for p in _read_jsonl(LFZ_PUZZLES)}
    out = []
    for n, label in enumerate(_read_jsonl(LFZ_FREESTYLE_LABELS)):
        if n % every:
            continue
        puzzle = puzzles[(label["collection"], label["index"])]
        board = lfz_board(puzzle, Rule.FREESTYLE)
        first_moves = label.get("freestyle_winning_first_moves") or ()
        moves = frozenset(parse_point(p, 15, 15) for p in first_moves)
        out.append(
            FreestyleVcf(
                f"{label['collection']}#{label['index']}",
                board,
                bool(label["freestyle_vcf"]),
                moves,
                not label.get("first_moves_incomplete", False),
            )
        )
    return out


def lfz_puzzles(mode: int, rule: Rule, every: int = 1) -> list[tuple[str, Board]]:
    """The 15x15 lfz084 puzzles of one ``mode`` (32 VCF, 67 win in three attacks, ...)
    as (name, board) under ``rule``; every ``every``-th one only."""
    chosen = [p for p in _read_jsonl(LFZ_PUZZLES) if p["mode"] == mode and p["size"] == 15]
    return [(f"{p['collection']}#{p['index']}", lfz_board(p, rule)) for p in chosen[::every]]
