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

Positions labelled by a teacher engine (``--teacher FOLDER``, :mod:`brain.train.teach`)
add samples of the same two kinds: the teacher's move as the played move, and its
evaluation (mixed with a played-out outcome where there is one,
:func:`brain.train.teachdata.value_target`) as a soft result. An evaluation is a far
denser value signal than a game's result: every position of a game shares its result,
whoever blundered where.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain
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
from brain.game.board import Board, Color
from brain.train.data import (
    DEFAULT_DATA_DIR,
    SOURCES,
    GameRecord,
    Replayer,
    advance,
    in_validation,
    load_source,
    split_records,
)
from brain.train.teachdata import (
    LabelledPosition,
    TargetSettings,
    labelled_positions,
    position_record,
    split_key,
    value_target,
)

#: How teacher labels become targets unless told otherwise.
DEFAULT_TARGETS = TargetSettings()
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
    #: Value samples: threat counts and the mover's expected score (1 win, 0.5 draw, 0
    #: loss; a teacher's evaluation anywhere between).
    counts: np.ndarray
    result: np.ndarray

    @property
    def positions(self) -> int:
        return len(self.target)


#: A position to learn from: the board before the move (shared: read it before asking
#: for the next example), the move played there, and the side to move's expected score
#: in [0, 1] (None: no value target).
Example = tuple[Board, int, float | None]


def _expected_score(wdl: tuple[float, float, float]) -> float | None:
    """Win + half the draw of a win/draw/loss target; None for the all-zero (no) target."""
    win, draw, loss = wdl
    return win + draw / 2 if win + draw + loss else None


def record_examples(records: Iterable[GameRecord]) -> Iterator[Example]:
    """The target plies of game ``records``, valued by each game's result."""
    replayer = Replayer()
    for record in records:
        board = replayer.start(record)
        targets = set(record.target_plies())
        for ply, move in enumerate(record.moves):
            if ply in targets:
                yield board, move, _expected_score(record.result.wdl(board.to_move))
            advance(board, move)


def teacher_examples(positions: Iterable[LabelledPosition],
                     settings: TargetSettings = DEFAULT_TARGETS) -> Iterator[Example]:
    """Teacher-labelled ``positions``: the teacher's move, valued by its evaluation (and
    outcome, per ``settings``)."""
    replayer = Replayer()
    for position in positions:
        board = replayer.position(position_record(position), len(position.stones))
        yield board, position.move, _expected_score(value_target(position, settings))


def collect(examples: Iterable[Example]) -> PatternSamples:
    """The policy and value samples of ``examples`` (positions without a stone are
    skipped: the empty board's move is fixed)."""
    pair: list[np.ndarray] = []
    last: list[np.ndarray] = []
    own_last: list[np.ndarray] = []
    position: list[np.ndarray] = []
    target: list[int] = []
    counts: list[np.ndarray] = []
    result: list[float] = []
    cells_so_far = 0
    for board, move, score in examples:
        if not board.history:
            continue
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
        settled = any(len(board.winning_cells(color)) for color in (Color.BLACK,
                                                                   Color.WHITE))
        if score is not None and not settled:
            counts.append(threat_counts(board))
            result.append(score)

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
    """Logistic loss of the model's value against the results, that of the best
    constant guess (the training-free reference), and the mean squared error of the
    winning probability (with a teacher's soft targets the loss has a floor, their
    entropy; the error has none)."""
    logits = np.array([model.value_logit(row) for row in samples.counts])
    probability = np.clip(1 / (1 + np.exp(-logits)), 1e-7, 1 - 1e-7)
    y = samples.result
    loss = -np.mean(y * np.log(probability) + (1 - y) * np.log(1 - probability))
    mean = np.clip(y.mean(), 1e-7, 1 - 1e-7)
    constant = -np.mean(y * np.log(mean) + (1 - y) * np.log(1 - mean))
    return {"value_logloss": round(float(loss), 4),
            "value_logloss_constant": round(float(constant), 4),
            "value_mse": round(float(np.mean((probability - y) ** 2)), 4)}


def _describe(samples: PatternSamples, games: int) -> str:
    return f"{samples.positions} positions, {len(samples.result)} value samples, {games} games"


def teacher_split(folders: Sequence[str | Path], validation_fraction: float
                  ) -> tuple[list[LabelledPosition], list[LabelledPosition]]:
    """(train, validation) positions of teacher run ``folders``, split by source game
    (:func:`brain.train.teachdata.split_key`) as supervised training splits them.

    :raises FileNotFoundError: a folder without shards.
    """
    train: list[LabelledPosition] = []
    validation: list[LabelledPosition] = []
    for position in labelled_positions(folders):
        held_out = in_validation(split_key(position), validation_fraction)
        (validation if held_out else train).append(position)
    return train, validation


def fit(sources: Sequence[str] = DEFAULT_SOURCES, data_dir: Path = DEFAULT_DATA_DIR,
        max_games: int | None = None, validation_fraction: float = 0.1,
        hidden: int = 32, value_steps: int = 400, policy_iterations: int = 300,
        seed: int = 0, teacher: Sequence[str | Path] = (),
        teacher_settings: TargetSettings = DEFAULT_TARGETS,
        compare: PatternModel | None = None) -> PatternModel:
    """Load ``sources`` and the ``teacher`` run folders, fit the policy tables and the
    value perceptron, and return the model with its data, settings and validation
    metrics in ``metadata`` (``validation``: held-out games of the sources;
    ``teacher_validation``: held-out teacher positions). With ``compare`` (say the
    shipped model), its metrics on the same held-out sets go in as ``compared``.

    :raises ValueError: neither sources nor teacher folders.
    """
    if not sources and not teacher:
        raise ValueError("nothing to fit: name game sources, teacher folders or both")
    started = time.monotonic()
    train_records: list[GameRecord] = []
    validation_records: list[GameRecord] = []
    for name in sources:
        records, report = load_source(SOURCES[name], data_dir, max_games)
        print(report.summary(), flush=True)
        train_part, validation_part = split_records(records, validation_fraction)
        train_records += train_part
        validation_records += validation_part
    train_labelled, validation_labelled = teacher_split(teacher, validation_fraction)
    train = collect(chain(record_examples(train_records),
                          teacher_examples(train_labelled, teacher_settings)))
    held_out = {"validation": collect(record_examples(validation_records)),
                "teacher_validation": collect(teacher_examples(validation_labelled,
                                                               teacher_settings))}
    # Only sets with positions and value samples can be scored.
    held_out = {name: samples for name, samples in held_out.items()
                if samples.positions and len(samples.result)}
    print(f"train: {_describe(train, len(train_records))} and "
          f"{len(train_labelled)} teacher positions; validation: "
          f"{len(validation_records)} games; "
          f"teacher validation: {len(validation_labelled)} positions", flush=True)
    policy = fit_policy(train, iterations=policy_iterations)
    print(f"policy fitted ({time.monotonic() - started:.0f} s)", flush=True)
    net = fit_value(train, hidden=hidden, steps=value_steps, seed=seed)
    first, second = net[0], net[2]
    model = PatternModel(
        *policy, first.weight.detach().numpy(), first.bias.detach().numpy(),
        second.weight.detach().numpy()[0], second.bias.detach().numpy()[0])

    def scores(scored: PatternModel, samples: PatternSamples) -> dict[str, float]:
        return {**policy_metrics(scored, samples), **value_metrics(scored, samples)}

    metrics = {name: scores(model, samples)
               for name, samples in {"train": train, **held_out}.items()}
    compared = {} if compare is None else {
        "compared": {name: scores(compare, samples) for name, samples in held_out.items()}}
    metadata = {
        "data": {"sources": list(sources), "games": len(train_records) + len(validation_records),
                 "teacher": [str(folder) for folder in teacher],
                 "teacher_positions": len(train_labelled) + len(validation_labelled),
                 "teacher_outcome_weight": teacher_settings.outcome_weight,
                 "validation_fraction": validation_fraction,
                 "train_positions": train.positions, "train_value_samples": len(train.result)},
        "fit": {"hidden": hidden, "value_steps": value_steps,
                "policy_iterations": policy_iterations, "seed": seed,
                "seconds": round(time.monotonic() - started, 1)},
        "metrics": metrics,
        **compared,
    }
    return replace(model, metadata=metadata)
