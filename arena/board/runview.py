"""The tournament page's data: standings, crosstable, SPRT, finished games and the games
in progress, read from saved games and, for a run directory, its ``events.jsonl``.

:class:`RunView` reads everything afresh when the files changed (:meth:`RunView.changed`),
so the page follows a run that another process (or thread) is writing: ``arena run
--serve`` and ``arena rate --serve`` both use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.report import build_report
from arena.rundir import RunDir
from arena.stats import Sprt
from brain.game.records import GameRecord, RecordFormatError

__all__ = ["Loader", "RunView", "game_number", "live_games", "read_run_games"]

#: Reads the games to show: (records, brain names in order or None, SPRT or None).
Loader = Callable[[], tuple[list[GameRecord], list[str] | None, Sprt | None]]


def read_run_games(path: Path) -> list[GameRecord]:
    """The games of a ``games.jsonl`` that a run may be appending to: a last line not
    yet complete is left for the next look (the file is never changed here).

    :raises RecordFormatError: a malformed line before the last.
    """
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(GameRecord.from_json(line))
        except RecordFormatError:
            if number == len(lines) and not line.endswith("\n"):
                break  # being written
            raise
    return records


def _offsets(text: str, width: int, height: int) -> list[list[int]]:
    """Absolute squares of a Piskvork offset line (``"0,0, 1,0"``, centre-relative)."""
    numbers = [int(v) for v in text.replace(" ", "").split(",") if v]
    cx, cy = width // 2, height // 2
    return [[cx + numbers[i], cy + numbers[i + 1]] for i in range(0, len(numbers) - 1, 2)]


def game_number(record: GameRecord, index: int) -> int:
    """The number a game is shown with: its place in the run's schedule from 1 (its
    ``game`` tag), the same while it is played and once finished; a game from elsewhere
    is numbered by its ``index`` in the list, from 1."""
    tag = record.tags.get("game", "")
    return int(tag) + 1 if tag.isdigit() else index + 1


def live_games(events: Path, width: int, height: int) -> list[dict[str, Any]]:
    """Games started and not yet ended in an ``events.jsonl``, with their stones so far
    (a run interrupted mid-game leaves such games: a later ``run_start`` clears them).
    ``number`` is the game's place in the schedule from 1, as :func:`game_number`."""
    games: dict[int, dict[str, Any]] = {}
    if not events.is_file():
        return []
    with events.open(encoding="utf-8") as f:
        for line in f:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line while it is being written
            kind = event.get("event")
            if kind == "run_start":
                games.clear()
            elif kind == "game_start":
                games[event["game"]] = {
                    "game": event["game"], "number": event["game"] + 1,
                    "black": event["black"], "white": event["white"],
                    "moves": _offsets(event.get("opening", ""), width, height),
                    "width": width, "height": height}
            elif kind == "move" and event.get("game") in games:
                games[event["game"]]["moves"].append([event["x"], event["y"]])
            elif kind == "game_end":
                games.pop(event.get("game"), None)
    return [games[k] for k in sorted(games)]


def _sprt_history(events: Path) -> list[list[float]]:
    """(pairs, LLR) after every complete pair, from the ``sprt`` events."""
    history: list[list[float]] = []
    if not events.is_file():
        return history
    with events.open(encoding="utf-8") as f:
        for line in f:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("event") == "sprt" and event.get("llr") is not None:
                history.append([event["pairs"], event["llr"]])
    return history


@dataclass
class RunView:
    """What the tournament page shows of ``load``'s games; ``run`` is the run directory
    being followed, if any (games in progress and the SPRT's history come from it)."""

    load: Loader
    title: str
    run: RunDir | None = None
    _stamp: tuple[float, ...] = field(default=(), init=False)
    _records: list[GameRecord] = field(default_factory=list, init=False)

    def _files(self) -> Sequence[Path]:
        if self.run is None:
            return ()
        return (self.run.games_path, self.run.events_path)

    def changed(self) -> bool:
        """Whether the run's files changed since the last :meth:`snapshot`."""
        return self._current_stamp() != self._stamp

    def _current_stamp(self) -> tuple[float, ...]:
        stamp: list[float] = []
        for path in self._files():
            try:
                info = path.stat()
                stamp += [info.st_mtime, info.st_size]
            except OSError:
                stamp += [0.0, 0.0]
        return tuple(stamp)

    def snapshot(self) -> dict[str, Any]:
        """Everything the page draws (a ``run`` event)."""
        self._stamp = self._current_stamp()
        records, names, sprt = self.load()
        self._records = records
        report = build_report(records, names, sprt) if records else None
        live: list[dict[str, Any]] = []
        history: list[list[float]] = []
        if self.run is not None:
            data, _ = self.run.load_config() if self.run.exists() else ({}, [])
            width, height = data.get("board", [15, 15])
            live = live_games(self.run.events_path, int(width), int(height))
            history = _sprt_history(self.run.events_path)
        crosstable: dict[str, dict[str, list[float]]] = {}
        for record in records:
            for me, other in ((record.black, record.white), (record.white, record.black)):
                cell = crosstable.setdefault(me, {}).setdefault(other, [0.0, 0])
                cell[0] += record.score_for(me)
                cell[1] += 1
        return {
            "type": "run", "title": self.title,
            "report": report.to_json() if report is not None else None,
            "names": names or ([p.name for p in report.players] if report else []),
            "crosstable": crosstable,
            # A run's games keep their schedule's numbers; others are numbered in order.
            "games": [{"id": i, "number": game_number(r, i) if self.run else i + 1,
                       "black": r.black, "white": r.white, "result": r.result.value,
                       "reason": r.reason, "moves": len(r.moves)}
                      for i, r in enumerate(records)],
            "live": live, "llr": history,
        }

    def game(self, index: int) -> dict[str, Any]:
        """Finished game ``index`` of the last snapshot (the viewer's record form).

        :raises IndexError: no such game.
        """
        if not 0 <= index < len(self._records):
            raise IndexError(f"no game {index}: the run has {len(self._records)} games")
        return self._records[index].to_dict()
