"""HTML pages of the web client (server-rendered); the JSON/WebSocket API lives in the other modules.

Pages are thin Jinja2 shells: the scripts in ``static/js`` fill them from the API and the game WebSocket.
The page language comes from the ``throne_lang`` cookie (set by the switcher) or the browser's
``Accept-Language``; the catalogue itself is served from :mod:`throne.i18n` at ``/i18n/<lang>.json``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from throne import games, i18n
from throne.server.auth import DEFAULT_GUEST_NAME, current_user
from throne.server.routes.accounts import user_json
from throne.server.validate import GameId, UserId

router = APIRouter(include_in_schema=False)
TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
LANG_COOKIE = "throne_lang"
LANG_MAX_AGE = 60 * 60 * 24 * 365


def page_language(request: Request) -> str:
    """The cookie's language when valid, else the best match of the browser's languages."""
    cookie = request.cookies.get(LANG_COOKIE)
    if cookie in i18n.LANGUAGES:
        return cookie
    return i18n.negotiate(request.headers.get("accept-language"))


@cache
def _hidden_leaders_data() -> str:
    """Card factions and leader alliances for the Hidden Leaders scripts (engine tables), as JSON."""
    from throne.games import hidden_leaders as hl
    from throne.games.hidden_leaders.cards import GUARDIAN_CARDS

    return _script_json(
        {
            "cards": {card.id: card.faction for card in hl.CARDS.values()},
            "leaders": {x.id: {"number": x.number, "factions": [*x.factions]} for x in hl.LEADERS.values()},
            "factions": list(hl.FACTIONS),
            "guardians": sorted(GUARDIAN_CARDS),
            "modules": list(hl.MODULES),
        }
    )


def _script_json(data: dict[str, Any]) -> str:
    """JSON safe to embed in a <script> element."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


async def _render(request: Request, template: str, **context: Any) -> HTMLResponse:
    lang = page_language(request)
    user = await current_user(request)

    def tr(key: str, **kw: Any) -> str:
        """A text of the catalogue; numbers among its parameters written in the page's language."""
        shown = {k: num(v) if type(v) in (int, float) else v for k, v in kw.items()}  # not bool
        return i18n.t(lang, key, **shown)

    def num(n: float) -> str:
        return i18n.number(lang, n)

    def person_name(person: dict[str, Any]) -> str:
        """A person's name isolated from the line's direction; the default guest name translated."""
        name = person["name"]
        if name == DEFAULT_GUEST_NAME and not person.get("registered"):
            name = tr("ui.lobby.guest")
        return f"\u2068{name}\u2069"

    def game_name(game_id: str) -> str:
        """The game's name in the page language (its spec's name when the catalogue has none)."""
        key = f"ui.game.{game_id}"
        return tr(key) if key in i18n.catalog(lang) else games.get(game_id).display_name(lang)

    base = {
        "lang": lang,
        "dir": "rtl" if i18n.is_rtl(lang) else "ltr",
        "languages": i18n.LANGUAGES,
        "t": tr,
        "game_name": game_name,
        "person_name": person_name,
        "num": num,
        "rtl": i18n.is_rtl(lang),
        "guest_name": DEFAULT_GUEST_NAME,
        "user": user_json(user),
        "here": request.url.path + (f"?{request.url.query}" if request.url.query else ""),
    }
    return TEMPLATES.TemplateResponse(request, template, {**base, **context})


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    return await _render(request, "home.html", games=games.all())


@router.get("/games/{game_id}", response_class=HTMLResponse)
async def table(request: Request, game_id: GameId) -> HTMLResponse:
    return await _render(request, "table.html", game_id=game_id, hl_data=_hidden_leaders_data())


@router.get("/games/{game_id}/replay", response_class=HTMLResponse)
async def replay(request: Request, game_id: GameId) -> HTMLResponse:
    return await _render(request, "replay.html", game_id=game_id, hl_data=_hidden_leaders_data())


@router.get("/login", response_class=HTMLResponse)
async def login(request: Request) -> HTMLResponse:
    return await _render(request, "account.html", mode="login")


@router.get("/signup", response_class=HTMLResponse)
async def signup(request: Request) -> HTMLResponse:
    return await _render(request, "account.html", mode="signup")


@router.get("/players/{user_id}", response_class=HTMLResponse)
async def player(request: Request, user_id: UserId) -> HTMLResponse:
    return await _render(request, "player.html", user_id=user_id)


@router.get("/me")
async def me(request: Request) -> RedirectResponse:
    user = await current_user(request)
    return RedirectResponse(f"/players/{user.id}" if user else "/login", status_code=303)


@router.get("/leaderboard", response_class=HTMLResponse)
async def leaderboard(request: Request) -> HTMLResponse:
    return await _render(request, "leaderboard.html", games=games.ids())


def _safe_next(target: str | None) -> str:
    """Only same-site paths are followed after switching language (no open redirect)."""
    if not target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


@router.get("/lang/{lang}")
async def switch_language(lang: str, next: str | None = None) -> RedirectResponse:
    if lang not in i18n.LANGUAGES:
        raise HTTPException(status_code=404, detail=f"unknown language {lang!r}")
    response = RedirectResponse(_safe_next(next), status_code=303)
    response.set_cookie(LANG_COOKIE, lang, max_age=LANG_MAX_AGE, samesite="lax")
    return response


@router.get("/i18n/{lang}.json")
async def catalogue(lang: str) -> JSONResponse:
    if lang not in i18n.LANGUAGES:
        raise HTTPException(status_code=404, detail=f"unknown language {lang!r}")
    return JSONResponse(i18n.catalog(lang), headers={"Cache-Control": "public, max-age=300"})
