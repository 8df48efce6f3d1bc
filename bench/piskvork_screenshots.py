"""Screenshots of Piskvork (the Gomocup manager) with known positions: the ``piskvork``
set of ``bench/bench_photo.py``.

Piskvork is not part of this project: build it yourself outside the checkout (its source
is public; it builds with mingw-w64) and give its ``piskvork.exe``. This script runs it
under wine on a virtual screen (Xvfb) of its own, once per position: it writes a
``.psq`` file of a random position without a five (two people playing, so no brain
moves), sets the board's skin and whether coordinates are shown in Piskvork's registry
key, starts ``piskvork.exe FILE.psq``, and takes a screenshot of its window
with ImageMagick's ``import`` once it is drawn: every other one with a margin of screen
around it, the others of the window alone (its board then touches the picture's edges).
Each ``NAME.png`` gets its position in ``NAME.json``: ``stones[y][x]``, 0 empty, 1
black, 2 white, as the skin shows them (two stone skins give the first player white
stones; the cross-and-ring skins' crosses, the first player's marks, count as black and
their rings as white, as on paper), ``layout`` ("points" for the stone skins, whose
stones stand on the intersections; "cells" for the cross-and-ring skins, whose marks
stand in the cells), the skin, the coordinates setting, whether the margin is there, and
``first``, the colour the first player's marks show in (as ``arena photo --first``
takes it).

Needs wine, Xvfb, xwininfo (x11-utils) and ImageMagick (Debian: ``apt-get install wine
xvfb x11-utils imagemagick``).

    .venv/bin/python bench/piskvork_screenshots.py --piskvork /work/peers/piskvork/piskvork.exe \\
        --count 56 --out /tmp/piskvork-shots
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from arena.photo.position import BLACK, COLOUR_NAMES, WHITE, Layout, Position
from arena.photo.synth import random_position
from brain.game.board import Board, Color

#: Piskvork's skins measured: the five stone skins and the two cross-and-ring ones (the
#: default ``pisq`` and ``wood``), each with the colour it shows the first player's
#: marks in (a cross reads as black) and where it puts them. Its other skins draw gems,
#: umbrellas or stars.
SKINS: dict[str, tuple[int, Layout]] = {
    "HGarden": (BLACK, "points"), "HGarden2": (BLACK, "points"), "whitex": (BLACK, "points"),
    "fontanGomo": (WHITE, "points"), "gomoku": (WHITE, "points"), "pisq": (BLACK, "cells"),
    "wood": (BLACK, "cells")}
SIZES = (15, 15, 20, 20, 19, 10)
REGISTRY = r"HKCU\Software\Petr Lastovicka\piskvorky"
#: Seconds to wait for Piskvork's window to appear and be drawn, and how many times
#: to start it before giving up.
STARTUP, TRIES = 30.0, 3
#: A margin drawn around the window (pixels, colour: Windows' classic grey), as a
#: screenshot of a region of the screen around the window has (Xvfb has no window
#: manager to draw a frame). Piskvork's board touches the window's edges: a screenshot
#: of the window alone ends where its outer tiles end.
FRAME, FRAME_BGR = 16, (200, 208, 212)


def no_five(stones: np.ndarray) -> bool:
    """Whether the stones, played black and white in turn, never make five in a row
    (Piskvork would end the game and put its result over the board)."""
    height, width = stones.shape
    board = Board(width, height)
    moves = Position(stones, np.ones(stones.shape), "points").moves()
    for k, (x, y) in enumerate(moves):
        index = board.index(x, y)
        if board.makes_five(index, Color.BLACK if k % 2 == 0 else Color.WHITE):
            return False
        board.play(index)
    return True


def as_shown(stones: np.ndarray, first: int) -> np.ndarray:
    """The position in the colours a skin shows: ``first`` is the first player's."""
    if first == BLACK:
        return stones
    return np.where(stones == BLACK, WHITE, np.where(stones == WHITE, BLACK, 0)).astype(np.int8)


def windows_path(path: Path) -> str:
    """``path`` as wine's Z: drive sees it."""
    return "Z:" + str(path.resolve()).replace("/", "\\")


class Screen:
    """An Xvfb virtual screen and a wine prefix to run Piskvork in."""

    def __init__(self, prefix: Path, display: int) -> None:
        self.env = dict(os.environ, DISPLAY=f":{display}", WINEPREFIX=str(prefix),
                        WINEDEBUG="-all")
        self.xvfb = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", "1600x1200x24"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        if self.xvfb.poll() is not None:
            raise RuntimeError(f"Xvfb could not open display :{display}: give another "
                               "--display")

    def setting(self, name: str, kind: str, value: str) -> None:
        subprocess.run(["wine", "reg", "add", REGISTRY, "/v", name, "/t", kind, "/d", value,
                        "/f"], env=self.env, check=True, capture_output=True)

    def window(self) -> str | None:
        """Piskvork's main window as ``WxH+X+Y``, once it is shown."""
        tree = subprocess.run(["xwininfo", "-root", "-tree"], env=self.env,
                              capture_output=True, text=True).stdout
        found = re.search(r'"Piskvork": \("piskvork\.exe".*?\)\s+(\d+x\d+\+\d+\+\d+)', tree)
        return found.group(1) if found else None

    def shoot(self, piskvork: Path, psq: Path, picture: Path, framed: bool) -> None:
        """Opens ``psq`` in Piskvork and saves its window to ``picture``, in a margin of
        screen if ``framed``."""
        program = subprocess.Popen(["wine", str(piskvork), windows_path(psq)],
                                   cwd=piskvork.parent, env=self.env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + STARTUP
            while self.window() is None:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Piskvork showed no window in {STARTUP:.0f} s")
                time.sleep(0.5)
            # The window is resized to the position's board and then drawn.
            time.sleep(2.0)
            geometry = self.window()
            assert geometry is not None
            subprocess.run(["import", "-window", "root", "-crop", geometry, "+repage",
                            str(picture)], env=self.env, check=True)
            if framed:
                window = cv2.imread(str(picture))
                cv2.imwrite(str(picture), cv2.copyMakeBorder(
                    window, FRAME, FRAME, FRAME, FRAME, cv2.BORDER_CONSTANT, value=FRAME_BGR))
        finally:
            program.terminate()
            program.wait()
            while self.window() is not None:
                time.sleep(0.2)

    def close(self) -> None:
        subprocess.run(["wineserver", "-k"], env=self.env, capture_output=True)
        self.xvfb.terminate()
        self.xvfb.wait()


def shoot(piskvork: Path, count: int, out: Path, seed: int, prefix: Path,
          display: int) -> list[Path]:
    """Write ``count`` screenshots with their positions into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    screen = Screen(prefix, display)
    written = []
    try:
        with tempfile.TemporaryDirectory() as work:
            for k in range(count):
                size = int(SIZES[k % len(SIZES)])
                stones = random_position(rng, size, size)
                while not no_five(stones):
                    stones = random_position(rng, size, size)
                skin = list(SKINS)[k % len(SKINS)]
                first, layout = SKINS[skin]
                coordinates = int(rng.random() < 0.5)
                framed = k // len(SKINS) % 2 == 0
                screen.setting("skin", "REG_SZ",
                               windows_path(piskvork.parent / "skins" / f"{skin}.bmp"))
                screen.setting("souradnice", "REG_DWORD", str(coordinates))
                psq = Path(work) / f"position{k}.psq"
                # The header's 0:0: two people play, so Piskvork starts no brain.
                text = Position(stones, np.ones(stones.shape), "points").to_psq()
                psq.write_text(text.replace(", 11:11, ", ", 0:0, ", 1))
                name = out / f"piskvork{k:03d}"
                for attempt in range(TRIES):  # wine on a busy machine is sometimes late
                    try:
                        screen.shoot(piskvork, psq, name.with_suffix(".png"), framed)
                        break
                    except RuntimeError:
                        if attempt == TRIES - 1:
                            raise
                name.with_suffix(".json").write_text(json.dumps(
                    {"stones": as_shown(stones, first).astype(int).tolist(),
                     "layout": layout, "skin": skin, "coordinates": bool(coordinates),
                     "framed": framed, "first": COLOUR_NAMES[first]}))
                written.append(name.with_suffix(".png"))
    finally:
        screen.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--piskvork", type=Path, required=True, help="piskvork.exe")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prefix", type=Path, default=Path.home() / ".wine-piskvork",
                        help="the wine prefix (made on first use)")
    parser.add_argument("--display", type=int, default=57, help="the Xvfb display number")
    args = parser.parse_args()
    written = shoot(args.piskvork, args.count, args.out, args.seed, args.prefix, args.display)
    print(f"{len(written)} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
