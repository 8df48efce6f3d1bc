"""Standings of a set of games: ratings, head-to-head statistics, SPRT, as tables or JSON.

All statistics come from :mod:`arena.stats`:

* **Elo ± (95 %)** per brain: the joint Bradley–Terry fit of every game
  (:func:`~arena.stats.fit_bradley_terry`: Davidson draws, a fitted first-move advantage,
  BayesElo-style virtual draws as prior; pool mean 0). **LOS** between two brains comes
  from the same fit.
* **Pentanomial** counts ``[LL, LD, DD+WL, WD, WW]`` per brain and per pairing, over
  complete pairs only (both games of an opening, recognised by the ``pair`` tag).
* **Head-to-head Elo ±** per pairing: :func:`~arena.stats.pentanomial_elo` when the
  pairing has complete pairs, else :func:`~arena.stats.trinomial_elo`.
* **SPRT** (two brains only): GSPRT on the pentanomial counts of the first brain.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from arena.game import Termination
from arena.stats import (
    WDL,
    BradleyTerryFit,
    EloEstimate,
    Pentanomial,
    RatingError,
    Sprt,
    SprtResult,
    fit_bradley_terry,
    pentanomial_elo,
    trinomial_elo,
)
from brain.game.records import GameRecord, records_to_games

__all__ = ["MatchRow", "PlayerRow", "Report", "build_report", "complete_pairs"]

#: Termination values that are a brain's fault (counted in the Faults column).
_FAULTS = frozenset(t.value for t in Termination if t.is_fault)


@dataclass(frozen=True)
class PlayerRow:
    """One brain's line in the standings."""

    name: str
    wdl: WDL
    penta: Pentanomial
    faults: int
    elo: float | None
    error: float | None


@dataclass(frozen=True)
class MatchRow:
    """Two brains' results against each other, from ``first``'s side."""

    first: str
    second: str
    wdl: WDL
    penta: Pentanomial
    elo: EloEstimate | None
    los: float | None


@dataclass(frozen=True)
class Report:
    """Everything :func:`build_report` computed."""

    players: tuple[PlayerRow, ...]
    matches: tuple[MatchRow, ...]
    fit: BradleyTerryFit | None
    sprt: Sprt | None
    sprt_result: SprtResult | None
    games: int
    pairs: int
    terminations: dict[str, int]

    def render(self) -> str:
        """Human-readable tables (for the terminal)."""
        parts = [_standings_table(self)]
        if self.matches:
            parts.append(_matches_table(self))
        if self.fit is not None and len(self.players) > 2:
            parts.append(_los_table(self))
        if self.fit is not None:
            parts.append(f"First-move advantage {self.fit.first_move_advantage:+.0f} ± "
                         f"{self.fit.first_move_advantage_error:.0f} Elo (joint fit); "
                         f"{self.games} games, {self.pairs} complete pairs.")
        if self.terminations:
            parts.append("Endings: " + ", ".join(
                f"{reason} {count}" for reason, count in sorted(self.terminations.items())))
        if self.sprt is not None and self.sprt_result is not None:
            parts.append(_sprt_line(self))
        return "\n\n".join(parts)

    def to_json(self) -> dict[str, Any]:
        """JSON-compatible form (``results.json``)."""
        return {
            "games": self.games,
            "pairs": self.pairs,
            "players": [
                {"name": p.name, "elo": _num(p.elo), "error": _num(p.error),
                 "games": p.wdl.games, "wins": p.wdl.wins, "losses": p.wdl.losses,
                 "draws": p.wdl.draws, "points": p.wdl.points,
                 "pentanomial": list(p.penta.counts), "faults": p.faults}
                for p in self.players
            ],
            "matches": [
                {"first": m.first, "second": m.second, "wins": m.wdl.wins,
                 "losses": m.wdl.losses, "draws": m.wdl.draws,
                 "pentanomial": list(m.penta.counts),
                 "elo": _num(m.elo.elo) if m.elo else None,
                 "error": _num(m.elo.error) if m.elo else None,
                 "nelo": _num(m.elo.nelo) if m.elo else None,
                 "los": _num(m.los)}
                for m in self.matches
            ],
            "first_move_advantage": _num(self.fit.first_move_advantage) if self.fit else None,
            "terminations": self.terminations,
            "sprt": None if self.sprt is None or self.sprt_result is None else {
                "elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
                "beta": self.sprt.beta, "llr": _num(self.sprt_result.llr),
                "lower": self.sprt_result.lower, "upper": self.sprt_result.upper,
                "state": self.sprt_result.state.value,
            },
        }


def _num(value: float | None) -> float | None:
    """JSON has no infinities or NaN: ``None`` for those."""
    if value is None or not math.isfinite(value):
        return None
    return round(value, 3)


def complete_pairs(records: Sequence[GameRecord]) -> list[tuple[GameRecord, GameRecord]]:
    """The pairs whose two games (``pair`` tag, ``half`` 0 and 1) are both present."""
    halves: dict[str, dict[str, GameRecord]] = defaultdict(dict)
    for record in records:
        pair = record.tags.get("pair")
        if pair is not None:
            halves[pair][record.tags.get("half", "")] = record
    return [(games["0"], games["1"]) for games in halves.values() if {"0", "1"} <= games.keys()]


def build_report(records: Sequence[GameRecord], names: Sequence[str] | None = None,
                 sprt: Sprt | None = None) -> Report:
    """Standings of ``records``; ``names`` fixes the order of brains (default: first seen).

    :param sprt: evaluated on the first two names' pairs (only with exactly two brains).
    """
    order = list(names or [])
    for record in records:
        for name in (record.black, record.white):
            if name not in order:
                order.append(name)
    scores: dict[str, list[float]] = {name: [] for name in order}
    faults: Counter[str] = Counter()
    terminations: Counter[str] = Counter()
    head: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in records:
        for name, other in ((record.black, record.white), (record.white, record.black)):
            scores[name].append(record.score_for(name))
            head[(name, other)].append(record.score_for(name))
        termination = record.tags.get("termination", record.reason.split(":")[0])
        terminations[termination] += 1
        loser = {record.black: record.white, record.white: record.black}.get(record.winner or "")
        if loser is not None and termination in _FAULTS:
            faults[loser] += 1
    pairs = complete_pairs(records)
    penta_pairs: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for a, b in pairs:
        for name, other in ((a.black, a.white), (a.white, a.black)):
            penta_pairs[(name, other)].append((a.score_for(name), b.score_for(name)))

    fit: BradleyTerryFit | None = None
    try:
        fit = fit_bradley_terry(records_to_games(records))
    except RatingError:
        fit = None

    players = []
    for name in order:
        mine = [pp for (n, _), v in penta_pairs.items() if n == name for pp in v]
        rating = fit.rating(name) if fit is not None and name in fit.players else None
        players.append(PlayerRow(
            name, WDL.from_scores(scores[name]), Pentanomial.from_pairs(mine), faults[name],
            rating.elo if rating else None, rating.error if rating else None,
        ))
    players.sort(key=lambda p: -(p.elo if p.elo is not None else -math.inf))

    matches = []
    for i, first in enumerate(order):
        for second in order[i + 1 :]:
            if not head[(first, second)]:
                continue
            wdl = WDL.from_scores(head[(first, second)])
            penta = Pentanomial.from_pairs(penta_pairs[(first, second)])
            elo = pentanomial_elo(penta) if penta.pairs else trinomial_elo(wdl)
            los = fit.los(first, second) if fit is not None else None
            matches.append(MatchRow(first, second, wdl, penta, elo, los))

    sprt_result = None
    if sprt is not None and len(order) == 2:
        sprt_result = sprt.evaluate(Pentanomial.from_pairs(penta_pairs[(order[0], order[1])]))
    return Report(tuple(players), tuple(matches), fit, sprt, sprt_result, len(records),
                  len(pairs), dict(terminations))


def _elo_text(value: float | None, error: float | None) -> tuple[str, str]:
    if value is None:
        return "-", "-"
    err = "-" if error is None or not math.isfinite(error) else f"{error:.0f}"
    return ("+inf" if value > 0 else "-inf") if math.isinf(value) else f"{round(value):+d}", err


def _standings_table(report: Report) -> str:
    rows = []
    for rank, p in enumerate(report.players, start=1):
        elo, err = _elo_text(p.elo, p.error)
        score = f"{100 * p.wdl.score:.1f}%" if p.wdl.games else "-"
        penta = " ".join(str(c) for c in p.penta.counts) if p.penta.pairs else "-"
        rows.append([rank, p.name, elo, err, p.wdl.games, p.wdl.wins, p.wdl.losses,
                     p.wdl.draws, score, penta, p.faults])
    return tabulate(rows, headers=["#", "Brain", "Elo", "±95%", "Games", "W", "L", "D",
                                   "Score", "Ptnml LL LD DD/WL WD WW", "Faults"],
                    tablefmt="simple", disable_numparse=True)


def _matches_table(report: Report) -> str:
    rows = []
    for m in report.matches:
        elo, err = ("-", "-") if m.elo is None else _elo_text(m.elo.elo, m.elo.error)
        nelo = "-" if m.elo is None or math.isnan(m.elo.nelo) else f"{m.elo.nelo:+.0f}"
        penta = " ".join(str(c) for c in m.penta.counts) if m.penta.pairs else "-"
        los = "-" if m.los is None else f"{100 * m.los:.1f}%"
        rows.append([f"{m.first} vs {m.second}", m.wdl.games,
                     f"{m.wdl.wins}-{m.wdl.losses}-{m.wdl.draws}",
                     f"{100 * m.wdl.score:.1f}%", elo, err, nelo, penta, los])
    return tabulate(rows, headers=["Pairing", "Games", "W-L-D", "Score", "Elo", "±95%",
                                   "nElo", "Ptnml", "LOS"],
                    tablefmt="simple", disable_numparse=True)


def _los_table(report: Report) -> str:
    assert report.fit is not None
    # Brains without a game yet (a gauntlet's later opponents, early in a run) are
    # not in the fit.
    names = [p.name for p in report.players if p.name in report.fit.players]
    rows = [[a, *("" if a == b else f"{100 * report.fit.los(a, b):.0f}" for b in names)]
            for a in names]
    return "LOS % (row brain stronger than column brain)\n" + tabulate(
        rows, headers=["", *names], tablefmt="simple", disable_numparse=True)


def _sprt_line(report: Report) -> str:
    assert report.sprt is not None and report.sprt_result is not None
    s, r = report.sprt, report.sprt_result
    verdict = {"continue": "continue", "H0": "H0 accepted", "H1": "H1 accepted"}[r.state.value]
    return (f"SPRT elo0={s.elo0:g} elo1={s.elo1:g} alpha={s.alpha:g} beta={s.beta:g}: "
            f"LLR {r.llr:.2f} [{r.lower:.2f}, {r.upper:.2f}] -> {verdict}")
