"""Scale-out: several server processes share one PostgreSQL and one Redis.

- `lease.Leases`: which process owns each table (a Redis lease, renewed while it runs);
  `lease.SoleLeases` for a server that runs alone (every table is its own).
- `solo.hold_database`: a server without Redis, or on SQLite, runs alone: a second process on
  the same database is refused at start.
The fencing epoch every write of a table carries lives with the store (`app.store.tables`).
"""
