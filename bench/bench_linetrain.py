"""Speed of a training step of the line-pattern network on the CPU.

Batches of ``--batch-size`` positions of one board shape drawn from sample files (default:
the Rapfi-labelled positions and the first self-play run's games in weights/training/),
the model of weights/linenet-model.pt, AdamW. Figures per board shape, in CPU time
(``time.process_time``, so that other processes on the machine do not count), one thread:
seconds a step (batch, forward, backward, update) and the distinct line windows a batch
holds among its cell-directions (each computed once).

Run: ``.venv/bin/python bench/bench_linetrain.py [--steps 10] [--batch-size 256]
[FILE ...]``
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch
from tabulate import tabulate

from brain.resources import weights_dir
from brain.train.linenet import RunConfig, Trainer, losses
from brain.train.samples import SampleStore

FILES = [weights_dir() / "training" / "linenet-teacher.npz",
         weights_dir() / "training" / "linenet-selfplay-lrl1.npz"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=[str(f) for f in FILES])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()
    torch.set_num_threads(1)
    store = SampleStore.concatenate([SampleStore.load(f) for f in args.files])
    rows = []
    with tempfile.TemporaryDirectory() as out:
        config = RunConfig(out=out, batch_size=args.batch_size, validation_fraction=0.0,
                           initial=str(weights_dir() / "linenet-model.pt"))
        trainer = Trainer(config, store, torch.device("cpu"))
        for height, width, samples, _ in trainer.groups:
            rng = np.random.default_rng(1)
            seconds, distinct = [], []
            for _ in range(args.steps + 1):  # the first step warms up
                pick = torch.as_tensor(samples[rng.integers(0, len(samples), args.batch_size)])
                started = time.process_time()
                batch = trainer.batches.batch(pick, height, width, 0)
                parts = losses(trainer.model, batch, config.teacher_weight)
                trainer.optimizer.zero_grad(set_to_none=True)
                (parts["policy"] + parts["value"]).backward()
                trainer.optimizer.step()
                seconds.append(time.process_time() - started)
                rows_of = trainer.model.lines.window_rows(batch["planes"])
                distinct.append(len(torch.unique(rows_of)) / rows_of.numel())
            source = store.sources[store.source[samples[0]]]
            rows.append((f"{height}x{width}", source, len(samples), f"{np.mean(seconds[1:]):.3f}",
                         f"{100 * np.mean(distinct[1:]):.1f} %"))
    print(tabulate(rows, headers=("board", "source", "samples", "s a step", "distinct windows")))


if __name__ == "__main__":
    main()
