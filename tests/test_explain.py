"""`duelo duel --explain`: what a brain or an expert weighed, under each of its decisions."""

from __future__ import annotations

import numpy as np
import pytest

from duelo.agents import load_brain
from duelo.cli import main, print_duel
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.systems import SYSTEMS


def test_a_brain_explains_with_the_probabilities_of_its_choice() -> None:
    ruleset = SYSTEMS["vampiro"].ruleset()
    state = ruleset.new_duel(GeneratorDice(0))
    seat = ruleset.to_act(state)
    flat, mask = ruleset.observe(state, seat), ruleset.legal_actions(state, seat)
    brain = load_brain("vampiro")
    chosen = brain.act(flat, mask, np.random.default_rng(0))
    why = brain.explain(flat, mask)
    first = why.removeprefix("probabilities: ").split(", ")[0]
    assert first.split()[0] == ruleset.actions(chosen).name
    shares = [float(part.split()[1]) for part in why.removeprefix("probabilities: ").split(", ")]
    assert 0 < sum(shares) <= 1.0 + 1e-9 and shares == sorted(shares, reverse=True)


@pytest.mark.parametrize(
    ("system", "a", "b", "said"),
    [
        ("dunwich", "brain:dunwich", "expert", "value in Incapacitation boxes:"),
        ("vampiro", "expert", "brain:vampiro", "health levels dealt less taken:"),
        ("esgrima_duel", "brain:esgrima_duel", "expert", "expected PG swing, with the hand"),
    ],
)
def test_the_duel_command_explains(
    system: str, a: str, b: str, said: str, capsys: pytest.CaptureFixture
) -> None:
    assert main(["duel", system, "--a", a, "--b", b, "--seed", "2", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "probabilities: " in out and said in out and "Result: " in out
    assert main(["duel", system, "--a", a, "--b", b, "--seed", "2"]) == 0
    plain = capsys.readouterr().out
    assert "probabilities" not in plain
    assert [line for line in out.splitlines() if not line.startswith("    [")] == plain.splitlines()


class Mumbling:
    """A policy of someone else's whose explanation breaks."""

    name = "mumbling"
    description = "plays the first legal action; its explain raises"

    def act(self, observation: object, action_mask: np.ndarray, rng: object) -> int:
        return int(np.flatnonzero(action_mask)[0])

    def explain(self, observation: object, action_mask: np.ndarray) -> str:
        raise RuntimeError("lost for words")


def test_a_failing_explanation_does_not_stop_the_duel(capsys: pytest.CaptureFixture) -> None:
    """In process (named as module:Class it plays sandboxed, where only `act` is asked)."""
    print_duel("dunwich", Mumbling(), "random", 0, {}, explain=True)
    out = capsys.readouterr().out
    assert "its explain raised RuntimeError: lost for words" in out and "Result: " in out
