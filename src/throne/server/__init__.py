"""The web platform: lobby, live games, replays, accounts and ratings over HTTP and WebSockets."""

from throne.extras import require

require("server", "`throne.server` (the web platform)")
