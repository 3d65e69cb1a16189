"""A stand-in for the helpdesk API (specs/helpdesk/openapi.yaml) under /api, serving the data of
helpdesk_data.py on 127.0.0.1: tickets paged by page number, history by cursor, people by
offset, and ticket creation. A created ticket is recorded (GET /_bench/created lists them,
POST /_bench/reset forgets them) but does not change the lists, so that every mode of a run
sees the same data.

    python3 helpdesk_stand_in.py PORT
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import helpdesk_data as data

created = []
lock = threading.Lock()


def number(query, name, default, low, high):
    try:
        value = int(query.get(name, [default])[0])
    except ValueError:
        return None
    return value if low <= value <= high else None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without TCP_NODELAY the second waits for the
    # client's delayed ACK (40 ms).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, status, body=None, content_type="application/json"):
        raw = b""
        if body is not None:
            raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def route(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        parts = url.path.strip("/").split("/")
        if parts[:1] == ["_bench"]:
            return parts[1:], query
        if parts[:1] != ["api"]:
            return None, query
        return parts[1:], query

    def do_GET(self):
        parts, query = self.route()
        if parts == ["created"]:
            with lock:
                return self.send(200, list(created))
        if parts and len(parts) == 3 and parts[0] == "projects" and parts[2] == "tickets":
            if parts[1] not in data.PROJECTS:
                return self.send(404, {"error": f"no project {parts[1]}"})
            page = number(query, "page", 1, 1, 10**6)
            per_page = number(query, "per_page", 20, 1, 100)
            if page is None or per_page is None:
                return self.send(400, {"error": "page must be ≥ 1 and per_page 1 to 100"})
            rows = data.tickets(parts[1], query.get("status", [None])[0])
            pages = (len(rows) + per_page - 1) // per_page
            items = rows[(page - 1) * per_page : page * per_page]
            return self.send(200, {"items": items, "page": page, "per_page": per_page, "total": len(rows), "total_pages": pages})
        if parts and len(parts) >= 2 and parts[0] == "tickets":
            key = data.parse_key(parts[1])
            if key is None:
                return self.send(404, {"error": f"no ticket {parts[1]}"})
            if len(parts) == 2:
                return self.send(200, data.ticket(*key))
            if parts[2:] == ["events"]:
                limit = number(query, "limit", 10, 1, 50)
                start = number(query, "cursor", 0, 0, 10**6)
                if limit is None or start is None:
                    return self.send(400, {"error": "limit must be 1 to 50 and cursor one this API gave"})
                rows = data.events(*key)
                end = start + limit
                return self.send(200, {"data": rows[start:end], "next_cursor": str(end) if end < len(rows) else None})
            if parts[2:] == ["export"]:
                t = data.ticket(*key)
                return self.send(200, f"key,title,status\n{t['key']},{t['title']},{t['status']}\n", "text/csv")
        if parts == ["users"]:
            offset = number(query, "offset", 0, 0, 10**6)
            limit = number(query, "limit", 25, 1, 100)
            if offset is None or limit is None:
                return self.send(400, {"error": "limit must be 1 to 100"})
            return self.send(200, data.USERS[offset : offset + limit])
        return self.send(404, {"error": "not found"})

    def do_POST(self):
        parts, _ = self.route()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if parts == ["reset"]:
            with lock:
                created.clear()
            return self.send(204)
        if parts == ["tickets"]:
            try:
                body = json.loads(raw)
            except ValueError:
                return self.send(400, {"error": "the body is not JSON"})
            if body.get("project") not in data.PROJECTS or not body.get("title"):
                return self.send(422, {"error": "project must be CORE or WEB, and title is required"})
            with lock:
                created.append(body)
                n = data.PROJECTS[body["project"]] + len(created)
            ticket = {
                "key": f"{body['project']}-{n}", "title": body["title"], "status": "open",
                "priority": body.get("priority", "normal"), "assignee": None, "labels": [],
                "created_at": "2026-11-27T12:00:00Z", "url": f"https://helpdesk.example/tickets/{body['project']}-{n}",
                "description": body.get("description", ""), "due_on": None, "comments": [], "links": [],
            }
            return self.send(201, ticket)
        return self.send(404, {"error": "not found"})

    def do_DELETE(self):
        parts, _ = self.route()
        if parts and len(parts) == 2 and parts[0] == "tickets" and data.parse_key(parts[1]):
            return self.send(204)
        return self.send(404, {"error": "not found"})


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()
