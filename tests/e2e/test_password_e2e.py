"""A new password from the player page: the form changes it, the other browser's session ends, the new
password logs in."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import Contexts
from tests.e2e.test_accounts_e2e import sign_up

pytestmark = pytest.mark.e2e


def log_in(page: Page, username: str, password: str) -> None:
    page.goto("/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#account-submit")
    page.wait_for_url(re.compile(r"/players/\d+$"))


def test_change_password_ends_the_other_sessions(contexts: Contexts) -> None:
    username = f"p{uuid.uuid4().hex[:10]}"
    laptop, phone = contexts.page(), contexts.page()
    sign_up(laptop, username, "castle on the hill", "Dana")
    log_in(phone, username, "castle on the hill")

    laptop.fill("#current-password", "castle on the hill")
    laptop.fill("#new-password", "password123")
    laptop.click("#password-submit")
    expect(laptop.locator("#flash")).to_contain_text("common")
    laptop.fill("#current-password", "castle on the hill")
    laptop.fill("#new-password", "bridge over water")
    laptop.click("#password-submit")
    expect(laptop.locator("#password-done")).to_be_visible()

    phone.reload()
    expect(phone.locator("#user-badge")).to_have_count(0)  # that session was ended on the server
    laptop.reload()
    expect(laptop.locator("#user-badge")).to_contain_text("Dana")  # this one got a new cookie
    log_in(phone, username, "bridge over water")
    expect(phone.locator("#user-badge")).to_contain_text("Dana")


def test_the_form_is_only_on_your_own_page(contexts: Contexts) -> None:
    owner, visitor = contexts.page(), contexts.page()
    sign_up(owner, f"q{uuid.uuid4().hex[:10]}", "castle on the hill", "Eve")
    expect(owner.locator("#password-form")).to_be_visible()
    sign_up(visitor, f"r{uuid.uuid4().hex[:10]}", "castle on the hill", "Fay")
    visitor.goto(owner.url)
    expect(visitor.locator("#player-title")).to_contain_text("Eve")
    expect(visitor.locator("#password-form")).to_have_count(0)
