"""The progress line of long work: the count, the rate of this run's work, the time left."""

from __future__ import annotations

import io

from duelo.evaluation.progress import EVERY, ProgressLine, progress_text


def test_the_text_says_the_rate_and_the_time_left() -> None:
    assert progress_text("infierno", 1200, 10000, "duels", 800.0, width=10) == (
        "infierno [#.........] 1,200/10,000 duels, 800 duels/s, 0:11 left"
    )
    assert progress_text("train", 0, 7_200_000, "steps", 1000.0, width=4).endswith(
        "7,200,000 steps, 1,000 steps/s, 2:00:00 left"
    )
    assert progress_text("vampiro", 0, 500, "duels", None, width=4) == (
        "vampiro [....] 0/500 duels"
    )


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_counts_only_this_runs_work_and_ends_once() -> None:
    """A resumed run starts at 4,000 done: its rate is of the duels it plays itself. The
    line is redrawn at most every EVERY seconds, and the end is drawn once."""
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine("dunwich", "duels", stream, clock)
    line(4000, 10000)
    assert stream.getvalue().endswith("4,000/10,000 duels")  # no rate yet: nothing played
    clock.now += EVERY / 2
    line(4010, 10000)
    assert "4,010" not in stream.getvalue()  # too soon to redraw
    clock.now += 2.0
    line(5000, 10000, ", 3 forfeits")
    assert stream.getvalue().endswith(
        "5,000/10,000 duels, 476 duels/s, 0:10 left, 3 forfeits"
    )  # 1,000 duels in 2.1 s
    line(10000, 10000)
    line(10000, 10000)
    assert stream.getvalue().count("\n") == 1
    assert stream.getvalue().endswith("\n")
