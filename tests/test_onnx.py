"""ONNX: every shipped brain as one graph decides as the numpy brain does, through
onnxruntime, on 10,000 observations from real duels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from duelo.agents.brain import load_brain, shipped_brains  # noqa: E402
from duelo.agents.onnx_export import SENTIS_OPERATORS, brain_graph  # noqa: E402
from duelo.agents.registry import make_policy  # noqa: E402
from duelo.cli import main  # noqa: E402
from duelo.envs.core.dice import GeneratorDice  # noqa: E402
from duelo.envs.systems import SYSTEMS  # noqa: E402

BRAINS = [name.removeprefix("brain:") for system in SYSTEMS for name in shipped_brains(system)]
SAMPLES = 10_000


def duel_observations(brain_name: str, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision of duels between the brain and the
    system's expert, as they were played."""
    brain = load_brain(brain_name)
    ruleset = SYSTEMS[brain.system].ruleset()
    players = (brain, make_policy("expert", brain.system))
    spec = ruleset.observation_spec
    observations, masks = [], []
    seed = 0
    while len(observations) < count:
        dice, rng = GeneratorDice(seed), np.random.default_rng(seed)
        state = ruleset.new_duel(dice)
        while (seat := ruleset.to_act(state)) is not None and len(observations) < count:
            flat, mask = ruleset.observe(state, seat), ruleset.legal_actions(state, seat)
            observations.append(flat)
            masks.append(mask)
            player = players[(seat + seed) % 2]
            ruleset.apply(state, seat, player.act(spec.view(flat), mask.copy(), rng), dice)
        seed += 1
    return np.array(observations, np.float32), np.array(masks, bool)


@pytest.mark.parametrize("name", BRAINS)
def test_onnx_decides_as_the_numpy_brain(name: str) -> None:
    brain = load_brain(name)
    session = ort.InferenceSession(brain_graph(brain).SerializeToString())
    observations, masks = duel_observations(name, SAMPLES)
    actions, logits, valid = session.run(None, {"observation": observations, "action_mask": masks})
    assert valid.all()
    expected = [
        brain.act(o, m, np.random.default_rng(0)) for o, m in zip(observations, masks, strict=True)
    ]
    assert actions.tolist() == expected
    assert np.abs(logits - brain.logits(observations)).max() < 1e-4


def test_the_command_writes_a_loadable_model_with_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "infierno.onnx"
    assert main(["onnx", "infierno", "--out", str(out)]) == 0
    import onnx

    model = onnx.load(str(out))
    props = {p.key: p.value for p in model.metadata_props}
    assert json.loads(props["duelo_manifest"])["system"] == "infierno"
    assert [i.name for i in model.graph.input] == ["observation", "action_mask"]


def test_an_unknown_brain_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["onnx", "no_such_brain", "--out", str(tmp_path / "x.onnx")]) == 2
    assert "no_such_brain" in capsys.readouterr().err


@pytest.mark.parametrize("name", BRAINS)
def test_a_row_the_numpy_brain_refuses_is_flagged(name: str) -> None:
    """A mask with no legal action, or a NaN or an infinity in the observation: `valid`
    false and action -1, where the numpy brain raises (a row of its own, the others
    decided as usual)."""
    brain = load_brain(name)
    session = ort.InferenceSession(brain_graph(brain).SerializeToString())
    observations, masks = duel_observations(name, 4)
    masks[0] = False
    observations[1, 0] = np.nan
    observations[2, -1] = np.inf
    actions, _, valid = session.run(None, {"observation": observations, "action_mask": masks})
    assert valid.tolist() == [False, False, False, True]
    assert actions[:3].tolist() == [-1, -1, -1]
    assert actions[3] == brain.act(observations[3], masks[3], np.random.default_rng(0))
    with pytest.raises(ValueError, match="allows no action"):
        brain.act(observations[3], masks[0], np.random.default_rng(0))
    for row in (1, 2):
        with pytest.raises(ValueError, match="not a finite number"):
            brain.act(observations[row], masks[3], np.random.default_rng(0))


def test_the_graph_is_float32_and_sentis_operators_only() -> None:
    """No double tensor and no operator outside Unity Sentis' supported list."""
    graph = brain_graph(load_brain(BRAINS[0])).graph
    assert {node.op_type for node in graph.node} <= SENTIS_OPERATORS
    kinds = {t.data_type for t in graph.initializer} | {
        a.i for node in graph.node for a in node.attribute if a.name == "to"
    }
    assert 11 not in kinds  # TensorProto.DOUBLE
