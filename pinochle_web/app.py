"""The web app: a Starlette application serving the pages, their assets and a JSON API.

Pages: ``/`` (open a table, and what was named on the command line), ``/play?table=ID``,
``/replay?source=ID&hand=K`` and ``/arena?source=ID``; their scripts, styles and the card drawing
are under ``/static`` (files of this package only). The API:

====================================================  =============================================
``GET /api/options``                                  variants, rule switches, suggested agents
``GET /api/catalogue``                                what may be replayed or shown (ids, names)
``POST /api/tables``                                  open a table: rules, seat, agents, seed
``GET /api/tables/{id}``                              the table as the person's seat sees it
``POST /api/tables/{id}/actions``                     the person's action ``{"action": id}``
``POST /api/tables/{id}/next``                        deal the next hand
``GET /api/sources/{id}``                             the hands of a records or results file
``GET /api/sources/{id}/hands/{k}``                   every step of hand ``k`` (``viewer``, ``bottom``)
``GET /api/sources/{id}/hands/{k}/analysis``          a checkpoint's view of a seat's decisions
``GET /api/arenas/{id}``                              an arena run's report
====================================================  =============================================

Every request is validated: a malformed or refused one gets a 4xx answer ``{"error": reason}``
and changes nothing, and every other error answer is JSON of the same shape (a 500 too). POST
bodies must be ``application/json`` (which a page of another site cannot send without the browser
asking this server first, and it never agrees), of at most :data:`~.limits.MAX_BODY_BYTES` and
nested no deeper than :data:`~.limits.MAX_JSON_DEPTH`; the ``Host`` header must name this server
(:class:`HostCheck`, :mod:`.hosts`), which keeps other sites' pages out through DNS tricks.
Agents' moves run in a thread pool; the handlers that do real work (replays, analyses, reports)
run in Starlette's thread pool, so the event loop answers other requests meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from agents.base import check_plays
from agents.neural.agent import BUNDLED_ALIASES, BUNDLED_FILES
from agents.neural.location import BUNDLED_NAME as BUNDLED_LOCATION
from agents.registry import checkpoint_names, load_agent, location_model_names, program_commands
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.registry import GAMES
from pinochle_env.rules.switches import CHOICES, INTEGER_SWITCHES, VARIANT_SWITCHES, Rules

from .catalogue import RESULTS, Catalogue, Entry, entry_id
from .hosts import host_name, normal
from .limits import MAX_BODY_BYTES, TooDeep, parse_json
from .replay import analysis, timeline
from .settings import Settings
from .sources import Hand, arena_report, load_hands
from .tables import HUMAN, Table, TableError, Tables, TableSetup

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {"/": "index.html", "/play": "play.html", "/replay": "replay.html", "/arena": "arena.html"}


def _games_played(spec: str) -> tuple[str, ...]:
    """The games an agent spec plays: those whose default rules its ``check_rules`` accepts."""
    agent = load_agent(spec)
    played = []
    for name in GAMES:
        try:
            check_plays(agent, Rules(variant=name))
        except ValueError:
            continue
        played.append(name)
    return tuple(played)


#: Agent specs offered in the table form (any other spec may be typed), and the games they play
#: (the bundled agents: those there is a file for, without loading PyTorch, each under its own name
#: only, not its aliases).
SUGGESTED_AGENTS = {
    **{
        spec: _games_played(spec)
        for spec in ("heuristic", "random", "pimc", "pimc:samples=8,budget=0.25", "pimc:evaluate=heuristic")
    },
    **{f"checkpoint:{name}": tuple(files) for name, files in BUNDLED_FILES.items() if name not in BUNDLED_ALIASES},
}


class ApiError(Exception):
    """A refused request: its HTTP status and the reason the answer gives."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Service:
    """The state behind the API: the catalogue, the open tables and the agents' pool."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.executor = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="agents")
        self.catalogue = Catalogue(settings.open, settings.records)
        self.tables = Tables(
            settings.records, self.executor, settings.pace, settings.max_tables, settings.table_idle_seconds
        )

    # ------------------------------------------------------------------ options and catalogue

    def options(self, request: Request) -> Response:
        checkpoints = [f"checkpoint:{entry.path}" for entry in self.catalogue.entries("checkpoint")]
        variants = {}
        for variant in GAMES:
            rules = Rules(variant=variant)
            kit = variant_kit(rules)
            suggested = [spec for spec, games in SUGGESTED_AGENTS.items() if variant in games]
            variants[variant] = {
                "seats": kit.num_seats,
                "seat_names": list(kit.seat_names),
                "switches": {name: _switch(name, rules) for name in VARIANT_SWITCHES[variant]},
                "agents": suggested + checkpoints,
            }
        return JSONResponse({"rules": self.settings.rules.to_dict(), "variants": variants})

    def catalogue_listing(self, request: Request) -> Response:
        self.catalogue.scan()
        listing = {kind: [entry.to_dict() for entry in self.catalogue.entries(kind)] for kind in ("records", "arena")}
        checkpoints = [entry.to_dict() for entry in self.catalogue.entries("checkpoint")]
        return JSONResponse({**listing, "checkpoints": checkpoints, "records_folder": str(self.settings.records)})

    # ------------------------------------------------------------------ tables

    async def create_table(self, request: Request) -> Response:
        body = await _json_body(request)
        rules = _rules(body.get("rules", self.settings.rules.to_dict()))
        seats = rules.num_seats
        seat = _integer(body, "seat", 0, seats - 1, default=0)
        agents = body.get("agents")
        if not isinstance(agents, list) or len(agents) != seats or not all(isinstance(a, str) for a in agents):
            raise ApiError(400, f"agents must be a list of {seats} agent specs, one per seat (yours is ignored)")
        specs = tuple(HUMAN if index == seat else spec.strip() for index, spec in enumerate(agents))
        for index, spec in enumerate(specs):
            if index != seat:
                self._check_checkpoints(spec)
                self._check_programs(spec)
        seed = body.get("seed")
        if seed is not None and (type(seed) is not int or seed < 0):
            raise ApiError(400, f"seed must be a non-negative integer or null, not {seed!r}")
        setup = TableSetup(rules, seat, specs, seed)
        table = await run_in_threadpool(self.tables.open, setup)  # loading agents may read checkpoints
        return JSONResponse(table.state(), status_code=201)

    def _check_checkpoints(self, spec: str) -> None:
        """Refuse a checkpoint a spec names (``checkpoint:PATH``, ``guided:checkpoint=PATH``, also
        inside ``mix:``: :func:`agents.registry.checkpoint_names`) that is a file not opened with
        ``--open``, and a location model (``guided:locate=``) other than the bundled one: a page may
        make the server load only what its command line named."""
        opened = {entry.path for entry in self.catalogue.entries("checkpoint")} | {
            path for files in BUNDLED_FILES.values() for path in files.values()
        }
        try:
            names = checkpoint_names(spec)
        except ValueError as error:
            raise ApiError(400, str(error)) from None
        for path in names:
            if "\0" in path:  # Path.resolve would raise on it
                raise ApiError(400, f"checkpoint {path!r}: a path holds no NUL character")
            if path not in BUNDLED_FILES and Path(path).resolve() not in opened:
                raise ApiError(
                    400, f"checkpoint {path!r} was not named with --open; open it there, or use checkpoint:bundled"
                )
        for name in location_model_names(spec):  # parsed above: a malformed spec has been refused
            if name != BUNDLED_LOCATION:
                raise ApiError(
                    400, f"location model {name!r}: a table reads the bundled one only (guided:locate=bundled)"
                )

    def _check_programs(self, spec: str) -> None:
        """Refuse a spec that runs a bot program (``program:cmd=...``, also inside ``mix:``) unless
        the server was started with ``--allow-programs``: a page may not run commands otherwise."""
        try:
            commands = program_commands(spec)
        except ValueError as error:
            raise ApiError(400, str(error)) from None
        if commands and not self.settings.allow_programs:
            raise ApiError(403, f"agent {spec!r} runs a program; start pinochle-web with --allow-programs to allow it")

    def table_state(self, request: Request) -> Response:
        return JSONResponse(self._table(request).state())

    async def table_action(self, request: Request) -> Response:
        body = await _json_body(request)
        if "action" not in body:
            raise ApiError(400, 'the body needs "action": an action id')
        table = self._table(request)
        await run_in_threadpool(table.act, body["action"])
        return JSONResponse(table.state())

    async def table_next(self, request: Request) -> Response:
        await _json_body(request)
        table = self._table(request)
        await run_in_threadpool(table.next_hand)
        return JSONResponse(table.state())

    def _table(self, request: Request) -> Table:
        return self.tables.get(request.path_params["table"])

    # ------------------------------------------------------------------ replay and arena

    def source(self, request: Request) -> Response:
        entry = self._entry(request.path_params["source"], "records")
        hands = _readable(load_hands, entry)
        return JSONResponse(
            {
                **entry.to_dict(),
                "arena_results": entry.arena_results,
                "hands": [hand.summary(index) for index, hand in enumerate(hands)],
            }
        )

    def hand_replay(self, request: Request) -> Response:
        entry, hand = self._hand(request)
        seats = _readable(_seats, hand.record)
        viewer_text = request.query_params.get("viewer", "all")
        viewer = None if viewer_text == "all" else _query_integer(request, "viewer", 0, seats - 1)
        bottom = _query_integer(request, "bottom", 0, seats - 1) if "bottom" in request.query_params else None
        steps = _readable(timeline, hand.record, viewer, bottom)
        return JSONResponse({**hand.summary(request.path_params["hand"]), "source": entry.id, "steps": steps})

    def hand_analysis(self, request: Request) -> Response:
        _, hand = self._hand(request)
        seats = _readable(_seats, hand.record)
        seat = _query_integer(request, "seat", 0, seats - 1)
        choice = request.query_params.get("checkpoint", "bundled")
        checkpoint: str | Path = "bundled" if choice == "bundled" else self._entry(choice, "checkpoint").path
        return JSONResponse(_readable(analysis, hand.record, seat, checkpoint))

    def arena(self, request: Request) -> Response:
        entry = self._entry(request.path_params["arena"], "arena")
        report = _readable(arena_report, entry)
        return JSONResponse({**report, "id": entry.id, "results": entry_id(entry.path / RESULTS)})

    def _entry(self, entry_id_text: str, kind: str) -> Entry:
        try:
            return self.catalogue.get(entry_id_text, kind)
        except KeyError:
            raise ApiError(404, f"no {kind} {entry_id_text!r} among the files named on the command line") from None

    def _hand(self, request: Request) -> tuple[Entry, Hand]:
        entry = self._entry(request.path_params["source"], "records")
        hands = _readable(load_hands, entry)
        index = request.path_params["hand"]
        if not 0 <= index < len(hands):
            raise ApiError(404, f"{entry.name} has {len(hands)} hand(s); there is no hand {index}")
        return entry, hands[index]


def _switch(name: str, rules: Rules) -> dict[str, Any]:
    """A rule switch as the form draws it: its choices (or integer limits) and the variant's default."""
    default = getattr(rules, name)
    if name in CHOICES:
        return {"choices": list(CHOICES[name]), "default": default}
    smallest, step = INTEGER_SWITCHES[name]
    return {"minimum": smallest, "step": step, "default": default}


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object: ``ApiError`` 415 for another content type, 413 for a body over
    :data:`~.limits.MAX_BODY_BYTES`, 400 for bad or too deeply nested JSON or not an object."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ApiError(415, "send the body as application/json")
    try:
        body = parse_json(await _body_bytes(request))
    except TooDeep as error:
        raise ApiError(400, f"the body is {error}") from None
    except ValueError:
        raise ApiError(400, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


async def _body_bytes(request: Request) -> bytes:
    """The request's body, read no further than :data:`~.limits.MAX_BODY_BYTES` (``ApiError`` 413)."""
    too_large = ApiError(413, f"the body is over {MAX_BODY_BYTES:,} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def _rules(switches: Any) -> Rules:
    if not isinstance(switches, dict):
        raise ApiError(400, "rules must be an object of rule switches")
    try:
        return Rules.from_mapping(switches)
    except (ValueError, TypeError) as error:
        raise ApiError(400, f"bad rules: {error}") from None


def _seats(record: dict[str, Any]) -> int:
    """How many seats the game of a hand record has (``ValueError`` for options that are not rules)."""
    return Rules.from_mapping(record["options"]).num_seats


def _integer(body: dict[str, Any], name: str, low: int, high: int, default: int) -> int:
    value = body.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise ApiError(400, f"{name} must be an integer {low}..{high}, not {value!r}")
    return value


def _query_integer(request: Request, name: str, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None or not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:  # '²' is a digit
        raise ApiError(400, f"{name} must be an integer {low}..{high}, not {text!r}")
    return int(text)


def _readable(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, a file that cannot be read or replayed answered as 422 with the reason."""
    try:
        return function(*args)
    except (ValueError, KeyError, TypeError, OSError) as error:
        raise ApiError(422, f"cannot read it: {error}") from None


async def _api_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, ApiError)
    return JSONResponse({"error": error.reason}, status_code=error.status)


async def _table_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, TableError)
    return JSONResponse({"error": str(error)}, status_code=error.status)


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    return JSONResponse({"error": error.detail}, status_code=error.status_code)


async def _internal_error(request: Request, error: Exception) -> Response:
    """Any other failure: a 500 answer in the API's shape (the traceback goes to the log)."""
    return JSONResponse({"error": f"internal error ({type(error).__name__}); see the server's log"}, status_code=500)


class HostCheck:
    """ASGI middleware: answer only requests whose ``Host`` header names one of ``allowed``
    (:func:`.hosts.allowed_hosts`), others with 400 ``{"error": ...}``."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str]) -> None:
        self.app = app
        self.allowed = frozenset(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        header = Headers(scope=scope).get("host", "") if scope["type"] == "http" else None
        if header is None or host_name(header) in self.allowed:
            await self.app(scope, receive, send)
            return
        reason = f"this server does not answer to the host {header!r} (pinochle-web --allow-host NAME accepts it)"
        await JSONResponse({"error": reason}, status_code=400)(scope, receive, send)


def _page(name: str) -> Callable[[Request], Response]:
    def page(request: Request) -> Response:
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    return page


def create_app(settings: Settings | None = None) -> Starlette:
    """The application for ``settings`` (defaults: the default rules, records under ``runs/web``)."""
    service = Service(settings if settings is not None else Settings())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        service.tables.close()
        service.executor.shutdown(wait=False, cancel_futures=True)

    routes: Sequence[Route | Mount] = [
        *(Route(path, _page(name)) for path, name in PAGES.items()),
        Route("/api/options", service.options),
        Route("/api/catalogue", service.catalogue_listing),
        Route("/api/tables", service.create_table, methods=["POST"]),
        Route("/api/tables/{table}", service.table_state),
        Route("/api/tables/{table}/actions", service.table_action, methods=["POST"]),
        Route("/api/tables/{table}/next", service.table_next, methods=["POST"]),
        Route("/api/sources/{source}", service.source),
        Route("/api/sources/{source}/hands/{hand:int}", service.hand_replay),
        Route("/api/sources/{source}/hands/{hand:int}/analysis", service.hand_analysis),
        Route("/api/arenas/{arena}", service.arena),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = [normal(name) for name in service.settings.allowed_hosts]
    app = Starlette(
        routes=list(routes),
        middleware=[Middleware(HostCheck, allowed=hosts)],
        exception_handlers={
            ApiError: _api_error,
            TableError: _table_error,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        lifespan=lifespan,
    )
    app.state.service = service
    return app
