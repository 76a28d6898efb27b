"""The table page in a real browser: a move pushed while the move list is being fetched stays in the list;
"your turn" marks the tab title and favicon, and the sound and browser notification are off by default,
permission is asked once, and a hidden tab is notified; a chat mute follows the user to another device; the
clocks count down and warn on low time; everyone sees the countdown of a disconnected player."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import APIRequestContext, Page, expect

from tests.e2e.helpers import Contexts

pytestmark = pytest.mark.e2e
CATALOGUES = Path(__file__).resolve().parents[2] / "src/throne/i18n"
PASSWORD = "correct horse 1"


def _post(request: APIRequestContext, path: str, body: dict[str, Any], token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Seat-Token"] = token
    r = request.post(path, data=json.dumps(body), headers=headers)
    assert r.ok, r.text()
    return r.json()


def _view(request: APIRequestContext, game_id: int, token: str) -> dict:
    view = request.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
    return {**view, "your_turn": view["to_play"] is not None and view["to_play"] == view["seat"]}


def _move(request: APIRequestContext, game_id: int, token: str) -> None:
    view = _view(request, game_id, token)
    _post(request, f"/api/games/{game_id}/move", {"move": view["legal_moves"][0], "ply": view["ply"]}, token)


def _poll(page: Page, done: Any, what: str) -> None:
    """Lets the page run until `done()` holds (no fixed sleep: short waits, a minute at most)."""
    for _ in range(1200):
        if done():
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"the page never got there: {what}")


def test_a_move_pushed_during_the_history_fetch_stays_in_the_list(contexts: Contexts) -> None:
    ann, bob, watcher = contexts.page(), contexts.page(), contexts.page()
    _post(ann.request, "/api/accounts/guest", {"name": "Ann"})
    created = _post(ann.request, "/api/games", {"game": "leaders", "players": 2})
    game_id = created["game"]["id"]
    _post(bob.request, "/api/accounts/guest", {"name": "Bob"})
    tokens = [created["token"], _post(bob.request, f"/api/games/{game_id}/join", {})["token"]]
    first = next(t for t in tokens if _view(ann.request, game_id, t)["your_turn"])
    _move(ann.request, game_id, first)
    stale = ann.request.get(f"/api/games/{game_id}/record").json()  # the record as it stood at ply 1
    assert len(stale["moves"]) == 1
    held: list[Any] = []
    watcher.route(f"**/api/games/{game_id}/record*", lambda route: held.append(route))
    watcher.goto(f"/games/{game_id}")
    root = watcher.locator("#table-root")
    expect(root).to_have_attribute("data-ply", "1")
    _poll(watcher, lambda: bool(held), "the record requested")  # its answer is late
    mover = next(t for t in tokens if _view(ann.request, game_id, t)["your_turn"])
    _move(ann.request, game_id, mover)  # pushed to the page while its request is in flight
    expect(root).to_have_attribute("data-ply", "2")
    held[0].fulfill(status=200, content_type="application/json", body=json.dumps(stale))
    expect(watcher.locator("#moves .mv")).to_have_count(2)  # the older record did not drop move 2


FAKES = """
window.__notes = []; window.__asked = 0; window.__beeps = 0; window.__hidden = false;
class FakeNotification {
  constructor(title, options) { window.__notes.push([title, options && options.tag]); }
  static async requestPermission() {
    window.__asked += 1; FakeNotification.permission = "granted"; return "granted";
  }
}
FakeNotification.permission = localStorage.getItem("fake.permission") || "default";
window.Notification = FakeNotification;
const node = () => ({ frequency: {}, gain: {}, connect: (x) => x, start() {}, stop() {} });
window.AudioContext = class {
  constructor() { window.__beeps += 1; this.destination = {}; this.currentTime = 0; }
  createOscillator() { return node(); } createGain() { return node(); } };
Object.defineProperty(document, "hidden", { get: () => window.__hidden });
"""


def _my_turn_again(page: Page, game_id: int, token: str) -> None:
    """Plays this seat's whole turn (first legal moves, never recruiting a Nemesis) and waits until the bot
    gave it back. A Nemesis hands the move to its owner in the middle of the other side's turn (its reaction,
    leaders.md), which is a "your turn" of its own: without one on the board, the turn comes back once. One
    turn only: the bot may play its whole turn before the next look at the game, which then is ours again."""
    view = _view(page.request, game_id, token)
    turn = view["view"]["turns"]
    while view["to_play"] == view["seat"] and view["view"]["turns"] == turn:
        legal = view["legal_moves"]
        pick = next((m for m in legal if not m.startswith("+NE@")), legal[0])
        move = {"move": pick, "ply": view["ply"]}
        _post(page.request, f"/api/games/{game_id}/move", move, token)
        view = _view(page.request, game_id, token)
    _poll(page, lambda: _view(page.request, game_id, token)["your_turn"], "my turn")


def test_your_turn_marks_the_tab_and_alerts_only_when_asked(contexts: Contexts) -> None:
    page = contexts.page()
    page.add_init_script(FAKES)
    _post(page.request, "/api/accounts/guest", {"name": "Solo"})
    # South: it opens the game, so no Nemesis is on the board until the turn comes back (see _my_turn_again)
    made = _post(page.request, "/api/play-bot", {"game": "leaders", "bot": "random", "side": 0})
    game_id, token = made["game"]["id"], made["token"]
    assert made["seat"] == 0
    page.goto(f"/games/{game_id}")
    expect(page.locator("#ctl-sound")).not_to_be_checked()  # both alerts are off by default
    expect(page.locator("#ctl-notify")).not_to_be_checked()
    _poll(page, lambda: _view(page.request, game_id, token)["your_turn"], "my turn")
    expect(page).to_have_title(re.compile(r"^● Your turn — \S"))  # the page's own title after the mark
    expect(page.locator("link[rel='icon']")).to_have_attribute("href", re.compile("circle"))  # its dot
    assert page.evaluate("[window.__notes.length, window.__beeps, window.__asked]") == [0, 0, 0]

    page.click("details.ctl-options summary")
    page.check("#ctl-notify")
    page.check("#ctl-sound")
    expect(page.locator("#ctl-notify")).to_be_checked()
    assert page.evaluate("window.__asked") == 1
    page.evaluate("window.__hidden = true; localStorage.setItem('fake.permission', 'granted')")
    _my_turn_again(page, game_id, token)
    _poll(page, lambda: page.evaluate("window.__notes.length") > 0, "a notification")
    assert page.evaluate("window.__notes.length") == 1
    assert page.evaluate("window.__notes[0][1]") == "throne-turn" and page.evaluate("window.__beeps") == 1

    page.reload()  # the choice is remembered; permission is not asked again
    page.click("details.ctl-options summary")
    expect(page.locator("#ctl-notify")).to_be_checked()
    page.uncheck("#ctl-notify")
    page.check("#ctl-notify")
    assert page.evaluate("window.__asked") == 0
    expect(page).to_have_title(re.compile(r"^● "))
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#ctl-resign")  # the game is over: nobody's turn, the mark goes
    expect(page).not_to_have_title(re.compile(r"^●"))
    expect(page.locator("link[rel='icon']")).not_to_have_attribute("href", re.compile("circle"))


def test_a_chat_mute_follows_the_user_to_another_device(contexts: Contexts) -> None:
    ann, bob, ann_elsewhere = contexts.page(), contexts.page(), contexts.page()
    name = f"ann{uuid.uuid4().hex[:8]}"
    _post(ann.request, "/api/accounts/register", {"username": name, "password": PASSWORD})
    created = _post(ann.request, "/api/games", {"game": "leaders", "players": 2})
    game_id = created["game"]["id"]
    _post(bob.request, "/api/accounts/guest", {"name": "Bob"})
    _post(bob.request, f"/api/games/{game_id}/join", {})
    for page in (ann, bob):
        page.goto(f"/games/{game_id}")
        expect(page.locator("#chat-panel")).to_be_visible()
    ann.fill("#chat-text", "mine")
    ann.click("#chat-send")
    expect(bob.locator("#chat-list li")).to_have_count(1)
    bob.fill("#chat-text", "noise")
    bob.click("#chat-send")
    lines = ann.locator("#chat-list li")
    expect(lines).to_have_count(2)
    expect(lines.nth(0).locator(".chat-mute")).to_have_count(0)  # nobody mutes themself
    lines.nth(1).locator(".chat-mute").click()
    expect(lines).to_have_count(1)
    expect(ann.locator("#chat-unmute")).to_be_visible()

    _post(ann_elsewhere.request, "/api/accounts/login", {"username": name, "password": PASSWORD})
    ann_elsewhere.goto(f"/games/{game_id}")  # another browser: nothing in its localStorage
    elsewhere = ann_elsewhere.locator("#chat-list li")
    expect(elsewhere).to_have_count(1)
    expect(elsewhere.nth(0)).to_contain_text("mine")
    ann_elsewhere.click("#chat-unmute")
    expect(elsewhere).to_have_count(2)


def test_clocks_count_down_and_warn_on_low_time(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/leaderboard")
    script = """async () => {
        const { Clocks, formatMs } = await import('/static/js/clock.js');
        const frozen = performance.now();
        let shift = 0;
        performance.now = () => frozen + shift;  // a fake clock: the page's time moves when the test says
        const box = document.createElement('div');
        document.body.append(box);
        const clocks = new Clocks(box);
        const control = { kind: 'fischer', minutes: 1, increment: 2 };
        clocks.update({ control, remaining_ms: [19_000, 45_000], running: 1, server_time: 0 });
        const rows = () => [...box.querySelectorAll('.clock')].map((r) => [r.className, r.textContent]);
        const first = rows();
        shift += 26_000;
        clocks.render();
        const later = rows();
        const days = { kind: 'correspondence', days: 1 };
        clocks.update({ control: days, remaining_ms: [5_000, 90_000_000], running: null, server_time: 0 });
        const formats = [61_000, 3_723_000, 90_000_000].map(formatMs);
        return { first, later, mail: rows(), formats };
    }"""
    got = page.evaluate(script)
    assert [row[0] for row in got["first"]] == ["clock low", "clock running"]
    assert got["first"][0][1].endswith("0:19") and got["later"][0][1].endswith("0:19")  # a stopped clock
    assert got["first"][1][1].endswith("0:45") and got["later"][1][1].endswith("0:19")  # the running one
    assert got["later"][1][0] == "clock running low"  # under 20 s: the warning
    assert [row[0] for row in got["mail"]] == ["clock", "clock"]  # no low-time alarm for days per move
    days_format = json.loads((CATALOGUES / "en.json").read_text())["ui.clock.days"]  # as the catalogue says
    assert got["formats"] == ["1:01", "1:02:03", days_format.format(days=1, time="01:00")]


def test_everyone_sees_the_countdown_of_a_disconnected_player(contexts: Contexts) -> None:
    ann, bob = contexts.page(), contexts.page()
    _post(ann.request, "/api/accounts/guest", {"name": "Ann"})
    created = _post(ann.request, "/api/games", {"game": "leaders", "players": 2})
    game_id = created["game"]["id"]
    _post(bob.request, "/api/accounts/guest", {"name": "Bob"})
    _post(bob.request, f"/api/games/{game_id}/join", {})
    for page in (ann, bob):
        page.goto(f"/games/{game_id}")
        expect(page.locator("#net-status")).to_have_attribute("data-state", "online")
    notice = ann.locator("#away-notice")
    expect(notice).to_be_hidden()
    bob.close()  # Bob's tab goes away
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(re.compile(r"Bob disconnected — \d+:\d\d:\d\d before a bot takes over"))
    expect(ann.locator("#ctl-options-rules, details.ctl-options")).to_contain_text("takes it back")
