"""The helpdesk the code-mode task set runs against: the same data for the stand-in API
(helpdesk_stand_in.py) and for the answers each task must reach (code_tasks.py).

Deterministic: two projects (CORE with 300 tickets, WEB with 80), 24 people, comments and
histories derived from the ticket number. Lists are newest first, as the API documents.
"""

STATUSES = ["open", "open", "in_progress", "resolved", "closed"]
PRIORITIES = ["low", "normal", "normal", "high", "normal", "low", "urgent", "normal", "high"]
PROJECTS = {"CORE": 300, "WEB": 80}
NAMES = [
    "Ada Lovelace", "Alan Turing", "Barbara Liskov", "Donald Knuth", "Edsger Dijkstra",
    "Frances Allen", "Grace Hopper", "John Backus", "Ken Thompson", "Leslie Lamport",
    "Margaret Hamilton", "Niklaus Wirth", "Radia Perlman", "Robin Milner", "Tony Hoare",
    "Whitfield Diffie", "Adele Goldberg", "Butler Lampson", "Dennis Ritchie", "Fran Bilas",
    "Jean Sammet", "Kathleen Booth", "Lynn Conway", "Sophie Wilson",
]
AGENTS = 10  # people 1..10 are agents; 11 is the admin; the rest are customers


def user(uid):
    name = NAMES[uid - 1]
    first = name.split()[0].lower()
    role = "agent" if uid <= AGENTS else "admin" if uid == AGENTS + 1 else "customer"
    return {
        "id": uid,
        "name": name,
        "email": f"{first}@helpdesk.example",
        "role": role,
        "profile_url": f"https://helpdesk.example/people/{uid}",
        "joined_on": f"20{18 + uid % 6}-0{1 + uid % 9}-1{uid % 10}",
    }


USERS = sorted((user(i) for i in range(1, len(NAMES) + 1)), key=lambda u: u["name"])


def _seed(project, n):
    return n * 7 + (13 if project == "WEB" else 0)


def assignee(project, n):
    """An agent, except every fourth ticket of a project, which nobody has taken."""
    seed = _seed(project, n)
    if seed % 4 == 3:
        return None
    # Agents 9 and 10 take nothing in CORE and only closed tickets in WEB.
    return user(1 + seed % 8)


def summary(project, n):
    seed = _seed(project, n)
    status = STATUSES[seed % len(STATUSES)]
    who = assignee(project, n)
    if project == "WEB" and status == "closed" and n % 3 == 0:
        who = user(9 + n % 2)
    return {
        "key": f"{project}-{n}",
        "title": f"{project.title()} issue {n}: {['login fails', 'slow search', 'export broken', 'wrong totals', 'timeout on upload', 'typo in mail'][seed % 6]}",
        "status": status,
        "priority": PRIORITIES[(n * 5 + len(project)) % len(PRIORITIES)],
        "assignee": who,
        "labels": [["backend"], ["frontend", "ux"], ["api"], [], ["billing", "backend"]][seed % 5],
        "created_at": f"2026-{1 + n % 9:02d}-{1 + n % 27:02d}T{n % 24:02d}:{n % 60:02d}:00Z",
        "url": f"https://helpdesk.example/tickets/{project}-{n}",
    }


def comments(project, n):
    count = (n * 3 + len(project)) % 4
    return [
        {
            "id": n * 10 + i,
            "author": user(1 + (n + i * 5) % len(NAMES)),
            "body": f"Comment {i + 1} on {project}-{n}: "
            + ["reproduced on staging", "needs a fix in the API", "waiting for the customer", "fixed in the next release"][(n + i) % 4]
            + ". " + "Details follow in the attached log. " * (1 + i),
            "created_at": f"2026-10-{1 + (n + i) % 27:02d}T1{i}:00:00Z",
        }
        for i in range(count)
    ]


def ticket(project, n):
    t = summary(project, n)
    t["description"] = f"{t['title']}. Reported by a customer; steps to reproduce attached. " * 3
    t["due_on"] = None if n % 3 else f"2026-12-{1 + n % 27:02d}"
    t["comments"] = comments(project, n)
    t["links"] = [{"rel": "relates_to", "url": f"https://helpdesk.example/tickets/{project}-{n + 1}"}] if n % 2 else []
    return t


def tickets(project, status=None):
    """A project's tickets, newest first, optionally of one status."""
    rows = [summary(project, n) for n in range(PROJECTS[project], 0, -1)]
    return [t for t in rows if status is None or t["status"] == status]


def parse_key(key):
    project, _, number = key.partition("-")
    if project in PROJECTS and number.isdigit() and 1 <= int(number) <= PROJECTS[project]:
        return project, int(number)
    return None


def events(project, n):
    """A ticket's history, oldest first: created, then comments, status changes and
    reassignments; CORE-42 has a long one (130 events)."""
    count = 130 if (project, n) == ("CORE", 42) else 4 + n % 9
    out = []
    for i in range(count):
        kind = "created" if i == 0 else ["commented", "assigned", "status_changed", "commented", "assigned"][i % 5]
        actor = user(1 + (n + i) % AGENTS)
        detail = {
            "created": "ticket opened",
            "commented": f"comment {i}",
            "assigned": f"assigned to {user(1 + (n * i) % 8)['name']}",
            "status_changed": ["open → in_progress", "in_progress → open"][i % 2],
        }[kind]
        out.append({
            "id": f"{project}-{n}-e{i}",
            "kind": kind,
            "at": f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}T09:{i % 60:02d}:00Z",
            "actor": actor,
            "detail": detail,
        })
    return out
