"""Put the labelled pictures of ``bench/suites/photo-real/`` together with their
positions, for ``bench/bench_photo.py --real``, ``--programs``, ``--games`` and
``--gomoku``.

The pictures are not in this repository. ``real`` and ``programs`` are the public
repository skolchin/gbr's ``img/`` (commit 056e914), a Go board recognition project's
samples, labelled by hand: each position file names its picture (``source``), which is
copied from a clone of gbr next to a copy of the position. ``gomoku`` are screenshots
of Gomoku and renju programs from their public repositories (``source``: ``OWNER/NAME
PATH at COMMIT``), labelled by hand, read from clones of those repositories, each at
``CLONES/OWNER+NAME`` (bare or not; ``--gomoku-clones CLONES``). ``games`` are photographs of
finished Go games from romangoempire/goban-watcher (commit d1f072d), each beside its
game's record there (``games.json`` lists them): the position is the record's last,
replayed here with Go's captures.

    git clone https://github.com/skolchin/gbr /tmp/gbr-src && git -C /tmp/gbr-src checkout 056e914
    git clone https://github.com/romangoempire/goban-watcher /tmp/gw-src \\
        && git -C /tmp/gw-src checkout d1f072d
    PYTHONPATH=. python bench/photo_real.py --gbr /tmp/gbr-src --goban-watcher /tmp/gw-src \\
        --out /tmp/photo-real
    PYTHONPATH=. python bench/photo_real.py --gomoku-clones /tmp/gomoku-clones --out /tmp/photo-real
    PYTHONPATH=. python bench/bench_photo.py --real /tmp/photo-real/real \\
        --programs /tmp/photo-real/programs --games /tmp/photo-real/games \\
        --sets real programs games --failures
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from arena.photo.position import BLACK, WHITE
from brain.game.records import sgf_nodes

LABELS = Path(__file__).resolve().parent / "suites" / "photo-real"


def _group(board: np.ndarray, x: int, y: int) -> tuple[list[tuple[int, int]], bool]:
    """The points of the chain of stones through (x, y), and whether it has a liberty."""
    colour, size = board[y, x], board.shape[0]
    chain, todo, free = {(x, y)}, [(x, y)], False
    while todo:
        cx, cy = todo.pop()
        for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
            if 0 <= nx < size and 0 <= ny < size:
                if board[ny, nx] == 0:
                    free = True
                elif board[ny, nx] == colour and (nx, ny) not in chain:
                    chain.add((nx, ny))
                    todo.append((nx, ny))
    return list(chain), free


def final_position(record: str) -> np.ndarray:
    """The last position of a Go game record (SGF, its moves ``B[xy]``/``W[xy]``, x the
    column from the left, y the row from the top), captures taken, as ``stones[y][x]``
    (0 empty, 1 black, 2 white).

    :raises RecordFormatError: malformed SGF.
    :raises ValueError: the record has no board size.
    """
    nodes = sgf_nodes(record.strip(), "the game's record")
    size = dict(nodes[0]).get("SZ") if nodes else None
    if size is None:
        raise ValueError("not a Go game record: no SZ[]")
    board = np.zeros((int(size[0]),) * 2, np.int8)
    for player, values in (prop for node in nodes for prop in node):
        point = values[0]
        if player not in ("B", "W") or len(point) != 2 or point == "tt":  # tt, "": a pass
            continue
        x, y = ord(point[0]) - ord("a"), ord(point[1]) - ord("a")
        colour = BLACK if player == "B" else WHITE
        board[y, x] = colour
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < board.shape[0] and 0 <= ny < board.shape[0] \
                    and board[ny, nx] == BLACK + WHITE - colour:
                chain, free = _group(board, nx, ny)
                if not free:
                    for cx, cy in chain:
                        board[cy, cx] = 0
    return board


def _hand_labelled(gbr: Path, out: Path) -> list[str]:
    """Copy gbr's pictures beside their hand-made positions; the pictures not found."""
    missing = []
    for labels in sorted([*LABELS.glob("real/*.json"), *LABELS.glob("programs/*.json")]):
        source = json.loads(labels.read_text())["source"]  # "skolchin/gbr img/NAME.EXT at REV"
        picture = gbr / source.split()[1]
        if not picture.exists():
            missing.append(str(picture))
            continue
        folder = out / labels.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(labels, folder / labels.name)
        shutil.copyfile(picture, folder / f"{labels.stem}{picture.suffix}")
    return missing


def _games(clone: Path, out: Path) -> list[str]:
    """Copy goban-watcher's photographs beside their games' last positions; the files
    not found."""
    listing = json.loads((LABELS / "games.json").read_text())
    folder = out / "games"
    folder.mkdir(parents=True, exist_ok=True)
    missing = []
    for entry in listing["pictures"]:
        picture, record = clone / entry["picture"], clone / entry["record"]
        if not (picture.exists() and record.exists()):
            missing.append(str(picture))
            continue
        parts = Path(entry["picture"]).parts
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"game{parts[-2]}_{Path(parts[-1]).stem}")
        source = f"{listing['repository']} {entry['picture']} at {listing['commit']}"
        (folder / f"{name}.json").write_text(json.dumps({
            "stones": final_position(record.read_text()).tolist(), "layout": "points",
            "source": source, "record": entry["record"], "note": entry["note"]}))
        suffix = ".png" if picture.suffix.lower() == ".png" else ".jpg"  # what the bench reads
        shutil.copyfile(picture, folder / f"{name}{suffix}")
    return missing


def _screenshots(clones: Path, out: Path) -> list[str]:
    """Copy each Gomoku program's screenshot, read from its repository's clone at the
    commit its position names, beside that position; the pictures not found."""
    folder = out / "gomoku"
    folder.mkdir(parents=True, exist_ok=True)
    missing = []
    for labels in sorted((LABELS / "gomoku").glob("*.json")):
        place, commit = json.loads(labels.read_text())["source"].rsplit(" at ", 1)
        repository, path = place.split(" ", 1)
        clone = clones / repository.replace("/", "+")
        shown = subprocess.run(["git", "-C", str(clone), "show", f"{commit}:{path}"],
                               capture_output=True)
        if shown.returncode:
            missing.append(f"{repository} {path} at {commit}")
            continue
        suffix = ".jpg" if Path(path).suffix.lower() in (".jpg", ".jpeg") else ".png"
        (folder / f"{labels.stem}{suffix}").write_bytes(shown.stdout)
        shutil.copyfile(labels, folder / labels.name)
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gbr", type=Path, help="a clone of skolchin/gbr (sets real, programs)")
    parser.add_argument("--goban-watcher", type=Path,
                        help="a clone of romangoempire/goban-watcher (set games)")
    parser.add_argument("--gomoku-clones", type=Path,
                        help="a folder of clones, OWNER+NAME, of the repositories named in "
                             "bench/suites/photo-real/gomoku/ (set gomoku)")
    parser.add_argument("--out", type=Path, required=True, help="folder to fill, a subfolder a set")
    args = parser.parse_args()
    if args.gbr is None and args.goban_watcher is None and args.gomoku_clones is None:
        parser.error("name clones: --gbr, --goban-watcher, --gomoku-clones or some of them")
    for clone, fill, what in ((args.gbr, _hand_labelled, "a clone of skolchin/gbr at 056e914"),
                              (args.goban_watcher, _games,
                               "a clone of romangoempire/goban-watcher at d1f072d"),
                              (args.gomoku_clones, _screenshots,
                               "a folder of clones of the repositories named, OWNER+NAME")):
        if clone is None:
            continue
        missing = fill(clone, args.out)
        if missing:
            print(f"{len(missing)} pictures not found (is {clone} {what}?): "
                  f"{' '.join(missing[:5])}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
