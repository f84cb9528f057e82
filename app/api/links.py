"""A player's identity carried to another browser or phone: a personal sign-in link (and its
QR code), shown on request, usable once, expiring after `LINK_MINUTES`, revocable.

The link is `<site>/signin#<token>`: the token is in the fragment, which a browser never
sends, so it is in no request line and no access log; the page posts it in a request body
(`POST /api/session/redeem`). Only the token's SHA-256 is stored. Redeeming it opens a new
session on that device (a `device_sessions` row; the first device keeps its own), with the
same name-only identity: the same hands, ledger and tables. Revoking a link that was used
ends the session it opened.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import segno
from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, StrictStr
from sqlalchemy import delete, func, select, update

from app.api.bodies import JsonRoute
from app.api.deps import SessionsDep, SettingsDep
from app.api.identity import Me, PlayerDep, _set_cookie, token_hash
from app.api.limits import check_rate
from app.store.models import DeviceSessionRow, Player, SignInLinkRow

router = APIRouter(prefix="/api/session", tags=["identity"], route_class=JsonRoute)

LINK_MINUTES = 15
#: links of a player that may wait to be used at once
ACTIVE_MAX = 5
#: links listed (the newest)
LISTED = 20
PRIVATE = "private, no-store"


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=moment.tzinfo or UTC)


def _error(status: int, code: str, message: str) -> HTTPException:
    return HTTPException(status, detail={"code": code, "message": message})


class Link(BaseModel):
    id: str
    created_at: str
    expires_at: str
    state: str  # waiting, used, expired, revoked


class NewLink(Link):
    url: str  # shown once: only its hash is kept
    qr: str  # the link as a QR code, an SVG data URL


def _state(row: SignInLinkRow) -> str:
    if row.revoked_at is not None:
        return "revoked"
    if row.used_at is not None:
        return "used"
    return "expired" if _aware(row.expires_at) <= _now() else "waiting"


def _link(row: SignInLinkRow) -> dict[str, Any]:
    return {
        "id": str(row.id),
        "created_at": _aware(row.created_at).isoformat(),
        "expires_at": _aware(row.expires_at).isoformat(),
        "state": _state(row),
    }


def site(request: Request, public_url: str | None) -> str:
    return (public_url or str(request.base_url)).rstrip("/")


@router.post("/links", response_model=NewLink, status_code=201)
async def new_link(
    request: Request, response: Response, player: PlayerDep, sessions: SessionsDep,
    settings: SettingsDep,
) -> NewLink:  # fmt: skip
    """A sign-in link for another device, and its QR code: usable once, for 15 minutes."""
    now = _now()
    async with sessions() as s:  # (a read of its own: see app.store.review.save_facts)
        waiting = await s.scalar(
            select(func.count())
            .select_from(SignInLinkRow)
            .where(
                SignInLinkRow.player_id == player.id,
                SignInLinkRow.used_at.is_(None),
                SignInLinkRow.revoked_at.is_(None),
                SignInLinkRow.expires_at > now,
            )
        )
    if (waiting or 0) >= ACTIVE_MAX:
        waiting_text = f"{ACTIVE_MAX} links are waiting to be used: revoke one first"
        raise _error(429, "too_many_links", waiting_text)
    async with sessions.begin() as s:
        token = secrets.token_urlsafe(32)
        row = SignInLinkRow(
            id=uuid.uuid4(),
            player_id=player.id,
            token_hash=token_hash(token),
            created_at=now,
            expires_at=now + timedelta(minutes=LINK_MINUTES),
        )
        s.add(row)
    url = f"{site(request, settings.public_url)}/signin#{token}"
    qr = segno.make(url, error="m").svg_data_uri(scale=5, border=2)
    response.headers["Cache-Control"] = PRIVATE
    return NewLink(**_link(row), url=url, qr=qr)


@router.get("/links", response_model=list[Link])
async def links(response: Response, player: PlayerDep, sessions: SessionsDep) -> list[Link]:
    """The viewer's newest sign-in links and what became of them (never the links)."""
    async with sessions() as s:
        rows = await s.scalars(
            select(SignInLinkRow)
            .where(SignInLinkRow.player_id == player.id)
            .order_by(SignInLinkRow.created_at.desc())
            .limit(LISTED)
        )
        out = [Link(**_link(r)) for r in rows]
    response.headers["Cache-Control"] = PRIVATE
    return out


@router.delete("/links/{link_id}", status_code=204)
async def revoke(link_id: str, player: PlayerDep, sessions: SessionsDep) -> Response:
    """Revoke a link: it can no longer be used, and the session it opened (if it was used)
    ends."""
    try:
        key = uuid.UUID(link_id)
    except ValueError:
        raise _error(404, "no_such_link", "no such link") from None
    async with sessions.begin() as s:  # writes first (see app.store.review.save_facts)
        found = await s.execute(
            update(SignInLinkRow)
            .where(SignInLinkRow.id == key, SignInLinkRow.player_id == player.id)
            .values(revoked_at=func.coalesce(SignInLinkRow.revoked_at, _now()))
            .returning(SignInLinkRow.id)
        )
        if found.first() is None:
            raise _error(404, "no_such_link", "no such link")
        await s.execute(delete(DeviceSessionRow).where(DeviceSessionRow.link_id == key))
    return Response(status_code=204)


class Redeem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: StrictStr


@router.post("/redeem", response_model=Me)
async def redeem(
    body: Redeem, request: Request, response: Response, sessions: SessionsDep,
    settings: SettingsDep,
) -> Me:  # fmt: skip
    """Sign this device in with a link's token: once, before it expires or is revoked."""
    await check_rate(request.app.state.session_rate, request, "sign-ins")
    if not body.token or len(body.token) > 128 or not body.token.isascii():
        raise _error(404, "no_such_link", "this sign-in link is not valid")
    now = _now()
    session_token = secrets.token_urlsafe(32)
    async with sessions.begin() as s:
        # One statement marks it used only if it still may be: two redeems, one wins.
        used = await s.execute(
            update(SignInLinkRow)
            .where(
                SignInLinkRow.token_hash == token_hash(body.token),
                SignInLinkRow.used_at.is_(None),
                SignInLinkRow.revoked_at.is_(None),
                SignInLinkRow.expires_at > now,
            )
            .values(used_at=now)
            .returning(SignInLinkRow.id, SignInLinkRow.player_id)
        )
        found = used.first()
        if found is None:
            raise _error(404, "no_such_link",
                         "this sign-in link is not valid: used, expired or revoked")  # fmt: skip
        player = await s.get_one(Player, found.player_id)
        s.add(
            DeviceSessionRow(
                token_hash=token_hash(session_token),
                player_id=player.id,
                link_id=found.id,
                expires_at=now + timedelta(days=settings.session_days),
            )
        )
        name = player.display_name
    _set_cookie(response, session_token, settings, request)
    response.headers["Cache-Control"] = PRIVATE
    return Me(player_id=str(found.player_id), name=name)
