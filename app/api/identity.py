"""Identity without sign-up: a display name and a random session token in an HttpOnly,
SameSite=Lax cookie. Only the token's SHA-256 is stored, so the same browser is the same
player across reloads and server restarts.

A new token is issued whenever a name is chosen (a cookie planted before cannot be adopted:
session fixation), a token expires on the server after SESSION_DAYS, and logout forgets it.
With an https PUBLIC_URL the cookie is `__Host-omaha_session`: Secure, Path=/, no Domain, so
neither plain http nor a sibling domain can set or read it.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, StrictStr, field_validator
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection

from app.api.bodies import JsonRoute
from app.api.deps import SessionsDep, SettingsDep
from app.api.limits import check_rate
from app.config import Settings
from app.store.models import DeviceSessionRow, Player
from app.tables.names import BadName, clean_name

COOKIE = "omaha_session"
SECURE_COOKIE = "__Host-omaha_session"
NAME_LENGTH = 32

router = APIRouter(prefix="/api", tags=["identity"], route_class=JsonRoute)


def cookie_name(settings: Settings) -> str:
    return SECURE_COOKIE if settings.https else COOKIE


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _expired(moment: datetime | None) -> bool:
    return moment is not None and moment.replace(tzinfo=moment.tzinfo or UTC) <= _now()


async def session_for(
    connection: HTTPConnection, sessions: async_sessionmaker[AsyncSession], settings: Settings
) -> tuple[Player, DeviceSessionRow | None] | None:
    """The player of this request's unexpired session, and the device session it is when
    it was opened with a sign-in link (app/api/links.py); None without one."""
    token = connection.cookies.get(cookie_name(settings))
    if not token or len(token) > 128 or not token.isascii():
        return None
    digest = token_hash(token)
    async with sessions() as s:
        player: Player | None = await s.scalar(
            select(Player).where(Player.session_token_hash == digest)
        )
        if player is not None:
            return None if _expired(player.session_expires_at) else (player, None)
        device = await s.get(DeviceSessionRow, digest)
        if device is None or _expired(device.expires_at):
            return None
        player = await s.get(Player, device.player_id)
    return (player, device) if player is not None else None


async def player_for(
    connection: HTTPConnection, sessions: async_sessionmaker[AsyncSession], settings: Settings
) -> Player | None:
    """The player whose unexpired session cookie this request or WebSocket carries, if any."""
    found = await session_for(connection, sessions, settings)
    return found[0] if found is not None else None


async def optional_player(
    request: Request, sessions: SessionsDep, settings: SettingsDep
) -> Player | None:
    return await player_for(request, sessions, settings)


async def required_player(request: Request, sessions: SessionsDep, settings: SettingsDep) -> Player:
    player = await player_for(request, sessions, settings)
    if player is None:
        raise HTTPException(401, detail={"code": "no_session", "message": "choose a name first"})
    return player


PlayerDep = Annotated[Player, Depends(required_player)]
MaybePlayerDep = Annotated[Player | None, Depends(optional_player)]


class Join(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: StrictStr

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str) -> str:
        try:
            return clean_name(value, NAME_LENGTH)
        except BadName as bad:
            raise ValueError(str(bad)) from None


class Me(BaseModel):
    player_id: str
    name: str


def _set_cookie(response: Response, token: str, settings: Settings, request: Request) -> None:
    secure = settings.https or request.url.scheme == "https"
    response.set_cookie(
        cookie_name(settings),
        token,
        max_age=settings.session_days * 24 * 3600,
        httponly=True,
        samesite="lax",
        secure=secure,
        path="/",
    )


@router.post("/session", response_model=Me)
async def join(body: Join, request: Request, response: Response, sessions: SessionsDep,
               settings: SettingsDep, player: MaybePlayerDep) -> Me:  # fmt: skip
    """Pick a display name. The first call makes the player; later calls rename. Every call
    sets a new session token and forgets the old one."""
    await check_rate(request.app.state.session_rate, request, "sessions")
    token = secrets.token_urlsafe(32)
    expires = _now() + timedelta(days=settings.session_days)
    found = await session_for(request, sessions, settings)
    async with sessions.begin() as s:
        if found is not None and found[1] is not None:  # another device's: renew that one
            device = await s.get_one(DeviceSessionRow, found[1].token_hash)
            await s.delete(device)
            s.add(DeviceSessionRow(token_hash=token_hash(token), player_id=device.player_id,
                                   link_id=device.link_id, expires_at=expires))  # fmt: skip
            row = await s.get_one(Player, device.player_id)
            row.display_name = body.name
            player = row
        elif player is not None:
            player = await s.get_one(Player, player.id)
            player.display_name = body.name
            player.session_token_hash = token_hash(token)
            player.session_expires_at = expires
        else:
            player = Player(
                id=uuid.uuid4(),
                display_name=body.name,
                session_token_hash=token_hash(token),
                session_expires_at=expires,
            )
            s.add(player)
    _set_cookie(response, token, settings, request)
    return Me(player_id=str(player.id), name=body.name)


class NoSession(BaseModel):
    session: None = None


@router.get("/session", response_model=Me | NoSession)
async def whoami(player: MaybePlayerDep) -> Me | NoSession:
    """The viewer, or `{"session": null}` for a browser without a (valid) session: a 200, as a
    first visit is not an error (a 401 showed in every new visitor's console)."""
    if player is None:
        return NoSession()
    return Me(player_id=str(player.id), name=player.display_name)


@router.delete("/session", status_code=204)
async def logout(request: Request, sessions: SessionsDep, settings: SettingsDep) -> Response:
    """Log out: the token is forgotten on the server (a copy of the cookie is worthless) and
    the cookie deleted. The player, their seats and history stay; a device signed in with a
    link logs out alone."""
    found = await session_for(request, sessions, settings)
    if found is not None:
        player, device = found
        async with sessions.begin() as s:
            if device is not None:
                await s.delete(await s.get_one(DeviceSessionRow, device.token_hash))
            else:
                row = await s.get_one(Player, player.id)
                row.session_token_hash = token_hash(secrets.token_urlsafe(32))  # unknown
                row.session_expires_at = _now()
    out = Response(status_code=204)
    out.delete_cookie(cookie_name(settings), path="/", secure=settings.https, httponly=True)
    return out
