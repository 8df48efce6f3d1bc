"""The output directory of a run: what is written, and how a run is resumed from it.

Files (all UTF-8):

``config.json``
    The run's configuration (brains, board, rule, time control, openings, schedule, SPRT)
    and the brain names chosen at the first start. Resuming compares configurations.
``games.jsonl``
    One :class:`~brain.game.records.GameRecord` per line, appended and fsynced as each game
    ends: the single source of truth for resuming and rating. Its ``tags`` hold ``game``
    (id), ``pair``, ``half`` (0/1), ``opening``, ``symmetry`` and ``termination``.
``games/NNNNN_BLACK_vs_WHITE.psq`` and ``.sgf``
    Every game as Piskvork PSQ and SGF (written after the JSON line).
``events.jsonl``
    Event log, one JSON object per line with ``t`` (UTC time) and ``event``:
    ``run_start``, ``game_start``, ``move``, ``game_end``, ``rating``, ``sprt``,
    ``run_end``.
``results.json``
    The standings of :mod:`arena.report`, rewritten (atomically) after every pair.
``logs/``
    Brains' stderr (``NNNNN_NAME.stderr``, capped) and, on request, I/O transcripts
    (``NNNNN_NAME.io``).

A crash can at worst leave a torn last line in ``games.jsonl`` (or ``events.jsonl``);
:meth:`RunDir.load_games` cuts it off before appending again, so no finished game is lost
or counted twice.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from brain.game.records import GameRecord, append_jsonl, read_jsonl, write_psq, write_sgf

__all__ = ["RunDir", "RunDirError", "config_differences"]

CONFIG_VERSION = 1


class RunDirError(ArenaError, ValueError):
    """The output directory cannot be used as asked (the message says what to do)."""


def config_differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """One line per top-level key whose value differs, e.g. ``"rule: 0 -> 4"``."""
    lines = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            before, after = json.dumps(old.get(key)), json.dumps(new.get(key))
            if len(before) + len(after) > 120:
                before, after = "(saved value)", "(new value)"
            lines.append(f"{key}: {before} -> {after}")
    return lines


def _cut_torn_tail(path: Path, chunk: int = 1 << 16) -> None:
    """Truncate ``path`` after its last newline (nothing if it is missing or clean); reads
    backwards from the end, so a large log costs one small read."""
    if not path.exists():
        return
    with path.open("rb+") as f:
        end = f.seek(0, os.SEEK_END)
        position = end
        while position > 0:
            start = max(0, position - chunk)
            f.seek(start)
            newline = f.read(position - start).rfind(b"\n")
            if newline >= 0:
                cut = start + newline + 1
                break
            position = start
        else:
            cut = 0
        if cut < end:
            f.truncate(cut)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:60] or "brain"


class RunDir:
    """One run's output directory (see the module docstring). Methods are thread-safe."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @property
    def config_path(self) -> Path:
        return self.path / "config.json"

    @property
    def games_path(self) -> Path:
        return self.path / "games.jsonl"

    @property
    def events_path(self) -> Path:
        return self.path / "events.jsonl"

    @property
    def results_path(self) -> Path:
        return self.path / "results.json"

    def exists(self) -> bool:
        """Whether a run was started here (its ``config.json`` exists)."""
        return self.config_path.is_file()

    def load_config(self) -> tuple[dict[str, Any], list[str]]:
        """The saved configuration and brain names.

        :raises RunDirError: no run here, or an unreadable ``config.json``.
        """
        if not self.exists():
            raise RunDirError(f"{self.path} holds no arena run (no config.json)")
        try:
            data = json.loads(self.config_path.read_text(encoding="utf-8"))
            return dict(data["config"]), [str(n) for n in data["names"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RunDirError(f"{self.config_path} is unreadable ({exc}); start a new run "
                              "in another directory") from None

    def create(self, config: Mapping[str, Any], names: list[str]) -> None:
        """Start a new run here: write ``config.json`` (the directory may exist but must
        not hold a run)."""
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "games").mkdir(exist_ok=True)
        (self.path / "logs").mkdir(exist_ok=True)
        data = {"version": CONFIG_VERSION, "created": datetime.now(UTC).isoformat(),
                "config": dict(config), "names": names}
        self._write_atomic(self.config_path, json.dumps(data, indent=2) + "\n")

    def check_same(self, config: Mapping[str, Any], growable: tuple[str, ...] = ()
                   ) -> list[str]:
        """The saved names if ``config`` equals the saved configuration.

        Keys in ``growable`` may hold a larger number than saved (a run extended with more
        games, as Piskvork allows); the saved configuration is then updated.

        :raises RunDirError: listing the differences.
        """
        saved, names = self.load_config()
        new = json.loads(json.dumps(config))
        grown = {key: new[key] for key in growable
                 if isinstance(new.get(key), int) and isinstance(saved.get(key), int)
                 and new[key] > saved[key]}
        differences = config_differences({**saved, **grown}, new)
        if differences:
            raise RunDirError(
                f"{self.path} holds a run with a different configuration:\n  "
                + "\n  ".join(differences)
                + f"\nUse another --out directory, or '--resume {self.path}' to continue that "
                "run with its own settings."
            )
        if grown:
            data = json.loads(self.config_path.read_text(encoding="utf-8"))
            data["config"].update(grown)
            self._write_atomic(self.config_path, json.dumps(data, indent=2) + "\n")
        return names

    def load_games(self) -> list[GameRecord]:
        """Finished games, in file order.

        A torn last line of ``games.jsonl`` or ``events.jsonl`` (a crash mid-write) is cut
        off first, so that the next append starts on a line of its own.
        """
        with self._lock:
            for path in (self.games_path, self.events_path):
                _cut_torn_tail(path)
        if not self.games_path.exists():
            return []
        return list(read_jsonl(self.games_path))

    def game_stem(self, game_id: int, black: str, white: str) -> Path:
        """``games/NNNNN_BLACK_vs_WHITE`` (add ``.psq``/``.sgf``)."""
        return self.path / "games" / f"{game_id:05d}_{_safe(black)}_vs_{_safe(white)}"

    def log_path(self, game_id: int, name: str, kind: str) -> Path:
        """``logs/NNNNN_NAME.KIND`` for a brain's stderr or transcript in one game."""
        return self.path / "logs" / f"{game_id:05d}_{_safe(name)}.{kind}"

    def record_game(self, game_id: int, record: GameRecord) -> None:
        """Append ``record`` durably to ``games.jsonl``, then write its PSQ and SGF files."""
        with self._lock:
            append_jsonl(self.games_path, record)
        stem = self.game_stem(game_id, record.black, record.white)
        stem.with_suffix(".psq").write_text(write_psq(record), encoding="utf-8")
        stem.with_suffix(".sgf").write_text(write_sgf(record), encoding="utf-8")

    def event(self, event: str, **fields: Any) -> None:
        """Append one event line to ``events.jsonl`` (flushed, not fsynced).

        A ``t`` among ``fields`` (an event that happened elsewhere, as the moves of a game
        played on a cluster node) replaces the time of writing."""
        line = json.dumps({"t": datetime.now(UTC).isoformat(timespec="microseconds"),
                           "event": event, **fields}, ensure_ascii=False)
        with self._lock, self.events_path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    def write_results(self, results: Mapping[str, Any]) -> None:
        """Replace ``results.json`` atomically."""
        with self._lock:
            self._write_atomic(self.results_path, json.dumps(results, indent=2) + "\n")

    @staticmethod
    def _write_atomic(path: Path, text: str) -> None:
        temporary = path.with_suffix(path.suffix + ".tmp")
        with temporary.open("w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
