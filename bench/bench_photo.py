"""How well ``arena photo`` reads boards: per set of pictures, the share of points read
right, stones found and invented, whole boards read exactly, and seconds per picture.

Sets: ``photo``, ``scan`` and ``screen`` are generated (:mod:`arena.photo.synth`, from
the seed ``--first``; the classifier is fitted on seeds 1,000,000 to 1,000,499 and the
reader developed on seeds from 2,000,000, so measure elsewhere), ``dark``, the
screens in negative (a dark theme: light lines on a dark ground), ``numbered``, the
screens with a move number on every stone, and ``text``, boards printed as text by
console programs (:func:`arena.photo.synth.print_board`); the other sets are
folders of pictures, each ``NAME.png`` or ``NAME.jpg`` with its position in
``NAME.json``: ``web``, screenshots of the project's web board written by
``bench/web_screenshots.py``; ``render``, wooden boards rendered in 3D by Blender
(``bench/blender_boards.py``); ``piskvork``, screenshots of Piskvork, the Gomocup
manager (``bench/piskvork_screenshots.py``); ``real``, photographs of real boards, and
``programs``, screenshots of other (Go) programs' boards, and ``gomoku``, screenshots of
Gomoku and renju programs, whose positions were labelled by hand, and ``games``,
photographs of finished Go games labelled by their records
(``bench/suites/photo-real/`` and ``bench/photo_real.py`` say where the pictures come
from).

How pictures count: a refused picture (the reader raised a ``PhotoError``) or one read
with another grid than drawn counts all its points wrong and all its stones lost
(*stones found on grids read* leaves those pictures out: the stones the classifier
found where the grid search did its part); a
reading *in doubt* (points below the confidence asked, or stone counts no game
reaches: ``arena photo`` refuses it, the web board shows it for correction) counts
its points as read (the most likely class of each), and *exact, none in doubt* counts
only the exact readings that ``arena photo`` accepts (given the colour that moved
first where a picture's labels name it: ``"first": "white"`` for programs in which
white moves first, as ``arena photo --first white`` reads them).

    .venv/bin/python bench/bench_photo.py --count 100 --sets photo scan screen
    .venv/bin/python bench/bench_photo.py --web /tmp/web-shots --sets web
    .venv/bin/python bench/bench_photo.py --renders /tmp/renders --sets render
    .venv/bin/python bench/bench_photo.py --gomoku /tmp/photo-real/gomoku --sets gomoku
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from arena.photo.errors import PhotoError
from arena.photo.fit import folder_pictures
from arena.photo.position import COLOURS
from arena.photo.read import read_board
from arena.photo.synth import make_sample, print_board


@dataclass
class Tally:
    pictures: int = 0
    refused: int = 0
    wrong_grid: int = 0
    points: int = 0
    right_points: int = 0
    stones: int = 0
    stones_found: int = 0
    stones_on_grids: int = 0  # the stones of the pictures read with their grid
    invented: int = 0
    exact: int = 0
    in_doubt: int = 0
    exact_sure: int = 0
    seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def add(self, name: str, truth: np.ndarray, read: np.ndarray | None, seconds: float,
            why: str = "", doubts: bool = False) -> None:
        """Count one picture: ``read`` is None when the reader refused it (``why``);
        ``doubts`` when the reading has problems (points below the confidence asked or
        stone counts no game reaches), which ``arena photo`` refuses and the web board
        shows for correction."""
        self.pictures += 1
        self.seconds.append(seconds)
        self.points += truth.size
        stones = int(np.count_nonzero(truth))
        self.stones += stones
        if read is None:
            self.refused += 1
            self.failures.append(f"{name}: refused ({stones} stones): {why}")
            return
        if read.shape != truth.shape:
            self.wrong_grid += 1
            self.failures.append(f"{name}: read {read.shape[1]}x{read.shape[0]}, is "
                                 f"{truth.shape[1]}x{truth.shape[0]} "
                                 f"({stones} stones)")
            return
        self.in_doubt += doubts
        self.stones_on_grids += stones
        self.right_points += int(np.count_nonzero(read == truth))
        self.stones_found += int(np.count_nonzero((read == truth) & (truth != 0)))
        self.invented += int(np.count_nonzero((read != 0) & (truth == 0)))
        if np.array_equal(read, truth):
            self.exact += 1
            self.exact_sure += not doubts
            if doubts:
                self.failures.append(f"{name}: read exactly, but in doubt")
        else:
            wrong = np.argwhere(read != truth)
            self.failures.append(f"{name}: {len(wrong)} points wrong, e.g. x,y "
                                 f"{wrong[0][1]},{wrong[0][0]}: read {read[tuple(wrong[0])]}, "
                                 f"is {truth[tuple(wrong[0])]}")

    def row(self, name: str) -> str:
        pct = lambda a, b: f"{100 * a / b:.2f} %" if b else "-"  # noqa: E731
        return (f"| {name} | {self.pictures} | {pct(self.right_points, self.points)} | "
                f"{pct(self.stones_found, self.stones)} | "
                f"{pct(self.stones_found, self.stones_on_grids)} | {self.invented} | "
                f"{pct(self.exact, self.pictures)} | {pct(self.exact_sure, self.pictures)} | "
                f"{self.in_doubt} | {self.refused} | {self.wrong_grid} | "
                f"{np.mean(self.seconds):.2f} |")


#: The generated screens drawn otherwise (:func:`arena.photo.synth.make_sample`'s flags).
SCREEN_VARIANTS = ("dark", "numbered")

#: The sets read from a folder of pictures, and the option that names the folder.
FOLDER_SETS = {"web": "web", "render": "renders", "piskvork": "piskvork", "real": "real",
               "programs": "programs", "games": "games", "gomoku": "gomoku"}

HEADER = ("| set | pictures | points right | stones found | on grids read | stones invented | "
          "boards exact | exact, none in doubt | in doubt | refused | wrong size | s/picture |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def _read(image: np.ndarray | Path, first: str = "black"
          ) -> tuple[np.ndarray | None, float, str, bool]:
    """The stones read (None if refused), the seconds, why it was refused, and whether
    the reading is in doubt (``first``: the colour that moved first)."""
    started = time.perf_counter()
    try:
        reading = read_board(image, first=COLOURS[first])
    except PhotoError as exc:
        return None, time.perf_counter() - started, str(exc), False
    seconds = time.perf_counter() - started
    return reading.position.stones, seconds, "", bool(reading.problems())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100, help="pictures per generated set")
    parser.add_argument("--first", type=int, default=0, help="first seed")
    parser.add_argument("--sets", nargs="+", default=["photo", "scan", "screen"])
    parser.add_argument("--web", type=Path, help="folder of web board screenshots")
    parser.add_argument("--renders", type=Path, help="folder of Blender renders")
    parser.add_argument("--piskvork", type=Path, help="folder of Piskvork screenshots")
    parser.add_argument("--real", type=Path, help="folder of photographs of real boards")
    parser.add_argument("--programs", type=Path,
                        help="folder of screenshots of other programs' boards")
    parser.add_argument("--gomoku", type=Path,
                        help="folder of screenshots of Gomoku programs (bench/photo_real.py)")
    parser.add_argument("--games", type=Path,
                        help="folder of photographs of finished games (bench/photo_real.py)")
    parser.add_argument("--failures", action="store_true", help="list the misread pictures")
    args = parser.parse_args()
    print(HEADER)
    for name in args.sets:
        tally = Tally()
        if name in FOLDER_SETS:
            folder = getattr(args, FOLDER_SETS[name])
            if folder is None:
                parser.error(f"the {name} set needs --{FOLDER_SETS[name]} FOLDER")
            for path, record in folder_pictures(folder):
                tally.add(path.name, np.array(record["stones"]),
                          *_read(path, record.get("first", "black")))
        else:
            for seed in range(args.first, args.first + args.count):
                sample = (make_sample(seed, "screen", **{name: True})
                          if name in SCREEN_VARIANTS
                          else print_board(seed) if name == "text"
                          else make_sample(seed, name))  # type: ignore[arg-type]
                tally.add(f"{name} {seed}", sample.position.stones, *_read(sample.image))
        print(tally.row(name), flush=True)
        if args.failures:
            for line in tally.failures:
                print("   ", line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
