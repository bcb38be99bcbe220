"""`coffer ui` over HTTP: who is served (token, cookie, Host, Origin, CSRF) and what the
page's writes do on disk (the same write path as the CLI: AGENTS.md changes)."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

from coffer.store import Store
from coffer.store.entry import Entry
from coffer.ui.server import UIServer
from tests.helpers import coffer
from tests.ui.client import call, conflict_copy, post, updated


def test_no_token_no_page(server: UIServer) -> None:
    assert call(server, "/", cookie=False).status == 403
    assert call(server, "/?token=wrong", cookie=False).status == 403
    wrong = {"Cookie": f"coffer_ui_{server.port}=wrong"}
    assert call(server, "/", cookie=False, headers=wrong).status == 403
    other_run = {"Cookie": f"coffer_ui_1={server.keys.token}"}  # another port's cookie
    assert call(server, "/", cookie=False, headers=other_run).status == 403
    assert call(server, "/static/ui.css", cookie=False).status == 403


def test_token_in_url_becomes_a_strict_cookie(server: UIServer) -> None:
    first = call(server, f"/?token={server.keys.token}", cookie=False)
    assert first.status == 303
    assert first.headers["Location"] == "/"  # the token leaves the address bar
    cookie = first.headers["Set-Cookie"]
    assert cookie.startswith(f"coffer_ui_{server.port}={server.keys.token};")  # this run's
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = call(server, "/")
    assert page.status == 200 and "deploy" in page.body and "tabs" in page.body
    assert "<p class=count>2 entries for " in page.body
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]


def test_foreign_host_is_refused(server: UIServer) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name.
    assert call(server, "/", headers={"Host": f"evil.example:{server.port}"}).status == 421
    assert call(server, "/", headers={"Host": "127.0.0.1:1"}).status == 421
    assert call(server, "/", headers={"Host": f"localhost:{server.port}"}).status == 200


def test_foreign_origin_is_refused(server: UIServer) -> None:
    evil = {"Origin": "http://evil.example"}
    assert call(server, "/", headers=evil).status == 403
    form = {"csrf": server.keys.csrf, "scope": "project", "name": "deploy"}
    assert call(server, "/forget", form=form, headers=evil).status == 403
    same = {"Origin": f"http://127.0.0.1:{server.port}"}
    assert call(server, "/", headers=same).status == 200


def test_writes_need_post_and_the_csrf_token(server: UIServer, repo: Path) -> None:
    before = (repo / "AGENTS.md").read_text()
    assert call(server, "/forget?scope=project&name=deploy").status == 404
    form = {"scope": "project", "name": "deploy"}
    assert call(server, "/forget", form=form).status == 403
    assert call(server, "/forget", form={**form, "csrf": "wrong"}).status == 403
    assert (repo / "AGENTS.md").read_text() == before
    assert "Deploys use make release." in before


def test_a_bad_content_length_is_refused(server: UIServer, repo: Path) -> None:
    form = {"csrf": server.keys.csrf, "scope": "project", "name": "deploy"}
    for length, status in (("abc", 400), ("-1", 400), ("1e3", 400), (str(2 << 20), 413)):
        reply = call(server, "/forget", form=form, headers={"Content-Length": length})
        assert reply.status == status, length
        assert reply.headers["Connection"] == "close"
    assert call(server, "/").status == 200  # the server goes on
    assert "Deploys use make release." in (repo / "AGENTS.md").read_text()


def test_edit_reaches_agents_md(server: UIServer, repo: Path) -> None:
    agents = repo / "AGENTS.md"
    page = call(server, "/entry?scope=project&name=deploy")
    assert page.status == 200 and "Deploys use make release." in page.body
    edit = {"text": "Deploys use make ship.", "description": "How we deploy", "type": "project"}
    done = post(server, "/update", scope="project", name="deploy", **edit)
    assert done.status == 200, done.body
    assert str(agents) in updated(done)
    text = agents.read_text()
    assert "Deploys use make ship." in text and "make release" not in text
    assert text.startswith("# Team rules\n\nRun the tests.\n")  # the person's part is kept
    kind = post(server, "/update", scope="project", name="deploy", **{**edit, "type": "reference"})
    assert kind.status == 200, kind.body
    saved = _entry(repo, "deploy")
    said = (saved.body.strip(), saved.description, saved.type)
    assert said == (edit["text"], "How we deploy", "reference")


def _review_item(server: UIServer, kind: str) -> tuple[str, str]:
    """The id of the first review item of ``kind`` and its merge draft (if it has one)."""
    page = call(server, "/review").body
    item = re.search(rf'data-kind="{kind}".*?name="id" value="([0-9a-f]+)"', page, re.S)
    assert item is not None, page
    draft = re.search(r'<textarea name="merged"[^>]*>(.*?)</textarea>', page, re.S)
    return item.group(1), html.unescape(draft.group(1)) if draft else ""


def test_line_ends_from_a_browser_are_stored_as_lf(server: UIServer, repo: Path) -> None:
    # A browser sends a textarea's text with CRLF line ends: the entry file gets LF.
    tier = Store.from_environ(os.environ).project_tier(repo)
    assert tier is not None
    entry = tier.dir / "deploy.md"
    text = "Deploys use make ship.\r\nThen tag the release.\r\n"
    done = post(server, "/update", scope="project", name="deploy", text=text)
    assert done.status == 200, done.body
    assert b"\r" not in entry.read_bytes()
    assert "Deploys use make ship.\nThen tag the release." in entry.read_text()
    # and a merge from the Review view
    copy = conflict_copy(Store.from_environ(os.environ), repo)
    item, draft = _review_item(server, "conflict")
    assert "this line is dropped" in draft and not draft.startswith("---")  # the text only
    merged = draft.replace("make ship", "make ship (or make release)").replace("\n", "\r\n")
    done = post(server, "/resolve", id=item, action="merge", merged=merged,
                description="How we deploy")  # fmt: skip
    assert done.status == 200, done.body
    assert not copy.exists()
    stored = entry.read_bytes()
    assert b"\r" not in stored and b"this line is dropped" not in stored
    assert b"Deploys use make ship (or make release).\nThen tag the release." in stored
    merged_entry = _entry(repo, "deploy")
    assert merged_entry.description == "How we deploy" and merged_entry.type == "project"
    assert merged_entry.metadata["updated_by"] == "ui"
    assert "make ship (or make release)" in (repo / "AGENTS.md").read_text()


def _entry(repo: Path, name: str) -> Entry:
    s = Store.from_environ(os.environ)
    tier = s.project_tier(repo)
    assert tier is not None
    return s.find([tier], name).entry


def test_anchors_review_date_and_verify_as_coffer_update(server: UIServer, repo: Path) -> None:
    makefile = repo / "Makefile"
    makefile.write_text("release:\n\tgit tag v1\n")
    done = post(server, "/update", scope="project", name="deploy", anchors="Makefile",
                review_after="2020-01-01")  # fmt: skip
    assert done.status == 200, done.body
    meta = _entry(repo, "deploy").metadata
    assert [a["path"] for a in meta["anchors"]] == ["Makefile"]
    assert meta["review_after"] == "2020-01-01" and meta["updated_by"] == "ui"
    row = re.search(r'name=deploy".*?</tr>', call(server, "/").body, re.S)
    assert row is not None and "stale: review was due 2020-01-01" in row.group(0)
    again = post(server, "/update", scope="project", name="deploy", review_after="90d")
    assert again.status == 200, again.body
    page = call(server, "/entry?scope=project&name=deploy").body
    assert "<td class=freshness>fresh</td>" in page
    assert "<td class=anchors>Makefile</td>" in page
    assert re.search(r"<td class=review>\d{4}-\d\d-\d\d \(then every 90d\)</td>", page)
    assert re.search(r"<td class=provenance>from cli on [^<]*; changed by ui</td>", page)
    assert re.search(r"<td class=created>\d{4}-\d\d-\d\dT", page)
    assert 'name="verified"' not in page  # nothing to verify
    makefile.write_text("release:\n\tgit tag v2\n")  # what the entry is about changed
    page = call(server, "/entry?scope=project&name=deploy").body
    assert "stale: Makefile changed since" in page and 'name="verified" value="1"' in page
    verified = post(server, "/update", scope="project", name="deploy", verified="1")
    assert verified.status == 200, verified.body
    page = call(server, "/entry?scope=project&name=deploy").body
    assert "<td class=freshness>fresh</td>" in page and "<td class=verified>never" not in page
    # Save with nothing changed writes nothing
    entry = _entry(repo, "deploy")
    same = {"text": entry.body, "description": entry.description, "type": entry.type or ""}
    unchanged = post(server, "/update", scope="project", name="deploy", **same)
    assert unchanged.status == 200 and "<h1>deploy is unchanged</h1>" in unchanged.body
    assert _entry(repo, "deploy").metadata == entry.metadata
    # what `coffer update` refuses, the page refuses
    bad = post(server, "/update", scope="project", name="deploy", review_after="someday")
    assert bad.status == 400 and "invalid --review-after" in bad.body


def test_a_secret_is_refused_like_the_cli(server: UIServer, repo: Path) -> None:
    secret = "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    done = post(server, "/update", scope="project", name="deploy", text=secret)
    assert done.status == 400
    assert "ghp_" not in (repo / "AGENTS.md").read_text()


def test_forget_and_restore(server: UIServer, repo: Path) -> None:
    agents = repo / "AGENTS.md"
    gone = post(server, "/forget", scope="project", name="deploy")
    assert gone.status == 200 and str(agents) in updated(gone)
    assert "make release" not in agents.read_text()
    page = call(server, "/entry?scope=project&name=deploy")
    assert page.status == 200 and "Restore" in page.body
    back = post(server, "/restore", scope="project", name="deploy")
    assert back.status == 200 and str(agents) in updated(back)
    assert "Deploys use make release." in agents.read_text()
    history = call(server, "/entry?scope=project&name=deploy").body
    assert "deleted" in history or "forgot" in history or "<h2>History</h2>" in history


def test_restore_a_chosen_version(server: UIServer, repo: Path) -> None:
    agents = repo / "AGENTS.md"
    for text in ("Deploys use make ship.", "Deploys use make deploy."):
        assert post(server, "/update", scope="project", name="deploy", text=text).status == 200
    page = call(server, "/entry?scope=project&name=deploy").body
    rows = re.findall(r"<tr><td>(\d+)</td>.*?<td class=desc>([^<]*)</td>", page)
    assert [d for _, d in rows] == ["Deploys use make release.", "Deploys use make ship."]
    number = rows[0][0]
    back = post(server, "/restore", scope="project", name="deploy", version=number)
    assert back.status == 200 and str(agents) in updated(back)
    text = agents.read_text()
    assert "Deploys use make release." in text and "make deploy" not in text
    for bad in ("x", "-1", "99"):
        refused = post(server, "/restore", scope="project", name="deploy", version=bad)
        assert refused.status == 400, bad
    assert "Deploys use make release." in agents.read_text()


def test_search_ranks_as_recall(server: UIServer) -> None:
    page = call(server, "/?q=python+tabs").body
    names = re.findall(r'class="entry" href="[^"]*">([^<]+)</a>', page)
    assert names[:1] == ["tabs"]


def test_review_resolves_a_conflict_copy(server: UIServer, repo: Path) -> None:
    copy = conflict_copy(Store.from_environ(os.environ), repo)
    page = call(server, "/review").body
    assert "conflict" in page and "Deploys use make ship." in page
    item = re.search(r'name="id" value="([0-9a-f]+)"', page)
    assert item is not None
    done = post(server, "/resolve", id=item.group(1), action="keep:2")
    assert done.status == 200, done.body
    assert not copy.exists()
    assert "Deploys use make ship." in (repo / "AGENTS.md").read_text()
    assert "nothing to review" in call(server, "/review").body


def test_agents_and_state(server: UIServer, repo: Path) -> None:
    page = call(server, "/agents").body
    assert 'data-agent="claude"' in page and 'data-agent="codex"' in page
    assert str(repo / "AGENTS.md") in page
    state = call(server, "/state").body
    assert "coffer watch" in state and str(repo / "AGENTS.md") in state


def test_team_rows_show_age_and_freshness(server: UIServer, repo: Path) -> None:
    done = coffer("team", "init", cwd=repo)
    assert done.returncode == 0, done.stderr
    (repo / ".coffer" / "memory" / "ports.md").write_text(
        "---\nname: ports\ndescription: Ports in use\nmetadata:\n  type: project\n"
        "  updated_at: '2026-11-02T10:00:00+00:00'\n  review_after: '2020-01-01'\n---\n\n"
        "The API listens on 8080.\n"
    )
    page = call(server, "/").body
    row = re.search(r'href="/team\?name=ports".*?</tr>', page, re.S)
    assert row is not None
    assert "<td class=updated>2026-11-02</td>" in row.group(0)
    assert "stale: review was due 2020-01-01" in row.group(0)
    entry = call(server, "/team?name=ports").body
    assert "updated 2026-11-02T10:00:00+00:00" in entry and "stale: review was due" in entry


def test_undo_of_one_setup_record_gives_the_settings_file_back(
    server: UIServer, fake_home: Path
) -> None:
    settings = fake_home / ".claude" / "settings.json"
    original = b'{\n  "model": "opus",\n  "hooks": {"Stop": []}\n}\n'
    settings.write_bytes(original)
    done = coffer("setup", "--yes", "--agent", "claude", "--no-service")
    assert done.returncode == 0, done.stderr
    assert b"project --hook --for claude" in settings.read_bytes()
    state = call(server, "/state").body
    assert f"<td>{settings}</td>" in state and "coffer setup --undo" in state
    key = re.search(r'name="key" value="(setup:claude:[^"]*settings\.json)"', state)
    assert key is not None
    undone = post(server, "/undo", key=key.group(1))
    assert undone.status == 200, undone.body
    assert updated(undone) == [str(settings)]
    assert f"restored {settings}: claude: the original bytes" in undone.body
    assert settings.read_bytes() == original
    after = call(server, "/state").body
    assert key.group(1) not in after
    assert "setup:claude:" in after  # the MCP server and the skill stay wired
    again = post(server, "/undo", key=key.group(1))  # gone: said, not guessed
    assert again.status == 400 and "that journal record is gone" in again.body


def test_a_refused_undo_says_so_and_changes_nothing(server: UIServer, repo: Path) -> None:
    agents = repo / "AGENTS.md"
    edited = agents.read_text().replace("make release", "make ship")
    agents.write_text(edited)
    refused = post(server, "/undo", key=str(agents))
    assert refused.status == 200
    assert "<h1>not undone</h1>" in refused.body and "edited by hand" in refused.body
    assert updated(refused) == []
    assert agents.read_text() == edited
    assert f'value="{agents}"' in call(server, "/state").body  # still journaled
