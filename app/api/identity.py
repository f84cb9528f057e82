"""Identity without sign-up: a display name and a random session token in an HttpOnly,
SameSite=Lax cookie (Secure behind HTTPS). Only the token's SHA-256 is stored, so the same
browser is the same player across reloads and server restarts."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection

from app.api.deps import SessionsDep
from app.store.models import Player

COOKIE = "omaha_session"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie

router = APIRouter(prefix="/api", tags=["identity"])


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


async def player_for(
    connection: HTTPConnection, sessions: async_sessionmaker[AsyncSession]
) -> Player | None:
    """The player whose session cookie this request or WebSocket carries, if any."""
    token = connection.cookies.get(COOKIE)
    if not token or len(token) > 128:
        return None
    async with sessions() as s:
        player: Player | None = await s.scalar(
            select(Player).where(Player.session_token_hash == token_hash(token))
        )
        return player


async def optional_player(request: Request, sessions: SessionsDep) -> Player | None:
    return await player_for(request, sessions)


async def required_player(request: Request, sessions: SessionsDep) -> Player:
    player = await player_for(request, sessions)
    if player is None:
        raise HTTPException(401, detail={"code": "no_session", "message": "choose a name first"})
    return player


PlayerDep = Annotated[Player, Depends(required_player)]
MaybePlayerDep = Annotated[Player | None, Depends(optional_player)]


class Join(BaseModel):
    name: str = Field(min_length=1, max_length=32, pattern=r"^[^\x00-\x1f]+$")


class Me(BaseModel):
    player_id: str
    name: str


@router.post("/session", response_model=Me)
async def join(body: Join, request: Request, response: Response, sessions: SessionsDep,
               player: MaybePlayerDep) -> Me:  # fmt: skip
    """Pick a display name. The first call sets the session cookie; later calls rename."""
    name = body.name.strip() or "player"
    async with sessions.begin() as s:
        if player is not None:
            player = await s.get_one(Player, player.id)
            player.display_name = name
        else:
            token = secrets.token_urlsafe(32)
            player = Player(
                id=uuid.uuid4(), display_name=name, session_token_hash=token_hash(token)
            )
            s.add(player)
            response.set_cookie(
                COOKIE,
                token,
                max_age=COOKIE_MAX_AGE,
                httponly=True,
                samesite="lax",
                secure=request.url.scheme == "https",
                path="/",
            )
    return Me(player_id=str(player.id), name=name)


@router.get("/session", response_model=Me)
async def whoami(player: PlayerDep) -> Me:
    return Me(player_id=str(player.id), name=player.display_name)
