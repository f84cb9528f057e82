"""FastAPI dependencies: what the lifespan put on `app.state`, for routes to ask for."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.config import Settings
from app.presence import Presence


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_engine(request: Request) -> AsyncEngine:
    engine: AsyncEngine = request.app.state.engine
    return engine


def get_sessions(request: Request) -> async_sessionmaker[AsyncSession]:
    sessions: async_sessionmaker[AsyncSession] = request.app.state.sessions
    return sessions


def get_presence(request: Request) -> Presence:
    presence: Presence = request.app.state.presence
    return presence


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
EngineDep = Annotated[AsyncEngine, Depends(get_engine)]
SessionsDep = Annotated[async_sessionmaker[AsyncSession], Depends(get_sessions)]
PresenceDep = Annotated[Presence, Depends(get_presence)]
