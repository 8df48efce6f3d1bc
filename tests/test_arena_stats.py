"""Tests for arena.stats: hand-computed Elo/LOS/pentanomial values, SPRT, Bradley–Terry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.stats import (
    WDL,
    Z95,
    Pentanomial,
    RatingError,
    SequentialTest,
    Sprt,
    SprtState,
    elo_from_score,
    expected_score,
    fit_bradley_terry,
    llr_pentanomial,
    llr_trinomial,
    los,
    normal_cdf,
    normal_quantile,
    pentanomial_elo,
    sprt_bounds,
    trinomial_elo,
)

K = math.log(10.0) / 400.0

# ---------------------------------------------------------------------------------------
# Elementary functions
# ---------------------------------------------------------------------------------------


def test_elo_score_round_trip() -> None:
    for d in (-800.0, -147.19, 0.0, 35.0, 400.0):
        assert elo_from_score(expected_score(d)) == pytest.approx(d, abs=1e-9)
    assert expected_score(0.0) == 0.5
    # 400 Elo ↔ odds 10:1
    assert expected_score(400.0) == pytest.approx(10.0 / 11.0)
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan])
def test_elo_from_score_rejects_bad_scores(bad: float) -> None:
    with pytest.raises(ValueError, match="score must be within"):
        elo_from_score(bad)


def test_normal_quantile() -> None:
    assert normal_quantile(0.975) == pytest.approx(Z95, abs=1e-10)
    assert normal_cdf(normal_quantile(0.1)) == pytest.approx(0.1, abs=1e-12)
    with pytest.raises(ValueError):
        normal_quantile(1.0)


def test_los_hand_computed() -> None:
    # W=10, L=5: ½ + ½·erf(5/√30) = ½ + ½·erf(0.912871) = ½ + ½·0.803294 = 0.901647
    assert los(10, 5) == pytest.approx(0.901647, abs=1e-6)
    assert los(5, 10) == pytest.approx(1 - 0.901647, abs=1e-6)
    assert los(0, 0) == 0.5
    assert los(7, 7) == 0.5
    with pytest.raises(ValueError):
        los(-1, 3)


# ---------------------------------------------------------------------------------------
# Counts
# ---------------------------------------------------------------------------------------


def test_wdl_counts() -> None:
    wdl = WDL.from_scores([1, 1, 0.5, 0, 1])
    assert wdl == WDL(3, 1, 1)
    assert wdl.games == 5
    assert wdl.score == pytest.approx(0.7)
    assert wdl.reversed() == WDL(1, 1, 3)
    assert wdl + WDL(1, 0, 0) == WDL(4, 1, 1)
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        WDL.from_scores([0.25])
    with pytest.raises(ValueError, match="non-negative"):
        WDL(-1, 0, 0)
    with pytest.raises(ValueError, match="no games"):
        _ = WDL(0, 0, 0).score


def test_pentanomial_from_pairs() -> None:
    # (1,1)=WW, (1,0)=WL, (½,½)=DD, (0,½)=LD, (1,½)=WD, (0,0)=LL
    penta = Pentanomial.from_pairs([(1, 1), (1, 0), (0.5, 0.5), (0, 0.5), (1, 0.5), (0, 0)])
    assert penta.counts == (1, 1, 2, 1, 1)
    assert penta.pairs == 6
    assert penta.reversed().counts == (1, 1, 2, 1, 1)[::-1]
    assert Pentanomial.from_counts([1, 2, 3, 4, 5]) + penta == Pentanomial(2, 3, 5, 5, 6)
    with pytest.raises(ValueError, match="expected 5 counts"):
        Pentanomial.from_counts([1, 2, 3])


# ---------------------------------------------------------------------------------------
# Elo with error bars
# ---------------------------------------------------------------------------------------


def test_trinomial_elo_hand_computed() -> None:
    # 60 W, 20 D, 20 L, n = 100:
    #   s = (60 + 10)/100 = 0.7;  Elo = -400·log10(1/0.7 - 1) = 400·log10(7/3) = 147.1907
    #   σ² = (W + D/4)/n - s² = 0.65 - 0.49 = 0.16 → σ = 0.4, se = σ/√n = 0.04
    #   95 %: s ± 1.959964·0.04 = [0.621601, 0.778399]
    #   d(0.778399) = 218.2518, d(0.621601) = 86.2250 → ± = (218.2518 - 86.2250)/2 = 66.0134
    #   nElo = (0.7 - 0.5)/0.4 · 800/ln10 = 0.5 · 347.4356 = 173.7178
    est = trinomial_elo(WDL(wins=60, draws=20, losses=20))
    assert est.score == pytest.approx(0.7)
    assert est.elo == pytest.approx(147.1907, abs=1e-4)
    assert est.elo == pytest.approx(-400 * math.log10(1 / 0.7 - 1))
    assert est.score_se == pytest.approx(0.04)
    assert est.lower == pytest.approx(86.2250, abs=1e-3)
    assert est.upper == pytest.approx(218.2518, abs=1e-3)
    assert est.error == pytest.approx(66.0134, abs=1e-3)
    assert est.nelo == pytest.approx(173.7178, abs=1e-3)
    assert est.los == pytest.approx(normal_cdf(0.2 / 0.04))
    assert est.samples == 100


def test_pentanomial_elo_hand_computed() -> None:
    # Pairs [LL, LD, DD+WL, WD, WW] = [2, 3, 10, 8, 7], N = 30, values a = 0, ¼, ½, ¾, 1:
    #   s = (0·2 + .25·3 + .5·10 + .75·8 + 1·7)/30 = 18.75/30 = 0.625
    #   a - s = -.625, -.375, -.125, .125, .375; squared .390625, .140625, .015625 (×2), .140625
    #   σ²_pair = (2·.390625 + 3·.140625 + 10·.015625 + 8·.015625 + 7·.140625)/30
    #           = (.78125 + .421875 + .15625 + .125 + .984375)/30 = 2.46875/30 = 0.0822917
    #   σ_pair = 0.286865, se = σ_pair/√30 = 0.0523742
    #   Elo = -400·log10(1/0.625 - 1) = -400·log10(0.6) = 88.7395
    #   95 %: 0.625 ± 0.102652 = [0.522348, 0.727652] → d = 15.5397 and 170.7194; ± = 77.5899
    #   nElo = (0.625 - 0.5)/(√2·0.286865) · 347.4356 = 107.0512
    est = pentanomial_elo(Pentanomial(2, 3, 10, 8, 7))
    assert est.score == pytest.approx(0.625)
    assert est.score_se == pytest.approx(0.0523742, abs=1e-6)
    assert est.elo == pytest.approx(88.7395, abs=1e-4)
    assert est.lower == pytest.approx(15.5397, abs=1e-3)
    assert est.upper == pytest.approx(170.7194, abs=1e-3)
    assert est.error == pytest.approx(77.5899, abs=1e-3)
    assert est.nelo == pytest.approx(107.0512, abs=1e-3)
    assert est.samples == 30


def test_pentanomial_is_narrower_than_trinomial_for_correlated_pairs() -> None:
    # Unbalanced openings: each pair is usually won by whoever has the good side (WL),
    # so the trinomial view sees a coin flip with high variance, the pentanomial very
    # little variance.
    penta = Pentanomial(ll=2, ld=0, dd_wl=90, wd=0, ww=8)
    wdl = WDL(wins=90 + 16, draws=0, losses=90 + 4)
    assert pentanomial_elo(penta).elo == pytest.approx(trinomial_elo(wdl).elo)
    assert pentanomial_elo(penta).error < 0.5 * trinomial_elo(wdl).error


def test_elo_edge_cases() -> None:
    perfect = trinomial_elo(WDL(10, 0, 0))
    assert perfect.elo == math.inf
    assert math.isnan(perfect.nelo)
    all_draws = trinomial_elo(WDL(0, 10, 0))
    assert all_draws.elo == 0.0
    assert all_draws.error == 0.0
    assert all_draws.los == 0.5
    with pytest.raises(ValueError, match="no games"):
        trinomial_elo(WDL(0, 0, 0))
    with pytest.raises(ValueError, match="no game pairs"):
        pentanomial_elo(Pentanomial(0, 0, 0, 0, 0))
    wide = trinomial_elo(WDL(60, 20, 20), confidence=0.99)
    assert wide.error > trinomial_elo(WDL(60, 20, 20)).error


# ---------------------------------------------------------------------------------------
# SPRT
# ---------------------------------------------------------------------------------------


def test_sprt_bounds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944439, abs=1e-6)
    assert upper == pytest.approx(2.944439, abs=1e-6)
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    sprt = Sprt(elo0=0, elo1=5, alpha=0.1, beta=0.2)
    assert sprt.lower_bound == pytest.approx(math.log(0.2 / 0.9))
    assert sprt.upper_bound == pytest.approx(math.log(0.8 / 0.1))
    with pytest.raises(ValueError, match="elo0 < elo1"):
        Sprt(elo0=5, elo1=0)
    with pytest.raises(ValueError, match="alpha"):
        Sprt(elo0=0, elo1=5, alpha=0.0)


def test_sprt_decisions_on_clear_data() -> None:
    sprt = Sprt(elo0=0, elo1=10)
    winning = Pentanomial(ll=5, ld=20, dd_wl=100, wd=60, ww=40)  # s ≈ 0.62, ≈ +86 Elo
    result = sprt.evaluate(winning)
    assert result.llr > result.upper
    assert result.state is SprtState.ACCEPT_H1
    losing = winning.reversed()
    result = sprt.evaluate(losing)
    assert result.llr < result.lower
    assert result.state is SprtState.ACCEPT_H0
    undecided = sprt.evaluate(Pentanomial(3, 5, 10, 5, 3))
    assert undecided.state is SprtState.CONTINUE
    # trinomial fallback
    assert sprt.evaluate(WDL(300, 100, 150)).state is SprtState.ACCEPT_H1
    assert sprt.evaluate(WDL(150, 100, 300)).state is SprtState.ACCEPT_H0
    assert sprt.llr(Pentanomial(0, 0, 0, 0, 0)) == 0.0


def test_a_sequential_test_keeps_its_first_decision() -> None:
    sprt = Sprt(elo0=0, elo1=200)
    test = SequentialTest(sprt)
    decisions = [test.add(1.0, 1.0) for _ in range(12)]
    first = decisions.index(SprtState.ACCEPT_H1)
    assert 0 < first < 12 and all(d is None for d in decisions[:first])
    # Pairs finished after it (in flight when it decided) cannot undo it, though the
    # same pairs tested at once would now accept H0.
    for _ in range(40):
        assert test.add(0.0, 0.0) is SprtState.ACCEPT_H1
    assert sprt.evaluate(Pentanomial(40, 0, 0, 0, 12)).state is SprtState.ACCEPT_H0
    assert test.pairs == 52


def test_llr_mirror_symmetry() -> None:
    penta = Pentanomial(12, 40, 110, 55, 18)
    assert llr_pentanomial(penta.reversed(), -5, 0) == pytest.approx(
        -llr_pentanomial(penta, 0, 5), rel=1e-9
    )
    wdl = WDL(130, 40, 110)
    assert llr_trinomial(wdl.reversed(), -5, 0) == pytest.approx(
        -llr_trinomial(wdl, 0, 5), rel=1e-9
    )


def test_llr_matches_normal_approximation_for_small_elo() -> None:
    # For small Elo differences the GSPRT approaches LLR ≈ N(s1-s0)(2s-s0-s1)/(2σ²).
    penta = Pentanomial(ll=150, ld=500, dd_wl=1100, wd=560, ww=170)
    n = penta.pairs
    s = penta.score
    values = (0, 0.25, 0.5, 0.75, 1)
    var = sum(c * (a - s) ** 2 for a, c in zip(values, penta.counts, strict=True)) / n
    s0, s1 = expected_score(0), expected_score(5)
    approx = n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    assert llr_pentanomial(penta, 0, 5) == pytest.approx(approx, rel=0.02)


def test_llr_trinomial_without_draws_is_binomial() -> None:
    # With no draws the constrained MLE puts (almost) no mass on the draw bin, so the
    # LLR is the binomial one: W·ln(s1/s0) + L·ln((1-s1)/(1-s0)).
    wins, losses = 540, 460
    s0, s1 = expected_score(0), expected_score(20)
    binomial = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr_trinomial(WDL(wins, 0, losses), 0, 20) == pytest.approx(binomial, rel=1e-3)


# ---------------------------------------------------------------------------------------
# Bradley–Terry
# ---------------------------------------------------------------------------------------


def _simulate(
    ratings: dict[str, float], adv: float, nu: float, games_per_colour: int, seed: int
) -> list[tuple[str, str, float]]:
    """Round robin drawn from the Davidson model, every pair both colours equally."""
    rng = np.random.default_rng(seed)
    games: list[tuple[str, str, float]] = []
    for black in ratings:
        for white in ratings:
            if black == white:
                continue
            x, y = (ratings[black] + adv) * K, ratings[white] * K
            d = nu * math.exp((x + y) / 2)
            z = math.exp(x) + math.exp(y) + d
            outcomes = rng.choice(
                3, size=games_per_colour, p=[math.exp(x) / z, d / z, math.exp(y) / z]
            )
            games += [(black, white, (1.0, 0.5, 0.0)[o]) for o in outcomes]
    return games


TRUE = {"alpha": -200.0, "beta": -60.0, "gamma": 0.0, "delta": 90.0, "eps": 170.0}


def test_bradley_terry_recovers_known_ratings() -> None:
    mean = sum(TRUE.values()) / len(TRUE)
    truth = {k: v - mean for k, v in TRUE.items()}
    games = _simulate(truth, adv=70.0, nu=0.15, games_per_colour=150, seed=2024)
    fit = fit_bradley_terry(games)
    assert sum(fit.elo) == pytest.approx(0.0, abs=1e-6)  # gauge: pool mean 0
    inside = 0
    for name, true_elo in truth.items():
        row = fit.rating(name)
        assert row.games == 8 * 150
        assert abs(row.elo - true_elo) < 1.5 * row.error  # ~3 σ
        inside += abs(row.elo - true_elo) <= row.error
    assert inside >= len(truth) - 1  # 95 % bars: at most one miss among five
    assert abs(fit.first_move_advantage - 70.0) < 1.5 * fit.first_move_advantage_error
    assert fit.draw_rate_equal == pytest.approx(0.15 / 2.15, abs=0.03)
    assert [r.name for r in fit.table()] == ["eps", "delta", "gamma", "beta", "alpha"]
    # LOS matrix: complementary, and confident for the extremes
    m = fit.los_matrix()
    assert np.allclose(m + m.T, 1.0)
    assert fit.los("eps", "alpha") > 0.999
    assert fit.iterations < 30


def test_bradley_terry_symmetry_swapping_players_negates_ratings() -> None:
    games = _simulate({"A": 80.0, "B": -80.0}, adv=50.0, nu=0.2, games_per_colour=60, seed=7)
    fit = fit_bradley_terry(games)
    swap = {"A": "B", "B": "A"}
    swapped = fit_bradley_terry([(swap[b], swap[w], s) for b, w, s in games])
    assert swapped.rating("A").elo == pytest.approx(-fit.rating("A").elo, abs=1e-6)
    assert swapped.rating("B").elo == pytest.approx(fit.rating("A").elo, abs=1e-6)
    assert swapped.first_move_advantage == pytest.approx(fit.first_move_advantage, abs=1e-6)
    assert swapped.rating("A").error == pytest.approx(fit.rating("B").error, abs=1e-6)
    assert fit.los("A", "B") == pytest.approx(swapped.los("B", "A"), abs=1e-9)


def _balanced_two_player_games() -> list[tuple[str, str, float]]:
    # A scores 30 W / 10 D / 10 L with each colour: overall 0.7, no colour effect.
    one_colour = [1.0] * 30 + [0.5] * 10 + [0.0] * 10
    return [("A", "B", s) for s in one_colour] + [("B", "A", 1.0 - s) for s in one_colour]


def test_two_player_bt_equals_simple_elo_formula() -> None:
    games = _balanced_two_player_games()
    simple = elo_from_score(0.7)  # 147.19
    fit = fit_bradley_terry(games, draw_model="half", prior_draws=0.0)
    diff = fit.rating("A").elo - fit.rating("B").elo
    assert diff == pytest.approx(simple, abs=1e-6)
    assert fit.first_move_advantage == pytest.approx(0.0, abs=1e-6)
    no_adv = fit_bradley_terry(
        games, draw_model="half", prior_draws=0.0, fit_first_move_advantage=False
    )
    assert no_adv.rating("A").elo - no_adv.rating("B").elo == pytest.approx(simple, abs=1e-6)
    assert no_adv.expected_score("A", "B") == pytest.approx(0.7)


def test_two_player_davidson_close_to_simple_elo_without_draws() -> None:
    one_colour = [1.0] * 35 + [0.0] * 15
    games = [("A", "B", s) for s in one_colour] + [("B", "A", 1.0 - s) for s in one_colour]
    fit = fit_bradley_terry(games)  # Davidson + 2 virtual draws
    diff = fit.rating("A").elo - fit.rating("B").elo
    # the 2 virtual draws (of 100 games) shrink the estimate slightly toward 0
    assert diff == pytest.approx(elo_from_score(0.7), rel=0.03)
    assert diff < elo_from_score(0.7)
    assert fit.draw_nu < 0.05


def test_anchor_gauge() -> None:
    games = _simulate({"A": 50.0, "B": 0.0, "C": -50.0}, 30.0, 0.1, 40, seed=3)
    mean_fit = fit_bradley_terry(games)
    anchored = fit_bradley_terry(games, anchor="B", anchor_elo=1500.0)
    assert anchored.rating("B").elo == pytest.approx(1500.0)
    assert anchored.rating("B").error == pytest.approx(0.0, abs=1e-9)
    for a, b in (("A", "B"), ("A", "C"), ("B", "C")):
        assert anchored.rating(a).elo - anchored.rating(b).elo == pytest.approx(
            mean_fit.rating(a).elo - mean_fit.rating(b).elo, abs=1e-6
        )
        assert anchored.diff_sd(a, b) == pytest.approx(mean_fit.diff_sd(a, b), rel=1e-6)
    with pytest.raises(RatingError, match="anchor"):
        fit_bradley_terry(games, anchor="Z")


def test_perfect_scores_need_the_prior() -> None:
    games = [("A", "B", 1.0), ("B", "A", 0.0)] * 5 + [("B", "C", 0.5), ("C", "B", 1.0)] * 5
    fit = fit_bradley_terry(games)  # A won everything: finite thanks to virtual draws
    assert all(math.isfinite(e) for e in fit.elo)
    assert fit.rating("A").elo > fit.rating("B").elo
    with pytest.raises(RatingError, match="won or lost all their games"):
        fit_bradley_terry(games, prior_draws=0.0)


def test_bradley_terry_errors() -> None:
    with pytest.raises(RatingError, match="at least two players"):
        fit_bradley_terry([])
    with pytest.raises(RatingError, match="cannot play against itself"):
        fit_bradley_terry([("A", "A", 1.0)])
    disconnected = [("A", "B", 1.0), ("B", "A", 0.5), ("C", "D", 0.0), ("D", "C", 1.0)]
    with pytest.raises(RatingError, match="2 groups"):
        fit_bradley_terry(disconnected)
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        fit_bradley_terry([("A", "B", 0.3)])
    with pytest.raises(ValueError, match="expected \\(black, white, black_score\\)"):
        fit_bradley_terry([("A", "B")])  # type: ignore[list-item]
    with pytest.raises(RatingError, match="draw parameter"):
        fit_bradley_terry([("A", "B", 1.0), ("B", "A", 1.0), ("A", "B", 0.0)], prior_draws=0.0)
    with pytest.raises(KeyError, match="unknown player"):
        fit_bradley_terry(_balanced_two_player_games()).rating("Z")
