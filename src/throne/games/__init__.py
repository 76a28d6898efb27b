"""The rules engines (the only place where the rules of each game live) and the game contract.

```python
from throne import games
spec = games.get("leaders")            # a GameSpec: facts and constructors
state = spec.new_state(seed=1)         # a State: to_play, legal_moves(), play(), view(seat), outcome, ...
[s.id for s in games.all()]
```
"""

from __future__ import annotations

from .api import GameError, GameSpec, Option, OptionsError, Outcome, State, UnknownGameError
from .registry import all, get, ids, register, unregister

__all__ = [
    "GameError",
    "GameSpec",
    "Option",
    "OptionsError",
    "Outcome",
    "State",
    "UnknownGameError",
    "all",
    "get",
    "ids",
    "register",
    "unregister",
]
