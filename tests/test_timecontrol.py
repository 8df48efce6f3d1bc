"""Move budgets at the turn times managers use, from 100 ms to Gomocup's long leagues."""

from __future__ import annotations

import time

import pytest

from brain.search.timecontrol import (
    INSTANT_S,
    MIN_MARGIN_MS,
    MIN_STOP_SLACK_MS,
    TimeSettings,
    plan_move,
)


@pytest.mark.parametrize("turn_ms", [100, 300, 1000, 5000, 30000])
def test_a_turn_limit_leaves_a_search_inside_the_turn(turn_ms: int) -> None:
    now = time.monotonic()
    budget = plan_move(TimeSettings(timeout_turn=turn_ms), now, moves_played=10)
    soft_ms, hard_ms = (budget.soft - now) * 1000, (budget.hard - now) * 1000
    assert not budget.instant  # even 100 ms buys a search, not only the one-ply choice
    assert hard_ms <= turn_ms - MIN_MARGIN_MS + 1e-6
    # the engine's target leaves room for the overshoot of its last batch or threat search
    assert soft_ms <= hard_ms - MIN_STOP_SLACK_MS + 1e-6
    assert soft_ms >= 0.4 * turn_ms - 1e-6


def test_fast_game_clock_shares_the_time_left() -> None:
    now = time.monotonic()
    settings = TimeSettings(timeout_turn=5000, timeout_match=120000, time_left=60000)
    budget = plan_move(settings, now, moves_played=20)
    assert budget.soft - now == pytest.approx(60.0 / 25, rel=1e-6)  # 25 moves to go
    assert budget.hard - now <= 5.0


@pytest.mark.parametrize(("settings", "debt"), [
    (TimeSettings(timeout_turn=0), 0.0),                        # as fast as possible
    (TimeSettings(timeout_turn=300), 0.3),                      # start-up ate the turn
    (TimeSettings(timeout_turn=5000, time_left=40), 0.0),       # the game clock is out
])
def test_no_time_means_the_instant_choice(settings: TimeSettings, debt: float) -> None:
    now = time.monotonic()
    budget = plan_move(settings, now, moves_played=10, startup_debt=debt)
    assert budget.instant
    assert budget.hard - now <= INSTANT_S + 1e-9


@pytest.mark.parametrize(("settings", "use_all"), [
    (TimeSettings(timeout_turn=1000), True),                    # a per-move limit only
    (TimeSettings(timeout_turn=1000, timeout_match=0), True),   # c-gomoku-cli's tc=0/1
    (TimeSettings(timeout_turn=5000, timeout_match=120000, time_left=60000), False),
    (TimeSettings(timeout_turn=30000, timeout_match=180000, time_left=180000), False),
])
def test_a_move_uses_all_its_time_only_where_no_game_clock_keeps_the_rest(
        settings: TimeSettings, use_all: bool) -> None:
    assert plan_move(settings, time.monotonic(), moves_played=10).use_all is use_all
