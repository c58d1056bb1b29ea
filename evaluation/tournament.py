"""Round-robin tournaments of policies, streamed to an append-only JSONL file.

Every pairing plays `duels` duels: `duels / 2` seeds, each played twice with the
seats swapped; in a suite of setups (scenarios, variants), game g plays setup g
mod n. A duel's seed comes from `numpy.random.SeedSequence` keyed by the
tournament seed, the system, the two policy names and the game number, so any
duel replays alone from its record, and adding a policy changes no other seed.

Records are written in schedule order whatever the worker count, so the same
seed gives a byte-identical file. A killed run resumes from its file: finished
duels are kept, a half-written last line is dropped, and the rest is played.

Fair play against policies from someone's module (`module:Class`, sandboxed):
- a tournament with one and no seed given draws its root seed from the operating
  system's entropy (`secrets`): no policy can search it, and so none can rebuild
  the duel seeds, which a small seed would give away. It is kept in the results
  folder (which sandboxes cannot see) and written to `tournament.json` once every
  duel is played, so each duel replays afterwards;
- each record carries an HMAC under a key derived from the root seed (`mac`), and a
  resume refuses a record whose HMAC fails, or whose outcome contradicts itself.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import importlib.util
import itertools
import json
import multiprocessing
import os
import secrets
import signal
import sys
import threading
import warnings
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, TextIO

import numpy as np

from duelo.agents.registry import check_policy, is_imported
from duelo.envs.core import bounded_json
from duelo.envs.core.referee import summary
from duelo.envs.core.runner import DICE_KINDS, DiceKind
from duelo.envs.fast import ENGINES
from duelo.envs.systems import batched_systems, system
from duelo.evaluation.duels import DuelJob, run_job
from duelo.evaluation.stats import decided
from duelo.evaluation.workers import chunk_size, play_jobs

fcntl: ModuleType | None = None if sys.platform == "win32" else importlib.import_module("fcntl")
"""Advisory locks; Windows has none, so a second writer is not detected there."""
RESULTS_FILE = "results.jsonl"
SPEC_FILE = "tournament.json"
SECRET_FILE = ".root-seed"
"""Where a drawn root seed waits (mode 0600) until the tournament ends."""
MAC_KEY = b"duelo/results"
"""The key of the hash that derives a tournament's record key from its root seed."""
BLOCK = 100
"""Duels a block of `--until-decided` plays, unless `--block` says otherwise."""
MAX_DUELS = 100_000
"""Duels per pairing at most: the records of a tournament are kept in memory for its report
(and 100,000 duels already pin a score within about 0.3 %)."""


@dataclass(frozen=True)
class TournamentSpec:
    """What a tournament plays; saved beside its results to guard `--resume`."""

    system: str
    policies: tuple[str, ...]
    duels: int = 2000
    """Duels per pairing, both seat orders included (an even number)."""
    seed: int | None = 0
    """The root seed; None: drawn from the operating system's entropy when the tournament
    starts, kept in `SECRET_FILE` (a resume finds it there: `root_seed`), and written to
    `tournament.json` when it ends."""
    variant: dict[str, Any] = field(default_factory=dict)
    """Keyword variants of the system's ruleset (e.g. {"scenario": "brawl"})."""
    move_time_limit: float | None = 1.0
    """Seconds a policy may take for one move before it forfeits."""
    suite: tuple[dict[str, Any], ...] = ()
    """Whole variants (setups) that every pairing's games cycle through: game g plays
    setup g mod n, both seat orders alike (fewer games than setups play the first
    ones). Empty: every game plays `variant`."""
    block: int | None = None
    """None: every pairing plays its `duels`. A number of duels (even): every pairing
    plays blocks of that many, in game order, and stops once the sequential test calls
    it (`stats.decided`) or `duels`, its budget, is spent (`--until-decided`)."""
    dice: DiceKind = "keyed"
    """How each duel's seed gives its dice (`runner.DiceKind`): keyed, so that a game's two
    seat orders share their luck (common random numbers), or one stream, which the
    batched engine rolls (`--engine fast`)."""

    def __post_init__(self) -> None:
        if not 2 <= self.duels <= MAX_DUELS or self.duels % 2:
            raise ValueError(
                f"duels per pairing must be an even number in 2..{MAX_DUELS}, not {self.duels}"
            )
        if len(set(self.policies)) != len(self.policies) or len(self.policies) < 2:
            raise ValueError(f"a tournament needs two or more distinct policies: {self.policies}")
        if self.block is not None and (not 2 <= self.block <= self.duels or self.block % 2):
            raise ValueError(
                f"a block must be an even number of duels in 2..{self.duels}, not {self.block}"
            )
        if self.dice not in DICE_KINDS:
            raise ValueError(f"dice must be one of {', '.join(DICE_KINDS)}, not {self.dice!r}")
        system(self.system).check_variant(self.variant, "tournament variant")
        if self.suite:
            if self.variant:
                raise ValueError("a tournament plays a variant or a suite of them, not both")
            for setup in self.suite:
                system(self.system).check_variant(setup, "tournament suite")

    def setup(self, game: int) -> dict[str, Any]:
        """The variant game number `game` plays."""
        return self.suite[game % len(self.suite)] if self.suite else self.variant


def canonical_policies(
    system_name: str, names: list[str], variant: dict[str, Any] | None = None
) -> tuple[str, ...]:
    """Policy names as "SYSTEM:NAME", checked now rather than mid-tournament (in the
    duel of `variant`, which `optimal` solves now)."""
    canonical = []
    for name in names:
        check_policy(name, system_name, variant)  # raises on an unknown name
        canonical.append(name if ":" in name else f"{system_name}:{name}")
    return tuple(canonical)


def default_suite(system_name: str, variant: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The system's suite (`System.suite`), `variant` laid over each setup (its options
    win), setups made alike by it merged; empty where one setup or none is left."""
    suite: list[dict[str, Any]] = []
    for setup in system(system_name).suite:
        merged = _laid_over(setup, variant)
        if merged not in suite:
            suite.append(merged)
    return tuple(suite) if len(suite) > 1 else ()


def _laid_over(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        below = merged.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            merged[key] = _laid_over(below, value)
        else:
            merged[key] = value
    return merged


def duel_seed(tournament_seed: int, system_name: str, a: str, b: str, game: int) -> int:
    """The seed shared by both seat orders of one game of one pairing."""
    key = [zlib.crc32(text.encode()) for text in (system_name, *sorted((a, b)))]
    sequence = np.random.SeedSequence(tournament_seed, spawn_key=(*key, game))
    return int(sequence.generate_state(1, np.uint64)[0])


def default_seed(policies: tuple[str, ...] | list[str]) -> int | None:
    """The root seed of a tournament given none: 0, or None (drawn from entropy when it
    starts) where a policy from someone's module plays, which could search a known one."""
    return None if any(is_imported(name) for name in policies) else 0


def schedule(spec: TournamentSpec, private: str | None = None) -> Iterator[DuelJob]:
    """Every duel of the tournament (its seed drawn), in a fixed order, made as they are
    asked for; `private` is the folder hidden from sandboxed policies."""
    for a, b in combinations(spec.policies, 2):
        yield from _games(spec, a, b, range(spec.duels // 2), private)


def _games(
    spec: TournamentSpec, a: str, b: str, games: range, private: str | None
) -> Iterator[DuelJob]:
    """Both seat orders of each of `games` of the pairing of `a` and `b`."""
    assert spec.seed is not None, "the root seed is drawn before the schedule"
    for game in games:
        seed = duel_seed(spec.seed, spec.system, a, b, game)
        for seat_of_a in (0, 1):
            yield DuelJob(
                spec.system,
                spec.setup(game),
                a,
                b,
                game,
                seat_of_a,
                seed,
                spec.move_time_limit,
                private,
                spec.dice,
            )


def next_round(
    spec: TournamentSpec, records: list[dict[str, Any]], private: str | None = None
) -> tuple[Iterator[DuelJob], int]:
    """The duels to play before the tournament decides anything more, less those in
    `records` (this tournament's, `checked_records`): every scheduled one, or under
    `spec.block` each pairing's first block not yet played, for the pairings the
    sequential test has not called on their earlier blocks (`stats.decided`, on the
    record in game order). Returns the duels (made as they are asked for) and how many;
    none: the tournament is over.

    A pure function of the records, so a tournament resumed from any prefix of its file
    plays on exactly as the run that was stopped."""
    done = {record_key(r) for r in records}
    if spec.block is None:
        left = (job for job in schedule(spec, private) if job.key not in done)
        return left, scheduled(spec) - len(records)
    games, per_block = spec.duels // 2, spec.block // 2
    jobs: list[DuelJob] = []
    for a, b in combinations(spec.policies, 2):
        tally = _tally_by_game(records, a, b)
        for start in range(0, games, per_block):
            block = range(start, min(start + per_block, games))
            missing = [j for j in _games(spec, a, b, block, private) if j.key not in done]
            if missing:
                jobs += missing
                break
            wins = sum(tally.get(game, (0, 0))[0] for game in range(block.stop))
            losses = sum(tally.get(game, (0, 0))[1] for game in range(block.stop))
            if decided(wins, losses):
                break
    return iter(jobs), len(jobs)


def sequential_line(records: list[dict[str, Any]], spec: TournamentSpec) -> str:
    """What `--until-decided` did with each pairing: called by the sequential test, or
    not within its budget, and after how many duels."""
    parts = []
    for a, b in combinations(spec.policies, 2):
        tally = _tally_by_game(records, a, b).values()
        wins, losses = sum(w for w, _ in tally), sum(n for _, n in tally)
        played = sum(1 for r in records if r["a"] == a and r["b"] == b)
        verdict = "decided" if decided(wins, losses) else "undecided"
        parts.append(f"{a} v {b}: {verdict} after {played} duels")
    return "until decided (a sequential test at 5 %): " + "; ".join(parts)


def _tally_by_game(records: list[dict[str, Any]], a: str, b: str) -> dict[int, tuple[int, int]]:
    """`a`'s wins and losses against `b` in each game (both seat orders), by game."""
    tally: dict[int, tuple[int, int]] = {}
    for record in records:
        if record["a"] != a or record["b"] != b or record["winner"] is None:
            continue
        wins, losses = tally.get(record["game"], (0, 0))
        won = record["winner"] == "a"
        tally[record["game"]] = (wins + won, losses + (not won))
    return tally


def scheduled(spec: TournamentSpec) -> int:
    """How many duels `schedule(spec)` gives."""
    pairings = len(spec.policies) * (len(spec.policies) - 1) // 2
    return pairings * spec.duels


def _leave_interrupts_to_the_parent() -> None:
    """A worker ignores Ctrl-C: the main process stops the pool and says how to resume."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C ignored by the pool's workers from their first instruction: a started
    interpreter keeps an ignored SIGINT ignored, so a Ctrl-C in the first seconds never
    reaches a worker still importing (which would print its traceback). The main process
    holds it back meanwhile and gets it once the pool is up. Only the main thread may
    change signal handlers; Windows has no signal masks."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def record_key(record: dict[str, Any]) -> tuple[str, str, int, int]:
    return (record["a"], record["b"], record["game"], record["seat_of_a"])


RECORD_TYPES: dict[str, tuple[type, ...]] = {
    "system": (str,),
    "version": (int,),
    "variant": (dict,),
    "a": (str,),
    "b": (str,),
    "game": (int,),
    "seat_of_a": (int,),
    "seed": (int,),
    "dice": (str,),
    "winner": (str, type(None)),
    "reason": (str,),
    "truncated": (bool,),
    "forfeit": (str, type(None)),
    "decisions": (int,),
    "rounds": (int,),
}
"""Every field of a duel's record, and the types it may take."""


MAC_FIELD = "mac"
"""The field of a written record that holds its HMAC (`record_mac`)."""


def record_key_bytes(root_seed: int) -> bytes:
    """The HMAC key of a tournament's records: a keyed hash of its root seed, which no
    policy sees (drawn from entropy where an imported policy plays, `default_seed`)."""
    return hashlib.blake2b(str(root_seed).encode(), key=MAC_KEY, digest_size=32).digest()


def record_mac(record: dict[str, Any], key: bytes) -> str:
    """The HMAC-SHA256 of a record's JSON (sorted keys), the mac left out."""
    return _mac(json.dumps(record, sort_keys=True), key)


def written_line(record: dict[str, Any], key: bytes) -> str:
    """A record's line in the results file: its JSON (sorted keys) with the HMAC of that
    JSON added last (one encoding a record: this runs once per duel)."""
    text = json.dumps(record, sort_keys=True)
    return f'{text[:-1]}, "{MAC_FIELD}": "{_mac(text, key)}"}}\n'


def _mac(text: str, key: bytes) -> str:
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def checked_records(path: Path, records: list[Any], spec: TournamentSpec) -> list[dict[str, Any]]:
    """The records of `path` that belong to `spec`'s tournament, each checked and without
    its HMAC; a record of another tournament (system, env version, variant, pairing, game
    or seed), a malformed one, one whose HMAC fails (edited, or not written by this
    tournament), one whose outcome contradicts itself, or two different records of one
    duel are refused naming the line; an exact repeat is dropped with a warning."""
    assert spec.seed is not None, "the root seed is known before records are read"
    version = system(spec.system).ruleset.version
    pairings = set(combinations(spec.policies, 2))
    mac_key = record_key_bytes(spec.seed)
    seen: dict[tuple[str, str, int, int], tuple[int, dict[str, Any]]] = {}
    kept = []
    for number, written in enumerate(records, start=1):
        where = f"{path}: line {number}"
        if not isinstance(written, dict) or set(written) != {*RECORD_TYPES, MAC_FIELD}:
            raise ValueError(f"{where} is not a duel record: {summary(repr(written))}")
        record = {name: written[name] for name in RECORD_TYPES}
        mac = written[MAC_FIELD]
        if not isinstance(mac, str) or not hmac.compare_digest(mac, record_mac(record, mac_key)):
            raise ValueError(
                f"{where}: its mac does not match (the record was edited, or another "
                "tournament wrote it)"
            )
        _check_fields(where, record)
        ours = (
            record["system"] == spec.system
            and record["version"] == version
            and (record["a"], record["b"]) in pairings
            and 0 <= record["game"] < spec.duels // 2
            and record["variant"] == json.loads(json.dumps(spec.setup(record["game"])))
            and record["seat_of_a"] in (0, 1)
            and record["dice"] == spec.dice
            and record["seed"]
            == duel_seed(spec.seed, spec.system, record["a"], record["b"], record["game"])
        )
        if not ours:
            raise ValueError(
                f"{where} is a duel of another tournament (system, env version, variant, "
                "policies, game, seed or dice differ from this one's)"
            )
        key = record_key(record)
        if key in seen:
            first, earlier = seen[key]
            if earlier != record:
                raise ValueError(f"{where} contradicts line {first}: two results of one duel")
            warnings.warn(f"{where} repeats line {first}: dropped", stacklevel=2)
            continue
        seen[key] = (number, record)
        kept.append(record)
    return kept


MAX_COUNT = 2**31 - 1
"""Decisions, rounds or games a record may count (a duel's round cap keeps them small)."""


def _check_fields(where: str, record: dict[str, Any]) -> None:
    """Refuse a record whose fields have the wrong types or contradict each other."""
    for name, types in RECORD_TYPES.items():
        value = record[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ValueError(f"{where}: {name} is {summary(repr(value))}")
    if record["winner"] not in ("a", "b", None) or record["forfeit"] not in ("a", "b", None):
        raise ValueError(f"{where}: winner and forfeit must be 'a', 'b' or null")
    forfeit = record["forfeit"]
    if forfeit is not None and (record["winner"] != {"a": "b", "b": "a"}[forfeit]):
        raise ValueError(f"{where}: side {forfeit} forfeits, so the other side wins")
    if record["truncated"] and record["winner"] is not None:
        raise ValueError(f"{where}: a truncated duel has no winner")
    if record["dice"] not in DICE_KINDS:
        raise ValueError(f"{where}: dice must be one of {', '.join(DICE_KINDS)}")
    for count in ("decisions", "rounds", "game"):
        if not 0 <= record[count] <= MAX_COUNT:
            raise ValueError(f"{where}: {count} {record[count]} must lie in 0..{MAX_COUNT}")


MAX_RECORD_BYTES = 1 << 20
"""A record is a few hundred bytes (a variant that gives fighters whole, a few kB)."""


def read_records(path: Path) -> list[dict[str, Any]]:
    """The complete records of a results file; a torn last line is cut off the file. A line
    that is not bounded JSON (`bounded_json`) is a ValueError naming the file and line."""
    if not path.exists():
        return []
    records: list[dict[str, Any]] = []
    keep = 0
    with path.open("rb") as stream:
        for line in stream:
            if not line.endswith(b"\n"):
                break  # a write cut short by a kill
            where = f"{path}: line {len(records) + 1}"
            records.append(bounded_json.loads(line, where, MAX_RECORD_BYTES))
            keep += len(line)
    if keep != path.stat().st_size:
        with path.open("r+b") as stream:
            stream.truncate(keep)
    return records


def run_tournament(
    spec: TournamentSpec,
    out: Path,
    workers: int = 1,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
    engine: str = "python",
) -> list[dict[str, Any]]:
    """Play every scheduled duel not yet in `out`, appending records; return them all.

    Nothing is left behind by a run that fails before its first duel is played.
    `backend` "local" plays in `workers` processes here, "ray" on a Ray cluster
    (`evaluation/ray_backend.py`; `address` None starts one here);
    `engine` "python" plays each duel through the reference rules, "fast" chunks of them
    in the batched engine (`evaluation/batched_tournament.py`): the records, and so the
    file, are the same every way.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    if backend == "ray":
        from duelo.evaluation.ray_backend import check_backend

        check_backend(address)
    if engine == "fast":
        check_engine(spec)
    results_path = out / RESULTS_FILE
    spec_path = out / SPEC_FILE
    spec_json = _spec_json(spec)
    if results_path.exists() and not resume:
        raise FileExistsError(
            f"{results_path} already holds results: pass --resume to continue it, "
            "or choose another --out"
        )
    if resume and spec_path.exists() and not _same_tournament(spec, spec_path):
        raise ValueError(
            f"{spec_path} describes another tournament (system, policies, duels, seed "
            "or variant differ); resume it with the same settings or choose another --out"
        )
    played = replace(spec, seed=root_seed(spec, out) if resume else spec.seed)
    stream = _locked(results_path, "a") if results_path.exists() else None
    place = Placement(workers, backend, address, engine)
    return _play(played, out, spec_json, stream, place, progress)


def root_seed(spec: TournamentSpec, out: Path) -> int | None:
    """The root seed a resumed tournament plays: the one given, else the one drawn when it
    started (kept in `SECRET_FILE`, or in `tournament.json` once it ended), else None (a
    run that wrote nothing yet draws a new one)."""
    if spec.seed is not None:
        return spec.seed
    secret = out / SECRET_FILE
    if secret.exists():
        seed = bounded_json.loads(secret.read_bytes(), str(secret), MAX_RECORD_BYTES)
    elif (out / SPEC_FILE).exists():
        saved = bounded_json.loads(
            (out / SPEC_FILE).read_bytes(), str(out / SPEC_FILE), MAX_RECORD_BYTES
        )
        seed = saved.get("seed") if isinstance(saved, dict) else None
    else:
        return None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else None


def _spec_json(spec: TournamentSpec) -> str:
    return json.dumps(asdict(spec), sort_keys=True, indent=2) + "\n"


def _same_tournament(spec: TournamentSpec, spec_path: Path) -> bool:
    """Whether `spec_path` saved `spec`'s tournament; a spec whose seed is to be drawn
    matches one saved with its drawn seed (or with none yet)."""
    try:
        saved = bounded_json.loads(spec_path.read_bytes(), str(spec_path), MAX_RECORD_BYTES)
    except (OSError, ValueError):
        return False
    ours = json.loads(_spec_json(spec))
    if spec.seed is None and isinstance(saved, dict):
        saved = {**saved, "seed": None}
    return bool(saved == ours)


def _locked(path: Path, mode: Literal["a", "x"]) -> TextIO:
    """`path` opened for appending and locked: a second run writing one folder is refused
    (the lock goes with the process, so a killed run leaves none behind)."""
    stream = path.open(mode, encoding="utf-8")
    if fcntl is None:
        return stream
    try:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        stream.close()
        raise FileExistsError(
            f"{path} is being written by another run: wait for it, or choose another --out"
        ) from None
    return stream


@contextmanager
def writing_folder(out: Path) -> Iterator[None]:
    """Hold `out` for one command: a second command writing the same folder at once (two
    systems into one --out, whose combined report.md and summary.json would be the last
    one's only) is refused before any work. The folder is made to be locked, and removed
    again if the command left it empty; the lock goes with the process."""
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(out, os.O_RDONLY)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise FileExistsError(
                    f"{out} is being written by another duelo command: wait for it, or "
                    "choose another --out"
                ) from None
        yield
    finally:
        os.close(descriptor)
        if made and not any(out.iterdir()):
            out.rmdir()


def _play(
    spec: TournamentSpec,
    out: Path,
    spec_json: str,
    stream: TextIO | None,
    place: Placement,
    progress: Callable[[int, int], None] | None,
) -> list[dict[str, Any]]:
    """Check the records already there, play the rest, append each as it comes; the
    stream (the locked results file, or None until the first duel) is closed at the end.

    A seed to draw is drawn here; the folder is made before the first duel (so that the
    sandboxes can be shown an empty one in its place) and removed again if no duel
    gets played."""
    results_path, spec_path, secret = out / RESULTS_FILE, out / SPEC_FILE, out / SECRET_FILE
    drawn = spec.seed is None
    if drawn:
        spec = replace(spec, seed=secrets.randbits(128))
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        records = checked_records(results_path, read_records(results_path), spec)
        assert spec.seed is not None
        key = record_key_bytes(spec.seed)
        total = scheduled(spec)
        if progress:
            progress(len(records), total)
        while True:
            jobs, count = next_round(spec, records, str(out.resolve()))
            if not count:
                break
            for record in _results(jobs, count, place):
                if stream is None:  # the first duel is played: now the files are made
                    stream = _locked(results_path, "x")  # "x": refused if another run made it
                    if drawn:
                        _write_private(secret, str(spec.seed))
                    spec_path.write_text(spec_json, encoding="utf-8")
                stream.write(written_line(record, key))
                stream.flush()
                records.append(record)
                if progress:
                    progress(len(records), total)
    finally:
        if stream is not None:
            stream.close()
        elif made:
            out.rmdir()
    if secret.exists():  # every duel played: the drawn seed is public now
        spec_path.write_text(_spec_json(spec), encoding="utf-8")
        secret.unlink()
    return records


def _write_private(path: Path, text: str) -> None:
    """`text` in a new file only its owner can read."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
        file.write(text)


BACKENDS = ("local", "ray")


@dataclass(frozen=True)
class Placement:
    """Where the duels run: `workers` local processes, or a Ray cluster at `address`
    (None: one started here with `workers` CPUs); and on which engine."""

    workers: int
    backend: str = "local"
    address: str | None = None
    engine: str = "python"


def check_engine(spec: TournamentSpec) -> None:
    """Refuse, before any duel, what the batched engine cannot play: a system without a
    batch, a missing extra, a policy that runs in a sandbox process of its own, or keyed
    dice (its kernels roll one stream a duel)."""
    system_name, policies = spec.system, spec.policies
    if system_name not in batched_systems():
        raise ValueError(
            f"--engine fast plays {', '.join(sorted(batched_systems()))}, not {system_name}: "
            "use --engine python"
        )
    if importlib.util.find_spec("numba") is None:
        raise ValueError("--engine fast needs the fast extra: pip install 'duelo[fast]'")
    sandboxed = [name for name in policies if is_imported(name)]
    if sandboxed:
        raise ValueError(
            f"--engine fast plays in-process policies; {', '.join(sandboxed)} runs in a "
            "sandbox process a duel at a time: use --engine python"
        )
    if spec.dice != "stream":
        raise ValueError(
            "--engine fast rolls each duel's dice as one stream: use --dice stream "
            "(or --engine python for keyed dice)"
        )


def _results(jobs: Iterator[DuelJob], count: int, place: Placement) -> Iterator[dict[str, Any]]:
    """Records of the `count` jobs in schedule order, whatever the backend, the engine
    and the number of workers (never more local processes than jobs)."""
    if place.backend == "ray":
        from duelo.evaluation.ray_backend import ray_results

        yield from ray_results(jobs, count, place.workers, place.address, place.engine)
        return
    workers = max(1, min(place.workers, count))
    if workers == 1 and place.engine == "python":
        yield from map(run_job, jobs)  # each record written as soon as it is played
        return
    size = chunk_size(count, workers, place.engine)
    chunks = iter(lambda: list(itertools.islice(jobs, size)), [])
    if workers == 1:
        for chunk in chunks:
            yield from play_jobs(chunk, place.engine)
        return
    play = functools.partial(play_jobs, engine=place.engine)
    shared = _SHARED.get(workers)
    if shared is not None:
        for records in shared.imap(play, chunks):
            yield from records
        return
    with _new_pool(workers) as pool:
        for records in pool.imap(play, chunks):
            yield from records


_SHARED: dict[int, Any] = {}
"""The pools kept by `shared_pools`, by size."""


def _new_pool(workers: int) -> Any:
    context = multiprocessing.get_context("spawn")
    with _interrupts_held():
        return context.Pool(workers, initializer=_leave_interrupts_to_the_parent)


@contextmanager
def shared_pools(workers: int) -> Iterator[None]:
    """One pool of `workers` processes for every tournament played inside (`duelo
    tournament` plays one a system): a worker's start (imports, configs, brains) is paid
    once, not once a system. The records are the same either way."""
    if workers < 2 or workers in _SHARED:
        yield
        return
    with _new_pool(workers) as pool:
        _SHARED[workers] = pool
        try:
            yield
        finally:
            del _SHARED[workers]
