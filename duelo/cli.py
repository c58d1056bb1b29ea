"""The `duelo` command: list the systems (`systems`), watch or play a narrated duel
(`duel`, `play`), rank policies (`tournament`), measure how far they stand from the
best play (`solve`, `exploit`), plan how many duels a pairing needs (`plan`), make
and ship brains (`train`, `export`, `onnx`, `serve`) and time the engines (`bench`);
`duelo COMMAND --help` says more."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import yaml

from duelo import __version__
from duelo.agents.brain import shipped_brains
from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.policy import Policy
from duelo.envs.core.referee import summary
from duelo.envs.core.runner import DICE_KINDS, line_up, play_duel
from duelo.envs.fast import ENGINES
from duelo.evaluation.exploit import with_exact_figures
from duelo.evaluation.progress import ProgressLine
from duelo.evaluation.report import (
    build_report,
    plots_available,
    render,
    setup_label,
    write_outputs,
)
from duelo.evaluation.stats import PRIOR, duels_needed
from duelo.evaluation.tournament import (
    BACKENDS,
    BLOCK,
    MAX_DUELS,
    SPEC_FILE,
    TournamentSpec,
    canonical_policies,
    check_engine,
    default_seed,
    default_suite,
    run_tournament,
    sequential_line,
    shared_pools,
    writing_folder,
)
from duelo.play import LeftTheTable, play
from duelo.registration import SYSTEMS, describe_systems, system
from duelo.yardstick import print_exploit, print_solve


class DefaultsShown(argparse.HelpFormatter):
    """`--help` says each option's default, where its help does not already."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        quiet = action.default in (None, False, [], argparse.SUPPRESS)
        if quiet or not action.option_strings or "default" in text:
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (and exit status 2), and whose
    `--help` shows the defaults."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in {low}..{high}, not {text!r}")
        return value

    return parse


def fighter_choice(text: str) -> int | str:
    """`--fighter`: a slot of the side, or "all" for every fighter of it."""
    if text == "all":
        return text
    try:
        return bounded_int(0, 63)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be 0..63 or all, not {text!r}") from None


def prior_wins(text: str) -> float:
    """`--prior`: Bradley-Terry's virtual wins each way, a finite number in 0..1000."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1000:  # NaN fails too
        raise argparse.ArgumentTypeError(f"must be a number in 0..1000, not {text!r}")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def option(text: str) -> tuple[str, Any]:
    """KEY=VALUE, the value read as YAML (so 12, true and agent are an int, a bool, a string)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"must be KEY=VALUE, not {text!r}")
    try:
        return key, yaml.safe_load(value)
    except yaml.YAMLError:
        raise argparse.ArgumentTypeError(f"{text!r}: the value is not readable") from None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: 0 when done, 2 for a bad input (a message naming it, never a
    traceback), 130 for Ctrl-C (with how to resume)."""
    args = build_parser(os.cpu_count() or 1).parse_args(argv)
    try:
        COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print(f"\nduelo: interrupted{RESUME_HINTS.get(args.command, '')}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped reading (`duelo systems | head`): quietly
        with contextlib.suppress(OSError, ValueError):  # Python's flush at exit, too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, OSError) as error:  # ConfigError and BrainError are ValueErrors
        print(f"duelo: error: {error}", file=sys.stderr)
        return 2
    return 0


def build_parser(cores: int) -> Parser:
    """Every subcommand and its arguments; `cores` bounds a tournament's workers."""
    parser = Parser(prog="duelo", description=__doc__)
    parser.add_argument("--version", action="version", version=f"duelo {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    ruled = [*_add_table_commands(commands), _add_tournament(commands, cores)]
    ruled += _add_yardsticks(commands)
    for command in ruled:  # every command that plays the system's rules
        command.add_argument(
            "--option",
            type=option,
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a rules option of the system (repeatable; `duelo systems` lists them)",
        )
    _add_brain_commands(commands)
    _add_plan(commands)
    return parser


def _add_plan(commands: Any) -> None:
    plan = commands.add_parser(
        "plan", help="how many duels a pairing needs to tell a given edge from chance"
    )
    plan.add_argument(
        "--gap", type=float, required=True, help="the score's distance from 0.5 to detect"
    )
    plan.add_argument("--power", type=float, default=0.8, help="chance to detect it")
    plan.add_argument("--draws", type=float, default=0.0, help="the share of drawn duels")
    plan.add_argument("--level", type=float, default=0.05, help="the test's level")
    plan.add_argument(
        "--pairings",
        type=bounded_int(1, 10**6),
        default=1,
        help="pairings compared at once (Holm's strictest step: level / pairings)",
    )


def _add_table_commands(commands: Any) -> list[Parser]:
    """systems, duel and play: what a newcomer runs first."""
    systems = commands.add_parser(
        "systems", help="list the combat systems, env ids, actions, observations and options"
    )
    systems.add_argument(
        "--json", action="store_true", help="as JSON, every observation entry named"
    )
    systems.add_argument(
        "--verbose", action="store_true", help="each option's choices, each observation's meaning"
    )
    duel = commands.add_parser("duel", help="print one narrated duel, every die shown")
    duel.add_argument("system", choices=sorted(SYSTEMS))
    duel.add_argument("--a", default="random", help="policy of side A (seat 0)")
    duel.add_argument("--b", default="random", help="policy of side B (seat 1)")
    duel.add_argument("--seed", type=bounded_int(0, 2**63 - 1), default=0)
    duel.add_argument("--scenario", help="the system's scenario (default: its first)")
    duel.add_argument(
        "--fighters",
        nargs="+",
        metavar="ID",
        help="character ids, side A's first (a skirmish: one a fighter)",
    )
    duel.add_argument(
        "--explain",
        action="store_true",
        help="under each decision, what the deciding policy weighed (brains and experts)",
    )
    table = commands.add_parser("play", help="play a duel against an NPC at the terminal")
    table.add_argument("system", choices=sorted(SYSTEMS))
    table.add_argument("--vs", default="expert", help="the NPC's policy (default: expert)")
    table.add_argument("--side", choices=("A", "B"), default="A", help="the side you play")
    table.add_argument(
        "--fighter",
        type=fighter_choice,
        default=0,
        help="which fighter of your side you play, in slot order (a skirmish; the NPC plays "
        "the rest of your side), or 'all': every fighter of your side",
    )
    table.add_argument(
        "--seed",
        type=bounded_int(0, 2**63 - 1),
        help="the duel's seed (default: the first from 0 where you get a move)",
    )
    table.add_argument("--scenario", help="the system's scenario (default: its first)")
    table.add_argument(
        "--fighters",
        nargs="+",
        metavar="ID",
        help="character ids, side A's first (a skirmish: one a fighter)",
    )
    return [duel, table]


def _add_tournament(commands: Any, cores: int) -> Parser:
    tournament = commands.add_parser(
        "tournament", help="round-robin of policies with Wilson intervals and Elo ratings"
    )
    tournament.add_argument("--system", nargs="+", choices=sorted(SYSTEMS), help="default: all")
    tournament.add_argument(
        "--policies", nargs="+", help="policy names (default: every scripted NPC of the system)"
    )
    tournament.add_argument(
        "--duels",
        type=bounded_int(2, MAX_DUELS),
        help=(
            f"per pairing, seats swapped (an even number up to {MAX_DUELS}; default: the "
            "system's: 2000 for a duel, 50 to 250 for a skirmish)"
        ),
    )
    tournament.add_argument(
        "--seed",
        type=bounded_int(0, 2**128 - 1),
        help="the root seed (default 0; drawn from entropy where a module:Class policy plays)",
    )
    tournament.add_argument(
        "--workers",
        type=bounded_int(1, cores),
        default=min(2, cores),
        help=f"worker processes (1..{cores}, the cores here)",
    )
    tournament.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where duels run: local processes, or a Ray cluster (extra: ray); same results",
    )
    tournament.add_argument(
        "--address", help="with --backend ray: a running cluster (ray start), else one is started"
    )
    tournament.add_argument(
        "--engine",
        choices=ENGINES,
        default="python",
        help="fast: play duels in batches in the compiled engine (extra: fast; Infierno and "
        "the fencing duel, in-process policies); same results",
    )
    tournament.add_argument(
        "--dice",
        choices=DICE_KINDS,
        help="keyed (default): each die keyed by whose move, round and purpose it is, so a "
        "game's two seat orders share their luck; stream: one stream a duel (the default, "
        "and the only kind, of --engine fast)",
    )
    tournament.add_argument(
        "--out",
        type=Path,
        default=Path("duelo-tournament"),
        help="the folder of results and reports",
    )
    tournament.add_argument("--resume", action="store_true", help="continue an interrupted run")
    tournament.add_argument(
        "--until-decided",
        action="store_true",
        help="play each pairing in blocks and stop it once a sequential test calls it "
        "(5 %% level, valid at every look); --duels is then its budget",
    )
    tournament.add_argument(
        "--block",
        type=bounded_int(2, MAX_DUELS),
        help="with --until-decided: duels a block, an even number (default 100, at most --duels)",
    )
    tournament.add_argument(
        "--prior",
        type=prior_wins,
        default=PRIOR,
        help="Bradley-Terry's virtual wins each way a pairing (default: 1; 0 fits the table alone)",
    )
    tournament.add_argument("--scenario", help="a scenario of the system (default: its first)")
    tournament.add_argument("--move-time-limit", type=seconds, default=1.0, help="seconds")
    tournament.add_argument("--quiet", action="store_true", help="no progress bar")
    tournament.add_argument(
        "--exact",
        action="store_true",
        help="add the solver's exact scores and gaps to optimal, where it can walk the duel",
    )
    return tournament


def _add_yardsticks(commands: Any) -> list[Parser]:
    """solve and exploit: how far a policy stands from the best play."""
    solver = commands.add_parser(
        "solve", help="exact value of a small duel, and each policy's distance from it"
    )
    solver.add_argument("system", choices=sorted(SYSTEMS))
    solver.add_argument(
        "--policies", nargs="*", help="policies to score (default: the system's scripted NPCs)"
    )
    solver.add_argument(
        "--check",
        type=bounded_int(0, 10**7),
        default=0,
        help="also play this many duels of optimal play (a Monte Carlo check of the value)",
    )
    exploit = commands.add_parser(
        "exploit", help="a policy's exploitability: exact, else a trained best response"
    )
    exploit.add_argument("policy")
    exploit.add_argument("--system", choices=sorted(SYSTEMS), required=True)
    exploit.add_argument(
        "--steps", type=bounded_int(1, 10**12), default=500_000, help="best-response training"
    )
    exploit.add_argument(
        "--duels",
        type=bounded_int(2, MAX_DUELS),
        default=2000,
        help="seat-swapped duels of the best response against the policy",
    )
    exploit.add_argument(
        "--out", type=Path, default=Path("duelo-exploit"), help="the best response's run"
    )
    exploit.add_argument(
        "--train",
        action="store_true",
        help="train a best response without walking the duel first",
    )
    # exploit falls back on training where the walk stops: it walks no more than --exact
    for command, states, walk_seconds, which in (
        (solver, 2_000_000, 3600.0, "its first"),
        (exploit, EXACT_MAX_STATES, EXACT_MAX_SECONDS, "every setup of the system's suite"),
    ):
        command.add_argument("--scenario", help=f"a scenario of the system (default: {which})")
        command.add_argument("--fighters", nargs=2, metavar=("A", "B"), help="character ids")
        command.add_argument(
            "--max-states", type=bounded_int(1, 10**9), default=states, help="walk no further"
        )
        command.add_argument(
            "--max-seconds", type=seconds, default=walk_seconds, help="walk no longer"
        )
    return [solver, exploit]


def _add_brain_commands(commands: Any) -> None:
    """train, export, serve, onnx and bench."""
    train = commands.add_parser("train", help="train a brain with MaskablePPO (extra: train)")
    train.add_argument("--config", type=Path, required=True, help="configs/training/SYSTEM.yaml")
    train.add_argument("--timesteps", type=bounded_int(1, 10**12), help="override n_timesteps")
    train.add_argument("--seed", type=bounded_int(0, 2**32 - 1), help="override the seed")
    train.add_argument("--out", type=Path, default=Path("runs/latest"), help="run directory")
    train.add_argument(
        "--resume", action="store_true", help="continue a killed run in --out, with its settings"
    )
    train.add_argument(
        "--engine",
        choices=ENGINES,
        default="python",
        help="fast: step the envs in the compiled batched engine (extra: fast; the random "
        "opponent, one scenario, no self-play)",
    )
    export = commands.add_parser("export", help="turn a training run into a brain folder")
    export.add_argument("run", type=Path, help="the run directory of duelo train")
    export.add_argument("--out", type=Path, required=True, help="e.g. brains/NAME")
    export.add_argument(
        "--best", action="store_true", help="the best-evaluated brain of the run, not the last"
    )
    serve = commands.add_parser(
        "serve", help="brains behind a local HTTP API, and the table at /table (extra: serve)"
    )
    serve.add_argument(
        "--brain", nargs="+", default=[], help="brains to load: shipped names or folders"
    )
    serve.add_argument("--host", default="127.0.0.1", help="default: loopback only")
    serve.add_argument("--port", type=bounded_int(1, 65535), default=8000, help="to listen on")
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        help="a Host header to answer besides the loopback names and --host (repeatable); "
        "others get 400, which keeps web pages out through DNS rebinding",
    )
    serve.add_argument(
        "--tournament",
        type=Path,
        help="a finished tournament's --out folder, whose reports and duels the page at "
        "/table shows",
    )
    onnx = commands.add_parser("onnx", help="write a brain as one ONNX file (extra: onnx)")
    onnx.add_argument("brain", help="a brain folder, or a shipped brain's name")
    onnx.add_argument("--out", type=Path, required=True, help="e.g. infierno.onnx")
    bench = commands.add_parser("bench", help="speed against references timed in the same run")
    bench.add_argument("--quick", action="store_true", help="tiny measurements (CI smoke run)")
    bench.add_argument("--out", type=Path, help="also write the figures as JSON here")


def _systems(args: argparse.Namespace) -> None:
    if args.json:
        print(json.dumps(describe_systems(), indent=2))
    else:
        print_systems(args.verbose)


def _duel(args: argparse.Namespace) -> None:
    variant = duel_variant(args.system, args.scenario, args.fighters, args.option)
    print_duel(args.system, args.a, args.b, args.seed, variant, args.explain)


def _play(args: argparse.Namespace) -> None:
    variant = duel_variant(args.system, args.scenario, args.fighters, args.option)
    sides = system(args.system).ruleset(**variant).sides
    side = "AB".index(args.side)
    seats = [seat for seat, each in enumerate(sides) if each == side]
    if args.fighter != "all" and args.fighter >= len(seats):
        raise ValueError(
            f"--fighter {args.fighter}: side {args.side} has {len(seats)} fighter(s) here, "
            f"0..{len(seats) - 1} or all"
        )
    yours = tuple(seats) if args.fighter == "all" else (seats[args.fighter],)
    try:
        play(args.system, args.vs, args.seed, yours, variant, sys.stdin, sys.stdout)
    except LeftTheTable:
        print("\nYou left the table.")


def _solve(args: argparse.Namespace) -> None:
    variant = duel_variant(args.system, args.scenario, args.fighters, args.option)
    policies = policy_names(args.system) if args.policies is None else args.policies
    print_solve(
        args.system, variant, policies, args.max_states, args.max_seconds, args.check, sys.stdout
    )


def _exploit(args: argparse.Namespace) -> None:
    """Every setup of the system's suite (`System.suite`, the --option values laid over
    each) unless --scenario or --fighters names one duel; a best response of its own in
    a folder of its own under --out for each."""
    options = {"options": dict(args.option)} if args.option else {}
    suite = () if args.scenario or args.fighters else default_suite(args.system, options)
    setups = [(setup_label(v), v) for v in suite] or [
        ("", duel_variant(args.system, args.scenario, args.fighters, args.option))
    ]
    if missing := missing_module(TRAIN_MODULES):  # said before the walk, which may be long
        print(
            f"duelo exploit: without the train extra ({missing} is not installed) only an "
            "exact answer can be given; pip install 'duelo[train]' for a best response where "
            "the walk stops",
            file=sys.stderr,
        )
    with train_extra("exploit"):
        for label, variant in setups:
            if label:
                print(f"== {args.system}: {label}")
            print_exploit(
                args.policy,
                args.system,
                variant,
                args.steps,
                args.duels,
                args.out / re.sub(r"[^\w.=-]+", "_", label) if label else args.out,
                args.max_states,
                args.max_seconds,
                sys.stdout,
                train=args.train,
            )


def _plan(args: argparse.Namespace) -> None:
    duels = duels_needed(args.gap, args.power, args.draws, args.level, args.pairings)
    print(
        f"{duels:,} duels a pairing: the sign test at {args.level:g}"
        + (f" over {args.pairings} pairings (Holm)" if args.pairings > 1 else "")
        + f" finds a score of {0.5 + args.gap:.10g} against 0.5 with chance {args.power:g}"
        + (f", {args.draws:.0%} of the duels drawn" if args.draws else "")
    )
    if duels > MAX_DUELS:
        print(f"more than a tournament plays a pairing (--duels at most {MAX_DUELS:,})")


def _export(args: argparse.Namespace) -> None:
    with train_extra("export"):
        from duelo.training.train import export_run

        print(f"wrote {export_run(args.run, args.out, best=args.best)}")


def _bench(args: argparse.Namespace) -> None:
    from duelo.benchmarks.suite import render_table, run_benchmarks

    results = run_benchmarks(quick=args.quick)
    print(render_table(results), end="")
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


EXACT_MAX_STATES = 500_000
EXACT_MAX_SECONDS = 600.0
"""How far `duelo tournament --exact` walks a duel before it reports without exact figures."""

RESUME_HINTS = {
    "tournament": "; the finished duels are kept: run the same command with --resume",
    "train": "; the last checkpoint is kept: run the same command with --resume",
}


@contextmanager
def train_extra(command: str) -> Iterator[None]:
    """Say which extra to install when the training libraries are missing."""
    try:
        yield
    except ModuleNotFoundError as error:
        if error.name not in TRAIN_MODULES:
            raise
        raise ValueError(
            f"duelo {command} needs the train extra: pip install 'duelo[train]' "
            f"({error.name} is not installed)"
        ) from None


TRAIN_MODULES = ("stable_baselines3", "sb3_contrib", "torch")


def missing_module(names: Sequence[str]) -> str | None:
    """The first of `names` that cannot be imported here, found without importing it."""
    return next((name for name in names if importlib.util.find_spec(name) is None), None)


def run_server(
    brains: list[str], host: str, port: int, allowed: list[str], tournament: Path | None = None
) -> None:
    try:
        import uvicorn

        from duelo.serve import LOOPBACK_HOSTS, create_app
    except ModuleNotFoundError as error:
        if error.name not in ("fastapi", "uvicorn", "pydantic"):
            raise
        raise ValueError("duelo serve needs the serve extra: pip install 'duelo[serve]'") from None
    named = [] if host in ("0.0.0.0", "::") else [f"[{host}]" if ":" in host else host]
    app = create_app(brains, [*LOOPBACK_HOSTS, *named, *allowed], tournament)
    uvicorn.run(app, host=host, port=port)


def write_onnx(brain: str, out: Path) -> None:
    try:
        from duelo.agents.onnx_export import export_onnx
    except ModuleNotFoundError as error:
        if error.name != "onnx":
            raise
        raise ValueError("duelo onnx needs the onnx extra: pip install 'duelo[onnx]'") from None
    print(f"wrote {export_onnx(brain, out)}")


def run_training(args: argparse.Namespace) -> None:
    with train_extra("train"):
        from duelo.training.settings import load_settings
        from duelo.training.train import train

        settings = load_settings(args.config).with_overrides(
            n_timesteps=args.timesteps, seed=args.seed
        )
        print(f"wrote {train(settings, args.out, resume=args.resume, engine=args.engine)}")


def duel_variant(
    name: str,
    scenario: str | None,
    fighters: Sequence[str] | None,
    options: Sequence[tuple[str, Any]],
) -> dict[str, Any]:
    """The ruleset variant the flags ask for, checked as the env checks it."""
    info = system(name)
    variant: dict[str, Any] = {}
    if scenario is not None and not info.scenarios:
        raise ValueError(f"--scenario: {name} has no scenarios")
    if info.scenarios:
        variant["scenario"] = scenario or info.scenarios[0]
    if fighters:
        variant["fighters"] = tuple(fighters)
    if options:
        variant["options"] = dict(options)
    info.check_variant(variant, f"{name}")
    return variant


WIDTH = 100
"""Columns `duelo systems` fills."""


def print_systems(verbose: bool = False) -> None:
    """Each system at 100 columns: its ids, scenarios, policies, options and actions in
    words; `verbose` adds each option's choices and each observation key's meaning."""
    for info in SYSTEMS.values():
        ruleset = info.ruleset()
        print(f"{info.id}: {info.game}")
        _wrapped("env ids", ", ".join(info.env_ids))
        _wrapped("scenarios", ", ".join(info.scenarios) or "-")
        _wrapped("policies", ", ".join(policy_names(info.id)))
        if verbose:
            print("  options (--option KEY=VALUE; gym.make(..., options={...})):")
            for line in info.option_lines():
                _wrapped("", line, indent=4)
        else:
            _wrapped("options", ", ".join(info.option_lines(choices=False)))
        print("  actions:")
        for action in ruleset.actions:
            said = ruleset.action_meanings[int(action)]
            _wrapped("", f"{int(action):>2} {action.name:<22} {said}", indent=4, hang=30)
        spec = ruleset.observation_spec
        if verbose:
            print(f"  observation ({spec.size} floats):")
            for key in spec.keys:
                shape = "x".join(map(str, key.shape))
                bounds = f"[{key.low:g}, {key.high:g}]"
                _wrapped("", f"{key.name} ({shape}, {bounds}): {key.meaning}", indent=4, hang=6)
        else:
            names = ", ".join(key.name for key in spec.keys)
            _wrapped("observation", f"{spec.size} floats: {names}")
        print()
    if not verbose:
        print("duelo systems --verbose: each option's choices and each observation's meaning")


def _wrapped(label: str, text: str, indent: int = 2, hang: int | None = None) -> None:
    """`label: text` wrapped at `WIDTH`, later lines under the text (or at `hang`)."""
    head = f"{' ' * indent}{label + ': ' if label else ''}"
    rest = " " * (len(head) if hang is None else hang)
    print(textwrap.fill(text, WIDTH, initial_indent=head, subsequent_indent=rest))


def print_duel(
    name: str,
    policy_a: str | Policy,
    policy_b: str | Policy,
    seed: int,
    variant: dict[str, Any],
    explain: bool = False,
) -> None:
    """One narrated duel; with `explain`, the narration comes as it happens and, under
    each decision of a policy that can say so (`explain(observation, mask)`: brains and
    the experts that weigh values), what it weighed."""
    ruleset = system(name).ruleset(**variant)
    sides = (make_policy(policy_a, name, variant), make_policy(policy_b, name, variant))
    print(f"Side A: {sides[0].name} ({policy_a}); side B: {sides[1].name} ({policy_b})")
    policies = line_up(ruleset, *sides)
    told = 0

    def narrate(state: Any) -> None:
        nonlocal told
        for event in state.log[told:]:
            print(event.text)
        told = len(state.log)

    def watch(state: Any, seat: int, observation: Any, mask: Any) -> None:
        narrate(state)
        reasons = getattr(policies[seat], "explain", None)
        try:  # someone else's policy: its explanation may fail, the duel goes on
            why = summary(str(reasons(observation, mask))) if reasons is not None else ""
        except Exception as error:  # noqa: BLE001
            why = summary(f"its explain raised {type(error).__name__}: {error}")
        if why:
            side = "AB"[ruleset.sides[seat]]
            print(f"    [{policies[seat].name}, side {side}: {why}]")

    limit = TournamentSpec.move_time_limit  # a move's limit, as in a tournament
    result = play_duel(ruleset, policies, seed, limit, watch=watch if explain else None)
    narrate(result.state)
    outcome = result.outcome
    winner = "draw" if outcome.winner is None else f"side {'AB'[outcome.winner]} wins"
    print(f"Result: {winner} ({outcome.reason}) after {result.decisions} decisions")


def run_tournaments(args: argparse.Namespace) -> None:
    """One tournament per system, then the combined report files. Every flag is checked
    before the first duel, and nothing is written until one is played."""
    check_out_folder(args.out)
    if args.address and args.backend != "ray":
        raise ValueError("--address names a Ray cluster: it needs --backend ray")
    if args.block is not None and not args.until_decided:
        raise ValueError("--block sizes the blocks of --until-decided: pass both")
    specs = []
    for name in args.system or list(SYSTEMS):
        # no --scenario: the system's suite of setups, the --option values laid over each
        options = {"options": dict(args.option)} if args.option else {}
        suite = () if args.scenario else default_suite(name, options)
        variant = {} if suite else duel_variant(name, args.scenario, None, args.option)
        policies = canonical_policies(
            name,
            args.policies or [*policy_names(name), *shipped_brains(name, options or variant)],
            suite[0] if suite else variant,
        )
        duels = args.duels or SYSTEMS[name].duels
        block = min(args.block or BLOCK, duels) if args.until_decided else None
        specs.append(
            TournamentSpec(
                system=name,
                policies=policies,
                duels=duels,
                block=block,
                seed=default_seed(policies) if args.seed is None else args.seed,
                variant=variant,
                move_time_limit=args.move_time_limit,
                suite=suite,
                dice=args.dice or ("stream" if args.engine == "fast" else "keyed"),
            )
        )
    if args.engine == "fast":
        for spec in specs:
            check_engine(spec)
    if args.resume and not any((args.out / spec.system / SPEC_FILE).exists() for spec in specs):
        raise ValueError(
            f"--resume: {args.out} holds no tournament to resume (run without --resume to "
            "start one)"
        )
    with writing_folder(args.out), shared_pools(args.workers if args.backend == "local" else 1):
        reports = []
        for spec in specs:
            progress = (
                None
                if args.quiet or not sys.stderr.isatty()
                else ProgressLine(spec.system, "duels")
            )
            records = run_tournament(
                spec,
                args.out / spec.system,
                args.workers,
                args.resume,
                progress,
                args.backend,
                args.address,
                args.engine,
            )
            report = build_report(records, list(spec.policies), args.seed or 0, args.prior)
            if args.exact and spec.suite:
                print(f"no exact figures: {spec.system} plays a suite; name a --scenario")
            elif args.exact:
                report, line = with_exact_figures(
                    report, spec.variant, EXACT_MAX_STATES, EXACT_MAX_SECONDS
                )
                print(line)
            print(render(report))
            if spec.block is not None:
                print(sequential_line(records, spec))
            reports.append(report)
        for path in write_outputs(reports, args.out):
            print(f"wrote {path}")
    if not plots_available():
        print("heatmaps skipped: matplotlib is not installed (pip install 'duelo[plots]')")


def check_out_folder(out: Path) -> None:
    """Refuse an --out that is a file, or that cannot be made or written here."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out: {out} is a file, not a folder")
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"--out: {existing} is a file, so {out} cannot be made")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"--out: {existing} is not writable")


def _serve(args: argparse.Namespace) -> None:
    run_server(args.brain, args.host, args.port, args.allowed_host, args.tournament)


def _onnx(args: argparse.Namespace) -> None:
    write_onnx(args.brain, args.out)


COMMANDS: dict[str, Callable[[argparse.Namespace], None]] = {
    "systems": _systems,
    "duel": _duel,
    "play": _play,
    "tournament": run_tournaments,
    "train": run_training,
    "solve": _solve,
    "exploit": _exploit,
    "export": _export,
    "serve": _serve,
    "onnx": _onnx,
    "bench": _bench,
    "plan": _plan,
}
"""Each subcommand's handler; `main` turns their errors into messages and exit codes."""


if __name__ == "__main__":
    raise SystemExit(main())
