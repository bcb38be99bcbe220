"""`coffer ui` in a real browser: Debian's chromium, headless, driven by Playwright (never
a downloaded browser). Skipped without /usr/bin/chromium, unless COFFER_UI_BROWSER_REQUIRED
is set (CI sets it: there the skip would hide a broken page). COFFER_UI_SCREENSHOTS=DIR
saves the main views there (docs/ui/*.png)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from coffer.app import App
from coffer.store import Store
from coffer.ui.server import UIServer
from coffer.ui.site import Site
from tests.helpers import coffer, make_repo
from tests.ui.client import conflict_copy

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page, Playwright

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip

if not CHROMIUM.exists():
    if os.environ.get("COFFER_UI_BROWSER_REQUIRED"):
        pytest.fail(f"COFFER_UI_BROWSER_REQUIRED is set but {CHROMIUM} is missing "
                    "(apt-get install chromium)", pytrace=False)  # fmt: skip
    pytest.skip(f"no {CHROMIUM} (Debian's chromium package) to drive", allow_module_level=True)


@pytest.fixture
def driver() -> Iterator[Playwright]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture
def page(server: UIServer, driver: Playwright) -> Iterator[Page]:
    browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
    try:
        tab = browser.new_context(viewport={"width": 1100, "height": 700}).new_page()
        tab.context.on("dialog", lambda dialog: dialog.accept())  # the forget confirmation
        tab.goto(server.url)
        yield tab
    finally:
        browser.close()


def _open(page: Page, view: str) -> None:
    """Follow the nav link to ``view`` and wait for its page: a click only starts the
    navigation, and reading the old page's elements meanwhile finds none."""
    _follow(page, page.locator(f"nav >> text={view}"))


def _follow(page: Page, target: Locator) -> None:
    """Click ``target`` (a link, or a form's button: every action of the page is a form) and
    wait for the page it loads. Counting elements right after a bare click counts the old
    page's, or a blank one's, on a loaded machine."""
    with page.expect_navigation():
        target.click()


def _shot(page: Page, name: str) -> None:
    # One test per view takes its picture (the one showing the most of it: the team tier,
    # the sync panel), so the files do not depend on the order the tests ran in.
    where = os.environ.get("COFFER_UI_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=True)


def test_search_edit_forget_restore(page: Page, repo: Path) -> None:
    agents = repo / "AGENTS.md"
    assert "?token=" not in page.url  # the cookie took over
    assert page.locator("a.entry").count() == 2
    page.fill("input[name=q]", "python tabs")
    _follow(page, page.locator("form.search button"))
    assert page.locator("a.entry").first.inner_text() == "tabs"
    page.goto(page.url.split("?")[0])
    _follow(page, page.locator("a.entry:text('deploy')"))
    page.fill("textarea[name=text]", "Deploys use make ship.")
    _follow(page, page.locator("button:text('Save')"))
    assert str(agents) in page.locator("ul.updated").inner_text()
    assert "Deploys use make ship." in agents.read_text()
    _follow(page, page.locator("text=back"))
    _follow(page, page.locator("button.danger"))
    assert "make ship" not in agents.read_text()
    _follow(page, page.locator("text=back"))
    _follow(page, page.locator("button:text('Restore the last version')"))
    assert "Deploys use make ship." in agents.read_text()


def test_entry_metadata_and_verify(page: Page, repo: Path) -> None:
    makefile = repo / "Makefile"
    makefile.write_text("release:\n\tgit tag v1\n")
    _follow(page, page.locator("a.entry:text('deploy')"))
    assert page.locator("td.provenance").inner_text().startswith("from cli on ")
    assert page.locator("td.anchors").inner_text() == "none"
    page.fill("input[name=description]", "How we ship")
    page.select_option("select[name=type]", "reference")
    page.fill("input[name=anchors]", "Makefile")
    page.fill("input[name=review_after]", "6m")
    _follow(page, page.locator("button:text('Save')"))
    assert page.locator("h1").inner_text() == "saved deploy"
    _follow(page, page.locator("text=back"))
    assert page.locator("input[name=description]").input_value() == "How we ship"
    assert page.locator("select[name=type]").input_value() == "reference"
    assert page.locator("td.anchors").inner_text() == "Makefile"
    assert page.locator("td.review").inner_text().endswith("(then every 6m)")
    assert page.locator("td.provenance").inner_text().endswith("; changed by ui")
    assert page.locator("td.freshness").inner_text() == "fresh"
    makefile.write_text("release:\n\tgit tag v2\n")  # what it is about changed
    page.reload()
    stale = page.locator("td.freshness .stale").inner_text()
    assert stale.startswith("stale: Makefile changed since")
    _follow(page, page.locator("td.freshness button:text('Verify')"))
    _follow(page, page.locator("text=back"))
    assert page.locator("td.freshness").inner_text() == "fresh"
    assert page.locator("td.verified").inner_text() != "never"
    _open(page, "Memory")
    row = page.locator("tr", has=page.locator("a.entry:text('deploy')"))
    assert "reference" in row.inner_text() and "fresh" in row.inner_text()


def test_restore_a_chosen_version(page: Page, repo: Path) -> None:
    agents = repo / "AGENTS.md"
    _follow(page, page.locator("a.entry:text('deploy')"))
    for text in ("Deploys use make ship.", "Deploys use make deploy."):
        page.fill("textarea[name=text]", text)
        _follow(page, page.locator("button:text('Save')"))
        _follow(page, page.locator("text=back"))
    assert "Deploys use make deploy." in agents.read_text()
    versions = page.locator("h2:text('History') + table tr")
    assert versions.count() == 2
    release = versions.filter(has=page.locator("td.desc:text-is('Deploys use make release.')"))
    number = release.locator("td").first.inner_text()
    with page.expect_request(lambda r: r.method == "POST") as sent:
        _follow(page, release.locator("button:text('Restore')"))
    assert f"version={number}" in (sent.value.post_data or "")
    assert str(agents) in page.locator("ul.updated").inner_text()
    text = agents.read_text()
    assert "Deploys use make release." in text and "make deploy" not in text


def test_merge_from_the_review_view(page: Page, repo: Path) -> None:
    copy = conflict_copy(Store.from_environ(os.environ), repo)
    _open(page, "Review")
    item = page.locator("section.item[data-kind=conflict]")
    draft = item.locator("textarea[name=merged]")
    text = draft.input_value()
    assert text.startswith("Deploys use make release.\n")  # the text, no frontmatter
    assert "Deploys use make ship." in text and "this line is dropped" in text
    draft.fill(text.replace("Deploys use make ship.", "On Fridays: make ship."))
    _follow(page, item.locator("button[data-action=merge]"))
    assert str(repo / "AGENTS.md") in page.locator("ul.updated").inner_text()
    assert not copy.exists()
    tier = Store.from_environ(os.environ).project_tier(repo)
    assert tier is not None
    stored = (tier.dir / "deploy.md").read_bytes()  # the browser sent CRLF: stored as LF
    assert b"\r" not in stored and b"this line is dropped" not in stored
    assert b"Deploys use make release.\n\nOn Fridays: make ship.\n" in stored
    assert "On Fridays: make ship." in (repo / "AGENTS.md").read_text()
    # The merge is the page's, not Claude's (whose memory folder links to the tier).
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    shown = json.loads(coffer("show", "deploy", "--json", cwd=repo).stdout)
    assert shown["provenance"]["updated_by"] == "ui"
    _follow(page, page.locator("text=back"))
    assert "nothing to review" in page.inner_text("main")


def test_verify_a_stale_entry_from_the_review_view(page: Page, repo: Path) -> None:
    makefile = repo / "Makefile"
    makefile.write_text("release:\n\tgit tag v1\n")
    done = coffer("update", "deploy", "--anchor", "Makefile", cwd=repo)
    assert done.returncode == 0, done.stderr
    makefile.write_text("release:\n\tgit tag v2\n")
    _open(page, "Review")
    item = page.locator("section.item[data-kind=stale]")
    assert "Makefile changed since" in item.inner_text()
    labels = item.locator(".actions button").all_inner_texts()
    assert labels == ["verify: still true", "keep it as it is", "forget #1"]
    _follow(page, item.locator("button[data-action=verify]"))
    assert page.locator("ul.updated").count() == 1
    _follow(page, page.locator("text=back"))
    assert "nothing to review" in page.inner_text("main")
    _open(page, "Memory")
    row = page.locator("tr", has=page.locator("a.entry:text('deploy')"))
    assert row.locator("td").last.inner_text() == "fresh"


def test_resolve_a_conflict_copy(page: Page, repo: Path, server: UIServer) -> None:
    copy = conflict_copy(Store.from_environ(os.environ), repo)
    _open(page, "Review")
    item = page.locator("section.item[data-kind=conflict]")
    assert "Deploys use make ship." in item.inner_text()
    _shot(page, "review")
    _follow(page, item.locator("button[data-action='keep:2']"))
    assert page.locator("ul.updated").count() == 1
    assert not copy.exists()
    assert "Deploys use make ship." in (repo / "AGENTS.md").read_text()


def _explained(repo: Path) -> dict[str, Any]:
    done = coffer("explain", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _files(page: Page, agent: str) -> list[tuple[str, str]]:
    """Each file of ``agent``'s list on the Agents view: its place and its path."""
    items = page.locator(f"section[data-agent={agent}] ol.files > li").all()
    return [(li.locator("b").inner_text(), li.locator("span.path").inner_text()) for li in items]


def test_agents_load_order_and_state(page: Page, repo: Path) -> None:
    _open(page, "Agents")
    explained = _explained(repo)
    shown = page.locator("section.agent").evaluate_all("all => all.map(s => s.dataset.agent)")
    assert shown == [a["name"] for a in explained["agents"]]
    assert {"claude", "codex"} <= set(shown)
    for agent in explained["agents"]:  # every file, in the order `coffer explain` gives
        said = [(str(f["order"] or "-"), f["path"]) for f in agent["files"]]
        assert _files(page, agent["name"]) == said, agent["name"]
    for agent in ("claude", "codex"):
        assert _files(page, agent)[0] == ("1", str(repo / "AGENTS.md"))
        memory = page.locator(f"section[data-agent={agent}] ul.memory").inner_text()
        assert "coffer project memory: loaded" in memory
        assert "2 of 2 entries in view" in memory
    claude = page.locator("section[data-agent=claude] ol.files > li").first
    assert "when: " in claude.locator("ul.notes").inner_text()  # only while no CLAUDE.md
    _shot(page, "agents")
    _open(page, "State")
    assert "coffer watch" in page.inner_text("main")


def test_agents_show_caps_and_what_hides_what(page: Page, repo: Path) -> None:
    # Codex reads AGENTS.override.md instead of AGENTS.md, and only 32 KiB of it.
    override = repo / "AGENTS.override.md"
    rules = "".join(f"Rule {n}: keep the build green and the tests fast.\n" for n in range(800))
    override.write_text(f"# Local override\n\n{rules}")
    size = override.stat().st_size
    assert size > 32 * 1024
    _open(page, "Agents")
    codex = page.locator("section[data-agent=codex]")
    assert _files(page, "codex") == [("1", str(override)), ("-", str(repo / "AGENTS.md"))]
    cut, hidden = codex.locator("ol.files > li").all()
    assert cut.get_attribute("data-state") == "cut"
    assert f"32,768 of {size:,} bytes" in cut.locator("small").inner_text()
    assert f"cut: 32,768 bytes in all ({size:,} here)" in cut.locator("ul.notes").inner_text()
    assert hidden.get_attribute("data-state") == "shadowed"
    assert hidden.locator("ul.notes").inner_text() == f"not read: {override} hides it"
    memory = codex.locator("ul.memory").inner_text()
    assert f"coffer project memory: missing ({override})" in memory
    assert "0 of 2 entries in view, ~0 tokens; 2 by recall only" in memory
    hint = f"{override} hides {repo / 'AGENTS.md'} (coffer's memory) from Codex"
    assert hint in codex.locator("p.hint").all_inner_texts()
    assert "AGENTS.override.md hides AGENTS.md" in codex.locator("ul.notes").last.inner_text()
    assert "not loading coffer" in codex.locator("h2").inner_text()
    # Claude is not affected: it reads AGENTS.md
    assert _files(page, "claude")[0] == ("1", str(repo / "AGENTS.md"))


def test_refusals_in_the_browser(page: Page, server: UIServer, driver: Playwright) -> None:
    # A fresh context has no cookie: without the token, nothing.
    browser = page.context.browser
    assert browser is not None
    other = browser.new_context()
    try:
        reply = other.new_page().goto(f"http://127.0.0.1:{server.port}/")
        assert reply is not None and reply.status == 403
    finally:
        other.close()
    # DNS rebinding: a foreign name that resolves to 127.0.0.1 reaches the port, token and all.
    rebinding = [*ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"]
    rebound = driver.chromium.launch(executable_path=str(CHROMIUM), args=rebinding)
    try:
        foreign = rebound.new_page().goto(
            f"http://evil.example:{server.port}/?token={server.keys.token}"
        )
        assert foreign is not None and foreign.status == 421
    finally:
        rebound.close()
    # A form posted from another origin, even with the cookie and the CSRF token.
    answer = page.request.post(f"http://127.0.0.1:{server.port}/forget",
        form={"csrf": server.keys.csrf, "scope": "project", "name": "deploy"},
        headers={"Origin": "http://evil.example"})  # fmt: skip
    assert answer.status == 403
    page.reload()
    assert page.locator("a.entry:text('deploy')").count() == 1


def test_two_runs_in_one_browser_keep_their_own_cookie(
    page: Page, server: UIServer, tmp_path: Path
) -> None:
    # A second `coffer ui` (another project) opened in the same browser: its cookie does
    # not replace the first run's, so both pages keep working.
    other = make_repo(tmp_path / "other")
    done = coffer("remember", "Builds use cargo.", "--name", "build", cwd=other)
    assert done.returncode == 0, done.stderr
    second = UIServer(Site(App(dict(os.environ)), other))
    thread = threading.Thread(target=second.serve_forever, daemon=True)
    thread.start()
    try:
        tab = page.context.new_page()
        tab.goto(second.url)
        assert "?token=" not in tab.url and tab.locator("a.entry").all_inner_texts() == ["build"]
        for view, entries in ((page, ["deploy", "tabs"]), (tab, ["build"])):
            answer = view.reload()
            assert answer is not None and answer.status == 200
            assert sorted(view.locator("a.entry").all_inner_texts()) == entries
        names = {c["name"] for c in page.context.cookies()}
        assert names == {f"coffer_ui_{server.port}", f"coffer_ui_{second.port}"}
    finally:
        second.shutdown()
        second.server_close()
        thread.join(5)


@contextlib.contextmanager
def _another_site(html: str) -> Iterator[int]:
    """``html`` served on another port of this machine: the page of another site the
    browser opens (the test maps a foreign name to it); yields its port."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield site.server_address[1]
    finally:
        site.shutdown()
        site.server_close()
        thread.join(5)


def test_a_form_another_site_posts_is_refused(
    server: UIServer, driver: Playwright, repo: Path
) -> None:
    # A page of evil.example, open in the browser that holds the run's cookie, posts a form
    # to the page's /forget as soon as it loads, even with the form token (it cannot know
    # it; this proves the Origin check and the cookie's SameSite=Strict alone refuse it).
    attack = (
        f'<form method="post" action="http://127.0.0.1:{server.port}/forget">'
        f'<input name="csrf" value="{server.keys.csrf}"><input name="scope" value="project">'
        '<input name="name" value="deploy"></form><script>document.forms[0].submit()</script>'
    )
    rules = [*ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"]
    browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=rules)
    try:
        with _another_site(attack) as port:
            tab = browser.new_context().new_page()
            tab.goto(server.url)  # the person opened the page: the browser has the cookie
            assert tab.locator("a.entry:text('deploy')").count() == 1
            with tab.expect_response(lambda r: r.url.endswith("/forget")) as answered:
                tab.goto(f"http://evil.example:{port}/")
            answer = answered.value
            assert answer.request.method == "POST"
            assert answer.request.header_value("origin") == f"http://evil.example:{port}"
            assert answer.request.header_value("cookie") is None  # SameSite=Strict
            assert answer.status == 403 and "a request from another origin" in answer.text()
            tab.goto(f"http://127.0.0.1:{server.port}/")
            assert tab.locator("a.entry:text('deploy')").count() == 1
    finally:
        browser.close()
    assert "Deploys use make release." in (repo / "AGENTS.md").read_text()


def test_every_request_of_the_views_stays_on_this_machine(page: Page, server: UIServer) -> None:
    seen: list[str] = []
    page.context.on("request", lambda r: seen.append(r.url))
    page.goto(f"http://127.0.0.1:{server.port}/")
    with page.expect_navigation():
        page.click("a.entry:text('deploy')")
    for view in ("Review", "Agents", "State", "Memory"):
        _open(page, view)
    page.wait_for_load_state("networkidle")
    assert {urlsplit(url).hostname for url in seen} == {"127.0.0.1"}, seen
    paths = {urlsplit(url).path for url in seen}
    assert {
        "/",
        "/entry",
        "/review",
        "/agents",
        "/state",
        "/static/ui.css",
        "/static/ui.js",
    } <= paths


def test_team_tier_share_search_remove(page: Page, repo: Path) -> None:
    done = coffer("team", "init", cwd=repo)
    assert done.returncode == 0, done.stderr
    shared = repo / ".coffer" / "memory" / "deploy.md"
    page.reload()
    assert page.locator("#team a.team-entry").count() == 0  # opted in, nothing shared yet
    _follow(page, page.locator("a.entry:text('deploy')"))
    _follow(page, page.locator("button:text('Share with the team')"))
    assert shared.exists() and "Deploys use make release." in shared.read_text()
    assert str(shared) in page.locator("ul.updated").inner_text()
    assert "Deploys use make release." in (repo / "AGENTS.md").read_text()
    _open(page, "Memory")
    row = page.locator("#team tr", has=page.locator("a.team-entry:text('deploy')"))
    assert row.locator("td.by").inner_text() == "team:Dana Reviewer <dana@example.com>"
    mine = page.locator("tr", has=page.locator("a.entry:text('deploy')"))
    assert row.locator("td.updated").inner_text() == mine.locator("td").nth(4).inner_text()
    assert row.locator("td.freshness").inner_text() == "fresh"
    assert page.locator("#team p.count").inner_text().startswith("1 entry in ")
    _shot(page, "memory")
    page.fill("input[name=q]", "make release")
    _follow(page, page.locator("form.search button"))
    assert page.locator("#team a.team-entry").all_inner_texts() == ["deploy"]
    page.fill("input[name=q]", "python tabs")
    _follow(page, page.locator("form.search button"))
    assert page.locator("#team a.team-entry").count() == 0
    page.goto(page.url.split("?")[0])
    _follow(page, page.locator("#team a.team-entry:text('deploy')"))
    assert "Deploys use make release." in page.inner_text("main")
    _follow(page, page.locator("button:text('Remove from the team tier')"))
    assert not shared.exists()
    assert str(repo / "AGENTS.md") in page.locator("ul.updated").inner_text()  # its team block
    _follow(page, page.locator("text=back"))
    assert page.locator("#team a.team-entry").count() == 0


def test_memory_pages_through_many_entries(page: Page, repo: Path) -> None:
    tier = Store.from_environ(os.environ).project_tier(repo)
    assert tier is not None
    for n in range(248):  # with deploy and tabs: 250 entries, three pages of 100
        (tier.dir / f"note-{n:03}.md").write_text(
            f"---\nname: note-{n:03}\ndescription: note {n}\n---\n\nNote number {n}.\n"
        )
    page.reload()
    assert page.locator("p.count").inner_text().startswith("250 entries")
    assert page.locator("a.entry").count() == 100
    assert "page 1 of 3" in page.locator("nav.pager").first.inner_text()
    _follow(page, page.locator("nav.pager").first.locator("a:text('next')"))
    _follow(page, page.locator("nav.pager").first.locator("a:text('next')"))
    assert page.locator("a.entry").count() == 50
    assert "page 3 of 3" in page.locator("nav.pager").first.inner_text()
    seen = set(page.locator("a.entry").all_inner_texts())
    _follow(page, page.locator("nav.pager").first.locator("a:text('previous')"))
    assert not seen & set(page.locator("a.entry").all_inner_texts())  # pages do not overlap
    page.fill("input[name=q]", "number 117")
    _follow(page, page.locator("form.search button"))
    assert page.locator("a.entry").first.inner_text() == "note-117"


def test_sync_panel_last_round_and_conflicts(page: Page, repo: Path, tmp_path: Path) -> None:
    _open(page, "State")
    assert "sync: not set up" in page.locator("#sync").inner_text()
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, timeout=60)
    for args in (("sync", "init", str(remote), "--host", "desk"), ("sync", "link", "app"),
                 ("sync",)):  # fmt: skip
        done = coffer(*args, cwd=repo)
        assert done.returncode == 0, done.stderr
    said = coffer("sync", "status", "--json", cwd=repo)
    assert said.returncode == 0, said.stderr
    last = json.loads(said.stdout)
    page.reload()
    panel = page.locator("#sync")
    assert last["last_round"] and panel.locator(".when").inner_text() == last["last_round"]
    assert panel.locator(".moved").inner_text() == last["last_summary"]
    assert "no conflict waiting" in panel.inner_text()
    conflict_copy(Store.from_environ(os.environ), repo, "deploy.conflict-laptop")
    page.reload()
    assert "deploy.conflict-laptop" in panel.locator("ul.conflicts").inner_text()
    _shot(page, "state")
    _follow(page, panel.locator("a:text('resolve them in Review')"))
    assert page.locator("section.item[data-kind=conflict]").count() == 1


def test_undo_one_journal_record(page: Page, repo: Path) -> None:
    agents = repo / "AGENTS.md"
    assert "Deploys use make release." in agents.read_text()
    _open(page, "State")
    rows = page.locator("table tr", has=page.locator(f"td:text-is('{agents}')"))
    assert rows.count() == 1
    others = page.locator("form[action='/undo']").count()
    assert others > 1  # Claude's memory link is journaled too, and stays
    _follow(page, rows.locator("button:text('Undo')"))
    assert str(agents) in page.locator("ul.updated").inner_text()
    assert f"{agents}: without the coffer block" in page.locator("ul.said").inner_text()
    assert agents.read_text() == "# Team rules\n\nRun the tests.\n"  # exactly as it was
    _follow(page, page.locator("text=back"))
    assert page.locator(f"td:text-is('{agents}')").count() == 0
    assert page.locator("form[action='/undo']").count() == others - 1
