"""Persistence: SQLAlchemy models, the async engine, and the Alembic schema checks."""
