"""`fitsub review --serve`: the run's settings beside the output, and the server's request checks
(token, Host, Origin, unknown segment, bad JSON) against a server on 127.0.0.1, port 0, in a
thread, with a tiny untrained model (nothing downloaded; no other address is ever connected)."""

from __future__ import annotations

import dataclasses
import http.client
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import TOY_SRT, run
from factories import tiny_checkpoint

from fitsub.budget import limits_for
from fitsub.cli.documents import load_input
from fitsub.cli.run_settings import read_run_settings, settings_path
from fitsub.cli.translation import resolve_run
from fitsub.formats import parse_document
from fitsub.pipeline import TranslateOptions
from fitsub.review.page import served_page
from fitsub.review.retranslate import budgets_of, stepped
from fitsub.review.serve import Reviewer, make_server, port_of


@dataclass
class Served:
    port: int
    token: str
    reviewer: Reviewer
    static: str
    page: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve")
    src = folder / "talk.srt"
    src.write_text(TOY_SRT, encoding="utf-8")
    model = tiny_checkpoint(folder)
    out, page = folder / "talk.it.srt", folder / "review.html"
    code = run(["translate", str(src), "-o", str(out), "--model", str(model), "--beam", "2",
                "--threads", "1", "-q", "--review", str(page)])  # fmt: skip
    assert code == 0
    flags, page_path = read_run_settings(out, device="cpu", threads=1)
    assert page_path == page.resolve()
    r = resolve_run(flags)
    opts, backend = r.with_model()
    reviewer = Reviewer(
        source=load_input(src), translated=load_input(out), backend=backend, opts=opts
    )
    static = page.read_text(encoding="utf-8")
    page = served_page(static, reviewer.translated, reviewer.source)
    server, token = make_server(page, reviewer, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(port_of(server), token, reviewer, static, page)
    finally:
        server.shutdown()
        server.server_close()


def _ask(
    s: Served,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60)
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    conn.request(method, path, body=data, headers=headers or {})
    resp = conn.getresponse()
    got = resp.status, dict(resp.getheaders()), resp.read()
    conn.close()
    return got


def _error(raw: bytes) -> str:
    message = json.loads(raw)["error"]
    assert "\n" not in message
    return str(message)


def test_the_run_settings_are_written_beside_the_output_with_the_model(
    served: Served, tmp_path: Path
) -> None:
    out = Path(served.reviewer.translated.path or "")
    record = json.loads(settings_path(out).read_text(encoding="utf-8"))
    assert record["flags"]["model"].endswith("tiny")
    assert record["flags"]["beam"] == 2
    assert record["flags"]["cpl"] == 42 and record["flags"]["lang"] == "it"


def test_the_page_needs_the_token(served: Served) -> None:
    status, headers, _ = _ask(served, "GET", f"/?t={served.token}")
    assert status == 200
    assert headers["Referrer-Policy"] == "no-referrer"
    for path in ("/", "/?t=wrong", f"/?t={served.token}x"):
        status, headers, raw = _ask(served, "GET", path)
        assert status == 403 and "token" in _error(raw)
        assert headers["Referrer-Policy"] == "no-referrer"


def test_the_served_policy_adds_only_connect_src_self(served: Served) -> None:
    def policy(page: str) -> set[str]:
        found = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
        assert found is not None
        return {p.strip() for p in found.group(1).split(";")}

    assert policy(served.page) - policy(served.static) == {"connect-src 'self'"}
    assert policy(served.static) <= policy(served.page)
    assert "connect-src" not in served.static


@pytest.mark.parametrize(
    "headers",
    [{"Host": "evil.example:{port}"}, {"Host": "127.0.0.1:1"}, {"Origin": "http://evil.example"}],
)
def test_a_foreign_host_or_origin_is_refused(served: Served, headers: dict[str, str]) -> None:
    given = {k: v.format(port=served.port) for k, v in headers.items()}
    body = {"segment": 0, "step": "shorter"}
    status, _, raw = _ask(served, "POST", f"/retranslate?t={served.token}", body, given)
    assert status == 403 and "refused" in _error(raw)


def test_the_same_origin_is_answered(served: Served) -> None:
    given = {"Origin": f"http://localhost:{served.port}", "Host": f"localhost:{served.port}"}
    status, _, _ = _ask(served, "GET", f"/?t={served.token}", headers=given)
    assert status == 200


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"segment": 7, "step": "shorter"}, 404, "no translated segment 7"),
        (b"{bad", 400, "not valid JSON"),
        ({"segment": "0", "step": "shorter"}, 400, "row number"),
        ({"segment": 0, "step": "half"}, 400, '"step"'),
        ({"segment": 0, "step": "shorter", "term": "x"}, 400, '"term"'),
    ],
)
def test_a_bad_request_gets_a_clear_refusal(
    served: Served, body: Any, status: int, says: str
) -> None:
    got, _, raw = _ask(served, "POST", f"/retranslate?t={served.token}", body)
    assert got == status and says in _error(raw)


def test_a_post_without_the_token_is_refused(served: Served) -> None:
    status, _, _ = _ask(served, "POST", "/retranslate", {"segment": 0, "step": "shorter"})
    assert status == 403


def test_shorter_asks_a_smaller_budget_and_answers_alternatives(served: Served) -> None:
    before = dict(served.reviewer.budgets)
    status, _, raw = _ask(
        served, "POST", f"/retranslate?t={served.token}", {"segment": 1, "step": "shorter"}
    )
    assert status == 200
    answer = json.loads(raw)
    assert answer["segment"] == 1
    assert answer["budget"] < before[1]
    assert {"alts", "unc_alt", "text", "fits"} <= set(answer)
    assert all(a["n"] <= answer["budget"] for a in answer["alts"] if a["fits"])


def test_a_step_is_a_tenth_and_at_least_one_character() -> None:
    assert stepped(40, "shorter") == 36 and stepped(40, "longer") == 44
    assert stepped(5, "shorter") == 4 and stepped(1, "shorter") == 1
    assert stepped(40, 25) == 25


def test_a_forced_term_is_taken_with_a_budget_in_characters(served: Served) -> None:
    body = {"segment": 0, "step": 30, "term": {"source": "dog", "target": "Fido"}}
    status, _, raw = _ask(served, "POST", f"/retranslate?t={served.token}", body)
    assert status == 200
    assert json.loads(raw)["budget"] == 30


def test_budget_chars_replaces_a_segments_budget_and_no_other() -> None:
    doc = parse_document(TOY_SRT, "srt")
    opts = TranslateOptions(lang="it", limits=limits_for("it"))
    planned = budgets_of(doc, opts)
    asked = budgets_of(doc, dataclasses.replace(opts, budget_chars={1: 9}))
    assert asked == {0: planned[0], 1: 9}


def test_a_tsv_review_writes_no_run_settings(tmp_path: Path) -> None:
    src = tmp_path / "talk.srt"
    src.write_text(TOY_SRT, encoding="utf-8")
    out = tmp_path / "talk.it.srt"
    code = run(["translate", str(src), "-o", str(out), "--model", "identity", "--lang", "it", "-q",
                "--review", str(tmp_path / "review.tsv")])  # fmt: skip
    assert code == 0
    assert not settings_path(out).exists()


def test_a_page_of_another_translation_is_not_served(served: Served) -> None:
    other = load_input(Path(served.reviewer.source.path or ""))
    moved = dataclasses.replace(other.segments[0], start_ms=(other.segments[0].start_ms or 0) + 10)
    retimed = dataclasses.replace(served.reviewer.translated, segments=(moved, *other.segments[1:]))
    with pytest.raises(ValueError, match="another file or translation"):
        served_page(served.static, retimed, served.reviewer.source)
    with pytest.raises(ValueError, match="not a fitsub review page"):
        served_page("<html></html>", served.reviewer.translated, served.reviewer.source)
