"""N duels of one system stepped together in compiled code, behind one Python object.

`BatchedDuels` takes a scalar env (`DuelEnv`, as `gymnasium.make` builds it) as the
description of what to batch: its ruleset, learner seat, opponent and illegal-action
rules.
Each system's compiled module, beside its rules (`envs/infierno/fast.py`,
`envs/esgrima/fast_duel.py`), is the layout a new system follows. It provides:

- the kernels, ports of its ruleset's methods: `new_duel`, `to_act`, `legal_actions`,
  `apply`, `observe` (on one duel's row and the rules' row), and `ACTIONS`;
- `rules_of(ruleset)`: the ruleset's constants, a structured array of one row;
- `new_duels(num_envs, rules)`: the state of N duels, a structured array of N rows
  (numba hands a kernel one row as one pointer; a tuple of separate arrays cost
  about 200 ns a call to pass, more than a whole decision), each dtype built once,
  whose fields `over`, `winner` (-1: a draw), `truncated`, `stake` (what the win is
  worth, `Outcome.stake`), `ending` and `round` the loops and this module read;
- `longest_duel(rules, illegal_limit)`: the most learner steps one duel can last;
- `ending_reason(duel, rules, names)`: the reference's words for how a duel ended;
- where the state has an aftermath, `aftermath(duels, rows, rules)`: what
  `state.aftermath()` reports of the ended duels `duels[rows]`, each key an array
  over them (reading only the fields it needs: a few rows a step);

and ends with `loops.compile_into(globals())`, which adds the loops on its kernels:
`reset_rows`, `step_rows` and `resume_rows` (`DuelEnv.reset` and `DuelEnv.step` for
many rows), and `start_rows` and `play_rows` (`runner.play_duel` for many rows).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from types import ModuleType
from typing import TextIO

import numpy as np

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import (
    BLIND,
    BatchPolicy,
    Policy,
    plays_uniform_legal,
    reads_observation,
    served_by_process,
)
from duelo.envs.core.referee import PolicyFault, ask, summary
from duelo.envs.core.ruleset import IllegalActionError
from duelo.envs.fast.batch import new_seats, seed_rows
from duelo.envs.fast.streams import generator_on, stream_of
from duelo.envs.systems import SYSTEMS, batched_systems


def compiled_module(system: str) -> ModuleType:
    module = SYSTEMS[system].fast if system in SYSTEMS else None
    if module is None:
        raise ValueError(
            f"no batched engine for {system!r}: it serves {', '.join(sorted(batched_systems()))}"
        )
    return importlib.import_module(module)


COMPILE_NOTICE_AFTER = 2.0
"""Seconds a call into a compiled module may take before duelo says it is compiling."""
_compiled: set[str] = set()
"""Systems whose compiled module answered a call in time in this process."""
_told: set[str] = set()


def compiling(system: str) -> AbstractContextManager[None]:
    """Around a call into `system`'s compiled module: numba compiles each loop at its first
    call on a machine, a minute or two in all, and says nothing, so a call that outlasts
    `COMPILE_NOTICE_AFTER` prints one line on stderr (once a process). Once a call returns
    in time the module counts as compiled, and the guard costs nothing more."""
    return contextlib.nullcontext() if system in _compiled else _noticed(system)


@contextlib.contextmanager
def _noticed(
    system: str, after: float = COMPILE_NOTICE_AFTER, stream: TextIO | None = None
) -> Iterator[None]:
    def notice() -> None:
        if system not in _told:
            _told.add(system)
            print(
                f"duelo: compiling the batched engine for {system} (its first use on this "
                "machine takes a minute or two; later runs read the cache)",
                file=stream or sys.stderr,
                flush=True,
            )

    timer = threading.Timer(after, notice)
    timer.daemon = True
    began = time.perf_counter()
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if time.perf_counter() - began < after:
            _compiled.add(system)


class BatchedDuels:
    """N copies of `env`'s duel, each row replaying `env` reset with its own seed.

    The opponent is `env.opponent` in every row or, given `draw`, the policy `draw()`
    returns for each duel a row deals (a training pool's opponents, drawn a duel ahead).
    The random policy decides inside the kernels, from its generator. Any other
    decides between kernel calls, where its rows wait, as `DuelEnv._play_opponent` asks
    it: a `BatchPolicy` for all its waiting rows in one call, any other row by row
    through the referee (`ask`) with the row's opponent generator; a policy that faults
    (raises, answers what is not a legal action) forfeits its row's duel, the reason in
    `forfeits` until the row deals again. One instance of each policy plays every row,
    as one pool plays every env of a training run.
    `same_step` picks Gymnasium's autoreset mode: a finished row is dealt a new duel in
    the step that ends it (its last observation in `final_observations`), or by the
    next step, whose action is then ignored; either way the ended duel's last state is
    in `final_duels`, where its result is read.
    """

    def __init__(
        self,
        env: DuelEnv,
        num_envs: int,
        same_step: bool = False,
        draw: Callable[[], Policy] | None = None,
    ) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        self.system = env.ruleset.system
        self.module = compiled_module(self.system)
        self.compiled = False
        """Whether a step returned in time once: the loops are compiled (`compiling`)."""
        self.rules: np.ndarray = self.module.rules_of(env.ruleset)
        self.num_envs = num_envs
        self.same_step = same_step
        self.fixed_seat = -1 if env.fixed_seat is None else env.fixed_seat
        self.opponent_key = env.opponent_key
        self.raise_illegal = env.illegal_action == "raise"
        self.illegal_penalty = float(env.illegal_penalty)
        self.illegal_limit = env.illegal_limit
        self.observation_spec = env.observation_spec
        self.duels: np.ndarray = self.module.new_duels(num_envs, self.rules)
        self.final_duels = self.module.new_duels(num_envs, self.rules) if same_step else self.duels
        """Each row's last ended duel as it ended: a copy under same-step autoreset, which
        deals a new duel over it in `duels`; `duels` itself otherwise."""
        self.seats = new_seats(num_envs)
        n, size = num_envs, env.observation_spec.size
        self.observations = np.zeros((n, size), np.float32)
        self.final_observations = np.zeros((n, size), np.float32)
        self.seen = np.zeros((n, size), np.float32)
        """The observation of each waiting opponent."""
        self.masks = np.zeros((n, self.module.ACTIONS), np.bool_)
        self.rewards = np.zeros(n, np.float64)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.ended = np.zeros(n, np.bool_)
        self.draw = draw
        self.policies: list[Policy] = []
        """Every opponent a row has played or will play, indexed by `playing`."""
        self.playing = np.zeros(n, np.int64)
        """Each row's opponent (an index into `policies`)."""
        self.upcoming = np.zeros(n, np.int64)
        """The opponent of each row's next duel."""
        for row in range(n):
            self._draw_next(row, env.opponent if draw is None else draw())
        self.all_random = draw is None and plays_uniform_legal(env.opponent)
        """No row ever waits: every opponent decides inside the kernels."""
        self.forfeits: dict[int, str] = {}
        """Row -> why its opponent forfeited the duel it ended (`DuelEnv`'s reason)."""
        self._seeded = False

    def reset(self, seeds: list[int | None]) -> None:
        """Seed every row and deal its first duel (`seeds`: one per row, None for entropy)."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"{len(seeds)} seeds for {self.num_envs} envs")
        rows = np.arange(self.num_envs)
        seed_rows(self.seats, rows, seeds, self.opponent_key)
        self._seeded = True
        self.deal(rows)

    def deal(self, rows: np.ndarray) -> None:
        """Deal new duels in `rows` (a reset without a seed: the streams go on)."""
        if not self._seeded:
            raise RuntimeError("deal() called before reset()")
        with compiling(self.system):
            self.module.reset_rows(
                self.duels,
                self.rules,
                self.seats,
                rows,
                self.fixed_seat,
                self.observations,
                self.masks,
                self.seen,
            )
        if not self.all_random:
            self._settle()

    def step(self, actions: np.ndarray) -> None:
        """One step of every row; the results are in this object's arrays."""
        if not self._seeded:
            raise RuntimeError("step() called before reset()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} integers, not an array of shape "
                f"{actions.shape} and dtype {actions.dtype}"
            )
        self.advance(actions.astype(np.int64, copy=False))

    def advance(self, actions: np.ndarray) -> None:
        """`step` without checking `actions` (the caller made them: `num_envs` int64)."""
        arguments = (
            self.duels,
            self.rules,
            self.seats,
            actions,
            self.fixed_seat,
            self.illegal_penalty,
            self.illegal_limit,
            self.raise_illegal,
            self.same_step,
            self.observations,
            self.rewards,
            self.terminated,
            self.truncated,
            self.masks,
            self.final_observations,
            self.final_duels,
            self.ended,
            self.seen,
        )
        if self.compiled:  # the hot path: no guard, a step costs a few microseconds
            status = self.module.step_rows(*arguments)
        else:
            with compiling(self.system):
                status = self.module.step_rows(*arguments)
            self.compiled = self.system in _compiled
        if status >= 0:
            raise IllegalActionError(
                f"env {status}: action {int(actions[status])} is illegal here "
                f"(legal: {np.flatnonzero(self.masks[status]).tolist()})"
            )
        if not self.all_random:
            self._settle()

    # --- the opponents that decide outside the kernels --------------------------------------

    def _draw_next(self, row: int, policy: Policy) -> None:
        """Make `policy` the opponent of `row`'s next duel."""
        if served_by_process(policy):
            raise ValueError(
                f"the opponent {policy.name!r} plays in a process of its own, a fresh one each "
                "duel, which the batched engine does not give it: "
                "gymnasium.make_vec(..., vectorization_mode='sync') steps scalar envs instead"
            )
        index = next((i for i, known in enumerate(self.policies) if known is policy), None)
        if index is None:
            index = len(self.policies)
            self.policies.append(policy)
        self.upcoming[row] = index
        self.seats["next_compiled"][row] = plays_uniform_legal(policy)

    def _settle(self) -> None:
        """Until every row waits on the learner: the rows just dealt take their next
        opponent (and draw the one after), and the waiting opponents decide."""
        seats, module = self.seats, self.module
        while True:
            dealt = np.flatnonzero(seats["dealt"])
            if dealt.size:
                seats["dealt"][dealt] = False
                self.playing[dealt] = self.upcoming[dealt]
                for row in dealt.tolist():
                    self.forfeits.pop(row, None)
                    if self.draw is not None:
                        self._draw_next(row, self.draw())
            rows = np.flatnonzero(seats["waiting"])
            if not rows.size:
                return
            actions = np.empty(rows.size, np.int64)
            playing = self.playing[rows]
            for index in np.unique(playing).tolist():
                chosen = playing == index
                actions[chosen] = self._decide(self.policies[index], rows[chosen])
            with compiling(self.system):
                module.resume_rows(
                    self.duels,
                    self.rules,
                    seats,
                    rows,
                    actions,
                    self.fixed_seat,
                    self.same_step,
                    self.observations,
                    self.rewards,
                    self.terminated,
                    self.truncated,
                    self.masks,
                    self.final_observations,
                    self.final_duels,
                    self.ended,
                    self.seen,
                )

    def _decide(self, policy: Policy, rows: np.ndarray) -> np.ndarray:
        """The actions `policy` chooses in `rows` (each waiting on it), -1 where it forfeits."""
        masks = self.masks
        if (
            isinstance(policy, BatchPolicy)
            and (actions := self._batch_call(policy, rows)) is not None
        ):
            for k in np.flatnonzero(~masks[rows, actions]).tolist():
                why = f"chose illegal action {actions[k]}"
                actions[k] = self._forfeit(int(rows[k]), policy, why)
            return actions
        actions = np.empty(rows.size, np.int64)
        streams = self.seats["opponent"]
        blind = not reads_observation(policy)
        for k, row in enumerate(rows.tolist()):
            observation = BLIND if blind else self.observation_spec.view(self.seen[row].copy())
            rng = generator_on(streams[row])
            try:
                actions[k] = ask(policy, observation, masks[row], rng)
            except PolicyFault as fault:
                actions[k] = self._forfeit(row, policy, str(fault))
            streams[row] = stream_of(rng.bit_generator)
        return actions

    def _batch_call(self, policy: BatchPolicy, rows: np.ndarray) -> np.ndarray | None:
        """`policy.act_batch` on `rows`, or None where it raised or answered in the wrong
        shape (its rows are then asked one by one, where a fault is the row's own)."""
        try:
            answer = np.asarray(policy.act_batch(self.seen[rows], self.masks[rows]))
        except Exception:
            return None
        if answer.shape != rows.shape or answer.dtype.kind not in "iu":
            return None
        if ((answer < 0) | (answer >= self.masks.shape[1])).any():
            return None
        return answer.astype(np.int64)

    def _forfeit(self, row: int, policy: Policy, fault: str) -> int:
        """End `row`'s duel as `DuelEnv` does when its opponent faults: the learner wins
        (`Outcome` of the learner's seat, stake 1). Returns the action that says so to
        `resume_rows` (-1)."""
        self.forfeits[row] = summary(f"the opponent {policy.name!r} forfeits: its policy {fault}")
        duels = self.duels
        duels["over"][row] = True
        duels["winner"][row] = self.seats["seat"][row]
        duels["truncated"][row] = False
        duels["stake"][row] = 1.0
        return -1

    def hand_over(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The last `reset` or `step`'s observations, rewards and terminated and truncated
        flags, now the caller's to keep: the engine writes the next ones into new arrays,
        so a vector env returns them without copying and what it returned stays as it
        was. Only after a `reset` or a `step`: a `step` writes every row of all four, a
        `reset` every row's observation (the flags wait for the next step), and `deal`
        only its rows'."""
        out = (self.observations, self.rewards, self.terminated, self.truncated)
        self.observations = np.empty_like(self.observations)
        self.rewards = np.empty_like(self.rewards)
        self.terminated = np.empty_like(self.terminated)
        self.truncated = np.empty_like(self.truncated)
        return out

    def aftermath(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """What `state.aftermath()` reports of the ended duels of `rows` (`final_duels`),
        each key an array over them: empty, and nothing read, where the system's state
        reports nothing."""
        report = getattr(self.module, "aftermath", None)
        return {} if report is None else report(self.final_duels, rows, self.rules)

    @property
    def longest_duel(self) -> int:
        """The most learner steps one duel can last (the round cap and the illegal-action
        limit bound it)."""
        return int(self.module.longest_duel(self.rules, self.illegal_limit))
