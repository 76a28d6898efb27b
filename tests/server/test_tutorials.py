"""The tutorials: every scripted lesson is solved by the move it teaches (checked by the engine), other legal
moves are refused without changing anything, illegal moves get the engine's reason, and the Hidden Leaders
turn ends when the engine passes the turn on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.games import toy_game
from throne import games, i18n
from throne.games import leaders
from throne.games.leaders import tutorial as leaders_tutorial
from throne.server import tutorials
from throne.server.app import create_app
from throne.server.config import Settings


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path_factory.mktemp("tut")))) as c:
        yield c


# (lesson, a move that solves it, a legal move that does not, the engine's end of game after the solution)
LESSONS = [
    ("move", "d1-d2", "end", None),
    ("ability", "d3-d5", "d3-d4", None),
    ("recruit", "+AS@a1", None, None),
    ("capture", "d2-d4", "d2-d3", "capture"),
    ("surround", "a1-a3", "a1-a2", "surround"),
]


def test_the_lessons_are_the_scripted_ones() -> None:
    assert [x.key for x in leaders_tutorial.LESSONS] == [row[0] for row in LESSONS]
    for lesson in leaders_tutorial.LESSONS:  # every position is a live game with South to play
        st = leaders.from_position(lesson.position)
        assert not st.is_over and st.to_play == 0


@pytest.mark.parametrize(("step", "row"), list(enumerate(LESSONS)))
def test_each_lesson_is_solved_by_its_move(client: TestClient, step: int, row: tuple) -> None:
    key, good, miss, ending = row
    start = client.get(f"/api/tutorials/leaders/{step}").json()
    assert start["lesson"] == key and good in start["legal_moves"]
    done = client.post(f"/api/tutorials/leaders/{step}", json={"move": good}).json()
    assert done["done"] is True and done["legal_moves"] == []
    assert done["view"]["termination"] == ending
    kinds = [ev["type"] for ev in done["events"]]  # the engine's events of the move, for the narrated log
    assert kinds and all(ev["ply"] == 1 and ev["seat"] == 0 for ev in done["events"])
    assert ("game-end" in kinds) == (ending is not None)
    if miss is not None:
        assert miss in start["legal_moves"]
        again = client.post(f"/api/tutorials/leaders/{step}", json={"move": miss}).json()
        assert again["done"] is False
        assert again["view"] == start["view"] and again["legal_moves"] == start["legal_moves"]


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/api/tutorials/leaders/0", {"move": "d1-d4"}, 400, "illegal_move"),
        ("/api/tutorials/leaders/0", {"move": "zz"}, 400, "illegal_move"),
        ("/api/tutorials/leaders/9", {"move": "d1-d2"}, 404, "no_such_step"),
        ("/api/tutorials/leaders/-1", {"move": "d1-d2"}, 404, "no_such_step"),
        ("/api/tutorials/hidden-leaders", {"moves": ["pass"]}, 400, "illegal_move"),
        ("/api/tutorials/hidden-leaders", {"moves": ["play nobody"]}, 400, "illegal_move"),
    ],
)
def test_bad_moves_are_refused_precisely(client: TestClient, path: str, body: dict, status: int,
                                         code: str) -> None:
    answer = client.post(path, json=body)
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code


def test_the_hidden_leaders_turn_ends_when_the_engine_passes_it_on(client: TestClient) -> None:
    moves: list[str] = []
    kinds = []
    for _ in range(tutorials.MAX_MOVES):
        data = client.post("/api/tutorials/hidden-leaders", json={"moves": moves}).json()
        if data["done"]:
            break
        kinds.append(data["kind"])
        assert bool(data["events"]) == bool(moves)  # the events of the last move made
        if data["kind"] == "action":
            assert all(m.startswith("play ") for m in data["legal_moves"])
        moves.append(data["legal_moves"][0])
    assert data["done"] and data["view"]["to_play"] == 1
    assert kinds[0] == "action" and "draw" in kinds and "discard" in kinds
    assert data["view"]["hands"][1] == {"count": 3}  # the opponent's hand stays secret in the view
    over = client.post("/api/tutorials/hidden-leaders", json={"moves": [*moves, moves[-1]]})
    assert over.status_code == 400 and over.json()["error"]["code"] == "turn_over"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("path", ["/tutorial", "/tutorial/leaders", "/tutorial/hidden-leaders"])
def test_tutorial_pages_render(client: TestClient, path: str, lang: str) -> None:
    page = client.get(path, cookies={"throne_lang": lang})
    assert page.status_code == 200
    assert i18n.t(lang, "tutorial.title") in page.text
    assert client.get("/", cookies={"throne_lang": lang}).text.count('href="/tutorial"') == 1


def test_unknown_tutorial_is_404(client: TestClient) -> None:
    assert client.get("/tutorial/chess").status_code == 404


def test_a_game_without_a_tutorial_has_none(client: TestClient) -> None:
    games.register(toy_game.SPEC)  # its spec names no tutorial
    try:
        assert toy_game.SPEC.tutorial is None and toy_game.SPEC.load_tutorial() is None
        assert client.get(f"/tutorial/{toy_game.GAME}").status_code == 404
        assert client.get(f"/api/tutorials/{toy_game.GAME}/0").status_code == 404
        assert client.post(f"/api/tutorials/{toy_game.GAME}", json={"moves": []}).status_code == 404
    finally:
        games.unregister(toy_game.GAME)
