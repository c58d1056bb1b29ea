"""The table (`duelo serve`, page `/table`): its API through FastAPI's test client, then
the page in a real headless Chromium (Debian's chromium and chromium-driver, driven by
selenium): a duel watched to the end, a replay equal to its record, a game played to
the end, and a bad request shown as a message."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")  # what starlette's test client reads

from fastapi.testclient import TestClient  # noqa: E402

from duelo.envs.core.runner import play_duel  # noqa: E402
from duelo.envs.systems import SYSTEMS  # noqa: E402
from duelo.evaluation.tournament import RESULTS_FILE, TournamentSpec, run_tournament  # noqa: E402
from duelo.serve import create_app  # noqa: E402
from duelo.table import record_fight  # noqa: E402

SHOTS = Path(__file__).parent / "screenshots"
"""Where the browser tests leave a screenshot of each screen (for the notes; ignored)."""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tournament")
    spec = TournamentSpec(
        system="infierno",
        policies=("infierno:random", "infierno:expert"),
        duels=6,
        seed=5,
        variant={"scenario": "formal_duel"},
    )
    run_tournament(spec, out / "infierno")
    return out


@pytest.fixture(scope="module")
def client(tournament: Path) -> TestClient:
    app = create_app(tournament=tournament)
    return TestClient(app, base_url="http://localhost", raise_server_exceptions=False)


def test_a_watched_fight_is_the_fight_the_runner_plays(client: TestClient) -> None:
    """Frame by frame: a decision each, with the dice it made roll, ending as
    `play_duel` ends the same fight."""
    body = {"system": "vampiro_skirmish", "a": "expert", "b": "aggressive", "seed": 3}
    fight = client.post("/table/api/watch", json=body).json()
    ruleset = SYSTEMS["vampiro_skirmish"].ruleset()
    from duelo.agents.registry import make_policy
    from duelo.envs.core.runner import line_up

    seated = line_up(
        ruleset,
        make_policy("expert", "vampiro_skirmish"),
        make_policy("aggressive", "vampiro_skirmish"),
    )
    result = play_duel(ruleset, seated, 3)
    assert len(fight["frames"]) == result.decisions == fight["end"]["decisions"]
    assert fight["end"]["reason"] == result.outcome.reason
    assert fight["seats"] == ["A0", "A1", "B0", "B1"]
    narrated = fight["opening"]["events"] + [e for f in fight["frames"] for e in f["events"]]
    assert narrated == [e.text for e in result.state.log]
    rolled = [r for f in fight["frames"] for r in f["rolls"]]
    assert rolled and all(r[0] == 10 and 1 <= r[2] <= 10 for r in rolled)
    assert all(len(row) == len(fight["columns"]) for f in fight["frames"] for row in f["fighters"])
    assert any(f["why"] for f in fight["frames"])  # the expert says why


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_every_system_is_watched_through_its_declarations(client: TestClient, system: str) -> None:
    """Duels and skirmishes alike: a seat a fighter, a column an entry about itself, a
    frame a decision, whatever the system."""
    body = {"system": system, "a": "expert", "b": "random", "seed": 1}
    fight = client.post("/table/api/watch", json=body).json()
    seats = len(SYSTEMS[system].ruleset().sides)
    assert len(fight["seats"]) == seats and fight["columns"]
    assert all(len(f["fighters"]) == seats for f in fight["frames"])
    assert fight["end"]["decisions"] == len(fight["frames"])


def test_the_fighters_can_be_chosen_and_a_bad_one_is_named(client: TestClient) -> None:
    body = {"system": "vampiro", "a": "expert", "b": "expert", "fighters": ["thug", "hunter"]}
    fight = client.post("/table/api/watch", json=body).json()
    assert "street thug" in fight["opening"]["events"][0]
    wrong = client.post("/table/api/watch", json={**body, "fighters": ["thug", "nosferatu"]})
    assert wrong.status_code == 422 and "nosferatu" in wrong.json()["detail"]


def test_a_replay_is_identical_to_its_record(client: TestClient, tournament: Path) -> None:
    lines = (tournament / "infierno" / RESULTS_FILE).read_text().splitlines()
    for number, line in enumerate(lines):
        pasted = client.post("/table/api/replay", json={"record": json.loads(line)}).json()
        assert pasted["identical"] is True
        shown = client.post("/table/api/replay", json={"system": "infierno", "index": number})
        assert shown.json()["end"] == pasted["end"]
    edited = json.loads(lines[0])
    edited["decisions"] += 1
    answer = client.post("/table/api/replay", json={"record": edited}).json()
    assert answer["identical"] is False


def test_a_replay_rolls_the_dice_its_record_names(client: TestClient, tmp_path: Path) -> None:
    """A duel of a `--dice stream` tournament replays on a stream, not on keyed dice; a
    record naming dice of no kind is refused by field."""
    spec = TournamentSpec(
        "infierno", ("infierno:random", "infierno:expert"), duels=4, seed=5, dice="stream"
    )
    run_tournament(spec, tmp_path)
    keyed = []
    for line in (tmp_path / RESULTS_FILE).read_text().splitlines():
        record = json.loads(line)
        assert record["dice"] == "stream"
        replay = client.post("/table/api/replay", json={"record": record}).json()
        assert replay["identical"] is True
        other = {**record, "dice": "keyed"}
        keyed.append(client.post("/table/api/replay", json={"record": other}).json())
    assert not all(replay["identical"] for replay in keyed)  # the kind of dice mattered
    loaded = client.post("/table/api/replay", json={"record": {**record, "dice": "loaded"}})
    assert loaded.status_code == 422 and "record.dice" in loaded.json()["detail"]


def test_a_game_played_through_the_api_ends(client: TestClient) -> None:
    body = {"system": "dunwich_skirmish", "side": "B", "fighter": 1, "opponent": "expert"}
    view = client.post("/table/api/play", json={**body, "seed": 2}).json()
    key = view["session"]
    for _ in range(500):
        if "end" in view:
            break
        assert view["seats"][view["seat"]] == "B1"  # only its own fighter is asked
        view = client.post(f"/table/api/play/{key}", json={"action": view["legal"][0]["id"]}).json()
    assert "end" in view and view["end"]["winner"] in ("A", "B", "draw")
    late = client.post(f"/table/api/play/{key}", json={"action": 0})
    assert late.status_code == 422 and "over" in late.json()["detail"]


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("/table/api/watch", {"system": "nowhere", "a": "x", "b": "y"}, 404, "unknown system"),
        ("/table/api/watch", {"system": "infierno", "a": "nobody", "b": "expert"}, 422, "a:"),
        (
            "/table/api/watch",
            {"system": "infierno", "a": "tests.hostile:Spy", "b": "expert"},
            422,
            "module",
        ),
        (
            "/table/api/watch",
            {"system": "infierno", "a": "expert", "b": "expert", "seed": -1},
            422,
            "seed",
        ),
        (
            "/table/api/watch",
            {"system": "infierno", "scenario": "moon", "a": "expert", "b": "expert"},
            422,
            "moon",
        ),
        ("/table/api/replay", {"record": {"system": "infierno"}}, 422, "record"),
        ("/table/api/replay", {"system": "infierno", "index": 10**6}, 422, "index"),
        ("/table/api/play", {"system": "infierno", "side": "C", "opponent": "expert"}, 422, "side"),
        (
            "/table/api/play",
            {"system": "infierno", "side": "A", "fighter": 2, "opponent": "expert"},
            422,
            "fighter",
        ),
        ("/table/api/play/nope", {"action": 0}, 404, "no such fight"),
    ],
)
def test_bad_requests_are_clear_refusals(
    client: TestClient, path: str, body: dict[str, Any], status: int, words: str
) -> None:
    answer = client.post(path, json=body)
    assert answer.status_code == status
    assert words in json.dumps(answer.json())


def test_an_illegal_move_is_refused_and_loses_nothing(client: TestClient) -> None:
    view = client.post(
        "/table/api/play", json={"system": "infierno", "side": "A", "opponent": "expert", "seed": 1}
    ).json()
    legal = {choice["id"] for choice in view["legal"]}
    illegal = next(a for a in range(100) if a not in legal)
    key = view["session"]
    refused = client.post(f"/table/api/play/{key}", json={"action": illegal})
    assert refused.status_code == 422 and "illegal" in refused.json()["detail"]
    again = client.post(f"/table/api/play/{key}", json={"action": min(legal)})
    assert again.status_code == 200


def test_the_report_page_links_duels_of_each_pairing(client: TestClient) -> None:
    page = client.get("/table/api/report/infierno").text
    assert "<table>" in page and "random" in page
    assert "href='/table?replay=infierno:0'" in page
    assert client.get("/table/api/report/dunwich").status_code == 404


def test_the_page_fetches_nothing_from_elsewhere(client: TestClient) -> None:
    for name in ("/table", "/table/table.js", "/table/table.css"):
        text = client.get(name).text
        assert "http://" not in text and "https://" not in text, name
    assert client.get("/table/elsewhere.js").status_code == 404


def test_record_fight_sees_no_frame_before_a_decision() -> None:
    """A fight with no decision (none here plays that short) still has its opening and
    end; each frame's action is the one its seat chose."""
    ruleset = SYSTEMS["infierno"].ruleset()
    from duelo.agents.registry import make_policy

    expert = make_policy("expert", "infierno")
    fight = record_fight(ruleset, (expert, expert), 1)
    assert fight["opening"]["events"] and fight["end"]["winner"] in ("A", "B", "draw")
    assert all(ruleset.action_meanings[f["action"]] == f["meaning"] for f in fight["frames"])


# --- the page in a real browser ------------------------------------------------------


def _browser() -> Any:
    webdriver = pytest.importorskip("selenium.webdriver", reason="the dev extra: selenium")
    chromium = shutil.which("chromium")
    driver = shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip("Debian's chromium and chromium-driver (.ci/run installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,1600"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    from selenium.webdriver.chrome.service import Service

    return webdriver.Chrome(service=Service(driver), options=options)


@pytest.fixture(scope="module")
def page(tournament: Path) -> Iterator[tuple[Any, str]]:
    uvicorn = pytest.importorskip("uvicorn")
    browser = _browser()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # log_config None: uvicorn's dictConfig would close the test runner's log handlers
    app = create_app(tournament=tournament)
    config = uvicorn.Config(app, port=port, log_level="warning", log_config=None)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    SHOTS.mkdir(exist_ok=True)
    try:
        yield browser, f"http://127.0.0.1:{port}"
    finally:
        browser.quit()
        server.should_exit = True
        thread.join(10)


def _no_script_errors(browser: Any) -> None:
    """Nothing the page ran raised (the browser's console has no script error)."""
    errors = [e for e in browser.get_log("browser") if e.get("source") == "javascript"]
    assert not errors, errors


def _wait(browser: Any, test: Any, what: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 60).until(lambda _: test(), message=what)


def _by_id(browser: Any, name: str) -> Any:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.ID, name)


def _choose(browser: Any, name: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(_by_id(browser, name)).select_by_value(value)


def test_a_duel_is_watched_to_the_end_in_a_browser(page: tuple[Any, str]) -> None:
    browser, root = page
    browser.get(f"{root}/table")
    _wait(browser, lambda: _by_id(browser, "system").get_attribute("value"), "the setup")
    _choose(browser, "system", "vampiro")
    _choose(browser, "policy-a", "vampiro:expert")
    _choose(browser, "policy-b", "vampiro:aggressive")
    _by_id(browser, "go").click()
    _wait(browser, lambda: _by_id(browser, "fight").is_displayed(), "the fight")
    assert "step 0 of" in _by_id(browser, "step").text
    _by_id(browser, "next").click()
    assert "chooses" in _by_id(browser, "decision").text
    browser.save_screenshot(str(SHOTS / "watch.png"))
    _by_id(browser, "last").click()
    assert _by_id(browser, "outcome").text.startswith("Winner:")
    assert _by_id(browser, "error").is_displayed() is False
    _no_script_errors(browser)


def test_a_replay_shows_it_equals_its_record_in_a_browser(page: tuple[Any, str]) -> None:
    browser, root = page
    browser.get(f"{root}/table")
    _wait(browser, lambda: _by_id(browser, "system").get_attribute("value"), "the setup")
    _by_id(browser, "tab-report").click()
    _wait(
        browser,
        lambda: "replay=" in _by_id(browser, "report-body").get_attribute("innerHTML"),
        "the report",
    )
    browser.save_screenshot(str(SHOTS / "report.png"))
    from selenium.webdriver.common.by import By

    browser.find_elements(By.CSS_SELECTOR, "a.replay")[0].click()
    _wait(browser, lambda: _by_id(browser, "identical").text, "the replay")
    assert _by_id(browser, "identical").text == "Replayed: identical to its record"
    _by_id(browser, "last").click()
    browser.save_screenshot(str(SHOTS / "replay.png"))
    assert _by_id(browser, "outcome").text.startswith("Winner:")
    _no_script_errors(browser)


def test_a_game_is_played_to_the_end_in_a_browser(page: tuple[Any, str]) -> None:
    """Side A of the formal duel against the expert (seed 1: A decides first), a legal
    button a turn until the duel ends."""
    from selenium.webdriver.common.by import By

    browser, root = page
    browser.get(f"{root}/table")
    _wait(browser, lambda: _by_id(browser, "system").get_attribute("value"), "the setup")
    _by_id(browser, "tab-play").click()
    _choose(browser, "system", "infierno")
    _choose(browser, "policy-b", "infierno:expert")
    _by_id(browser, "seed").clear()
    _by_id(browser, "seed").send_keys("1")
    _by_id(browser, "go").click()
    _wait(browser, lambda: _by_id(browser, "playing").is_displayed(), "the game")
    browser.save_screenshot(str(SHOTS / "play.png"))
    moves = 0
    for _ in range(300):
        if _by_id(browser, "play-outcome").text:
            break
        buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button.action")
        before = _by_id(browser, "play-events").get_attribute("innerHTML")
        buttons[0].click()
        moves += 1
        _wait(
            browser,
            lambda before=before: (
                _by_id(browser, "play-outcome").text
                or _by_id(browser, "play-events").get_attribute("innerHTML") != before
            ),
            "the next turn",
        )
    assert moves >= 1 and _by_id(browser, "play-outcome").text.startswith("Winner:")
    _no_script_errors(browser)


def test_a_bad_request_is_a_message_not_a_broken_page(page: tuple[Any, str]) -> None:
    browser, root = page
    browser.get(f"{root}/table")
    _wait(browser, lambda: _by_id(browser, "system").get_attribute("value"), "the setup")
    _by_id(browser, "seed").clear()
    _by_id(browser, "seed").send_keys("-5")
    _by_id(browser, "go").click()
    _wait(browser, lambda: _by_id(browser, "error").is_displayed(), "the message")
    assert "422" in _by_id(browser, "error").text and "seed" in _by_id(browser, "error").text
    _by_id(browser, "tab-replay").click()
    _by_id(browser, "record").send_keys("not json")
    _by_id(browser, "replay-go").click()
    _wait(browser, lambda: "not JSON" in _by_id(browser, "error").text, "the message")
    browser.save_screenshot(str(SHOTS / "error.png"))
    assert _by_id(browser, "system").is_displayed() is False  # the page still works
    _no_script_errors(browser)


def test_a_player_is_not_told_a_later_declaration_before_the_turn_ends() -> None:
    """Vampiro (§12, §10 #30): at the table, as at `duelo play`, a person who declared
    first reads the NPC's declaration only once the turn is over."""
    from duelo.agents.registry import make_policy
    from duelo.table import Session

    ruleset = SYSTEMS["vampiro"].ruleset()
    expert = make_policy("expert", "vampiro")
    for seed in range(100):
        session = Session(ruleset, frozenset({0}), (expert, expert), seed)
        state = session.state
        if state.first_declarer != 0 or state.tied:
            continue
        while ruleset.to_act(state) == 0 and state.round == 1:
            legal = {choice["name"]: choice["id"] for choice in session.view()["legal"]}
            session.act(legal.get("DELAY", min(legal.values())))  # a delay is asked again
            rival = [e.text for e in state.log if e.seat == 1 and "declares" in e.text]
            if rival and state.round == 1 and ruleset.to_act(state) == 0:
                # asked again in the turn (to abort, say): the rival's plan is not told
                assert not set(rival) & set(session.view()["events"])
                return
    pytest.fail("no seed where the person declares first and the turn goes on")
