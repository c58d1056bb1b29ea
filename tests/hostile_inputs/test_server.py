"""Requests to `duelo serve`: every client error a 4xx naming the field, and no answer to
a Host that is not the server's (DNS rebinding)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")

from fastapi.testclient import TestClient  # noqa: E402

from duelo.serve import create_app  # noqa: E402
from tests.test_serve import decision  # noqa: E402

APP = create_app(["infierno"])
CLIENT = TestClient(APP, base_url="http://localhost", raise_server_exceptions=False)


def _act_body(observation: str) -> str:
    _, mask = decision("infierno")
    return (
        f'{{"brain": "infierno", "observation": {observation}, '
        f'"action_mask": {json.dumps(mask.tolist())}}}'
    )


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e309"])
def test_a_non_finite_observation_is_422(bad: str) -> None:
    flat, _ = decision("infierno")
    entries = [json.dumps(float(v)) for v in flat]
    entries[3] = bad
    response = CLIENT.post(
        "/v1/infierno/act",
        content=_act_body("[" + ", ".join(entries) + "]"),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert "finite" in response.text


def test_a_non_finite_situation_is_422() -> None:
    _, mask = decision("infierno")
    body = (
        '{"brain": "infierno", "situation": {"hp": NaN}, '
        f'"action_mask": {json.dumps(mask.tolist())}}}'
    )
    response = CLIENT.post(
        "/v1/infierno/act", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422 and "finite" in response.text


@pytest.mark.parametrize("system", ["esgrima_duel", "dunwich", "infierno"])
def test_a_scenario_a_system_does_not_have_is_422(system: str) -> None:
    body = {"a": "random", "b": "random", "scenario": "no_such_scenario"}
    response = CLIENT.post(f"/v1/{system}/duel", json=body)
    assert response.status_code == 422, response.text
    assert "scenario" in response.text


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example", 400),
        ("evil.example:8000", 400),
        ("localhost.evil.example", 400),
        ("localhost:8000", 200),
        ("127.0.0.1:8000", 200),
        ("[::1]:8000", 200),
    ],
)
def test_only_the_loopback_names_are_answered_by_default(host: str, status: int) -> None:
    response = CLIENT.get("/systems", headers={"host": host})
    assert response.status_code == status


def test_an_allowed_host_is_answered() -> None:
    client = TestClient(create_app((), allowed_hosts=["duelo.lan"]), base_url="http://duelo.lan")
    assert client.get("/systems").status_code == 200
    assert client.get("/systems", headers={"host": "localhost"}).status_code == 400


def test_act_never_answers_a_probability_that_is_not_a_number() -> None:
    flat, mask = decision("infierno")
    rng = np.random.default_rng(0)
    for _ in range(50):
        wild = np.clip(flat + rng.normal(scale=100, size=flat.shape), -1e6, 1e6)
        body = {"brain": "infierno", "observation": wild.tolist(), "action_mask": mask.tolist()}
        response = CLIENT.post("/v1/infierno/act", json=body)
        assert response.status_code in (200, 422)
        if response.status_code == 200:
            assert all(np.isfinite(c["probability"]) for c in response.json()["legal"])


def test_duelo_serve_answers_its_own_host_and_the_allowed_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    from duelo.cli import main

    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **where: served.update(app=app, **where))
    argv = ["serve", "--host", "10.0.0.5", "--allowed-host", "duelo.lan"]
    assert main(argv) == 0 and served["host"] == "10.0.0.5"
    for host, status in [("10.0.0.5", 200), ("duelo.lan", 200), ("localhost", 200), ("x.y", 400)]:
        client = TestClient(served["app"], base_url=f"http://{host}")
        assert client.get("/systems").status_code == status, host
