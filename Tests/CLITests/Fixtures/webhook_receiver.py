#!/usr/bin/env python3
# A webhook receiver for the monitor's tests: a real HTTP server on 127.0.0.1 that records every
# POST — its Idempotency-Key, body, and whether the key was seen before — as one JSON line in a file, and
# answers 200. It honours the key the way a receiver should: a repeated key is recorded as a duplicate (and
# still acknowledged). Keys already in the file count as seen, so a receiver restarted on the same file
# keeps its memory. Usage: webhook_receiver.py PORT RECORD_FILE [DELAY_SECONDS]; prints "ready" once listening;
# exits when its standard input closes (with the test that started it). With a delay it answers each POST that
# much later (a slow receiver, so deliveries queue up), after recording it.
import http.server, json, os, sys, threading, time

port, record = int(sys.argv[1]), sys.argv[2]
delay = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
seen = set()
if os.path.exists(record):
    with open(record) as f:
        seen = {json.loads(line)["key"] for line in f if line.strip()}
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        key = self.headers.get("Idempotency-Key")
        with lock:
            entry = {"key": key, "body": json.loads(body), "duplicate": key in seen,
                     "contentType": self.headers.get("Content-Type"), "path": self.path,
                     "authorization": self.headers.get("Authorization"), "site": self.headers.get("X-Site")}
            seen.add(key)
            with open(record, "a") as f:
                f.write(json.dumps(entry) + "\n")
                f.flush()
                os.fsync(f.fileno())
        time.sleep(delay)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
server.shutdown()
