"""numpy's PCG64 and `Generator.integers`, replayed in compiled code for N streams at once.

A scalar duel rolls its dice from `GeneratorDice` (a PCG64 of its own) and its random
opponent draws from `default_rng`; both come down to PCG64's 64-bit outputs, split
into 32-bit words low half first, and Lemire's bounded-integer method on each word.
Replaying exactly that here lets a batched duel roll the very faces its scalar twin
rolls from the same seed, so the two engines can be compared decision for decision.

A stream is a `uint64` array of `STREAM_WORDS`: the 128-bit state and increment as
high and low halves, and numpy's buffered upper word (`has_uint32`, `uinteger`).
"""

from __future__ import annotations

import numba
import numpy as np

STREAM_WORDS = 6
_STATE_HI, _STATE_LO, _INC_HI, _INC_LO, _HAS_WORD, _WORD = range(STREAM_WORDS)
_MULT_HI = np.uint64(2549297995355413924)
_MULT_LO = np.uint64(4865540595714422341)
"""PCG's default 128-bit multiplier, numpy's PCG64 (pcg64.h)."""
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO_32 = 1 << 32


def stream_of(bit_generator: np.random.BitGenerator) -> np.ndarray:
    """The row of a numpy PCG64 as it stands now (it goes on from there, not from its seed)."""
    state = bit_generator.state
    value, inc = state["state"]["state"], state["state"]["inc"]
    low = (1 << 64) - 1
    row = [value >> 64, value & low, inc >> 64, inc & low, state["has_uint32"], state["uinteger"]]
    return np.array(row, dtype=np.uint64)


def generator_on(stream: np.ndarray) -> np.random.Generator:
    """A numpy `Generator` standing where `stream` stands (`stream_of` reads it back):
    for a policy that draws outside the kernels from a row's generator."""
    hi, lo, inc_hi, inc_lo, has_word, word = (int(value) for value in stream)
    bit_generator = np.random.PCG64()
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": hi << 64 | lo, "inc": inc_hi << 64 | inc_lo},
        "has_uint32": has_word,
        "uinteger": word,
    }
    return np.random.Generator(bit_generator)


def seeded_stream(seed: int | np.random.SeedSequence) -> np.ndarray:
    """The row of `np.random.PCG64(seed)`: what `GeneratorDice(seed)` and `default_rng(seed)`
    draw from."""
    return stream_of(np.random.PCG64(seed))


@numba.njit(inline="always")
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of a 64 x 64-bit product (numba has no 128-bit integers)."""
    a_lo, a_hi = a & _MASK32, a >> np.uint64(32)
    b_lo, b_hi = b & _MASK32, b >> np.uint64(32)
    cross = (a_lo * b_lo >> np.uint64(32)) + (a_hi * b_lo & _MASK32) + a_lo * b_hi
    return a_hi * b_hi + (a_hi * b_lo >> np.uint64(32)) + (cross >> np.uint64(32))


@numba.njit
def next64(stream: np.ndarray) -> np.uint64:
    """PCG64's next output (XSL-RR of the stepped 128-bit LCG state)."""
    hi, lo = stream[_STATE_HI], stream[_STATE_LO]
    new_lo = lo * _MULT_LO
    new_hi = _mulhi(lo, _MULT_LO) + lo * _MULT_HI + hi * _MULT_LO
    inc_lo = stream[_INC_LO]
    added = new_lo + inc_lo
    new_hi = new_hi + stream[_INC_HI] + np.uint64(added < inc_lo)
    stream[_STATE_HI], stream[_STATE_LO] = new_hi, added
    value = new_hi ^ added
    rot = new_hi >> np.uint64(58)
    return (value >> rot) | (value << ((np.uint64(64) - rot) & np.uint64(63)))


@numba.njit
def next32(stream: np.ndarray) -> np.uint64:
    """numpy's `next_uint32`: the low half of a new output, then its buffered high half."""
    if stream[_HAS_WORD]:
        stream[_HAS_WORD] = 0
        return stream[_WORD]
    value = next64(stream)
    stream[_HAS_WORD] = 1
    stream[_WORD] = value >> np.uint64(32)
    return value & _MASK32


@numba.njit
def roll(stream: np.ndarray, sides: int) -> int:
    """One face 1..sides, as `Generator.integers(1, sides + 1)` draws it (Lemire's method on
    32-bit words; nothing is drawn for one side), and as `GeneratorDice.roll` does."""
    if sides == 1:
        return 1
    n = np.uint64(sides)
    threshold = np.uint64((_TWO_32 - sides) % sides)
    while True:
        product = next32(stream) * n
        if product & _MASK32 >= threshold:
            return int(product >> np.uint64(32)) + 1
