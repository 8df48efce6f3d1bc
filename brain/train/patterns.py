"""Fit the pattern model (:mod:`brain.eval.patternmodel`) to game records.

``python -m brain.train patterns --out weights/patterns.npz`` replays the games of the
chosen sources (default: the Rapfi freestyle self-play games, 15x15 and 20x20), and for
every position with a recorded move collects

* the policy features (:func:`brain.eval.patternmodel.cell_features`) of its candidate cells
  (empty cells within two of a stone, plus the played move if it lies farther) and which
  of them was played;
* the value features (:func:`brain.eval.patternmodel.threat_counts`) and the game's result for
  the side to move, unless one side can already make a five (those positions are settled
  by the search, not by the value) or the result is unknown.

The policy tables are fitted by maximum likelihood of the played moves (softmax over each
position's candidates, L-BFGS); the value perceptron by logistic loss against the result
(Adam, full batch). Games are split into training and validation by their opening
(:func:`brain.train.data.split_records`), and the validation metrics go into the file's
metadata.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from brain.eval.evaluation import near_mask
from brain.eval.patternmodel import (
    RELATIONS,
    THREAT_LEVELS,
    VALUE_FEATURES,
    PatternModel,
    cell_features,
    threat_counts,
    value_input,
)
from brain.game.board import Color
from brain.train.data import (
    DEFAULT_DATA_DIR,
    SOURCES,
    GameRecord,
    Replayer,
    advance,
    load_source,
    split_records,
)

#: Sources fitted when none are named: strong engine games under the freestyle rule.
DEFAULT_SOURCES = ("freestyle15", "freestyle20")


@dataclass(frozen=True)
class PatternSamples:
    """Positions of many games in flat arrays: candidate cells of all positions one after
    another, ``position`` telling which position each cell belongs to."""

    pair: np.ndarray
    last: np.ndarray
    #: Relation to the mover's previous stone; RELATIONS (an all-zero extra entry) when
    #: the mover has no previous stone.
    own_last: np.ndarray
    position: np.ndarray
    #: Per position: index (into the cell arrays) of the played move.
    target: np.ndarray
    #: Value samples: threat counts and result for the mover (1 win, 0.5 draw, 0 loss).
    counts: np.ndarray
    result: np.ndarray

    @property
    def positions(self) -> int:
        return len(self.target)


def collect(records: Sequence[GameRecord]) -> PatternSamples:
    """Replay ``records`` and collect their policy and value samples."""
    replayer = Replayer()
    pair: list[np.ndarray] = []
    last: list[np.ndarray] = []
    own_last: list[np.ndarray] = []
    position: list[np.ndarray] = []
    target: list[int] = []
    counts: list[np.ndarray] = []
    result: list[float] = []
    cells_so_far = 0
    for record in records:
        board = replayer.start(record)
        targets = set(record.target_plies())
        for ply, move in enumerate(record.moves):
            if ply in targets and len(board.history) >= 1:
                candidates = near_mask(board)
                candidates[move] = True
                cells = np.flatnonzero(candidates)
                features = cell_features(board, cells)
                pair.append(features.pair)
                last.append(features.last)
                own_last.append(np.full(len(cells), RELATIONS, dtype=np.intp)
                                if features.own_last is None else features.own_last)
                position.append(np.full(len(cells), len(target), dtype=np.intp))
                target.append(cells_so_far + int(np.searchsorted(cells, move)))
                cells_so_far += len(cells)
                win, draw, loss = record.result.wdl(board.to_move)
                settled = any(len(board.winning_cells(color)) for color in (Color.BLACK,
                                                                           Color.WHITE))
                if win + draw + loss and not settled:
                    counts.append(threat_counts(board))
                    result.append(win + draw / 2)
            advance(board, move)

    def join(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)

    return PatternSamples(
        join(pair), join(last), join(own_last), join(position), np.array(target, np.intp),
        np.array(counts, dtype=np.float64).reshape(-1, VALUE_FEATURES),
        np.array(result, dtype=np.float64))


def _policy_logits(fit: tuple[torch.Tensor, ...], samples: PatternSamples) -> torch.Tensor:
    pair, last, own_last = fit
    own_last_padded = torch.cat([own_last, own_last.new_zeros(1)])
    return (pair[torch.from_numpy(samples.pair)] + last[torch.from_numpy(samples.last)]
            + own_last_padded[torch.from_numpy(samples.own_last)])


def _policy_loss(logits: torch.Tensor, samples: PatternSamples) -> torch.Tensor:
    """Mean negative log-likelihood of the played moves (softmax per position)."""
    position = torch.from_numpy(samples.position)
    peak = torch.full((samples.positions,), -torch.inf, dtype=logits.dtype)
    peak = peak.scatter_reduce(0, position, logits.detach(), "amax")
    total = torch.zeros(samples.positions, dtype=logits.dtype).index_add(
        0, position, torch.exp(logits - peak[position]))
    log_partition = torch.log(total) + peak
    return (log_partition - logits[torch.from_numpy(samples.target)]).mean()


def _policy_top1(logits: np.ndarray, samples: PatternSamples) -> float:
    """Share of positions whose played move has the highest logit (ties: the first)."""
    order = np.lexsort((-logits, samples.position))
    starts = np.flatnonzero(np.r_[True, np.diff(samples.position[order]) != 0])
    return float(np.mean(order[starts] == samples.target))


def fit_policy(train: PatternSamples, l2: float = 1e-4, iterations: int = 300
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximum-likelihood policy tables: pair, last-stone and own-last-stone logits (a
    small L2 penalty on the pair table keeps its rare entries from drifting)."""
    params = (torch.zeros(THREAT_LEVELS ** 2, dtype=torch.float64, requires_grad=True),
              torch.zeros(RELATIONS, dtype=torch.float64, requires_grad=True),
              torch.zeros(RELATIONS, dtype=torch.float64, requires_grad=True))
    optimiser = torch.optim.LBFGS(params, max_iter=iterations, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimiser.zero_grad()
        loss = _policy_loss(_policy_logits(params, train), train) + l2 * (params[0] ** 2).sum()
        loss.backward()
        return loss

    optimiser.step(closure)
    pair, last, own_last = (p.detach().numpy() for p in params)
    return pair.reshape(THREAT_LEVELS, THREAT_LEVELS), last, own_last


def policy_metrics(model: PatternModel, samples: PatternSamples) -> dict[str, float]:
    """Negative log-likelihood and top-1 accuracy of the played moves."""
    params = tuple(torch.from_numpy(np.ascontiguousarray(a).reshape(-1)) for a in
                   (model.pair_logits, model.last_logits, model.own_last_logits))
    with torch.no_grad():
        logits = _policy_logits(params, samples)
        loss = float(_policy_loss(logits, samples))
    return {"policy_nll": round(loss, 4),
            "policy_top1": round(_policy_top1(logits.numpy(), samples), 4)}


def fit_value(train: PatternSamples, hidden: int = 32, steps: int = 400, lr: float = 3e-3,
              seed: int = 0) -> torch.nn.Sequential:
    """The value perceptron, by logistic loss against the results (full-batch Adam)."""
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(VALUE_FEATURES, hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, 1)).double()
    inputs = torch.from_numpy(value_input(train.counts))
    targets = torch.from_numpy(train.result)
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    for _ in range(steps):
        optimiser.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(net(inputs)[:, 0], targets)
        loss.backward()
        optimiser.step()
    return net


def value_metrics(model: PatternModel, samples: PatternSamples) -> dict[str, float]:
    """Logistic loss of the model's value against the results, and that of the best
    constant guess (the training-free reference)."""
    logits = np.array([model.value_logit(row) for row in samples.counts])
    probability = np.clip(1 / (1 + np.exp(-logits)), 1e-7, 1 - 1e-7)
    y = samples.result
    loss = -np.mean(y * np.log(probability) + (1 - y) * np.log(1 - probability))
    mean = np.clip(y.mean(), 1e-7, 1 - 1e-7)
    constant = -np.mean(y * np.log(mean) + (1 - y) * np.log(1 - mean))
    return {"value_logloss": round(float(loss), 4),
            "value_logloss_constant": round(float(constant), 4)}


def _describe(samples: PatternSamples, records: int) -> str:
    return f"{samples.positions} positions, {len(samples.result)} value samples, {records} games"


def fit(sources: Sequence[str] = DEFAULT_SOURCES, data_dir: Path = DEFAULT_DATA_DIR,
        max_games: int | None = None, validation_fraction: float = 0.1,
        hidden: int = 32, value_steps: int = 400, policy_iterations: int = 300,
        seed: int = 0) -> PatternModel:
    """Load ``sources``, fit the policy tables and the value perceptron, and return the
    model with its data, settings and validation metrics in ``metadata``."""
    started = time.monotonic()
    train_records: list[GameRecord] = []
    validation_records: list[GameRecord] = []
    for name in sources:
        records, report = load_source(SOURCES[name], data_dir, max_games)
        print(report.summary(), flush=True)
        train, validation = split_records(records, validation_fraction)
        train_records += train
        validation_records += validation
    train = collect(train_records)
    validation = collect(validation_records)
    print(f"train: {_describe(train, len(train_records))}; validation: "
          f"{_describe(validation, len(validation_records))}", flush=True)
    policy = fit_policy(train, iterations=policy_iterations)
    print(f"policy fitted ({time.monotonic() - started:.0f} s)", flush=True)
    net = fit_value(train, hidden=hidden, steps=value_steps, seed=seed)
    first, second = net[0], net[2]
    model = PatternModel(
        *policy, first.weight.detach().numpy(), first.bias.detach().numpy(),
        second.weight.detach().numpy()[0], second.bias.detach().numpy()[0])
    metrics = {name: {**policy_metrics(model, samples), **value_metrics(model, samples)}
               for name, samples in (("train", train), ("validation", validation))}
    metadata = {
        "data": {"sources": list(sources), "games": len(train_records) + len(validation_records),
                 "validation_fraction": validation_fraction,
                 "train_positions": train.positions, "train_value_samples": len(train.result)},
        "fit": {"hidden": hidden, "value_steps": value_steps,
                "policy_iterations": policy_iterations, "seed": seed,
                "seconds": round(time.monotonic() - started, 1)},
        "metrics": metrics,
    }
    return replace(model, metadata=metadata)
