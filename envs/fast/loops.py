"""The loops every system's compiled module shares, written once and compiled per system.

- `reset_rows`, `step_rows`, `resume_rows`: `DuelEnv.reset` and `DuelEnv.step` for
  many rows (the env: `engine.BatchedDuels`). The random opponent decides inside them;
  any other opponent leaves its row waiting on its decision (`resume_rows` goes on
  with the actions it chose);
- `start_rows`, `play_rows`: `runner.play_duel` for many rows, two policies and no env
  (tournaments: `evaluation/batched_tournament.py`).

A system module ends with `compile_into(globals())`: this file then runs in that
module's namespace, its loops calling that module's kernels (the names below), and
numba caches them beside that module. Why not one function taking the kernels:
numba caches no function that takes another as an argument or closes over one
(each process compiled it again, measured). numba keys its cache on a function's
file (here the system module's: an edit there recompiles its loops), and
`drop_stale_cache` drops a system's cache when this file, `streams.py` or
`batch.py` changed, whose code its functions take in too. The loops' lines are this
file's: a compile error that numba reports in a system module at a line of these
loops is here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from duelo.envs.core.duel_env import TAKE_RESULT
from duelo.envs.fast.streams import roll

# What the system module gives the loops (its kernels and its action count): annotated,
# not bound, so that running this file there leaves them as they are (and F821 is off).
# ruff: noqa: F821
ACTIONS: int
new_duel: Callable[[np.void, np.void, np.ndarray], None]
to_act: Callable[[np.void, np.void], int]
legal_actions: Callable[[np.void, np.void, int, np.ndarray], None]
apply: Callable[[np.void, np.void, int, int, np.ndarray], None]
observe: Callable[[np.void, np.void, int, np.ndarray], None]


SHARED = ("loops.py", "streams.py", "batch.py", "../core/duel_env.py")
"""The files whose code (or constants: `TAKE_RESULT`) a system's compiled functions take
in besides their own module."""


def compile_into(namespace: dict[str, Any]) -> None:
    """Run this file in a system module's namespace (`globals()`), under that module's
    file name, so that numba compiles and caches its loops for that system (the file's
    imports and the names above land there too, unchanged: the kernels stay bound)."""
    drop_stale_cache(Path(namespace["__file__"]))
    source = Path(__file__).read_text(encoding="utf-8")
    exec(compile(source, namespace["__file__"], "exec"), namespace)


def drop_stale_cache(module: Path) -> None:
    """Delete `module`'s cached machine code if a `SHARED` file changed since it was made.

    numba checks only a function's own file, yet a cached function holds the code of
    everything it calls: a loop (or a dice stream) edited here would live on, stale, in
    the cache of every system module. A digest of the shared files, kept beside that
    cache, tells. A cache that cannot be written (a read-only install) is left alone.
    """
    here = Path(__file__).parent
    digest = hashlib.sha256(b"".join((here / name).read_bytes() for name in SHARED)).hexdigest()
    cache = module.parent / "__pycache__"
    stamp = cache / f"{module.stem}.shared.sha256"
    try:
        if stamp.read_text(encoding="ascii") == digest:
            return
    except OSError:
        pass  # no stamp yet
    try:
        for path in cache.glob(f"{module.stem}.*.nb[ic]"):
            path.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest, encoding="ascii")
    except OSError:
        return


# --- the env around the rules: `DuelEnv.reset` and `DuelEnv.step` for every row ----------


@numba.njit(cache=True)
def _random_legal(stream: np.ndarray, mask: np.ndarray) -> int:
    """The random policy's move, `legal[rng.integers(legal.size)]`, from its generator."""
    pick = roll(stream, mask.sum()) - 1
    for action in range(ACTIONS):
        if mask[action]:
            if pick == 0:
                return action
            pick -= 1
    return -1  # no legal action: never asked


MOVED, DEALT = 0, 1
"""What a row waiting on its opponent does once the opponent has decided (`e.stage`):
end the learner's step (`DuelEnv.step`), or show the learner the duel just dealt
(`DuelEnv.reset`)."""


@numba.njit(cache=True, inline="always")
def _play_opponent(
    d: np.void, r: np.void, e: np.void, mask: np.ndarray, seen: np.ndarray, i: int
) -> None:
    """`DuelEnv._play_opponent`: the random policy decides here, from its generator; any
    other opponent leaves row `i` waiting (`e.waiting`) with its observation in `seen[i]`
    and its mask in `mask`, until `resume_rows` brings its action (`seen` and `i`, so
    that the view `seen[i]` is made only for a row that waits)."""
    opponent = 1 - e.seat
    while to_act(d, r) == opponent:
        legal_actions(d, r, opponent, mask)
        if not e.compiled:
            e.waiting = True
            observe(d, r, opponent, seen[i])
            return
        apply(d, r, opponent, _random_legal(e.opponent, mask), e.dice)


@numba.njit(cache=True)
def _reset_row(
    d: np.void,
    r: np.void,
    e: np.void,
    fixed_seat: int,
    mask: np.ndarray,
    seen: np.ndarray,
    i: int,
) -> None:
    """`DuelEnv.reset` after seeding: the seat, the next opponent, a new duel, the
    opponent's turns."""
    e.seat = fixed_seat if fixed_seat >= 0 else roll(e.env_rng, 2) - 1
    e.streak = 0
    e.needs_reset = False
    e.compiled = e.next_compiled
    e.dealt = True
    new_duel(d, r, e.dice)
    _play_opponent(d, r, e, mask, seen, i)


@numba.njit(cache=True)
def _learner_mask(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`DuelEnv.action_masks` in a duel that goes on: the rules' mask, or `TAKE_RESULT`
    alone where the duel ended before the learner's first decision."""
    if d.over:
        mask[:] = False
        mask[TAKE_RESULT] = True
    else:
        legal_actions(d, r, seat, mask)


@numba.njit(cache=True, inline="always")
def _show_dealt(
    d: np.void, r: np.void, e: np.void, observation: np.ndarray, mask: np.ndarray
) -> None:
    """What `DuelEnv.reset` returns of a new duel, or marks the row to wait for it."""
    if e.waiting:
        e.stage = DEALT
        return
    observe(d, r, e.seat, observation)
    _learner_mask(d, r, e.seat, mask)


@numba.njit(cache=True)
def reset_rows(
    duels: np.ndarray,
    rules: np.ndarray,
    seats: np.ndarray,
    rows: np.ndarray,
    fixed_seat: int,
    observations: np.ndarray,
    masks: np.ndarray,
    seen: np.ndarray,
) -> None:
    """Reset the duels of `rows`."""
    r = rules[0]
    for i in rows:
        d, e = duels[i], seats[i]
        _reset_row(d, r, e, fixed_seat, masks[i], seen, i)
        _show_dealt(d, r, e, observations[i], masks[i])


@numba.njit(cache=True)
def step_rows(
    duels: np.ndarray,
    rules: np.ndarray,
    seats: np.ndarray,
    actions: np.ndarray,
    fixed_seat: int,
    illegal_penalty: float,
    illegal_limit: int,
    raise_illegal: bool,
    same_step: bool,
    observations: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    masks: np.ndarray,
    final_observations: np.ndarray,
    final_duels: np.ndarray,
    ended: np.ndarray,
    seen: np.ndarray,
) -> int:
    """One `DuelEnv.step` in every row, with Gymnasium's autoreset (same step or next
    step); under same-step autoreset an ended row's last duel and observation are copied
    to `final_duels` and `final_observations` before a new duel is dealt. A row whose
    opponent must decide waits (`resume_rows` ends its step).
    Returns -1, or a row whose action is illegal under `raise_illegal` (nothing is
    stepped then)."""
    r = rules[0]
    if raise_illegal:
        for i in range(actions.shape[0]):
            a = actions[i]
            if not seats[i].needs_reset and (a < 0 or a >= ACTIONS or not masks[i, a]):
                return i
    for i in range(actions.shape[0]):
        d, e, mask = duels[i], seats[i], masks[i]
        ended[i] = False
        rewards[i] = 0.0
        terminated[i] = truncated[i] = False
        if e.needs_reset:  # next-step autoreset: this action starts a new duel
            _reset_row(d, r, e, fixed_seat, mask, seen, i)
            _show_dealt(d, r, e, observations[i], mask)
            continue
        a = actions[i]
        if a < 0 or a >= ACTIONS or not mask[a]:  # a no-op that costs the penalty
            e.streak += 1
            rewards[i] = -illegal_penalty
            truncated[i] = e.streak >= illegal_limit
        else:
            e.streak = 0
            if not d.over:  # over already: TAKE_RESULT takes the result
                apply(d, r, e.seat, a, e.dice)
                _play_opponent(d, r, e, mask, seen, i)
                if e.waiting:
                    e.stage = MOVED
                    continue
            # from here on `_end_step`, written out: as a call, even inlined, it cost
            # the loop an eighth of its speed (measured, N = 1,024)
            if d.over:
                if d.winner >= 0:
                    rewards[i] = d.stake if d.winner == e.seat else -d.stake  # `Outcome.reward`
                truncated[i] = d.truncated
                terminated[i] = not d.truncated
        observe(d, r, e.seat, observations[i])
        if not (terminated[i] or truncated[i]):
            _learner_mask(d, r, e.seat, mask)
            continue
        ended[i] = True
        if same_step:  # the ended duel kept, as a new one is dealt over it
            final_duels[i] = d
            final_observations[i] = observations[i]
            _reset_row(d, r, e, fixed_seat, mask, seen, i)
            _show_dealt(d, r, e, observations[i], mask)
        else:
            e.needs_reset = True
            mask[:] = False  # nothing is legal once the duel is over
    return -1


@numba.njit(cache=True)
def resume_rows(
    duels: np.ndarray,
    rules: np.ndarray,
    seats: np.ndarray,
    rows: np.ndarray,
    actions: np.ndarray,
    fixed_seat: int,
    same_step: bool,
    observations: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    masks: np.ndarray,
    final_observations: np.ndarray,
    final_duels: np.ndarray,
    ended: np.ndarray,
    seen: np.ndarray,
) -> None:
    """Apply `actions[k]` (legal, checked by the caller; -1 where the opponent forfeited
    and the caller ended the duel) for the opponent waiting in row `rows[k]`, and go on
    with that row's step or reset as `step_rows` and `reset_rows` would have."""
    r = rules[0]
    for k in range(rows.shape[0]):
        i = rows[k]
        d, e, mask = duels[i], seats[i], masks[i]
        e.waiting = False
        if actions[k] >= 0:
            apply(d, r, 1 - e.seat, actions[k], e.dice)
        _play_opponent(d, r, e, mask, seen, i)
        if e.waiting:
            continue
        if e.stage == DEALT:
            _show_dealt(d, r, e, observations[i], mask)
            continue
        _end_step(
            d,
            r,
            e,
            i,
            fixed_seat,
            same_step,
            observations,
            rewards,
            terminated,
            truncated,
            mask,
            final_observations,
            final_duels,
            ended,
            seen,
        )


@numba.njit(cache=True)
def _end_step(
    d: np.void,
    r: np.void,
    e: np.void,
    i: int,
    fixed_seat: int,
    same_step: bool,
    observations: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    mask: np.ndarray,
    final_observations: np.ndarray,
    final_duels: np.ndarray,
    ended: np.ndarray,
    seen: np.ndarray,
) -> None:
    """The end of a legal step in a row whose opponent decided outside the kernels (what
    `step_rows` writes out): the reward and end (`Outcome.reward`), the learner's
    observation and mask, and the autoreset of a row whose duel ended."""
    if d.over:
        if d.winner >= 0:
            rewards[i] = d.stake if d.winner == e.seat else -d.stake
        truncated[i] = d.truncated
        terminated[i] = not d.truncated
    observe(d, r, e.seat, observations[i])
    if not (terminated[i] or truncated[i]):
        _learner_mask(d, r, e.seat, mask)
        return
    ended[i] = True
    if same_step:  # the ended duel kept, as a new one is dealt over it
        final_duels[i] = d
        final_observations[i] = observations[i]
        _reset_row(d, r, e, fixed_seat, mask, seen, i)
        _show_dealt(d, r, e, observations[i], mask)
    else:
        e.needs_reset = True
        mask[:] = False  # nothing is legal once the duel is over


# --- tournament play: `runner.play_duel` for every row, two policies and no env -----------


@numba.njit(cache=True)
def _play_on(d: np.void, r: np.void, t: np.void, observation: np.ndarray, mask: np.ndarray) -> None:
    """Play on until a seat whose policy is not compiled must decide (its observation and
    mask filled, `t.seat` set) or the duel ends (`t.seat` -1). The random policy draws
    from its seat's generator."""
    while True:
        seat = to_act(d, r)
        t.seat = seat
        if seat < 0:
            return
        legal_actions(d, r, seat, mask)
        if not t.compiled[seat]:
            observe(d, r, seat, observation)
            return
        apply(d, r, seat, _random_legal(t.rng[seat], mask), t.dice)
        t.decisions += 1


@numba.njit(cache=True)
def start_rows(
    duels: np.ndarray,
    rules: np.ndarray,
    table: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
) -> None:
    """Deal every row's duel and play it up to the first decision left to Python."""
    r = rules[0]
    for i in range(duels.shape[0]):
        new_duel(duels[i], r, table[i].dice)
        _play_on(duels[i], r, table[i], observations[i], masks[i])


@numba.njit(cache=True)
def play_rows(
    duels: np.ndarray,
    rules: np.ndarray,
    table: np.ndarray,
    rows: np.ndarray,
    actions: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
) -> None:
    """Apply `actions[k]` (legal, checked by the caller) for the seat deciding in row
    `rows[k]`, and play each of those rows on to its next decision left to Python."""
    r = rules[0]
    for k in range(rows.shape[0]):
        i = rows[k]
        d, t = duels[i], table[i]
        apply(d, r, t.seat, actions[k], t.dice)
        t.decisions += 1
        _play_on(d, r, t, observations[i], masks[i])
