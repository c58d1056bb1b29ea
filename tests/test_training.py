"""Training: a short run learns, is reproducible, resumes, and exports a faithful brain.

These runs are a few thousand steps, sized for CI; the shipped brains come from
the documented long command (docs/training.md).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from duelo.agents.brain import WEIGHTS, load_brain  # noqa: E402
from duelo.agents.registry import make_policy  # noqa: E402
from duelo.envs.core.config import ConfigError  # noqa: E402
from duelo.envs.core.runner import duel_streams  # noqa: E402
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset  # noqa: E402
from duelo.envs.systems import SYSTEMS  # noqa: E402
from duelo.evaluation.duels import run_job  # noqa: E402
from duelo.evaluation.report import Tally, score_of_a  # noqa: E402
from duelo.evaluation.tournament import TournamentSpec, schedule  # noqa: E402
from duelo.training import train as training  # noqa: E402
from duelo.training.settings import TrainSettings, load_settings  # noqa: E402


def short(**changes: object) -> TrainSettings:
    base = TrainSettings(
        env_id="duelo/Infierno-v2",
        n_timesteps=4096,
        n_envs=4,
        n_steps=128,
        batch_size=256,
        n_epochs=4,
        net_arch=(32, 32),
        opponents=("random",),
        eval_every=2048,
        eval_duels=20,
        checkpoint_every=2048,
        env_kwargs={"scenario": "formal_duel"},
    )
    return base.with_overrides(**changes)


def few_steps(**changes: object) -> TrainSettings:
    """`short` cut to one rollout of 128 steps an env, evaluated every 256 steps."""
    steps = {"n_timesteps": 256, "n_steps": 128, "batch_size": 128, "eval_every": 256}
    return short(**{**steps, "checkpoint_every": 256, **changes})


def score_against_random(policy: str, duels: int = 400) -> Tally:
    spec = TournamentSpec(
        system="infierno",
        policies=(policy, "infierno:random"),
        duels=duels,
        seed=99,
        variant={"scenario": "formal_duel"},
    )
    tally = Tally()
    for job in schedule(spec):
        tally = tally.add(score_of_a(run_job(job)))
    return tally


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("run")
    training.train(short(), run)
    return run


def test_short_run_improves_on_random(trained: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # duel seeds derive from the policy names: a name free of the temporary folder's
    # path makes the duels, and so this check, the same in every run
    monkeypatch.chdir(trained)
    tally = score_against_random(f"brain:./{training.LATEST_BRAIN}")
    low, _ = tally.interval
    assert low > 0.5, tally  # random against random scores 0.5 by symmetry


def test_run_directory_holds_settings_logs_and_evaluations(trained: Path) -> None:
    assert load_settings(trained / "settings.yaml") == short()
    assert (trained / "logs" / "progress.csv").read_text().startswith(("rollout", "time", "train"))
    header, *rows = (trained / training.EVALUATIONS).read_text().splitlines()
    assert header == "timesteps,opponent,duels,score,low,high"
    assert len(rows) == 2 and rows[0].startswith("2048,random,20,")
    snapshots = sorted(p.name for p in (trained / "snapshots").iterdir())
    assert snapshots == ["final", "step_2048", "step_4096"]


def test_numpy_brain_equals_the_masked_torch_policy(trained: Path) -> None:
    """The exported brain's masked argmax equals MaskablePPO's deterministic action."""
    from sb3_contrib import MaskablePPO

    brain = load_brain(trained / training.LATEST_BRAIN)
    model = MaskablePPO.load(trained / training.CHECKPOINT, device="cpu")
    with np.load(trained / training.NORMALIZER) as saved:
        mean, var = saved["mean"], saved["var"]
    env = gym.make("duelo/Infierno-v2", flat_observation=True, opponent="expert")
    observations, masks = [], []
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    while len(observations) < 10_000:
        observations.append(obs)
        masks.append(info["action_mask"])
        obs, _, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(masks[-1])))
        if terminated or truncated:
            obs, info = env.reset()
    observations, masks = np.array(observations), np.array(masks)
    normalized = np.clip((observations - mean) / np.sqrt(var + 1e-8), -10, 10).astype(np.float32)
    torch_actions, _ = model.predict(normalized, action_masks=masks, deterministic=True)
    numpy_actions = [brain.act(o, m, rng) for o, m in zip(observations, masks, strict=True)]
    assert np.array_equal(torch_actions, numpy_actions)


def test_same_seed_same_weights(tmp_path: Path) -> None:
    settings = short(n_timesteps=1024, eval_every=10**6, checkpoint_every=10**6)
    training.train(settings, tmp_path / "a")
    training.train(settings, tmp_path / "b")
    with (
        np.load(tmp_path / "a" / training.LATEST_BRAIN / WEIGHTS) as a,
        np.load(tmp_path / "b" / training.LATEST_BRAIN / WEIGHTS) as b,
    ):
        assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files)


def test_a_killed_run_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every evaluation promotes a snapshot, so the resumed run must reload the pool
    settings = short(n_timesteps=4096, eval_every=1024, checkpoint_every=1024, promote_score=0.0)
    original = training.TrainingLoop.checkpoint

    def checkpoint_then_die(self: training.TrainingLoop) -> None:
        original(self)
        if self.num_timesteps >= 2048:
            raise KeyboardInterrupt

    monkeypatch.setattr(training.TrainingLoop, "checkpoint", checkpoint_then_die)
    with pytest.raises(KeyboardInterrupt):
        training.train(settings, tmp_path)
    monkeypatch.setattr(training.TrainingLoop, "checkpoint", original)
    with pytest.raises(FileExistsError, match="--resume"):
        training.train(settings, tmp_path)
    saved = json.loads((tmp_path / training.STATE).read_text())
    assert saved["snapshots"] == ["step_1024", "step_2048"]
    brain = training.train(settings, tmp_path, resume=True)
    assert load_brain(brain).manifest["evaluation"]["timesteps"] >= 4096
    assert json.loads((tmp_path / training.STATE).read_text())["snapshots"][-1] == "step_4096"


def test_export_writes_a_loadable_brain(trained: Path, tmp_path: Path) -> None:
    out = training.export_run(trained, tmp_path / "brains" / "duelist")
    brain = load_brain(out, system="infierno")
    assert brain.name == "brain:duelist"
    assert set(brain.manifest["evaluation"]["against"]) == {"random"}
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        training.export_run(tmp_path, tmp_path / "x")


def test_export_best_takes_the_best_evaluated_brain(trained: Path, tmp_path: Path) -> None:
    state = json.loads((trained / training.STATE).read_text())
    scores = []
    for line in (trained / training.EVALUATIONS).read_text().splitlines()[1:]:
        steps, _, _, score, *_ = line.split(",")
        scores.append((float(score), int(steps)))
    best = load_brain(training.export_run(trained, tmp_path / "best", best=True))
    assert best.name == "brain:best"
    assert best.manifest["evaluation"] == state["best"]["evaluation"]
    assert state["best"]["mean_score"] >= max(score for score, _ in scores)


def test_options_in_env_kwargs_reach_the_env_and_the_evaluations(tmp_path: Path) -> None:
    """`options` is one name for gymnasium.make, the ruleset and the evaluation tournaments."""
    settings = few_steps(
        n_timesteps=512,
        n_envs=2,
        env_kwargs={"scenario": "brawl", "options": {"round_cap": 3, "allow_prone": False}},
    )
    training.train(settings, tmp_path)
    rows = (tmp_path / training.EVALUATIONS).read_text().splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == ["256", "512"]


def test_scenarios_share_the_envs_and_each_is_evaluated(tmp_path: Path) -> None:
    """Training across scenarios: env i plays scenario i % n, evaluations play them all."""
    settings = few_steps(
        n_envs=3,
        env_kwargs={},
        scenarios=("formal_duel", "brawl"),
    )
    pool = training.OpponentPool(settings, np.random.default_rng(0))
    envs = [training.make_env(settings, pool, i)() for i in range(3)]
    played = [env.unwrapped.ruleset.scenario.id for env in envs]
    assert played == ["formal_duel", "brawl", "formal_duel"]
    training.train(settings, tmp_path)
    rows = (tmp_path / training.EVALUATIONS).read_text().splitlines()[1:]
    assert [row.split(",")[1] for row in rows] == ["random@formal_duel", "random@brawl"]


def test_the_suite_shares_the_envs_and_each_setup_is_evaluated(tmp_path: Path) -> None:
    """suite: true trains across the setups `duelo tournament` plays: for the fencing duel,
    the symmetric duel and the faithful one (its own fighters), each evaluated."""
    settings = few_steps(n_envs=3, env_id="duelo/EsgrimaDuel-v2", env_kwargs={}, suite=True)
    pool = training.OpponentPool(settings, np.random.default_rng(0))
    envs = [training.make_env(settings, pool, i)().unwrapped for i in range(3)]
    variants = [env.ruleset.options.duel_variant for env in envs]
    assert variants == ["symmetric", "faithful", "symmetric"]
    assert [c.id for c in envs[1].ruleset.characters] == ["apprentice", "pirate"]
    training.train(settings, tmp_path)
    rows = (tmp_path / training.EVALUATIONS).read_text().splitlines()[1:]
    assert [row.split(",")[1] for row in rows] == [
        "random@duel_variant=symmetric",
        "random@duel_variant=faithful",
    ]


def test_a_suite_is_refused_beside_scenarios_or_with_one_setup() -> None:
    with pytest.raises(ValueError, match="not both"):
        short(env_kwargs={}, scenarios=("brawl",), suite=True)
    with pytest.raises(ValueError, match="one setup"):
        short(env_id="duelo/Esgrima-v2", env_kwargs={}, suite=True)


@pytest.mark.parametrize(
    ("scenarios", "named"),
    [
        (["formal_duel", "no_such_place"], "scenarios.*no_such_place"),
        (["brawl", "brawl"], "repeats"),
    ],
)
def test_bad_scenarios_are_refused_when_the_settings_are_read(
    tmp_path: Path, scenarios: list[str], named: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        yaml.safe_dump({"duelo/Infierno-v2": {"scenarios": scenarios}}), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=f"{path}.*{named}"):
        load_settings(path)


def test_a_scenario_named_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        short(scenarios=("brawl",))


@pytest.mark.parametrize(
    ("env_kwargs", "named"),
    [
        ({"rules": {"round_cap": 3}}, "'rules' is not a variant of infierno"),
        ({"options": {"round_cap": 0}}, "round_cap"),
        ({"options": {"no_such_ruling": 1}}, "no_such_ruling"),
    ],
)
def test_bad_env_kwargs_are_refused_when_the_settings_are_read(
    tmp_path: Path, env_kwargs: dict, named: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        yaml.safe_dump({"duelo/Infierno-v2": {"env_kwargs": env_kwargs}}), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=f"{path}.*{named}"):
        load_settings(path)


def test_a_finished_run_resumes_with_more_timesteps_keeping_its_logs(tmp_path: Path) -> None:
    settings = short(n_timesteps=1024, eval_every=512, checkpoint_every=512)
    training.train(settings, tmp_path)
    first_log = (tmp_path / "logs" / "progress.csv").read_text()
    brain = training.train(settings, tmp_path, resume=True)  # nothing left: exports again
    assert load_brain(brain).manifest["evaluation"]["timesteps"] == 1024
    brain = training.train(short(n_timesteps=2048), tmp_path, resume=True)  # extends
    assert load_brain(brain).manifest["evaluation"]["timesteps"] >= 2048
    assert (tmp_path / "logs" / "progress.csv").read_text() == first_log
    # two legs resumed from the 1024 checkpoint: each its own logs (the first learnt nothing)
    assert (tmp_path / "logs" / "from_1024" / "progress.csv").exists()
    assert (tmp_path / "logs" / "from_1024.2" / "progress.csv").read_text().count("\n") >= 2
    rows = (tmp_path / training.EVALUATIONS).read_text().splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == ["512", "1024", "1536", "2048"]


def test_ctrl_c_checkpoints_before_the_first_scheduled_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = short(n_timesteps=2048, eval_every=4096, checkpoint_every=4096)
    original = training.TrainingLoop._on_step

    def interrupted(self: training.TrainingLoop) -> bool:
        if self.num_timesteps >= 1024:
            raise KeyboardInterrupt
        return original(self)

    monkeypatch.setattr(training.TrainingLoop, "_on_step", interrupted)
    with pytest.raises(KeyboardInterrupt):
        training.train(settings, tmp_path)
    monkeypatch.setattr(training.TrainingLoop, "_on_step", original)
    assert json.loads((tmp_path / training.STATE).read_text())["timesteps"] >= 1024
    brain = training.train(settings, tmp_path, resume=True)
    assert load_brain(brain).manifest["evaluation"]["timesteps"] >= 2048


def test_export_reads_no_pickle(
    trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A doctored checkpoint's pickled data is never loaded: export reads the weights only."""
    import pickle

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("export unpickled something")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    out = training.export_run(trained, tmp_path / "brain")
    assert load_brain(out).system == "infierno"


def test_a_kill_inside_a_checkpoint_leaves_a_whole_one(trained: Path, tmp_path: Path) -> None:
    """Killed after the old checkpoint moved aside and before the new one took its place:
    the old one comes back, and the half-written new one is dropped."""
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    (run / training.CHECKPOINT_DIR).rename(run / f"{training.CHECKPOINT_DIR}.old")
    (run / f"{training.CHECKPOINT_DIR}.new").mkdir()
    (run / f"{training.CHECKPOINT_DIR}.new" / "model.zip").write_bytes(b"half")
    out = training.export_run(run, tmp_path / "brain")
    assert load_brain(out).system == "infierno"
    assert sorted(p.name for p in run.iterdir() if p.name.startswith("checkpoint")) == [
        "checkpoint"
    ]


def test_a_crash_before_the_first_checkpoint_resumes_from_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = short(n_timesteps=1024, eval_every=4096, checkpoint_every=4096)
    original = training.TrainingLoop._on_step

    def crash(self: training.TrainingLoop) -> bool:
        if self.num_timesteps >= 512:
            raise MemoryError  # no Ctrl-C checkpoint: as if the process died here
        return original(self)

    monkeypatch.setattr(training.TrainingLoop, "_on_step", crash)
    with pytest.raises(MemoryError):
        training.train(settings, tmp_path)
    monkeypatch.setattr(training.TrainingLoop, "_on_step", original)
    assert json.loads((tmp_path / training.STATE).read_text())["timesteps"] == 0
    brain = training.train(settings, tmp_path, resume=True)
    assert load_brain(brain).manifest["evaluation"]["timesteps"] >= 1024


@pytest.mark.parametrize(
    ("damaged", "content", "message"),
    [
        (training.STATE, b"{not json", "state.json: not JSON"),
        (training.STATE, b"[]", "state.json: not a loop state"),
        (training.NORMALIZER, b"garbage", "normalizer.npz: not a readable normaliser"),
        (training.CHECKPOINT, b"garbage", "model.zip: not a"),
    ],
)
def test_a_damaged_checkpoint_names_its_file(
    trained: Path, tmp_path: Path, damaged: str, content: bytes, message: str
) -> None:
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    (run / damaged).write_bytes(content)
    with pytest.raises(ValueError, match=message):
        training.train(short(), run, resume=True)
    with pytest.raises(ValueError, match=message):
        training.export_run(run, tmp_path / "brain")


def test_a_teacher_warm_start_copies_the_teacher(tmp_path: Path) -> None:
    """Imitating the faithful card duel's solved play (DAgger, 16,000 decisions) and
    hardly any PPO after it: the brain then makes the teacher's move at most decisions,
    where an untrained network makes it at one in seven (93 % against 14 % measured)."""
    faithful = {"options": {"duel_variant": "faithful"}}
    settings = short(
        env_id="duelo/EsgrimaDuel-v2",
        env_kwargs=faithful,
        opponents=("esgrima_duel:random",),
        teacher="esgrima_duel:optimal",
        teacher_decisions=16_000,
        n_timesteps=512,
        learning_rate=1e-5,
        eval_every=10**6,
        net_arch=(64, 64),
    )
    training.train(settings, tmp_path)
    brain = load_brain(str(tmp_path / training.LATEST_BRAIN), "esgrima_duel")
    teacher = make_policy("esgrima_duel:optimal", "esgrima_duel", faithful)
    ruleset = EsgrimaDuelRuleset(options=faithful["options"])
    agreed = decisions = 0
    rng = np.random.default_rng(0)
    for seed in range(200):
        dice, _ = duel_streams(seed)
        state = ruleset.new_duel(dice)
        while ruleset.to_act(state) is not None:
            view = ruleset.observation_spec.view(ruleset.observe(state, 0))
            mask = ruleset.legal_actions(state, 0)
            move = teacher.act(view, mask, rng)
            agreed += brain.act(view, mask, rng) == move
            decisions += 1
            ruleset.apply(state, 0, move, dice)
    assert agreed / decisions > 0.8, (agreed, decisions)


def test_a_teacher_comes_with_its_decisions() -> None:
    with pytest.raises(ValueError, match="teacher and teacher_decisions"):
        short(teacher="random")
    with pytest.raises(ValueError, match="teacher and teacher_decisions"):
        short(teacher_decisions=100)


def test_each_env_imitates_the_teacher_of_its_own_scenario(tmp_path: Path) -> None:
    """Across two Liminal scenarios (one round each, so each solves in a moment), env i
    imitates the solved play of the scenario it plays: one scenario's teacher would meet
    the other's observations and refuse them."""
    settings = short(
        env_id="duelo/Liminal-v2",
        env_kwargs={"options": {"round_cap": 1}},
        scenarios=("brawl", "standoff"),
        opponents=("liminal:random",),
        teacher="liminal:optimal",
        teacher_decisions=8_000,
        n_timesteps=512,
        learning_rate=1e-5,
        eval_every=10**6,
    )
    training.train(settings, tmp_path)
    brain = load_brain(str(tmp_path / training.LATEST_BRAIN), "liminal")
    rng = np.random.default_rng(0)
    for scenario in settings.scenarios:
        variant = settings.variant(scenario)
        teacher = make_policy("liminal:optimal", "liminal", variant)
        ruleset = SYSTEMS["liminal"].ruleset(**variant)
        agreed = decisions = 0
        for seed in range(100):
            dice, _ = duel_streams(seed)
            state = ruleset.new_duel(dice)
            while (seat := ruleset.to_act(state)) is not None:
                view = ruleset.observation_spec.view(ruleset.observe(state, seat))
                mask = ruleset.legal_actions(state, seat)
                move = teacher.act(view, mask, rng)
                agreed += brain.act(view, mask, rng) == move
                decisions += 1
                ruleset.apply(state, seat, move, dice)
        assert agreed / decisions > 0.8, (scenario, agreed, decisions)


def test_the_fast_engine_without_its_extra_is_a_clear_error(
    tmp_path: Path, without_extra: Callable[[str], None]
) -> None:
    without_extra("numba")
    fast = short(self_play=False, env_kwargs={"scenario": "formal_duel"})
    with pytest.raises(ValueError, match=r"pip install 'duelo\[fast\]'"):
        training.train(fast, tmp_path, engine="fast")


def test_a_skirmish_side_shares_the_network_in_training(tmp_path: Path) -> None:
    """`allies: learner`: the network in training plays the learner's allies (parameter
    sharing), sampling only legal moves, and the brain's manifest says how many fighters
    a side it reads."""
    settings = few_steps(
        env_id="duelo/InfiernoSkirmish-v0", n_envs=2, env_kwargs={"scenario": "two_on_two"}
    )
    assert settings.allies == "learner"
    seen: list[int] = []
    original = training.SharedNetwork.act

    def watched(self: training.SharedNetwork, observation, action_mask, rng) -> int:  # noqa: ANN001
        action = original(self, observation, action_mask, rng)
        assert action_mask[action]
        seen.append(action)
        return action

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(training.SharedNetwork, "act", watched)
        brain = training.train(settings, tmp_path)
    assert seen  # the allies were played by the network
    manifest = json.loads((brain / "manifest.json").read_text())
    assert manifest["max_side"] == 4 and manifest["training"]["allies"] == "learner"
    assert load_brain(brain).manifest["env_id"] == "duelo/InfiernoSkirmish-v0"


def test_the_shared_network_samples_its_policy_over_the_legal_moves() -> None:
    """Its choice follows the network's masked distribution: with all logits equal, each
    legal move alike, and never an illegal one."""
    settings = few_steps(env_id="duelo/InfiernoSkirmish-v0", env_kwargs={})
    pool = training.OpponentPool(settings, np.random.default_rng(0))
    venv = training.VecNormalize(training.DummyVecEnv([training.make_env(settings, pool, 0)]))
    model = training.model_class(settings)("MlpPolicy", venv, n_steps=8, batch_size=8, seed=0)
    head = model.policy.action_net
    with torch.no_grad():  # every logit equal, whatever the observation
        head.weight.zero_()
        head.bias.zero_()
    shared = training.SharedNetwork(model, venv, "infierno_skirmish")
    env = gym.make("duelo/InfiernoSkirmish-v0")
    observation, info = env.reset(seed=0)
    mask = info["action_mask"]
    rng = np.random.default_rng(0)
    picks = [shared.act(observation, mask, rng) for _ in range(600)]
    legal = np.flatnonzero(mask)
    assert set(picks) == set(legal.tolist())
    counts = np.bincount(picks, minlength=len(mask))[legal]
    expected = 600 / len(legal)  # 3 sigma of a binomial count
    assert np.all(np.abs(counts - expected) <= 3 * np.sqrt(expected * (1 - 1 / len(legal))))


def test_allies_must_name_a_policy_of_the_system() -> None:
    with pytest.raises(ValueError, match="nobody"):
        few_steps(env_id="duelo/InfiernoSkirmish-v0", env_kwargs={}, allies="nobody")
