"""How well line models fit self-play games they did not train on: each model's policy
cross-entropy against the full searches' visit shares, how often its top move is the
search's most visited one, and its value cross-entropy (the trainer's target: 0.7 of the
search's root winrate and 0.3 of the result where both are known), over the chunks of a
replay folder from a given one on, in all eight board symmetries.

Run: ``.venv/bin/python bench/bench_replay_fit.py runs/lrl-8/replay --from-chunk 38
weights/linenet-model.pt runs/lrl-8/candidates/iter-0001.pt``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from brain.train.linenet import BatchMaker, RunConfig, load_model, losses
from brain.train.samples import SampleStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("replay", type=Path, help="a replay folder (games-*.npz chunks)")
    parser.add_argument("models", nargs="+", help="torch models (.pt) to compare")
    parser.add_argument("--from-chunk", type=int, default=0,
                        help="the first chunk read (in name order)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    chunks = sorted(args.replay.glob("games-*.npz"))[args.from_chunk:]
    if not chunks:
        parser.error(f"{args.replay} has no chunk from number {args.from_chunk} on")
    store = SampleStore.concatenate([SampleStore.load(path) for path in chunks])
    maker = BatchMaker(store, torch.device("cpu"))
    game = np.asarray(store.game)
    heights, widths = np.asarray(store.height)[game], np.asarray(store.width)[game]
    shapes = sorted(set(zip(heights.tolist(), widths.tolist(), strict=True)))
    for path in args.models:
        model = load_model(path)
        model.eval()
        policy_sum = value_sum = agree = 0.0
        taught = positions = 0
        with torch.no_grad():
            for height, width in shapes:
                rows = torch.as_tensor(np.flatnonzero((heights == height) & (widths == width)))
                for symmetry in range(8):
                    batch = maker.batch(rows, height, width, symmetry)
                    loss = losses(model, batch, RunConfig.teacher_weight)
                    logits, _ = model(batch["planes"], batch["flags"])
                    logits = logits.masked_fill(batch["occupied"], -1e4)
                    has = int((batch["policy"].sum(1) > 0).sum())
                    searched = batch["move"] >= 0
                    policy_sum += float(loss["policy"]) * has
                    value_sum += float(loss["value"]) * len(rows)
                    agree += float((logits.argmax(1) == batch["move"])[searched].sum())
                    taught += has
                    positions += len(rows)
        print(f"{path}: policy {policy_sum / taught:.4f}, top move {agree / taught:.3f}, "
              f"value {value_sum / positions:.4f} ({taught // 8:,} positions with visit "
              f"shares, {positions // 8:,} in all, {len(chunks)} chunks)")


if __name__ == "__main__":
    main()
