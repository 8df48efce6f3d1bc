"""What the protocol loop needs from a search engine, and the engines it can run."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Protocol

from brain.catalog import DEFAULT_NETWORK_VALUE, ENGINE_NAMES, NETWORK_ROLES
from brain.eval.evaluator import Evaluator
from brain.game.board import Board

log = logging.getLogger("brain")


class Engine(Protocol):
    """A move chooser driven by the protocol loop.

    ``choose_move`` must return a legal cell index for the side to move before
    ``deadline`` (``time.monotonic()`` seconds), sooner if ``stop`` is set, and never a
    renju foul for black while a legal alternative exists. With ``use_all`` the time it
    leaves unused is lost (no game clock keeps it): an engine that answers early once its
    choice looks settled should think on to the deadline instead. ``summary`` describes the last
    search in one line (evaluation, depth, nodes, principal variation) or is empty.
    ``best_so_far`` is what a search of ``board`` still running would play now (called
    from another thread when it misses its deadline), or None. ``limit_memory`` passes
    on the manager's memory limit in bytes (0: none given) and returns what the limit
    costs the search, as a phrase for the manager, or None when it costs nothing.
    """

    name: str

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int: ...

    def summary(self) -> str: ...

    def best_so_far(self, board: Board) -> int | None: ...

    def new_game(self) -> None: ...

    def limit_memory(self, max_bytes: int) -> str | None: ...


class HeuristicEngine:
    """The one-ply chooser of :mod:`brain.eval.heuristic` as an engine."""

    name = "pbrain-heuristic"

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int:
        from brain.eval.heuristic import choose_move

        return choose_move(board)

    def summary(self) -> str:
        return ""

    def best_so_far(self, board: Board) -> int | None:
        """Nothing: the one-ply choice is never cut short."""
        return None

    def new_game(self) -> None:
        """Nothing is kept between games."""

    def limit_memory(self, max_bytes: int) -> str | None:
        """Nothing: the one-ply choice holds no tables."""
        return None


class MctsEngine:
    """pbrain-zero's own engine: tree search with a leaf evaluator and, optionally, a
    network that re-ranks the moves of revisited nodes (see :func:`make_engine`)."""

    name = "pbrain-zero"

    def __init__(self, evaluator: Evaluator, playouts: int | None = None,
                 prior_net: Evaluator | None = None, network_value: int = 0) -> None:
        from brain.search.mcts import Mcts, MctsConfig

        config = MctsConfig(playouts=playouts, refine_value_visits=network_value)
        self.search = Mcts(evaluator, config, prior_net=prior_net)

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int:
        return self.search.search(board, deadline, stop, use_all=use_all)

    def summary(self) -> str:
        info = self.search.info
        pv = " ".join(f"{x},{y}" for x, y in info.pv[:10])
        if info.source == "opening":
            return "opening: the centre of an empty board"
        if info.source != "mcts":
            return f"{info.source}: win, pv {pv}".strip()
        rate = info.playouts / info.seconds if info.seconds > 0 else 0.0
        return (f"winrate {info.winrate * 100:.1f}% playouts {info.playouts} "
                f"({rate:.0f}/s) nodes {info.nodes} depth {info.mean_depth:.1f}-"
                f"{info.max_depth} time {info.seconds * 1000:.0f}ms pv {pv}").strip()

    def best_so_far(self, board: Board) -> int | None:
        return self.search.leader(board)

    def new_game(self) -> None:
        self.search.reset()

    def limit_memory(self, max_bytes: int) -> str | None:
        from brain.search.mcts import GOMOCUP_MEMORY_BYTES, NODE_BYTES, RESERVED_BYTES

        self.search.limit_memory(max_bytes)
        nodes = self.search.config.max_nodes
        full = (GOMOCUP_MEMORY_BYTES - RESERVED_BYTES) // NODE_BYTES
        if nodes >= full:
            return None
        return (f"the search's tree is held to {nodes:,} nodes (it counts {NODE_BYTES:,} "
                f"bytes a node and sets {RESERVED_BYTES >> 20} MiB aside for the rest of the "
                f"process and the threat solver's tables), where Gomocup's "
                f"{GOMOCUP_MEMORY_BYTES >> 20} MiB allows {full:,}")


def load_network(weights: Path | None = None) -> Evaluator | None:
    """The policy/value network from ``weights`` (default: the shipped file), or None.

    Without a usable file the search still plays, guided by the pattern model alone,
    and the reason is logged: a brain must never fail to start.
    """
    from brain.eval.network import PolicyValueNet, WeightsError, default_weights_path

    path = weights or default_weights_path()
    if not path.is_file():
        log.info("no network weights at %s: the search uses the pattern model", path)
        return None
    try:
        return PolicyValueNet.load(path)
    except (WeightsError, OSError, ValueError) as exc:
        log.error("cannot use the weights in %s (%s): the search uses the pattern model",
                  path, exc)
        return None


def make_engine(name: str, level: int | None = None, weights: Path | None = None,
                playouts: int | None = None, network: bool = True,
                network_role: str = "priors", pattern_model: Path | None = None,
                network_value: int = DEFAULT_NETWORK_VALUE) -> Engine:
    """Build the engine called ``name``; raises ValueError for an unknown name or role.

    ``weights``, ``pattern_model`` (a pattern-model file; default: the shipped one),
    ``network_value`` (the weight, in playouts, of the prior network's value of each
    node it re-ranks: :attr:`brain.search.mcts.MctsConfig.refine_value_visits`),
    ``network`` (False: the pattern model alone guides the search),
    ``network_role`` (one of :data:`NETWORK_ROLES`) and ``playouts`` (a fixed search
    budget, which makes play reproducible) apply to ``mcts``; ``level`` to engines with
    strength levels. If the tree search has no usable evaluator at all (the shipped
    pattern model is missing or damaged, and no network), the reason is logged and the
    one-ply heuristic plays instead: a brain must never fail to start.
    """
    if name == "heuristic":
        return HeuristicEngine()
    if name == "mcts":
        from brain.eval.evaluator import PatternEvaluator
        from brain.eval.patternmodel import PatternModel, PatternModelError

        if network_role not in NETWORK_ROLES:
            raise ValueError(f"unknown network role {network_role!r}: choose one of "
                             f"{', '.join(NETWORK_ROLES)}")
        net = load_network(weights) if network else None
        if net is not None and network_role == "leaves":
            return MctsEngine(net, playouts)
        try:
            patterns = PatternEvaluator(
                None if pattern_model is None else PatternModel.load(pattern_model))
        except (PatternModelError, OSError) as exc:
            remedy = ("reinstall the brain to restore weights/" if pattern_model is None
                      else f"check --pattern-model {pattern_model}")
            if net is not None:
                log.error("the pattern model cannot load (%s): the network values the "
                          "leaves; %s", exc, remedy)
                return MctsEngine(net, playouts)
            log.error("the tree search cannot start (%s): playing with the one-ply "
                      "heuristic; %s", exc, remedy)
            return HeuristicEngine()
        return MctsEngine(patterns, playouts, prior_net=net, network_value=network_value)
    if name == "alphabeta":
        from brain.search.alphabeta import MAX_LEVEL, AlphaBetaEngine

        if level is not None and not 0 <= level <= MAX_LEVEL:
            raise ValueError(f"alphabeta level {level} does not exist: use 0 to {MAX_LEVEL}")
        return AlphaBetaEngine(MAX_LEVEL if level is None else level)
    raise ValueError(f"unknown engine {name!r}: choose one of {', '.join(ENGINE_NAMES)}")
