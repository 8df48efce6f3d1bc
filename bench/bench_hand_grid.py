"""How well a board is read on a grid set by hand (``arena photo --corners --size``, the
web board's *Grid by hand*), against the reader's own grid, on folders of labelled
pictures (``NAME.png`` or ``NAME.jpg`` beside ``NAME.json``, as ``bench_photo.py`` reads
them).

For each picture the reader finds at its size, its grid's four corners are given by hand
as they are, then moved by up to ``--shift`` of a cell each way (a click a little off;
seeded, ``--seed``; kept inside the picture, as clicks are), and the board read again on
them, the first colour as the labels name it. It prints, per folder, how many
pictures each reading gets exactly and the points it gets wrong in all.

    PYTHONPATH=. .venv/bin/python bench/bench_hand_grid.py /tmp/photo-real/real \\
        /tmp/photo-real/games --shift 0.3
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from arena.photo.errors import PhotoError
from arena.photo.fit import folder_pictures
from arena.photo.hand import HandGrid, grid_corners
from arena.photo.position import COLOURS
from arena.photo.read import load_image, read_board


def _wrong(stones: np.ndarray, known: np.ndarray) -> int:
    return int(np.count_nonzero(stones != known))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders of labelled pictures")
    parser.add_argument("--shift", type=float, default=0.3,
                        help="most a corner is moved, in cells (default 0.3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the moves (default 1)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| folder | pictures read at their size | exact: own grid | exact: corners as "
          f"found | exact: corners {args.shift} cell off | points wrong (own, as found, off) |")
    print("|---|---|---|---|---|---|")
    for folder in args.folders:
        exact = np.zeros(3, int)
        wrong = np.zeros(3, int)
        pictures = 0
        for path, record in folder_pictures(folder):
            known = np.array(record["stones"], np.int8)
            first = COLOURS[record.get("first", "black")]
            picture = load_image(path)
            try:
                reading = read_board(picture, first=first)
            except PhotoError:
                continue
            if reading.position.stones.shape != known.shape:
                continue
            pictures += 1
            last = np.array([picture.shape[1] - 1, picture.shape[0] - 1])
            corners = grid_corners(np.array(reading.points), reading.position.layout)
            moved = corners + rng.uniform(-args.shift, args.shift, corners.shape) * reading.cell
            results = [_wrong(reading.position.stones, known)]
            for given in (corners, moved):
                try:
                    hand = HandGrid(tuple(map(tuple, np.clip(given, 0, last))), known.shape[1],
                                    known.shape[0], reading.position.layout)
                    results.append(_wrong(read_board(picture, first=first, hand=hand)
                                          .position.stones, known))
                except PhotoError:
                    results.append(known.size)
            exact += np.array(results) == 0
            wrong += results
        print(f"| {folder} | {pictures} | {exact[0]} | {exact[1]} | {exact[2]} | "
              f"{wrong[0]}, {wrong[1]}, {wrong[2]} |")


if __name__ == "__main__":
    main()
