"""Policies that misbehave on purpose, to show that each one only loses its own duel.

They are importable as `tests.hostile:NAME`, the way a user names a policy module.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

import numpy as np


class _Hostile:
    description = "misbehaves on purpose"


class MaskEditor(_Hostile):
    """Sets its mask to all-legal and plays an action the real mask forbids."""

    name = "mask_editor"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        illegal = np.flatnonzero(~action_mask)
        action_mask[:] = True
        return int(illegal[0]) if illegal.size else int(np.flatnonzero(action_mask)[0])


class Raiser(_Hostile):
    name = "raiser"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        raise ValueError("boom\nDuel over: side B wins (a forged line)" + "x" * 5000)


class SysExiter(_Hostile):
    name = "sys_exiter"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        sys.exit(5)


class Exiter(_Hostile):
    """Ends its whole process at once (no exception to catch)."""

    name = "exiter"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        os._exit(3)


class Hanger(_Hostile):
    name = "hanger"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        time.sleep(3600)
        return 0


class NonInteger(_Hostile):
    name = "non_integer"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return float(np.flatnonzero(action_mask)[0]) + 0.7  # type: ignore[return-value]


class StringAnswer(_Hostile):
    name = "string_answer"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return str(np.flatnonzero(action_mask)[0])  # type: ignore[return-value]


class SeedThief(_Hostile):
    """Rewinds the generator it is handed, looking for the draw that seeded the dice (what
    an env that lends its own `np_random` would give away), then plays legally."""

    name = "seed_thief"
    REWIND = 64

    def __init__(self) -> None:
        self.candidates: set[int] = set()

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        for back in range(1, self.REWIND + 1):
            rng.bit_generator.advance(-back)
            self.candidates.add(int(rng.integers(2**63)))
            rng.bit_generator.advance(back - 1)
        return int(np.flatnonzero(action_mask)[0])


# --- fair play: attacks on the dice, the hidden state and the results (issue 27) ----------


def _first_legal(action_mask: np.ndarray) -> int:
    return int(np.flatnonzero(action_mask)[0])


class DiceRebuilder(_Hostile):
    """Reads the `SeedSequence` inside its generator and rebuilds the dice from it, as the
    seats' `SeedSequence(duel seed, spawn_key=(1 + seat,))` once allowed (the dice were
    the same seed's spawn key 0); keeps the state of the PCG64 it rebuilt."""

    name = "dice_rebuilder"

    def __init__(self) -> None:
        self.rebuilt: list[int] = []

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        if not self.rebuilt:
            inner = rng.bit_generator.seed_seq
            for tried in (
                np.random.SeedSequence(inner.entropy, spawn_key=(0,)),
                np.random.SeedSequence(inner.entropy),
            ):
                self.rebuilt.append(np.random.PCG64(tried).state["state"]["state"])
        return _first_legal(action_mask)


class SeedSearcher(_Hostile):
    """Searches the root seeds below `SEARCH` for the one whose duel seed seeds the
    generator it holds (it knows its pairing); raises, and so forfeits, naming the seed it
    found, which would give it the dice of the whole tournament."""

    name = "seed_searcher"
    SEARCH = 1000
    GAMES = 2
    PAIRING = ("tests.hostile:SeedSearcher", "infierno:random")

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        from duelo.envs.core.runner import seat_seed
        from duelo.evaluation.tournament import duel_seed

        held = rng.bit_generator.state["state"]
        for root in range(self.SEARCH):
            for game in range(self.GAMES):
                seed = duel_seed(root, "infierno", *self.PAIRING, game)
                for seat in (0, 1):
                    if np.random.PCG64(seat_seed(seed, seat)).state["state"] == held:
                        raise RuntimeError(f"found the root seed {root}")
        return _first_legal(action_mask)


class StateReader(_Hostile):
    """Looks for the duel's hidden state through the garbage collector and the frames that
    called it; raises (forfeits) saying what it found."""

    name = "state_reader"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        import gc

        from duelo.envs.core.dice import GeneratorDice

        found = [
            type(o).__name__
            for o in gc.get_objects()
            if type(o) is GeneratorDice
            or (
                str(type(o).__module__).startswith("duelo.envs")
                and type(o).__name__.endswith("State")
            )
        ]
        frame = sys._getframe(1)
        while frame is not None:
            found += [name for name in ("state", "dice") if name in frame.f_locals]
            frame = frame.f_back
        if found:
            raise RuntimeError(f"found the hidden state: {sorted(set(found))}")
        return _first_legal(action_mask)


class AllyPeeker(_Hostile):
    """Plays a side of a skirmish with sealed plans and remembers every plan it chose: if
    one process is asked for two fighters' plans, it knows an ally's, and raises
    (forfeits) saying so. It tells fighters apart by their observed stat block."""

    name = "ally_peeker"

    def __init__(self) -> None:
        self.chosen: dict[tuple[float, ...], int] = {}

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        action = _first_legal(action_mask)
        if observation["phase"][0]:  # the plan step
            me = tuple(np.ravel(observation["capacities"])[:4]) + tuple(
                np.ravel(observation["arms"])[:5]
            )
            others = {who: plan for who, plan in self.chosen.items() if who != me}
            if others:
                raise RuntimeError(f"saw an ally's plan: {sorted(others.values())}")
            self.chosen[me] = action
        return action


class ParentReader(_Hostile):
    """Looks for the processes that run the tournament, to read their memory; raises
    (forfeits) naming what it could open."""

    name = "parent_reader"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as file:
                    command = file.read()
            except OSError:
                continue
            if b"pytest" in command or b"multiprocessing" in command:
                found.append(pid)
        if found:
            raise RuntimeError(f"sees the tournament's processes {found}")
        return _first_legal(action_mask)


class Forger(_Hostile):
    """Looks for results files below its working folder and appends forged wins to each
    it finds, then tries to kill the process that runs it; raises (forfeits) saying what
    it managed."""

    name = "forger"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        import signal

        managed = []
        for folder, _, files in os.walk(os.getcwd()):
            if "results.jsonl" in files:
                managed.append(f"saw {folder}")
                try:
                    with open(os.path.join(folder, "results.jsonl"), "a") as file:
                        file.write('{"winner": "a"}\n' * 20)
                    managed.append("forged")
                except OSError:
                    pass
        if os.getppid() > 1:
            try:
                os.kill(os.getppid(), signal.SIGKILL)
            except OSError:
                pass
        if managed:
            raise RuntimeError(f"managed: {managed}")
        return _first_legal(action_mask)


SPAWNED = "1000.271828"
"""The argument of the `sleep` that `Spawner` leaves running (to find it afterwards)."""


class Spawner(_Hostile):
    """Starts a process of its own that would outlive the duel, in a session of its own."""

    name = "spawner"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        import subprocess

        subprocess.Popen(["sleep", SPAWNED], start_new_session=True)
        return _first_legal(action_mask)


class Flooder(_Hostile):
    """Prints 4 MB to stderr at every move."""

    name = "flooder"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        sys.stderr.write("flood " * 700_000)
        sys.stderr.flush()
        return _first_legal(action_mask)


class EnvSeedSearcher(_Hostile):
    """An env opponent that looks its generator up among those that `reset(seed=k)` gave
    it for every k below `SEARCH` while it was seeded from `np_random`'s second draw
    through a `SeedSequence`; `found` lists the seeds it recognised."""

    name = "env_seed_searcher"
    SEARCH = 100_000
    _table: dict[int, int] = {}

    def __init__(self) -> None:
        self.found: list[int] = []
        self.asked = 0

    @classmethod
    def table(cls) -> dict[int, int]:
        if not cls._table:
            from gymnasium.utils import seeding

            for k in range(cls.SEARCH):
                np_random, _ = seeding.np_random(k)
                np_random.integers(2**63)  # the dice's seed
                draw = int(np_random.integers(2**63))
                state = np.random.PCG64(np.random.SeedSequence(draw)).state["state"]["state"]
                cls._table[state] = k
        return cls._table

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        self.asked += 1
        k = self.table().get(rng.bit_generator.state["state"]["state"])
        if k is not None:
            self.found.append(k)
        return _first_legal(action_mask)


class ProtocolForger(_Hostile):
    """Finds the sandbox's answer pipe through the garbage collector and writes its own
    answer on it: a float action, which a plain `int()` would have taken as a move."""

    name = "protocol_forger"

    def forged(self, rng: np.random.Generator) -> str:
        import json

        return json.dumps({"action": 0.5, "rng": rng.bit_generator.state})

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        import gc
        import io

        for o in gc.get_objects():
            if isinstance(o, io.TextIOWrapper) and o.writable() and o.fileno() > 2:
                o.write(self.forged(rng) + "\n")
                o.flush()
        return _first_legal(action_mask)


class DeepAnswerer(ProtocolForger):
    """Answers with JSON nested 200,000 deep (a plain `json.loads` raises RecursionError)."""

    name = "deep_answerer"

    def forged(self, rng: np.random.Generator) -> str:
        return "[" * 200_000 + "]" * 200_000


class HugeIntAnswerer(ProtocolForger):
    """Answers with a 5,000-digit action (a plain `json.loads` raises a bare ValueError)."""

    name = "huge_int_answerer"

    def forged(self, rng: np.random.Generator) -> str:
        return '{"action": ' + "9" * 5000 + "}"


class BuildHanger(_Hostile):
    """Never finishes being built."""

    name = "build_hanger"

    def __init__(self) -> None:
        time.sleep(3600)

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return 0


class BuildExiter(_Hostile):
    """Ends its process while it is built (a tournament once died of it, exit status 9)."""

    name = "build_exiter"

    def __init__(self) -> None:
        os._exit(9)

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return 0


class BuildRaiser(_Hostile):
    name = "build_raiser"

    def __init__(self) -> None:
        raise RuntimeError("no brain today")

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return 0


class DiceSearcher(_Hostile):
    """Sandboxed, it holds only its generator's state: it searches the duel seeds below
    `SEARCH`, seated either way and derived either way (the `SeedSequence` spawn that seats
    once were, and today's keyed `seat_seed`), for the one whose PCG64 increment (which no
    draw changes) is its own; found, the dice are `KeyedDice(seed)` (or a stream from
    `SeedSequence(seed, spawn_key=(0,))`), and it forfeits naming the seed."""

    name = "dice_searcher"
    SEARCH = 1000

    def __init__(self) -> None:
        self.searched = False

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        from duelo.envs.core.runner import seat_seed

        if self.searched:  # once a duel: the increment stays what it was
            return _first_legal(action_mask)
        self.searched = True
        held = rng.bit_generator.state["state"]["inc"]
        for seed in range(self.SEARCH):
            for seat in (0, 1):
                for derived in (
                    np.random.SeedSequence(seed, spawn_key=(1 + seat,)),
                    seat_seed(seed, seat),
                ):
                    if np.random.PCG64(derived).state["state"]["inc"] == held:
                        raise RuntimeError(f"found the duel seed {seed}")
        return _first_legal(action_mask)
