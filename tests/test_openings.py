"""Tests for brain.game.openings on every real opening file under the shared data's openings/."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from brain.game.openings import (
    IllegalOpeningError,
    Opening,
    OpeningFileError,
    OpeningFormat,
    dedupe_openings,
    detect_format,
    load_openings,
    parse_opening_line,
    parse_openings,
    random_openings,
)
from brain.game.symmetry import Symmetry, transform_point
from brain.resources import shared_data_dir

DATA = shared_data_dir() / "openings"


def _stone_counts(openings: list[Opening]) -> Counter[int]:
    return Counter(len(o) for o in openings)


def _max_offset(openings: list[Opening]) -> int:
    return max(
        max(abs(x - o.width // 2), abs(y - o.height // 2)) for o in openings for x, y in o.moves
    )


# ---------------------------------------------------------------------------------------
# Real files (counts as documented in /work/shared/data/README.md)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        # 2024: ten 5-stone + one 4- and one 13-stone line
        ("gomocup2024_freestyle15.txt", {5: 10, 4: 1, 13: 1}),
        # 2025: six 5-stone + 6/7/11/12/12/25-stone lines
        ("gomocup2025_freestyle15.txt", {5: 6, 6: 1, 7: 1, 11: 1, 12: 2, 25: 1}),
        # 2026: nine 5-stone + 3/7/11-stone lines
        ("gomocup2026_freestyle15.txt", {5: 9, 3: 1, 7: 1, 11: 1}),
    ],
)
def test_gomocup_freestyle15_files(name: str, counts: dict[int, int]) -> None:
    path = DATA / "gomocup" / name
    assert detect_format(path.read_text()) is OpeningFormat.OFFSET
    openings = load_openings(path, 15)
    assert len(openings) == 12
    assert _stone_counts(openings) == Counter(counts)
    assert _max_offset(openings) <= 7  # offsets within ±7 on 15x15
    assert all(o.width == o.height == 15 for o in openings)


def test_gomocupjudge_openings_20() -> None:
    path = DATA / "gomocup" / "gomocupjudge_openings_20.txt"
    openings = load_openings(path, 20)
    # four 3-stone lines, one 7-stone and one 41-stone preset position
    assert [len(o) for o in openings] == [3, 7, 3, 3, 3, 41]
    xs = [x - 10 for o in openings for x, _ in o.moves]
    ys = [y - 10 for o in openings for _, y in o.moves]
    assert min(xs + ys) >= -10 and max(xs + ys) <= 5  # offsets −10…+5
    with pytest.raises(OpeningFileError) as info:
        load_openings(path, 15)
    assert info.value.line_number == 1
    assert "outside the 15x15 board" in str(info.value)
    assert str(path) in str(info.value)


def test_gomoconline_openings() -> None:
    openings = load_openings(DATA / "gomocup" / "gomoconline_openings.txt", 20)
    assert [len(o) for o in openings] == [5, 4, 5]
    assert openings[0].moves[0] == (10 - 2, 10 - 9)


def test_piskvork_openings() -> None:
    path = DATA / "piskvork" / "openings.txt"
    openings = load_openings(path, 20)
    assert len(openings) == 41
    assert _stone_counts(openings) == Counter({3: 22, 5: 19})
    assert openings[0].moves == ((10, 10), (11, 10), (11, 13))  # "0,0, 1,0, 1,3"
    assert openings[0].to_offsets() == "0,0, 1,0, 1,3"
    # the last line (-8,-6, ...) does not fit a 15x15 board: the error names line 41
    with pytest.raises(OpeningFileError, match=r"openings\.txt:41: .*outside the 15x15") as info:
        load_openings(path, 15)
    assert info.value.line_number == 41
    assert info.value.line.startswith("-8,-6")


def test_c_gomoku_cli_examples() -> None:
    offsets = load_openings(DATA / "c_gomoku_cli" / "offset_freestyle_20x20.txt", 20)
    assert [len(o) for o in offsets] == [6, 6, 5, 20]  # 4 lines, the last without newline
    pos_path = DATA / "c_gomoku_cli" / "pos_freestyle_20x20.txt"
    assert detect_format(pos_path.read_text()) is OpeningFormat.POS
    pos = load_openings(pos_path, 20)
    # The README says 3 lines, but the file holds 4 (the last has no trailing newline,
    # so `wc -l` reports 3).
    assert [len(o) for o in pos] == [4, 5, 5, 18]
    assert pos[0].moves == ((3, 2), (4, 4), (5, 5), (3, 6))  # d3 e5 f6 d7
    assert pos[0].to_pos() == "d3e5f6d7"
    assert pos[1].moves[0] == (10, 9)  # k10


def test_renju26_canonical() -> None:
    path = DATA / "renju" / "renju26_canonical.tsv"
    assert detect_format(path.read_text()) is OpeningFormat.ALGEBRAIC
    openings = load_openings(path, 15)
    assert len(openings) == 26
    assert all(len(o) == 3 for o in openings)
    assert openings[0].name == "D1 Kansei"
    assert openings[-1].name == "I13 Suisei"
    for o in openings:
        assert o.moves[0] == (7, 7)  # h8 = centre
        # direct: white h9 (row 9 from the bottom = y 6), indirect: i9
        assert o.moves[1] == ((7, 6) if o.name and o.name.startswith("D") else (8, 6))
        x, y = o.moves[2]
        assert abs(x - 7) <= 2 and abs(y - 7) <= 2  # 3rd stone in the central 5x5
    assert openings[0].moves[2] == (7, 5)  # D1 h10
    # "the 13+13 representatives are pairwise non-equivalent"
    assert len(dedupe_openings(openings)) == 26


def test_katagomo_renju5_982() -> None:
    path = DATA / "renju" / "katagomo_renju5_982.txt"
    assert detect_format(path.read_text()) is OpeningFormat.GTP
    openings = load_openings(path, 15)
    assert len(openings) == 982
    assert all(len(o) == 5 for o in openings)
    # first line "L7 L8 M8 L9 N10": GTP L = column 10 (I skipped), row 7 from bottom → y 8
    assert openings[0].moves == ((10, 8), (10, 7), (11, 7), (10, 6), (12, 5))
    # "no duplicates even up to symmetry"
    assert len(dedupe_openings(openings)) == 982


def test_every_real_file_loads_and_round_trips_symmetries() -> None:
    files = sorted(p for p in DATA.rglob("*") if p.suffix in (".txt", ".tsv"))
    files = [p for p in files if not p.name.startswith("LICENSE")]
    assert len(files) == 10
    for path in files:
        size = 15 if ("15" in path.name or "renju" in str(path)) else 20
        openings = load_openings(path, size)
        assert openings, path
        for o in openings:
            assert o.fits(size, size)
            canonical = o.canonical()
            for sym in Symmetry:
                image = o.transform(sym)
                assert image.fits(size, size)
                assert image.transform(sym.inverse) == o
                assert image.canonical() == canonical
            assert 1 <= len(o.symmetries()) <= 8


# ---------------------------------------------------------------------------------------
# Opening type and symmetries
# ---------------------------------------------------------------------------------------


def test_opening_validation() -> None:
    with pytest.raises(IllegalOpeningError, match="move 2 at \\(7,7\\) repeats move 1"):
        Opening(((7, 7), (7, 7)))
    with pytest.raises(IllegalOpeningError, match="outside the 15x15 board"):
        Opening(((15, 0),))
    with pytest.raises(IllegalOpeningError, match="outside the 20x10 board"):
        Opening(((0, 10),), 20, 10)
    o = Opening([[7, 7], (8, 8)])  # type: ignore[list-item]
    assert o.moves == ((7, 7), (8, 8))
    assert o.black_to_move
    assert o.black_stones == ((7, 7),) and o.white_stones == ((8, 8),)
    assert not Opening(((7, 7),)).black_to_move
    # the name does not take part in equality
    assert Opening(((1, 1),), name="a") == Opening(((1, 1),), name="b")


def test_symmetries_on_square_board() -> None:
    o = Opening(((7, 7), (8, 7), (8, 9)))
    assert transform_point((8, 7), Symmetry.ROTATE_90, 15, 15) == (7, 8)  # right → down
    assert transform_point((8, 7), Symmetry.ROTATE_270, 15, 15) == (7, 6)
    assert transform_point((0, 1), Symmetry.ANTI_TRANSPOSE, 15, 15) == (13, 14)
    images = o.symmetries()
    assert len(images) == 8
    assert len({i.canonical() for i in images}) == 1
    rot = o.transform(Symmetry.ROTATE_90)
    assert rot.transform(Symmetry.ROTATE_90).transform(Symmetry.ROTATE_180) == o
    # a symmetric opening has fewer distinct images
    assert len(Opening(((7, 7),)).symmetries()) == 1
    assert len(Opening(((7, 7), (8, 8))).symmetries()) == 4


def test_symmetries_on_rectangular_board() -> None:
    o = Opening(((10, 5), (11, 5), (11, 7)), 20, 12)
    assert Symmetry.for_board(20, 12) == (
        Symmetry.IDENTITY,
        Symmetry.FLIP_X,
        Symmetry.FLIP_Y,
        Symmetry.ROTATE_180,
    )
    assert len(o.symmetries()) == 4
    assert o.transform(Symmetry.FLIP_X).moves[0] == (9, 5)
    with pytest.raises(ValueError, match="needs a square board"):
        o.transform(Symmetry.ROTATE_90)


def test_conversions() -> None:
    o = Opening.from_offsets("0,0, 1,0, 1,3", 15)
    assert o.moves == ((7, 7), (8, 7), (8, 10))
    assert Opening.from_offsets(o.to_offsets(), 15) == o
    assert Opening.from_pos(o.to_pos(), 15) == o
    assert o.recentered(20, 20).moves == ((10, 10), (11, 10), (11, 13))
    assert o.recentered(20, 20).to_offsets() == o.to_offsets()
    with pytest.raises(IllegalOpeningError):
        Opening.from_offsets("-7,-7", 15).recentered(5, 5)
    assert Opening.from_offsets("0,0, 1,1,", 15).moves == ((7, 7), (8, 8))  # trailing comma
    with pytest.raises(ValueError, match="26 column letters"):
        Opening(((26, 0),), 30, 30).to_pos()


# ---------------------------------------------------------------------------------------
# Parsing and detection
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("0,0, 1,0, 1,3\n-1,-1, 2,2\n", OpeningFormat.OFFSET),
        ("-6,1,-6,0,-9,1\n", OpeningFormat.OFFSET),
        ("h8i9j10\nh8\n", OpeningFormat.POS),
        ("h8 h9 h10\n", OpeningFormat.ALGEBRAIC),
        ("# comment\n\nH8 J9 K10\nA1 B2 C3\n", OpeningFormat.GTP),
        ("H8 I9 J10\n", OpeningFormat.ALGEBRAIC),  # uses I, so not GTP
        ("D1\tKansei\th8 h9 h10\n", OpeningFormat.ALGEBRAIC),
    ],
)
def test_detect_format(text: str, fmt: OpeningFormat) -> None:
    assert detect_format(text) is fmt


def test_algebraic_and_gtp_count_rows_from_the_bottom() -> None:
    assert parse_opening_line("a1 o15", "algebraic").moves == ((0, 14), (14, 0))
    assert parse_opening_line("J9", OpeningFormat.GTP).moves == ((8, 6),)
    assert parse_opening_line("i9", OpeningFormat.ALGEBRAIC).moves == ((8, 6),)
    # pos counts rows from the top (digits = y + 1)
    assert parse_opening_line("a1", OpeningFormat.POS).moves == ((0, 0),)


def test_parse_errors_name_source_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("0,0, 1,0\n0,0, 1\n")
    with pytest.raises(OpeningFileError, match=r"bad\.txt:2: offset opening: expected"):
        load_openings(bad, fmt="offset")
    with pytest.raises(OpeningFileError, match=r"bad\.txt:2: not an opening") as info:
        load_openings(bad)
    assert info.value.line_number == 2
    dup = tmp_path / "dup.txt"
    dup.write_text("0,0, 0,0\n")
    with pytest.raises(OpeningFileError, match=r"dup\.txt:1: .*repeats move 1"):
        load_openings(dup)
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("0,0, 1,1\nh8i9\n")
    with pytest.raises(OpeningFileError, match=r"mixed\.txt:2: .*pass fmt="):
        load_openings(mixed)
    with pytest.raises(OpeningFileError, match="GTP skips the letter I"):
        parse_openings("H8 I9", "gtp")
    with pytest.raises(OpeningFileError, match="no openings found"):
        parse_openings("# only a comment\n\n")
    with pytest.raises(OpeningFileError, match="outside the 15x15 board"):
        parse_openings("q3", "pos", 15)


def test_rectangular_offsets_and_comments() -> None:
    openings = parse_openings("0,0, 1,0  # a comment\n\n# skipped\n2,1\n", width=20, height=12)
    assert [o.moves for o in openings] == [((10, 6), (11, 6)), ((12, 7),)]
    assert all((o.width, o.height) == (20, 12) for o in openings)


# ---------------------------------------------------------------------------------------
# Random openings
# ---------------------------------------------------------------------------------------


def test_random_openings_are_reproducible_and_distinct() -> None:
    a = random_openings(50, 15, stones=5, radius=3, seed=42)
    b = random_openings(50, 15, stones=5, radius=3, seed=42)
    assert a == b
    assert random_openings(50, 15, stones=5, radius=3, seed=43) != a
    assert len(dedupe_openings(a)) == 50
    for o in a:
        assert len(o) == 5
        assert o.moves[0] == (7, 7)
        assert all(abs(x - 7) <= 3 and abs(y - 7) <= 3 for x, y in o.moves)
        blacks = set(o.black_stones)
        # no colour has three stones inside one five-square window of a line
        for x, y in blacks:
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                assert sum((x + k * dx, y + k * dy) in blacks for k in range(5)) < 3


def test_random_openings_other_boards_and_errors() -> None:
    rect = random_openings(10, 20, 12, stones=3, radius=2, seed=1)
    assert all(o.moves[0] == (10, 6) and (o.width, o.height) == (20, 12) for o in rect)
    assert random_openings(0, seed=1) == []
    with pytest.raises(ValueError, match="raise radius"):
        random_openings(5, stones=10, radius=1)
    with pytest.raises(ValueError, match="distinct openings"):
        random_openings(1000, stones=2, radius=1, seed=0, max_attempts=2000)
