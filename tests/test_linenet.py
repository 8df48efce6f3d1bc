"""The line-pattern network: the play path against the torch model on real positions, its
incremental state after long make/unmake sequences, the shipped tables as the export of
the shipped model, the compiled and pure forms, the playout loop's tactics, the search and
the brain with ``--engine linenet``, and a short training run."""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from digests import pure_and_compiled
from puzzle_data import freestyle_vcf_puzzles

from brain.eval.linenet import (
    REACH,
    ROW_COUNT,
    LineNet,
    LineNetError,
    LineNetState,
    geometry,
    load,
    window_code,
)
from brain.game.board import Board, Color
from brain.game.forbidden import is_forbidden
from brain.game.rules import Rule
from brain.resources import shared_data_dir, weights_dir
from brain.search import playout as playout_module
from brain.search.linesearch import (
    SOLVER_FULL_ENTRIES,
    SOLVER_MIN_ENTRIES,
    LineSearch,
    LineSearchConfig,
)
from brain.search.playout import LOSS, SKIP_VISITS, WIN, Playouts, Tree, position_key
from brain.train.data import PASS, GameRecord, parse_rapfi_line, parse_renju_line
from brain.train.linenet import (
    LineNetModel,
    ModelConfig,
    RunConfig,
    Trainer,
    export,
    load_model,
    sampling_groups,
    widen,
)
from brain.train.samples import SampleStore, samples_of_records

ROOT = Path(__file__).resolve().parents[1]
GAMES = shared_data_dir() / "games"
SHIPPED = weights_dir() / "linenet.npz"
SHIPPED_MODEL = weights_dir() / "linenet-model.pt"
# Every committed line network (the shipped one, the candidates kept for training on) and
# the torch model it was exported from.
COMMITTED = [(SHIPPED, SHIPPED_MODEL)] + [
    (path, path.with_suffix(".pt"))
    for path in sorted((weights_dir() / "candidates").glob("linenet-*.npz"))]


def records(name: str, count: int) -> list[GameRecord]:
    """The first ``count`` games of a shared game file (``freestyle15``, ``freestyle20``,
    ``renju``)."""
    path = (GAMES / "renju_hse_train2" / "train-2.renju.xz" if name == "renju"
            else GAMES / "rapfi_selfplay" / f"{name}.txt.xz")
    out = []
    with lzma.open(path, "rt") as lines:
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            out.append(parse_renju_line(line) if name == "renju"
                       else parse_rapfi_line(line, int(name[-2:])))
            if len(out) == count:
                break
    return out


def positions() -> list[tuple[str, Board]]:
    """Real positions of every shared game file at several plies, and a rectangle."""
    out = []
    for name in ("freestyle15", "freestyle20", "renju"):
        for g, record in enumerate(records(name, 3)):
            for fraction in (0.3, 0.7, 1.0):
                board = Board(record.width, record.height, record.rule)
                for move in record.moves[:int(len(record.moves) * fraction)]:
                    if move == PASS:
                        board.to_move = board.to_move.opponent
                    else:
                        board.play(move)
                out.append((f"{name}-{g}-{fraction}", board))
    # A 9x13 board with the stones of a real game's middle, shifted into it.
    record = records("freestyle15", 1)[0]
    board = Board(9, 13)
    for move in record.moves[:30]:
        x, y = move % 15 - 3, move // 15 - 1
        if 0 <= x < 9 and 0 <= y < 13 and board.is_empty(board.index(x, y)):
            board.play(board.index(x, y))
    out.append(("rectangle-9x13", board))
    return out


POSITIONS = positions()


@pytest.fixture(scope="module")
def small() -> tuple[LineNetModel, LineNet]:
    """A small random model (seeded) and its export."""
    torch.manual_seed(3)
    model = LineNetModel(ModelConfig(dim=12, policy_dim=6, middle=16, hidden=20)).eval()
    return model, LineNet(export(model))


def planes_of(board: Board, to_move: int) -> torch.Tensor:
    cells = np.frombuffer(bytes(board.cells), np.uint8).reshape(board.height, board.width)
    own = torch.from_numpy((cells == to_move).astype(np.float32))
    other = torch.from_numpy(((cells != 0) & (cells != to_move)).astype(np.float32))
    return torch.stack([own, other])[None]


def state_of(net: LineNet, board: Board) -> LineNetState:
    state = LineNetState(net, board.width, board.height)
    for cell, color in board.history:
        state.play(cell, int(color))
    return state


def test_window_codes_number_every_window_once() -> None:
    codes = set()
    for left in range(REACH + 1):
        for right in range(REACH + 1):
            size = left + right + 1
            for n in range(3 ** size):
                digits = [(n // 3 ** i) % 3 for i in range(size)]
                codes.add(window_code(digits, left))
    assert codes == set(range(ROW_COUNT))
    with pytest.raises(ValueError):
        window_code([0] * 6, 5)


def test_the_state_keeps_each_cells_window_code() -> None:
    board = POSITIONS[1][1]
    state = state_of(LineNet(load(SHIPPED)), board)
    geo = geometry(board.width, board.height)
    directions = ((1, 0), (0, 1), (1, 1), (1, -1))
    for cell in range(0, board.size, 7):
        x, y = board.xy(cell)
        for d, (dx, dy) in enumerate(directions):
            line = []
            for k in range(-REACH, REACH + 1):
                xx, yy = x + k * dx, y + k * dy
                if 0 <= xx < board.width and 0 <= yy < board.height:
                    line.append((k, board.cells[yy * board.width + xx]))
            left = -line[0][0]
            for frame in (0, 1):
                own = frame + 1
                digits = [0 if c == 0 else 1 if c == own else 2 for _, c in line]
                assert state._codes[frame, d * board.size + cell] == window_code(digits, left)
    assert geo.base.shape == (4 * board.size,)


@pytest.mark.parametrize(("name", "board"), POSITIONS, ids=[n for n, _ in POSITIONS])
def test_the_play_path_computes_what_the_torch_model_computes(small, name: str,
                                                              board: Board) -> None:
    model, net = small
    state = state_of(net, board)
    renju = board.rule is Rule.RENJU
    empty = np.flatnonzero(np.frombuffer(bytes(board.cells), np.uint8) == 0).astype(np.int32)
    for to_move in (1, 2):
        planes = planes_of(board, to_move)
        flags = torch.tensor([[float(renju and to_move == 1), float(renju and to_move == 2)]])
        with torch.no_grad():
            policy, wdl = model(planes, flags)
            features = model.features(planes)[0].permute(1, 2, 0).reshape(board.size, -1)
        np.testing.assert_array_equal(state.features(to_move - 1), features.numpy())
        np.testing.assert_allclose(state.wdl(to_move, renju),
                                   torch.softmax(wdl, 1)[0].numpy(), atol=2e-6)
        logits = np.zeros(len(empty), np.float32)
        state.policy(to_move, empty, logits)
        np.testing.assert_allclose(logits, policy[0].numpy()[empty], atol=2e-5)


def test_a_long_make_and_unmake_sequence_leaves_the_state_exact() -> None:
    net = LineNet(load(SHIPPED))
    board = POSITIONS[1][1].copy()
    state = state_of(net, board)
    rng = np.random.default_rng(5)
    played: list[tuple[int, int]] = []
    for _ in range(4000):
        if played and (rng.random() < 0.45 or len(played) > 60):
            cell, color = played.pop()
            board.undo()
            state.undo(cell, color)
            if rng.random() < 0.1:  # read midway: the lazy frames catch up
                state.wdl(1 + int(rng.integers(2)), False)
        else:
            empty = np.flatnonzero(np.frombuffer(bytes(board.cells), np.uint8) == 0)
            cell = int(rng.choice(empty))
            color = int(board.to_move)
            board.play(cell)
            state.play(cell, color)
            played.append((cell, color))
    fresh = state_of(net, board)
    for frame in (0, 1):
        np.testing.assert_array_equal(state.features(frame), fresh.features(frame))
        assert state.wdl(frame + 1, False) == fresh.wdl(frame + 1, False)
    np.testing.assert_array_equal(state._pooled, fresh._pooled)


@pytest.mark.parametrize(("tables", "model"), COMMITTED, ids=[t.name for t, _ in COMMITTED])
def test_the_committed_tables_are_the_export_of_their_model(tables: Path, model: Path) -> None:
    shipped = load(tables)
    exported = export(load_model(model))
    # CPU float32 on another machine may round an entry on a half unit the other way.
    diff = np.abs(exported.table.astype(np.int32) - shipped.table)
    assert diff.max() <= 1 and (diff > 0).mean() < 1e-4
    for name in ("value_w1", "value_w2", "value_w3", "policy_dw", "policy_w"):
        np.testing.assert_array_equal(getattr(exported, name), getattr(shipped, name))


def test_a_damaged_weight_file_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(LineNetError, match="not found"):
        load(tmp_path / "missing.npz")
    bad = tmp_path / "bad.npz"
    np.savez(bad, table=np.zeros((3, 4), np.int16))
    with pytest.raises(LineNetError, match="no line-pattern network"):
        load(bad)


@pytest.mark.parametrize("tables", [t for t, _ in COMMITTED], ids=[t.name for t, _ in COMMITTED])
def test_the_committed_value_sees_who_wins_real_games(tables: Path) -> None:
    # Rapfi's games, a few moves before the end: the side that goes on to win leads.
    net = LineNet(load(tables))
    right = total = 0
    for record in records("freestyle15", 400)[300:]:
        if record.result.value not in ("black", "white") or len(record.moves) < 12:
            continue
        board = Board(15)
        for move in record.moves[:-5]:
            board.play(move)
        winner = 1 if record.result.value == "black" else 2
        value = state_of(net, board).value(int(board.to_move), False)
        right += (value > 0) == (int(board.to_move) == winner)
        total += 1
    assert total > 80 and right / total > 0.8


def test_compiled_and_pure_forms_agree() -> None:
    pure, compiled = pure_and_compiled("linenet_digest.py")
    assert len(pure) == len(compiled) > 20
    for a, b in zip(pure, compiled, strict=True):
        assert a["proof"] == b["proof"]
        for side in ("1", "2"):
            assert a["eval"][side]["features"] == b["eval"][side]["features"]
            np.testing.assert_allclose(a["eval"][side]["wdl"], b["eval"][side]["wdl"],
                                       atol=1e-5)
            np.testing.assert_allclose(a["eval"][side]["policy"], b["eval"][side]["policy"],
                                       atol=1e-4)


def stones(board: Board, black: list[tuple[int, int]], white: list[tuple[int, int]],
           to_move: Color) -> Board:
    for points, color in ((black, Color.BLACK), (white, Color.WHITE)):
        for x, y in points:
            board.place(board.index(x, y), color)
    board.to_move = to_move
    return board


def playouts_on(board: Board, count: int = 200) -> Playouts:
    playouts = Playouts(board, LineNet(load(SHIPPED)), Tree(5000, 5000 * 24))
    playouts.start()
    playouts.run(count)
    return playouts


def test_playouts_leave_the_board_and_state_as_they_found_them() -> None:
    board = POSITIONS[4][1].copy()
    before = (bytes(board.cells), board.keys.copy(), board.threats.copy())
    playouts = playouts_on(board, 3000)
    assert playouts.tree.nodes > 500 and playouts.max_depth >= 6
    playouts.rewind()
    assert bytes(board.cells) == before[0]
    np.testing.assert_array_equal(board.keys, before[1])
    np.testing.assert_array_equal(board.threats, before[2])
    fresh = state_of(playouts.state.net, board)
    for frame in (0, 1):
        np.testing.assert_array_equal(playouts.state.features(frame), fresh.features(frame))


def subtree(tree: Tree, node: int, floor: int = 0) -> dict:
    """``node``'s subtree as plain data: its visits, value sum and proof, and by move
    its edges' visits, value sums, priors and children's subtrees (none for a child
    made before node ``floor``: what :meth:`Tree.keep_subtree` cuts)."""
    edges = range(int(tree.first[node]), int(tree.first[node] + tree.count[node]))
    return {"visits": int(tree.visits[node]), "total": float(tree.total[node]),
            "proven": int(tree.proven[node]),
            "edges": {int(tree.move[e]): (int(tree.edge_visits[e]), float(tree.edge_total[e]),
                                          float(tree.prior[e]),
                                          subtree(tree, int(tree.child[e]), floor)
                                          if tree.child[e] >= floor else None)
                      for e in edges}}


def most_visited(tree: Tree, node: int) -> tuple[int, int]:
    """The most visited move of ``node`` and the node it leads to."""
    edges = range(int(tree.first[node]), int(tree.first[node] + tree.count[node]))
    best = max(edges, key=lambda e: tree.edge_visits[e])
    return int(tree.move[best]), int(tree.child[best])


def test_a_position_is_one_node_whichever_order_its_stones_came_in() -> None:
    board = POSITIONS[3][1].copy()
    playouts = playouts_on(board, 3000)
    playouts.rewind()
    tree = playouts.tree
    # Every path from the root, each node reached with the board's own position.
    reached: dict[int, set[tuple[int, ...]]] = {}

    def walk(node: int) -> None:
        assert tree.key[node] == position_key(board.cells)
        reached.setdefault(node, set()).add(tuple(cell for cell, _ in board.history))
        for e in range(int(tree.first[node]), int(tree.first[node] + tree.count[node])):
            if tree.child[e] >= 0:
                board.play(int(tree.move[e]))
                walk(int(tree.child[e]))
                board.undo()

    walk(0)
    assert len(reached) == tree.nodes  # every node is reached from the root
    assert len(set(tree.key[:tree.nodes].tolist())) == tree.nodes
    shared = [node for node, paths in reached.items() if len(paths) > 1]
    assert len(shared) > tree.nodes // 20
    assert all(tree.find(int(tree.key[node])) == node for node in shared)
    # An edge to a node that knows more than it took that node's mean at some visits
    # instead of going down: the node's visits are fewer than its edges' together.
    children = tree.child[:tree.edges]
    reaching = np.bincount(children[children >= 0], tree.edge_visits[:tree.edges][children >= 0])
    assert any(reaching[node] > tree.visits[node] >= SKIP_VISITS for node in shared)
    # The root: one visit a playout, each through one of its moves.
    root_edges = tree.root_edges()
    assert tree.visits[0] == 3000 == tree.edge_visits[root_edges.start:root_edges.stop].sum()


def two_plies_down(index: int) -> tuple[Board, Playouts, int, int, int]:
    """Position ``index`` after 3,000 playouts, its most visited move and reply and the
    node they lead to (-1: not in the tree)."""
    board = POSITIONS[index][1].copy()
    playouts = playouts_on(board, 3000)
    playouts.rewind()
    tree = playouts.tree
    move, node = most_visited(tree, 0) if tree.count[0] else (-1, -1)
    reply, node = most_visited(tree, node) if node >= 0 and tree.count[node] else (-1, -1)
    return board, playouts, move, reply, node


def two_plies_down_with_cut_edges() -> tuple[Board, Playouts, int, int, int]:
    """:func:`two_plies_down` of the first position whose node there is unsettled and
    has a subtree that reaches nodes made before it (edges that keeping it must cut)."""
    for index in range(len(POSITIONS)):
        board, playouts, move, reply, node = two_plies_down(index)
        tree = playouts.tree
        if (node > 0 and tree.proven[node] == 0 and tree.count[node]
                and subtree(tree, node, node) != subtree(tree, node)):
            return board, playouts, move, reply, node
    pytest.fail("no position's subtree reaches a node made before its root")


@pytest.mark.parametrize(("position", "chunk"), [(3, None), (3, 7), (None, None)],
                         ids=["one-chunk", "chunks-of-7-nodes", "transpositions-made-before-it"])
def test_a_kept_subtree_is_the_whole_tree_and_its_playouts_go_on(
        position: int | None, chunk: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if chunk is not None:  # the nodes and edges moved a few at a time
        monkeypatch.setattr(playout_module, "_NODE_CHUNK", chunk)
    # Position 3 is unsettled two plies down, its subtree all made after that node.
    board, playouts, move, reply, node = (two_plies_down(position) if position is not None
                                          else two_plies_down_with_cut_edges())
    tree = playouts.tree
    expected = subtree(tree, node, node)
    assert (expected != subtree(tree, node)) == (position is None)
    nodes_before, edges_before = tree.nodes, tree.edges
    tree.keep_subtree(node)
    assert subtree(tree, 0) == expected
    assert 1 < tree.nodes < nodes_before and tree.edges < edges_before
    assert tree.edges == int(tree.count[:tree.nodes].sum())
    children = tree.child[:tree.edges]
    assert sorted(set(children[children >= 0])) == list(range(1, tree.nodes))
    assert [tree.find(key) for key in tree.key[:tree.nodes]] == list(range(tree.nodes))
    board.play(move)
    board.play(reply)
    playouts.resume()
    done = playouts.run(2000)
    assert done == 2000 and tree.visits[0] == expected["visits"] + done
    playouts.rewind()
    fresh = state_of(playouts.state.net, board)
    for frame in (0, 1):
        np.testing.assert_array_equal(playouts.state.features(frame), fresh.features(frame))


def test_a_search_below_the_last_ones_root_goes_on_from_its_subtree() -> None:
    board = POSITIONS[3][1].copy()  # unsettled two plies down
    engine = LineSearch(LineNet(load(SHIPPED)), LineSearchConfig(playouts=3000))
    move = engine.search(board, time.monotonic() + 30, threading.Event())
    tree = engine._tree
    reply, node = most_visited(tree, tree.child_by_move(0, move))
    kept = int(tree.visits[node])
    board.play(move)
    board.play(reply)
    engine.search(board, time.monotonic() + 30, threading.Event())
    assert engine.info.kept_visits == kept > 100 and engine.info.playouts == 3000
    assert tree.visits[0] == kept + 3000 and f"kept {kept}" in engine.info.summary()
    # The same position again keeps the whole tree.
    engine.search(board, time.monotonic() + 30, threading.Event())
    assert engine.info.kept_visits == kept + 3000
    # A position above the root (the first one again): a new tree.
    board.undo()
    board.undo()
    engine.search(board, time.monotonic() + 30, threading.Event())
    assert engine.info.kept_visits == 0 and tree.visits[0] == 3000
    # A new game forgets the tree; with keeping turned off every search has its own.
    engine.reset()
    engine.search(board, time.monotonic() + 30, threading.Event())
    assert engine.info.kept_visits == 0 and tree.visits[0] == 3000
    apart = LineSearch(engine.net, LineSearchConfig(playouts=3000, reuse_tree=False))
    for _ in range(2):
        apart.search(board, time.monotonic() + 30, threading.Event())
        assert apart.info.kept_visits == 0 and apart._tree.visits[0] == 3000


def test_the_loop_settles_open_fours_and_double_fives() -> None:
    # Black's open three on row 7 with black to move: an open four wins.
    board = stones(Board(15), [(6, 7), (7, 7), (8, 7)], [(2, 2), (12, 12)], Color.BLACK)
    playouts = playouts_on(board)
    assert playouts.tree.proven[0] == WIN or any(
        playouts.tree.proven[playouts.tree.child[e]] == LOSS
        for e in playouts.tree.root_edges() if playouts.tree.child[e] >= 0)
    # White to move facing black's open four: two fives, lost at once.
    board = stones(Board(15), [(5, 7), (6, 7), (7, 7), (8, 7)], [(2, 2), (12, 12), (3, 3)],
                   Color.WHITE)
    assert playouts_on(board).tree.proven[0] == LOSS


def test_facing_an_open_three_only_fours_and_defences_are_searched() -> None:
    board = stones(Board(15), [(2, 12), (12, 1)], [(6, 7), (7, 7), (8, 7)], Color.BLACK)
    playouts = playouts_on(board, 1)
    moves = {board.xy(int(playouts.tree.move[e])) for e in playouts.tree.root_edges()}
    assert {(5, 7), (9, 7)} <= moves <= {(3, 7), (4, 7), (5, 7), (9, 7), (10, 7), (11, 7)}


def test_black_is_never_offered_a_renju_foul() -> None:
    board = stones(Board(15, rule=Rule.RENJU), [(7, 6), (6, 7), (8, 7), (7, 8)], [(0, 0)],
                   Color.BLACK)
    foul = board.index(7, 7)
    assert is_forbidden(board, foul)
    playouts = playouts_on(board, 1)
    assert foul not in {int(playouts.tree.move[e]) for e in playouts.tree.root_edges()}


def search(board: Board, playouts: int | None = 400, seconds: float = 30.0
           ) -> tuple[int, LineSearch]:
    engine = LineSearch(LineNet(load(SHIPPED)), LineSearchConfig(playouts=playouts))
    return engine.search(board, time.monotonic() + seconds, threading.Event()), engine


@pytest.mark.parametrize("puzzle", [p for p in freestyle_vcf_puzzles(every=97) if p.has_vcf][:6],
                         ids=lambda p: p.name)
def test_the_search_wins_real_vcf_puzzles(puzzle) -> None:
    move, engine = search(puzzle.board.copy())
    assert move in puzzle.winning_first_moves and engine.info.proven == WIN


def test_a_fixed_budget_gives_the_root_solver_the_node_budget_it_is_set() -> None:
    # Self-play's short searches give their root VCF and VCT a tenth of the full budget.
    puzzle = next(p for p in freestyle_vcf_puzzles(every=97) if p.has_vcf)
    net = LineNet(load(SHIPPED))
    sources = []
    for nodes in (20_000, 1):
        engine = LineSearch(net, LineSearchConfig(playouts=400, solver_nodes=nodes))
        engine.search(puzzle.board.copy(), time.monotonic() + 30, threading.Event())
        sources.append((engine.info.source, engine.info.playouts))
    assert sources[0] == ("solver", 0)
    assert sources[1][0] == "mcts" and sources[1][1] > 0


def test_a_low_memory_limit_bounds_the_solvers_table_and_a_resent_one_keeps_the_tree(
        ) -> None:
    engine = LineSearch(LineNet(load(SHIPPED)))
    engine.limit_memory(0)  # Gomocup's 350 MiB: the reserve holds the whole table
    assert engine.solver.max_entries == SOLVER_FULL_ENTRIES
    engine.limit_memory(150 << 20)  # 18 MiB short of the reserve and the smallest tree
    assert engine.solver.max_entries == SOLVER_FULL_ENTRIES // 2
    engine.limit_memory(64 << 20)  # c-gomoku-cli's maxmemory=67108864
    assert engine.solver.max_entries == SOLVER_MIN_ENTRIES
    board = POSITIONS[3][1].copy()
    engine.search(board, time.monotonic() + 0.2, threading.Event())
    tree = engine._tree
    # c-gomoku-cli sends the limit at every game: the same limit keeps the same tree
    # (making a new one cost 4.5 MiB of peak memory a game under 64 MiB).
    engine.limit_memory(64 << 20)
    engine.search(board, time.monotonic() + 0.2, threading.Event())
    assert engine._tree is tree
    engine.limit_memory(0)
    engine.search(board, time.monotonic() + 0.2, threading.Event())
    assert engine._tree is not tree and engine._tree.max_nodes > tree.max_nodes


def test_the_search_keeps_its_deadline_and_reports() -> None:
    board = POSITIONS[3][1].copy()
    started = time.monotonic()
    move, engine = search(board, playouts=None, seconds=0.5)
    assert time.monotonic() - started < 0.6
    assert board.is_empty(move) and engine.info.playouts > 1000
    assert engine.info.pv and engine.info.pv[0] == board.xy(move)
    assert engine.info.candidates[0][1] >= engine.info.candidates[-1][1]
    first_move, first = search(board.copy(), playouts=300)
    second_move, second = search(board.copy(), playouts=300)
    assert first_move == second_move and first.info.candidates == second.info.candidates


def test_the_brain_plays_with_the_line_network_through_the_protocol() -> None:
    script = ("START 15\r\nINFO timeout_turn 300\r\nINFO time_left 2147483647\r\n"
              "BEGIN\r\nTURN 8,8\r\nTURN 9,9\r\nEND\r\n")
    out = subprocess.run([sys.executable, "-m", "brain", "--engine", "linenet"], input=script,
                         capture_output=True, text=True, timeout=60, cwd=ROOT, check=True)
    replies = [line for line in out.stdout.splitlines()
               if line and not line.startswith(("MESSAGE", "DEBUG"))]
    assert replies[0] == "OK" and len(replies) == 4
    cells = {tuple(int(v) for v in reply.split(",")) for reply in replies[1:]}
    assert len(cells) == 3 and not cells & {(8, 8), (9, 9)}


def test_a_short_training_run_learns_and_exports_to_the_play_path(tmp_path: Path) -> None:
    store = SampleStore.concatenate([samples_of_records("freestyle15", records("freestyle15", 60)),
                                     samples_of_records("renju", records("renju", 60))])
    store.save(tmp_path / "samples.npz")
    store = SampleStore.load(tmp_path / "samples.npz")
    assert len(store) > 2000 and store.sources == ["freestyle15", "renju"]
    config = RunConfig(out=str(tmp_path / "run"), data=[], steps=60, batch_size=64,
                       learning_rate=3e-3, validation_fraction=0.1,
                       model=ModelConfig(dim=8, policy_dim=4, middle=8, hidden=8))
    trainer = Trainer(config, store, torch.device("cpu"))
    before = trainer.validate()
    trainer.run()
    after = json.loads((tmp_path / "run" / "report.json").read_text())["validation"]
    for name, losses in after.items():
        assert losses["policy"] < before[name]["policy"], name
    resumed = Trainer(config, store, torch.device("cpu"))
    assert resumed.step == 60
    # Up to a step: what is left of it (a self-play iteration resumed mid-way), or none.
    resumed.run(until=64)
    assert Trainer(config, store, torch.device("cpu")).step == 64
    resumed.run(until=64)
    assert resumed.step == 64
    net = LineNet(export(trainer.model.eval()))
    board = POSITIONS[0][1]
    with torch.no_grad():
        _, wdl = trainer.model(planes_of(board, int(board.to_move)), torch.zeros(1, 2))
    np.testing.assert_allclose(state_of(net, board).wdl(int(board.to_move), False),
                               torch.softmax(wdl, 1)[0].numpy(), atol=2e-6)


def test_a_widened_model_computes_what_it_was_and_grows_from_there(
        small: tuple[LineNetModel, LineNet]) -> None:
    model, net = small
    wide = widen(model, replace(model.config, dim=20, hidden=32))
    wide_net = LineNet(export(wide))
    flags = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    for name, board in POSITIONS[::4]:
        planes = planes_of(board, int(board.to_move)).expand(3, -1, -1, -1)
        with torch.no_grad():
            for before, after in zip(model(planes, flags), wide(planes, flags), strict=True):
                torch.testing.assert_close(after, before, atol=1e-5, rtol=0, msg=name)
        renju = board.rule == Rule.RENJU
        np.testing.assert_allclose(state_of(wide_net, board).wdl(int(board.to_move), renju),
                                   state_of(net, board).wdl(int(board.to_move), renju),
                                   atol=1e-6, err_msg=name)
    # The weights out of the new channels and units learn from the first step.
    _, wdl = wide(planes_of(POSITIONS[0][1], 1), flags[:1])
    wdl[0, 0].backward()
    assert wide.value1.weight.grad[:, 12:20].abs().sum() > 0
    assert wide.value2.weight.grad[:, 20:].abs().sum() > 0


def test_a_sources_weight_is_its_share_of_the_batches_whatever_its_board_sizes() -> None:
    training = weights_dir() / "training"
    store = SampleStore.concatenate([SampleStore.load(training / "linenet-teacher.npz"),
                                     SampleStore.load(training / "linenet-selfplay-lrl12.npz")])
    groups, shares = sampling_groups(store, np.arange(len(store)),
                                     {"selfplay": 2.0, "teacher20x20": 0.5})
    share: dict[str, float] = {}
    by_shape: dict[tuple[str, int], float] = {}
    for (height, _, rows), part in zip(groups, shares, strict=True):
        name = store.sources[int(store.source[rows[0]])]
        assert (store.source[rows] == store.source[rows[0]]).all()
        share[name] = share.get(name, 0.0) + part
        by_shape[name, height] = part
    # Self-play holds 15x15 and 20x20 games: its weight of 2 is still 2 / 3.5 of the batches.
    assert share == pytest.approx({"selfplay": 2 / 3.5, "teacher15x15": 1 / 3.5,
                                   "teacher20x20": 0.5 / 3.5})
    selfplay = store.source == store.sources.index("selfplay")
    on15 = selfplay & (store.width[store.game] == 15)
    assert by_shape["selfplay", 15] / share["selfplay"] == pytest.approx(
        on15.sum() / selfplay.sum())


def test_a_training_run_starts_from_the_checkpoint_it_is_given(tmp_path: Path) -> None:
    samples = tmp_path / "samples.npz"
    samples_of_records("freestyle15", records("freestyle15", 20)).save(samples)
    command = [sys.executable, "-m", "brain.train", "linenet", "--data", str(samples),
               "--steps", "2", "--batch-size", "16", "--learning-rate", "1e-9",
               "--device", "cpu"]

    def train(out: str, *flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([*command, "--out", str(tmp_path / out), *flags], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)

    started = train("from-shipped", "--initial", str(SHIPPED_MODEL))
    assert started.returncode == 0, started.stderr
    shipped, exported = load(SHIPPED), load(tmp_path / "from-shipped" / "linenet.npz")
    # Two steps at a rate of 1e-9 move no weight by a table unit but at a rounding edge.
    diff = np.abs(exported.table.astype(np.int32) - shipped.table)
    assert diff.max() <= 1 and (diff > 0).mean() < 1e-4
    np.testing.assert_allclose(exported.value_w3, shipped.value_w3, atol=1e-6)
    fresh = train("fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert np.abs(load(tmp_path / "fresh" / "linenet.npz").table - shipped.table).mean() > 1

    # Grown: the same network in the first 32 channels of the table, the new ones read by
    # by none of the old value units but by what the two steps gave them.
    grown = train("grown", "--initial", str(SHIPPED_MODEL), "--dim", "40", "--hidden", "72")
    assert grown.returncode == 0, grown.stderr
    wide = load(tmp_path / "grown" / "linenet.npz")
    assert wide.table.shape == (ROW_COUNT, 40) and wide.value_w1.shape == (72, 42)
    diff = np.abs(wide.table[:, :32].astype(np.int32) - shipped.table)
    assert diff.max() <= 1 and (diff > 0).mean() < 1e-4
    assert np.abs(wide.value_w1[:64, 32:40]).max() < 1e-6
    for flags, reason in ((("--initial", str(SHIPPED_MODEL), "--dim", "16"),
                           "dim 32 -> 16: a trained model's sizes can only grow"),
                          (("--initial", str(SHIPPED_MODEL), "--middle", "96"),
                           "middle 64 -> 96: a trained model's sizes can stay as they are"),
                          (("--initial", str(samples)), "not a line network checkpoint"),
                          (("--weight", "teacher15x15=2"), "no source teacher15x15"),
                          (("--weight", "freestyle15=0"), "a weight of 0"),
                          (("--weight", "freestyle15=-1"), "expected SOURCE=W")):
        refused = train("refused", *flags)
        assert refused.returncode == 2 and reason in refused.stderr, refused.stderr
        assert not (tmp_path / "refused").exists()
