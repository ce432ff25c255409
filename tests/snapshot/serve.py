#!/usr/bin/env python3
"""A static HTTP server for the update tests: serves DIR on 127.0.0.1 at an ephemeral port, writes the port to
PORT_FILE once it listens, logs nothing. Stopped by the test (SIGTERM).

usage: serve.py DIR PORT_FILE
"""
import functools
import http.server
import sys


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main(root, port_file):
    handler = functools.partial(Quiet, directory=root)
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        with open(port_file + ".tmp", "w") as f:
            f.write(str(httpd.server_address[1]))
        import os
        os.replace(port_file + ".tmp", port_file)
        httpd.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
