"""``python -m brain`` / ``pbrain-zero``: the Gomocup brain on stdin and stdout."""

from __future__ import annotations

import time

_PROCESS_STARTED = time.monotonic()

import argparse  # noqa: E402  (the clock above must start before anything else loads)
import os  # noqa: E402
import sys  # noqa: E402

# One BLAS thread, set before numpy loads. The network's matrices are small, and while
# another process holds the second core OpenBLAS's spinning worker threads cut the
# network search from 469 to 148 playouts/s (bench/bench_mcts.py, docs/network.md).
# A value the user set is kept.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    from pathlib import Path

    from brain.catalog import DEFAULT_ENGINE, DEFAULT_NETWORK_VALUE, ENGINE_NAMES, NETWORK_ROLES

    parser = argparse.ArgumentParser(
        prog="pbrain-zero",
        description="A Gomocup brain: speaks the Piskvork protocol on stdin/stdout.",
    )
    parser.add_argument("--engine", choices=ENGINE_NAMES, default=DEFAULT_ENGINE,
                        help="search engine to play with (default: %(default)s)")
    parser.add_argument("--level", type=int, default=None,
                        help="strength level of the engine, where it has levels")
    parser.add_argument("--weights", type=Path, default=None,
                        help="network weights for mcts (default: the shipped file)")
    parser.add_argument("--pattern-model", type=Path, default=None,
                        help="mcts: pattern-model file that values the leaves (default: "
                             "the shipped weights/patterns.npz)")
    parser.add_argument("--no-network", action="store_true",
                        help="mcts: guide the search with the pattern model alone")
    parser.add_argument("--network-role", choices=NETWORK_ROLES, default="priors",
                        help="mcts: 'priors' (the network re-ranks the moves of the "
                             "nodes the search returns to; the pattern model values "
                             "the leaves) or 'leaves' (the network values every leaf); "
                             "default: %(default)s")
    parser.add_argument("--network-value", type=int, default=DEFAULT_NETWORK_VALUE,
                        metavar="VISITS",
                        help="mcts, priors role: count the network's value of each node it "
                             "re-ranks as VISITS playouts ending there (0: use only its "
                             "priors; default: %(default)s)")
    parser.add_argument("--playouts", type=int, default=None,
                        help="mcts: a fixed number of playouts per move instead of the "
                             "clock (reproducible play; still never past the time limit)")
    parser.add_argument("--refute-share", type=float, default=None, metavar="SHARE",
                        help="mcts and linenet: share of each move's time that checks of "
                             "the leading move against an opponent threat-space win may "
                             "use (default: the engine's, 0.1)")
    parser.add_argument("--author", default=None,
                        help="the author named in the ABOUT reply (default: the one the "
                             "build was made with, else the pbrain-zero team)")
    parser.add_argument("--country", default=None,
                        help="the country named in the ABOUT reply (default: the one the "
                             "build was made with, else none is sent)")
    parser.add_argument("--log-file", default=None,
                        help="append the log to this file; without it nothing is logged "
                             "(the manager's pipes carry protocol lines only; warnings "
                             "also go out as MESSAGE lines)")
    parser.add_argument("--verbose", action="store_true", help="log debugging detail")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from brain.process.loop import Output

    output = Output(sys.stdout)
    try:
        from brain.process.logs import route_logs

        messages = route_logs(args.log_file, args.verbose, output)
    except OSError as exc:
        output(f"ERROR cannot open the log file {args.log_file}: {exc}")
        return 2

    import gc
    import logging

    from brain.native import core_status

    logging.getLogger("brain").info(core_status())

    from brain.engine import make_engine
    from brain.process.loop import main_loop
    from brain.process.session import DEFAULT_AUTHOR, Session
    from brain.resources import bundled_about
    from brain.search.mcts import SEARCH_GC_THRESHOLD

    engine = make_engine(args.engine, args.level, weights=args.weights,
                         playouts=args.playouts, network=not args.no_network,
                         network_role=args.network_role, pattern_model=args.pattern_model,
                         network_value=args.network_value, refute_share=args.refute_share)
    # The objects made so far (modules, tables, weights) never become garbage: keep them
    # out of every pass of the cycle collector, and make the passes rare for every
    # engine, as the tree search does for itself while it runs.
    gc.freeze()
    gc.set_threshold(SEARCH_GC_THRESHOLD, 10, 10)
    about = bundled_about()
    session = Session(engine, output, process_started=_PROCESS_STARTED,
                      author=args.author or about.get("author") or DEFAULT_AUTHOR,
                      country=args.country or about.get("country"))
    messages.write = session.write  # after END the brain stays silent, logs included
    main_loop(session)
    return 0


if __name__ == "__main__":
    sys.exit(main())
