"""Practice bots: one betting policy (`policy`), what a player learns from the protocol
(`tracker`), and the bot that sits at a table inside the server (`player`)."""
