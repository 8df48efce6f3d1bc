"""Fitting the stone classifier (:class:`arena.photo.stones.StoneModel`) on synthetic
pictures: ``python -m arena.photo.fit`` writes ``arena/photo/stones.npz``.

Each picture of :func:`arena.photo.synth.make_sample` is measured as the reader measures
it (:func:`arena.photo.read.measure`, the real grid search included, so the training
points carry its small misplacements). The points of the true layout are labelled with
the position; those of the other layout (the cell centres of a board played on the
intersections, and the reverse) are labelled empty, which teaches the network that a
point between stones is not a stone. Pictures whose grid is not found as drawn are
left out. Seeds start at 1,000,000 so that the measured sets (seeds from 0) stay unseen.
The committed weights (session 22, docs/photo.md) are the average (``--average``: one
network whose logits are the mean of theirs) of two fits on 2,000 photos (``--photos``,
the kind misread most), 500 scans and 500 screens, the 30 renders of seeds 100 to 129
counted ten times, and the real photographs (gbr's 14 counted twenty times, the 25 of
finished games ten): one with ``--seed 1``, one with the scans' and screens' points
counted twice (``--screen-weight 2``).
Pictures from elsewhere, each with its position beside it (``--folder``: the 3D renders
of ``bench/blender_boards.py``, whose stones have height, gloss and a side; the real
photographs of ``bench/photo_real.py``), are measured and labelled the same way and
added, each point counted ``--folder-weight`` times (one weight for every folder, or one
a folder: a few pictures beside thousands of generated ones).

    FIT="--photos 2000 --cache /tmp/fitcache.npz --folder /tmp/rdev --folder real \
         --folder games --folder-weight 10 --folder-weight 20 --folder-weight 10"
    PYTHONPATH=. .venv/bin/python -m arena.photo.fit $FIT --jobs 2 --seed 1 --out /tmp/a.npz
    PYTHONPATH=. .venv/bin/python -m arena.photo.fit $FIT --screen-weight 2 --out /tmp/b.npz
    PYTHONPATH=. .venv/bin/python -m arena.photo.fit --average /tmp/a.npz /tmp/b.npz

(``real`` and ``games``: the folders ``bench/photo_real.py`` writes.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arena.photo.errors import PhotoError
from arena.photo.position import TRADED, Layout
from arena.photo.read import load_image, measure
from arena.photo.stones import WEIGHTS, StoneModel
from arena.photo.synth import KINDS, Kind, make_sample

__all__ = ["Points", "collect", "collect_folder", "folder_pictures", "main", "measuring_code",
           "train"]

#: First seed of the training pictures.
TRAINING_SEED = 1_000_000


def _labelled(image: np.ndarray, stones: np.ndarray, layout: Layout
              ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The measured points of a picture of the position ``stones`` (in ``layout``) and
    their labels; nothing if its grid is not found as drawn."""
    try:
        measured = measure(image)
    except PhotoError:
        return [], []
    height, width = stones.shape
    lines = (width, height) if layout == "points" else (width + 1, height + 1)
    if (measured.grid.lines_x, measured.grid.lines_y) != lines:
        return [], []
    if measured.negative:  # measured on the negative, where the colours trade places
        stones = TRADED[stones]
    rows, labels = [], []
    for name, features in measured.features.items():
        rows.append(features)
        labels.append(stones.ravel() if name == layout else np.zeros(len(features), np.int8))
    return rows, labels


def _measured_sample(job: tuple[int, Kind]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    sample = make_sample(*job)
    return _labelled(sample.image, sample.position.stones, sample.position.layout)


#: The modules whose code draws and measures the pictures: points measured by other code
#: than theirs are measured again rather than fitted on (a changed measurement of some
#: points would be fitted on as it was).
MEASURING = ("synth", "grid", "tiles", "marks", "stones", "read")


def measuring_code() -> str:
    """A fingerprint of the code of :data:`MEASURING`."""
    digest = hashlib.sha256()
    for name in MEASURING:
        digest.update((Path(__file__).resolve().parent / f"{name}.py").read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Points:
    """Measured points with their labels (0 empty, 1 black, 2 white), the picture each
    comes from (its kind's index in :data:`KINDS` and its seed), how many pictures of
    each kind were measured (those whose grid was not found as drawn gave none), and
    the fingerprint of the code that measured them (:func:`measuring_code`)."""

    features: np.ndarray
    labels: np.ndarray
    kinds: np.ndarray
    seeds: np.ndarray
    measured: dict[Kind, int]
    code: str

    def of(self, counts: Mapping[Kind, int], first_seed: int = TRAINING_SEED) -> Points:
        """The points of the first ``counts[kind]`` pictures of each kind."""
        keep = np.zeros(len(self.labels), bool)
        for index, kind in enumerate(KINDS):
            keep |= (self.kinds == index) & (self.seeds < first_seed + counts.get(kind, 0))
        return Points(self.features[keep], self.labels[keep], self.kinds[keep],
                      self.seeds[keep], {kind: min(self.measured.get(kind, 0),
                                                   counts.get(kind, 0)) for kind in KINDS},
                      self.code)

    def joined(self, more: Points) -> Points:
        """These points and ``more``'s (pictures of other seeds, measured by the same
        code) in the order :func:`collect` gives them when it measures all at once, so
        that a cache topped up fits exactly as one measured in one go."""
        if more.code != self.code:
            raise ValueError(f"points measured by other code ({more.code}, not {self.code})")
        kinds = np.concatenate([self.kinds, more.kinds])
        seeds = np.concatenate([self.seeds, more.seeds])
        order = np.lexsort((seeds, kinds))  # stable: a picture's points keep their order
        return Points(np.concatenate([self.features, more.features])[order],
                      np.concatenate([self.labels, more.labels])[order], kinds[order],
                      seeds[order], {kind: self.measured[kind] + more.measured[kind]
                                     for kind in KINDS}, self.code)

    def save(self, path: Path) -> None:
        np.savez(path, features=self.features, labels=self.labels, kinds=self.kinds,
                 seeds=self.seeds, measured=[self.measured.get(kind, 0) for kind in KINDS],
                 code=self.code)

    @classmethod
    def load(cls, path: Path) -> Points:
        """The points saved in ``path`` (a cache saved before fingerprints were kept
        has the empty one, which no code has)."""
        with np.load(path) as data:
            return cls(data["features"], data["labels"], data["kinds"], data["seeds"],
                       dict(zip(KINDS, data["measured"].tolist(), strict=True)),
                       str(data["code"]) if "code" in data else "")


def collect(counts: Mapping[Kind, int], first_seed: int = TRAINING_SEED, jobs: int = 1,
            skip: Mapping[Kind, int] | None = None) -> Points:
    """The measured points of ``counts[kind]`` pictures of each kind (seeds from
    ``first_seed``, the first ``skip[kind]`` of them left out: a cache holds them),
    measured by ``jobs`` processes; the same points in the same order whatever
    ``jobs``. ``measured`` counts the pictures measured here."""
    skip = skip or {}
    work = [(seed, kind) for kind in KINDS
            for seed in range(first_seed + skip.get(kind, 0), first_seed + counts.get(kind, 0))]
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            found = pool.map(_measured_sample, work, chunksize=8)
    else:
        found = [_measured_sample(job) for job in work]
    sizes = [sum(len(row) for row in rows) for rows, _ in found]
    return Points(np.concatenate([row for rows, _ in found for row in rows]),
                  np.concatenate([label for _, part in found for label in part]
                                 ).astype(np.int64),
                  np.repeat([KINDS.index(kind) for _, kind in work], sizes).astype(np.int8),
                  np.repeat([seed for seed, _ in work], sizes).astype(np.int64),
                  {kind: max(counts.get(kind, 0) - skip.get(kind, 0), 0) for kind in KINDS},
                  measuring_code())


def folder_pictures(folder: Path) -> Iterator[tuple[Path, dict]]:
    """The pictures of ``folder`` that have their position beside them: each
    ``NAME.png`` or ``NAME.jpg`` with the record of its ``NAME.json`` (``stones[y][x]``,
    ``layout``), in the order of the names."""
    for known in sorted(folder.glob("*.json")):
        picture = next((p for p in (known.with_suffix(".png"), known.with_suffix(".jpg"))
                        if p.exists()), None)
        if picture is not None:
            yield picture, json.loads(known.read_text())


def collect_folder(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """Measurements and labels of the pictures of :func:`folder_pictures` (as
    ``bench/blender_boards.py`` writes them).

    :raises ValueError: the folder holds no picture whose grid is found as drawn.
    """
    rows, labels = [], []
    for picture, record in folder_pictures(folder):
        found = _labelled(load_image(picture), np.array(record["stones"], np.int8),
                          record.get("layout", "points"))
        rows += found[0]
        labels += found[1]
    if not rows:
        raise ValueError(f"{folder}: no picture with its position (NAME.json) read as drawn")
    return np.concatenate(rows), np.concatenate(labels).astype(np.int64)


def train(features: np.ndarray, labels: np.ndarray, hidden: int = 48, epochs: int = 30,
          batch: int = 512, seed: int = 0) -> StoneModel:
    """A network fitted by mini-batch Adam on the cross-entropy, each class weighted by
    the inverse square root of its frequency (stones are rarer than empty points, but
    the empty points of the board's edges and corners must not be given up for them)."""
    rng = np.random.default_rng(seed)
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-3
    x = ((features - mean) / scale).astype(np.float32)
    count, width = x.shape
    params = [rng.normal(0, np.sqrt(2 / width), (width, hidden)).astype(np.float32),
              np.zeros(hidden, np.float32),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, 3)).astype(np.float32),
              np.zeros(3, np.float32)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    frequency = np.bincount(labels, minlength=3) / count
    class_weight = 1 / np.sqrt(np.maximum(frequency, 1e-6))
    class_weight /= (class_weight * frequency).sum()
    onehot = np.eye(3, dtype=np.float32)[labels]
    step = 0
    for epoch in range(epochs):
        rate = 0.003 if epoch < epochs * 0.6 else 0.0006
        order = rng.permutation(count)
        for start in range(0, count, batch):
            part = order[start:start + batch]
            xb, yb = x[part], onehot[part]
            wb = class_weight[labels[part]][:, None] / len(part)
            w1, b1, w2, b2 = params
            pre = xb @ w1 + b1
            h = np.maximum(pre, 0)
            logits = h @ w2 + b2
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            d_logits = (p - yb) * wb
            d_h = d_logits @ w2.T * (pre > 0)
            grads = [xb.T @ d_h + 1e-4 * w1, d_h.sum(axis=0), h.T @ d_logits + 1e-4 * w2,
                     d_logits.sum(axis=0)]
            step += 1
            for k, g in enumerate(grads):
                moments[k] = 0.9 * moments[k] + 0.1 * g
                squares[k] = 0.999 * squares[k] + 0.001 * g * g
                m_hat = moments[k] / (1 - 0.9 ** step)
                v_hat = squares[k] / (1 - 0.999 ** step)
                # Weights that weight decay alone moves (a hidden unit no point wakes)
                # shrink to subnormal numbers, on which every matrix product runs ten
                # times slower: a fit of two million points took 20 minutes, not 2.
                params[k] = params[k] - rate * m_hat / (np.sqrt(v_hat) + 1e-8)
                params[k][np.abs(params[k]) < 1e-30] = 0.0
    w1, b1, w2, b2 = (p.astype(np.float32) for p in params)
    return StoneModel(mean.astype(np.float32), scale.astype(np.float32), w1, b1, w2, b2)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.photo.fit",
                                     description="Fit the stone classifier on synthetic "
                                                 "pictures and write its weights.")
    parser.add_argument("--pictures", type=int, default=500,
                        help="scans, and screens unless --screens is given (default 500)")
    parser.add_argument("--screens", type=int,
                        help="screens, when they should be more or fewer than the scans "
                             "(default: as many as --pictures)")
    parser.add_argument("--photos", type=int, default=500,
                        help="photos, the kind misread most (default 500, as the "
                             "committed weights)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes measuring the pictures (default 1)")
    parser.add_argument("--out", default=str(WEIGHTS), help=f"weights file (default {WEIGHTS})")
    parser.add_argument("--cache", type=Path,
                        help="keep the measured points in this .npz file and reuse them "
                             "when it exists (to fit again quickly); a cache of more "
                             "pictures serves a fit on fewer, one of fewer has the "
                             "others measured and added, one measured by other code of "
                             "the reader is measured again")
    parser.add_argument("--folder", action="append", type=Path, default=[],
                        help="also fit on the pictures of this folder, each with its "
                             "position in NAME.json (Blender renders of "
                             "bench/blender_boards.py, the real photographs of "
                             "bench/photo_real.py); may be given more than once")
    parser.add_argument("--folder-weight", action="append", type=int, default=[],
                        help="how many times each point of the folders counts (default "
                             "1); given once, for every folder, else once a folder, "
                             "in their order")
    parser.add_argument("--screen-weight", type=int, default=1,
                        help="how many times each point of the scans and screens counts "
                             "(default 1)")
    parser.add_argument("--hidden", type=int, default=48,
                        help="hidden units of the network (default 48)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the network's first weights and of its batches "
                             "(default 0)")
    parser.add_argument("--average", nargs="+", type=Path, metavar="WEIGHTS",
                        help="fit nothing: write the average of these fitted networks "
                             "(one network whose logits are the mean of theirs)")
    args = parser.parse_args(argv)
    if args.average:
        StoneModel.averaged([StoneModel.load(path) for path in args.average]).save(args.out)
        print(f"the average of {len(args.average)} networks written to {args.out}",
              file=sys.stderr)
        return 0
    folder_weights = args.folder_weight or [1]
    if len(folder_weights) == 1:
        folder_weights = folder_weights * len(args.folder)
    if len(folder_weights) != len(args.folder):
        parser.error(f"{len(args.folder_weight)} --folder-weight for {len(args.folder)} "
                     "--folder: give one for all of them or one for each")
    counts: dict[Kind, int] = {kind: args.pictures for kind in KINDS}
    counts["photo"] = args.photos
    if args.screens is not None:
        counts["screen"] = args.screens
    started = time.perf_counter()
    points = Points.load(args.cache) if args.cache and args.cache.exists() else None
    if points is not None and points.code != measuring_code():
        print(f"{args.cache} was measured by other code of the reader than this: measuring "
              "them all again", file=sys.stderr)
        points = None
    if points is None:
        points = collect(counts, jobs=args.jobs)
        if args.cache:
            points.save(args.cache)
    elif any(points.measured[kind] < counts[kind] for kind in KINDS):
        print(f"{args.cache} holds fewer pictures ({points.measured}) than asked: "
              "measuring the others", file=sys.stderr)
        points = points.joined(collect(counts, jobs=args.jobs, skip=points.measured))
        points.save(args.cache)
    points = points.of(counts)
    flat = np.isin(points.kinds, [KINDS.index("scan"), KINDS.index("screen")])
    repeats = np.where(flat, args.screen_weight, 1)
    features, labels = np.repeat(points.features, repeats, axis=0), np.repeat(points.labels,
                                                                              repeats)
    print(f"{len(labels)} points (scans' and screens' counted {args.screen_weight} times) "
          f"from {points.measured} pictures "
          f"({np.bincount(labels, minlength=3).tolist()} empty/black/white), "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    for folder, weight in zip(args.folder, folder_weights, strict=True):
        more, more_labels = collect_folder(folder)
        print(f"{len(more_labels)} points from {folder} "
              f"({np.bincount(more_labels, minlength=3).tolist()} empty/black/white), "
              f"counted {weight} times", file=sys.stderr)
        features = np.concatenate([features, *[more] * weight])
        labels = np.concatenate([labels, *[more_labels] * weight])
    model = train(features, labels, hidden=args.hidden, seed=args.seed)
    predicted = model.probabilities(features).argmax(axis=1)
    print(f"training accuracy {np.mean(predicted == labels):.5f}", file=sys.stderr)
    model.save(args.out)
    print(f"weights written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
