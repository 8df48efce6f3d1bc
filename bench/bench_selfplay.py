"""Self-play games and positions per CPU hour of the line network
(:class:`brain.train.lineplay.SelfPlayer`), one process, for each root solver budget of
the short searches given: the same games (seed, game numbers) at each, so the winners
show whether the smaller budget changed how games end.

CPU time (``time.process_time``), so other processes on the machine do not count against
it. Run with ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``.

Run: ``.venv/bin/python bench/bench_selfplay.py [--games 16] [--playouts 1200]
[--fast-solver-nodes 20000 2000]``.
"""

from __future__ import annotations

import argparse
import time

from brain.eval.linenet import LineNet
from brain.resources import weights_dir
from brain.train.lineplay import LinePlayConfig, SelfPlayer
from brain.train.selfplay import game_rng


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--playouts", type=int, default=1200, help="a full search's playouts")
    parser.add_argument("--fast-solver-nodes", type=int, nargs="+", default=[20_000, 2_000],
                        help="root VCF/VCT node budgets of the short searches to compare")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--weights", default=str(weights_dir() / "linenet.npz"))
    args = parser.parse_args()
    net = LineNet.from_file(args.weights)
    for nodes in args.fast_solver_nodes:
        config = LinePlayConfig(playouts=args.playouts, fast_solver_nodes=nodes, seed=args.seed)
        player = SelfPlayer(net, config)
        started = time.process_time()
        games = [player.play(game_rng(config, n)) for n in range(args.games)]
        seconds = time.process_time() - started
        positions = sum(len(g.moves) for g in games)
        winners = "".join("-" if g.winner is None else g.winner.name[0] for g in games)
        print(f"short searches' solver {nodes:>6} nodes: {args.games} games in {seconds:.1f} "
              f"CPU s, {args.games * 3600 / seconds:,.0f} games and "
              f"{positions * 3600 / seconds:,.0f} positions a core-hour; winners {winners}")


if __name__ == "__main__":
    main()
