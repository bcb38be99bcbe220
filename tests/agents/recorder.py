"""A stand-in for a model provider's HTTP API that records what an agent sends.

Every request is appended to ``<log>`` as one JSON line (method, path, body text) and
answered with an error, so the agent gives up after its first call and no model is ever
reached: the test then reads the request to see what the agent put in the prompt.

Run as ``python recorder.py LOG PORTFILE``: it binds an ephemeral port on 127.0.0.1 and
writes the port to PORTFILE once it is listening.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_LOCK = threading.Lock()


def serve(log: Path, portfile: Path) -> None:
    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            line = {
                "method": self.command,
                "path": self.path,
                "body": body.decode("utf-8", "replace"),
            }
            with _LOCK, log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(line) + "\n")
            # 400: an error no agent retries (a 5xx would be retried with back-off).
            payload = json.dumps(
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": "recorded"},
                }
            ).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_HEAD = _record

        def log_message(self, format: str, *args: object) -> None:
            pass  # the log file is the record

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = portfile.with_suffix(".tmp")
    tmp.write_text(str(server.server_address[1]))
    tmp.replace(portfile)
    server.serve_forever()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), Path(sys.argv[2]))
