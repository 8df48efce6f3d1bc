"""Writes the sample pictures of ``tests/test_photo.py`` and their positions
(``positions.json``): generated pictures (:mod:`arena.photo.synth`, seeds far from the
measured and fitted sets), made small, and one screenshot of the web board taken by
``bench/web_screenshots.py`` (kept as it is when no screenshot is given).

The pictures from seed 2,000,000 on (the development seeds) are ones the reader once
got wrong, each for a cause since fixed: a crowded board drawn in cells whose lines
vanish beside the stones (refused as T-junctions), a 19x19 board read with every
other line (19x10), a white stone under a screen's red last-move ring, and
empty screen boards drawn in cells (read as intersections: one with its coordinates
between the lines, one whose picture ends at its last line).

    PYTHONPATH=. .venv/bin/python tests/data/photo/make.py [/tmp/web-shots/web001.png]
"""

from __future__ import annotations

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
)


def main() -> int:
    known: dict[str, object] = json.loads((HERE / "positions.json").read_text())
    for name, kind, seed, side, quality in GENERATED:
        sample = make_sample(seed, kind)  # type: ignore[arg-type]
        image = sample.image
        if side:
            scale = side / max(image.shape[:2])
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        params = [cv2.IMWRITE_JPEG_QUALITY, quality] if name.endswith(".jpg") else \
            [cv2.IMWRITE_PNG_COMPRESSION, 9]
        cv2.imwrite(str(HERE / name), image, params)
        known[name] = {"layout": sample.position.layout,
                       "stones": sample.position.stones.astype(int).tolist(),
                       "made": f"arena.photo.synth.make_sample({seed}, {kind!r})"}
    if len(sys.argv) > 1:
        web = Path(sys.argv[1])
        (HERE / "web_board.png").write_bytes(web.read_bytes())
        stones = np.array(json.loads(web.with_suffix(".json").read_text())["stones"])
        known["web_board.png"] = {"layout": "points", "stones": stones.tolist(),
                                  "made": "bench/web_screenshots.py --count 2 --seed 0"}
    (HERE / "positions.json").write_text(json.dumps(known, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
