"""The code-mode task set: five multi-step tasks against the helpdesk API (the generated
helpdesk-mcp over helpdesk_stand_in.py), each with its answer worked out from the data
(helpdesk_data.py) and a scripted solution per way of working:

- `steps(call)`: what a model does with one tool call per round trip (`all` and `search` mode).
  Each `call(tool, args)` is one real tools/call; it returns the tool's result as the model
  reads it (its text, parsed). The steps take the fewest calls the API allows: the largest
  page size, every filter the API has.
- `program`: the body of the `execute` program that does the same in code mode.
- `search`: what the model asks `search_tools` (search and code mode), and `tools`: which
  tools it then asks `describe_tools` about before it can call them.

code_mode.py runs every task in every mode and checks that each mode's answer is `answer()`.
"""

import helpdesk_data as data


class Task:
    def __init__(self, name, kind, question, search, tools, steps, program, answer, written=None):
        self.name = name
        self.kind = kind
        self.question = question
        self.search = search
        self.tools = tools
        self.steps = steps
        self.program = program
        self.answer = answer
        self.written = written  # the bodies the API must have been sent to create tickets


# --- 1. a filter over every page of a list ---------------------------------------------------

def urgent_open_steps(call):
    urgent, page = [], 1
    while True:
        r = call("helpdesk_list_tickets", {"project": "CORE", "status": "open", "page": page, "per_page": 100})
        urgent += [{"key": t["key"], "title": t["title"]} for t in r["items"] if t.get("priority") == "urgent"]
        if page >= r["total_pages"]:
            return urgent
        page += 1


URGENT_OPEN = """
const urgent = [];
for (let page = 1; ; page++) {
  const r = await tools.helpdesk_list_tickets({ project: "CORE", status: "open", page, per_page: 100 });
  for (const t of r.items) if (t.priority === "urgent") urgent.push({ key: t.key, title: t.title });
  if (page >= r.total_pages) return urgent;
}
"""


def urgent_open_answer():
    return [{"key": t["key"], "title": t["title"]} for t in data.tickets("CORE", "open") if t["priority"] == "urgent"]


# --- 2. one call per item of a list ----------------------------------------------------------

def latest_comment(ticket):
    if not ticket["comments"]:
        return None
    last = ticket["comments"][-1]
    return {"author": last["author"]["name"], "body": last["body"]}


def latest_comments_steps(call):
    r = call("helpdesk_list_tickets", {"project": "WEB", "status": "open", "per_page": 100})
    hot = [t["key"] for t in r["items"] if t.get("priority") in ("high", "urgent")]
    return [{"key": key, "latest": latest_comment(call("helpdesk_get_ticket", {"key": key}))} for key in hot]


LATEST_COMMENTS = """
const { items } = await tools.helpdesk_list_tickets({ project: "WEB", status: "open", per_page: 100 });
const hot = items.filter((t) => t.priority === "high" || t.priority === "urgent");
const tickets = await Promise.all(hot.map((t) => tools.helpdesk_get_ticket({ key: t.key })));
return tickets.map((t) => {
  const last = t.comments.at(-1);
  return { key: t.key, latest: last ? { author: last.author.name, body: last.body } : null };
});
"""


def latest_comments_answer():
    hot = [t["key"] for t in data.tickets("WEB", "open") if t["priority"] in ("high", "urgent")]
    return [{"key": k, "latest": latest_comment(data.ticket(*data.parse_key(k)))} for k in hot]


# --- 3. an aggregation across lists ----------------------------------------------------------

def idle_agents_steps(call):
    people = call("helpdesk_list_users", {"limit": 100})
    busy = set()
    for project in ("CORE", "WEB"):
        for status in ("open", "in_progress"):
            page = 1
            while True:
                r = call("helpdesk_list_tickets", {"project": project, "status": status, "page": page, "per_page": 100})
                busy.update(t["assignee"]["id"] for t in r["items"] if t.get("assignee"))
                if page >= r["total_pages"]:
                    break
                page += 1
    return sorted(p["name"] for p in people if p.get("role") == "agent" and p["id"] not in busy)


IDLE_AGENTS = """
const people = await tools.helpdesk_list_users({ limit: 100 });
const busy = new Set();
for (const project of ["CORE", "WEB"]) {
  for (const status of ["open", "in_progress"]) {
    for (let page = 1; ; page++) {
      const r = await tools.helpdesk_list_tickets({ project, status, page, per_page: 100 });
      for (const t of r.items) if (t.assignee) busy.add(t.assignee.id);
      if (page >= r.total_pages) break;
    }
  }
}
return people.filter((p) => p.role === "agent" && !busy.has(p.id)).map((p) => p.name).sort();
"""


def idle_agents_answer():
    busy = {
        t["assignee"]["id"]
        for project in data.PROJECTS
        for status in ("open", "in_progress")
        for t in data.tickets(project, status)
        if t["assignee"]
    }
    return sorted(u["name"] for u in data.USERS if u["role"] == "agent" and u["id"] not in busy)


# --- 4. a history read a cursor at a time ----------------------------------------------------

def summarize_history(events):
    assigned = [e["detail"] for e in events if e["kind"] == "assigned"]
    return {"reassigned": len(assigned), "last": assigned[-1] if assigned else None}


def reassignments_steps(call):
    events, cursor = [], None
    while True:
        args = {"key": "CORE-42", "limit": 50}
        if cursor:
            args["cursor"] = cursor
        r = call("helpdesk_ticket_history", args)
        events += r["data"]
        cursor = r.get("next_cursor")
        if not cursor:
            return summarize_history(events)


REASSIGNMENTS = """
const assigned = [];
let cursor;
do {
  const r = await tools.helpdesk_ticket_history(cursor ? { key: "CORE-42", limit: 50, cursor } : { key: "CORE-42", limit: 50 });
  for (const e of r.data) if (e.kind === "assigned") assigned.push(e.detail);
  cursor = r.next_cursor;
} while (cursor);
return { reassigned: assigned.length, last: assigned.at(-1) ?? null };
"""


def reassignments_answer():
    return summarize_history(data.events("CORE", 42))


# --- 5. a write after a lookup ---------------------------------------------------------------

def follow_up_steps(call):
    oldest, page = None, 1
    while True:
        r = call("helpdesk_list_tickets", {"project": "CORE", "status": "open", "page": page, "per_page": 100})
        urgent = [t for t in r["items"] if t.get("priority") == "urgent"]
        if urgent:
            oldest = urgent[-1]  # newest first: the last one seen is the oldest
        if page >= r["total_pages"]:
            break
        page += 1
    made = call("helpdesk_create_ticket", follow_up_body(oldest))
    return {"created": made["key"], "follows": oldest["key"]}


def follow_up_body(t):
    return {"project": "WEB", "title": f"Follow-up: {t['title']}", "priority": "high", "description": f"Follows up {t['key']}."}


FOLLOW_UP = """
let oldest = null;
for (let page = 1; ; page++) {
  const r = await tools.helpdesk_list_tickets({ project: "CORE", status: "open", page, per_page: 100 });
  for (const t of r.items) if (t.priority === "urgent") oldest = t;
  if (page >= r.total_pages) break;
}
const made = await tools.helpdesk_create_ticket({
  project: "WEB", title: `Follow-up: ${oldest.title}`, priority: "high", description: `Follows up ${oldest.key}.`,
});
return { created: made.key, follows: oldest.key };
"""


def follow_up_answer():
    oldest = [t for t in data.tickets("CORE", "open") if t["priority"] == "urgent"][-1]
    return {"created": f"WEB-{data.PROJECTS['WEB'] + 1}", "follows": oldest["key"]}


def follow_up_written():
    oldest = [t for t in data.tickets("CORE", "open") if t["priority"] == "urgent"][-1]
    return [follow_up_body(oldest)]


TASKS = [
    Task("urgent-open", "paginated filter",
         "Keys and titles of CORE's open tickets whose priority is urgent.",
         ["list tickets of a project"], ["helpdesk_list_tickets"],
         urgent_open_steps, URGENT_OPEN, urgent_open_answer),
    Task("latest-comments", "fan-out per item",
         "For each open high or urgent ticket in WEB, who wrote its latest comment and what it says.",
         ["list tickets of a project"], ["helpdesk_list_tickets", "helpdesk_get_ticket"],
         latest_comments_steps, LATEST_COMMENTS, latest_comments_answer),
    Task("idle-agents", "aggregation across lists",
         "Which agents have no open or in-progress ticket in CORE or WEB?",
         ["list tickets of a project", "list people"], ["helpdesk_list_users", "helpdesk_list_tickets"],
         idle_agents_steps, IDLE_AGENTS, idle_agents_answer),
    Task("reassignments", "cursor-paged history",
         "How many times was CORE-42 reassigned, and to whom last?",
         ["ticket history"], ["helpdesk_ticket_history"],
         reassignments_steps, REASSIGNMENTS, reassignments_answer),
    Task("follow-up", "write after a lookup",
         "Open a high-priority WEB ticket following up CORE's oldest open urgent ticket.",
         ["list tickets of a project", "open a ticket"], ["helpdesk_list_tickets", "helpdesk_create_ticket"],
         follow_up_steps, FOLLOW_UP, follow_up_answer, written=follow_up_written),
]
