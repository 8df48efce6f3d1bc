"""Rating statistics for engine matches: Elo, LOS, pentanomial, SPRT, Bradley–Terry.

Elo model
---------
Everything here uses the **logistic Elo model**: a rating difference ``d`` corresponds
to the expected score ``E(d) = 1 / (1 + 10 ** (-d / 400))`` and a mean score ``s``
to the difference ``d(s) = -400 * log10(1 / s - 1)``.  A draw is worth half a point.

Two-player statistics
---------------------
* :func:`trinomial_elo` treats every game as an independent W/D/L sample
  (cutechess / fastchess "WDL" numbers).
* :func:`pentanomial_elo` works on *game pairs* (one opening played twice with the
  colours swapped).  Each pair scores 0, ½, 1, 1½ or 2 points, i.e. falls into one of
  the five bins ``[LL, LD, DD+WL, WD, WW]``; the variance is taken over pair scores,
  exactly as fastchess does.  For Gomoku (large first-move advantage, few draws) this
  is the statistic to report: the two games of a pair are strongly correlated.
* :func:`los` is the cutechess likelihood of superiority computed from wins and losses.
* :class:`Sprt` is a generalized SPRT (GSPRT) in the logistic model with the exact
  multinomial maximum-likelihood estimate under each hypothesis (as fishtest and
  fastchess do), on pentanomial pairs or, as a fallback, on W/D/L counts.

Multi-player ratings
--------------------
:func:`fit_bradley_terry` is a joint maximum-a-posteriori fit of all players of a
tournament (BayesElo-style): one rating per player, a first-move (black) advantage and a
Davidson draw parameter, with virtual draws as a weak prior, solved by Newton's method,
with error bars and a likelihood-of-superiority matrix from the inverse Hessian.

All functions raise :class:`ValueError` subclasses with an explanation instead of
returning ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

import numpy as np

from arena.errors import ArenaError

__all__ = [
    "WDL",
    "Z95",
    "BradleyTerryFit",
    "EloEstimate",
    "Pentanomial",
    "PlayerRating",
    "RatingError",
    "SequentialTest",
    "Sprt",
    "SprtResult",
    "SprtState",
    "elo_from_score",
    "expected_score",
    "fit_bradley_terry",
    "llr_pentanomial",
    "llr_trinomial",
    "los",
    "normal_cdf",
    "normal_quantile",
    "pentanomial_elo",
    "sprt_bounds",
    "trinomial_elo",
]

#: Two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054

#: ``800 / ln 10``: the factor that turns a standardized score into normalized Elo.
_NELO_SCALE = 800.0 / math.log(10.0)

#: Natural-log units per Elo point: a rating ``r`` is ``r * _K`` nats of strength.
_K = math.log(10.0) / 400.0

#: Per-game scores of the three trinomial outcomes (loss, draw, win).
_TRI_SCORES = (0.0, 0.5, 1.0)

#: Per-game scores of the five pentanomial bins (pair score divided by two).
_PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)

#: Pseudo-count that replaces empty bins in the GSPRT (the value fastchess uses).
_GSPRT_EPS = 1e-3


class RatingError(ArenaError, ValueError):
    """The data cannot be rated as asked (too few players, disconnected players...)."""


# ---------------------------------------------------------------------------------------
# Elementary functions
# ---------------------------------------------------------------------------------------


def expected_score(elo_diff: float) -> float:
    """Return the expected score of a player rated ``elo_diff`` points above the opponent.

    Logistic model: ``1 / (1 + 10 ** (-elo_diff / 400))``.  ``±inf`` gives 1 or 0.
    """
    if math.isnan(elo_diff):
        raise ValueError("expected_score: the Elo difference is NaN")
    exponent = -elo_diff / 400.0
    if exponent > 300.0:  # 10**300 is near the float limit; the score is 0 to 1e-300
        return 0.0
    return 1.0 / (1.0 + 10.0**exponent)


def elo_from_score(score: float) -> float:
    """Return the Elo difference that corresponds to a mean score in ``[0, 1]``.

    ``-400 * log10(1 / score - 1)``; a score of exactly 0 or 1 gives ``-inf`` / ``+inf``.

    :raises ValueError: if ``score`` is outside ``[0, 1]`` or NaN.
    """
    if not 0.0 <= score <= 1.0:  # also rejects NaN
        raise ValueError(f"elo_from_score: score must be within [0, 1], got {score!r}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def normal_cdf(x: float) -> float:
    """Standard normal cumulative distribution function ``Φ(x)`` (via ``math.erf``)."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def normal_quantile(p: float) -> float:
    """Inverse of :func:`normal_cdf` for ``0 < p < 1`` (bisection, accurate to ~1e-13).

    :raises ValueError: if ``p`` is not strictly between 0 and 1.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"normal_quantile: p must be strictly between 0 and 1, got {p!r}")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if normal_cdf(mid) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-14:
            break
    return 0.5 * (lo + hi)


def _z_for(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    if confidence == 0.95:
        return Z95
    return normal_quantile(0.5 + confidence / 2.0)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority from wins and losses (draws carry no information).

    cutechess formula ``½ + ½ erf((W − L) / sqrt(2 (W + L)))``; 0.5 when ``W + L == 0``.

    :raises ValueError: on negative counts.
    """
    if wins < 0 or losses < 0:
        raise ValueError(f"los: counts must be non-negative, got wins={wins}, losses={losses}")
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


# ---------------------------------------------------------------------------------------
# Counts
# ---------------------------------------------------------------------------------------


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative int, got {value!r}")


def _score_index(score: float, what: str) -> int:
    """Map a game score 0 / 0.5 / 1 to 0 / 1 / 2."""
    doubled = score * 2.0
    index = round(doubled)
    if index not in (0, 1, 2) or abs(doubled - index) > 1e-9:
        raise ValueError(f"{what}: a game score must be 0, 0.5 or 1, got {score!r}")
    return index


@dataclass(frozen=True)
class WDL:
    """Win/draw/loss counts of one player (or engine) against its opponents."""

    wins: int
    draws: int
    losses: int

    def __post_init__(self) -> None:
        _check_count("WDL.wins", self.wins)
        _check_count("WDL.draws", self.draws)
        _check_count("WDL.losses", self.losses)

    @classmethod
    def from_scores(cls, scores: Iterable[float]) -> WDL:
        """Count per-game scores (1 = win, 0.5 = draw, 0 = loss)."""
        counts = [0, 0, 0]
        for score in scores:
            counts[_score_index(score, "WDL.from_scores")] += 1
        return cls(wins=counts[2], draws=counts[1], losses=counts[0])

    @property
    def games(self) -> int:
        """Number of games."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Points scored: wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Mean score per game.

        :raises ValueError: if there are no games.
        """
        if self.games == 0:
            raise ValueError("WDL.score: no games played")
        return self.points / self.games

    def reversed(self) -> WDL:
        """The same results seen from the opponent's side."""
        return WDL(wins=self.losses, draws=self.draws, losses=self.wins)

    def __add__(self, other: WDL) -> WDL:
        if not isinstance(other, WDL):
            return NotImplemented
        return WDL(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)


@dataclass(frozen=True)
class Pentanomial:
    """Counts of game-pair outcomes for one player: ``[LL, LD, DD+WL, WD, WW]``.

    A pair is one opening played twice with the colours swapped.  The bins hold pairs
    that scored 0, ½, 1, 1½ and 2 points for the player.  ``DD`` and ``WL`` both score
    1 point and share a bin (as in fastchess' ``Ptnml(0-2)``).
    """

    ll: int
    ld: int
    dd_wl: int
    wd: int
    ww: int

    def __post_init__(self) -> None:
        for name, value in zip(("ll", "ld", "dd_wl", "wd", "ww"), self.counts, strict=True):
            _check_count(f"Pentanomial.{name}", value)

    @classmethod
    def from_counts(cls, counts: Sequence[int]) -> Pentanomial:
        """Build from five counts ordered ``[LL, LD, DD+WL, WD, WW]``."""
        if len(counts) != 5:
            raise ValueError(
                f"Pentanomial.from_counts: expected 5 counts [LL, LD, DD+WL, WD, WW], "
                f"got {len(counts)}"
            )
        return cls(*counts)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[float, float]]) -> Pentanomial:
        """Count game pairs given as the player's two scores, e.g. ``(1, 0.5)`` → WD."""
        counts = [0, 0, 0, 0, 0]
        for first, second in pairs:
            index = _score_index(first, "Pentanomial.from_pairs") + _score_index(
                second, "Pentanomial.from_pairs"
            )
            counts[index] += 1
        return cls(*counts)

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        """The five counts ``(LL, LD, DD+WL, WD, WW)``."""
        return (self.ll, self.ld, self.dd_wl, self.wd, self.ww)

    @property
    def pairs(self) -> int:
        """Number of game pairs."""
        return sum(self.counts)

    @property
    def score(self) -> float:
        """Mean score per game (pair points / 2 / pairs).

        :raises ValueError: if there are no pairs.
        """
        if self.pairs == 0:
            raise ValueError("Pentanomial.score: no game pairs")
        return sum(a * n for a, n in zip(_PENTA_SCORES, self.counts, strict=True)) / self.pairs

    def reversed(self) -> Pentanomial:
        """The same pairs seen from the opponent's side."""
        return Pentanomial(self.ww, self.wd, self.dd_wl, self.ld, self.ll)

    def __add__(self, other: Pentanomial) -> Pentanomial:
        if not isinstance(other, Pentanomial):
            return NotImplemented
        return Pentanomial(*(a + b for a, b in zip(self.counts, other.counts, strict=True)))


# ---------------------------------------------------------------------------------------
# Elo with error bars
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its confidence interval (``A − B`` from A's point of view).

    ``elo = d(score)``; ``lower``/``upper`` are ``d(score ∓ z·se)`` and ``error`` is their
    half distance (the "±" printed by cutechess and fastchess).  ``los`` is
    ``Φ((score − ½) / se)``.  ``nelo`` is normalized Elo (fishtest/fastchess);
    ``nan`` when the sample has no variance.  Infinite values appear for 0 % / 100 %
    scores.
    """

    elo: float
    error: float
    lower: float
    upper: float
    score: float
    score_se: float
    los: float
    nelo: float
    nelo_error: float
    samples: int
    confidence: float


def _bounded_elo(score: float) -> float:
    return elo_from_score(min(1.0, max(0.0, score)))


def _estimate(
    score: float, sample_sd: float, samples: int, nelo_sd: float, confidence: float
) -> EloEstimate:
    z = _z_for(confidence)
    se = sample_sd / math.sqrt(samples)
    lower = _bounded_elo(score - z * se)
    upper = _bounded_elo(score + z * se)
    error = (upper - lower) / 2.0
    if se > 0.0:
        los_value = normal_cdf((score - 0.5) / se)
    else:
        los_value = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    if nelo_sd > 0.0:
        nelo = (score - 0.5) / nelo_sd * _NELO_SCALE
        nelo_error = z * se / nelo_sd * _NELO_SCALE
    else:
        nelo = nelo_error = math.nan
    return EloEstimate(
        elo=elo_from_score(score),
        error=error,
        lower=lower,
        upper=upper,
        score=score,
        score_se=se,
        los=los_value,
        nelo=nelo,
        nelo_error=nelo_error,
        samples=samples,
        confidence=confidence,
    )


def trinomial_elo(wdl: WDL, confidence: float = 0.95) -> EloEstimate:
    """Elo difference and confidence interval from W/D/L counts (games independent).

    ``s = (W + D/2)/n``, per-game variance ``σ² = (W + D/4)/n − s²``, ``se = σ/√n``;
    ``nElo = (s − ½)/σ · 800/ln 10``.

    :raises ValueError: if there are no games.
    """
    n = wdl.games
    if n == 0:
        raise ValueError("trinomial_elo: no games played")
    s = wdl.score
    variance = max(0.0, (wdl.wins + 0.25 * wdl.draws) / n - s * s)
    sd = math.sqrt(variance)
    return _estimate(s, sd, n, sd, confidence)


def pentanomial_elo(penta: Pentanomial, confidence: float = 0.95) -> EloEstimate:
    """Elo difference and confidence interval from pentanomial pair counts (fastchess).

    With per-game pair values ``a = (0, ¼, ½, ¾, 1)`` and ``N`` pairs:
    ``s = Σ aᵢNᵢ/N``, ``σ²_pair = Σ Nᵢ(aᵢ − s)²/N``, ``se = σ_pair/√N``;
    ``nElo = (s − ½)/(√2·σ_pair) · 800/ln 10``.

    :raises ValueError: if there are no pairs.
    """
    n = penta.pairs
    if n == 0:
        raise ValueError("pentanomial_elo: no game pairs")
    s = penta.score
    variance = sum(c * (a - s) ** 2 for a, c in zip(_PENTA_SCORES, penta.counts, strict=True)) / n
    sd = math.sqrt(max(0.0, variance))
    return _estimate(s, sd, n, math.sqrt(2.0) * sd, confidence)


# ---------------------------------------------------------------------------------------
# SPRT
# ---------------------------------------------------------------------------------------


class SprtState(Enum):
    """Decision of a sequential probability ratio test."""

    CONTINUE = "continue"
    ACCEPT_H0 = "H0"
    ACCEPT_H1 = "H1"


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Return the LLR bounds ``(ln(β/(1−α)), ln((1−β)/α))``; ±2.944 for α = β = 0.05.

    :raises ValueError: unless ``0 < α``, ``0 < β`` and ``α + β < 1``.
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(
            f"SPRT error rates need 0 < alpha, 0 < beta and alpha + beta < 1; "
            f"got alpha={alpha!r}, beta={beta!r}"
        )
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _constrained_mle(p_hat: Sequence[float], values: Sequence[float], mean: float) -> list[float]:
    """Distribution closest (in KL) to ``p_hat`` on ``values`` whose mean is ``mean``.

    Solution ``pᵢ = p̂ᵢ/(1 + θ(aᵢ − mean))`` with ``θ`` the root of
    ``Σ p̂ᵢ(aᵢ − mean)/(1 + θ(aᵢ − mean)) = 0`` (decreasing in ``θ``; bisection).
    Every ``p̂ᵢ`` must be positive and ``min(a) < mean < max(a)``.
    """
    d = [a - mean for a in values]
    lo = -1.0 / max(d)
    hi = -1.0 / min(d)

    def f(theta: float) -> float:
        return sum(p * di / (1.0 + theta * di) for p, di in zip(p_hat, d, strict=True))

    for _ in range(400):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    theta = 0.5 * (lo + hi)
    p = [pi / (1.0 + theta * di) for pi, di in zip(p_hat, d, strict=True)]
    total = sum(p)
    return [pi / total for pi in p]


def _gsprt_llr(counts: Sequence[int], values: Sequence[float], elo0: float, elo1: float) -> float:
    n = sum(counts)
    if n == 0:
        return 0.0
    regularized = [c if c > 0 else _GSPRT_EPS for c in counts]
    total = sum(regularized)
    p_hat = [c / total for c in regularized]
    p0 = _constrained_mle(p_hat, values, expected_score(elo0))
    p1 = _constrained_mle(p_hat, values, expected_score(elo1))
    return n * sum(p * math.log(b / a) for p, a, b in zip(p_hat, p0, p1, strict=True))


def _check_hypotheses(elo0: float, elo1: float) -> None:
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError(f"SPRT: elo0 and elo1 must be finite, got {elo0!r}, {elo1!r}")
    if elo0 >= elo1:
        raise ValueError(f"SPRT: need elo0 < elo1, got elo0={elo0!r}, elo1={elo1!r}")


def llr_pentanomial(penta: Pentanomial, elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) on game pairs.

    Logistic Elo model: under Hₖ the per-game expected score is ``E(eloₖ)``; for each
    hypothesis the pentanomial distribution closest to the observed frequencies with
    that mean is found exactly, and ``LLR = N Σ p̂ᵢ ln(p¹ᵢ/p⁰ᵢ)`` (fishtest/fastchess).
    Empty bins are replaced by a pseudo-count of 1e-3.  Zero pairs give 0.
    """
    _check_hypotheses(elo0, elo1)
    return _gsprt_llr(penta.counts, _PENTA_SCORES, elo0, elo1)


def llr_trinomial(wdl: WDL, elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio on W/D/L counts (games treated as independent).

    Same method as :func:`llr_pentanomial` on the three outcomes (scores 0, ½, 1).  Use
    it only when games are not paired; with paired openings the pentanomial LLR is the
    correct one.
    """
    _check_hypotheses(elo0, elo1)
    return _gsprt_llr((wdl.losses, wdl.draws, wdl.wins), _TRI_SCORES, elo0, elo1)


@dataclass(frozen=True)
class SprtResult:
    """Outcome of one SPRT evaluation."""

    llr: float
    lower: float
    upper: float
    state: SprtState


@dataclass(frozen=True)
class Sprt:
    """Sequential probability ratio test of ``H0: elo = elo0`` against ``H1: elo = elo1``.

    Elo model: **logistic** (``elo0``/``elo1`` are ordinary Elo differences, as in
    fastchess ``model=logistic``).  ``alpha`` is the probability of accepting H1 when H0
    is true, ``beta`` of accepting H0 when H1 is true.  Bounds: ``lower = ln(β/(1−α))``,
    ``upper = ln((1−β)/α)``; accept H1 when ``LLR ≥ upper``, H0 when ``LLR ≤ lower``.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        _check_hypotheses(self.elo0, self.elo1)
        sprt_bounds(self.alpha, self.beta)

    @property
    def lower_bound(self) -> float:
        """``ln(β/(1−α))``: accept H0 at or below it."""
        return sprt_bounds(self.alpha, self.beta)[0]

    @property
    def upper_bound(self) -> float:
        """``ln((1−β)/α)``: accept H1 at or above it."""
        return sprt_bounds(self.alpha, self.beta)[1]

    def llr(self, data: Pentanomial | WDL) -> float:
        """LLR on pentanomial pairs (preferred) or W/D/L counts (fallback)."""
        if isinstance(data, Pentanomial):
            return llr_pentanomial(data, self.elo0, self.elo1)
        if isinstance(data, WDL):
            return llr_trinomial(data, self.elo0, self.elo1)
        raise TypeError(f"Sprt.llr: expected Pentanomial or WDL, got {type(data).__name__}")

    def decide(self, llr: float) -> SprtState:
        """Map an LLR to a decision."""
        if llr >= self.upper_bound:
            return SprtState.ACCEPT_H1
        if llr <= self.lower_bound:
            return SprtState.ACCEPT_H0
        return SprtState.CONTINUE

    def evaluate(self, data: Pentanomial | WDL) -> SprtResult:
        """Compute the LLR of ``data`` and the resulting decision."""
        value = self.llr(data)
        return SprtResult(value, self.lower_bound, self.upper_bound, self.decide(value))


class SequentialTest:
    """A :class:`Sprt` run pair by pair: its decision is the state at the first pair
    after which it leaves CONTINUE, and it stays so.

    A match played several games at a time finishes the pairs in flight when the test
    decides; they count in its figures but cannot undo the decision (that would let a
    test that accepted H1 end undecided, or decided otherwise).
    """

    def __init__(self, sprt: Sprt) -> None:
        self.sprt = sprt
        self.decision: SprtState | None = None
        self._pairs: list[tuple[float, float]] = []

    @property
    def pairs(self) -> int:
        """Pairs added so far."""
        return len(self._pairs)

    def add(self, first: float, second: float) -> SprtState | None:
        """Add a pair (the first brain's two scores); returns the decision, if any."""
        self._pairs.append((first, second))
        if self.decision is None:
            state = self.sprt.evaluate(Pentanomial.from_pairs(self._pairs)).state
            if state is not SprtState.CONTINUE:
                self.decision = state
        return self.decision


# ---------------------------------------------------------------------------------------
# Bradley–Terry (joint maximum a posteriori ratings)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerRating:
    """One row of a rating list: Elo, its ±error, games and points."""

    name: str
    elo: float
    error: float
    games: int
    points: float

    @property
    def score(self) -> float:
        """Mean score per game."""
        return self.points / self.games if self.games else math.nan


@dataclass(frozen=True)
class BradleyTerryFit:
    """Result of :func:`fit_bradley_terry`.

    ``elo[i]`` belongs to ``players[i]``; ``errors`` are half-widths of the confidence
    interval at ``confidence`` relative to the gauge (pool mean 0, or the anchor).
    ``covariance`` is the players' Elo covariance matrix (Elo² units) in that gauge; Elo
    *differences* and the LOS matrix do not depend on the gauge.
    ``first_move_advantage`` is black's bonus in Elo (0 if not fitted).
    ``draw_nu`` is Davidson's ν (0 for the ``"half"`` model); two equal players draw
    with probability ``ν/(2+ν)`` (``draw_rate_equal``).
    """

    players: tuple[str, ...]
    elo: tuple[float, ...]
    errors: tuple[float, ...]
    covariance: np.ndarray = field(repr=False, compare=False)
    first_move_advantage: float
    first_move_advantage_error: float
    draw_nu: float
    draw_model: str
    games: tuple[int, ...]
    points: tuple[float, ...]
    confidence: float
    iterations: int
    log_posterior: float

    def index(self, name: str) -> int:
        """Position of ``name`` in :attr:`players`.

        :raises KeyError: for an unknown player.
        """
        try:
            return self.players.index(name)
        except ValueError:
            raise KeyError(f"unknown player {name!r}; known: {', '.join(self.players)}") from None

    def rating(self, name: str) -> PlayerRating:
        """The rating row of one player."""
        i = self.index(name)
        return PlayerRating(name, self.elo[i], self.errors[i], self.games[i], self.points[i])

    def table(self) -> list[PlayerRating]:
        """All players, best first."""
        return sorted((self.rating(p) for p in self.players), key=lambda r: -r.elo)

    @property
    def draw_rate_equal(self) -> float:
        """Modelled draw probability between two equal players (no colour advantage)."""
        return self.draw_nu / (2.0 + self.draw_nu)

    def diff_sd(self, a: str, b: str) -> float:
        """Standard deviation of ``elo(a) − elo(b)`` (gauge independent)."""
        i, j = self.index(a), self.index(b)
        c = self.covariance
        return math.sqrt(max(0.0, c[i, i] + c[j, j] - 2.0 * c[i, j]))

    def los(self, a: str, b: str) -> float:
        """Likelihood that ``a`` is stronger than ``b``: ``Φ(Δ / sd(Δ))``."""
        i, j = self.index(a), self.index(b)
        if i == j:
            return 0.5
        sd = self.diff_sd(a, b)
        diff = self.elo[i] - self.elo[j]
        if sd == 0.0:
            return 0.5 if diff == 0.0 else float(diff > 0.0)
        return normal_cdf(diff / sd)

    def los_matrix(self) -> np.ndarray:
        """``M[i, j] = LOS(players[i] > players[j])``; the diagonal is 0.5."""
        n = len(self.players)
        out = np.full((n, n), 0.5)
        for i in range(n):
            for j in range(n):
                if i != j:
                    out[i, j] = self.los(self.players[i], self.players[j])
        return out

    def expected_score(self, black: str, white: str) -> float:
        """Model expected score of ``black`` (playing first) against ``white``."""
        x = self.elo[self.index(black)] * _K + self.first_move_advantage * _K
        y = self.elo[self.index(white)] * _K
        if self.draw_model == "davidson":
            half = self.draw_nu * math.exp((x + y) / 2.0)
            return (math.exp(x) + 0.5 * half) / (math.exp(x) + math.exp(y) + half)
        return 1.0 / (1.0 + math.exp(y - x))


def _components(n: int, edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in edges:
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _reachable(n: int, adjacency: list[set[int]], start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        for j in adjacency[stack.pop()]:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return seen


def _log_sigmoid(x: float) -> float:
    """``ln(1 / (1 + e^-x))`` without overflow."""
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


@dataclass(frozen=True)
class _Block:
    """A group of multinomial observations sharing one outcome/feature layout.

    Row ``g`` involves the parameters ``scatter[g] = (black, white, adv, ln ν)``;
    outcome ``k`` has log-numerator ``features[k] · beta[scatter[g]]`` and was observed
    ``counts[g, k]`` times.  Log-likelihood = Σ counts·η − n·logsumexp(η): concave.
    """

    scatter: np.ndarray
    counts: np.ndarray
    totals: np.ndarray
    features: np.ndarray

    @classmethod
    def make(
        cls,
        keys: Sequence[tuple[int, int]],
        counts: np.ndarray,
        features: np.ndarray,
        n_players: int,
    ) -> _Block:
        first = np.array([k[0] for k in keys], dtype=np.intp)
        second = np.array([k[1] for k in keys], dtype=np.intp)
        scatter = np.stack(
            [first, second, np.full_like(first, n_players), np.full_like(first, n_players + 1)],
            axis=1,
        )
        return cls(scatter, counts, counts.sum(axis=1), features)

    def accumulate(
        self, beta: np.ndarray, grad: np.ndarray, hess: np.ndarray, derivatives: bool
    ) -> float:
        """Return this block's log-likelihood; add its gradient and Hessian in place."""
        eta = beta[self.scatter] @ self.features.T  # (G, K)
        top = eta.max(axis=1, keepdims=True)
        log_z = top[:, 0] + np.log(np.exp(eta - top).sum(axis=1))
        value = float((self.counts * eta).sum() - (self.totals * log_z).sum())
        if derivatives:
            p = np.exp(eta - log_z[:, None])
            mean = p @ self.features  # (G, 4)
            second = np.einsum("gk,ka,kb->gab", p, self.features, self.features)
            cov = second - mean[:, :, None] * mean[:, None, :]
            np.add.at(grad, self.scatter, self.counts @ self.features - self.totals[:, None] * mean)
            np.add.at(
                hess,
                (self.scatter[:, :, None], self.scatter[:, None, :]),
                -self.totals[:, None, None] * cov,
            )
        return value


def fit_bradley_terry(
    games: Iterable[tuple[str, str, float]],
    *,
    draw_model: Literal["davidson", "half"] = "davidson",
    prior_draws: float = 2.0,
    fit_first_move_advantage: bool = True,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    max_iterations: int = 100,
    tolerance: float = 1e-10,
) -> BradleyTerryFit:
    """Joint maximum-a-posteriori ratings of all players (Bradley–Terry, BayesElo-style).

    ``games`` are ``(black, white, black_score)`` with ``black_score`` 1, 0.5 or 0;
    black moves first.

    **Model** (strengths ``γ = 10^(r/400)``, black's multiplied by ``10^(adv/400)``):

    * ``draw_model="davidson"`` (default), Davidson 1970::

          P(black wins) = γb / (γb + γw + ν·√(γb·γw))
          P(white wins) = γw / (γb + γw + ν·√(γb·γw))
          P(draw)       = ν·√(γb·γw) / (same denominator)

      Its likelihood equations say exactly "expected points = actual points" for every
      player (draw = ½) and "expected draws = actual draws" for ν.  The log-likelihood is
      concave in ``(ratings, adv, ln ν)``, so Newton's method converges from zero.
      Ratings stay on the Elo scale (``γ = 10^(r/400)``); with ν > 0 the expected-score
      curve is slightly flatter than the logistic one, so equal scores map to slightly
      larger gaps than ``elo_from_score`` gives.  For Gomoku, where draws are rare, ν is
      small and the two agree closely.
    * ``draw_model="half"``: plain Bradley–Terry, a draw counts as half a win and half a
      loss (no draw parameter).  For two players without colour advantage this
      reproduces ``elo_from_score`` exactly.

    **Prior** (weak, BayesElo-style virtual draws; ``prior_draws=2`` by default):

    * ratings: each player gets ``prior_draws`` virtual drawn games, spread over its
      real opponents in proportion to the games played against them (pair ``i, j``
      receives ``w = prior_draws/2 · (nᵢⱼ/nᵢ + nᵢⱼ/nⱼ)``).  They are scored ½–½ in the
      plain logistic model (``w/2 · [ln E(Δ) + ln E(−Δ)]``, no colour, no ν), so the
      draw parameter cannot explain them away: a player who won or lost everything
      still gets a finite rating;
    * first-move advantage: ``prior_draws`` virtual games in which black scored ½;
    * Davidson ν: one virtual game between equal players counted ½ drawn and ½
      decisive (Jeffreys-like), so ν stays finite and positive with no draws at all.

    All prior terms are log-concave, so the posterior has a unique finite maximum; their
    weight is that of a few games and vanishes as real games accumulate.
    ``prior_draws=0`` gives the pure maximum-likelihood fit, which raises
    :class:`RatingError` when it does not exist.

    **Gauge**: ratings are only defined up to a constant: either the pool mean is 0, or
    ``anchor`` is fixed at ``anchor_elo``.

    **Errors**: the covariance is the inverse of the negative Hessian of the log
    posterior (observed Fisher information) restricted to the free parameters of the
    gauge; ``errors`` are ``z·sd`` at ``confidence``; ``los(a, b) = Φ(Δ/sd(Δ))``.

    :raises RatingError: fewer than two players, a player playing itself, players not
        connected by games (their relative ratings are undefined), an unknown anchor, a
        non-existent maximum-likelihood estimate with ``prior_draws=0``, or no
        convergence.
    :raises ValueError: for a score other than 0, 0.5 or 1 or bad options.
    """
    if draw_model not in ("davidson", "half"):
        raise ValueError(f"draw_model must be 'davidson' or 'half', got {draw_model!r}")
    if not (prior_draws >= 0.0 and math.isfinite(prior_draws)):
        raise ValueError(f"prior_draws must be a finite number >= 0, got {prior_draws!r}")
    z = _z_for(confidence)

    # --- collect results per ordered (black, white) pair: [black wins, draws, white wins]
    index: dict[str, int] = {}
    cells: dict[tuple[int, int], list[float]] = {}
    for number, game in enumerate(games, start=1):
        try:
            black, white, score = game
        except (TypeError, ValueError):
            raise ValueError(
                f"game #{number}: expected (black, white, black_score), got {game!r}"
            ) from None
        if black == white:
            raise RatingError(f"game #{number}: {black!r} cannot play against itself")
        outcome = _score_index(score, f"game #{number} ({black} vs {white})")
        i = index.setdefault(black, len(index))
        j = index.setdefault(white, len(index))
        cells.setdefault((i, j), [0.0, 0.0, 0.0])[2 - outcome] += 1.0
    players = tuple(index)
    n_players = len(players)
    if n_players < 2:
        raise RatingError(
            f"need games between at least two players to rate them, got {n_players} "
            f"player(s): {', '.join(players) or 'none'}"
        )
    if anchor is not None and anchor not in index:
        raise RatingError(f"anchor {anchor!r} played no game; players: {', '.join(players)}")

    games_played = [0] * n_players
    points = [0.0] * n_players
    pair_games: dict[tuple[int, int], float] = {}
    for (i, j), (bw, d, ww) in cells.items():
        total = bw + d + ww
        games_played[i] += int(total)
        games_played[j] += int(total)
        points[i] += bw + 0.5 * d
        points[j] += ww + 0.5 * d
        key = (min(i, j), max(i, j))
        pair_games[key] = pair_games.get(key, 0.0) + total

    components = _components(n_players, pair_games)
    if len(components) > 1:
        groups = "; ".join("{" + ", ".join(players[k] for k in c) + "}" for c in components)
        raise RatingError(
            f"players form {len(components)} groups with no games between them, so their "
            f"relative ratings are undefined: {groups}. Play games across the groups or rate "
            f"each group separately."
        )

    if prior_draws == 0.0:
        _check_mle_exists(players, cells, draw_model, fit_first_move_advantage)

    keys = list(cells)
    counts = np.array([cells[k] for k in keys], dtype=float)  # columns: B wins, draw, W wins
    if draw_model == "half":
        # a draw is half a black win and half a white win; only two outcomes remain
        c = np.stack([counts[:, 0] + counts[:, 1] / 2, counts[:, 2] + counts[:, 1] / 2], axis=1)
        features = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    else:
        c = np.stack([counts[:, 0], counts[:, 2], counts[:, 1]], axis=1)
        features = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.5, 1.0]])
    n_params = n_players + 2  # ratings (nats), advantage (nats), ln ν
    blocks = [_Block.make(keys, c, features, n_players)]

    # --- prior: virtual drawn games, scored ½-½ in the plain logistic model
    if prior_draws > 0.0:
        pairs = list(pair_games)
        weights = np.array(
            [
                0.5 * prior_draws * (n / games_played[i] + n / games_played[j])
                for (i, j), n in pair_games.items()
            ]
        )
        half = np.stack([weights / 2.0, weights / 2.0], axis=1)
        plain = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
        blocks.append(_Block.make(pairs, half, plain, n_players))

    # --- gauge and fixed parameters: full = T @ free + offset
    free_cols: list[np.ndarray] = []
    offset = np.zeros(n_params)
    anchor_index = index[anchor] if anchor is not None else None
    if anchor_index is None:
        for k in range(n_players - 1):
            col = np.zeros(n_params)
            col[k] = 1.0
            col[n_players - 1] = -1.0  # mean zero: last rating = −(sum of the others)
            free_cols.append(col)
    else:
        for k in range(n_players):
            if k != anchor_index:
                col = np.zeros(n_params)
                col[k] = 1.0
                free_cols.append(col)
        offset[anchor_index] = anchor_elo * _K
    if fit_first_move_advantage:
        col = np.zeros(n_params)
        col[n_players] = 1.0
        free_cols.append(col)
    if draw_model == "davidson":
        col = np.zeros(n_params)
        col[n_players + 1] = 1.0
        free_cols.append(col)
        draw_fraction = (counts[:, 1].sum() + 0.5) / (counts.sum() + 1.0)
        offset[n_players + 1] = math.log(2.0 * draw_fraction / (1.0 - draw_fraction))
    transform = np.stack(free_cols, axis=1)
    adv_index, nu_index = n_players, n_players + 1
    use_adv_prior = prior_draws > 0.0 and fit_first_move_advantage
    use_nu_prior = prior_draws > 0.0 and draw_model == "davidson"

    def evaluate(beta: np.ndarray, derivatives: bool) -> tuple[float, np.ndarray, np.ndarray]:
        value = 0.0
        grad = np.zeros(n_params)
        hess = np.zeros((n_params, n_params))
        for block in blocks:
            value += block.accumulate(beta, grad, hess, derivatives)
        if use_adv_prior:
            # prior_draws virtual games in which black scored ½ (no colour advantage)
            a = beta[adv_index]
            value += prior_draws * 0.5 * (_log_sigmoid(a) + _log_sigmoid(-a))
            sig = 1.0 / (1.0 + math.exp(-a))
            grad[adv_index] += prior_draws * (0.5 - sig)
            hess[adv_index, adv_index] -= prior_draws * sig * (1.0 - sig)
        if use_nu_prior:
            # one virtual game between equal players: ½ drawn, ½ decisive (Jeffreys-like)
            u = beta[nu_index]
            value += 0.5 * u - math.log(2.0 + math.exp(u))
            q = math.exp(u) / (2.0 + math.exp(u))
            grad[nu_index] += 0.5 - q
            hess[nu_index, nu_index] -= q * (1.0 - q)
        return value, grad, hess

    free = np.zeros(transform.shape[1])
    beta = transform @ free + offset
    value, grad, hess = evaluate(beta, True)
    iterations = 0
    converged = False
    while iterations < max_iterations:
        iterations += 1
        g = transform.T @ grad
        h = transform.T @ hess @ transform
        try:
            step = np.linalg.solve(-h, g)
        except np.linalg.LinAlgError:
            raise RatingError(
                "the rating equations are singular (the data do not determine all "
                "parameters); add games or use prior_draws > 0"
            ) from None
        t = 1.0
        while True:
            candidate = free + t * step
            new_value, _, _ = evaluate(transform @ candidate + offset, False)
            if new_value >= value - 1e-12 * abs(value) or t < 1e-8:
                break
            t *= 0.5
        free = candidate
        beta = transform @ free + offset
        value, grad, hess = evaluate(beta, True)
        if float(np.max(np.abs(t * step))) < tolerance:
            converged = True
            break
    if not converged or not np.all(np.isfinite(beta)):
        raise RatingError(
            f"the rating fit did not converge in {max_iterations} Newton iterations; "
            f"some player probably won or lost every game (use prior_draws > 0)"
        )

    h = transform.T @ hess @ transform
    try:
        cov_free = np.linalg.inv(-h)
    except np.linalg.LinAlgError:
        raise RatingError(
            "the Fisher information matrix is singular; cannot compute errors"
        ) from None
    cov_full = transform @ cov_free @ transform.T
    scale = 1.0 / _K
    ratings_cov = cov_full[:n_players, :n_players] * scale**2
    sds = np.sqrt(np.clip(np.diag(ratings_cov), 0.0, None))
    adv_sd = math.sqrt(max(0.0, cov_full[n_players, n_players])) * scale
    return BradleyTerryFit(
        players=players,
        elo=tuple(float(x) * scale for x in beta[:n_players]),
        errors=tuple(float(z * s) for s in sds),
        covariance=ratings_cov,
        first_move_advantage=float(beta[n_players]) * scale,
        first_move_advantage_error=z * adv_sd,
        draw_nu=math.exp(float(beta[n_players + 1])) if draw_model == "davidson" else 0.0,
        draw_model=draw_model,
        games=tuple(games_played),
        points=tuple(points),
        confidence=confidence,
        iterations=iterations,
        log_posterior=value,
    )


def _check_mle_exists(
    players: tuple[str, ...],
    cells: dict[tuple[int, int], list[float]],
    draw_model: str,
    fit_advantage: bool,
) -> None:
    """Raise :class:`RatingError` when the pure maximum-likelihood fit has no finite optimum."""
    n = len(players)
    # i -> j when i took points from j; under Davidson only wins count, because draws can
    # always be explained by a growing ν while the rating gap diverges
    beats: list[set[int]] = [set() for _ in range(n)]
    beaten: list[set[int]] = [set() for _ in range(n)]
    draw_counts = 1.0 if draw_model == "half" else 0.0
    black_points = black_games = draws = decisive = 0.0
    for (i, j), (bw, d, ww) in cells.items():
        if bw + draw_counts * d > 0:
            beats[i].add(j)
            beaten[j].add(i)
        if ww + draw_counts * d > 0:
            beats[j].add(i)
            beaten[i].add(j)
        black_points += bw + 0.5 * d
        black_games += bw + d + ww
        draws += d
        decisive += bw + ww
    if len(_reachable(n, beats, 0)) < n or len(_reachable(n, beaten, 0)) < n:
        perfect = [p for k, p in enumerate(players) if not beaten[k] or not beats[k]]
        detail = f" (e.g. {', '.join(perfect)})" if perfect else ""
        raise RatingError(
            "with prior_draws=0 the maximum-likelihood ratings are infinite: some players "
            f"won or lost all their games against the rest{detail} (under the Davidson "
            "model every player needs a win and a loss in the chain). Use prior_draws > 0."
        )
    if draw_model == "davidson" and (draws == 0 or decisive == 0):
        raise RatingError(
            "with prior_draws=0 the Davidson draw parameter has no finite estimate "
            f"({int(draws)} draws, {int(decisive)} decisive games). Use prior_draws > 0 "
            "or draw_model='half'."
        )
    if fit_advantage and not 0.0 < black_points < black_games:
        raise RatingError(
            "with prior_draws=0 the first-move advantage is infinite: black scored "
            f"{black_points:g} of {black_games:g}. Use prior_draws > 0 or "
            "fit_first_move_advantage=False."
        )
