"""Server-rendered pages pick and remember the language, lay Persian out right to left, and serve the
catalogues from throne.i18n (the only copy)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from throne import i18n
from throne.server.app import create_app
from throne.server.config import Settings


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("pages")))
    with TestClient(app) as c:
        yield c


def html_tag(text: str) -> str:
    match = re.search(r"<html[^>]*>", text)
    assert match
    return match.group(0)


@pytest.mark.parametrize(
    ("header", "tag", "title"),
    [
        ("en-US,en;q=0.9", '<html lang="en" dir="ltr">', "Leaders vs bot"),
        ("fa-IR,fa;q=0.9", '<html lang="fa" dir="rtl">', "رهبران در برابر ربات"),
        ("ja-JP,ja;q=0.9", '<html lang="ja" dir="ltr">', "リーダーズ vs ボット"),
        ("de-DE", '<html lang="en" dir="ltr">', "Leaders vs bot"),
    ],
)
def test_language_from_the_browser(client: TestClient, header: str, tag: str, title: str) -> None:
    client.cookies.clear()
    page = client.get("/", headers={"Accept-Language": header})
    assert page.status_code == 200
    assert html_tag(page.text) == tag
    assert title in page.text


def test_switcher_sets_a_cookie_that_wins_over_the_browser(client: TestClient) -> None:
    client.cookies.clear()
    switched = client.get("/lang/fa?next=/leaderboard", follow_redirects=False)
    assert switched.status_code == 303
    assert switched.headers["location"] == "/leaderboard"
    assert client.cookies.get("throne_lang") == "fa"
    page = client.get("/leaderboard", headers={"Accept-Language": "ja"})
    assert html_tag(page.text) == '<html lang="fa" dir="rtl">'
    client.cookies.clear()


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", ""])
def test_switcher_never_redirects_off_site(client: TestClient, target: str) -> None:
    response = client.get("/lang/ja", params={"next": target}, follow_redirects=False)
    assert response.headers["location"] == "/"


def test_unknown_language_is_not_found(client: TestClient) -> None:
    assert client.get("/lang/de", follow_redirects=False).status_code == 404
    assert client.get("/i18n/de.json").status_code == 404


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_catalogue_route_serves_the_package_catalogue(client: TestClient, lang: str) -> None:
    assert client.get(f"/i18n/{lang}.json").json() == i18n.catalog(lang)


def test_no_second_copy_of_the_catalogues_in_static() -> None:
    static = Path(__file__).resolve().parents[2] / "src" / "throne" / "server" / "static"
    assert sorted(p.name for p in static.rglob("*.json")) == []
    sample = i18n.t("fa", "hl.zone.wilderness")
    assert not any(sample in p.read_text(encoding="utf-8") for p in static.rglob("*.js"))


@pytest.mark.parametrize(
    "path", ["/", "/games/1", "/games/1/replay", "/login", "/signup", "/leaderboard", "/players/1"]
)
def test_every_page_renders_in_every_language(client: TestClient, path: str) -> None:
    for lang in i18n.LANGUAGES:
        client.cookies.set("throne_lang", lang)
        page = client.get(path)
        assert page.status_code == 200, (path, lang)
        assert f'lang="{lang}"' in html_tag(page.text)
        assert i18n.t(lang, "ui.nav.home") in page.text
    client.cookies.clear()
