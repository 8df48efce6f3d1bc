"""Network speed: numpy (the play path) against torch on the same weights, at batch 1 and
batched, for a few network sizes on 15x15 and 20x20; feature encoding; and the numpy 3x3
convolution formulations that :mod:`brain.eval.network` chose between.

Run: ``OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_network.py`` (one core, as
the brain is measured; needs the ``train`` extra for the torch column). Figures go to
``docs/network.md``. Times are CPU times (see :func:`per_call`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch
from numpy.lib.stride_tricks import sliding_window_view

from brain.eval.features import PLANE_COUNT, encode, encode_batch
from brain.eval.network import Architecture, NetMetadata, PolicyValueNet, _Workspace
from brain.game.board import Board
from brain.train.data import SOURCES, Replayer, load_source
from brain.train.export import fold
from brain.train.model import PolicyValueModel

SIZES = ((4, 32), (6, 48), (8, 64), (10, 96))


def per_call(seconds: float, function: Callable[..., object], *args: object,
             repeats: int = 3) -> float:
    """Best-of-``repeats`` mean CPU seconds per ``function(*args)`` call, each repeat
    running ``seconds`` of CPU time. CPU time, not wall time, because the development
    machine is shared: with one BLAS/torch thread it is the uncontended wall time."""
    function(*args)
    results = []
    for _ in range(repeats):
        calls, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            function(*args)
            calls += 1
        results.append((time.process_time() - start) / calls)
    return min(results)


def positions(source: str, count: int) -> list[Board]:
    """Mid-game positions (move 10 to 40) of real games of ``source``."""
    records, _ = load_source(SOURCES[source], max_games=count)
    boards = []
    for n, record in enumerate(records):
        ply = min(len(record.moves) - 1, 10 + n % 31)
        boards.append(Replayer().position(record, ply).copy())
    return boards


def bench_networks(seconds: float, sizes: list[tuple[int, int]]) -> None:
    torch.set_num_threads(1)
    boards = {15: positions("freestyle15", 64), 20: positions("freestyle20", 64)}
    print("| net | board | numpy b=1 | numpy b=16 | numpy evaluate() b=1 | torch b=1 "
          "| torch b=16 |")
    print("|---|---|---|---|---|---|---|")
    for blocks, channels in sizes:
        torch.manual_seed(0)
        model = PolicyValueModel(Architecture(blocks, channels)).eval()
        net = PolicyValueNet(fold(model), NetMetadata(model.architecture))
        for size, pool in boards.items():
            one, many = encode_batch(pool[:1]), encode_batch(pool[:16])
            tensor_one, tensor_many = torch.from_numpy(one), torch.from_numpy(many)
            with torch.no_grad():
                torch_one = per_call(seconds, model, tensor_one)
                torch_many = per_call(seconds, model, tensor_many) / 16
            numpy_one = per_call(seconds, net.forward, one)
            numpy_many = per_call(seconds, net.forward, many) / 16
            full = per_call(seconds, net.evaluate, pool[:1])
            print(f"| {blocks}x{channels} | {size}x{size} | {1 / numpy_one:,.0f}/s "
                  f"| {1 / numpy_many:,.0f}/s | {1 / full:,.0f}/s | {1 / torch_one:,.0f}/s "
                  f"| {1 / torch_many:,.0f}/s |", flush=True)


def bench_encode(seconds: float) -> None:
    print("\n| encode | µs per board |\n|---|---|")
    cases = [("freestyle 15x15", positions("freestyle15", 64)),
             ("freestyle 20x20", positions("freestyle20", 64))]
    renju = positions("renju", 200)
    cases += [("renju 15x15, black to move", [b for b in renju if b.to_move == 1][:64]),
              ("renju 15x15, white to move", [b for b in renju if b.to_move == 2][:64])]
    for name, pool in cases:
        cost = per_call(seconds, lambda boards: [encode(b) for b in boards], pool) / len(pool)
        print(f"| {name} | {cost * 1e6:.1f} |", flush=True)
    pool = cases[0][1][:16]
    cost = per_call(seconds, encode_batch, pool) / len(pool)
    print(f"| encode_batch of 16, freestyle 15x15 | {cost * 1e6:.1f} |")


# -- the 3x3 convolution formulations compared (NHWC input, same weights) ---------------


def conv_im2col_copies(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Nine shifted copies into one (B*H*W, 9*C) matrix, one matmul (the network's
    formulation until its buffers were kept; fresh arrays each call)."""
    batch, height, width, channels = x.shape
    padded = np.zeros((batch, height + 2, width + 2, channels), dtype=np.float32)
    padded[:, 1:-1, 1:-1] = x
    columns = np.empty((batch, height, width, 9, channels), dtype=np.float32)
    for k in range(9):
        dy, dx = divmod(k, 3)
        columns[:, :, :, k] = padded[:, dy:dy + height, dx:dx + width]
    return columns.reshape(-1, 9 * channels) @ w.reshape(-1, w.shape[-1])


def workspace_conv(x: np.ndarray, w: np.ndarray) -> Callable[[], np.ndarray]:
    """The formulation :mod:`brain.eval.network` uses: ``x`` in a kept zero-bordered
    buffer, one copy through a kept window view into a kept im2col matrix, one matmul
    into a kept product (a zero bias row here). Returns the convolution as a call."""
    batch, height, width, channels = x.shape
    space = _Workspace(batch, height, width, Architecture(1, channels, in_planes=channels))
    space.inner[0][...] = x
    matrix = np.vstack([w.reshape(-1, w.shape[-1]), np.zeros((1, w.shape[-1]), np.float32)])
    return lambda: space.convolve(1, matrix)


def conv_sliding_window(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sliding_window_view, reshaped (one copy) and one matmul."""
    c = x.shape[3]
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    view = sliding_window_view(padded, (3, 3), axis=(1, 2))  # (B, H, W, C, 3, 3)
    return view.reshape(-1, c * 9) @ w.transpose(2, 0, 1, 3).reshape(c * 9, -1)


def conv_shift_sum(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Nine matmuls of shifted views, summed."""
    _, h, wd, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = None
    for k in range(9):
        dy, dx = divmod(k, 3)
        part = padded[:, dy:dy + h, dx:dx + wd].reshape(-1, c) @ w[dy, dx]
        out = part if out is None else out + part
    return out


def conv_tensordot(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """tensordot of the sliding window view with the (3, 3, C, O) kernel."""
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    view = sliding_window_view(padded, (3, 3), axis=(1, 2))
    return np.tensordot(view, w, axes=([3, 4, 5], [2, 0, 1]))


def bench_convolutions(seconds: float) -> None:
    methods = {"im2col copies": conv_im2col_copies, "sliding window": conv_sliding_window,
               "shift and sum": conv_shift_sum, "tensordot": conv_tensordot}
    print("\n| one 3x3 conv, C=48 | " + " | ".join(methods) + " | im2col, kept buffers |")
    print("|---|" + "---|" * (len(methods) + 1))
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 3, 48, 48), dtype=np.float32)
    for size in (15, 20):
        for batch in (1, 16):
            x = rng.standard_normal((batch, size, size, 48), dtype=np.float32)
            reference = conv_im2col_copies(x, w).reshape(-1, 48)
            cells = []
            for method in methods.values():
                result = method(x, w).reshape(-1, 48)
                if not np.allclose(result, reference, atol=1e-3):
                    raise AssertionError(f"{method.__name__} disagrees")
                cells.append(f"{per_call(seconds, method, x, w) * 1e6:,.0f} µs")
            kept = workspace_conv(x, w)
            if not np.allclose(kept().reshape(-1, 48), reference, atol=1e-3):
                raise AssertionError("the kept-buffer convolution disagrees")
            cells.append(f"{per_call(seconds, kept) * 1e6:,.0f} µs")
            print(f"| {size}x{size}, batch {batch} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="per measurement repeat")
    parser.add_argument("--sizes", nargs="+", default=[f"{b}x{c}" for b, c in SIZES],
                        help="networks as BLOCKSxCHANNELS")
    args = parser.parse_args()
    sizes = [tuple(int(v) for v in text.split("x")) for text in args.sizes]
    print(f"numpy {np.__version__}, torch {torch.__version__}, {PLANE_COUNT} input planes, "
          f"best of 3 x {args.seconds} s per figure\n")
    bench_networks(args.seconds, sizes)  # type: ignore[arg-type]
    bench_encode(args.seconds)
    bench_convolutions(args.seconds)


if __name__ == "__main__":
    main()
