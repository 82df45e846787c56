"""`fitsub review --serve`: serve the review page locally and re-translate a line on request."""

from __future__ import annotations

from pathlib import Path

import typer

from fitsub.cli.console import printable, say
from fitsub.cli.documents import load_input
from fitsub.cli.options import Device, Threads
from fitsub.cli.run_settings import read_run_settings, settings_path
from fitsub.cli.translation import resolve_run
from fitsub.errors import InputError
from fitsub.review.page import served_page
from fitsub.review.serve import Reviewer, make_server, url_of

EPILOG = (
    "The run's settings come from OUTPUT.fitsub.json, which `fitsub translate --review "
    "page.html` writes beside OUTPUT. The server listens on 127.0.0.1 only and answers only "
    "the URL it prints (a random token); Ctrl-C stops it."
)


def review_cmd(
    serve: Path = typer.Option(
        ..., "--serve", metavar="OUTPUT", help="The translated file whose review page to serve."
    ),
    source: Path = typer.Option(
        ..., "--source", help="The source file OUTPUT was translated from."
    ),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="Port (default: a free one)."),
    device: Device = "auto",
    threads: Threads = None,
) -> None:
    """Serve OUTPUT's review page on 127.0.0.1; a line is re-translated shorter or longer on request.

    The page is the one `fitsub translate --review page.html` wrote, with its buttons to ask
    the model for a shorter or a longer translation of one line (as new alternatives to pick);
    export and `fitsub apply` work as with the file.

    Example: fitsub review --serve talk.it.srt --source talk.srt
    """
    flags, page_path = read_run_settings(serve, device=device, threads=threads)
    if not page_path.is_file():
        raise InputError(page_path, "the review page named in the run settings is missing")
    run = resolve_run(flags)
    source_doc = load_input(source, run.fmt, run.encoding)
    translated = load_input(serve)
    if len(source_doc.segments) != len(translated.segments):
        raise InputError(source, f"is not the source of {serve} (another segment count)")
    try:
        page = served_page(page_path.read_text(encoding="utf-8"), translated, source_doc)
    except ValueError as err:
        raise InputError(page_path, str(err)) from None
    opts, backend = run.with_model()
    reviewer = Reviewer(source=source_doc, translated=translated, backend=backend, opts=opts)
    reviewer.warm()
    server, token = make_server(page, reviewer, port)
    say(f"run settings: {printable(str(settings_path(serve)))}")
    try:
        say("review page served at (Ctrl-C stops):")
        print(url_of(server, token), flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        say("stopped")
    finally:
        server.server_close()
