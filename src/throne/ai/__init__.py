"""Bots for Leaders and Hidden Leaders, strength levels and a worker-process move service.

Matches of many games (arena, tournaments) live in `throne.scaleout`.

```python
from throne import ai
ai.bot_names("leaders")                      # bots and levels
bot = ai.make_bot("leaders", "hard", seed=1)
move = bot.choose(ai.seat_state("leaders", state, seat), seat)      # in this process, blind to secrets
move = ai.choose_move("leaders", state, state.to_play, "hard", seed=1, timeout=5.0)   # in a worker
```
"""

from __future__ import annotations

from throne.ai.base import (
    AIError,
    Bot,
    Budget,
    BudgetError,
    NotToPlayError,
    UnknownBotError,
    UnknownGameError,
)
from throne.ai.registry import (
    LEVELS,
    bot_entry,
    bot_names,
    game_names,
    make_bot,
    register_bot,
    register_game,
    register_level,
    seat_state,
    unregister_bot,
)
from throne.ai.worker import choose_move, choose_move_async, shutdown

__all__ = [
    "LEVELS",
    "AIError",
    "Bot",
    "Budget",
    "BudgetError",
    "NotToPlayError",
    "UnknownBotError",
    "UnknownGameError",
    "bot_entry",
    "bot_names",
    "choose_move",
    "choose_move_async",
    "game_names",
    "make_bot",
    "register_bot",
    "register_game",
    "register_level",
    "seat_state",
    "shutdown",
    "unregister_bot",
]
