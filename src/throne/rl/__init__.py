"""Research API: PettingZoo, Gymnasium and OpenSpiel adapters for Leaders and Hidden Leaders (extra `[rl]`).

Importing `throne.rl` registers the Gymnasium ids `throne/Leaders-v0` and `throne/HiddenLeaders-v0`;
importing `throne.rl.openspiel` registers the OpenSpiel games `throne_leaders` and `throne_hidden_leaders`.
See docs/research-api.md for the observation and action encodings.
"""

from __future__ import annotations

from throne.extras import require

require("rl", "`throne.rl` (the research API)")

from throne.rl.gym import register as _register_gym  # noqa: E402 - after the check of the extra

_register_gym()
