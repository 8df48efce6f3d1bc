"""The engines ``python -m brain`` can run, built by name (:func:`make_engine`): the tree
search, the alpha-beta baseline and the one-ply chooser, each a
:class:`~brain.search.searcher.Searcher`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.catalog import (
    DEFAULT_NETWORK_VALUE,
    ENGINE_NAMES,
    LINE_NETWORK_FILE,
    NETWORK_ROLES,
)
from brain.eval.evaluator import Evaluator
from brain.game.board import Board
from brain.search.searcher import Searcher, SearchInfo

if TYPE_CHECKING:
    from brain.eval.linenet import LineNet

log = logging.getLogger("brain")


class HeuristicEngine:
    """The one-ply chooser of :mod:`brain.eval.heuristic` as an engine."""

    name = "pbrain-heuristic"
    watchable = False

    def __init__(self) -> None:
        #: Always empty: the one-ply choice is no search.
        self.info = SearchInfo()

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int:
        from brain.eval.heuristic import choose_move

        return choose_move(board)

    def best_so_far(self, board: Board) -> int | None:
        """Nothing: the one-ply choice is never cut short."""
        return None

    def watch(self, report: Callable[[SearchInfo], None] | None, interval: float) -> None:
        """Nothing to report."""

    def new_game(self) -> None:
        """Nothing is kept between games."""

    def limit_memory(self, max_bytes: int) -> str | None:
        """Nothing: the one-ply choice holds no tables."""
        return None


class TreeSearchEngine:
    """A tree search (``self.search``: :class:`~brain.search.mcts.Mcts` or
    :class:`~brain.search.linesearch.LineSearch`) as an engine: the searches share their
    interface (search, leader, reporter, reset), and differ in how a memory limit bounds
    them."""

    name = "pbrain-zero"
    watchable = True
    search: Any

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int:
        return self.search.search(board, deadline, stop, use_all=use_all)

    @property
    def info(self) -> SearchInfo:
        return self.search.info

    def best_so_far(self, board: Board) -> int | None:
        return self.search.leader(board)

    def watch(self, report: Callable[[SearchInfo], None] | None, interval: float) -> None:
        self.search.reporter = report
        self.search.report_interval = interval

    def new_game(self) -> None:
        self.search.reset()


class MctsEngine(TreeSearchEngine):
    """pbrain-zero's own engine: tree search with a leaf evaluator and, optionally, a
    network that re-ranks the moves of revisited nodes (see :func:`make_engine`)."""

    def __init__(self, evaluator: Evaluator, playouts: int | None = None,
                 prior_net: Evaluator | None = None, network_value: int = 0,
                 refute_share: float | None = None) -> None:
        from brain.search.mcts import Mcts, MctsConfig

        config = MctsConfig(playouts=playouts, refine_value_visits=network_value)
        if refute_share is not None:
            config.refute_share = refute_share
        self.search = Mcts(evaluator, config, prior_net=prior_net)

    def limit_memory(self, max_bytes: int) -> str | None:
        from brain.search.mcts import (
            GOMOCUP_MEMORY_BYTES,
            MIN_NODES,
            NODE_BYTES,
            RESERVED_BYTES,
        )

        self.search.limit_memory(max_bytes)
        nodes = self.search.config.max_nodes
        full = (GOMOCUP_MEMORY_BYTES - RESERVED_BYTES) // NODE_BYTES
        if nodes >= full:
            return None
        cost = (f"a search stops at {nodes:,} nodes of tree (it counts {NODE_BYTES:,} "
                f"bytes a node and sets {RESERVED_BYTES >> 20} MiB aside for the rest of the "
                f"process and the threat solver's tables), where Gomocup's "
                f"{GOMOCUP_MEMORY_BYTES >> 20} MiB allows {full:,}")
        if nodes > MIN_NODES:
            return cost
        return (f"{cost}; a limit this low is not kept: the threat solver's table, which it "
                f"does not bound, takes up to about 35 MiB in a game")


class LineNetEngine(TreeSearchEngine):
    """pbrain-zero's engine with the line-pattern network: compiled playouts, the network
    valuing every leaf and ranking every new node's moves (:mod:`brain.search.linesearch`)."""

    def __init__(self, net: LineNet, playouts: int | None = None,
                 refute_share: float | None = None) -> None:
        from brain.search.linesearch import LineSearch, LineSearchConfig

        config = LineSearchConfig(playouts=playouts)
        if refute_share is not None:
            config.refute_share = refute_share
        self.search = LineSearch(net, config)

    def limit_memory(self, max_bytes: int) -> str | None:
        from brain.search.linesearch import (
            GOMOCUP_MEMORY_BYTES,
            MIN_TREE_BYTES,
            RESERVED_BYTES,
            SOLVER_FULL_ENTRIES,
        )

        self.search.limit_memory(max_bytes)
        tree = self.search.config.tree_bytes
        full = GOMOCUP_MEMORY_BYTES - RESERVED_BYTES
        if tree >= full:
            return None
        cost = (f"the search's tree is held to {tree >> 20} MiB (it sets "
                f"{RESERVED_BYTES >> 20} MiB aside for the rest of the process), where "
                f"Gomocup's {GOMOCUP_MEMORY_BYTES >> 20} MiB allows {full >> 20} MiB")
        entries = self.search.solver.max_entries
        if entries < SOLVER_FULL_ENTRIES:
            cost += (f", and the threat solver's table to {entries:,} positions (of "
                     f"{SOLVER_FULL_ENTRIES:,})")
        if tree > MIN_TREE_BYTES:
            return cost
        return f"{cost}; a limit this low is not kept: the tree takes at least that much"


def load_line_network(weights: Path | None = None) -> LineNet | None:
    """The line-pattern network from ``weights`` (default: the shipped
    ``linenet.npz``), or None with the reason logged."""
    from brain.eval.linenet import LineNet, LineNetError
    from brain.resources import weights_dir

    path = weights or weights_dir() / LINE_NETWORK_FILE
    try:
        return LineNet.from_file(path)
    except LineNetError as exc:
        log.error("cannot use the line-pattern network (%s): the tree search of the "
                  "convolutional network plays instead", exc)
        return None


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
                network_value: int = DEFAULT_NETWORK_VALUE,
                refute_share: float | None = None) -> Searcher:
    """Build the engine called ``name``; raises ValueError for an unknown name or role.

    ``weights``, ``pattern_model`` (a pattern-model file; default: the shipped one),
    ``network_value`` (the weight, in playouts, of the prior network's value of each
    node it re-ranks: :attr:`brain.search.mcts.MctsConfig.refine_value_visits`),
    ``network`` (False: the pattern model alone guides the search),
    ``network_role`` (one of :data:`NETWORK_ROLES`) and ``playouts`` (a fixed search
    budget, which makes play reproducible) apply to ``mcts``; ``level`` to engines with
    strength levels; ``refute_share`` (None: the engine's default) to both tree searches.
    If the tree search has no usable evaluator at all (the shipped
    pattern model is missing or damaged, and no network), the reason is logged and the
    one-ply heuristic plays instead: a brain must never fail to start.
    """
    if name == "heuristic":
        return HeuristicEngine()
    if name == "linenet":
        line_net = load_line_network(weights)
        if line_net is not None:
            return LineNetEngine(line_net, playouts, refute_share)
        name, weights = "mcts", None
    if name == "mcts":
        from brain.eval.evaluator import PatternEvaluator
        from brain.eval.patternmodel import PatternModel, PatternModelError

        if network_role not in NETWORK_ROLES:
            raise ValueError(f"unknown network role {network_role!r}: choose one of "
                             f"{', '.join(NETWORK_ROLES)}")
        net = load_network(weights) if network else None
        if net is not None and network_role == "leaves":
            return MctsEngine(net, playouts, refute_share=refute_share)
        try:
            patterns = PatternEvaluator(
                None if pattern_model is None else PatternModel.load(pattern_model))
        except (PatternModelError, OSError) as exc:
            remedy = ("reinstall the brain to restore weights/" if pattern_model is None
                      else f"check --pattern-model {pattern_model}")
            if net is not None:
                log.error("the pattern model cannot load (%s): the network values the "
                          "leaves; %s", exc, remedy)
                return MctsEngine(net, playouts, refute_share=refute_share)
            log.error("the tree search cannot start (%s): playing with the one-ply "
                      "heuristic; %s", exc, remedy)
            return HeuristicEngine()
        return MctsEngine(patterns, playouts, prior_net=net, network_value=network_value,
                          refute_share=refute_share)
    if name == "alphabeta":
        from brain.search.alphabeta import MAX_LEVEL, AlphaBetaEngine

        if level is not None and not 0 <= level <= MAX_LEVEL:
            raise ValueError(f"alphabeta level {level} does not exist: use 0 to {MAX_LEVEL}")
        return AlphaBetaEngine(MAX_LEVEL if level is None else level)
    raise ValueError(f"unknown engine {name!r}: choose one of {', '.join(ENGINE_NAMES)}")
