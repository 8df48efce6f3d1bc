"""Turn budgets from the manager's INFO time settings.

Every budget is measured from the moment the command was read (GomocupJudge suspends the
brain between moves, so no earlier clock is meaningful). The brain keeps a safety margin
for Python, garbage collection and pipe latency, so the manager never sees a late move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: Budget when the manager asks for moves "as fast as possible" (timeout_turn 0).
INSTANT_S = 0.05
#: The least search worth starting; with less, the one-ply choice plays.
MIN_SEARCH_S = 0.01
#: The least time kept back from a limit: pipe latency, the move's write, and a clock that
#: ticks every 15.6 ms on Windows (wine included).
MIN_MARGIN_MS = 30.0
#: The least time between the engine's target and the last moment for the move: a search
#: notices its deadline between two batches of playouts or inside a threat search, which
#: natively overshoots by up to ~10 ms, more under wine or on a loaded machine.
MIN_STOP_SLACK_MS = 30.0


@dataclass
class TimeSettings:
    """The manager's time and memory limits, in milliseconds and bytes, as sent by INFO."""

    #: Per-move limit; 0 means "play as fast as possible".
    timeout_turn: int = 5000
    #: Per-game limit; 0 means none.
    timeout_match: int = 0
    #: Game time left before this move; may be negative; None: no game clock (the
    #: protocol's ``INFO time_left 2147483647``).
    time_left: int | None = None
    #: Memory limit for the brain and its children; 0 means none.
    max_memory: int = 0

    @property
    def has_game_clock(self) -> bool:
        """Whether a game clock runs: time a move leaves unused is kept for later moves."""
        return self.time_left is not None


@dataclass(frozen=True)
class MoveBudget:
    """When to stop thinking: ``soft`` is the engine's target, ``hard`` the last moment
    the move may be written (both ``time.monotonic()`` seconds).

    ``use_all`` says that time saved by answering early is lost: only a per-move limit
    applies, no game clock keeps the rest for later moves, so the engine should think to
    its target even once its choice looks settled."""

    soft: float
    hard: float
    use_all: bool = False

    @property
    def instant(self) -> bool:
        """Whether there is no time to search beyond a one-ply choice: an instant budget
        (``soft == hard``), or less than :data:`MIN_SEARCH_S` left to the target."""
        return self.soft >= self.hard or self.soft - time.monotonic() < MIN_SEARCH_S


#: Shares of the limit kept back (the margin) and of the usable time left between the
#: target and the hard deadline (the slack). At 8 % and 10 % a 1 s move stopped at 829 ms
#: and never took more than 848 ms (bench/bench_movetime.py, a busy machine included):
#: 4 % and 5 % aim at 912 ms, with a hard deadline at 960.
MARGIN_SHARE = 0.04
SLACK_SHARE = 0.05


def safety_margin_ms(limit_ms: float) -> float:
    """Time kept back from a limit for interpreter and pipe jitter."""
    return min(max(MIN_MARGIN_MS, MARGIN_SHARE * limit_ms), 1000.0)


def plan_move(settings: TimeSettings, received_at: float, moves_played: int,
              startup_debt: float = 0.0) -> MoveBudget:
    """The budget for one move.

    ``moves_played`` is the number of stones on the board and sets how much of the game
    clock one move may take. ``startup_debt`` (seconds) is time the manager may already
    have charged to this move, e.g. interpreter start-up before the first move.
    """
    if settings.timeout_turn == 0:
        return MoveBudget(received_at + INSTANT_S, received_at + INSTANT_S)
    limit_ms = float(settings.timeout_turn) if settings.timeout_turn > 0 else float("inf")
    share_ms = limit_ms
    if settings.time_left is not None:  # a game clock
        left = float(settings.time_left)
        limit_ms = min(limit_ms, max(left, 0.0))
        # Expect a good number of further moves; spend a fraction of the clock on this one.
        moves_to_go = max(12, 30 - moves_played // 4)
        share_ms = min(share_ms, left / moves_to_go)
    if limit_ms == float("inf"):
        # No limit at all: think for a fixed, generous time rather than forever.
        limit_ms = share_ms = 30000.0
    usable_ms = limit_ms - safety_margin_ms(limit_ms) - startup_debt * 1000.0
    if usable_ms <= INSTANT_S * 1000:
        return MoveBudget(received_at + INSTANT_S, received_at + INSTANT_S)
    slack_ms = max(MIN_STOP_SLACK_MS, SLACK_SHARE * usable_ms)
    soft_ms = min(max(share_ms, 0.0), usable_ms - slack_ms)
    return MoveBudget(received_at + soft_ms / 1000.0, received_at + usable_ms / 1000.0,
                      use_all=settings.timeout_turn > 0 and not settings.has_game_clock)
