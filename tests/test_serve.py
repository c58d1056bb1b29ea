"""The local HTTP API, through FastAPI's test client: every route and every error, and
a fuzz run of generated requests that must never meet a server error."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")  # what starlette's test client reads

from fastapi.testclient import TestClient  # noqa: E402

from duelo.agents import encode, entries, load_brain  # noqa: E402
from duelo.envs.core.dice import GeneratorDice  # noqa: E402
from duelo.envs.systems import SYSTEMS  # noqa: E402
from duelo.serve import MAX_BODY, create_app  # noqa: E402

CLIENT = TestClient(
    create_app(["dunwich", "infierno"]), base_url="http://localhost", raise_server_exceptions=False
)


def decision(system: str) -> tuple[np.ndarray, np.ndarray]:
    ruleset = SYSTEMS[system].ruleset()
    state = ruleset.new_duel(GeneratorDice(2))
    seat = ruleset.to_act(state)
    return ruleset.observe(state, seat), ruleset.legal_actions(state, seat)


def test_systems_and_brains() -> None:
    systems = CLIENT.get("/systems").json()
    assert [s["id"] for s in systems] == list(SYSTEMS)
    brains = CLIENT.get("/brains").json()
    assert {(b["name"], b["system"]) for b in brains} == {
        ("dunwich", "dunwich"),
        ("infierno", "infierno"),
    }


def test_act_on_a_flat_observation_and_on_a_situation() -> None:
    flat, mask = decision("dunwich")
    expected = load_brain("dunwich").act(flat, mask, np.random.default_rng(0))
    body = {"brain": "dunwich", "observation": flat.tolist(), "action_mask": mask.tolist()}
    answer = CLIENT.post("/v1/dunwich/act", json=body).json()
    assert answer["action"] == expected
    assert [c["id"] for c in answer["legal"]] == np.flatnonzero(mask).tolist()
    assert abs(sum(c["probability"] for c in answer["legal"]) - 1) < 1e-9
    situation = {row["name"]: float(flat[row["index"]]) for row in entries("dunwich")}
    assert np.array_equal(encode("dunwich", situation), flat)
    named = {"brain": "dunwich", "situation": situation, "action_mask": mask.tolist()}
    assert CLIENT.post("/v1/dunwich/act", json=named).json()["action"] == expected


@pytest.mark.parametrize(
    ("change", "status", "named"),
    [
        ({"mana": 3}, 422, "mana"),
        ({"brain": "vampiro"}, 422, "brain"),
        ({"observation": [0.0]}, 422, "observation"),
        ({"observation": None}, 422, "either observation or situation"),
        ({"action_mask": [False] * 19}, 422, "action_mask"),
        ({"situation": {"range": 2}}, 422, "situation"),
    ],
)
def test_act_errors_name_the_field(change: dict, status: int, named: str) -> None:
    flat, mask = decision("dunwich")
    body = {"brain": "dunwich", "observation": flat.tolist(), "action_mask": mask.tolist()}
    body.update(change)
    if "situation" in change:
        body.pop("observation")
    answer = CLIENT.post("/v1/dunwich/act", json=body)
    assert answer.status_code == status and named in json.dumps(answer.json())


def test_out_of_bounds_observations_and_unknown_systems() -> None:
    flat, mask = decision("dunwich")
    flat[0] = 99
    body = {"brain": "dunwich", "observation": flat.tolist(), "action_mask": mask.tolist()}
    answer = CLIENT.post("/v1/dunwich/act", json=body)
    assert answer.status_code == 422 and "outside its bounds" in answer.text
    assert CLIENT.post("/v1/chess/act", json=body).status_code == 404


def test_a_seeded_duel_is_narrated_and_repeatable() -> None:
    body = {"a": "brain:dunwich", "b": "expert", "seed": 4}
    first = CLIENT.post("/v1/dunwich/duel", json=body).json()
    assert first == CLIENT.post("/v1/dunwich/duel", json=body).json()
    assert first["winner"] in ("a", "b", "draw")
    assert any(event["text"].startswith("Duel over") for event in first["events"])


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"a": "os:system", "b": "expert"}, "a: not a policy"),
        ({"a": "expert", "b": "brain:/etc/passwd"}, "b: not a policy"),
        ({"a": "expert", "b": "random", "seed": -1}, "seed"),
        ({"a": "expert", "b": "random", "scenario": "moon"}, "scenario"),
        ({"a": "expert", "b": "random", "turns": 3}, "turns"),
    ],
)
def test_duel_errors_name_the_field(body: dict, named: str) -> None:
    answer = CLIENT.post("/v1/dunwich/duel", json=body)
    assert answer.status_code == 422 and named in answer.text


def test_a_body_over_the_limit_is_refused() -> None:
    answer = CLIENT.post("/v1/dunwich/act", content=b"x" * (MAX_BODY + 1))
    assert answer.status_code == 413


def test_the_openapi_spec_lists_every_route() -> None:
    spec = CLIENT.get("/openapi.json").json()
    routes = {"/health", "/systems", "/brains", "/v1/{system}/act", "/v1/{system}/duel"}
    routes |= {  # the table's (tests/test_table.py)
        "/table/api/setup",
        "/table/api/watch",
        "/table/api/replay",
        "/table/api/play",
        "/table/api/play/{key}",
        "/table/api/report/{system}",
        "/table/api/heatmap/{system}",
    }
    assert set(spec["paths"]) == routes
    assert spec["components"]["schemas"]["ActRequest"]["additionalProperties"] is False


JSON = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    ["brain", "observation", "action_mask", "situation", "a", "b", "seed", "scenario"]
)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    route=st.sampled_from(["act", "duel"]),
    system=st.sampled_from(["dunwich", "infierno", "chess", "DUNWICH"]),
    body=st.dictionaries(FIELDS, JSON, max_size=5) | JSON,
)
def test_fuzzed_requests_never_meet_a_server_error(route: str, system: str, body: object) -> None:
    answer = CLIENT.post(f"/v1/{system}/{route}", content=json.dumps(body, allow_nan=True))
    assert answer.status_code < 500, answer.text


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"action_mask": ["yes", "no"]}, "action_mask"),
        ({"brain": 7}, "brain"),
        ({"observation": ["1"]}, "observation"),
    ],
)
def test_a_value_of_another_json_type_is_refused(change: dict, named: str) -> None:
    flat, mask = decision("dunwich")
    body = {"brain": "dunwich", "observation": flat.tolist(), "action_mask": mask.tolist()}
    answer = CLIENT.post("/v1/dunwich/act", json={**body, **change})
    assert answer.status_code == 422 and named in answer.text


def test_integers_stand_for_floats_in_an_observation() -> None:
    flat, mask = decision("dunwich")
    body = {"brain": "dunwich", "observation": [int(v) if v == int(v) else v for v in flat]}
    answer = CLIENT.post("/v1/dunwich/act", json={**body, "action_mask": mask.tolist()})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("seed", ["7", True, 7.0])
def test_a_seed_must_be_an_integer(seed: object) -> None:
    answer = CLIENT.post("/v1/dunwich/duel", json={"a": "expert", "b": "random", "seed": seed})
    assert answer.status_code == 422 and "seed" in answer.text


def test_a_brain_plays_only_duels_that_fix_what_its_training_fixed() -> None:
    client = TestClient(create_app(["esgrima_duel_faithful"]), base_url="http://localhost")
    body = {"a": "brain:esgrima_duel_faithful", "b": "expert"}
    answer = client.post("/v1/esgrima_duel/duel", json=body)
    assert answer.status_code == 422 and "a: brain:esgrima_duel_faithful: trained" in answer.text


def test_health_and_docs_answer_offline() -> None:
    health = CLIENT.get("/health").json()
    assert health["status"] == "ok" and health["brains"] == ["dunwich", "infierno"]
    page = CLIENT.get("/docs")
    assert page.status_code == 200 and "/v1/{system}/act" in page.text
    assert "<script" not in page.text and "cdn" not in page.text.lower()
