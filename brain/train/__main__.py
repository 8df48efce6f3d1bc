"""``python -m brain.train``: training and export of the policy/value network, and the fit
of the pattern model.

Examples::

    python -m brain.train supervised --out runs/sl1 --blocks 6 --channels 48 --epochs 1
    python -m brain.train supervised --out runs/sl1          # resume runs/sl1/last.pt
    python -m brain.train export runs/sl1/best.pt weights/pbrain-zero.npz
    python -m brain.train patterns --out weights/patterns.npz
    python -m brain.train patterns --out runs/patterns-t1.npz --teacher runs/teach1
    python -m brain.train selfplay --out runs/sp1 --games 100 --weights weights/pbrain-zero.npz
    python -m brain.train rl --out runs/rl1 --initial runs/sl1/best.pt --iterations 20
    python -m brain.train rl --network line --out runs/lrl1 --iterations 10 \
        --base weights/training/linenet-teacher.npz
    python -m brain.train teach --out runs/teach1 --teacher ../sparring/bin/rapfi/pbrain-rapfi
    python -m brain.train supervised --out runs/sl2 --teacher runs/teach1
    python -m brain.train linenet-data --out runs/ln-data.npz --teacher runs/teach1
    python -m brain.train linenet --out runs/ln1 --data runs/ln-data.npz --minutes 30
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.train.data import SOURCES
from brain.train.patterns import DEFAULT_SOURCES as PATTERN_SOURCES

if TYPE_CHECKING:
    from brain.train.linenet import ModelConfig

#: Help of ``--cluster`` (selfplay and rl).
CLUSTER_HELP = ("play the self-play games as tasks on a Ray cluster (docs/cluster.md): "
                "'local', 'auto', ray://HOST:PORT or HOST:PORT; needs "
                "pip install -e \".[cluster]\"")


def source_weight(text: str) -> tuple[str, float]:
    """``SOURCE=W`` (a sample source's sampling weight, 0 or more) as ``(SOURCE, W)``."""
    name, _, value = text.partition("=")
    try:
        weight = float(value)
    except ValueError:
        weight = -1.0
    if not name or not weight >= 0:
        raise argparse.ArgumentTypeError(
            f"expected SOURCE=W with a weight of 0 or more, got {text!r}")
    return name, weight


def positive_count(text: str) -> int:
    """A whole number of 1 or more (a count of playouts, a multiple)."""
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, got {text!r}")
    return count


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    from brain.train.supervised import TrainConfig

    defaults = TrainConfig(out="")
    parser = argparse.ArgumentParser(prog="python -m brain.train",
                                     description="Train and export the policy/value network and "
                                                 "the pattern model.")
    commands = parser.add_subparsers(dest="command", required=True)

    sl = commands.add_parser(
        "supervised", help="train on game records (resumes OUT/last.pt when present)",
        description="Train on game records. If OUT/last.pt exists the run resumes with its "
                    "saved settings and only --epochs is taken from the command line.")
    sl.add_argument("--out", required=True, help="run directory (log, checkpoints)")
    sl.add_argument("--blocks", type=int, default=defaults.blocks)
    sl.add_argument("--channels", type=int, default=defaults.channels)
    sl.add_argument("--policy-channels", type=int, default=defaults.policy_channels)
    sl.add_argument("--value-channels", type=int, default=defaults.value_channels)
    sl.add_argument("--value-hidden", type=int, default=defaults.value_hidden)
    sl.add_argument("--sources", nargs="+", choices=list(SOURCES), default=defaults.sources)
    sl.add_argument("--source-weights", nargs="+", type=float, default=None,
                    help="sampling weight per source, then per teacher board shape "
                         "(default: sqrt of its positions)")
    sl.add_argument("--data-dir", default=defaults.data_dir)
    sl.add_argument("--max-games", type=int, default=None, help="games per source")
    sl.add_argument("--validation-fraction", type=float, default=defaults.validation_fraction)
    sl.add_argument("--validation-positions", type=int, default=defaults.validation_positions,
                    help="validation positions per source")
    sl.add_argument("--epochs", type=float, default=None,
                    help=f"length of the run (default {defaults.epochs}; on resume: keep)")
    sl.add_argument("--minutes", type=float, default=None,
                    help="length of a new run in minutes of training, instead of --epochs: "
                         "its steps are set from its measured rate (again every 100 steps)")
    sl.add_argument("--steps-per-epoch", type=int, default=None,
                    help="default: training positions / batch size")
    sl.add_argument("--batch-size", type=int, default=None, help="default: 256 CPU, 1024 GPU")
    sl.add_argument("--lr", type=float, default=defaults.lr)
    sl.add_argument("--weight-decay", type=float, default=defaults.weight_decay)
    sl.add_argument("--warmup-steps", type=int, default=defaults.warmup_steps)
    sl.add_argument("--value-weight", type=float, default=defaults.value_weight)
    sl.add_argument("--checkpoint-every", type=int, default=defaults.checkpoint_every)
    sl.add_argument("--log-every", type=int, default=defaults.log_every)
    sl.add_argument("--seed", type=int, default=defaults.seed)
    sl.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    sl.add_argument("--workers", type=int, default=None,
                    help="batch loader processes (default: 0 on CPU, up to 8 on GPU)")
    sl.add_argument("--device", default=None, help="cpu, cuda, cuda:1, ... (default: auto)")
    sl.add_argument("--precision", choices=("bf16", "fp32"), default=None,
                    help="bf16 autocast or fp32 (default: bf16 on GPUs that support it)")
    sl.add_argument("--initial", default=None, metavar="WEIGHTS",
                    help="a weights file (.npz, e.g. weights/pbrain-zero.npz) a new run "
                         "starts from, with its architecture, instead of random weights")
    sl.add_argument("--teacher", nargs="+", default=[], metavar="FOLDER",
                    help="teacher runs (python -m brain.train teach) to mix in, as one more "
                         "source per board shape (teacher15x15, teacher20x20)")
    sl.add_argument("--teacher-temperature", type=float, default=defaults.teacher_temperature,
                    help="softness of the policy target over the teacher's scored moves "
                         "(logit units)")
    sl.add_argument("--teacher-outcome-weight", type=float,
                    default=defaults.teacher_outcome_weight,
                    help="share of the continuation's outcome in the value target where "
                         "the teacher gave both an evaluation and an outcome")
    sl.add_argument("--teacher-outcomes-only", action="store_true",
                    help="value target of teacher positions from continuation outcomes "
                         "alone, without the teacher's evaluations (positions without an "
                         "outcome teach the policy only)")

    add_teach_parser(commands)
    add_linenet_parsers(commands)

    from brain.train.lineplay import LinePlayConfig

    play = LinePlayConfig()
    first, last = play.temperature
    sp = commands.add_parser("selfplay", help="play self-play games into a replay folder "
                                              "(resumes its counts)")
    sp.add_argument("--out", required=True, help="replay folder")
    sp.add_argument("--games", type=int, required=True, help="games to add")
    sp.add_argument("--network", choices=("conv", "line"), default="conv",
                    help="conv: the tree search of --engine mcts (default); line: that of "
                         "--engine linenet")
    sp.add_argument("--weights", default=None,
                    help="network weights (default: conv, the tree search with the pattern "
                         "heuristic; line, the shipped line network)")
    sp.add_argument("--playouts", type=int, default=None,
                    help="playouts per move (a line network's full searches; default: "
                         "160 conv, 400 line)")
    sp.add_argument("--fast-playouts", type=positive_count, default=None, metavar="N",
                    help="line: playouts of the short searches, which play the moves that "
                         "teach no policy (three in four) and so decide most of a game's "
                         f"result (default {play.fast_playouts})")
    sp.add_argument("--deep-side", type=positive_count, default=None, metavar="K",
                    help="line: one side of each game (drawn) searches K times the "
                         "playouts of the other, an attacker deeper than its defender "
                         f"(default {play.deep_side}: both alike)")
    sp.add_argument("--seed", type=int, default=None,
                    help="the seed of the games (default: a new folder draws one and keeps "
                         "it in OUT/selfplay.json; a folder with games keeps its own)")
    sp.add_argument("--sample-plies", type=int, default=None, metavar="N",
                    help="line: plies after the opening whose move is sampled from the "
                         "search's visits, the rest being its most visited (default "
                         f"{play.sample_plies})")
    sp.add_argument("--temperature", type=float, nargs=2, default=None,
                    metavar=("FIRST", "LAST"),
                    help="line: the sampling's temperature, going from FIRST at the "
                         f"first of those plies to LAST (default {first} {last})")
    sp.add_argument("--cluster", metavar="ADDRESS", default=None, help=CLUSTER_HELP)

    rm = commands.add_parser(
        "replay-merge", help="join line self-play folders played apart into one replay folder",
        description="Join replay folders of selfplay --network line played apart (machines "
                    "with no Ray cluster between them) into a new folder, such as a run's "
                    "OUT/replay before its first iteration.")
    rm.add_argument("sources", nargs="+", metavar="FOLDER", help="selfplay folders")
    rm.add_argument("--out", required=True, help="the new replay folder")
    rm.add_argument("--seed", type=int, required=True,
                    help="the new folder's seed (a run's: games it plays on are drawn from it)")
    rm.add_argument("--exclude", default=None, metavar="OPENINGS",
                    help="leave out games from these 15x15 openings (a run's "
                         "OUT/gate-openings.txt)")

    from brain.train.adjudicate import JUDGED_RULES

    ad = commands.add_parser(
        "adjudicate", help="decide self-play results by a judge engine's first proven win "
                           "(resumes OUT)",
        description="Search each game of a line self-play sample file with a judge engine "
                    "(Rapfi) from its first sample on until it proves a win, and give all "
                    "the game's samples that result (OUT/samples.npz). Re-run with the same "
                    "--out to resume. See docs/network.md.")
    ad.add_argument("samples", help="the sample file (.npz) of the self-play games")
    ad.add_argument("--out", required=True, help="the folder of the verdicts and the result")
    ad.add_argument("--teacher", required=True,
                    help="the judge's command line, split like a shell does")
    ad.add_argument("--teacher-ms", type=positive_count, default=100,
                    help="the judge's time per position in ms (default 100)")
    ad.add_argument("--workers", type=positive_count, default=1,
                    help="judge processes at once (one core each; default 1)")
    ad.add_argument("--rules", nargs="+", type=int, default=list(JUDGED_RULES),
                    help="Gomocup rules of the games to judge (default 0 1 4, Rapfi's; "
                         "the others keep their results)")

    from brain.train.reinforce import RlConfig
    from brain.train.selfplay import HEURISTIC

    rl_defaults = RlConfig(out="")
    rl = commands.add_parser(
        "rl", help="self-play reinforcement: self-play, train, gate in the arena, promote",
        description="Iterate self-play, training on the replay buffer, and an arena gate "
                    "against the best player. Re-run the same command to resume.")
    rl.add_argument("--out", required=True, help="run directory")
    rl.add_argument("--initial", default=None,
                    help="checkpoint the trained network starts from (default: fresh)")
    rl.add_argument("--network", choices=("conv", "line"), default="conv",
                    help="the network trained: conv (--engine mcts, default) or line "
                         "(--engine linenet, the line-pattern network)")
    rl.add_argument("--best", default=None,
                    help=f"first best player: a weights file (default: conv, "
                         f"'{HEURISTIC}', the pattern model's search; line, the shipped "
                         f"line network)")
    rl.add_argument("--base", nargs="*", default=[], metavar="FILE",
                    help="line: sample files (linenet-data) mixed into training")
    rl.add_argument("--base-share", type=float, default=rl_defaults.base_share,
                    help="line: share of the training batches drawn from --base")
    rl.add_argument("--base-weight", nargs="*", default=[], type=source_weight,
                    dest="base_weights", metavar="SOURCE=W",
                    help="line: relative weight of a --base source within --base-share "
                         "(default 1 each; a base file's self-play games are the source "
                         "named after the file)")
    for name in ("iterations", "games", "steps", "batch_size", "buffer", "playouts",
                 "gate_pairs", "gate_playouts", "gate_tc_ms", "gate_openings", "threads",
                 "blocks", "channels"):
        rl.add_argument(f"--{name.replace('_', '-')}", type=int,
                        default=getattr(rl_defaults, name))
    rl.add_argument("--fast-playouts", type=positive_count, default=None, metavar="N",
                    help="line: playouts of self-play's short searches (the moves that "
                         "teach no policy; default that of selfplay)")
    rl.add_argument("--deep-side", type=positive_count, default=rl_defaults.deep_side, metavar="K",
                    help="line: one side of each self-play game (drawn) searches K times "
                         "the other's playouts (default %(default)s: both alike)")
    rl.add_argument("--gate-openings-file", default=None, metavar="FILE",
                    help="the gating matches' openings (15x15, e.g. from arena openings "
                         "judged by a strong engine, even at the gates' depth) instead of "
                         "--gate-openings drawn 3-stone ones; self-play leaves them out")
    rl.add_argument("--seed", type=int, default=None,
                    help="the seed of the run's games and gating openings (default: a new "
                         "run draws one and keeps it in OUT/state.json; a resumed run keeps "
                         "its own)")
    for name in ("lr", "weight_decay", "value_weight", "gate_score"):
        rl.add_argument(f"--{name.replace('_', '-')}", type=float,
                        default=getattr(rl_defaults, name))
    rl.add_argument("--gate-sprt", nargs=2, type=float, default=None,
                    metavar=("ELO0", "ELO1"),
                    help="gate by a sequential test (arena run --sprt) of ELO0 against ELO1, "
                         "played until it decides or --gate-pairs pairs are played; promote "
                         "when it accepts ELO1 (default: --gate-pairs pairs, promote at "
                         "--gate-score). A resumed run may change its gate settings")
    rl.add_argument("--cluster", metavar="ADDRESS", default=None,
                    help=CLUSTER_HELP + "; the gating matches run there too (arena --cluster)")

    pm = commands.add_parser(
        "patterns", help="fit the pattern model (priors and value of the search without a "
                         "network) to game records",
        description="Fit brain.eval.patternmodel's policy tables and value perceptron to game "
                    "records and teacher labels, and write the model file.")
    pm.add_argument("--out", required=True, help="model file to write, e.g. weights/patterns.npz")
    pm.add_argument("--sources", nargs="*", choices=list(SOURCES),
                    default=list(PATTERN_SOURCES),
                    help="game records to fit (none: the teacher data alone)")
    pm.add_argument("--teacher", nargs="+", default=[], metavar="FOLDER",
                    help="teacher run folders (python -m brain.train teach): their moves "
                         "and evaluations are fitted too")
    pm.add_argument("--teacher-outcome-weight", type=float,
                    default=defaults.teacher_outcome_weight,
                    help="share of a played-out outcome in a teacher position's value "
                         "target, where it has one (default: %(default)s)")
    pm.add_argument("--data-dir", default=None, help="the shared data folder")
    pm.add_argument("--max-games", type=int, default=None, help="games per source")
    pm.add_argument("--compare", default=None, metavar="MODEL",
                    help="a pattern-model file (e.g. weights/patterns.npz) to score on the "
                         "same held-out data; its figures are printed and kept in the "
                         "new file's metadata")
    pm.add_argument("--hidden", type=int, default=32, help="value perceptron width")
    pm.add_argument("--seed", type=int, default=0)

    ex = commands.add_parser("export", help="write a checkpoint as a numpy weights file")
    ex.add_argument("checkpoint", help="a .pt checkpoint, e.g. runs/sl1/best.pt")
    ex.add_argument("weights", help="the .npz weights file to write")
    return parser.parse_args(argv)


def add_teach_parser(commands: argparse._SubParsersAction) -> None:
    """The ``teach`` command; its settings are left out of the namespace unless given (a
    resumed run keeps its saved ones)."""
    from brain.train.teach import TeachConfig

    defaults = TeachConfig(out="")
    keep = argparse.SUPPRESS
    te = commands.add_parser(
        "teach", help="label positions with a teacher engine (resumes OUT)",
        description="Label positions of game records, random openings played out and "
                    "pbrain-zero self-play with a teacher brain's moves and evaluations, "
                    "into append-only shards in OUT. Re-run with the same --out to resume "
                    "(with the saved settings; only --positions, --minutes and --nice are "
                    "taken from the command line). See docs/network.md, 'Teacher data'.")
    te.add_argument("--out", required=True, help="run folder (e.g. under runs/)")
    te.add_argument("--teacher", default=keep,
                    help="the teacher's command line, split like a shell does")
    te.add_argument("--teacher-info", nargs="+", default=keep, metavar="KEY=VALUE",
                    help="more INFO lines for the teacher at every START")
    te.add_argument("--teacher-cwd", default=keep, help="the teacher's working directory")
    te.add_argument("--ms", dest="move_ms", type=int, default=keep,
                    help=f"the teacher's time per position (default {defaults.move_ms})")
    te.add_argument("--multipv", type=int, default=keep,
                    help="moves to score per position (Yixin-Board YXNBEST; default 1)")
    te.add_argument("--pause-ms", type=int, default=keep,
                    help=f"pause between a reply and the next request "
                         f"(default {defaults.pause_ms})")
    te.add_argument("--eval-scale", type=float, default=keep,
                    help="Rapfi's scaling_factor: winrate = sigmoid(eval / scale) "
                         f"(default {defaults.eval_scale:g})")
    te.add_argument("--rule", type=int, default=keep,
                    help="Gomocup rule of the labels: 0 freestyle (default), 1 exact five, "
                         "4 renju")
    te.add_argument("--sources", nargs="+", default=keep, metavar="NAME=WEIGHT",
                    help="position sources and their shares of the teacher's time: game "
                         f"files ({', '.join(SOURCES)}), openingsN, selfplayN, "
                         "arena:DIR (an arena run's games) "
                         f"(default {' '.join(defaults.sources)})")
    te.add_argument("--plies-per-game", type=int, default=keep,
                    help=f"positions per record game (default {defaults.plies_per_game})")
    te.add_argument("--max-games", type=int, default=keep,
                    help=f"games read per game file (default {defaults.max_games})")
    te.add_argument("--opening-stones", nargs="+", type=int, default=keep,
                    help="stones of the random openings (default 2 3 4 5)")
    te.add_argument("--opening-radius", type=int, default=keep,
                    help=f"their distance from the centre (default {defaults.opening_radius})")
    te.add_argument("--opening-balance", type=float, default=keep, metavar="W",
                    help="play out only the openings whose side to move the teacher rates "
                         "within W of an even game (|winrate - 0.5| <= W, e.g. 0.15; "
                         "default: all)")
    te.add_argument("--selfplay-playouts", type=int, default=keep,
                    help=f"playouts per self-play move (default {defaults.selfplay_playouts})")
    te.add_argument("--selfplay-weights", default=keep,
                    help="network of the self-play games (default: the pattern model)")
    te.add_argument("--outcomes", action="store_true", default=keep,
                    help="also play record and self-play positions to the end with the "
                         "teacher, for the value target (costs a game per position)")
    te.add_argument("--outcome-ms", type=int, default=keep,
                    help="the teacher's time per continuation move (default: --ms)")
    te.add_argument("--shard-positions", type=int, default=keep,
                    help=f"positions per shard (default {defaults.shard_positions})")
    te.add_argument("--flush-seconds", type=float, default=keep,
                    help=f"write a shard at least this often (default "
                         f"{defaults.flush_seconds:g})")
    te.add_argument("--seed", type=int, default=keep)
    te.add_argument("--data-dir", default=keep, help="the shared data folder")
    te.add_argument("--positions", type=int, default=None,
                    help="stop after storing this many more positions")
    te.add_argument("--minutes", type=float, default=None, help="stop after this long")
    te.add_argument("--nice", type=int, default=10,
                    help="raise the niceness of this process and the teacher (default 10)")


def add_linenet_parsers(commands: argparse._SubParsersAction) -> None:
    """The line-pattern network's commands: ``linenet-data`` and ``linenet``."""
    from brain.train.linenet import WIDENABLE, ModelConfig, RunConfig

    defaults, model = RunConfig(out=""), ModelConfig()
    ld = commands.add_parser(
        "linenet-data", help="samples for the line-pattern network (one .npz file)",
        description="Read game files and teacher runs into one sample file for "
                    "python -m brain.train linenet (docs/network.md, 'Line-pattern network').")
    ld.add_argument("--out", required=True, help="the sample file to write (.npz)")
    ld.add_argument("--sources", nargs="*", choices=list(SOURCES), default=[],
                    help="game files of the shared data folder")
    ld.add_argument("--teacher", nargs="*", default=[], metavar="FOLDER",
                    help="teacher runs (python -m brain.train teach)")
    ld.add_argument("--data-dir", default=None, help="the shared data folder")
    ld.add_argument("--max-games", type=int, default=None, help="games per source")

    ln = commands.add_parser(
        "linenet", help="train the line-pattern network (resumes OUT/last.pt)",
        description="Train the line-pattern network on sample files and export it to "
                    "OUT/linenet.npz; a run folder with last.pt resumes.")
    ln.add_argument("--out", required=True, help="run folder")
    ln.add_argument("--data", nargs="+", required=True, help="sample files (linenet-data)")
    ln.add_argument("--weight", nargs="*", default=[], type=source_weight, metavar="SOURCE=W",
                    help="sampling weight of a source (default 1 each): its share of the "
                         "batches is its weight over the sum of all sources' weights")
    ln.add_argument("--minutes", type=float, default=defaults.minutes)
    ln.add_argument("--steps", type=int, default=None, help="stop after this many steps")
    ln.add_argument("--batch-size", type=int, default=defaults.batch_size)
    ln.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    ln.add_argument("--teacher-weight", type=float, default=defaults.teacher_weight,
                    help="share of the teacher's winrate in the value target where a "
                         "result is known too")
    ln.add_argument("--initial", default=None, metavar="CHECKPOINT",
                    help="a checkpoint (weights/linenet-model.pt, an rl candidate's .pt, "
                         "a run's last.pt) whose model a new run starts from, with its "
                         "sizes; a run folder with last.pt resumes its own instead")
    for name, size in asdict(model).items():
        grows = (", or larger than --initial's: the run starts from it widened"
                 if name in WIDENABLE else "")
        ln.add_argument(f"--{name.replace('_', '-')}", type=int, default=None,
                        help=f"(default {size}{grows})")
    ln.add_argument("--device", default=None, help="torch device (default: cuda if any)")
    ln.add_argument("--seed", type=int, default=defaults.seed)


def _linenet_sizes(args: argparse.Namespace) -> ModelConfig:
    """The model's sizes: those of ``--initial``'s checkpoint, grown where a flag asks
    (``--dim``, ``--hidden``: the run starts from it widened), else the flags over the
    defaults."""
    from brain.train.linenet import ModelConfig, check_widening, sizes_of

    given = {size.name: getattr(args, size.name) for size in fields(ModelConfig)
             if getattr(args, size.name) is not None}
    if args.initial is None:
        return ModelConfig(**given)
    try:
        sizes = sizes_of(args.initial)
    except ValueError as exc:
        raise ValueError(f"--initial {exc}") from exc
    wanted = replace(sizes, **given)
    try:
        check_widening(sizes, wanted)
    except ValueError as exc:
        raise ValueError(f"the model of --initial {args.initial} has {sizes}: {exc}; "
                         f"leave that flag out") from exc
    return wanted


def linenet_main(args: argparse.Namespace) -> int:
    import logging

    from brain.train.data import DEFAULT_DATA_DIR
    from brain.train.linenet import RunConfig, build_samples, train_command

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.command == "linenet-data":
        try:
            store = build_samples(args.sources, Path(args.data_dir or DEFAULT_DATA_DIR),
                                  args.teacher, args.max_games)
        except (ValueError, OSError) as exc:
            print(f"python -m brain.train linenet-data: error: {exc}", file=sys.stderr)
            return 2
        store.save(args.out)
        print(f"wrote {args.out}: {len(store)} samples of {', '.join(store.sources)}")
        return 0
    weights = dict(args.weight)
    try:
        model = _linenet_sizes(args)
    except (ValueError, OSError) as exc:
        print(f"python -m brain.train linenet: error: {exc}", file=sys.stderr)
        return 2
    config = RunConfig(out=args.out, data=args.data, weights=weights, model=model,
                       initial=args.initial,
                       batch_size=args.batch_size, learning_rate=args.learning_rate,
                       minutes=args.minutes, steps=args.steps,
                       teacher_weight=args.teacher_weight, seed=args.seed)
    try:
        path = train_command(config, args.device)
    except ValueError as exc:
        print(f"python -m brain.train linenet: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command in ("linenet", "linenet-data"):
        return linenet_main(args)
    if args.command == "teach":
        from brain.train.teach import TeachConfig
        from brain.train.teach import main as teach

        settings = {k: v for k, v in vars(args).items()
                    if k not in ("command", "positions", "minutes", "nice")}
        return teach(TeachConfig(**settings), set(settings) - {"out"}, args.positions,
                     args.minutes, args.nice)
    if getattr(args, "cluster", None) is not None:
        from driver.cluster import ClusterUnavailable, import_ray

        try:
            import_ray()
        except ClusterUnavailable as exc:
            print(f"python -m brain.train: error: {exc}", file=sys.stderr)
            return 2
    if args.command == "export":
        from brain.train.export import export_checkpoint

        metadata = export_checkpoint(args.checkpoint, args.weights)
        print(f"wrote {args.weights}: {metadata.architecture}, "
              f"step {metadata.training.get('steps')}")
        return 0

    if args.command == "patterns":
        import json

        from brain.eval.patternmodel import PatternModel
        from brain.train.data import DEFAULT_DATA_DIR
        from brain.train.patterns import fit
        from brain.train.teachdata import TargetSettings

        try:
            compare = PatternModel.load(args.compare) if args.compare else None
            model = fit(args.sources,
                        Path(args.data_dir) if args.data_dir else DEFAULT_DATA_DIR,
                        args.max_games, hidden=args.hidden, seed=args.seed,
                        teacher=args.teacher, teacher_settings=TargetSettings(
                            outcome_weight=args.teacher_outcome_weight), compare=compare)
        except (ValueError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        model.save(args.out)
        print(f"wrote {args.out}: {json.dumps(model.metadata['metrics'])}")
        if compare is not None:
            print(f"{args.compare} on the same held-out data: "
                  f"{json.dumps(model.metadata['compared'])}")
        return 0

    if args.command == "selfplay":
        return _selfplay(args)
    if args.command == "replay-merge":
        return _replay_merge(args)
    if args.command == "adjudicate":
        return _adjudicate(args)
    if args.command == "rl":
        import logging

        from brain.train.reinforce import RlConfig
        from brain.train.reinforce import run as run_rl

        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
        from brain.game.openings import OpeningFileError
        from brain.train.selfplay import SettingsMismatch

        if args.gate_openings_file and not Path(args.gate_openings_file).is_file():
            print(f"python -m brain.train rl: error: no opening file "
                  f"{args.gate_openings_file} (--gate-openings-file)", file=sys.stderr)
            return 2
        if (args.fast_playouts, args.deep_side) != (None, 1) and args.network != "line":
            print("python -m brain.train rl: error: --fast-playouts and --deep-side are for "
                  "--network line", file=sys.stderr)
            return 2
        options = {k: v for k, v in vars(args).items() if k not in ("command", "cluster")}
        options["base_weights"] = dict(args.base_weights)
        try:
            if args.base_weights:
                from brain.train.linerl import base_sources, check_base_weights

                check_base_weights(base_sources(args.base), options["base_weights"])
            state = run_rl(RlConfig(**options), cluster=args.cluster)
        except (SettingsMismatch, OpeningFileError, ValueError, OSError) as exc:
            print(f"python -m brain.train rl: error: {exc}", file=sys.stderr)
            return 2
        print(f"{args.out}: {state.iteration} iterations, best player {state.best}")
        return 0

    from brain.train.supervised import TrainConfig, run

    options = {k.replace("-", "_"): v for k, v in vars(args).items() if k != "command"}
    epochs = options.pop("epochs")
    config = TrainConfig(**options, epochs=epochs if epochs is not None else 1.0)
    run(config, epochs_override=epochs)
    return 0


def _replay_merge(args: argparse.Namespace) -> int:
    """``replay-merge``: line self-play folders into one, less a gate's openings."""
    from brain.game.openings import OpeningFileError, load_openings
    from brain.train.lineplay import merge_replays
    from brain.train.selfplay import SettingsMismatch, opening_keys

    try:
        excluded = (opening_keys(load_openings(args.exclude, width=15)) if args.exclude
                    else frozenset())
        log = merge_replays([Path(s) for s in args.sources], Path(args.out), args.seed,
                            excluded)
    except (OSError, OpeningFileError, SettingsMismatch) as exc:
        print(f"python -m brain.train replay-merge: error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {log.games} games, {log.samples} samples in {log.chunks} chunks")
    return 0


def _adjudicate(args: argparse.Namespace) -> int:
    """``adjudicate``: a sample file's results by a judge's first proven win."""
    import shlex
    import time

    from brain.train.adjudicate import AdjudicationMismatch, adjudicate
    from driver.teacher import TeacherConfig, TeacherError

    began = time.monotonic()

    def progress(done: int, total: int) -> None:
        if done % 50 == 0 or done == total:
            print(f"adjudicate: {done}/{total} games, {time.monotonic() - began:.0f} s",
                  file=sys.stderr, flush=True)

    judge = TeacherConfig(tuple(shlex.split(args.teacher)), move_ms=args.teacher_ms)
    try:
        report = adjudicate(Path(args.samples), Path(args.out), judge, args.workers,
                            tuple(args.rules), progress)
    except (AdjudicationMismatch, TeacherError, OSError, ValueError) as exc:
        print(f"python -m brain.train adjudicate: error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}/samples.npz: {report.games} games judged, a win proven in "
          f"{report.proofs}; {report.changed_games} results changed "
          f"({report.changed_samples} samples)")
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    """``selfplay``: games of one network's search into a replay folder, drawn from the
    folder's seed, with the settings of the games it holds."""
    from brain.catalog import LINE_NETWORK_FILE
    from brain.resources import weights_dir
    from brain.train.cluster import cluster_games, connect_cluster
    from brain.train.lineplay import LinePlayConfig, local_games, write_games
    from brain.train.selfplay import (
        HEURISTIC,
        SelfPlayConfig,
        SettingsMismatch,
        best_evaluator,
        folder_seed,
        generate,
        record_games,
        weights_identity,
        write_chunk,
    )

    error = "python -m brain.train selfplay: error:"
    settings: dict[str, Any]
    make: type[SelfPlayConfig] | type[LinePlayConfig]
    if args.network == "conv":
        line_only = (args.sample_plies, args.temperature, args.fast_playouts, args.deep_side)
        if line_only != (None,) * len(line_only):
            print(f"{error} --sample-plies, --temperature, --fast-playouts and --deep-side "
                  "are for --network line", file=sys.stderr)
            return 2
        best = args.weights or HEURISTIC
        settings = {"playouts": args.playouts or 160}
        make, write = SelfPlayConfig, write_chunk
    else:
        best = args.weights or str(weights_dir() / LINE_NETWORK_FILE)
        defaults = LinePlayConfig()
        settings = {
            "playouts": args.playouts or defaults.playouts,
            "fast_playouts": args.fast_playouts or defaults.fast_playouts,
            "deep_side": args.deep_side or defaults.deep_side,
            "sample_plies": (defaults.sample_plies if args.sample_plies is None
                             else args.sample_plies),
            "temperature": tuple(args.temperature or defaults.temperature)}
        make, write = LinePlayConfig, write_games
    out = Path(args.out)
    try:
        seed = folder_seed(out, args.seed, {"network": args.network,
                                            "weights": weights_identity(best), **settings})
    except (SettingsMismatch, OSError) as exc:
        print(f"{error} {exc}", file=sys.stderr)
        return 2
    config = make(seed=seed, **settings)
    if args.cluster is not None:
        with connect_cluster(args.cluster):
            log = record_games(cluster_games(best, config), out, args.games, write=write)
    elif isinstance(config, SelfPlayConfig):
        log = generate(best_evaluator(best), out, args.games, config)
    else:
        log = record_games(local_games(best, config), out, args.games, write=write)
    print(f"{args.out}: {log.games} games, {log.samples} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
