"""Two people (two browser contexts) create, join and play a Leaders table against each other; a dropped
WebSocket reconnects by itself and says so; a move the server rejects shows the server's reason."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import LeadersClicker, data, is_over
from tests.e2e.helpers import Contexts

pytestmark = pytest.mark.e2e
MAX_ROUNDS = 400


def create_table_for_two(page: Page) -> str:
    page.goto("/")
    page.select_option("#create-game", "leaders")
    page.select_option('#seat-setup select[data-seat="1"]', "human")
    page.fill("#create-name", "Ann")
    page.click("#create-submit")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#waiting")).to_be_visible()
    return page.url


def join_from_lobby(page: Page, url: str) -> None:
    game_id = url.rsplit("/", 1)[1]
    page.goto("/")
    page.click(f'#open-tables li[data-game-id="{game_id}"] a[data-action="join"]')
    page.wait_for_url(re.compile(rf"/games/{game_id}$"))
    page.click("#join-seat")


def test_two_people_play_each_other(contexts: Contexts) -> None:
    ann, bob = contexts.page(), contexts.page()
    url = create_table_for_two(ann)
    join_from_lobby(bob, url)
    for page in (ann, bob):
        expect(page.locator("#board .cell")).to_have_count(37)
        expect(page.locator("#net-status")).to_have_attribute("data-state", "online")
    seats = {data(ann, "seat"), data(bob, "seat")}
    assert seats == {"0", "1"}

    # A dropped connection comes back by itself and says so.
    ann.evaluate("window.throneSocket.drop()")
    expect(ann.locator("#net-status")).to_have_text("Reconnected")
    expect(ann.locator("#net-status")).to_have_attribute("data-state", "online")

    # A move the server refuses shows its reason; the page keeps working.
    bob.evaluate("window.throneSocket.send({type: 'move', move: 'a1-a9'})")
    expect(bob.locator("#flash")).to_contain_text("Not accepted:")
    expect(bob.locator("#board .cell")).to_have_count(37)

    players = [LeadersClicker(ann), LeadersClicker(bob)]
    rounds = 0
    while not is_over(ann):
        rounds += 1
        assert rounds < MAX_ROUNDS, "the game did not end"
        moved = False
        for player in players:
            if data(player.page, "myTurn") == "true" and not is_over(player.page):
                player.take_turn()
                moved = True
        if not moved:
            time.sleep(0.05)
    for page in (ann, bob):
        expect(page.locator("#result")).to_be_visible()
    heads = {re.match(r"You won!|You lost|Draw", page.inner_text("#result")).group() for page in (ann, bob)}
    assert heads in ({"You won!", "You lost"}, {"Draw"})
    # Both see the same move list.
    assert ann.locator("#moves .mv").all_inner_texts() == bob.locator("#moves .mv").all_inner_texts()


def test_private_table_by_invite_link(contexts: Contexts) -> None:
    ann, bob = contexts.page(), contexts.page()
    ann.goto("/")
    ann.select_option("#create-game", "leaders")
    ann.select_option('#seat-setup select[data-seat="1"]', "human")
    ann.check("#create-private")
    ann.click("#create-submit")
    ann.wait_for_url(re.compile(r"/games/\d+\?invite="))
    expect(ann.locator("#waiting-invite")).to_contain_text(ann.url)
    game_id = re.search(r"/games/(\d+)", ann.url).group(1)
    bob.goto("/")
    expect(bob.locator("#open-tables > *").first).to_be_visible()
    assert bob.locator(f'#open-tables li[data-game-id="{game_id}"]').count() == 0
    bob.goto(ann.url)
    bob.click("#join-seat")
    for page in (ann, bob):
        expect(page.locator("#board .cell")).to_have_count(37)
    assert {data(ann, "seat"), data(bob, "seat")} == {"0", "1"}


def test_lobby_offers_the_strategist_mode(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    page.select_option("#create-game", "leaders")
    expect(page.locator("#create-mode")).to_have_value("discovery")
    labels = page.locator("#create-mode option").all_inner_texts()
    assert labels == ["Discovery (3-card market)", "Strategist (banishments, every card available)"]
    page.select_option("#create-mode", "strategist")
    page.click("#create-submit")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#banned")).to_contain_text("Banished:")
    expect(page.locator("#market").locator("xpath=..").locator("h2")).to_have_text("Available champions")
    expect(page.locator("#market .market-card")).not_to_have_count(3)
