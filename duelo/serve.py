"""`duelo serve`: NPC brains behind a local HTTP API, for tools in any language.

Routes: `GET /health` (up, its version, the brains loaded), `GET /systems` (every
system, its actions and every observation entry by name), `GET /brains` (the brains
loaded), `POST /v1/{system}/act` (a loaded brain's
action for a flat observation and mask, or for a situation written with entry names)
and `POST /v1/{system}/duel` (a seeded duel between two named policies, its narration
as JSON). Brains are loaded at startup only, from the command line, never from a
path a request names; a duel's policies are the system's scripted NPCs and the loaded
brains, and a brain plays only duels that fix what its training fixed. Request bodies
over `MAX_BODY` bytes are refused (413); unknown fields, values of another JSON type
than the field's ("7" for a seed) and out-of-bound values are refused (422) with the
field named; a request whose Host header
is not an allowed host (by default the loopback names) is refused (400), so a web page
cannot reach the server through DNS rebinding. The OpenAPI spec is at
`/openapi.json`, and `/docs` lists the routes on a page that fetches nothing, so it
reads offline. Needs the `serve` extra.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path as FilePath
from typing import Annotated, Any

import numpy as np
from fastapi import FastAPI, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.middleware.trustedhost import TrustedHostMiddleware

import duelo
from duelo.agents.brain import BrainError, NumpyBrain, check_fits, load_brain
from duelo.agents.encode import encode
from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.runner import DICE_KINDS, line_up, play_duel
from duelo.evaluation.tournament import MAC_FIELD, RECORD_TYPES, TournamentSpec
from duelo.registration import SYSTEMS, describe_systems
from duelo.table import (
    Session,
    Sessions,
    load_tournament,
    record_fight,
    replay,
    table_policy,
)

MAX_BODY = 64 * 1024
"""Bytes a request body may hold (a flat observation is a few hundred numbers)."""
MAX_SEED = 2**63 - 1
MOVE_TIME_LIMIT = TournamentSpec.move_time_limit
"""Seconds a policy of a served duel may think per move, as in a tournament."""

SystemId = Annotated[str, Path(pattern=r"^[a-z_]{1,40}$")]


class Strict(BaseModel):
    """Unknown fields are refused, and so is a value of another JSON type than the
    field's: "7" or true for a seed, "yes" for a mask entry (an integer stands for a
    float, as JSON writes 2.0)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ActRequest(Strict):
    """A flat `observation` with its `action_mask`, or a `situation` by entry names."""

    brain: str = Field(max_length=100)
    observation: list[float] | None = Field(default=None, max_length=4096)
    action_mask: list[bool] = Field(max_length=512)
    situation: dict[str, float] | None = Field(default=None, max_length=4096)

    @field_validator("observation")
    @classmethod
    def finite(cls, values: list[float] | None) -> list[float] | None:
        if values is not None and not all(math.isfinite(v) for v in values):
            raise ValueError("observation entries must be finite numbers")
        return values

    @field_validator("situation")
    @classmethod
    def finite_entries(cls, values: dict[str, float] | None) -> dict[str, float] | None:
        if values is not None and not all(math.isfinite(v) for v in values.values()):
            raise ValueError("situation entries must be finite numbers")
        return values


class Choice(BaseModel):
    id: int
    name: str
    probability: float


class ActResponse(BaseModel):
    action: int
    name: str
    legal: list[Choice]


class DuelRequest(Strict):
    a: str = Field(max_length=120, description="policy of side A: an NPC or a loaded brain")
    b: str = Field(max_length=120, description="policy of side B")
    seed: int = Field(default=0, ge=0, le=MAX_SEED)
    scenario: str | None = Field(default=None, max_length=60)


class WatchRequest(Strict):
    system: str = Field(pattern=r"^[a-z_]{1,40}$")
    scenario: str | None = Field(default=None, max_length=60)
    fighters: list[Annotated[str, Field(max_length=60)]] | None = Field(
        default=None, max_length=6, description="a character id a seat (default: the scenario's)"
    )
    a: str = Field(max_length=120, description="policy of side A: an NPC or a brain")
    b: str = Field(max_length=120, description="policy of side B")
    seed: int = Field(default=0, ge=0, le=MAX_SEED)


class ReplayRequest(Strict):
    """A tournament duel: its record (a line of `results.jsonl`, as JSON), or the
    number of a duel of the tournament the server shows (`--tournament`)."""

    record: dict[str, Any] | None = None
    system: str | None = Field(default=None, pattern=r"^[a-z_]{1,40}$")
    index: int | None = Field(default=None, ge=0, le=10_000_000)


class PlayRequest(Strict):
    system: str = Field(pattern=r"^[a-z_]{1,40}$")
    scenario: str | None = Field(default=None, max_length=60)
    fighters: list[Annotated[str, Field(max_length=60)]] | None = Field(
        default=None, max_length=6, description="a character id a seat (default: the scenario's)"
    )
    side: str = Field(pattern=r"^[AB]$", description="the side the person plays")
    fighter: int | None = Field(
        default=None, ge=0, le=5, description="one fighter of the side (None: all of it)"
    )
    opponent: str = Field(max_length=120, description="the NPC or brain at every other seat")
    seed: int = Field(default=0, ge=0, le=MAX_SEED)


class ActionRequest(Strict):
    action: int = Field(ge=0, le=100_000)


class Event(BaseModel):
    round: int
    seat: int | None
    text: str


class DuelResponse(BaseModel):
    winner: str
    reason: str
    decisions: int
    events: list[Event]


class BodyLimit:
    """ASGI middleware: reads a request's body up to `limit` bytes before the app sees
    it, and answers 413 past that (whatever the Content-Length header claims)."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await JSONResponse({"detail": f"body over {self.limit} bytes"}, 413)(
                    scope, receive, send
                )
                return
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The Host names answered by default: a page elsewhere that points its own name at
127.0.0.1 (DNS rebinding) sends its name, and is refused (400)."""


def create_app(
    brains: Sequence[str] = (),
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    tournament: FilePath | None = None,
) -> FastAPI:
    """The API over the brains named (shipped names or folders), loaded now, answering
    requests whose Host header is one of `allowed_hosts`; the table's report pages show
    the finished `tournament` folder, read now."""
    loaded: dict[str, NumpyBrain] = {}
    for reference in brains:
        brain = load_brain(reference)
        loaded[brain.name.removeprefix("brain:")] = brain
    shown = None if tournament is None else load_tournament(tournament)
    sessions = Sessions()
    app = FastAPI(
        title="duelo", version=duelo.__version__, description=__doc__, docs_url=None, redoc_url=None
    )

    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        """422 naming each field, without echoing its value (a NaN or an infinity the
        client sent cannot be written back as JSON, and FastAPI's own answer would be 500)."""
        detail = [{k: e[k] for k in ("loc", "msg", "type") if k in e} for e in error.errors()]
        return JSONResponse({"detail": detail}, 422)

    def known_system(system: str) -> None:
        if system not in SYSTEMS:
            raise HTTPException(404, f"unknown system {system!r}")

    @app.get("/health")
    def health() -> dict[str, Any]:
        """Whether the server answers, its version and the brains it holds."""
        return {"status": "ok", "version": duelo.__version__, "brains": sorted(loaded)}

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def docs() -> str:
        """The routes and their bodies, from the OpenAPI spec, as a page that fetches
        nothing (FastAPI's own pages load their scripts from a CDN)."""
        return routes_page(app.openapi())

    @app.get("/systems")
    def systems() -> list[dict[str, Any]]:
        return describe_systems()

    @app.get("/brains")
    def list_brains() -> list[dict[str, str]]:
        return [
            {"name": name, "system": b.system, "description": b.description}
            for name, b in loaded.items()
        ]

    @app.post("/v1/{system}/act")
    def act(system: SystemId, request: ActRequest) -> ActResponse:
        known_system(system)
        brain = loaded.get(request.brain)
        if brain is None or brain.system != system:
            raise HTTPException(422, f"brain: no loaded {system} brain named {request.brain!r}")
        if (request.observation is None) == (request.situation is None):
            raise HTTPException(422, "give either observation or situation, not both")
        if request.observation is not None:
            flat = np.asarray(request.observation, np.float32)
            spec = brain.spec
            if flat.shape != (spec.size,):
                raise HTTPException(422, f"observation: {spec.size} entries expected")
            outside = np.flatnonzero((flat < spec.low) | (flat > spec.high))
            if outside.size:
                name = spec.field_names()[outside[0]]
                raise HTTPException(422, f"observation: {name} lies outside its bounds")
        else:
            try:
                flat = encode(system, request.situation or {})
            except ValueError as error:
                raise HTTPException(422, f"situation: {error}") from None
        mask = np.asarray(request.action_mask, bool)
        actions = SYSTEMS[system].ruleset.actions
        if mask.shape != (len(actions),) or not mask.any():
            raise HTTPException(422, f"action_mask: {len(actions)} booleans, one true")
        action = brain.act(flat, mask, np.random.default_rng(0))
        logits = brain.logits(flat).astype(np.float64)
        legal = np.flatnonzero(mask)
        weights = np.exp(logits[legal] - logits[legal].max())
        chances = weights / weights.sum()
        return ActResponse(
            action=action,
            name=actions(action).name,
            legal=[
                Choice(id=int(a), name=actions(int(a)).name, probability=float(p))
                for a, p in zip(legal, chances, strict=True)
            ],
        )

    @app.post("/v1/{system}/duel")
    def duel(system: SystemId, request: DuelRequest) -> DuelResponse:
        known_system(system)
        allowed = {
            *policy_names(system),
            *(f"brain:{n}" for n, b in loaded.items() if b.system == system),
        }
        allowed |= {name.split(":", 1)[1] for name in policy_names(system)}
        for field in ("a", "b"):
            if getattr(request, field) not in allowed:
                raise HTTPException(
                    422,
                    f"{field}: not a policy of {system} here (known: {', '.join(sorted(allowed))})",
                )
        variant = {} if request.scenario is None else {"scenario": request.scenario}
        try:
            SYSTEMS[system].check_variant(variant, "scenario")
        except ValueError as error:
            raise HTTPException(422, str(error)) from None
        for field in ("a", "b"):
            name = getattr(request, field)
            if name.startswith("brain:"):
                try:
                    check_fits(loaded[name.removeprefix("brain:")], variant)
                except BrainError as error:
                    raise HTTPException(422, f"{field}: {error}") from None
        ruleset = SYSTEMS[system].ruleset(**variant)
        a, b = (
            loaded[name.removeprefix("brain:")]
            if name.startswith("brain:")
            else make_policy(name, system)
            for name in (request.a, request.b)
        )
        result = play_duel(ruleset, line_up(ruleset, a, b), request.seed, MOVE_TIME_LIMIT)
        outcome = result.outcome
        return DuelResponse(
            winner="draw" if outcome.winner is None else "ab"[outcome.winner],
            reason=outcome.reason,
            decisions=result.decisions,
            events=[Event(round=e.round, seat=e.seat, text=e.text) for e in result.state.log],
        )

    # --- the table (`/table`): watch, replay and play in the browser ------------------

    @app.get("/table", response_class=HTMLResponse, include_in_schema=False)
    def table_page() -> str:
        return _asset("table.html")

    @app.get("/table/{name}", include_in_schema=False)
    def table_asset(name: str) -> Response:
        if name not in ASSETS:
            raise HTTPException(404, f"no {name!r} here")
        return Response(_asset(name), media_type=ASSETS[name])

    @app.get("/table/api/setup")
    def table_setup() -> dict[str, Any]:
        """What the table can play: each system's scenarios and policies (its NPCs, its
        shipped brains, the brains loaded), and whether a tournament is shown."""
        return {
            "systems": [
                {
                    "id": name,
                    "name": entry.name,
                    "scenarios": list(entry.scenarios),
                    "seats": len(entry.ruleset().sides),
                    "max_side": entry.max_side,
                    "policies": [
                        *policy_names(name),
                        *(f"brain:{n}" for n, b in loaded.items() if b.system == name),
                    ],
                }
                for name, entry in SYSTEMS.items()
            ],
            "tournament": [] if shown is None else sorted(shown.records),
        }

    def seated(system: str, variant: dict[str, Any], names: Sequence[str], field: str) -> Any:
        """The ruleset of `variant` and each named policy, each refusal naming its field."""
        known_system(system)
        try:
            SYSTEMS[system].check_variant(variant, "variant")
        except ValueError as error:
            raise HTTPException(422, str(error)) from None
        policies = []
        for where, name in zip(field.split(","), names, strict=True):
            try:
                policies.append(table_policy(name, system, variant, loaded))
            except (ValueError, KeyError, BrainError) as error:
                raise HTTPException(422, f"{where}: {error}") from None
        return SYSTEMS[system].ruleset(**variant), policies

    @app.post("/table/api/watch")
    def table_watch(request: WatchRequest) -> dict[str, Any]:
        """A seeded fight between two policies, frame by frame (`table.record_fight`)."""
        variant = table_variant(request.scenario, request.fighters)
        ruleset, (a, b) = seated(request.system, variant, (request.a, request.b), "a,b")
        return record_fight(ruleset, line_up(ruleset, a, b), request.seed)

    @app.post("/table/api/replay")
    def table_replay(request: ReplayRequest) -> dict[str, Any]:
        """A tournament duel played again from its record; `identical` says whether it
        ended as the record says."""
        if request.record is not None:
            record = checked_record(request.record)
        elif shown is not None and request.system in shown.records and request.index is not None:
            kept = shown.records[request.system]
            if request.index >= len(kept):
                raise HTTPException(422, f"index: {request.system} has {len(kept)} duels")
            record = kept[request.index]
        else:
            raise HTTPException(422, "give a record, or a system and index of the tournament shown")
        names = (record["a"], record["b"])
        ruleset, (a, b) = seated(record["system"], record["variant"], names, "record.a,record.b")
        if record["version"] != ruleset.version:
            raise HTTPException(
                422,
                f"record: played on v{record['version']}, the rules are v{ruleset.version} now",
            )
        return replay(record, (a, b), ruleset)

    @app.post("/table/api/play")
    def table_play(request: PlayRequest) -> dict[str, Any]:
        """A fight for a person: its session and what the person sees first."""
        variant = table_variant(request.scenario, request.fighters)
        ruleset, (npc,) = seated(request.system, variant, (request.opponent,), "opponent")
        side = "AB".index(request.side)
        seats = [s for s, x in enumerate(ruleset.sides) if x == side]
        if request.fighter is not None and request.fighter >= len(seats):
            raise HTTPException(422, f"fighter: side {request.side} has {len(seats)} fighters")
        people = frozenset(seats if request.fighter is None else (seats[request.fighter],))
        session = Session(ruleset, people, tuple(npc for _ in ruleset.sides), request.seed)
        return {"session": sessions.add(session), **session.view()}

    @app.post("/table/api/play/{key}")
    def table_act(key: str, request: ActionRequest) -> dict[str, Any]:
        try:
            session = sessions.get(key)
        except KeyError:
            raise HTTPException(404, "no such fight (it ended long ago, or never began)") from None
        try:
            view = session.act(request.action)
        except ValueError as error:
            raise HTTPException(422, f"action: {error}") from None
        return {"session": key, **view}

    @app.get("/table/api/report/{system}", response_class=HTMLResponse)
    def table_report(system: SystemId) -> str:
        """The shown tournament's report for `system`, as HTML, with links to its duels."""
        if shown is None or system not in shown.pages:
            raise HTTPException(
                404, f"no tournament of {system!r} is shown (duelo serve --tournament)"
            )
        return shown.pages[system]

    @app.get("/table/api/heatmap/{system}")
    def table_heatmap(system: SystemId) -> Response:
        if shown is None or system not in shown.heatmaps:
            raise HTTPException(404, f"no heatmap of {system!r}")
        return Response(shown.heatmaps[system], media_type="image/png")

    return app


ASSETS = {"table.js": "text/javascript", "table.css": "text/css"}
"""The page's files besides itself, all shipped in the package: it fetches nothing else."""


def table_variant(scenario: str | None, fighters: list[str] | None) -> dict[str, Any]:
    """The variant a table request asks for: its scenario and its fighters, if named."""
    variant: dict[str, Any] = {} if scenario is None else {"scenario": scenario}
    if fighters:
        variant["fighters"] = tuple(fighters)
    return variant


def _asset(name: str) -> str:
    return resources.files("duelo.web").joinpath(name).read_text(encoding="utf-8")


def checked_record(record: dict[str, Any]) -> dict[str, Any]:
    """A pasted results line: every field a record has, each of its type, or a 422 naming
    the field (`RECORD_TYPES`); the HMAC, if any, is left aside (the replay itself says
    whether the duel ended as the record says)."""
    record = {k: v for k, v in record.items() if k != MAC_FIELD}
    for name, types in RECORD_TYPES.items():
        if name not in record:
            raise HTTPException(422, f"record: no field {name!r}")
        value = record[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise HTTPException(422, f"record.{name}: not a {types[0].__name__}")
    if not 0 <= record["seed"] <= 2**64 or record["seat_of_a"] not in (0, 1):
        raise HTTPException(422, "record: seed or seat_of_a out of range")
    if record["winner"] not in ("a", "b", None):
        raise HTTPException(422, "record.winner: a, b or null")
    if record["dice"] not in DICE_KINDS:
        raise HTTPException(422, f"record.dice: one of {', '.join(DICE_KINDS)}")
    return record


def routes_page(spec: dict[str, Any]) -> str:
    """Each route of `spec` with its summary and its request body's fields, as HTML."""
    rows = []
    schemas = spec.get("components", {}).get("schemas", {})
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            ref = (body or {}).get("schema", {}).get("$ref", "")
            fields = schemas.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
            listed = ", ".join(html.escape(name) for name in fields) or "-"
            summary = html.escape(operation.get("description") or operation.get("summary", ""))
            route = html.escape(f"{method.upper()} {path}")
            rows.append(
                f"<tr><td><code>{route}</code></td><td>{summary}</td><td>{listed}</td></tr>"
            )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>duelo API</title></head>"
        "<body><h1>duelo API</h1><p>The full spec: <a href='/openapi.json'>/openapi.json</a>."
        "</p><table><tr><th>route</th><th>what</th><th>body fields</th></tr>"
        + "".join(rows)
        + "</table></body></html>"
    )
