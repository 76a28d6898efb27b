"""HTML pages of the web client (server-rendered); the JSON/WebSocket API lives in the other modules."""

from fastapi import APIRouter

router = APIRouter()
