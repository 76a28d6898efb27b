"""Many `throne serve` nodes behind one address (`throne serve --redis URL`).

The nodes share PostgreSQL (the store) and Redis. Each live game is owned by one node at a time through a
lease with a fencing token (`lease`); moves and controls that arrive on another node are routed to the owner,
and the owner's per-seat `state` messages are fanned out to the other nodes' sockets of that game, each seat's
message to that seat's sockets only (`bus`, `node`). When a node dies its leases run out and the other nodes
claim its games, rebuilt from the move log. Without `--redis` none of this runs: one process owns every game.
"""
