"""The settings and progress of a reinforcement run (:mod:`brain.train.reinforce`), and what
the loop needs of each kind of network it trains (:class:`Learner`: the convolutional
network's in :mod:`brain.train.reinforce`, the line network's in
:mod:`brain.train.linerl`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from brain.game.openings import Opening
from brain.train.selfplay import HEURISTIC, SettingsMismatch, folder_seed, new_seed
from driver.cluster import RayConnection


@dataclass
class RlConfig:
    """Settings of a reinforcement run (saved in ``state.json``)."""

    out: str
    #: ``conv`` or ``line`` (see the module docstring).
    network: str = "conv"
    #: Starting checkpoint of the trained network (None: a fresh model).
    initial: str | None = None
    #: Starting best player: a weights file, or ``heuristic`` (conv); None: the network's
    #: own first player (:meth:`Learner.first_best`).
    best: str | None = None
    iterations: int = 10
    games: int = 32
    steps: int = 200
    batch_size: int = 256
    lr: float = 5e-4
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    buffer: int = 100_000
    playouts: int = 160
    #: Line network: playouts of self-play's short searches (None: the default of
    #: :class:`~brain.train.lineplay.LinePlayConfig`).
    fast_playouts: int | None = None
    #: Line network: one side of each self-play game searches this many times the other's
    #: playouts (:attr:`~brain.train.lineplay.LinePlayConfig.deep_side`).
    deep_side: int = 1
    gate_pairs: int = 6
    gate_playouts: int = 200
    gate_tc_ms: int = 0
    gate_score: float = 0.55
    #: ``[elo0, elo1]``: the gate is a sequential test (GSPRT on its game pairs, as
    #: ``arena run --sprt``) of ``elo0`` against ``elo1``, played until it decides or
    #: ``gate_pairs`` pairs are played; the candidate is promoted when it accepts
    #: ``elo1``. None: a gate of ``gate_pairs`` pairs and a promotion at ``gate_score``.
    gate_sprt: list[float] | None = None
    threads: int = 1
    #: Game ``n`` draws everything from ``(seed, n)``. None: a new run draws a seed of its
    #: own (two runs from one network would otherwise play the same games), a resumed run
    #: keeps its saved one.
    seed: int | None = None
    blocks: int = 6
    channels: int = 48
    #: Line network: sample files (``linenet-data``) mixed into every training batch
    #: choice, and their share of the batches (the rest: self-play).
    base: list[str] = field(default_factory=list)
    base_share: float = 0.3
    #: The base sources' relative weights within ``base_share`` (1 for one not named):
    #: e.g. the teacher's 15x15 positions above its 20x20 ones and earlier runs' games.
    base_weights: dict[str, float] = field(default_factory=dict)
    #: Openings of the gating matches (3 stones, 15x15), none of which self-play uses.
    gate_openings: int = 200
    #: An opening file (15x15) whose openings are the gating matches' instead of
    #: ``gate_openings`` drawn ones: openings even at the depth the gates play, which a
    #: short search's rating of 3-stone openings is not (e.g. ``arena openings`` judged
    #: by a strong engine).
    gate_openings_file: str | None = None


#: The settings of a run's gates.
GATE_SETTINGS = ("gate_pairs", "gate_playouts", "gate_tc_ms", "gate_score", "gate_sprt")
#: The settings a resumed run may change: how long it goes, how many threads train it and
#: how its later gates decide change no game played and no step taken.
RESUMABLE = ("iterations", "threads", *GATE_SETTINGS)


@dataclass
class RlState:
    """Progress of a run: the iteration in hand, the best player and the record."""

    config: RlConfig
    iteration: int = 0
    best: str = HEURISTIC
    trained_iteration: int = -1
    history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def open(cls, config: RlConfig, first_best: str = HEURISTIC) -> RlState:
        """The run of ``config.out``: resumed, or new with ``config.best`` (else
        ``first_best``, the learner's own first player) as its best player and a seed
        drawn for it unless ``config.seed`` names one; raises SettingsMismatch for a saved
        run with other settings."""
        path = Path(config.out) / "state.json"
        if not path.exists():
            if config.seed is None:
                config = replace(config, seed=new_seed())
            return cls(config, best=config.best or first_best)
        data = json.loads(path.read_text())
        saved = RlConfig(**data["config"])
        given = {**asdict(config), **{k: getattr(saved, k) for k in RESUMABLE}}
        if config.seed is None:
            given["seed"] = saved.seed
        if asdict(saved) != given:
            changeable = ", ".join("--" + k.replace("_", "-") for k in RESUMABLE)
            raise SettingsMismatch(f"{config.out} holds a run with other settings; use "
                                   "another --out or the same settings (only "
                                   f"{changeable} may change)")
        for name in RESUMABLE:
            setattr(saved, name, getattr(config, name))
        return cls(saved, data["iteration"], data["best"], data["trained_iteration"],
                   data["history"])

    @property
    def replay(self) -> Path:
        """The run's replay folder (``OUT/replay``), where its self-play games go."""
        return Path(self.config.out) / "replay"

    def games_seed(self) -> int:
        """The seed of the run's self-play games: the replay folder's, which is the
        run's (:func:`brain.train.selfplay.folder_seed`)."""
        return folder_seed(self.replay, self.config.seed)

    def save(self) -> None:
        path = Path(self.config.out) / "state.json"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({
            "config": asdict(self.config), "iteration": self.iteration, "best": self.best,
            "trained_iteration": self.trained_iteration, "history": self.history,
        }, indent=2))
        temporary.replace(path)


class Learner(Protocol):
    """What the loop needs of one kind of network."""

    def first_best(self) -> str:
        """The best player of a run that names none."""

    def play(self, state: RlState, games: int, excluded: frozenset,
             connection: RayConnection | None) -> None:
        """Add ``games`` self-play games of ``state.best`` to ``OUT/replay`` (on the
        cluster of ``connection``, if any), from openings none of ``excluded``."""

    def train(self, state: RlState) -> dict[str, float]:
        """Take the iteration's optimizer steps; returns the replay's sample count and
        the mean losses."""

    def export(self, state: RlState, candidate: Path) -> None:
        """Write the trained network's weights to ``candidate``."""

    def gate_openings(self, judge: str, count: int, seed: int) -> list[Opening]:
        """``count`` openings of 3 stones on 15x15 for the gating matches (``judge``: the
        run's first best player, for a learner that rates them)."""

    def brain_command(self, best: str, playouts: int) -> str:
        """The arena brain command line of a player."""
