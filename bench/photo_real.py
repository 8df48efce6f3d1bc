"""Put the hand-labelled pictures of ``bench/suites/photo-real/`` together with their
positions, for ``bench/bench_photo.py --real`` and ``--programs``.

The pictures are not in this repository: they are the public repository
skolchin/gbr's ``img/`` (commit 056e914), a Go board recognition project's samples.
Each position file names its picture (``source``); this copies that picture from a
clone of gbr next to a copy of the position, one folder a set.

    git clone https://github.com/skolchin/gbr /tmp/gbr-src && git -C /tmp/gbr-src checkout 056e914
    python bench/photo_real.py --gbr /tmp/gbr-src --out /tmp/photo-real
    PYTHONPATH=. python bench/bench_photo.py --real /tmp/photo-real/real \\
        --programs /tmp/photo-real/programs --sets real programs --failures
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "suites" / "photo-real"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gbr", type=Path, required=True, help="a clone of skolchin/gbr")
    parser.add_argument("--out", type=Path, required=True, help="folder to fill, a subfolder a set")
    args = parser.parse_args()
    missing = []
    for labels in sorted(LABELS.glob("*/*.json")):
        source = json.loads(labels.read_text())["source"]  # "skolchin/gbr img/NAME.EXT at REV"
        picture = args.gbr / source.split()[1]
        if not picture.exists():
            missing.append(str(picture))
            continue
        folder = args.out / labels.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(labels, folder / labels.name)
        shutil.copyfile(picture, folder / f"{labels.stem}{picture.suffix}")
    if missing:
        print(f"{len(missing)} pictures not found (is {args.gbr} a clone of skolchin/gbr at "
              f"056e914?): {' '.join(missing[:5])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
