"""A static server that answers a page's requests in waves: the requests of a wave are all held until
every one the wave requires has come, then answered (run as a real process by tests).

Usage: python wave_server.py FOLDER WAVES.json LOG

WAVES.json is a list of waves, each ``{"required": [regex, ...], "optional": [regex, ...]}``
matched against a request's path (its query left off). A request of no wave is answered at once.
Each request is written to LOG as ``<wave or -> <path>`` when it comes. A page that needs an
answer of a wave before it asks for another request of that wave never gets one: the wave is
answered 503 after ``HOLD`` seconds (a ceiling for a hang, not a timing), and says so in LOG.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

HOLD = 120.0


class Waves:
    def __init__(self, spec: list[dict[str, list[str]]], log: Path) -> None:
        self.required = [[re.compile(p) for p in w.get("required", [])] for w in spec]
        self.optional = [[re.compile(p) for p in w.get("optional", [])] for w in spec]
        self.seen: list[set[int]] = [set() for _ in spec]
        self.done = threading.Condition()
        self.log = log

    def wave_of(self, path: str) -> tuple[int, int] | None:
        for n, patterns in enumerate(self.required):
            for k, pattern in enumerate(patterns):
                if pattern.fullmatch(path):
                    return n, k
        for n, patterns in enumerate(self.optional):
            if any(p.fullmatch(path) for p in patterns):
                return n, -1
        return None

    def note(self, line: str) -> None:
        with self.done, self.log.open("a", encoding="utf-8") as out:
            out.write(line + "\n")

    def hold(self, path: str) -> bool:
        """Note ``path``; wait until its wave's required requests have all come (False: never)."""
        found = self.wave_of(path)
        self.note(f"{'-' if found is None else found[0]} {path}")
        if found is None:
            return True
        wave, k = found
        with self.done:
            if k >= 0:
                self.seen[wave].add(k)
                self.done.notify_all()
            return self.done.wait_for(lambda: len(self.seen[wave]) == len(self.required[wave]), HOLD)


def main() -> None:
    folder, spec, log = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text()), Path(sys.argv[3])
    waves = Waves(spec, log)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if waves.hold(urlsplit(self.path).path):
                super().do_GET()
            else:
                waves.note(f"held too long: {self.path}")
                self.send_error(503, "wave never complete")

        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Handler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
