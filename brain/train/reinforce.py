"""Self-play reinforcement: generate, train, gate, promote; resumable at every step.

One iteration:

1. the current best player plays ``games`` self-play games into the replay folder
   (:mod:`brain.train.selfplay`); the first best may be the pattern model guiding the
   tree search (expert iteration from a hand-made teacher) or a supervised network;
2. the training network takes ``steps`` optimizer steps on random replay batches (visit
   distributions as policy targets, game results as value targets), continuing from its
   last checkpoint (initially a supervised checkpoint, or a fresh model);
3. the result is exported to ``candidates/iter-NNNN.npz`` and plays a gating match
   against the best player in the arena (``python -m arena run``, fixed playouts per move
   so that strength is compared, not speed, unless ``gate_tc_ms`` is set);
4. the candidate becomes the best player if it scores at least ``gate_score``.

With a cluster (``run(config, cluster=ADDRESS)``, ``--cluster``), the self-play games are
Ray tasks (:mod:`brain.train.cluster`) and the gating match is an arena run on the same
cluster (``python -m arena run --cluster``); training stays on the driver.

``state.json`` records what is done, so re-running the same command after a crash or a
kill continues the iteration where it stopped (self-play tops up its game count, a
finished training step is not repeated, and the arena resumes its own run).
"""

from __future__ import annotations

import json
import logging
import shlex
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from brain.eval.network import Architecture
from brain.train.checkpoint import load_checkpoint, model_from_checkpoint, save_checkpoint
from brain.train.cluster import cluster_games, connect_cluster
from brain.train.export import export_checkpoint
from brain.train.model import PolicyValueModel
from brain.train.selfplay import (
    HEURISTIC,
    ReplayBuffer,
    SelfPlayConfig,
    SelfPlayLog,
    best_evaluator,
    generate,
    record_games,
)
from brain.train.supervised import compute_losses
from driver.cluster import RayConnection

log = logging.getLogger("brain.train")


@dataclass
class RlConfig:
    """Settings of a reinforcement run (saved in ``state.json``)."""

    out: str
    #: Starting checkpoint of the trained network (None: a fresh model).
    initial: str | None = None
    #: Starting best player: a weights file, or ``heuristic``.
    best: str = HEURISTIC
    iterations: int = 10
    games: int = 32
    steps: int = 200
    batch_size: int = 256
    lr: float = 5e-4
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    buffer: int = 100_000
    playouts: int = 160
    gate_pairs: int = 6
    gate_playouts: int = 200
    gate_tc_ms: int = 0
    gate_score: float = 0.55
    threads: int = 1
    seed: int = 0
    blocks: int = 6
    channels: int = 48


@dataclass
class RlState:
    """Progress of a run: the iteration in hand, the best player and the record."""

    config: RlConfig
    iteration: int = 0
    best: str = HEURISTIC
    trained_iteration: int = -1
    history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def open(cls, config: RlConfig) -> RlState:
        path = Path(config.out) / "state.json"
        if not path.exists():
            return cls(config, best=config.best)
        data = json.loads(path.read_text())
        saved = RlConfig(**data["config"])
        if asdict(saved) != {**asdict(config), "iterations": saved.iterations}:
            raise ValueError(f"{config.out} holds a run with other settings; use another "
                             "--out or the same settings (only --iterations may change)")
        saved.iterations = config.iterations
        return cls(saved, data["iteration"], data["best"], data["trained_iteration"],
                   data["history"])

    def save(self) -> None:
        path = Path(self.config.out) / "state.json"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({
            "config": asdict(self.config), "iteration": self.iteration, "best": self.best,
            "trained_iteration": self.trained_iteration, "history": self.history,
        }, indent=2))
        temporary.replace(path)


def brain_command(best: str, playouts: int) -> str:
    """The arena brain command line for a player (``heuristic`` or a weights file)."""
    weights = ("--no-network" if best == HEURISTIC
               else f"--weights {shlex.quote(str(Path(best).resolve()))} --network-role leaves")
    budget = f" --playouts {playouts}" if playouts else ""
    return f"{sys.executable} -m brain {weights}{budget}"


def train_steps(state: RlState, buffer: ReplayBuffer) -> dict[str, float]:
    """Run one iteration's optimizer steps; checkpoints ``latest.pt``."""
    config, out = state.config, Path(state.config.out)
    torch.set_num_threads(config.threads)
    latest = out / "latest.pt"
    source = latest if latest.exists() else (Path(config.initial) if config.initial else None)
    if source is not None:
        payload = load_checkpoint(source)
        model = model_from_checkpoint(payload)
    else:
        payload = {}
        model = PolicyValueModel(Architecture(config.blocks, config.channels))
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr,
                                  weight_decay=config.weight_decay)
    if source == latest:
        optimizer.load_state_dict(payload["optimizer"])
    rng = np.random.default_rng([config.seed, state.iteration])
    model.train()
    totals = {"policy": 0.0, "value": 0.0}
    for _ in range(config.steps):
        batch = buffer.sample(rng, config.batch_size)
        planes, policy, wdl = (torch.from_numpy(a) for a in (batch.planes, batch.policy,
                                                             batch.wdl))
        policy_logits, wdl_logits = model.forward_groups([planes])[0]
        losses = compute_losses(policy_logits, wdl_logits, planes, policy, wdl)
        loss = losses.policy + config.value_weight * losses.value
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        totals["policy"] += losses.policy.item() / config.steps
        totals["value"] += losses.value.item() / config.steps
    model.eval()
    step = int(payload.get("step", 0)) + config.steps
    save_checkpoint(latest, {
        **payload, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
        "architecture": asdict(model.architecture), "step": step,
        "samples": int(payload.get("samples", 0)) + config.steps * config.batch_size,
        "wall_time_s": payload.get("wall_time_s", 0.0), "history": payload.get("history", []),
        "rl_iteration": state.iteration,
    })
    return totals


def gate(state: RlState, candidate: Path, cluster: str | None = None) -> float:
    """The candidate's score against the best player in an arena match (on the cluster at
    ``cluster``, if given)."""
    config = state.config
    placement = ["--cluster", cluster] if cluster is not None else ["--concurrency", "1"]
    run = Path(config.out) / "gates" / f"iter-{state.iteration:04d}"
    command = [
        sys.executable, "-m", "arena", "run",
        brain_command(str(candidate), config.gate_playouts),
        brain_command(state.best, config.gate_playouts),
        "--name", "1=candidate", "--name", "2=best", "--pairs", str(config.gate_pairs),
        "--tc", str(config.gate_tc_ms or 30_000), "--no-progress", *placement,
        "--seed", str(config.seed + state.iteration), "--out", str(run),
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    results = json.loads((run / "results.json").read_text())
    candidate_row = next(p for p in results["players"] if p["name"] == "candidate")
    return candidate_row["points"] / max(candidate_row["games"], 1)


def run(config: RlConfig, cluster: str | None = None) -> RlState:
    """Run (or resume) the loop until ``config.iterations`` iterations are done, on the
    Ray cluster at ``cluster`` if given (an address of :func:`driver.cluster.connect`)."""
    if cluster is None:
        return _iterate(config, None)
    with connect_cluster(cluster) as connection:
        return _iterate(config, connection)


def _iterate(config: RlConfig, connection: RayConnection | None) -> RlState:
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    state = RlState.open(config)
    replay = out / "replay"
    while state.iteration < state.config.iterations:
        c = state.config
        wanted = (state.iteration + 1) * c.games
        done = SelfPlayLog.read(replay).games
        if done < wanted:
            log.info("iteration %d: self-play with %s", state.iteration, state.best)
            selfplay = SelfPlayConfig(playouts=c.playouts, seed=c.seed)
            if connection is None:
                generate(best_evaluator(state.best), replay, wanted - done, selfplay)
            else:
                record_games(cluster_games(state.best, selfplay), replay, wanted - done)
        if state.trained_iteration < state.iteration:
            buffer = ReplayBuffer(replay, c.buffer)
            samples = buffer.load()
            losses = train_steps(state, buffer)
            state.trained_iteration = state.iteration
            state.history.append({"iteration": state.iteration, "samples": samples,
                                  **{f"{k}_loss": round(v, 4) for k, v in losses.items()}})
            state.save()
        candidate = out / "candidates" / f"iter-{state.iteration:04d}.npz"
        export_checkpoint(out / "latest.pt", candidate)
        score = gate(state, candidate, connection and connection.address)
        promoted = score >= c.gate_score
        state.history[-1].update({"gate_score": round(score, 3), "promoted": promoted,
                                  "against": state.best})
        if promoted:
            state.best = str(candidate)
        log.info("iteration %d: candidate scored %.1f%% against the best: %s",
                 state.iteration, 100 * score, "promoted" if promoted else "kept the best")
        state.iteration += 1
        state.save()
    return state

