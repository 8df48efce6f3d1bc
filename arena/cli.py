"""``python -m arena``: run, rate and check Gomocup brains from the command line.

``run BRAIN [BRAIN ...]``
    A round robin (or gauntlet) of paired openings; see ``python -m arena run --help``.
    Without brains: a short default match of pbrain-zero against the built-in baselines
    (:func:`arena.brainspec.default_roster`) on the Gomocup Freestyle-15 openings.
``rate PATH [PATH ...]``
    Standings from saved games: run directories, ``.jsonl``, ``.sgf`` or ``.psq`` files.
``check BRAIN``
    A protocol compliance test of one brain.
``board [BRAIN ...]``
    The web board (:mod:`arena.board`): play brains, watch their search, open games.
``openings --judge BRAIN --out FILE``
    Random openings a judge brain rates near even (:mod:`arena.balance`), as an opening
    file for ``run --openings``.
``photo IMAGE [BRAIN]``
    Read a board from a picture (:mod:`arena.photo`), print or save it, ask a brain.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from arena.balance import BalanceError, balanced_openings
from arena.brainspec import BrainSpec, default_roster, parse_brain
from arena.check import Outcome, render_checks, run_checks
from arena.errors import ArenaError
from arena.game import GameSettings, TimeControl
from arena.photo import cli as photo_cli
from arena.report import build_report
from arena.rundir import RunDir
from arena.schedule import pairings
from arena.stats import Sprt
from arena.tournament import RunOptions, Tournament, TournamentConfig
from brain.errors import PbrainError
from brain.game.openings import OpeningFormat, load_openings, random_openings
from brain.game.records import GameRecord, read_jsonl, read_psq, read_sgf
from brain.game.rules import Rule
from brain.resources import shared_data_dir
from driver.teacher import Teacher, TeacherConfig, TeacherError

if TYPE_CHECKING:
    from arena.board.server import BoardServer
    from arena.cluster import RayVenue

__all__ = ["main"]

#: Balanced openings of the default run (12 Gomocup 2026 Freestyle-15 openings).
GOMOCUP_FREESTYLE15 = shared_data_dir() / "openings" / "gomocup" / "gomocup2026_freestyle15.txt"
#: Pairs the default run plays in all (spread over its pairings, at least 2 each): about
#: 24 games, 1-2 minutes on two cores with a 1 s/move brain.
DEFAULT_RUN_PAIRS = 12
#: Tolerance of the default run: its four brain processes start at once on a small
#: machine, and a Python brain's first move (imports, tables) can then exceed 2 s.
DEFAULT_RUN_TOLERANCE_MS = 3000
#: Gomocup's memory limit (350 MiB), sent as ``INFO max_memory`` by default.
GOMOCUP_MEMORY = 367_001_600

DEFAULT_RUN_HELP = """\
Without BRAIN arguments, runs the default match: pbrain-zero (its default engine) against
the built-in baselines (see arena.brainspec.default_roster), 15x15 freestyle, the 12 Gomocup
2026 Freestyle-15 openings from ../shared/data (generated openings if absent), 12 pairs
spread over the pairings (at least 2 each), 1000 ms/move and 20 s/game with a 3000 ms
tolerance, 2 games at once.
Any option given still applies."""


class CliError(ArenaError):
    """A command-line problem; printed as ``arena: error: ...``."""


#: Help of ``--merge-stderr`` (run and check).
MERGE_STDERR_HELP = ("referee as Piskvork does: read each brain's stderr and stdout as one "
                     "pipe, so any line that is not a reply, MESSAGE or DEBUG (a log line, a "
                     "traceback) is a bad reply")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m arena",
        description="Rated tournaments of Gomocup (Piskvork protocol) brains.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run", help="play a tournament",
        description="Play a round robin (or gauntlet) of paired openings between brains, "
                    "with ratings, SPRT and crash-safe resume.",
        epilog=DEFAULT_RUN_HELP + "\n\nBRAIN is a path to an executable (its folder is its "
               "working directory), a .exe (run with wine), a .py file, a quoted command "
               "line, or builtin:ENGINE[:LEVEL] (python -m brain --engine ENGINE --level "
               "LEVEL). Options taking N=... address the N-th brain (from 1).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("brains", nargs="*", metavar="BRAIN", help="the brains (at least two)")
    who = run.add_argument_group("brains")
    who.add_argument("--name", action="append", default=[], metavar="N=NAME",
                     help="name brain N (default: its ABOUT name, else its file name)")
    who.add_argument("--brain-args", action="append", default=[], metavar="N=ARGS",
                     help="extra command-line arguments for brain N (shell syntax)")
    who.add_argument("--info", action="append", default=[], metavar="KEY=VALUE",
                     help="send INFO KEY VALUE to every brain at each START")
    who.add_argument("--brain-info", action="append", default=[], metavar="N:KEY=VALUE",
                     help="send INFO KEY VALUE to brain N only")
    who.add_argument("--gauntlet", type=int, nargs="?", const=1, default=0, metavar="SEEDS",
                     help="the first SEEDS brains (default 1) play every other brain; "
                          "others do not meet")

    games = run.add_argument_group("games")
    games.add_argument("--pairs", type=int, metavar="N",
                       help="pairs (one opening, both colours) per pairing; default: one "
                            "per opening (with --sprt: the maximum, default 1000)")
    games.add_argument("--games", type=int, metavar="N",
                       help="games per pairing (even; same as --pairs N/2)")
    games.add_argument("--board", default="15", metavar="SIZE|WxH",
                       help="board size (default 15; 20 for Freestyle-20)")
    games.add_argument("--rule", type=int, default=0, choices=[0, 1, 4, 8, 9],
                       help="0 freestyle, 1 exact five, 4 renju, 8 caro, 9 caro exact "
                            "(default 0)")
    games.add_argument("--openings", metavar="FILE",
                       help="opening file (Gomocup/Piskvork offsets, c-gomoku-cli pos, ...)")
    games.add_argument("--opening-format", choices=[f.value for f in OpeningFormat],
                       help="format of --openings (default: detected)")
    games.add_argument("--random-openings", type=int, default=12, metavar="N",
                       help="without --openings: generate N 3-stone openings (default 12)")
    games.add_argument("--opening-order", choices=["sequential", "random"],
                       default="sequential", help="order of the openings (default sequential)")
    games.add_argument("--symmetry", action="store_true",
                       help="each new pass through the openings uses the next board "
                            "symmetry (8 on square boards)")
    games.add_argument("--move-limit", type=int, metavar="N",
                       help="draw when N stones are on the board (default: 200 for renju, "
                            "none otherwise)")

    clock = run.add_argument_group("time and memory")
    clock.add_argument("--tc", "--turn-time", dest="turn_ms", type=int, default=1000,
                       metavar="MS", help="timeout_turn in ms (default 1000; 0 = instant)")
    clock.add_argument("--match-time", type=int, default=0, metavar="MS",
                       help="timeout_match per brain and game in ms (default 0 = none)")
    clock.add_argument("--tolerance", type=int, default=None, metavar="MS",
                       help="extra ms a move may take before it is a time loss (default 1000 "
                            "as Gomocup; 3000 for the default run, as c-gomoku-cli)")
    clock.add_argument("--max-memory", type=float, default=GOMOCUP_MEMORY / 2**20,
                       metavar="MIB", help="INFO max_memory in MiB (default 350, as Gomocup; "
                                           "0 = no limit)")
    clock.add_argument("--enforce-memory", action="store_true",
                       help="lose a brain whose process tree's RSS exceeds --max-memory after "
                            "its move (Linux)")
    clock.add_argument("--no-suspend", dest="suspend", action="store_false",
                       help="let brains run while their opponent thinks (by default each "
                            "brain is frozen with SIGSTOP between its moves, as GomocupJudge "
                            "does, so that it cannot think on the opponent's time)")
    clock.add_argument("--start-timeout", type=float, default=10.0, metavar="S",
                       help="seconds to answer START with OK (default 10)")
    clock.add_argument("--merge-stderr", action="store_true", help=MERGE_STDERR_HELP)
    clock.add_argument("--skip-non-moves", action="store_true",
                       help="read moves as c-gomoku-cli does: while waiting for a move, skip "
                            "lines that are not one (ERROR, UNKNOWN, junk) instead of "
                            "counting them as a loss as Piskvork does; for engines with "
                            "protocol quirks (each skipped line is kept in events.jsonl)")

    sprt = run.add_argument_group("SPRT (two brains: is the first stronger?)")
    sprt.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                      help="GSPRT on game pairs of H0: elo=ELO0 against H1: elo=ELO1 "
                           "(logistic Elo); stops the run when decided")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false H0 rate (0.05)")

    exe = run.add_argument_group("execution")
    exe.add_argument("--concurrency", "-j", type=int, default=None, metavar="N",
                     help="games played at once (default 1; 2 for the default run)")
    exe.add_argument("--reuse", action="store_true",
                     help="keep brain processes between games (START again) instead of a "
                          "fresh process per game")
    exe.add_argument("--out", metavar="DIR",
                     help="output directory (default arena-runs/TIMESTAMP); if it holds the "
                          "same run, the run continues")
    exe.add_argument("--resume", metavar="DIR",
                     help="continue the run saved in DIR with its own settings")
    exe.add_argument("--seed", type=int, default=0, help="seed for openings (default 0)")
    exe.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="live progress line on stderr (default: when stderr is a terminal)")
    exe.add_argument("--transcripts", action="store_true",
                     help="save every brain's full I/O in DIR/logs")
    exe.add_argument("--cluster", metavar="ADDRESS",
                     help="play every game as a task on a Ray cluster (docs/cluster.md): "
                          "'local' (a Ray runtime started here), 'auto' (the cluster this "
                          "machine joined with 'ray start'), ray://HOST:PORT or HOST:PORT "
                          "(its head); -j defaults to the cluster's CPUs per game. Needs "
                          "pip install -e \".[cluster]\"")
    exe.add_argument("--serve", metavar="[HOST:]PORT",
                     help="follow the run on the web board's tournament page at "
                          "http://HOST:PORT/ (HOST default 127.0.0.1); the page stays up "
                          "after the run until Ctrl-C")

    rate = commands.add_parser(
        "rate", help="standings from saved games",
        description="Ratings from saved games: run directories (games.jsonl), .jsonl, .sgf or "
                    ".psq files.")
    rate.add_argument("paths", nargs="+", metavar="PATH",
                      help="a run directory, or .jsonl/.sgf/.psq game files")
    rate.add_argument("--json", action="store_true", help="print JSON instead of tables")
    rate.add_argument("--rule", type=int, default=0, choices=[0, 1, 4, 8, 9],
                      help="rule of .psq files, which do not store it (default 0)")
    rate.add_argument("--serve", metavar="[HOST:]PORT",
                      help="show the standings on the web board's tournament page at "
                           "http://HOST:PORT/ until Ctrl-C (a run directory being played "
                           "is followed live)")

    check = commands.add_parser(
        "check", help="protocol compliance test of one brain",
        description="Drive one brain through ABOUT, START sizes, INFO, BEGIN, BOARD (also "
                    "empty), TURN, bad input, RESTART, TAKEBACK and END; print pass/fail.")
    check.add_argument("brain", metavar="BRAIN", help="the brain, as for run")
    check.add_argument("--tc", dest="turn_ms", type=int, default=1000, metavar="MS",
                       help="timeout_turn for the moves (default 1000)")
    check.add_argument("--tolerance", type=int, default=1000, metavar="MS",
                       help="extra ms before a move is a timeout (default 1000)")
    check.add_argument("--merge-stderr", action="store_true", help=MERGE_STDERR_HELP)

    board = commands.add_parser(
        "board", help="web board: play brains, watch their search, open games",
        description="Serve the web board and print its URL: play any brain (as for run) "
                    "as black or white, watch its search live (heat map, winrates, PV), "
                    "or open saved games and step through them with a brain's analysis.")
    board.add_argument("brains", nargs="*", metavar="BRAIN",
                       help="brains to offer (default: pbrain-zero and the built-in "
                            "baselines)")
    board.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1, this machine only; "
                            "0.0.0.0 for every interface)")
    board.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any)")
    board.add_argument("--open", action="append", default=[], metavar="PATH",
                       help="games to open in the viewer: .sgf, .psq, .jsonl or a run "
                            "directory (repeatable)")
    board.add_argument("--rule", type=int, default=0, choices=[0, 1, 4, 8, 9],
                       help="rule of .psq files, which do not store it (default 0)")
    openings = commands.add_parser(
        "openings", help="random openings a judge brain rates near even",
        description="Draw random openings near the centre (distinct under the board's "
                    "symmetries, no ready-made three) and keep those a judge brain rates "
                    "within --balance of an even game, written as Gomocup offset lines "
                    "(the judge's winrate as a comment) for run --openings. Every game "
                    "played from them can go either way, where random openings mostly "
                    "go to the side with the extra stone.")
    openings.add_argument("--judge", required=True, metavar="BRAIN",
                          help="the judge, as for run; it must report an evaluation "
                               "(Rapfi, Yixin; pbrain-zero with --info "
                               "show_analysis=3600000)")
    openings.add_argument("--out", required=True, metavar="FILE",
                          help="opening file to write (each opening is written as it is "
                               "found)")
    openings.add_argument("--count", type=int, default=40, metavar="N",
                          help="openings to keep (default 40)")
    openings.add_argument("--balance", type=float, default=0.15, metavar="W",
                          help="keep winrates within W of 0.5 (default 0.15: 0.35-0.65)")
    openings.add_argument("--judge-ms", type=int, default=300, metavar="MS",
                          help="the judge's time per opening (default 300)")
    openings.add_argument("--stones", type=int, default=3, help="stones per opening "
                          "(default 3)")
    openings.add_argument("--radius", type=int, default=3,
                          help="stones within this many squares of the centre (default 3)")
    openings.add_argument("--board", default="15", metavar="SIZE|WxH",
                          help="board size (default 15)")
    openings.add_argument("--rule", type=int, default=0, choices=[0, 1, 4, 8, 9],
                          help="rule the judge plays (default 0, freestyle)")
    openings.add_argument("--seed", type=int, default=1, help="draw seed (default 1)")
    openings.add_argument("--max-judged", type=int, metavar="N",
                          help="give up after judging N openings (default 50 per opening "
                               "asked for)")
    openings.add_argument("--info", action="append", default=[], metavar="KEY=VALUE",
                          help="send INFO KEY VALUE to the judge at each START")
    photo_cli.add_parser(commands)
    return parser


def _indexed(items: Sequence[str], separator: str, count: int, option: str
             ) -> list[tuple[int, str]]:
    out = []
    for item in items:
        number, sep, value = item.partition(separator)
        if not sep or not number.isdigit() or not 1 <= int(number) <= count:
            raise CliError(f"{option} {item!r}: expected N{separator}... with N from 1 to "
                           f"{count} (the brain's position)")
        out.append((int(number) - 1, value))
    return out


def _key_value(text: str, option: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise CliError(f"{option} {text!r}: expected KEY=VALUE")
    return key.strip(), value.strip()


def _brains(args: argparse.Namespace) -> tuple[list[BrainSpec], bool]:
    """The brain specs and whether this is the default roster."""
    if not args.brains:
        return default_roster(), True
    count = len(args.brains)
    names = dict(_indexed(args.name, "=", count, "--name"))
    extra = {i: shlex.split(v) for i, v in _indexed(args.brain_args, "=", count, "--brain-args")}
    common = [_key_value(kv, "--info") for kv in args.info]
    per_brain: dict[int, list[tuple[str, str]]] = {}
    for i, kv in _indexed(args.brain_info, ":", count, "--brain-info"):
        per_brain.setdefault(i, []).append(_key_value(kv, "--brain-info"))
    return [
        parse_brain(text, extra_args=extra.get(i, ()), name=names.get(i),
                    info=[*common, *per_brain.get(i, [])])
        for i, text in enumerate(args.brains)
    ], False


def _board(text: str) -> tuple[int, int]:
    try:
        if "x" in text.lower():
            width, height = (int(v) for v in text.lower().split("x"))
        else:
            width = height = int(text)
    except ValueError:
        raise CliError(f"--board {text!r}: expected SIZE or WIDTHxHEIGHT, e.g. 15 or 20x15"
                       ) from None
    return width, height


def _config(args: argparse.Namespace) -> TournamentConfig:
    specs, default_run = _brains(args)
    width, height = _board(args.board)
    rule = Rule.from_gomocup(args.rule)
    if args.games is not None and args.pairs is not None:
        raise CliError("give --games or --pairs, not both")
    if args.games is not None and (args.games < 2 or args.games % 2):
        raise CliError(f"--games {args.games}: games come in pairs (one opening, both "
                       "colours); give an even number")
    if args.openings:
        path = Path(args.openings)
        openings = tuple(load_openings(path, width, height, args.opening_format))
        source = str(path.resolve())
    elif default_run and (width, height) == (15, 15) and GOMOCUP_FREESTYLE15.is_file():
        openings = tuple(load_openings(GOMOCUP_FREESTYLE15, 15, 15))
        source = str(GOMOCUP_FREESTYLE15)
    else:
        openings = tuple(random_openings(args.random_openings, width, height, seed=args.seed))
        source = f"generated: {args.random_openings} random 3-stone openings, seed {args.seed}"
    pairs = args.pairs if args.games is None else args.games // 2
    if pairs is None and default_run:
        try:
            matches = len(pairings(len(specs), args.gauntlet))
        except ValueError as exc:
            raise CliError(str(exc)) from None
        pairs = max(2, -(-DEFAULT_RUN_PAIRS // matches))
    elif pairs is None:
        pairs = 1000 if args.sprt else len(openings)
    match_ms = args.match_time if args.match_time or not default_run else 20_000
    sprt = None
    if args.sprt:
        try:
            sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta)
        except ValueError as exc:
            raise CliError(f"--sprt: {exc}") from None
    try:
        tolerance = args.tolerance if args.tolerance is not None else (
            DEFAULT_RUN_TOLERANCE_MS if default_run else 1000)
        time = TimeControl(args.turn_ms, match_ms, tolerance)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    settings = GameSettings(
        width=width, height=height, rule=rule, time=time,
        max_memory=round(args.max_memory * 2**20), enforce_memory=args.enforce_memory,
        move_limit=args.move_limit, start_timeout_s=args.start_timeout,
        suspend=args.suspend, merge_stderr=args.merge_stderr,
        skip_non_moves=args.skip_non_moves,
    )
    return TournamentConfig(
        brains=tuple(specs), settings=settings, openings=openings, openings_source=source,
        pairs_per_pairing=pairs, gauntlet=args.gauntlet, symmetry=args.symmetry,
        random_order=args.opening_order == "random", seed=args.seed, sprt=sprt,
        reuse=args.reuse,
    )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run(args: argparse.Namespace) -> int:
    if args.cluster is None:
        return _play_run(args, None)
    from arena.cluster import RayVenue
    from driver.cluster import ClusterUnavailable

    try:
        venue = RayVenue.connect(args.cluster)
    except ClusterUnavailable as exc:
        raise CliError(str(exc)) from None
    try:
        return _play_run(args, venue)
    finally:
        venue.close()


def _play_run(args: argparse.Namespace, cluster: RayVenue | None) -> int:
    default_run = not args.brains
    options = RunOptions(
        concurrency=args.concurrency or (2 if default_run else 1),
        progress=sys.stderr.isatty() if args.progress is None else args.progress,
        transcripts=args.transcripts, cluster=cluster,
    )
    if options.concurrency < 1:
        raise CliError(f"--concurrency {options.concurrency}: must be at least 1")
    if args.resume:
        if args.brains:
            raise CliError("--resume DIR takes the run's settings from DIR: give no brains")
        out = RunDir(args.resume)
        resuming = True
        tournament = Tournament.resume(out, options)
    else:
        out = RunDir(args.out or Path("arena-runs") / datetime.now().strftime("%Y%m%d-%H%M%S"))
        resuming = out.exists()
        tournament = Tournament.open(_config(args), out, options)
    config = tournament.config
    if cluster is not None and args.concurrency is None:
        options = tournament.options = replace(options,
                                               concurrency=cluster.slots(config.settings))
    print(f"arena: {'resuming the run: ' if resuming else ''}"
          f"{len(config.brains)} brains ({', '.join(tournament.names)}), "
          f"{len(tournament.schedule)} pairs, {config.settings.width}x"
          f"{config.settings.height} rule {int(config.settings.rule)}, "
          f"{config.settings.time.describe()}, {options.concurrency} at once; "
          f"output in {out.path}", file=sys.stderr)
    signal.signal(signal.SIGTERM, _interrupt)  # stop as cleanly as on Ctrl-C
    server = _run_server(args, tournament) if args.serve else None
    try:
        report = tournament.run()
        print(report.render())
        print(f"\nGames, events and results: {out.path}")
        if server is not None:
            print(f"arena: the run is over; its page stays at {server.url} until Ctrl-C",
                  file=sys.stderr, flush=True)
            signal.pause()
    except KeyboardInterrupt:
        if server is None or tournament.report is None:
            print(f"\narena: interrupted; finished games are saved. Continue with: "
                  f"python -m arena run --resume {out.path}", file=sys.stderr)
            return 130
    finally:
        if server is not None:
            server.stop()
    return 0


def _run_server(args: argparse.Namespace, tournament: Tournament) -> BoardServer:
    """The tournament page of a run being played (served from a thread)."""
    from arena.board.app import board_server
    from arena.board.runview import RunView, read_run_games

    host, port = _address(args.serve)
    config, out = tournament.config, tournament.out
    view = RunView(lambda: (read_run_games(out.games_path), tournament.names, config.sprt),
                   f"{', '.join(tournament.names)}: {out.path}", out)
    server = board_server(config.brains, host=host, port=port, run=view,
                          names=tournament.names)
    server.start()
    print(f"arena: follow the run at {server.url}", file=sys.stderr, flush=True)
    return server


def _load_records(paths: Sequence[str], rule: int) -> tuple[list[GameRecord], list[str] | None,
                                                              Sprt | None]:
    """Games of every path, with each ``pair`` tag prefixed by the path's position: every
    run numbers its pairs from 1, and pairs of two runs must not be matched up."""
    records: list[GameRecord] = []
    names: list[str] | None = None
    sprt: Sprt | None = None
    for number, text in enumerate(paths):
        path = Path(text)
        found: list[GameRecord] = []
        if path.is_dir():
            run = RunDir(path)
            if run.exists():
                config = TournamentConfig.from_dict(run.load_config()[0])
                names, sprt = run.load_config()[1], config.sprt
            if not run.games_path.exists():
                raise CliError(f"{path} has no games.jsonl")
            found.extend(read_jsonl(run.games_path))
        elif path.suffix == ".jsonl":
            found.extend(read_jsonl(path))
        elif path.suffix == ".sgf":
            found.append(read_sgf(path))
        elif path.suffix == ".psq":
            found.append(read_psq(path, rule=rule))
        else:
            raise CliError(f"{path}: expected a run directory, .jsonl, .sgf or .psq file")
        records += [
            replace(record, tags={**record.tags, "pair": f"{number}/{record.tags['pair']}"})
            if "pair" in record.tags else record for record in found]
    if not records:
        raise CliError("no games found")
    return records, names, sprt


def _address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` of ``--serve``."""
    host, _, port = text.rpartition(":")
    if not port.isdigit():
        raise CliError(f"--serve {text!r}: expected [HOST:]PORT, e.g. 8000 or 0.0.0.0:8000")
    return host.strip("[]") or "127.0.0.1", int(port)


def _serve_board(args: argparse.Namespace) -> int:
    from arena.board.app import board_server

    specs = [parse_brain(text) for text in args.brains] or default_roster()
    records, _, _ = _load_records(args.open, args.rule) if args.open else ([], None, None)
    server = board_server(specs, host=args.host, port=args.port, games=records,
                          psq_rule=args.rule)
    print(f"arena: the board is at {server.url} (Ctrl-C stops it)", file=sys.stderr,
          flush=True)
    server.run()
    return 0


def _rate(args: argparse.Namespace) -> int:
    import json

    records, names, sprt = _load_records(args.paths, args.rule)
    if args.serve:
        return _serve_rate(args)
    report = build_report(records, names, sprt)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.render())
    return 0


def _serve_rate(args: argparse.Namespace) -> int:
    from arena.board.app import board_server
    from arena.board.runview import RunView

    host, port = _address(args.serve)
    run = RunDir(args.paths[0]) if len(args.paths) == 1 else None
    roster: list[BrainSpec] = []
    names: list[str] | None = None
    if run is not None and run.exists():
        config = TournamentConfig.from_dict(run.load_config()[0])
        roster, names = list(config.brains), run.load_config()[1]
    view = RunView(lambda: _load_records(args.paths, args.rule), " ".join(args.paths),
                   run if run is not None and run.exists() else None)
    server = board_server(roster, host=host, port=port, run=view, names=names,
                          psq_rule=args.rule)
    print(f"arena: the standings are at {server.url} (Ctrl-C stops it)", file=sys.stderr,
          flush=True)
    server.run()
    return 0


def _check(args: argparse.Namespace) -> int:
    spec = parse_brain(args.brain)
    checks = run_checks(spec, turn_ms=args.turn_ms, tolerance_ms=args.tolerance,
                        merge_stderr=args.merge_stderr)
    print(f"Compliance of {' '.join(spec.command)}\n")
    print(render_checks(checks))
    return 1 if any(c.outcome is Outcome.FAIL for c in checks) else 0


def _openings(args: argparse.Namespace) -> int:
    width, height = _board(args.board)
    if args.count < 1:
        raise CliError(f"--count {args.count}: ask for at least one opening")
    info = tuple(_key_value(item, "--info") for item in args.info)
    spec = parse_brain(args.judge, info=info)
    config = TeacherConfig(tuple(spec.argv()), move_ms=args.judge_ms, info=spec.info,
                           cwd=spec.cwd)
    out = Path(args.out)
    kept = 0
    with Teacher(config) as judge, out.open("w", encoding="utf-8") as file:
        file.write(f"# {args.count} random {args.stones}-stone openings (radius "
                   f"{args.radius}, seed {args.seed}) that {' '.join(spec.command)} rates "
                   f"within {args.balance:g} of even at {args.judge_ms} ms, rule "
                   f"{args.rule}; written by python -m arena openings\n")
        try:
            found = balanced_openings(
                judge, width, height, args.rule, balance=args.balance, stones=args.stones,
                radius=args.radius, seed=args.seed,
                max_judged=args.max_judged or 50 * args.count)
            for judged in found:
                file.write(judged.line() + "\n")
                file.flush()
                kept += 1
                print(f"{kept}/{args.count}: {judged.opening.to_offsets()} ({judged.to_move} "
                      f"to move {judged.winrate:.3f}; {judged.judged} judged)", flush=True)
                if kept == args.count:
                    break
        except (BalanceError, TeacherError, ValueError) as exc:
            raise CliError(f"{exc} ({kept} openings written to {out})") from None
    print(f"{kept} openings written to {out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 1 error or failed check, 130 Ctrl-C)."""
    args = _parser().parse_args(argv)
    handlers = {"run": _run, "rate": _rate, "check": _check, "board": _serve_board,
                "photo": photo_cli.run,
                "openings": _openings}
    try:
        return handlers[args.command](args)
    except (ArenaError, PbrainError, OSError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 1
