"""Tournaments: equal starting stacks, blinds rising on a clock, finishing places.

The pure core (no asyncio, no I/O, no imports from the rest of app):

- `structure`: the blind schedule (levels, breaks, presets, a suggestion) and where a clock
  time falls in it.
- `payouts`: percentages of a prize pool split into whole units that add up exactly.
- `places`: finishing places as players bust (same hand: by starting stack; equal: shared).
- `icm`: Malmuth–Harville equities and the chip-chop and ICM deal figures.
- `balance`: which player moves where (balancing, breaking tables, the final table).

`director.Director` is the actor that runs one tournament over table actors: its state is
`state.Tournament`, each job plain functions over it (`field`, `seating`, `rounds`, `finish`,
`clock`, `addon`, `deal`, `chop`, `reading`, `writes`); `settings`, `entry` and `store`: what
it keeps; `hall.Hall`: the server's directors.
"""
