#!/usr/bin/env python3
"""A tiny OpenAI-compatible model server on loopback, for making upgrade
fixtures: every chat completion streams the same short text followed by a
usage chunk (so the release under test records a usage row), and
/v1/models lists the one model. Usage: fake_openai.py PORT_FILE; it binds
a free port, writes it to PORT_FILE and serves until killed."""

import json
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "fixture-model"
REPLY = "Hello. I can look at disks, services, logs and containers on this machine."
PROMPT_TOKENS = 321
COMPLETION_TOKENS = 17


def chunk(delta, finish=None):
    return {
        "id": "chatcmpl-fixture",
        "object": "chat.completion.chunk",
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if not self.path.endswith("/chat/completions"):
            self._json(404, {"error": {"message": "not found"}})
            return
        events = [
            chunk({"role": "assistant", "content": REPLY}),
            chunk({}, "stop"),
            {
                "id": "chatcmpl-fixture",
                "object": "chat.completion.chunk",
                "model": MODEL,
                "choices": [],
                "usage": {
                    "prompt_tokens": PROMPT_TOKENS,
                    "completion_tokens": COMPLETION_TOKENS,
                    "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
                },
            },
        ]
        body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
