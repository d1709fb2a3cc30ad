#!/usr/bin/env python3
"""A loopback blukii Info Manager for beacon-provision's tests and demo.

It answers the request shapes of Sources/InfoManager/InfoManagerEndpoints.swift (inferred Cloud Endpoints
paths, docs/protocols/info-manager.md) with the recorded bodies in this folder, modelled on the SDK's object model
(InfoPoint, OutputInfo, News). It binds 127.0.0.1 on a free port (or --port), prints the port on its first
stdout line, and exits when its standard input closes.

  POST /_ah/api/mobileclient/v1/getBlukiisInfo?key=K   GetBlukiisInfoData -> {"items": [InfoPoint + blukiiId]}
  GET  /_ah/api/mobileclient/v1/getNews/<lang>?key=K   -> {"text": ...} or {} when there is none
  POST /_ah/api/auth/v1/getToken?key=K                 {user, password} -> {"token": ...}

Faults for the tests: POST /_control with one of "normal", "unavailable" (503), "malformed" (a body that is
not an InfoPointCollection), "slow" (answers after 5 s). GET /_log lists the API requests seen.
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit, unquote

HERE = os.path.dirname(os.path.abspath(__file__))
STATE = {"mode": "normal", "log": []}
LOCK = threading.Lock()
TOKEN = "loopback-token-7f3a"


def load(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    api_key = None
    credentials = None

    def log_message(self, *args):
        pass

    def send(self, status, value):
        body = value if isinstance(value, bytes) else json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def error(self, status, message):
        self.send(status, {"error": {"code": status, "message": message}})

    def admitted(self, url, is_login=False):
        """Checks the API key and, when credentials are configured, the bearer token."""
        key = parse_qs(url.query).get("key", [None])[0]
        if self.api_key is not None and key != self.api_key:
            self.error(400, "API key not valid. Please pass a valid API key.")
            return False
        if self.credentials and not is_login and self.headers.get("Authorization") != "Bearer " + TOKEN:
            self.error(401, "Invalid Credentials")
            return False
        return True

    def fault(self):
        mode = STATE["mode"]
        if mode == "unavailable":
            self.error(503, "Service Unavailable")
            return True
        if mode == "ratelimited":
            self.error(429, "Rate limit exceeded. Slow down.")
            return True
        if mode == "slow":
            time.sleep(5)
        return False

    def record(self, url, payload):
        with LOCK:
            STATE["log"].append({"method": self.command, "path": url.path, "body": payload,
                                 "authorization": self.headers.get("Authorization") is not None})

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/_log":
            with LOCK:
                return self.send(200, STATE["log"])
        prefix = "/_ah/api/mobileclient/v1/getNews/"
        if not url.path.startswith(prefix):
            return self.error(404, "Not Found")
        self.record(url, None)
        if not self.admitted(url) or self.fault():
            return
        news = load("news.json").get(unquote(url.path[len(prefix):]).lower())
        self.send(200, {"text": news} if news is not None else {})

    def do_POST(self):
        url = urlsplit(self.path)
        raw = self.body()
        if url.path == "/_control":
            with LOCK:
                STATE["mode"] = raw.decode().strip()
            return self.send(200, {"mode": STATE["mode"]})
        try:
            payload = json.loads(raw or b"{}")
        except ValueError:
            return self.error(400, "Parse Error")
        if url.path == "/_ah/api/auth/v1/getToken":
            self.record(url, {"user": payload.get("user")})  # the password is not logged
            if not self.admitted(url, is_login=True):
                return
            if self.credentials != (payload.get("user"), payload.get("password")):
                return self.error(401, "Invalid Credentials")
            return self.send(200, {"token": TOKEN})
        if url.path != "/_ah/api/mobileclient/v1/getBlukiisInfo":
            return self.error(404, "Not Found")
        self.record(url, payload)
        if not self.admitted(url) or self.fault():
            return
        if STATE["mode"] == "malformed":
            return self.send(200, {"items": [{"id": "1", "name": "broken", "outputInfos": [{"type": "HOLO GRAM!"}]}]})
        if STATE["mode"] == "newshapes":
            # What a newer server might send: a content type we do not know, and info points without blukiiId.
            items = [{"id": "7", "name": "Survey point", "outputInfos": [{"type": "SURVEY", "title": "Tell us", "languageCode": "de-de"}]},
                     {"id": "8", "name": "Other point"}]
            return self.send(200, {"items": items[:len(payload.get("blukiiIds") or [])]})
        registry = load("info-points.json")
        items = []
        for blukii_id in payload.get("blukiiIds") or []:
            point = registry.get(blukii_id)
            if point is not None:
                items.append(dict(point, blukiiId=blukii_id))
        self.send(200, {"items": items, "kind": "mobileclient#resourcesItem"} if items else {"kind": "mobileclient#resourcesItem"})


def watch_parent():
    """Exits when the process that started us is gone (we were re-parented), whatever holds our stdin."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    # The test process starts us from a thread that blocks most signals, and the mask is inherited: unblock
    # them, or Process.terminate() (SIGTERM) would not end us and we would outlive the test.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    threading.Thread(target=watch_parent, daemon=True).start()
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key", default=None, help="the key every request must carry (?key=)")
    parser.add_argument("--user", default=None)
    parser.add_argument("--password", default=None)
    args = parser.parse_args()
    Handler.api_key = args.api_key
    if args.user is not None:
        Handler.credentials = (args.user, args.password)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Exits when the parent closes (or dies with) our standard input.
    while sys.stdin.buffer.read(4096):
        pass
    server.shutdown()


if __name__ == "__main__":
    main()
