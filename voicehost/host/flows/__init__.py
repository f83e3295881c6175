"""One flow per game: what the host says and asks, and how it turns what it hears into rules actions."""
