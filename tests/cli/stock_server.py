#!/usr/bin/env python3
"""A local stand-in for a provider's live-stock API (tests/cli/availability_test.sh): serves the recorded
responses in tests/fixtures/stock. GET /api/v1/instance-types with "Authorization: Bearer test-key" gets
lambda_instance_types.json; any other key gets Lambda's error document with HTTP 401, as the API answers a bad key.
Prints the port it listens on, then serves until killed."""
import http.server
import os
import sys

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "stock")


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/api/v1/instance-types":
            self.send_error(404)
            return
        ok = self.headers.get("Authorization") == "Bearer test-key"
        name = "lambda_instance_types.json" if ok else "lambda_error.json"
        with open(os.path.join(FIXTURES, name), "rb") as f:
            body = f.read()
        self.send_response(200 if ok else 401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
