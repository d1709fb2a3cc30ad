#!/usr/bin/env python3
"""A fault-injecting HTTP/1.1 server for beacon-provision's HTTP client tests: the failures nginx cannot produce.

It covers what nginx cannot: each path is one fault. It binds 127.0.0.1 on a free port, prints the port on
its first stdout line, and logs every request (method, path, Range, If-None-Match) for GET /_log.
"""
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = bytes((i * 7 + 3) % 251 for i in range(200_000))  # the payload every download path serves
LOG = []
COUNTS = {}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def hit(self):
        with LOCK:
            COUNTS[self.path.split("?")[0]] = COUNTS.get(self.path.split("?")[0], 0) + 1
            LOG.append({"method": self.command, "path": self.path, "range": self.headers.get("Range"),
                        "ifNoneMatch": self.headers.get("If-None-Match"), "userAgent": self.headers.get("User-Agent")})
            return COUNTS[self.path.split("?")[0]]

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def range_start(self):
        value = self.headers.get("Range")
        if value and value.startswith("bytes=") and value.endswith("-"):
            return int(value[6:-1])
        return None

    def do_GET(self):
        if self.path == "/_log":
            with LOCK:
                return self.send(200, json.dumps(LOG).encode(), [("Content-Type", "application/json")])
        count = self.hit()
        path = self.path.split("?")[0]
        if path == "/flaky-500":
            return self.send(500, b"down") if count == 1 else self.send(200, b"ok after 500")
        if path == "/rate-limited":
            return self.send(429, b"slow down", [("Retry-After", "1")]) if count == 1 else self.send(200, b"ok after 429")
        if path == "/always-500":
            return self.send(503, b"down")
        if path in ("/cut", "/cut-norange"):
            start = self.range_start()
            if count == 1:  # half the body, then the connection is cut
                self.send_response(200)
                self.send_header("Content-Length", str(len(BODY)))
                self.end_headers()
                self.wfile.write(BODY[: len(BODY) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            if start is not None and path == "/cut":
                rest = BODY[start:]
                return self.send(206, rest, [("Content-Range", f"bytes {start}-{len(BODY) - 1}/{len(BODY)}")])
            return self.send(200, BODY)  # /cut-norange ignores the Range
        if path == "/always-cut":  # every answer: the whole length announced, half of what is asked, then cut
            start = self.range_start() or 0
            rest = BODY[start:]
            self.send_response(206 if start else 200)
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(BODY) - 1}/{len(BODY)}")
            self.send_header("Content-Length", str(len(rest)))
            self.end_headers()
            self.wfile.write(rest[: len(rest) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if path == "/length-lie":  # announces 100 bytes more than the file has; a range past its end is 416
            start = self.range_start()
            if start is not None and start >= len(BODY):
                return self.send(416, b"", [("Content-Range", f"bytes */{len(BODY)}")])
            body = BODY[start or 0 :]
            self.send_response(206 if start else 200)
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True
            return
        if path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            try:
                for i in range(60):
                    self.wfile.write(BODY[i : i + 1])
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass
            self.close_connection = True
            return
        if path.startswith("/loop"):
            n = count
            return self.send(302, b"", [("Location", f"/loop{n}")])
        if path == "/huge-length":
            self.send_response(200)
            self.send_header("Content-Length", str(10**9))
            self.end_headers()
            try:
                self.wfile.write(BODY[:1000])
            except OSError:
                pass
            self.close_connection = True
            return
        if path == "/endless":  # no Content-Length: the body ends when the connection closes
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for _ in range(10_000):
                    self.wfile.write(BODY[:10_000])
            except OSError:
                pass
            self.close_connection = True
            return
        if path == "/etag":
            if self.headers.get("If-None-Match") == '"v1"':
                self.send_response(304)
                self.send_header("ETag", '"v1"')
                self.end_headers()
                return
            return self.send(200, b'{"catalogue": 1}', [("ETag", '"v1"'), ("Content-Type", "application/json")])
        if path == "/body":
            return self.send(200, BODY)
        return self.send(404, b"not here")


def exit_when_stdin_closes():
    """The test holds our stdin open: when it ends (or is killed) the pipe closes and the server goes too."""
    sys.stdin.buffer.read()
    os._exit(0)


def main():
    # The test process starts us from a thread that blocks most signals, and the mask is inherited: unblock
    # them, or Process.terminate() (SIGTERM) would not end us and we would outlive the test.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
