"""The line-pattern network's part of the reinforcement loop
(:mod:`brain.train.reinforce` with ``network="line"``).

Self-play games come from :mod:`brain.train.lineplay` (here, or as Ray tasks through
:mod:`brain.train.cluster`) into ``OUT/replay/games-*.npz``. Each iteration trains the
model of ``OUT/train/last.pt`` (the first from ``initial``, the shipped
``linenet-model.pt`` by default) for ``steps`` batches at a constant learning rate: the
newest ``buffer`` self-play samples (visit shares, game results and the full searches'
root winrates, mixed into the value target as a teacher's are), and with
``base_share`` of the batches the sample files of ``base`` (records and teacher labels,
which keep what the network knew while its own games are few, and the value near the
teacher's that deep searches lean on), split among their sources by ``base_weights``.
A candidate is the export of that model, the brain ``--engine linenet --weights`` it.
"""

from __future__ import annotations

import contextlib
import logging
import shlex
import sys
from dataclasses import replace
from pathlib import Path

import torch

from brain.catalog import LINE_NETWORK_FILE
from brain.eval.linenet import LineNet
from brain.game.openings import Opening, random_opening_stream
from brain.game.rules import Rule
from brain.resources import weights_dir
from brain.train.cluster import cluster_games
from brain.train.linenet import RunConfig, Trainer, export, model_of, sizes_of
from brain.train.lineplay import (
    SOURCE,
    LinePlayConfig,
    SelfPlayer,
    local_games,
    opening_board,
    opening_radius,
    replay_window,
    write_games,
)
from brain.train.rlstate import RlState
from brain.train.samples import SampleStore
from brain.train.selfplay import record_games
from driver.cluster import RayConnection

log = logging.getLogger("brain.train")

#: The torch model the shipped network was exported from: where a run's training starts.
SHIPPED_MODEL = "linenet-model.pt"


def _base_names(path: str, names: list[str]) -> list[str]:
    """The source names of base file ``path``'s ``names``: its own self-play samples (an
    earlier run's games) become a source named after the file; merged by name into the
    newest games, they once took most of those batches from them."""
    return [Path(path).stem if name == SOURCE else name for name in names]


def base_store(base: list[str]) -> SampleStore:
    """The samples of the ``base`` files, their sources named by :func:`_base_names`."""
    parts = []
    for path in base:
        part = SampleStore.load(path)
        parts.append(replace(part, sources=_base_names(path, part.sources)))
    return SampleStore.concatenate(parts)


def base_sources(base: list[str]) -> list[str]:
    """The source names of :func:`base_store`, read without the samples."""
    names: list[str] = []
    for path in base:
        names += [n for n in _base_names(path, SampleStore.source_names(path))
                  if n not in names]
    return names


def training_mix(window: SampleStore, base: list[str], base_share: float,
                 base_weights: dict[str, float] | None = None,
                 ) -> tuple[SampleStore, dict[str, float]]:
    """The samples an iteration trains on and each source's share of the batches: the
    run's newest games (``window``, source :data:`SOURCE`) ``1 - base_share``, the sources
    of the ``base`` files (:func:`base_store`) the rest, split by ``base_weights`` (1 for
    a source it does not name).

    :raises ValueError: ``base_weights`` names a source no base file holds.
    """
    store = SampleStore.concatenate([base_store(base), window]) if base else window
    others = [name for name in store.sources if name != SOURCE]
    base_weights = base_weights or {}
    check_base_weights(others, base_weights)
    relative = {name: base_weights.get(name, 1.0) for name in others}
    total = sum(relative.values())
    if not total:  # no base, or every base source weighted 0: the newest games alone
        return store, {SOURCE: 1.0} | dict.fromkeys(others, 0.0)
    return store, {SOURCE: 1.0 - base_share} | {
        name: base_share * w / total for name, w in relative.items()}


def check_base_weights(sources: list[str], base_weights: dict[str, float]) -> None:
    """Check that each of ``base_weights`` names one of the base files' ``sources``.

    :raises ValueError: naming the first that does not.
    """
    for name in base_weights:
        if name not in sources:
            raise ValueError(f"--base-weight {name}: no --base file holds a source of that "
                             f"name (theirs: {', '.join(sources) or 'none'})")


class LineLearner:
    """The line-pattern network of ``--engine linenet``."""

    def first_best(self) -> str:
        return str(weights_dir() / LINE_NETWORK_FILE)

    def play(self, state: RlState, games: int, excluded: frozenset,
             connection: RayConnection | None) -> None:
        fast = state.config.fast_playouts
        config = LinePlayConfig(playouts=state.config.playouts, seed=state.games_seed(),
                                deep_side=state.config.deep_side,
                                **({} if fast is None else {"fast_playouts": fast}))
        source = (local_games(state.best, config, excluded) if connection is None
                  else cluster_games(state.best, config, excluded))
        record_games(source, state.replay, games, write=write_games)

    def train(self, state: RlState) -> dict[str, float]:
        c = state.config
        out = Path(c.out)
        window = replay_window(state.replay, c.buffer)
        if window is None:
            raise RuntimeError(f"{state.replay} holds no self-play games to train on")
        store, weights = training_mix(window, c.base, c.base_share, c.base_weights)
        torch.set_num_threads(c.threads)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        initial = c.initial or str(weights_dir() / SHIPPED_MODEL)
        # The candidates keep the sizes of the network the run starts from (a wider one
        # made by ``brain.train linenet --initial ... --dim ...``, say).
        run = RunConfig(out=str(out / "train"), weights=weights, batch_size=c.batch_size,
                        learning_rate=c.lr, weight_decay=c.weight_decay, steps=c.steps,
                        validation_fraction=0.0, schedule="constant",
                        seed=c.seed + state.iteration, initial=initial,
                        model=sizes_of(initial))
        log.info("iteration %d: training on %d self-play samples and %d others on %s",
                 state.iteration, len(window), len(store) - len(window), device)
        # Each iteration ends at a fixed step, however often it was resumed.
        losses = Trainer(run, store, device).run(until=(state.iteration + 1) * c.steps)
        return {"samples": len(window), **losses}

    def export(self, state: RlState, candidate: Path) -> None:
        """The candidate's tables, and beside them (``.pt``) its torch model, which
        shipping it needs (``weights/linenet-model.pt``: the tests check the tables
        against it) and the next iteration's checkpoint would overwrite."""
        checkpoint = torch.load(Path(state.config.out) / "train" / "last.pt",
                                map_location="cpu", weights_only=False)
        candidate.parent.mkdir(parents=True, exist_ok=True)
        export(model_of(checkpoint), f"self-play iteration {state.iteration} of "
                                     f"{state.config.out}").save(candidate)
        torch.save({"model": checkpoint["model"], "config": checkpoint["config"],
                    "step": checkpoint["step"]}, candidate.with_suffix(".pt"))

    def gate_openings(self, judge: str, count: int, seed: int) -> list[Opening]:
        """``count`` distinct freestyle 15x15 openings of 3 stones placed as self-play
        places them, in the order drawn, each rated within :attr:`LinePlayConfig.balance`
        of even by a short search of ``judge``; if fewer such exist, the most even of the
        others complete them. From a random 3-stone opening the same colour wins both
        games of a pair in about three pairs of four at 400 playouts, and such a pair
        tells the players apart no more than a draw.

        :raises ValueError: if there are fewer than ``count`` distinct such openings.
        """
        player = SelfPlayer(LineNet.from_file(judge), LinePlayConfig())
        balance = player.config.balance
        even: list[Opening] = []
        others: list[tuple[float, int, Opening]] = []
        # Only some hundreds of 3-stone openings differ up to symmetry: the stream ends
        # (ValueError) once its draws find no new one.
        stream = random_opening_stream(15, 15, stones=3, radius=opening_radius(15, 15),
                                       seed=seed, max_attempts=20_000)
        with contextlib.suppress(ValueError):
            for opening in stream:
                distance = abs(player.winrate(opening_board(opening, Rule.FREESTYLE)) - 0.5)
                if distance <= balance:
                    even.append(opening)
                    if len(even) == count:
                        return even
                else:
                    others.append((distance, len(others), opening))
        missing = count - len(even)
        if missing > len(others):
            raise ValueError(f"only {len(even) + len(others)} distinct 3-stone openings fit "
                             f"near the centre of a 15x15 board: ask for fewer gating "
                             f"openings (--gate-openings)")
        return even + [o for _, _, o in sorted(others)[:missing]]

    def brain_command(self, best: str, playouts: int) -> str:
        budget = f" --playouts {playouts}" if playouts else ""
        weights = shlex.quote(str(Path(best).resolve()))
        return f"{sys.executable} -m brain --engine linenet --weights {weights}{budget}"
