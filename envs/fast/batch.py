"""What every batched duel engine shares: the seats and streams of its rows, and seeding.

Each row of a batch is one `DuelEnv` (`envs/core/duel_env.py`), replayed exactly:
the learner's seat, its illegal-action streak, whether its opponent is played inside
the kernels (the random policy) or waits on a decision made outside, and three
streams, which are the env's own generators:

- `dice`: the `GeneratorDice` of the duel,
- `opponent`: the opponent policy's generator,
- `env_rng`: the env's `np_random`, which draws the seat at each reset.

`seed_rows` seeds them as `DuelEnv.reset(seed=...)` does, so row i of a batch
seeded with `seed + i` plays the duels of `gymnasium.make(env_id)` reset with
that seed (Gymnasium's own rule for the sub-envs of a vector env).
"""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding

from duelo.envs.core.duel_env import opponent_seed
from duelo.envs.core.runner import seat_seed
from duelo.envs.fast.streams import STREAM_WORDS, seeded_stream, stream_of

__all__ = [
    "PLAY_DTYPE",
    "SEATS_DTYPE",
    "ending_words",
    "new_seats",
    "seed_rows",
    "seeded_table",
]


SEATS_DTYPE = np.dtype(
    [
        ("seat", np.int64),
        ("streak", np.int64),
        ("needs_reset", np.bool_),  # next-step autoreset: the next action starts a new duel
        ("compiled", np.bool_),  # this duel's opponent is the random policy, played inside
        ("next_compiled", np.bool_),  # and the next duel's
        ("dealt", np.bool_),  # a duel was dealt since the caller last looked
        ("waiting", np.bool_),  # the opponent must decide, outside the kernels
        ("stage", np.int64),  # what the row does once it has (`loops.MOVED`, `DEALT`)
        ("dice", np.uint64, (STREAM_WORDS,)),
        ("opponent", np.uint64, (STREAM_WORDS,)),
        ("env_rng", np.uint64, (STREAM_WORDS,)),
    ],
    align=True,
)
"""The env's side of one row."""


def new_seats(num_envs: int) -> np.ndarray:
    return np.zeros(num_envs, SEATS_DTYPE)


def seed_rows(seats: np.ndarray, rows: np.ndarray, seeds: list[int | None], key: bytes) -> None:
    """Seed each row of `rows` as `DuelEnv.reset(seed=seed)` seeds a fresh env whose
    `opponent_key` is `key`.

    `DuelEnv` draws the dice's seed and then the opponent's (hashed under the key) from
    `np_random`; the rest of `np_random` draws the seats.
    """
    for row, seed in zip(rows, seeds, strict=True):
        np_random, _ = seeding.np_random(seed)
        seats["dice"][row] = seeded_stream(int(np_random.integers(2**63)))
        draw = int(np_random.integers(2**63))
        seats["opponent"][row] = seeded_stream(opponent_seed(draw, key))
        seats["env_rng"][row] = stream_of(np_random.bit_generator)


PLAY_DTYPE = np.dtype(
    [
        ("seat", np.int64),  # the seat to decide, or -1 once the duel is over
        ("decisions", np.int64),
        ("compiled", np.uint8, (2,)),  # 1: the seat's policy is random, played in the kernel
        ("dice", np.uint64, (STREAM_WORDS,)),
        ("rng", np.uint64, (2, STREAM_WORDS)),  # each seat's generator
    ],
    align=True,
)
"""The runner's side of one row of tournament play (`envs/core/runner.play_duel`)."""


def ending_words(endings: tuple[str, ...], duel: np.void, cap: int, names: tuple[str, str]) -> str:
    """The reference's `Outcome.reason` of an ended duel: the template its ending code
    (`duel["ending"]`) picks in `endings`, with the fighters named `names` and the
    round cap `cap` filled in."""
    winner = int(duel["winner"])
    return endings[int(duel["ending"])].format(
        winner=names[winner] if winner >= 0 else "",
        loser=names[1 - winner] if winner >= 0 else "",
        cap=cap,
    )


def seeded_table(seeds: list[int], random_seats: np.ndarray) -> np.ndarray:
    """Rows seeded as `runner.duel_streams(seed)` seeds a duel: the dice and each seat's
    generator; `random_seats[i, s]` says the random policy plays seat s of row i."""
    table = np.zeros(len(seeds), PLAY_DTYPE)
    for row, seed in enumerate(seeds):
        table["dice"][row] = seeded_stream(np.random.SeedSequence(seed, spawn_key=(0,)))
        for seat in (0, 1):
            table["rng"][row, seat] = seeded_stream(seat_seed(seed, seat))
    table["compiled"] = random_seats
    return table
