"""The policy/value network in plain numpy: load shipped weights and evaluate positions.

The play path never imports torch: training (:mod:`brain.train`) exports its model with
batch norm folded into the convolutions, and this module runs the same architecture:

* a stem (3x3 convolution, ReLU) and ``blocks`` residual blocks of two 3x3 convolutions
  with ``channels`` channels each;
* a policy head: 1x1 convolution to ``policy_channels``, ReLU, 1x1 convolution to one
  logit per cell;
* a value head: 1x1 convolution to ``value_channels``, ReLU, mean and max pooling over
  the board, a hidden layer of ``value_hidden`` units (ReLU) and three logits, the
  win/draw/loss chances of the side to move.

Everything is convolutional or pooled over the board, so one set of weights plays on
every board size and on rectangles. Activations are kept channels-last in zero-bordered
buffers, and each 3x3 convolution is one matrix product over an im2col copy of the
padded input (the fastest of the numpy formulations measured in
``bench/bench_network.py``), with the bias as the product's last row. The buffers, and
strided views that fill the im2col matrix in one copy, are made once per batch shape
(:class:`_Workspace`): at batch 1 the numpy calls around the products, not the
products, had taken two fifths of the time.

Weights files are ``.npz`` archives of float32 arrays named as in the torch model
(``stem.weight``, ``blocks.0.conv1.bias``, ...) plus ``metadata``, a JSON string with
the architecture, the feature version and a training summary.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from brain.errors import PbrainError
from brain.eval.features import FEATURE_VERSION, PLANE_COUNT, encode_batch, legal_from_planes
from brain.game.board import Board
from brain.resources import weights_dir

#: Name of the weights file shipped in ``weights/``.
DEFAULT_WEIGHTS_NAME = "pbrain-zero.npz"
#: Largest number of board cells evaluated in one pass (see :meth:`PolicyValueNet.forward`).
CHUNK_CELLS = 512
#: Batch shapes whose buffers a thread keeps (:class:`_Workspace`, two im2col matrices
#: of up to CHUNK_CELLS rows each: 1.8 MB for 48 channels): a game uses one board shape,
#: at batch 1 and in the chunks of a bigger batch.
WORKSPACES_KEPT = 4
#: Identifies our weights files; bumped when the file layout changes.
FORMAT = "pbrain-zero-net"
FORMAT_VERSION = 1


class WeightsError(PbrainError, ValueError):
    """A weights file that is missing, malformed, or made for other input features."""


@dataclass(frozen=True)
class Architecture:
    """The shape of the network; the torch model and the numpy runner share it."""

    blocks: int
    channels: int
    policy_channels: int = 16
    value_channels: int = 16
    value_hidden: int = 64
    in_planes: int = PLANE_COUNT

    def array_shapes(self) -> dict[str, tuple[int, ...]]:
        """Name and shape of every array of the exported (batch-norm folded) network."""
        c, p, v = self.channels, self.policy_channels, self.value_channels
        shapes: dict[str, tuple[int, ...]] = {
            "stem.weight": (c, self.in_planes, 3, 3), "stem.bias": (c,),
        }
        for n in range(self.blocks):
            for conv in ("conv1", "conv2"):
                shapes[f"blocks.{n}.{conv}.weight"] = (c, c, 3, 3)
                shapes[f"blocks.{n}.{conv}.bias"] = (c,)
        shapes |= {
            "policy.conv.weight": (p, c, 1, 1), "policy.conv.bias": (p,),
            "policy.out.weight": (1, p, 1, 1), "policy.out.bias": (1,),
            "value.conv.weight": (v, c, 1, 1), "value.conv.bias": (v,),
            "value.fc1.weight": (self.value_hidden, 2 * v),
            "value.fc1.bias": (self.value_hidden,),
            "value.fc2.weight": (3, self.value_hidden), "value.fc2.bias": (3,),
        }
        return shapes


@dataclass(frozen=True)
class NetMetadata:
    """What a weights file says about itself."""

    architecture: Architecture
    feature_version: int = FEATURE_VERSION
    #: Free-form summary of how the weights were made (data, steps, metrics).
    training: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION,
                           **asdict(self)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> NetMetadata:
        """Parse the metadata string; raises :class:`WeightsError` if it is not ours."""
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise WeightsError(f"not a {FORMAT} weights file (format {data.get('format')!r})")
            if data.get("format_version") != FORMAT_VERSION:
                raise WeightsError(
                    f"weights file format version {data.get('format_version')} is not "
                    f"supported: this build reads version {FORMAT_VERSION}"
                )
            return cls(Architecture(**data["architecture"]), int(data["feature_version"]),
                       dict(data.get("training", {})))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            raise WeightsError(f"malformed weights metadata: {exc}") from None


def default_weights_path() -> Path:
    """The shipped weights file, ``pbrain-zero.npz`` in :func:`brain.resources.weights_dir`."""
    return weights_dir() / DEFAULT_WEIGHTS_NAME


def save_weights(path: str | Path, arrays: Mapping[str, np.ndarray],
                 metadata: NetMetadata) -> None:
    """Write folded network ``arrays`` and ``metadata`` to an ``.npz`` file at ``path``.

    Raises :class:`WeightsError` if the arrays do not match the architecture.
    """
    _check_arrays(arrays, metadata.architecture)
    np.savez_compressed(
        path, metadata=np.array(metadata.to_json()),
        **{name: np.asarray(array, dtype=np.float32) for name, array in arrays.items()},
    )


def _check_arrays(arrays: Mapping[str, np.ndarray], architecture: Architecture) -> None:
    expected = architecture.array_shapes()
    missing = sorted(set(expected) - set(arrays))
    extra = sorted(set(arrays) - set(expected))
    if missing or extra:
        raise WeightsError(f"weights do not match {architecture}: missing {missing}, "
                           f"unexpected {extra}")
    for name, shape in expected.items():
        if tuple(arrays[name].shape) != shape:
            raise WeightsError(f"weights array {name} has shape {tuple(arrays[name].shape)}, "
                               f"expected {shape}")


@dataclass(frozen=True)
class NetOutput:
    """Raw network outputs for a batch: per-cell policy logits (B, H*W) and win/draw/loss
    logits (B, 3) for the side to move."""

    policy_logits: np.ndarray
    wdl_logits: np.ndarray


class PolicyValueNet:
    """A loaded network. Thread-safe: the only state kept between calls is each
    thread's own buffers (:class:`_Workspace`), whose contents no result shares."""

    def __init__(self, arrays: Mapping[str, np.ndarray], metadata: NetMetadata) -> None:
        if metadata.feature_version != FEATURE_VERSION:
            raise WeightsError(
                f"weights were trained on input features version {metadata.feature_version}, "
                f"this build encodes version {FEATURE_VERSION}"
            )
        _check_arrays(arrays, metadata.architecture)
        self.metadata = metadata
        self.architecture = metadata.architecture

        def conv3(name: str) -> np.ndarray:
            # (out, in, ky, kx) -> (ky * kx * in + 1, out), matching the im2col column
            # order, whose last column is all ones: the last row is the bias.
            weight = np.asarray(arrays[f"{name}.weight"], dtype=np.float32)
            matrix = weight.transpose(2, 3, 1, 0).reshape(-1, weight.shape[0])
            return np.ascontiguousarray(np.vstack([matrix, _bias(arrays, name)[None, :]]))

        def dense(name: str) -> tuple[np.ndarray, np.ndarray]:
            # 1x1 convolution or linear layer: (out, in[, 1, 1]) -> (in, out).
            weight = np.asarray(arrays[f"{name}.weight"], dtype=np.float32)
            return np.ascontiguousarray(weight.reshape(weight.shape[0], -1).T), _bias(arrays,
                                                                                        name)

        self._stem = conv3("stem")
        self._blocks = [(conv3(f"blocks.{n}.conv1"), conv3(f"blocks.{n}.conv2"))
                        for n in range(self.architecture.blocks)]
        self._policy = (dense("policy.conv"), dense("policy.out"))
        self._value = (dense("value.conv"), dense("value.fc1"), dense("value.fc2"))
        self._local = threading.local()

    @classmethod
    def load(cls, path: str | Path) -> PolicyValueNet:
        """Read a weights file written by :func:`save_weights`.

        Raises :class:`WeightsError` if the file is missing, is not a weights file, or
        was made for another feature version or architecture than its arrays.
        """
        path = Path(path)
        if not path.is_file():
            raise WeightsError(f"weights file {path} does not exist")
        try:
            with np.load(path, allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
        except (OSError, ValueError) as exc:
            raise WeightsError(f"cannot read weights file {path}: {exc}") from None
        if "metadata" not in arrays:
            raise WeightsError(f"{path} has no metadata: not a {FORMAT} weights file")
        metadata = NetMetadata.from_json(str(arrays.pop("metadata")))
        return cls(arrays, metadata)

    # -- evaluation ------------------------------------------------------------------------

    def forward(self, planes: np.ndarray) -> NetOutput:
        """Raw outputs for (B, C, H, W) input planes (see :mod:`brain.eval.features`).

        The batch is run in chunks of at most :data:`CHUNK_CELLS` cells (at least one
        board): bigger matrices fall out of the CPU cache and run slower per board.
        """
        planes = np.asarray(planes, dtype=np.float32)
        if planes.ndim != 4 or planes.shape[1] != self.architecture.in_planes:
            raise ValueError(f"expected planes of shape (B, {self.architecture.in_planes}, H, W),"
                             f" got {planes.shape}")
        step = max(1, CHUNK_CELLS // (planes.shape[2] * planes.shape[3]))
        if len(planes) <= step:
            return self._forward(planes)
        parts = [self._forward(planes[start:start + step])
                 for start in range(0, len(planes), step)]
        return NetOutput(np.concatenate([p.policy_logits for p in parts]),
                         np.concatenate([p.wdl_logits for p in parts]))

    def _forward(self, planes: np.ndarray) -> NetOutput:
        batch, _, height, width = planes.shape
        space = self._workspace(batch, height, width)
        space.input[:, 1:-1, 1:-1] = planes.transpose(0, 2, 3, 1)
        trunk = space.convolve(0, self._stem)
        if not self._blocks:
            np.maximum(trunk, 0.0, out=trunk)
        else:
            x, y = space.inner
            np.maximum(trunk, 0.0, out=x)
            for n, (first, second) in enumerate(self._blocks):
                np.maximum(space.convolve(1, first), 0.0, out=y)
                trunk = space.convolve(2, second)
                if n + 1 < len(self._blocks):
                    np.add(x, trunk, out=x)
                    np.maximum(x, 0.0, out=x)
            # The last block's sum goes to the (contiguous) product buffer, which the
            # heads read as a matrix.
            np.add(x, trunk, out=trunk)
            np.maximum(trunk, 0.0, out=trunk)
        flat = trunk.reshape(batch, -1, trunk.shape[3])

        (p_w, p_b), (o_w, o_b) = self._policy
        p = flat @ p_w + p_b
        np.maximum(p, 0.0, out=p)
        policy_logits = (p @ o_w + o_b).reshape(batch, -1)

        (v_w, v_b), (h_w, h_b), (w_w, w_b) = self._value
        v = flat @ v_w + v_b
        np.maximum(v, 0.0, out=v)
        pooled = np.concatenate([v.mean(axis=1), v.max(axis=1)], axis=1)
        hidden = pooled @ h_w + h_b
        np.maximum(hidden, 0.0, out=hidden)
        return NetOutput(policy_logits, hidden @ w_w + w_b)

    def _workspace(self, batch: int, height: int, width: int) -> _Workspace:
        """This thread's buffers for a batch of that shape (made on first use)."""
        spaces: dict[tuple[int, int, int], _Workspace] | None = getattr(
            self._local, "spaces", None)
        if spaces is None:
            spaces = self._local.spaces = {}
        key = (batch, height, width)
        space = spaces.pop(key, None)
        if space is None:
            if len(spaces) >= WORKSPACES_KEPT:
                del spaces[next(iter(spaces))]  # the least recently used
            space = _Workspace(batch, height, width, self.architecture)
        spaces[key] = space
        return space

    def evaluate_planes(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Policy logits (B, H*W), unmasked, and value (B,) in [-1, 1] for (B, C, H, W)
        planes."""
        out = self.forward(planes)
        return out.policy_logits, wdl_value(softmax(out.wdl_logits))

    def evaluate_with_wdl(self, boards: Sequence[Board]
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Like :meth:`evaluate`, plus the (B, 3) win/draw/loss probabilities."""
        planes = encode_batch(boards)
        out = self.forward(planes)
        policy = masked_softmax(out.policy_logits, legal_from_planes(planes))
        wdl = softmax(out.wdl_logits)
        return policy, wdl_value(wdl), wdl

    def evaluate(self, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]:
        """Move probabilities (B, H*W) and values (B,) for the side to move of each board.

        The policy is a softmax over the legal cells only (empty, and not a renju foul
        when black is to move); a board without a legal cell gets an all-zero row. The
        value is P(win) - P(loss) in [-1, 1]. All boards must share one shape.
        """
        policy, value, _ = self.evaluate_with_wdl(boards)
        return policy, value


def _bias(arrays: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    return np.asarray(arrays[f"{name}.bias"], dtype=np.float32)


class _Workspace:
    """The buffers of one batch shape: the zero-bordered input planes and two
    zero-bordered activations (the block's input and its inner activation), their
    im2col matrices with a last column of ones, and the product buffer.

    A convolution reads a bordered buffer through a strided window view made here once,
    so filling its im2col matrix is one copy; the borders are never written, so they
    stay the zero padding.
    """

    def __init__(self, batch: int, height: int, width: int,
                 architecture: Architecture) -> None:
        channels = architecture.channels

        def bordered(planes: int) -> np.ndarray:
            return np.zeros((batch, height + 2, width + 2, planes), dtype=np.float32)

        self.input = bordered(architecture.in_planes)
        activations = (bordered(channels), bordered(channels))
        #: The interiors of the two bordered activations: the block's input, its inner one.
        self.inner = tuple(a[:, 1:-1, 1:-1] for a in activations)
        cells = batch * height * width
        self._sources = []  # per source: (window view, its im2col matrix, that matrix's view)
        for source in (self.input, *activations):
            planes = source.shape[3]
            columns = np.ones((cells, 9 * planes + 1), dtype=np.float32)
            # (B, H, W, planes, 3, 3) windows, ordered as the columns: ky, kx, plane.
            window = sliding_window_view(source, (3, 3), axis=(1, 2)).transpose(
                0, 1, 2, 4, 5, 3)
            target = columns[:, :-1].reshape(batch, height, width, 3, 3, planes)
            self._sources.append((window, columns, target))
        self._product = np.empty((cells, channels), dtype=np.float32)
        self._product_view = self._product.reshape(batch, height, width, channels)

    def convolve(self, source: int, matrix: np.ndarray) -> np.ndarray:
        """The 3x3 convolution of bordered buffer ``source`` (0: the input planes, 1: the
        block's input, 2: its inner activation) by the im2col ``matrix`` (bias row
        last), before its ReLU, as a (B, H, W, channels) view of the product buffer
        (overwritten by the next call)."""
        window, columns, target = self._sources[source]
        np.copyto(target, window)
        np.matmul(columns, matrix, out=self._product)
        return self._product_view


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis."""
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax of (B, N) ``logits`` over the cells where ``mask`` is true; rows without
    any such cell are all zeros."""
    masked = np.where(mask, logits, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    exp = np.where(mask, np.exp(masked - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = exp.sum(axis=1, keepdims=True)
    return exp / np.where(total > 0, total, 1.0)


def wdl_value(wdl: np.ndarray) -> np.ndarray:
    """Scalar value P(win) - P(loss) of (B, 3) win/draw/loss probabilities."""
    return wdl[:, 0] - wdl[:, 2]
