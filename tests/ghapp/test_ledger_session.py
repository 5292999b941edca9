"""`/ledger` over plain HTTP: the session cookie, CSRF, and every refusal a clear 4xx page."""

from __future__ import annotations

import select
import socket

import httpx
import pytest
from sqlalchemy import Engine, func, update
from sqlalchemy import select as query

from continual import persons, store
from continual.values import EntryState
from ghapp.tables import LedgerSession
from ghapp.web.session import FORM_TYPE, open_session
from tests.support.ledger_page import SeededLedger, csrf_of, sign_in, stored
from tests.support.recall import NOW, live_entries, seed, token


def _entry(engine: Engine) -> tuple[str, int]:
    row = live_entries(engine)[0]
    return row.id, row.revision


def _state(engine: Engine, entry_id: str) -> tuple[int, bool]:
    row = stored(engine, entry_id)
    return row.revision, row.demoted_ms is not None


def test_the_ledger_asks_for_a_sign_in_first(ledger_url: str) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        answer = client.get("/ledger")
        assert answer.status_code == 303 and answer.headers["location"] == "/ledger/sign-in"
        page = client.get("/ledger/sign-in")
    assert page.status_code == 200 and 'name="token"' in page.text
    assert page.headers["cache-control"] == "no-store"


def test_the_session_cookie_is_signed_httponly_and_strict(
    ledger_url: str, seeded_ledger: SeededLedger
) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        sign_in(client, seeded_ledger.token)
        answer = client.get("/ledger")
    assert "signed in as mona" in answer.text
    page = httpx.get(f"{ledger_url}/ledger/sign-in")
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/ledger" in cookie
    assert "secure" not in cookie  # served over http
    assert seeded_ledger.token not in page.headers["set-cookie"]


def test_the_cookie_is_secure_when_the_page_is_served_over_https(ledger_url: str) -> None:
    # uvicorn trusts X-Forwarded-Proto from loopback, as from a TLS-terminating proxy.
    page = httpx.get(f"{ledger_url}/ledger/sign-in", headers={"x-forwarded-proto": "https"})
    assert "secure" in page.headers["set-cookie"].lower()


def test_an_unknown_token_is_refused_with_a_message(ledger_url: str) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        csrf = csrf_of(client.get("/ledger/sign-in").text)
        answer = client.post("/ledger/sign-in", data={"csrf": csrf, "token": "hs_nope"})
        assert answer.status_code == 401 and "unknown or revoked" in answer.text
        assert client.get("/ledger").status_code == 303


def test_a_sign_in_without_the_csrf_token_is_refused(
    ledger_url: str, seeded_ledger: SeededLedger
) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        client.get("/ledger/sign-in")
        answer = client.post("/ledger/sign-in", data={"token": seeded_ledger.token})
        assert answer.status_code == 403 and "reload the page" in answer.text
        assert client.get("/ledger").status_code == 303


def test_a_post_without_the_csrf_token_changes_nothing(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    entry_id, revision = _entry(engine)
    before = _state(engine, entry_id)  # the seeded ledger is shared: read, do not assume
    action = "restore" if before[1] else "demote"
    form = {"action": action, "expected_revision": str(revision), "repo": seeded_ledger.repo}
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, seeded_ledger.token)
        missing = client.post(f"/ledger/lessons/{entry_id}", data=form)
        forged = client.post(f"/ledger/lessons/{entry_id}", data={**form, "csrf": "x" + csrf})
    for answer in (missing, forged):
        assert answer.status_code == 403 and "not from your current session" in answer.text
    assert _state(engine, entry_id) == before


def test_a_form_from_another_session_is_refused(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    entry_id, revision = _entry(engine)
    before = _state(engine, entry_id)  # the first live entry may be a demoted one
    action = "restore" if before[1] else "demote"
    with httpx.Client(base_url=ledger_url) as first, httpx.Client(base_url=ledger_url) as second:
        csrf = sign_in(first, seeded_ledger.token)
        sign_in(second, seeded_ledger.token)
        answer = second.post(
            f"/ledger/lessons/{entry_id}",
            data={"csrf": csrf, "action": action, "expected_revision": str(revision)},
        )
    assert answer.status_code == 403
    assert _state(engine, entry_id) == before


def test_a_demote_goes_through_the_compare_and_swap(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    entry_id, revision = _entry(engine)
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, seeded_ledger.token)
        form = {"csrf": csrf, "action": "demote", "expected_revision": str(revision)}
        done = client.post(f"/ledger/lessons/{entry_id}", data={**form, "repo": seeded_ledger.repo})
        assert done.status_code == 303 and "done=demote" in done.headers["location"]
        assert _state(engine, entry_id) == (revision + 1, True)
        stale = client.post(f"/ledger/lessons/{entry_id}", data=form)
    assert stale.status_code == 409
    assert f"no longer at revision {revision}" in stale.text
    assert _state(engine, entry_id) == (revision + 1, True)


@pytest.mark.parametrize(
    ("form", "status", "message"),
    [
        ({"action": "archive", "expected_revision": "1"}, 422, "action must be one of"),
        ({"action": "demote", "expected_revision": "one"}, 422, "expected_revision must be"),
        ({"action": "demote", "expected_revision": "²"}, 422, "expected_revision must be"),
        ({"action": "demote"}, 422, "expected_revision must be"),
        ({"action": "demote", "expected_revision": "1", "repo": "no slash"}, 422, "owner/name"),
    ],
)
def test_bad_forms_are_refused_with_what_is_wrong(
    ledger_url: str,
    seeded_ledger: SeededLedger,
    engine: Engine,
    form: dict[str, str],
    status: int,
    message: str,
) -> None:
    entry_id, _revision = _entry(engine)
    before = _state(engine, entry_id)  # the seeded ledger is shared: read, do not assume
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, seeded_ledger.token)
        answer = client.post(f"/ledger/lessons/{entry_id}", data={**form, "csrf": csrf})
    assert answer.status_code == status and message in answer.text
    assert _state(engine, entry_id) == before


def test_another_accounts_lesson_is_not_found(ledger_url: str, engine: Engine) -> None:
    other = seed(engine, 2, "acme", "web")
    assert other.repos
    entry_id, revision = _entry(engine)
    before = _state(engine, entry_id)  # the first live entry may be a demoted one
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, token(engine, "acme", "wile"))
        answer = client.post(
            f"/ledger/lessons/{entry_id}",
            data={"csrf": csrf, "action": "delete", "expected_revision": str(revision)},
        )
        assert answer.status_code == 404 and "does not exist in your account" in answer.text
        assert "octo/app" not in client.get("/ledger").text
    assert _state(engine, entry_id) == before


def test_json_and_oversized_bodies_are_refused(
    ledger_url: str, seeded_ledger: SeededLedger
) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, seeded_ledger.token)
        as_json = client.post("/ledger/lessons/e_x", json={"csrf": csrf})
        huge = client.post("/ledger/lessons/e_x", data={"csrf": csrf, "pad": "x" * 20_000})
    assert as_json.status_code == 415 and huge.status_code == 413


def test_a_tampered_cookie_or_a_revoked_token_signs_out(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        sign_in(client, seeded_ledger.token)
        cookie = client.cookies.get("hindsight_session")
        assert cookie is not None
        tampered = httpx.get(
            f"{ledger_url}/ledger", cookies={"hindsight_session": cookie[:-2] + "xx"}
        )
        assert tampered.status_code == 303
        with engine.begin() as conn:
            persons.revoke_token(conn, "octo", "mona", seeded_ledger.token[:11], now=NOW)
        assert client.get("/ledger").status_code == 303


def test_sign_out_ends_the_session(ledger_url: str, seeded_ledger: SeededLedger) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, seeded_ledger.token)
        answer = client.post("/ledger/sign-out", data={"csrf": csrf})
        assert answer.status_code == 303 and answer.headers["location"] == "/ledger/sign-in"
        assert client.get("/ledger").status_code == 303


def test_a_copy_of_the_cookie_is_refused_after_sign_out(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    """Signing out ends the session on the server: the old cookie, still signed and within its
    12 hours, no longer signs anyone in."""
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, seeded_ledger.token)
        copied = client.cookies.get("hindsight_session")
        assert copied is not None
        assert _with_cookie(ledger_url, copied).status_code == 200
        assert _sessions(engine) == 1
        client.post("/ledger/sign-out", data={"csrf": csrf})
    assert _with_cookie(ledger_url, copied).status_code == 303
    assert _sessions(engine) == 0


def test_each_sign_in_is_a_session_of_its_own_and_expired_ones_are_pruned(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    with httpx.Client(base_url=ledger_url) as first, httpx.Client(base_url=ledger_url) as second:
        csrf = sign_in(first, seeded_ledger.token)
        sign_in(second, seeded_ledger.token)
        first.post("/ledger/sign-out", data={"csrf": csrf})
        assert first.get("/ledger").status_code == 303
        assert second.get("/ledger").status_code == 200  # only the one signed out ends
    with engine.begin() as conn:  # a day later, the next sign-in prunes the expired rows
        conn.execute(update(LedgerSession).values(expires_ms=NOW - 1))
        account_id, token_id = conn.execute(
            query(LedgerSession.account_id, LedgerSession.token_id)
        ).one()
        open_session(conn, account_id, token_id, now=NOW)
    assert _sessions(engine) == 1


def _with_cookie(ledger_url: str, cookie: str) -> httpx.Response:
    with httpx.Client(base_url=ledger_url, cookies={"hindsight_session": cookie}) as client:
        return client.get("/ledger")


def _sessions(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(query(func.count()).select_from(LedgerSession)).scalar_one())


def test_a_huge_sign_in_form_is_refused_at_the_cap_not_read_whole(ledger_url: str) -> None:
    port = int(ledger_url.rsplit(":", 1)[1])
    head = "POST /ledger/sign-in HTTP/1.1\r\nhost: x\r\ncontent-type: " + FORM_TYPE + "\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:  # declared
        sock.sendall(f"{head}content-length: {200 * 1024 * 1024}\r\n\r\n".encode())
        assert _status(sock) == 413
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:  # streamed
        sock.sendall(f"{head}transfer-encoding: chunked\r\n\r\n".encode())
        chunk = b"%x\r\n%s\r\n" % (64 * 1024, b"x" * 64 * 1024)
        sent = 0
        try:
            while sent < 200 * 1024 * 1024:
                sock.sendall(chunk)
                sent += len(chunk)
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    break
        except OSError:
            pass  # closed under us: the answer is already waiting
        assert _status(sock) == 413
    assert sent < 8 * 1024 * 1024, f"{sent} bytes were taken before the refusal"


def _status(sock: socket.socket) -> int:
    try:
        line = sock.recv(65536).split(b"\r\n", 1)[0]
    except ConnectionResetError:
        return 0
    return int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0


def test_an_unknown_repository_is_a_404_page(ledger_url: str, seeded_ledger: SeededLedger) -> None:
    with httpx.Client(base_url=ledger_url) as client:
        sign_in(client, seeded_ledger.token)
        answer = client.get("/ledger", params={"repo": "octo/absent"})
    assert answer.status_code == 404 and "No repository octo/absent" in answer.text


def test_lesson_text_is_escaped(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    entry_id, _ = _entry(engine)
    with engine.begin() as conn:
        row = store.entry(conn, entry_id)
        assert row is not None
        store.cas_update(conn, entry_id, row.revision, text="<script>alert(1)</script> & more")
    with httpx.Client(base_url=ledger_url) as client:
        sign_in(client, seeded_ledger.token)
        page = client.get("/ledger").text
    assert "<script>alert(1)</script>" not in page and "<script" not in page
    # The text is Markdown in cmark-gfm's safe mode: a raw HTML block is left out whole.
    assert "<!-- raw HTML omitted -->" in page
    assert EntryState.ACTIVE.value in page or EntryState.CANDIDATE.value in page
