"""`fitsub review --serve`: the review page served on 127.0.0.1, re-translating a line on request.

Standard library only (`http.server.ThreadingHTTPServer`). The server binds 127.0.0.1 alone and
answers only requests that carry its random token (`secrets.token_urlsafe`) in the URL
(`?t=TOKEN`), whose Host is `127.0.0.1:PORT` or `localhost:PORT` and whose Origin, when sent, is
the same (a page of another site, or a DNS name rebound to 127.0.0.1, is refused). Every answer
says `Referrer-Policy: no-referrer` (the token never leaves in a Referer) and
`Cache-Control: no-store`.

- `GET /?t=TOKEN`: the review page (`fitsub.review.page.served_page`: the static page's policy
  plus `connect-src 'self'`).
- `POST /retranslate?t=TOKEN` with `{"segment": I, "step": "shorter" | "longer" | CHARS,
  "term": {"source": S, "target": T}}` (`term` optional): segment I translated again with the
  run's settings (`fitsub.review.retranslate`), one step shorter or longer than the budget last
  asked of it (the run's at first), or CHARS; the answer is the page's alternatives for the row
  (`alts`, `unc_alt`), the budget asked and the text the pipeline chose.

Refusals are one line of JSON, `{"error": ...}`: 403 without the token or with a foreign Host or
Origin, 404 for an unknown path or segment, 400 for a body that is not such JSON, 413 for one
over `MAX_BODY` bytes. The model runs one request at a time.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fitsub.backend import TranslationBackend
from fitsub.budget import Limits
from fitsub.document import Document
from fitsub.errors import InputError
from fitsub.markup import protect
from fitsub.pipeline import TranslateOptions
from fitsub.review.page import row_offers
from fitsub.review.retranslate import LONGER, SHORTER, budgets_of, retranslate, stepped
from fitsub.review.strict_json import loads
from fitsub.units import char_length

HOST = "127.0.0.1"
MAX_BODY = 64 * 1024


class Refused(Exception):
    """A request refused: its HTTP status and the one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Reviewer:
    """What the server re-translates with: the source, the translated file, the run's backend
    and options; the budget last asked of each segment."""

    source: Document
    translated: Document
    backend: TranslationBackend
    opts: TranslateOptions
    budgets: dict[int, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if not self.budgets:
            self.budgets = budgets_of(self.source, self.opts)

    @property
    def limits(self) -> Limits | None:
        """The run's subtitle limits (None: slides)."""
        return self.opts.limits if self.translated.timed else None

    def warm(self) -> None:
        """One re-translation at the run's budget, answered to no one: what a first request
        loads (the word lists, the search's caches) is loaded before the URL is given."""
        if self.budgets:
            index = min(self.budgets)
            retranslate(
                self.source,
                index,
                backend=self.backend,
                opts=self.opts,
                chars=self.budgets[index],
            )

    def _held(self, index: int) -> int:
        """The characters of segment `index`'s text in the translated file (markup aside)."""
        seg = self.translated.segments[index]
        return char_length(" ".join(protect(seg.text, self.translated.markup).plain.split()))

    def answer(self, request: Any) -> dict[str, Any]:
        """The answer to a `/retranslate` body (module docstring); `Refused` when it is not one."""
        index, step, term = _parse(request)
        if index not in self.budgets:
            raise Refused(404, f"no translated segment {index} (rows are numbered from 0)")
        with self._lock:  # one model call at a time; the budget steps from the last asked
            base = self.budgets[index]
            if step == SHORTER:  # shorter than the line as it stands, when that is shorter
                base = min(base, self._held(index))
            chars = stepped(base, step)
            r = retranslate(
                self.source, index, backend=self.backend, opts=self.opts, chars=chars, term=term
            )
            self.budgets[index] = chars
        offers = row_offers(r, self.translated, index, limits=self.limits, lang=self.opts.lang)
        return {"segment": index, "budget": chars, "text": r.fitted, "fits": r.fits, **offers}


def _parse(request: Any) -> tuple[int, str | int, tuple[str, str] | None]:
    """The segment, the step and the forced term of a request body; `Refused` (400) else."""
    if not isinstance(request, dict):
        raise Refused(400, 'expected a JSON object {"segment": N, "step": "shorter"}')
    index, step, term = request.get("segment"), request.get("step"), request.get("term")
    if not isinstance(index, int) or isinstance(index, bool):
        raise Refused(400, '"segment" must be a row number')
    if isinstance(step, bool) or not (step in (SHORTER, LONGER) or isinstance(step, int)):
        raise Refused(400, '"step" must be "shorter", "longer" or a number of characters')
    if isinstance(step, int) and not 1 <= step <= 1000:
        raise Refused(400, '"step" as characters must be 1 to 1000')
    if term is None:
        return index, step, None
    if not isinstance(term, dict) or not all(
        isinstance(term.get(k), str) and term[k].strip() for k in ("source", "target")
    ):
        raise Refused(400, '"term" must be {"source": "...", "target": "..."}')
    return index, step, (term["source"].strip(), term["target"].strip())


def allowed_hosts(port: int) -> set[str]:
    """The Host values the server answers (DNS-rebinding defence)."""
    return {f"{HOST}:{port}", f"localhost:{port}"}


def check_request(headers: Any, path: str, *, token: str, port: int) -> str:
    """The request's path without its query, once Host, Origin and the token pass; `Refused`
    (403) otherwise."""
    hosts = allowed_hosts(port)
    if headers.get("Host") not in hosts:
        raise Refused(403, "refused: the Host header must be 127.0.0.1:PORT or localhost:PORT")
    origin = headers.get("Origin")
    if origin is not None and origin not in {f"http://{h}" for h in hosts}:
        raise Refused(403, "refused: a request from another origin")
    parts = urlsplit(path)
    given = parse_qs(parts.query).get("t", [""])[0]
    if not secrets.compare_digest(given.encode(), token.encode()):
        raise Refused(403, "refused: the URL lacks this server's token (use the URL it printed)")
    return parts.path


def make_handler(
    page: str, reviewer: Reviewer, token: str
) -> Callable[..., BaseHTTPRequestHandler]:
    """The request handler class of one server (module docstring)."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "fitsub-review"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            """Nothing logged: the request line holds the token."""

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, value: Any) -> None:
            body = json.dumps(value, ensure_ascii=False).encode("utf-8")
            self._send(status, body, "application/json; charset=utf-8")

        def _checked(self) -> str:
            port = port_of(self.server)
            return check_request(self.headers, self.path, token=token, port=port)

        def do_GET(self) -> None:  # noqa: N802
            try:
                if self._checked() != "/":
                    raise Refused(404, "not found: the page is at / (with the token)")
            except Refused as no:
                self._json(no.status, {"error": str(no)})
                return
            self._send(200, page.encode("utf-8"), "text/html; charset=utf-8")

        def do_POST(self) -> None:  # noqa: N802
            try:
                if self._checked() != "/retranslate":
                    raise Refused(404, "not found: POST /retranslate")
                self._json(200, reviewer.answer(self._body()))
            except Refused as no:
                self._json(no.status, {"error": str(no)})

        def _body(self) -> Any:
            try:
                size = int(self.headers.get("Content-Length", "0"))
            except ValueError:
                raise Refused(400, "bad Content-Length") from None
            if size > MAX_BODY:
                raise Refused(413, f"request body over {MAX_BODY} bytes")
            raw = self.rfile.read(size)
            try:
                return loads(raw.decode("utf-8"), None, "the request")
            except (InputError, UnicodeDecodeError) as err:
                raise Refused(400, f"bad request: {err}") from None

    return Handler


def make_server(page: str, reviewer: Reviewer, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """A server bound to 127.0.0.1:`port` (0: any free port) and its token; the caller runs
    `serve_forever` and, at the end, `server_close`."""
    token = secrets.token_urlsafe(24)
    server = ThreadingHTTPServer((HOST, port), make_handler(page, reviewer, token))
    server.daemon_threads = True
    return server, token


def port_of(server: Any) -> int:
    """The port `server` is bound to."""
    address = server.server_address
    assert isinstance(address, tuple)
    return int(address[1])


def url_of(server: ThreadingHTTPServer, token: str) -> str:
    """The page's URL, token included."""
    return f"http://{HOST}:{port_of(server)}/?t={token}"
