"""Writes the sample pictures of ``tests/test_photo.py`` and their positions
(``positions.json``): generated pictures (:mod:`arena.photo.synth`, seeds far from the
measured and fitted sets), made small, and pictures that other tools took (each kept
as it is when it is not given): a screenshot of the web board taken by
``bench/web_screenshots.py``, wooden boards rendered in 3D by ``bench/blender_boards.py``
(made small), screenshots of Piskvork taken by ``bench/piskvork_screenshots.py``.

The pictures from seed 2,000,000 on (the development seeds) are ones the reader once
got wrong, each for a cause since fixed: a crowded board drawn in cells whose lines
vanish beside the stones (refused as T-junctions), a 19x19 board read with every
other line (19x10), a white stone under a screen's red last-move ring, and
empty screen boards drawn in cells (read as intersections: one with its coordinates
between the lines, one whose picture ends at its last line). Those from seed 4,000,000
on (the measurement seeds of the round that fixed them) are crowded small screen boards
read with too few lines (an edge column full of stones trimmed as a margin, 9x9 read
as 8x9; trimmed again as a row of coordinates, 10x10 as 7x10; the stones' edges taken
for the lines, 10x10 as 5x7) and a white stone under a grey last-move dot read as an
empty point. Seed 6,000,057 (of the fresh seeds that round measured on) is a 19x9 board
drawn in cells with one stone, read as an empty 20x10 board on the intersections; seed
6,000,139 a 9x9 board with 73 % of its points covered, read as 5x9 (its white stones'
outlines taken for arms of T-junctions). Seed 6,000,095 has a white stone under a grey
last-move ring, read as an empty point; seed 8,000,030 dark red lines on an orange board,
whose soft edges were painted over as a red last-move mark (two empty points read as
white stones, 16 in doubt); seed 8,000,069 a clean scan of a 10x10 board in cells read
as 8x9 (the ripple between its lines passed for lines; kept at JPEG quality 95, as 10x8:
at 90 the ripple is lost); seed 8,000,025 a 15x20 photo with 102 stones under strong
pincushion distortion, read as 15x11 (the lens bends its crowded lower rows off their
places in the rectified view, whose trim dropped them).

    PYTHONPATH=. .venv/bin/python tests/data/photo/make.py [--web /tmp/web-shots/web001.png]
        [--picture render_wood.jpg=/tmp/renders/render-1013.jpg ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from arena.photo.synth import make_sample

HERE = Path(__file__).resolve().parent
#: (file, kind, seed, longer side in pixels, JPEG quality)
GENERATED = (
    ("photo_wood.jpg", "photo", 500_002, 800, 75),
    ("photo_paper.jpg", "photo", 500_007, 800, 75),
    ("photo_ink.jpg", "photo", 500_009, 800, 75),
    ("scan_paper.jpg", "scan", 500_000, 520, 80),
    ("screen_cells.png", "screen", 500_003, 0, 0),
    ("screen_rect.png", "screen", 500_004, 0, 0),
    ("photo_crowded_cells.jpg", "photo", 2_000_040, 640, 70),
    ("photo_every_line.jpg", "photo", 2_000_001, 0, 70),
    ("screen_marked_white.png", "screen", 2_000_079, 0, 0),
    ("screen_empty_labels.png", "screen", 2_000_003, 0, 0),
    ("screen_empty_edge.png", "screen", 2_000_144, 0, 0),
    ("screen_crowded_column.png", "screen", 4_000_021, 0, 0),
    ("screen_crowded_edge.png", "screen", 4_000_189, 0, 0),
    ("screen_stone_edges.png", "screen", 4_000_182, 0, 0),
    ("screen_grey_dot.png", "screen", 4_000_048, 0, 0),
    ("screen_one_stone.png", "screen", 6_000_057, 0, 0),
    ("screen_crowded_white.png", "screen", 6_000_139, 0, 0),
    ("screen_grey_ring.png", "screen", 6_000_095, 0, 0),
    ("screen_red_lines.png", "screen", 8_000_030, 0, 0),
    ("scan_clean_lines.jpg", "scan", 8_000_069, 0, 95),
    ("photo_pincushion.jpg", "photo", 8_000_025, 640, 70),
)


#: Longer side and JPEG quality of the pictures taken by other tools, when made small.
TAKEN_SIDE, TAKEN_QUALITY = 800, 80


def _write(name: str, image: np.ndarray, side: int, quality: int) -> None:
    if side and max(image.shape[:2]) > side:
        scale = side / max(image.shape[:2])
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if name.endswith(".jpg") else \
        [cv2.IMWRITE_PNG_COMPRESSION, 9]
    cv2.imwrite(str(HERE / name), image, params)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--web", type=Path, help="a screenshot of bench/web_screenshots.py")
    parser.add_argument("--picture", action="append", default=[], metavar="NAME=PATH",
                        help="a picture with its position beside it (PATH's .json), kept "
                             "as NAME (.jpg: made small; .png: as it is)")
    args = parser.parse_args()
    known: dict[str, object] = json.loads((HERE / "positions.json").read_text())
    for name, kind, seed, side, quality in GENERATED:
        sample = make_sample(seed, kind)  # type: ignore[arg-type]
        _write(name, sample.image, side, quality)
        known[name] = {"layout": sample.position.layout,
                       "stones": sample.position.stones.astype(int).tolist(),
                       "made": f"arena.photo.synth.make_sample({seed}, {kind!r})"}
    if args.web:
        (HERE / "web_board.png").write_bytes(args.web.read_bytes())
        stones = np.array(json.loads(args.web.with_suffix(".json").read_text())["stones"])
        known["web_board.png"] = {"layout": "points", "stones": stones.tolist(),
                                  "made": "bench/web_screenshots.py --count 2 --seed 0"}
    for given in args.picture:
        name, path = given.split("=", 1)
        record = json.loads(Path(path).with_suffix(".json").read_text())
        _write(name, cv2.imread(path), TAKEN_SIDE, TAKEN_QUALITY)
        made = {key: value for key, value in record.items() if key not in ("stones", "layout")}
        known[name] = {"layout": record.get("layout", "points"), "stones": record["stones"],
                       "made": f"{Path(path).name}: {json.dumps(made)}"}
    (HERE / "positions.json").write_text(json.dumps(known, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
