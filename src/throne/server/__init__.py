"""The web platform: lobby, live games, replays, accounts and ratings over HTTP and WebSockets."""
