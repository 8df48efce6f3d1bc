"""Supervised training on game records: the move played is the policy target, the game's
result the value target.

A run lives in one directory: ``train.log`` (progress and validation, also on stderr),
``last.pt`` (written every ``checkpoint_every`` steps and at the end), ``best.pt`` (the
checkpoint with the lowest validation loss) and ``validation.jsonl`` (one record per
evaluation). Starting a run in a directory that holds ``last.pt`` resumes it with the
saved settings; only the number of epochs may be changed (which stretches the learning
rate schedule).

The learning rate warms up linearly, then follows a cosine down to 1 % of its peak over
``epochs * steps_per_epoch`` steps; an epoch is, unless set, one pass's worth of samples
over the training positions. Every batch mixes the sources in fixed proportions: the
square roots of their positions unless weights are given (so the small freestyle files
are not drowned by the renju file).
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from brain.eval.features import legal_from_planes
from brain.eval.network import Architecture
from brain.train.checkpoint import BEST, LAST, load_checkpoint, save_checkpoint
from brain.train.data import (
    DEFAULT_DATA_DIR,
    SOURCES,
    Batch,
    BatchStream,
    PositionSampler,
    load_source,
    split_records,
)
from brain.train.model import PolicyValueModel
from brain.train.teachdata import TargetSettings, teacher_samplers

log = logging.getLogger("brain.train")

#: Logit given to illegal cells (occupied, renju fouls) before the policy softmax.
ILLEGAL_LOGIT = -1e9


@dataclass
class TrainConfig:
    """Settings of a supervised run; ``None`` means "pick for the hardware"."""

    out: str
    blocks: int = 6
    channels: int = 48
    policy_channels: int = 16
    value_channels: int = 16
    value_hidden: int = 64
    sources: list[str] = field(default_factory=lambda: list(SOURCES))
    source_weights: list[float] | None = None
    data_dir: str = str(DEFAULT_DATA_DIR)
    max_games: int | None = None
    validation_fraction: float = 0.03
    validation_positions: int = 4096
    epochs: float = 1.0
    #: Length of the run in minutes of training instead of ``epochs``: the number of steps
    #: is set from the measured rate, and set again every ``PROBE_STEPS`` steps (another
    #: run may start or end beside it), so that the learning-rate schedule ends on time;
    #: ``epochs`` keeps the latest estimate for a resume.
    minutes: float | None = None
    steps_per_epoch: int | None = None
    batch_size: int | None = None
    lr: float = 2e-3
    weight_decay: float = 1e-4
    warmup_steps: int = 200
    value_weight: float = 1.0
    checkpoint_every: int = 500
    log_every: int = 50
    seed: int = 0
    threads: int | None = None
    workers: int | None = None
    device: str | None = None
    precision: str | None = None
    #: Teacher run folders (``python -m brain.train teach``) mixed in as more sources.
    teacher: list[str] = field(default_factory=list)
    teacher_temperature: float = 0.5
    teacher_outcome_weight: float = 0.5
    #: Teacher positions' value target from continuation outcomes alone (none without).
    teacher_outcomes_only: bool = False
    #: A weights file (``.npz``) a new run starts from instead of random weights; its
    #: architecture replaces blocks, channels and the head sizes.
    initial: str | None = None

    def architecture(self) -> Architecture:
        return Architecture(self.blocks, self.channels, self.policy_channels,
                            self.value_channels, self.value_hidden)


@dataclass
class Hardware:
    """Where and how the run computes."""

    device: torch.device
    batch_size: int
    workers: int
    bf16: bool

    @classmethod
    def pick(cls, config: TrainConfig) -> Hardware:
        if config.threads is not None:
            torch.set_num_threads(config.threads)
        cuda = torch.cuda.is_available()
        device = torch.device(config.device or ("cuda" if cuda else "cpu"))
        on_gpu = device.type == "cuda"
        batch_size = config.batch_size or (1024 if on_gpu else 256)
        workers = (config.workers if config.workers is not None
                   else min(8, (os.cpu_count() or 1) - 1) if on_gpu else 0)
        precision = config.precision or ("bf16" if on_gpu and torch.cuda.is_bf16_supported()
                                         else "fp32")
        if precision not in ("bf16", "fp32"):
            raise ValueError(f"precision must be bf16 or fp32, not {precision!r}")
        return cls(device, batch_size, max(workers, 0), precision == "bf16")


@dataclass
class Data:
    """Training samplers, validation sets and what was loaded."""

    train: list[PositionSampler]
    weights: list[float]
    validation: dict[str, Batch]
    summary: dict[str, Any]


def load_data(config: TrainConfig) -> Data:
    """Load, verify and split every source of ``config``."""
    train: list[PositionSampler] = []
    validation: dict[str, Batch] = {}
    summary: dict[str, Any] = {}
    for name in config.sources:
        if name not in SOURCES:
            raise ValueError(f"unknown source {name!r}: choose from {', '.join(SOURCES)}")
        started = time.monotonic()
        records, report = load_source(SOURCES[name], Path(config.data_dir), config.max_games)
        train_records, validation_records = split_records(records, config.validation_fraction)
        sampler = PositionSampler(name, train_records)
        train.append(sampler)
        if validation_records:
            validation[name] = PositionSampler(name, validation_records).all_positions(
                config.validation_positions, seed=config.seed)
        else:
            log.warning("%s: no game fell into the validation split", name)
        summary[name] = {
            "file": SOURCES[name].path, "games": report.kept, "dropped": dict(report.dropped),
            "relabelled": report.relabelled, "truncated": report.truncated,
            "train_games": len(train_records), "train_positions": sampler.positions,
            "validation_games": len(validation_records),
            "validation_positions": len(validation.get(name, ())),
        }
        log.info("%s; %d train positions, %d validation positions (%.0f s)", report.summary(),
                 sampler.positions, summary[name]["validation_positions"],
                 time.monotonic() - started)
    if config.teacher:
        settings = TargetSettings(config.teacher_temperature, config.teacher_outcome_weight,
                                  config.teacher_outcomes_only)
        for sampler, held in teacher_samplers(config.teacher, settings,
                                              config.validation_fraction):
            train.append(sampler)
            if held is not None:
                validation[sampler.name] = held.all_positions(config.validation_positions,
                                                              seed=config.seed)
            summary[sampler.name] = {
                "folders": list(config.teacher), "train_positions": sampler.positions,
                "validation_positions": len(validation.get(sampler.name, ())),
                "targets": asdict(settings)}
            log.info("%s: %d train positions, %d validation positions from %s",
                     sampler.name, sampler.positions,
                     summary[sampler.name]["validation_positions"], ", ".join(config.teacher))
    weights = config.source_weights or [math.sqrt(s.positions) for s in train]
    if len(weights) != len(train):
        raise ValueError(f"{len(weights)} source weights for {len(train)} sources")
    return Data(train, list(weights), validation, summary)


class _TorchStream(torch.utils.data.IterableDataset):
    """Batches of a :class:`BatchStream` as lists of (planes, policy, wdl) arrays, one per
    board shape, with a different random stream per worker."""

    def __init__(self, stream: BatchStream, seed: int, step: int) -> None:
        super().__init__()
        self.stream, self.seed, self.step = stream, seed, step

    def __iter__(self) -> Iterator[list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, self.step, info.id if info else 0])
        for groups in self.stream.batches(rng):
            yield [(batch.planes, batch.policy, batch.wdl) for batch in groups]


@dataclass
class Losses:
    """Mean losses of a batch and how many samples count for each."""

    policy: torch.Tensor
    value: torch.Tensor
    policy_rows: int
    value_rows: int

    @staticmethod
    def merge(parts: Sequence[Losses]) -> Losses:
        """The losses of the union of the batches of ``parts``."""
        n_policy = sum(p.policy_rows for p in parts)
        n_value = sum(p.value_rows for p in parts)
        return Losses(sum(p.policy * p.policy_rows for p in parts) / max(n_policy, 1),
                      sum(p.value * p.value_rows for p in parts) / max(n_value, 1),
                      n_policy, n_value)


def compute_losses(policy_logits: torch.Tensor, wdl_logits: torch.Tensor,
                   planes: torch.Tensor, policy: torch.Tensor, wdl: torch.Tensor) -> Losses:
    """Cross-entropies of the policy (over legal cells) and of the win/draw/loss head
    against (soft) targets. Rows with an all-zero target are left out, and so are policy
    targets that put weight on an illegal cell (which would make the loss explode)."""
    legal = legal_from_planes(planes)
    logits = policy_logits.float().masked_fill(~legal, ILLEGAL_LOGIT)
    policy_rows = (policy.sum(dim=1) > 0) & ((policy * ~legal).sum(dim=1) == 0)
    value_rows = wdl.sum(dim=1) > 0
    policy_loss = -(policy * F.log_softmax(logits, dim=1)).sum(dim=1)
    value_loss = -(wdl * F.log_softmax(wdl_logits.float(), dim=1)).sum(dim=1)
    n_policy, n_value = int(policy_rows.sum()), int(value_rows.sum())
    return Losses(policy_loss[policy_rows].sum() / max(n_policy, 1),
                  value_loss[value_rows].sum() / max(n_value, 1), n_policy, n_value)


def masked_logits(policy_logits: torch.Tensor, planes: torch.Tensor) -> torch.Tensor:
    """Float32 policy logits with the illegal cells pushed to :data:`ILLEGAL_LOGIT`."""
    return policy_logits.float().masked_fill(~legal_from_planes(planes), ILLEGAL_LOGIT)


@torch.no_grad()
def validate(model: PolicyValueModel, batch: Batch, device: torch.device,
             chunk: int = 512) -> dict[str, float]:
    """Policy loss, top-1/top-5 accuracy of the recorded move, value cross-entropy and
    value MSE (P(win) - P(loss) against the result) over a validation set, in float32."""
    model.eval()
    totals = dict.fromkeys(("policy_loss", "top1", "top5", "value_loss", "value_mse"), 0.0)
    n_policy = n_value = 0
    for part in batch.chunks(chunk):
        planes, policy, wdl = (torch.from_numpy(a).to(device)
                               for a in (part.planes, part.policy, part.wdl))
        policy_logits, wdl_logits = model(planes)
        losses = compute_losses(policy_logits, wdl_logits, planes, policy, wdl)
        rows = policy.sum(dim=1) > 0
        top = masked_logits(policy_logits, planes)[rows].topk(5, dim=1).indices
        target = policy[rows].argmax(dim=1, keepdim=True)
        totals["top1"] += float((top[:, :1] == target).sum())
        totals["top5"] += float((top == target).any(dim=1).sum())
        totals["policy_loss"] += float(losses.policy) * losses.policy_rows
        totals["value_loss"] += float(losses.value) * losses.value_rows
        value_rows = wdl.sum(dim=1) > 0
        probs = torch.softmax(wdl_logits[value_rows], dim=1)
        truth = wdl[value_rows]
        error = (probs[:, 0] - probs[:, 2]) - (truth[:, 0] - truth[:, 2])
        totals["value_mse"] += float(error.square().sum())
        n_policy += losses.policy_rows
        n_value += losses.value_rows
    return {
        "policy_loss": totals["policy_loss"] / max(n_policy, 1),
        "top1": totals["top1"] / max(n_policy, 1),
        "top5": totals["top5"] / max(n_policy, 1),
        "value_loss": totals["value_loss"] / max(n_value, 1),
        "value_mse": totals["value_mse"] / max(n_value, 1),
        "positions": len(batch),
    }


def learning_rate(config: TrainConfig, step: int, total_steps: int) -> float:
    """Linear warm-up, then a cosine from ``lr`` down to 1 % of it at ``total_steps``."""
    if step < config.warmup_steps:
        return config.lr * (step + 1) / config.warmup_steps
    progress = min(1.0, (step - config.warmup_steps) / max(1, total_steps - config.warmup_steps))
    return config.lr * (0.01 + 0.99 * 0.5 * (1 + math.cos(math.pi * progress)))


#: A run of ``minutes`` skips this many steps (loader start-up, kernel selection), then
#: measures its rate over every ``PROBE_STEPS`` steps.
PROBE_SKIP = 20
PROBE_STEPS = 100
#: Share of the remaining minutes given to steps; the rest covers validation.
PROBE_MARGIN = 0.95
#: A new run's length until the first probe has set it: the cosine stays at its peak.
UNKNOWN_LENGTH = 10**9


def _setup_logging(out: Path) -> None:
    log.setLevel(logging.INFO)
    log.propagate = False
    for old in list(log.handlers):
        log.removeHandler(old)
        old.close()
    formatter = logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S")
    for handler in (logging.FileHandler(out / "train.log"), logging.StreamHandler(sys.stderr)):
        handler.setFormatter(formatter)
        log.addHandler(handler)


def _format_duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h{minutes % 60:02d}m"


@dataclass
class Progress:
    """Counters of a run, saved in its checkpoints."""

    step: int = 0
    samples: int = 0
    #: Wall-clock seconds of training: batches, steps and validation, summed over the
    #: sessions of a resumed run (loading the game files at each start not counted).
    wall_time_s: float = 0.0
    #: Lowest validation score so far (weighted policy + value loss).
    best: float = math.inf
    history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of_checkpoint(cls, payload: dict[str, Any]) -> Progress:
        return cls(payload["step"], payload["samples"], payload["wall_time_s"],
                   payload.get("best", math.inf), payload["history"])


class Trainer:
    """One supervised run: model, optimizer, data and progress."""

    def __init__(self, config: TrainConfig, hardware: Hardware, data: Data,
                 resumed: dict[str, Any] | None = None) -> None:
        self.config, self.hardware, self.data = config, hardware, data
        self.out = Path(config.out)
        self.steps_per_epoch = config.steps_per_epoch or max(
            1, sum(s.positions for s in data.train) // hardware.batch_size)
        self.total_steps = (UNKNOWN_LENGTH if config.minutes is not None and resumed is None
                            else max(1, round(config.epochs * self.steps_per_epoch)))
        self.model = self._initial_model(resumed).to(hardware.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr,
                                           weight_decay=config.weight_decay)
        self.progress = Progress()
        if resumed is not None:
            self.model.load_state_dict(resumed["model"])
            self.optimizer.load_state_dict(resumed["optimizer"])
            self.progress = Progress.of_checkpoint(resumed)
        self._weights = {s.name: w for s, w in zip(data.train, data.weights, strict=True)}
        #: (monotonic time, wall_time_s) when this session started training.
        self._clock = (time.monotonic(), self.progress.wall_time_s)

    def _initial_model(self, resumed: dict[str, Any] | None) -> PolicyValueModel:
        """Random weights, or those of ``initial`` for a new run (batch norm calibrated on
        one training batch, :func:`brain.train.export.unfold`)."""
        config = self.config
        if resumed is not None or config.initial is None:
            return PolicyValueModel(config.architecture())
        from brain.train.export import unfold

        stream = BatchStream(self.data.train, self.data.weights, self.hardware.batch_size)
        # A key of another length than the training streams' (seed, step, worker).
        groups = next(stream.batches(np.random.default_rng([config.seed, 0, 0, 1])))
        model = unfold(config.initial, [torch.from_numpy(batch.planes) for batch in groups])
        a = model.architecture
        config.blocks, config.channels = a.blocks, a.channels
        config.policy_channels, config.value_channels = a.policy_channels, a.value_channels
        config.value_hidden = a.value_hidden
        log.info("starting from the weights of %s (%s)", config.initial, a)
        return model

    def train(self) -> None:
        """Run the remaining steps, logging every ``log_every`` steps and validating and
        checkpointing every ``checkpoint_every`` steps and at the end of every epoch (and
        at step 0 of a run from a weights file)."""
        config, progress = self.config, self.progress
        parameters = sum(p.numel() for p in self.model.parameters())
        length = (f"{config.minutes:g} minutes" if config.minutes is not None
                  else f"{self.total_steps} steps")
        log.info("model %s (%d parameters); %s of %d samples (%d steps per epoch), "
                 "from step %d", config.architecture(), parameters, length,
                 self.hardware.batch_size, self.steps_per_epoch, progress.step)
        batches = iter(torch.utils.data.DataLoader(
            _TorchStream(BatchStream(self.data.train, self.data.weights,
                                     self.hardware.batch_size), config.seed, progress.step),
            batch_size=None, num_workers=self.hardware.workers,
            pin_memory=self.hardware.device.type == "cuda",
            persistent_workers=self.hardware.workers > 0))
        if progress.step == 0 and config.initial is not None:
            # The starting network's figures on the same held-out sets: the baseline a
            # fine-tune must beat, and best.pt until one of its checkpoints does.
            self.evaluate()
        losses: list[tuple[float, float]] = []
        window_started, window_samples = time.monotonic(), 0
        self._clock = (time.monotonic(), progress.wall_time_s)
        probe_start, probe_started = progress.step + PROBE_SKIP, 0.0
        while progress.step < self.total_steps:
            groups = next(batches)
            losses.append(self._step(groups))
            probed = progress.step - probe_start
            if config.minutes is not None and probed >= 0 and probed % PROBE_STEPS == 0:
                now = time.monotonic()
                if probed:
                    self._fit_to_minutes((now - probe_started) / PROBE_STEPS)
                probe_started = now
            window_samples += sum(len(planes) for planes, _, _ in groups)
            if progress.step % config.log_every == 0 or progress.step == self.total_steps:
                now = time.monotonic()
                rate = window_samples / max(now - window_started, 1e-9)
                if self.total_steps == UNKNOWN_LENGTH:
                    # A run of minutes before its first probe: no length to count down.
                    length, eta = "?", "once the step time is measured"
                else:
                    length = str(self.total_steps)
                    eta = _format_duration(
                        (self.total_steps - progress.step) * self.hardware.batch_size / rate)
                policy_loss, value_loss = np.mean(losses, axis=0)
                log.info("step %d/%s (epoch %.2f) | policy %.4f value %.4f | lr %.2e | "
                         "%.0f samples/s | eta %s", progress.step, length,
                         progress.step / self.steps_per_epoch, policy_loss, value_loss,
                         self.optimizer.param_groups[0]["lr"], rate, eta)
                losses, window_started, window_samples = [], now, 0
            if (progress.step % config.checkpoint_every == 0
                    or progress.step % self.steps_per_epoch == 0):
                self.evaluate()
        if not progress.history or progress.history[-1]["step"] != progress.step:
            self.evaluate()
        self._tick()
        log.info("finished %d steps (%d samples) in %s of training", progress.step,
                 progress.samples, _format_duration(progress.wall_time_s))

    def _fit_to_minutes(self, seconds_per_step: float) -> None:
        """Set the run's length so that its steps, at ``seconds_per_step``, fill what is left
        of ``minutes``; logged when it moves by more than 2 %. Called right after a step,
        which brought ``wall_time_s`` up to date."""
        config, progress = self.config, self.progress
        assert config.minutes is not None
        left = config.minutes * 60 - progress.wall_time_s
        total = progress.step + max(1, int(left * PROBE_MARGIN / seconds_per_step))
        if abs(total - self.total_steps) > 0.02 * self.total_steps:
            log.info("%.1f ms a step: %d steps fill the %.1f minutes left",
                     seconds_per_step * 1e3, total, left / 60)
        self.total_steps = total
        config.epochs = total / self.steps_per_epoch

    def _step(self, groups: Sequence[Sequence[torch.Tensor]]) -> tuple[float, float]:
        """One optimizer step on a mixed batch of (planes, policy, wdl) groups, one per
        board shape; returns its (policy, value) losses."""
        device = self.hardware.device
        groups = [[t.to(device, non_blocking=True) for t in group] for group in groups]
        lr = learning_rate(self.config, self.progress.step, self.total_steps)
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr
        self.model.train()
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=self.hardware.bf16):
            outputs = self.model.forward_groups([planes for planes, _, _ in groups])
        losses = Losses.merge([compute_losses(policy_logits, wdl_logits, *group)
                               for (policy_logits, wdl_logits), group
                               in zip(outputs, groups, strict=True)])
        loss = losses.policy + self.config.value_weight * losses.value
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.progress.step += 1
        self.progress.samples += sum(len(planes) for planes, _, _ in groups)
        self._tick()
        return losses.policy.item(), losses.value.item()

    def _tick(self) -> None:
        """Bring :attr:`Progress.wall_time_s` up to now."""
        started, before = self._clock
        self.progress.wall_time_s = before + time.monotonic() - started

    def evaluate(self) -> None:
        """Validate on every source, log and record the metrics, save ``best.pt`` on a
        new best score and ``last.pt`` always."""
        progress = self.progress
        self._tick()
        record: dict[str, Any] = {"step": progress.step, "samples": progress.samples,
                                  "wall_time_s": round(progress.wall_time_s, 1)}
        score = total_weight = 0.0
        for name, batch in self.data.validation.items():
            metrics = validate(self.model, batch, self.hardware.device)
            record[name] = metrics
            total_weight += self._weights[name]
            score += self._weights[name] * (metrics["policy_loss"]
                                            + self.config.value_weight * metrics["value_loss"])
            log.info("validation %-14s step %d: policy loss %.4f top-1 %.3f top-5 %.3f | "
                     "value loss %.4f mse %.4f (%d positions)", name, progress.step,
                     metrics["policy_loss"], metrics["top1"], metrics["top5"],
                     metrics["value_loss"], metrics["value_mse"], metrics["positions"])
        record["score"] = score / total_weight if total_weight else math.inf
        progress.history.append(record)
        with open(self.out / "validation.jsonl", "a", encoding="utf-8") as stream:
            stream.write(json.dumps(record) + "\n")
        if record["score"] < progress.best:
            progress.best = record["score"]
            save_checkpoint(self.out / BEST, self.checkpoint())
            log.info("new best validation score %.4f: saved %s", progress.best,
                     self.out / BEST)
        save_checkpoint(self.out / LAST, self.checkpoint())

    def checkpoint(self) -> dict[str, Any]:
        """The checkpoint payload (see :mod:`brain.train.checkpoint`)."""
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "architecture": asdict(self.config.architecture()),
                "config": asdict(self.config), "data": self.data.summary,
                **asdict(self.progress)}


def run(config: TrainConfig, epochs_override: float | None = None) -> Path:
    """Train (or resume) the run in ``config.out``; returns the path of ``last.pt``."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    _setup_logging(out)
    resumed: dict[str, Any] | None = None
    if (out / LAST).is_file():
        resumed = load_checkpoint(out / LAST)
        saved = {f.name for f in fields(TrainConfig)}
        config = TrainConfig(**{k: v for k, v in resumed["config"].items() if k in saved})
        config.out = str(out)
        log.info("resuming %s at step %d", out / LAST, resumed["step"])
    if epochs_override is not None:
        config.epochs = epochs_override
    hardware = Hardware.pick(config)
    log.info("device %s, batch %d, %d loader workers, %s, %d torch threads",
             hardware.device, hardware.batch_size, hardware.workers,
             "bf16 autocast" if hardware.bf16 else "fp32", torch.get_num_threads())
    Trainer(config, hardware, load_data(config), resumed).train()
    return out / LAST
