"""Self-play reinforcement: generate, train, gate, promote; resumable at every step.

The loop serves two networks (``RlConfig.network``): ``conv``, the policy/value network of
``--engine mcts``, and ``line``, the line-pattern network of ``--engine linenet``
(:mod:`brain.train.linerl`). One iteration:

1. the current best player plays ``games`` self-play games into the replay folder
   (:mod:`brain.train.selfplay`, :mod:`brain.train.lineplay`); the first best may be the
   pattern model guiding the tree search (expert iteration from a hand-made teacher), a
   supervised network, or the shipped line network;
2. the training network takes ``steps`` optimizer steps on random replay batches (visit
   distributions as policy targets, game results as value targets), continuing from its
   last checkpoint (initially ``initial``, or a fresh model);
3. the result is exported to ``candidates/iter-NNNN.npz`` and plays a gating match
   against the best player in the arena (``python -m arena run``, fixed playouts per move
   so that strength is compared, not speed, unless ``gate_tc_ms`` is set), from the
   openings of ``gate-openings.txt`` (the learner's: 3 random stones for the
   convolutional network, judged near even for the line network), which no self-play
   game starts from;
4. the candidate becomes the best player if it scores at least ``gate_score`` or, with
   ``gate_sprt``, when the gate's sequential test accepts its stronger hypothesis.

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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from brain.eval.network import Architecture
from brain.game.openings import Opening, load_openings, random_openings
from brain.train.checkpoint import load_checkpoint, model_from_checkpoint, save_checkpoint
from brain.train.cluster import cluster_games, connect_cluster
from brain.train.export import export_checkpoint
from brain.train.model import PolicyValueModel
from brain.train.rlstate import GATE_SETTINGS, Learner, RlConfig, RlState
from brain.train.selfplay import (
    HEURISTIC,
    ReplayBuffer,
    SelfPlayConfig,
    SelfPlayLog,
    best_evaluator,
    generate,
    opening_keys,
    record_games,
)
from brain.train.supervised import compute_losses
from driver.cluster import RayConnection

log = logging.getLogger("brain.train")

#: Added to the run's seed for its gating openings (apart from self-play's streams).
GATE_SEED = 7_919


class ConvLearner:
    """The policy/value network of ``--engine mcts``."""

    def first_best(self) -> str:
        return HEURISTIC  # the tree search guided by the pattern model

    def play(self, state: RlState, games: int, excluded: frozenset,
             connection: RayConnection | None) -> None:
        selfplay = SelfPlayConfig(playouts=state.config.playouts, seed=state.games_seed())
        if connection is None:
            generate(best_evaluator(state.best), state.replay, games, selfplay,
                     excluded=excluded)
        else:
            record_games(cluster_games(state.best, selfplay, excluded), state.replay, games)

    def train(self, state: RlState) -> dict[str, float]:
        buffer = ReplayBuffer(state.replay, state.config.buffer)
        samples = buffer.load()
        return {"samples": samples, **train_steps(state, buffer)}

    def export(self, state: RlState, candidate: Path) -> None:
        export_checkpoint(Path(state.config.out) / "latest.pt", candidate)

    def gate_openings(self, judge: str, count: int, seed: int) -> list[Opening]:
        return random_openings(count, 15, 15, stones=3, radius=3, seed=seed)

    def brain_command(self, best: str, playouts: int) -> str:
        return brain_command(best, playouts)


def learner_for(config: RlConfig) -> Learner:
    """The learner of ``config.network``."""
    if config.network == "conv":
        return ConvLearner()
    if config.network == "line":
        from brain.train.linerl import LineLearner

        return LineLearner()
    raise ValueError(f"unknown network {config.network!r}: choose conv or line")


def brain_command(best: str, playouts: int) -> str:
    """The arena brain command line for a player of the convolutional network
    (``heuristic`` or a weights file)."""
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


def gate_openings(state: RlState, learner: Learner) -> Path:
    """The run's gating openings, ``OUT/gate-openings.txt``: those of
    ``config.gate_openings_file``, else the learner's (:meth:`Learner.gate_openings`,
    judged by the run's first best player), written once: a resumed run keeps them.

    :raises OpeningFileError: if the given file has a bad line or an opening off 15x15.
    """
    config = state.config
    path = Path(config.out) / "gate-openings.txt"
    if not path.exists():
        openings = (load_openings(config.gate_openings_file, width=15)
                    if config.gate_openings_file else
                    learner.gate_openings(state.best, config.gate_openings,
                                          config.seed + GATE_SEED))
        temporary = path.with_suffix(".tmp")
        temporary.write_text("".join(o.to_offsets() + "\n" for o in openings))
        temporary.replace(path)
    return path


@dataclass(frozen=True)
class GateResult:
    """A gate's outcome: the candidate's score, its games, and the decision."""

    score: float
    games: int
    promoted: bool
    #: The sequential test's state (``H0``, ``H1`` or ``continue``) and log-likelihood
    #: ratio; None for a gate of fixed length.
    sprt: dict[str, Any] | None = None


def gate(state: RlState, candidate: Path, learner: Learner, openings: Path,
         cluster: str | None = None) -> GateResult:
    """The candidate's arena match against the best player (on the cluster at ``cluster``,
    if given) from the run's gating openings (the file ``openings``), taken in an order of
    its own for each iteration, with the gate settings the iteration's record holds (those
    of the run when its gate began: a gate half played when a resumed run changed them
    ends as it began)."""
    record = state.history[-1]
    if "gate" not in record:
        record["gate"] = {k: getattr(state.config, k) for k in GATE_SETTINGS}
        state.save()
    settings = record["gate"]
    placement = ["--cluster", cluster] if cluster is not None else ["--concurrency", "1"]
    sprt = settings["gate_sprt"]
    test = ["--sprt", *map(str, sprt)] if sprt else []
    run = Path(state.config.out) / "gates" / f"iter-{state.iteration:04d}"
    command = [
        sys.executable, "-m", "arena", "run",
        learner.brain_command(str(candidate), settings["gate_playouts"]),
        learner.brain_command(state.best, settings["gate_playouts"]),
        "--name", "1=candidate", "--name", "2=best", "--pairs", str(settings["gate_pairs"]),
        "--openings", str(openings), "--opening-order", "random", *test,
        "--tc", str(settings["gate_tc_ms"] or 30_000), "--no-progress", *placement,
        "--seed", str(state.config.seed + state.iteration), "--out", str(run),
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    results = json.loads((run / "results.json").read_text())
    row = next(p for p in results["players"] if p["name"] == "candidate")
    score = row["points"] / max(row["games"], 1)
    if not sprt:
        return GateResult(score, row["games"], score >= settings["gate_score"])
    test_result = {k: results["sprt"][k] for k in ("state", "llr")}
    return GateResult(score, row["games"], test_result["state"] == "H1", test_result)


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
    learner = learner_for(config)
    state = RlState.open(config, learner.first_best())
    state.save()  # a new run's drawn seed, before any game is played with it
    openings = gate_openings(state, learner)
    excluded = opening_keys(load_openings(openings, width=15))
    while state.iteration < state.config.iterations:
        c = state.config
        wanted = (state.iteration + 1) * c.games
        done = SelfPlayLog.read(state.replay).games
        if done < wanted:
            log.info("iteration %d: self-play with %s", state.iteration, state.best)
            learner.play(state, wanted - done, excluded, connection)
        if state.trained_iteration < state.iteration:
            figures = learner.train(state)
            state.trained_iteration = state.iteration
            state.history.append({"iteration": state.iteration,
                                  "samples": int(figures.pop("samples")),
                                  **{f"{k}_loss": round(v, 4) for k, v in figures.items()}})
            state.save()
        candidate = out / "candidates" / f"iter-{state.iteration:04d}.npz"
        learner.export(state, candidate)
        result = gate(state, candidate, learner, openings, connection and connection.address)
        state.history[-1].update({"gate_score": round(result.score, 3),
                                  "gate_games": result.games, "promoted": result.promoted,
                                  "against": state.best})
        if result.sprt is not None:
            state.history[-1]["gate_sprt"] = result.sprt
        if result.promoted:
            state.best = str(candidate)
        log.info("iteration %d: candidate scored %.1f%% of %d games against the best%s: %s",
                 state.iteration, 100 * result.score, result.games,
                 "" if result.sprt is None else f" (SPRT {result.sprt['state']})",
                 "promoted" if result.promoted else "kept the best")
        state.iteration += 1
        state.save()
    return state
