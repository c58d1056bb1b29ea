"""A one-line count of long work (a tournament's duels, a training run's steps) on a
terminal: how much is done, at what rate, and how long the rest will take.

Kept to these few lines rather than tqdm or rich: the core installs with gymnasium,
numpy and pyyaml alone, and a tournament is the core's main job."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

EVERY = 0.2
"""Seconds between two redraws: often enough to look alive, rarely enough to cost nothing."""


def progress_text(
    label: str, done: int, total: int, unit: str, rate: float | None, width: int = 24
) -> str:
    """`label [####....] 1,200/10,000 duels, 850 duels/s, 0:10 left`: the rate (units a
    second) once one is known, the time left from it."""
    filled = width * min(done, total) // max(total, 1)
    text = f"{label} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} {unit}"
    if rate is None or rate <= 0:
        return text
    left = max(total - done, 0) / rate
    minutes, seconds = divmod(round(left), 60)
    hours, minutes = divmod(minutes, 60)
    clock = f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
    return f"{text}, {rate:,.0f} {unit}/s, {clock} left"


class ProgressLine:
    """Redraws one line of `stream` as work is done. The rate counts only the work done
    since the first call (a resumed run's earlier duels took no time in this one); the
    line is drawn at the first call, at most every `EVERY` seconds after, and at the end,
    where it ends with a newline
    (and later calls draw nothing)."""

    def __init__(
        self,
        label: str,
        unit: str,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.unit = unit
        self.stream = stream or sys.stderr
        self.clock = clock
        self.first: tuple[float, int] | None = None
        self.drawn = -EVERY
        self.ended = False

    def __call__(self, done: int, total: int, note: str = "") -> None:
        now = self.clock()
        if self.first is None:
            self.first = (now, done)
        final = done >= total
        if self.ended or (not final and now - self.drawn < EVERY):
            return
        self.ended = final
        self.drawn = now
        began, done_then = self.first
        rate = (done - done_then) / (now - began) if now > began and done > done_then else None
        text = progress_text(self.label, done, total, self.unit, rate)
        print(f"\r\033[K{text}{note}", end="\n" if final else "", file=self.stream, flush=True)
