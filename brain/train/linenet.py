"""The line-pattern network in torch: the model, its export to the play path's tables,
the training samples and the training run (``python -m brain.train linenet``).

The model (see :mod:`brain.eval.linenet` for how the play path reads it):

* a *line network* that maps a window (the :data:`~brain.eval.linenet.WINDOW` cells of
  a line around a cell, seen from the side to move: own, opponent, empty, or past the
  edge) to that cell's output in that direction, by 3-tap convolutions along the window;
  the same weights serve the four directions, and a batch computes each distinct window
  once (:meth:`LineNetModel.features`);
* each direction's output bounded (``B tanh(x / B)``) and rounded to
  :data:`~brain.eval.linenet.FEATURE_SCALE` units (straight through for the gradient),
  then summed over the four directions: the cell's feature;
* the value head (mean of ReLU(feature) over the board, two renju flags, a 3-layer
  perceptron to win/draw/loss) and the policy head (a depthwise 3x3 convolution on the
  first channels, ReLU, a dot product).

:func:`export` runs the line network once over every window of
:data:`~brain.eval.linenet.ROW_COUNT` codes and writes the table the play path adds up.

Training data are the games and samples of :mod:`brain.train.samples`
(:class:`~brain.train.samples.SampleStore`); :class:`BatchMaker` builds a batch from them
on the training device without Python loops.
"""

from __future__ import annotations

import json
import logging
import math
import pickle
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from brain.eval.linenet import (
    FEATURE_BOUND,
    FEATURE_SCALE,
    FORMAT_VERSION,
    REACH,
    ROW_COUNT,
    WINDOW,
    WINDOW_BASES,
    LineNetWeights,
)
from brain.game.board import DIRECTIONS
from brain.game.rules import Rule
from brain.train.samples import SampleStore, samples_of_labels, samples_of_records

log = logging.getLogger("brain.train")


# -- the model ---------------------------------------------------------------------------


#: Digit of a cell beyond the board's edge in :func:`window_rows`' base-4 codes.
OFF_BOARD = 3


def _row_digits() -> tuple[np.ndarray, np.ndarray]:
    """For every table row (:func:`brain.eval.linenet.window_code`), its window as
    :data:`~brain.eval.linenet.WINDOW` digits from the far left cell (0 empty, 1 own,
    2 opponent, :data:`OFF_BOARD`): int64 [ROW_COUNT, WINDOW]; and the row of each
    base-4 number of such digits (the far left cell most significant; -1: no window
    has those digits): int64 [4 ** WINDOW]."""
    digits = np.full((ROW_COUNT, WINDOW), OFF_BOARD, dtype=np.int64)
    for left in range(REACH + 1):
        for right in range(REACH + 1):
            length = left + right + 1
            numbers = np.arange(3 ** length)
            rows = WINDOW_BASES[left * (REACH + 1) + right] + numbers
            for i in range(length):
                digits[rows, REACH - left + i] = (numbers // 3 ** i) % 3
    row_of = np.full(4 ** WINDOW, -1, dtype=np.int64)
    row_of[digits @ (4 ** np.arange(WINDOW - 1, -1, -1))] = np.arange(ROW_COUNT)
    return digits, row_of


class DirectionalConv(nn.Module):
    """A 3-tap convolution along a line (taps at -1, 0, +1 cells)."""

    def __init__(self, channels_in: int, channels_out: int) -> None:
        super().__init__()
        # Input channel k * channels_in + c is channel c of the tap at k - 1 cells.
        self.linear = nn.Conv2d(3 * channels_in, channels_out, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The convolution at the cells with both neighbours: [N, C, L] -> [N, C', L - 2]."""
        out, wide = self.linear.weight.shape[:2]
        weight = self.linear.weight.view(out, 3, wide // 3).transpose(1, 2)
        return F.conv1d(x, weight, self.linear.bias)


def _pointwise(layer: nn.Conv2d, x: torch.Tensor) -> torch.Tensor:
    """A 1x1 convolution applied to [N, C, L]."""
    return F.conv1d(x, layer.weight[..., 0], layer.bias)


class LineNetwork(nn.Module):
    """The per-line network: a window's centre feature, from the :data:`REACH` cells on
    each side (cells past the board's edge are absent: zero at every layer, where an empty
    cell is not)."""

    def __init__(self, dim: int, middle: int) -> None:
        super().__init__()
        self.first = DirectionalConv(2, middle)
        # Each directional layer widens the view by one cell each side.
        self.blocks = nn.ModuleList(DirectionalConv(middle, middle) for _ in range(REACH - 1))
        self.mixes = nn.ModuleList(nn.Conv2d(middle, middle, 1) for _ in range(REACH - 1))
        self.out = nn.Conv2d(middle, dim, 1)
        digits, row_of = _row_digits()
        self.register_buffer("row_digits", torch.from_numpy(digits), persistent=False)
        self.register_buffer("row_of", torch.from_numpy(row_of), persistent=False)

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        """The bounded, rounded features of table rows ``rows`` [N]: [N, dim]."""
        digits = self.row_digits[rows]
        planes = torch.stack([digits == 1, digits == 2], dim=1).float()
        on_board = (digits != OFF_BOARD).float().unsqueeze(1)
        # Only the cells the centre's output still depends on are computed: each layer's
        # 3-tap convolution drops one cell at each end.
        h = F.silu(self.first(planes)) * on_board[..., 1:-1]
        for i, (conv, mix) in enumerate(zip(self.blocks, self.mixes, strict=True), start=2):
            h = h[..., 1:-1] + F.silu(_pointwise(mix, F.silu(conv(h))))
            h = h * on_board[..., i:WINDOW - i]
        return quantize(_pointwise(self.out, h)[..., 0])

    def window_rows(self, planes: torch.Tensor) -> torch.Tensor:
        """The table row of every cell's window in each direction of
        :data:`~brain.game.board.DIRECTIONS`: [4, B, H, W] of planes [B, 2, H, W]."""
        height, width = planes.shape[-2:]
        digits = F.pad((planes[:, 0] + 2 * planes[:, 1]).long(), (REACH,) * 4,
                       value=OFF_BOARD)
        found = []
        for dx, dy in DIRECTIONS:
            code = torch.zeros_like(digits[:, :height, :width])
            for k in range(-REACH, REACH + 1):
                y, x = REACH + k * dy, REACH + k * dx
                code = code * 4 + digits[:, y:y + height, x:x + width]
            found.append(self.row_of[code])
        return torch.stack(found)


def quantize(x: torch.Tensor) -> torch.Tensor:
    """Bound to :data:`FEATURE_BOUND` and round to :data:`FEATURE_SCALE` units, with a
    straight-through gradient (what the exported table holds)."""
    bounded = FEATURE_BOUND * torch.tanh(x / FEATURE_BOUND)
    rounded = torch.round(bounded * FEATURE_SCALE) / FEATURE_SCALE
    return bounded + (rounded - bounded).detach()


@dataclass
class ModelConfig:
    """Sizes of a :class:`LineNetModel`."""

    dim: int = 32
    policy_dim: int = 16
    middle: int = 64
    hidden: int = 64


class LineNetModel(nn.Module):
    """The whole network (see the module docstring)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.lines = LineNetwork(config.dim, config.middle)
        self.value1 = nn.Linear(config.dim + 2, config.hidden)
        self.value2 = nn.Linear(config.hidden, config.hidden)
        self.value3 = nn.Linear(config.hidden, 3)
        self.policy_dw = nn.Conv2d(config.policy_dim, config.policy_dim, 3, padding=1,
                                   groups=config.policy_dim)
        self.policy_out = nn.Conv2d(config.policy_dim, 1, 1)

    def features(self, planes: torch.Tensor) -> torch.Tensor:
        """Each cell's feature, the sum of its four directions: [B, dim, H, W].

        A batch holds few distinct windows (about 10,000 among the 230,000 of 256
        positions on 15x15): each is computed once, what makes training fast on a CPU."""
        rows = self.lines.window_rows(planes)
        distinct, index = torch.unique(rows, return_inverse=True)
        return self.lines(distinct)[index].sum(0).permute(0, 3, 1, 2)

    def forward(self, planes: torch.Tensor, flags: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits [B, H * W] (every cell; mask the stones yourself) and
        win/draw/loss logits [B, 3] of the side to move. ``planes``: [B, 2, H, W] own
        and opponent stones; ``flags``: [B, 2] (renju with black to move, with white)."""
        relu = F.relu(self.features(planes))
        pooled = relu.mean(dim=(2, 3))
        h = F.relu(self.value1(torch.cat([pooled, flags], dim=1)))
        h = F.relu(self.value2(h))
        wdl = self.value3(h)
        p = F.relu(self.policy_dw(relu[:, :self.config.policy_dim]))
        policy = self.policy_out(p).flatten(1)
        return policy, wdl


#: The sizes :func:`widen` can grow (the others shape the line network's layers, whose
#: inputs interleave the taps).
WIDENABLE = ("dim", "hidden")


def check_widening(old: ModelConfig, new: ModelConfig) -> None:
    """:raises ValueError: ``new`` is not ``old`` with some of :data:`WIDENABLE` grown."""
    for name, before in asdict(old).items():
        after = getattr(new, name)
        if after != before and (name not in WIDENABLE or after < before):
            allowed = ("only grow" if name in WIDENABLE
                       else f"stay as they are (only {' and '.join(WIDENABLE)} can grow)")
            raise ValueError(f"{name} {before} -> {after}: a trained model's sizes can "
                             f"{allowed}")


@torch.no_grad()
def widen(model: LineNetModel, config: ModelConfig) -> LineNetModel:
    """A model of the larger sizes ``config`` that computes exactly what ``model`` does.

    The new feature channels and value units get fresh incoming weights and zero
    outgoing ones: nothing reads them until training gives them a use, which it does
    from the first step (the weights out of them have gradients, their inputs not
    being zero). The policy head reads the first ``policy_dim`` channels, which stay as
    they were.

    :raises ValueError: ``config`` shrinks a size or changes one :func:`check_widening`
        does not allow.
    """
    old = model.config
    check_widening(old, config)
    wide = LineNetModel(config).to(next(model.parameters()).device)
    source = dict(model.named_parameters())
    for name, param in wide.named_parameters():
        before = source[name]
        if name == "value1.weight":
            # Its input is the pooled features, then the two renju flags: the flags'
            # columns move to the end of the wider input.
            before = torch.cat([before[:, :old.dim],
                                before.new_zeros(len(before), config.dim - old.dim),
                                before[:, old.dim:]], dim=1)
        elif param.dim() > 1:
            # The old units' weights from the new inputs.
            param[:before.shape[0], before.shape[1]:] = 0
        param[tuple(slice(0, size) for size in before.shape)] = before
    return wide.train(model.training)


# -- export ------------------------------------------------------------------------------


@torch.no_grad()
def export_table(model: LineNetModel) -> np.ndarray:
    """The line network run over every window: int16 [ROW_COUNT, dim]."""
    model = model.eval()
    device = next(model.parameters()).device
    rows = torch.arange(ROW_COUNT, device=device)
    out = torch.cat([model.lines(part) for part in rows.split(8192)]).float().cpu().numpy()
    return np.round(out * FEATURE_SCALE).astype(np.int16)


def export(model: LineNetModel, description: str = "") -> LineNetWeights:
    """The play path's weights of ``model``."""
    params = {name: p.detach().float().cpu().numpy() for name, p in model.named_parameters()}
    c = model.config
    return LineNetWeights(
        table=export_table(model),
        value_w1=params["value1.weight"], value_b1=params["value1.bias"],
        value_w2=params["value2.weight"], value_b2=params["value2.bias"],
        value_w3=params["value3.weight"], value_b3=params["value3.bias"],
        policy_dw=params["policy_dw.weight"].reshape(c.policy_dim, 9),
        policy_db=params["policy_dw.bias"],
        policy_w=params["policy_out.weight"].reshape(c.policy_dim),
        policy_b=float(params["policy_out.bias"][0]),
        meta={"format": FORMAT_VERSION, "reach": REACH, "model": asdict(c),
              "description": description},
    )


# -- batches -----------------------------------------------------------------------------


def _symmetries(height: int, width: int) -> list[torch.Tensor]:
    """For each symmetry of the board shape, ``source[new cell] = old cell``."""
    grid = torch.arange(height * width).reshape(height, width)
    found = [grid, grid.flip(0), grid.flip(1), grid.flip(0).flip(1)]
    if height == width:
        found += [g.t() for g in found]
    return [g.contiguous().flatten() for g in found]


class BatchMaker:
    """Builds training batches of one board shape on ``device`` from a
    :class:`SampleStore`, with a random board symmetry per batch."""

    def __init__(self, store: SampleStore, device: torch.device) -> None:
        self.store = store
        self.device = device
        t = lambda a, dtype=torch.int64: torch.as_tensor(np.asarray(a), dtype=dtype,  # noqa: E731
                                                         device=device)
        self.stones = t(store.stones)
        self.colors = t(store.colors)
        self.start = t(store.start)
        self.game = t(store.game)
        self.count = t(store.count)
        self.move = t(store.move)
        self.to_move = t(store.to_move)
        self.result = t(store.result)
        self.winrate = t(store.winrate, torch.float32)
        self.renju = t(store.rule[store.game] == int(Rule.RENJU), torch.float32)
        self.target_start = t(store.target_start)
        self.target_cell = t(store.target_cell)
        self.target_share = t(store.target_share, torch.float32)
        self._symmetry: dict[tuple[int, int], list[tuple[torch.Tensor, torch.Tensor]]] = {}

    def symmetries(self, height: int, width: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        key = (height, width)
        if key not in self._symmetry:
            pairs = []
            for source in _symmetries(height, width):
                source = source.to(self.device)
                pairs.append((source, torch.argsort(source)))
            self._symmetry[key] = pairs
        return self._symmetry[key]

    def batch(self, samples: torch.Tensor, height: int, width: int, symmetry: int
              ) -> dict[str, torch.Tensor]:
        """Planes [B, 2, H, W], flags [B, 2], the move (cell, -1 none), the policy
        target [B, H * W] (the sample's distribution, else the move; zeros: none), result
        code, teacher winrate and the occupied mask [B, H * W] of ``samples`` (all of the
        one board shape)."""
        b = len(samples)
        cells = height * width
        games = self.game[samples]
        counts = self.count[samples]
        to_move = self.to_move[samples]
        owner = torch.repeat_interleave(torch.arange(b, device=self.device), counts)
        firsts = torch.cumsum(counts, 0) - counts
        within = torch.arange(len(owner), device=self.device) - firsts[owner]
        index = self.start[games][owner] + within
        stone_cells = self.stones[index]
        plane = (self.colors[index] != to_move[owner]).long()
        planes = torch.zeros(b * 2 * cells, device=self.device)
        planes[owner * 2 * cells + plane * cells + stone_cells] = 1.0
        planes = planes.view(b, 2, cells)
        source, target = self.symmetries(height, width)[symmetry]
        planes = planes[:, :, source].view(b, 2, height, width)
        move = self.move[samples]
        move = torch.where(move >= 0, target[move.clamp(min=0)], move)
        policy = self._policy_target(samples, move, target, cells)
        renju = self.renju[samples]
        flags = torch.stack([renju * (to_move == 1), renju * (to_move == 2)], dim=1).float()
        occupied = planes.view(b, 2, cells).sum(1) > 0
        return {"planes": planes, "flags": flags, "move": move, "policy": policy,
                "result": self.result[samples], "winrate": self.winrate[samples],
                "occupied": occupied}


    def _policy_target(self, samples: torch.Tensor, move: torch.Tensor, target: torch.Tensor,
                       cells: int) -> torch.Tensor:
        """The policy targets of ``samples`` (moves already mapped by the symmetry whose
        ``target`` maps old cells to new)."""
        b = len(samples)
        out = torch.zeros(b, cells, device=self.device)
        has_move = move >= 0
        out[has_move, move[has_move]] = 1.0
        first = self.target_start[samples]
        lengths = self.target_start[samples + 1] - first
        if int(lengths.sum()) == 0:
            return out
        spread = lengths > 0
        out[spread] = 0.0
        owner = torch.repeat_interleave(torch.arange(b, device=self.device), lengths)
        firsts = torch.cumsum(lengths, 0) - lengths
        index = first[owner] + torch.arange(len(owner), device=self.device) - firsts[owner]
        out[owner, target[self.target_cell[index]]] = self.target_share[index]
        return out / out.sum(1, keepdim=True).clamp(min=1e-9)


def losses(model: LineNetModel, batch: dict[str, torch.Tensor], teacher_weight: float
           ) -> dict[str, torch.Tensor]:
    """Policy cross-entropy against the target distribution (samples with one), value
    cross-entropy against the result and, where a teacher gave one, against its winrate
    (``teacher_weight`` of it)."""
    policy, wdl = model(batch["planes"], batch["flags"])
    policy = policy.float().masked_fill(batch["occupied"], -1e4)
    wdl = wdl.float()
    wanted = batch["policy"]
    has = wanted.sum(1) > 0
    policy_loss = (-(wanted[has] * F.log_softmax(policy[has], dim=1)).sum(1).mean()
                   if has.any() else policy.sum() * 0)
    log_wdl = F.log_softmax(wdl, dim=1)
    result = batch["result"]
    known = result >= 0
    target = torch.zeros_like(wdl)
    target[known] = F.one_hot(result[known], 3).float()
    winrate = batch["winrate"]
    taught = ~torch.isnan(winrate)
    if taught.any():
        teacher = torch.stack([winrate, torch.zeros_like(winrate), 1 - winrate], dim=1)
        mix = torch.where(known, teacher_weight, 1.0).unsqueeze(1)
        target[taught] = (mix * teacher + (1 - mix) * target)[taught]
    weight = (known | taught).float()
    value_loss = -(target * log_wdl).sum(1).mul(weight).sum() / weight.sum().clamp(min=1)
    return {"policy": policy_loss, "value": value_loss}


# -- the training run --------------------------------------------------------------------


@dataclass
class RunConfig:
    """Settings of a training run (kept in ``OUT/config.json``)."""

    out: str
    data: list[str] = field(default_factory=list)
    #: Sampling weight per source name (others: 1): a source's share of the batches is its
    #: weight over the sum of all sources' weights, whatever board sizes it holds.
    weights: dict[str, float] = field(default_factory=dict)
    model: ModelConfig = field(default_factory=ModelConfig)
    batch_size: int = 512
    learning_rate: float = 2e-3
    weight_decay: float = 1e-4
    minutes: float = 10.0
    steps: int | None = None
    teacher_weight: float = 0.7
    validation_fraction: float = 0.02
    checkpoint_seconds: float = 60.0
    seed: int = 0
    #: A checkpoint (``last.pt``, or the shipped ``linenet-model.pt``) whose model a run
    #: with no ``OUT/last.pt`` yet starts from.
    initial: str | None = None
    #: ``cosine`` (warm-up, then a decay to a tenth over the run) or ``constant`` (each
    #: self-play iteration's steps continue one long run).
    schedule: str = "cosine"


def _shape_keys(store: SampleStore) -> np.ndarray:
    """Each sample's board shape as ``height * 100 + width``."""
    return store.height[store.game].astype(np.int64) * 100 + store.width[store.game]


def sampling_groups(store: SampleStore, train: np.ndarray, weights: dict[str, float],
                    ) -> tuple[list[tuple[int, int, np.ndarray]], np.ndarray]:
    """The groups a training batch is drawn from, ``(height, width, rows)`` of ``train``
    of one board shape and one source, and the share of the batches each gets: a source's
    weight (``weights``, 1 if not named) over all sources' weights, split among its board
    shapes by their samples. (Weighting each shape in full once gave a source of two sizes,
    self-play, twice the share its weight said.)

    :raises ValueError: ``weights`` names a source ``store`` lacks, or leaves every
        training sample a weight of 0.
    """
    unknown = sorted(set(weights) - set(store.sources))
    if unknown:
        raise ValueError(f"no source {', '.join(unknown)} in the training data (its "
                         f"sources: {', '.join(store.sources)}); check --weight")
    shape = _shape_keys(store)
    groups: list[tuple[int, int, np.ndarray]] = []
    parts: list[float] = []
    for s, name in enumerate(store.sources):
        mine = train[store.source[train] == s]
        for key in np.unique(shape[mine]):
            rows = mine[shape[mine] == key]
            groups.append((int(key // 100), int(key % 100), rows))
            parts.append(weights.get(name, 1.0) * len(rows) / len(mine))
    shares = np.array(parts)
    if not shares.sum() > 0:
        raise ValueError("every source of the training data has a weight of 0; give one "
                         "a positive --weight")
    return groups, shares / shares.sum()


def _split(store: SampleStore, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and validation samples, split by game (a game's positions stay together)."""
    rng = np.random.default_rng(seed)
    held = rng.random(len(store.width)) < fraction
    is_held = held[store.game]
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)


class Trainer:
    """One training run over a :class:`SampleStore` (resumes from ``OUT/last.pt``)."""

    def __init__(self, config: RunConfig, store: SampleStore, device: torch.device) -> None:
        """:raises ValueError: ``config.weights`` that fit no sample (before ``OUT`` is
        made)."""
        self.config = config
        self.store = store
        self.device = device
        train, held = _split(store, config.validation_fraction, config.seed)
        self.groups, self.shares = sampling_groups(store, train, config.weights)
        self.out = Path(config.out)
        self.out.mkdir(parents=True, exist_ok=True)
        torch.manual_seed(config.seed)
        self.model = LineNetModel(config.model).to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.learning_rate,
                                           weight_decay=config.weight_decay)
        self.step = 0
        self.rng = np.random.default_rng(config.seed)
        self.batches = BatchMaker(store, device)
        shape = _shape_keys(store)
        self.held: list[tuple[int, int, np.ndarray, str]] = []
        for key in np.unique(shape):
            for s, name in enumerate(store.sources):
                rows = held[(shape[held] == key) & (store.source[held] == s)]
                if len(rows):
                    self.held.append((int(key // 100), int(key % 100), rows[:4096],
                                      f"{name} {key // 100}x{key % 100}"))
        self._resume()

    def _resume(self) -> None:
        last = self.out / "last.pt"
        if last.exists():
            state = torch.load(last, map_location=self.device, weights_only=False)
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.step = state["step"]
            log.info("resumed %s at step %d", last, self.step)
        elif self.config.initial is not None:
            initial = model_of(torch.load(self.config.initial, map_location=self.device,
                                          weights_only=False))
            if initial.config != self.config.model:
                initial = widen(initial, self.config.model)
                log.info("widened %s to %s", self.config.initial, self.config.model)
            self.model.load_state_dict(initial.state_dict())
            log.info("started from the model of %s", self.config.initial)

    def checkpoint(self) -> None:
        state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                 "step": self.step, "config": asdict(self.config)}
        torch.save(state, self.out / "last.tmp")
        (self.out / "last.tmp").replace(self.out / "last.pt")

    def _sample(self) -> dict[str, torch.Tensor]:
        g = self.rng.choice(len(self.groups), p=self.shares)
        height, width, rows = self.groups[g]
        pick = rows[self.rng.integers(0, len(rows), self.config.batch_size)]
        symmetry = int(self.rng.integers(0, 8 if height == width else 4))
        return self.batches.batch(torch.as_tensor(pick, device=self.device), height, width,
                                  symmetry)

    def learning_rate(self, progress: float) -> float:
        """Warm up over the first 2 %, then a cosine decay to a tenth (a ``constant``
        schedule: the base rate throughout)."""
        base = self.config.learning_rate
        if self.config.schedule == "constant":
            return base
        if progress < 0.02:
            return base * max(progress / 0.02, 0.05)
        return base * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0))))

    @torch.no_grad()
    def validate(self) -> dict[str, dict[str, float]]:
        self.model.eval()
        out = {}
        for height, width, rows, name in self.held:
            batch = self.batches.batch(torch.as_tensor(rows, device=self.device), height,
                                       width, 0)
            values = losses(self.model, batch, self.config.teacher_weight)
            policy, _ = self.model(batch["planes"], batch["flags"])
            policy = policy.masked_fill(batch["occupied"], -1e4)
            has = batch["move"] >= 0
            accuracy = (policy.argmax(1) == batch["move"])[has].float().mean()
            out[name] = {"policy": float(values["policy"]), "value": float(values["value"]),
                         "top1": float(accuracy)}
        self.model.train()
        return out

    def run(self, until: int | None = None) -> dict[str, float]:
        """Train for the run's minutes or steps (or up to step ``until``: a self-play
        iteration resumed mid-way takes only its remaining steps), checkpoint, validate;
        returns the mean policy and value losses of the steps taken."""
        config = self.config
        sums = {"policy": 0.0, "value": 0.0}
        started = time.monotonic()
        last_save = started
        budget = config.minutes * 60
        first = self.step
        steps = config.steps if until is None else until - first
        autocast = self.device.type == "cuda"
        while True:
            elapsed = time.monotonic() - started
            progress = (elapsed / budget if steps is None
                        else (self.step - first) / steps if steps > 0 else 1.0)
            if progress >= 1:
                break
            for group in self.optimizer.param_groups:
                group["lr"] = self.learning_rate(progress)
            batch = self._sample()
            with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=autocast):
                parts = losses(self.model, batch, config.teacher_weight)
            loss = parts["policy"] + parts["value"]
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.step += 1
            values = {name: parts[name].item() for name in sums}
            for name in sums:
                sums[name] += values[name]
            if self.step % 200 == 0:
                log.info("step %d (%.0f s): policy %.3f value %.3f", self.step, elapsed,
                         values["policy"], values["value"])
            if time.monotonic() - last_save > config.checkpoint_seconds:
                self.checkpoint()
                last_save = time.monotonic()
        self.checkpoint()
        report = {"step": self.step, "validation": self.validate()}
        (self.out / "report.json").write_text(json.dumps(report, indent=1))
        log.info("validation: %s", json.dumps(report["validation"]))
        return {name: total / max(self.step - first, 1) for name, total in sums.items()}


def sizes_of(path: str | Path) -> ModelConfig:
    """The model sizes of a checkpoint.

    :raises ValueError: ``path`` is not a line network checkpoint.
    """
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
        return ModelConfig(**state["config"]["model"])
    except (KeyError, TypeError, RuntimeError, pickle.UnpicklingError) as exc:
        raise ValueError(f"{path}: not a line network checkpoint (a .pt file with its "
                         f"model and sizes): {exc}") from exc


def load_model(path: str | Path, device: str = "cpu") -> LineNetModel:
    """The model of a checkpoint (``last.pt``)."""
    return model_of(torch.load(path, map_location=device, weights_only=False))


def model_of(state: dict) -> LineNetModel:
    """The model of a loaded checkpoint (``model`` weights, ``config`` of its run)."""
    model = LineNetModel(ModelConfig(**state["config"]["model"]))
    model.load_state_dict(state["model"])
    return model.eval()


# -- the commands ------------------------------------------------------------------------


def build_samples(sources: Sequence[str], data_dir: Path, teacher: Sequence[str],
                  max_games: int | None = None) -> SampleStore:
    """Samples of the game files ``sources`` (names of :data:`brain.train.data.SOURCES`)
    and of the teacher runs ``teacher`` (folders of ``python -m brain.train teach``)."""
    from brain.train.data import SOURCES, load_source
    from brain.train.teachdata import labelled_positions

    parts = []
    for name in sources:
        records, report = load_source(SOURCES[name], data_dir, max_games)
        log.info("%s", report.summary())
        parts.append(samples_of_records(name, records))
    for folder in teacher:
        positions = labelled_positions([folder])
        log.info("%s: %d teacher positions", folder, len(positions))
        by_shape: dict[tuple[int, int], list] = {}
        for p in positions:
            by_shape.setdefault((p.width, p.height), []).append(p)
        for (width, height), group in sorted(by_shape.items()):
            parts.append(samples_of_labels(f"teacher{width}x{height}", group))
    if not parts:
        raise ValueError("no data: give game sources or teacher runs")
    return SampleStore.concatenate(parts)


def train_command(config: RunConfig, device: str | None = None) -> Path:
    """Train on the sample files of ``config.data`` and export ``OUT/linenet.npz``.

    :raises ValueError: ``config.weights`` that fit no sample (:class:`Trainer`).
    """
    store = SampleStore.concatenate([SampleStore.load(p) for p in config.data])
    log.info("%d samples of %s", len(store), ", ".join(store.sources))
    chosen = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    trainer = Trainer(config, store, chosen)
    out = Path(config.out)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=1))
    trainer.run()
    # Exported on the CPU in float32: a GPU's reduced-precision convolutions would round
    # some table entries the other way.
    weights = export(trainer.model.float().cpu(), f"trained {trainer.step} steps on "
                                                  f"{', '.join(store.sources)}")
    weights.save(out / "linenet.npz")
    return out / "linenet.npz"
