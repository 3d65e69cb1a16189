//! Views (MCP Apps) of generated servers, seen in a real browser: the helpdesk and Synaplan
//! servers run as child processes against loopback stand-ins for their APIs, and
//! `tests/node/views.mjs` renders their views in headless Chromium (`/usr/bin/chromium`,
//! driven by playwright-core) through the official App Bridge of
//! `@modelcontextprotocol/ext-apps`, which reaches the server through the official TypeScript
//! SDK client. Clients without the extension, `--no-ui` and the stateless era are checked with
//! rmcp's client and raw requests.

use std::collections::HashMap;
use std::path::Path;

use axum::Router;
use axum::extract::{Path as UrlPath, Query};
use axum::routing::get;
use mcpgen_tests::{
    KillOnDrop, SYNAPLAN_PROMPTS, StandIn, node_bin, node_file, repo_root, serve_on_loopback,
    start_listening,
};
use rmcp::ServiceExt;
use rmcp::model::{ClientCapabilities, ClientConfig, ReadResourceRequestParams};
use serde_json::{Value, json};

const UI: &str = "io.modelcontextprotocol/ui";
const XSS: &str = "<img src=x onerror=\"parent.postMessage('xss','*')\">";
/// Text that, shown without isolation, would draw everything after it right to left: a right-
/// to-left override (U+202E) and no pop.
const RLO: &str = "\u{202E}fdp.eciovni exe.png";

fn user(id: u64, name: &str) -> Value {
    json!({
        "id": id, "name": name, "email": format!("{}@helpdesk.example", name.to_lowercase()),
        "role": if id == 1 { "admin" } else { "agent" },
        "profile_url": format!("https://helpdesk.example/people/{id}"),
        "joined_on": "2025-02-03"
    })
}

fn ticket(n: u64, title: &str, status: &str) -> Value {
    let priority = ["low", "normal", "high", "urgent"][(n % 4) as usize];
    json!({
        "key": format!("CORE-{n}"), "title": title, "status": status,
        "priority": priority,
        "assignee": if n % 2 == 1 { user(1, "Ada") } else { Value::Null },
        "labels": ["backend", "api"],
        "created_at": format!("2026-03-0{n}T10:15:00Z"),
        "url": format!("https://helpdesk.example/tickets/CORE-{n}")
    })
}

/// A stand-in for the helpdesk API: two pages of tickets (page numbers), a ticket with
/// comments, two pages of history (cursor) and people (offset). The first ticket's title is
/// markup that would run a script if it were ever inserted as HTML.
async fn helpdesk_upstream() -> String {
    async fn tickets(Query(q): Query<HashMap<String, String>>) -> axum::Json<Value> {
        let page: u64 = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
        let items = if page == 1 {
            vec![
                ticket(1, XSS, "open"),
                ticket(2, "Export drops the last row", "in_progress"),
                ticket(3, "Typo on the login page", "resolved"),
            ]
        } else {
            vec![
                ticket(4, "Slow search", "open"),
                ticket(5, "Dark mode colours", "closed"),
            ]
        };
        axum::Json(
            json!({"items": items, "page": page, "per_page": 3, "total": 5, "total_pages": 2}),
        )
    }
    async fn one(UrlPath(key): UrlPath<String>) -> axum::Json<Value> {
        let mut t = ticket(1, XSS, "open");
        t["key"] = json!(key);
        t["description"] = json!(format!(
            "{RLO} {}",
            "The export job writes every row but the last one. ".repeat(6)
        ));
        t["due_on"] = json!("2026-04-01");
        t["comments"] = json!([
            {"id": 1, "author": user(2, "Grace"), "body": "Seen on CSV and XLSX.", "created_at": "2026-03-02T08:00:00Z"},
            {"id": 2, "author": user(1, "Ada"), "body": XSS, "created_at": "2026-03-03T09:30:00Z"},
            {"id": 19100, "author": user(2, "Grace"), "body": RLO, "created_at": "2026-03-04T09:30:00Z"}
        ]);
        t["links"] = json!([{"rel": "blocks", "url": "https://helpdesk.example/tickets/CORE-9"}]);
        axum::Json(t)
    }
    async fn events(Query(q): Query<HashMap<String, String>>) -> axum::Json<Value> {
        let event = |id: &str, kind: &str| json!({"id": id, "kind": kind, "at": "2026-03-01T12:00:00Z", "actor": user(2, "Grace"), "detail": kind});
        axum::Json(match q.get("cursor").map(String::as_str) {
            None => {
                json!({"data": [event("e1", "created"), event("e2", "commented")], "next_cursor": "c2"})
            }
            Some(_) => json!({"data": [event("e3", "status_changed")], "next_cursor": null}),
        })
    }
    async fn users(Query(q): Query<HashMap<String, String>>) -> axum::Json<Value> {
        let offset: usize = q.get("offset").and_then(|p| p.parse().ok()).unwrap_or(0);
        let everyone = [user(1, "Ada"), user(2, "Grace"), user(3, "Linus")];
        axum::Json(json!(
            everyone.iter().skip(offset).take(2).collect::<Vec<_>>()
        ))
    }
    let app = Router::new()
        .route("/projects/{project}/tickets", get(tickets))
        .route("/tickets/{key}", get(one))
        .route("/tickets/{key}/events", get(events))
        .route("/users", get(users));
    serve_on_loopback(app).await.expect("stand-in serves")
}

async fn start_helpdesk(upstream: &str, extra: &[&str]) -> (KillOnDrop, String) {
    let mut args = vec![
        "--transport",
        "http",
        "--no-auth",
        "--upstream-url",
        upstream,
    ];
    args.extend_from_slice(extra);
    start_listening("helpdesk-mcp", &args).await
}

/// Runs `views.mjs` against `<url>/mcp` with `scenarios`; its report.
async fn render(url: &str, scenarios: Value, screenshots: Option<&Path>) -> Value {
    assert!(
        Path::new("/usr/bin/chromium").is_file() || std::env::var_os("CHROMIUM").is_some(),
        "Chromium is missing: `apt-get install chromium` (scripts/test.sh does)"
    );
    let mut command = tokio::process::Command::new(node_bin("node"));
    command
        .arg(node_file("views.mjs"))
        .arg(format!("{url}/mcp"))
        .arg(scenarios.to_string());
    if let Some(dir) = screenshots {
        command.arg(dir);
    }
    let out = command.output().await.expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "views.mjs failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("report is JSON ({e}): {stdout}"))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Nothing was fetched, no script of the API's ran, and each document is served as the
/// extension says.
fn assert_safe(report: &Value) {
    assert_eq!(
        report["requests"],
        json!([]),
        "the views made network requests"
    );
    assert_eq!(report["xss"], json!(false), "API text ran as a script");
    assert_eq!(report["dialogs"], json!(0));
    for (tool, view) in report["views"].as_object().into_iter().flatten() {
        assert_eq!(view["mimeType"], "text/html;profile=mcp-app", "{tool}");
        // `_meta.ui.csp` says what the document's own policy says: no origins of any kind.
        let none: Vec<String> = Vec::new();
        assert_eq!(
            view["resourceMeta"],
            json!({"ui": {"prefersBorder": true, "csp": {
                "connectDomains": none, "resourceDomains": none,
                "frameDomains": none, "baseUriDomains": none
            }}}),
            "{tool}"
        );
        assert_eq!(
            view["documentCsp"],
            mcpgen_runtime::view::html::CONTENT_SECURITY_POLICY,
            "{tool}"
        );
        assert_eq!(
            view["externalUrl"],
            json!(false),
            "{tool}: an external URL in its HTML"
        );
        assert_eq!(view["first"]["images"], json!(0), "{tool}");
        assert_eq!(view["first"]["linkHrefs"], json!([]), "{tool}");
        assert!(view["sizes"].as_u64() > Some(0), "{tool} reported no size");
    }
}

#[tokio::test]
async fn helpdesk_views_render_in_chromium_through_the_app_bridge() {
    let upstream = helpdesk_upstream().await;
    let (_server, url) = start_helpdesk(&upstream, &[]).await;
    let scenarios = json!([
        {"tool": "helpdesk_list_tickets", "arguments": {"project": "CORE"}, "next": true, "link": true, "theme": true, "sort": true},
        {"tool": "helpdesk_get_ticket", "arguments": {"key": "CORE-1"}},
        {"tool": "helpdesk_list_users", "arguments": {"limit": 2}, "next": true},
        {"tool": "helpdesk_ticket_history", "arguments": {"key": "CORE-1"}, "next": true}
    ]);
    let report = render(&url, scenarios, None).await;
    assert_safe(&report);

    // Every tool with a JSON output schema has a view, except where the allowlist says none.
    let uri = |tool: &str| report["tools"][tool].clone();
    assert_eq!(
        uri("helpdesk_list_tickets"),
        "ui://helpdesk/helpdesk_list_tickets"
    );
    assert_eq!(
        uri("helpdesk_get_ticket"),
        "ui://helpdesk/helpdesk_get_ticket"
    );
    assert_eq!(uri("helpdesk_create_ticket"), Value::Null, "ui: none");
    assert_eq!(uri("helpdesk_delete_ticket"), Value::Null, "no content");
    assert_eq!(uri("helpdesk_export_ticket"), Value::Null, "CSV, not JSON");
    assert_eq!(report["capabilities"]["extensions"][UI], json!({}));

    // A list as a table: one row per item, columns titled from the schema.
    let list = &report["views"]["helpdesk_list_tickets"];
    let first = &list["first"];
    assert_eq!(first["kind"], "table");
    assert_eq!(first["title"], "Tickets");
    assert_eq!(first["rows"], 3);
    assert_eq!(
        strings(&first["headers"]),
        [
            "Key", "Title", "Status", "Priority", "Assignee", "Labels", "Opened", "Link"
        ]
    );
    // Markup from the API is shown as the text it is.
    assert_eq!(first["cells"][0][1], XSS);
    assert!(strings(&first["badges"]).starts_with(&["open".to_owned(), "normal".to_owned()]));
    // Moments in the viewer's locale and time zone (the host's `en-US`, `UTC`); dates as dates.
    let shown = |at: &str| {
        first["times"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["dateTime"] == at)
            .map(|t| t["text"].clone())
    };
    assert_eq!(
        shown("2026-03-01T10:15:00Z"),
        Some(json!("Mar 1, 2026, 10:15 AM"))
    );
    assert_eq!(shown("2025-02-03"), Some(json!("Feb 3, 2025")));
    assert!(
        strings(&first["links"]).contains(&"https://helpdesk.example/tickets/CORE-1".to_owned())
    );
    assert_eq!(
        strings(&list["openedLinks"]),
        ["https://helpdesk.example/tickets/CORE-1"]
    );
    // Sorted by its first column, twice: descending.
    let sorted: Vec<Value> = list["sorted"]["cells"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|row| row[0].clone())
        .collect();
    assert_eq!(sorted, [json!("CORE-3"), json!("CORE-2"), json!("CORE-1")]);
    // The response's other fields sit above the table.
    assert!(
        first["text"]
            .as_str()
            .is_some_and(|t| t.contains("Tickets matching"))
    );
    // The host's theme and style variables are followed.
    assert_eq!(list["dark"]["theme"], "dark");
    assert_eq!(list["dark"]["background"], "rgb(16, 16, 16)");
    // "Next page" calls the tool again through the host, for page 2.
    assert_eq!(
        list["calls"],
        json!([{"name": "helpdesk_list_tickets", "arguments": {"project": "CORE", "page": 2}}])
    );
    assert_eq!(list["next"]["rows"], 2);
    assert_eq!(list["next"]["cells"][0][0], "CORE-4");

    // An object as a card, with its nested arrays as sub-tables and long text folded.
    let card = &report["views"]["helpdesk_get_ticket"]["first"];
    assert_eq!(card["kind"], "card");
    let terms = strings(&card["terms"]);
    for term in ["Key", "Title", "Status", "Due", "Comments", "Links"] {
        assert!(terms.contains(&term.to_owned()), "{term} in {terms:?}");
    }
    assert_eq!(card["subTables"], json!([3, 1]));
    // Identifiers as they are written: comment 19100, not 19,100.
    assert!(
        strings(&card["ids"]).contains(&"19100".to_owned()),
        "{card}"
    );
    assert!(!card["text"].as_str().unwrap_or_default().contains("19,100"));
    // Text with a right-to-left override is isolated: the fold's "…" stays after the text it
    // shortens, and every text holding the mark sits in its own <bdi>.
    let marked = card["marked"].as_array().cloned().unwrap_or_default();
    assert!(marked.len() >= 2, "{card}");
    assert!(marked.iter().all(|m| m["isolated"] == true), "{marked:?}");
    let after: Vec<&Value> = card["ellipsisAfter"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| !v.is_null())
        .collect();
    assert!(
        !after.is_empty() && after.iter().all(|v| **v == true),
        "{card}"
    );
    assert!(card["folds"].as_u64() >= Some(1));
    assert!(
        card["text"]
            .as_str()
            .is_some_and(|t| t.matches(XSS).count() == 2)
    );

    // A top-level array as a table, paging by offset.
    let users = &report["views"]["helpdesk_list_users"];
    assert_eq!(users["first"]["kind"], "table");
    assert_eq!(users["first"]["rows"], 2);
    assert_eq!(
        users["calls"][0]["arguments"],
        json!({"limit": 2, "offset": 2})
    );
    assert_eq!(users["next"]["rows"], 1);
    assert_eq!(users["next"]["cells"][0][1], "Linus");

    // Paging by cursor: the response's `next_cursor` goes back as `cursor`.
    let history = &report["views"]["helpdesk_ticket_history"];
    assert_eq!(history["first"]["rows"], 2);
    assert_eq!(
        history["calls"][0]["arguments"],
        json!({"key": "CORE-1", "cursor": "c2"})
    );
    assert_eq!(history["next"]["rows"], 1);
    assert_eq!(history["next"]["pager"], json!(["Next page"]));
}

/// A stand-in for the Synaplan API with an answer for every tool that has a JSON output.
async fn synaplan_upstream() -> StandIn {
    let json = |body: Value| (200, "application/json", body.to_string());
    let chat = |id: u64, title: &str, count: u64| {
        json!({"id": id, "title": title, "createdAt": "2026-02-10T09:00:00Z",
               "updatedAt": format!("2026-03-{:02}T16:42:00Z", id), "messageCount": count, "shareToken": null})
    };
    let file = |id: u64, name: &str, mime: &str, size: u64, status: &str| {
        json!({"id": id, "fileName": name, "mimeType": mime, "size": size, "groupKey": "contracts",
               "status": status, "uploadedAt": "2026-03-05T11:20:00Z"})
    };
    StandIn::start(vec![
        ("GET /api/v1/prompts", (200, "application/json", SYNAPLAN_PROMPTS.to_owned())),
        ("GET /api/v1/chats", json(json!({"chats": [
            chat(12, "Contract review", 18), chat(11, "Quarterly figures", 7), chat(9, "Travel policy questions", 3)
        ], "total": 3}))),
        ("POST /api/v1/messages/send", json(json!({
            "id": 881, "chatId": 12, "model": "gpt-4o", "createdAt": "2026-03-12T16:42:00Z",
            "text": "The contract renews automatically for twelve months unless either party gives notice ninety days before the end of the term. Section 4.2 caps liability at the fees of the last twelve months; section 9 names the courts of Berlin.",
            "usage": {"promptTokens": 1830, "completionTokens": 164}
        }))),
        ("POST /api/v1/rag/search", json(json!({"results": [
            {"fileId": 41, "fileName": "contract-2024.pdf", "chunk": "Either party may terminate with ninety days' notice.", "score": 0.83},
            {"fileId": 44, "fileName": "amendment-2.pdf", "chunk": "The notice period is extended to ninety (90) days.", "score": 0.71}
        ]}))),
        ("POST /api/v1/files/upload", json(json!({"files": [file(45, "scan.pdf", "application/pdf", 88_213, "uploaded")]}))),
        ("GET /api/v1/files", json(json!({"files": [
            file(41, "contract-2024.pdf", "application/pdf", 1_204_551, "vectorized"),
            file(44, "amendment-2.pdf", "application/pdf", 301_877, "extracted"),
            file(45, "scan.pdf", "application/pdf", 88_213, "failed")
        ], "total": 3}))),
        ("GET /api/v1/config/runtime", json(json!({
            "models": [
                {"id": 1, "name": "gpt-4o", "capability": "chat", "provider": "openai"},
                {"id": 2, "name": "claude-3-5-sonnet", "capability": "chat", "provider": "anthropic"},
                {"id": 3, "name": "llama3.3:70b", "capability": "chat", "provider": "ollama"}
            ],
            "limits": {"maxUploadMb": 50, "messagesPerHour": 120, "maxFilesPerUpload": 10},
            "features": {"rag": true, "fileUpload": true, "imageGeneration": false, "streaming": true}
        }))),
        ("PUT /api/v1/chats/12", json(chat(12, "Contract review (2026)", 18))),
    ])
    .await
    .expect("stand-in serves")
}

/// Every Synaplan tool with a JSON output schema, called with arguments the stand-in answers.
fn synaplan_scenarios() -> Value {
    json!([
        {"tool": "synaplan_list_chats", "arguments": {}, "screenshot": "synaplan-list-chats.png"},
        {"tool": "synaplan_get_config", "arguments": {}, "screenshot": "synaplan-get-config.png"},
        {"tool": "synaplan_list_files", "arguments": {}, "screenshot": "synaplan-list-files.png"},
        {"tool": "synaplan_send_message", "arguments": {"message": "When can we end the contract?"}, "screenshot": "synaplan-send-message.png"},
        {"tool": "synaplan_search_documents", "arguments": {"query": "notice period"}},
        {"tool": "synaplan_list_prompts", "arguments": {}},
        {"tool": "synaplan_upload_file", "arguments": {"files[]": ["c2Nhbg=="]}},
        {"tool": "synaplan_rename_chat", "arguments": {"id": 12, "body": {"title": "Contract review (2026)"}}}
    ])
}

#[tokio::test]
async fn synaplan_views_render_in_chromium() {
    let upstream = synaplan_upstream().await;
    let (_server, url) = mcpgen_tests::start_synaplan_http(&upstream.url, &["--no-auth"]).await;
    // `MCPGEN_VIEW_SCREENSHOTS=docs/src/images` writes the README's screenshots.
    let shots = std::env::var_os("MCPGEN_VIEW_SCREENSHOTS").map(std::path::PathBuf::from);
    let report = render(&url, synaplan_scenarios(), shots.as_deref()).await;
    assert_safe(&report);
    let with_views: Vec<&str> = report["tools"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, uri)| uri.is_string())
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        with_views.len(),
        8,
        "every tool with a JSON output: {with_views:?}"
    );
    let view = |tool: &str| report["views"][tool]["first"].clone();
    for (tool, kind, rows) in [
        ("synaplan_list_chats", "table", 3),
        ("synaplan_list_files", "table", 3),
        ("synaplan_search_documents", "table", 2),
        ("synaplan_list_prompts", "table", 1),
        ("synaplan_upload_file", "table", 1),
    ] {
        assert_eq!(view(tool)["kind"], kind, "{tool}");
        assert_eq!(view(tool)["rows"], rows, "{tool}");
    }
    for tool in [
        "synaplan_get_config",
        "synaplan_send_message",
        "synaplan_rename_chat",
    ] {
        assert_eq!(view(tool)["kind"], "card", "{tool}");
    }
    // The documented enum (not in the advertised, tolerant schema) shows as badges.
    assert_eq!(view("synaplan_get_config")["subTables"], json!([3]));
    assert!(strings(&view("synaplan_get_config")["badges"]).contains(&"gpt-4o".to_owned()));
    assert_eq!(
        view("synaplan_list_files")["badges"],
        json!(["vectorized", "extracted", "failed"])
    );
}

/// An rmcp client over Streamable HTTP to `<url>/mcp`, declaring the extension or not.
async fn rmcp_client(
    url: &str,
    ui: bool,
) -> rmcp::service::RunningService<rmcp::RoleClient, ClientConfig> {
    use rmcp::transport::StreamableHttpClientTransport;
    let mut capabilities = ClientCapabilities::default();
    if ui {
        let mut extensions = rmcp::model::ExtensionCapabilities::new();
        let settings = json!({"mimeTypes": ["text/html;profile=mcp-app"]});
        extensions.insert(
            UI.to_owned(),
            settings.as_object().cloned().unwrap_or_default(),
        );
        capabilities.extensions = Some(extensions);
    }
    let mut info = ClientConfig::default();
    info.capabilities = capabilities;
    info.serve(StreamableHttpClientTransport::from_uri(format!(
        "{url}/mcp"
    )))
    .await
    .expect("client connects")
}

fn without_meta(list: &Value) -> Value {
    let mut list = list.clone();
    for tool in list["tools"].as_array_mut().into_iter().flatten() {
        if let Some(map) = tool.as_object_mut() {
            map.remove("_meta");
        }
    }
    list
}

#[tokio::test]
async fn clients_without_the_extension_see_the_tools_and_results_of_before() {
    let upstream = helpdesk_upstream().await;
    let (_server, url) = start_helpdesk(&upstream, &[]).await;
    let tools_json: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("generated/helpdesk/tools.json"))
            .expect("tools.json"),
    )
    .expect("JSON");
    let plain = rmcp_client(&url, false).await;
    let listed = json!({"tools": plain.list_all_tools().await.expect("lists")});
    assert_eq!(listed, without_meta(&tools_json));
    assert!(listed.to_string().find("resourceUri").is_none());
    let with_ui = rmcp_client(&url, true).await;
    let listed_ui = json!({"tools": with_ui.list_all_tools().await.expect("lists")});
    assert_eq!(
        listed_ui, tools_json,
        "tools.json shows what a client with views sees"
    );
    // The results are the same either way.
    let call = rmcp::model::CallToolRequestParams::new("helpdesk_list_tickets").with_arguments(
        json!({"project": "CORE"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    let a = plain.call_tool(call.clone()).await.expect("calls");
    let b = with_ui.call_tool(call).await.expect("calls");
    assert_eq!(serde_json::to_value(&a).ok(), serde_json::to_value(&b).ok());
    // Views stay out of resources/list.
    let resources = with_ui.list_all_resources().await.expect("lists");
    assert!(resources.iter().all(|r| !r.uri.starts_with("ui://")));
}

#[tokio::test]
async fn no_ui_turns_the_views_off() {
    let upstream = helpdesk_upstream().await;
    let (_server, url) = start_helpdesk(&upstream, &["--no-ui"]).await;
    let client = rmcp_client(&url, true).await;
    let tools = json!(client.list_all_tools().await.expect("lists"));
    assert!(tools.to_string().find("resourceUri").is_none(), "{tools}");
    let server = client.peer_info().expect("server info");
    let extensions = server.capabilities.extensions.clone().unwrap_or_default();
    assert!(!extensions.contains_key(UI), "{extensions:?}");
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "ui://helpdesk/helpdesk_list_tickets",
        ))
        .await;
    assert!(read.is_err(), "{read:?}");
}

/// A stateless 2026-07-28 `tools/list`, with or without the extension in its client
/// capabilities; the answer's tools.
async fn stateless_list(url: &str, ui: bool) -> Value {
    let capabilities = if ui {
        json!({"extensions": {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}})
    } else {
        json!({})
    };
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities
        }}
    });
    let answer: Value = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON");
    answer["result"]["tools"].clone()
}

#[tokio::test]
async fn stateless_requests_declare_the_extension_per_request() {
    let upstream = helpdesk_upstream().await;
    let (_server, url) = start_helpdesk(&upstream, &[]).await;
    // Asked in both orders, so neither answer comes from the other's cached bytes.
    let plain = stateless_list(&url, false).await;
    let with_ui = stateless_list(&url, true).await;
    assert_eq!(stateless_list(&url, false).await, plain);
    assert!(plain.to_string().find("resourceUri").is_none());
    let uris: Vec<&str> = with_ui
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["_meta"]["ui"]["resourceUri"].as_str())
        .collect();
    assert_eq!(
        uris,
        [
            "ui://helpdesk/helpdesk_list_tickets",
            "ui://helpdesk/helpdesk_get_ticket",
            "ui://helpdesk/helpdesk_ticket_history",
            "ui://helpdesk/helpdesk_list_users"
        ]
    );
    assert_eq!(
        without_meta(&json!({"tools": with_ui})),
        json!({"tools": plain})
    );
}

/// A view whose fields are named like `Object.prototype`'s members (`constructor`,
/// `toString`), derived from a schema as a server derives it, then rendered through the App
/// Bridge with a result that leaves them out: they show as absent, never as Object's
/// functions.
#[tokio::test]
async fn fields_named_like_object_members_are_read_as_own_properties_only() {
    use mcpgen_runtime::view::{Requested, derive, document};
    let upstream = helpdesk_upstream().await;
    let (_server, url) = start_helpdesk(&upstream, &[]).await;
    let schema = json!({"type": "object", "properties": {
        "constructor": {"type": "string"},
        "total": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"},
            "constructor": {"type": "string"},
            "toString": {"type": "string"},
            "hasOwnProperty": {"type": "integer"}
        }}}
    }});
    let layout = derive(
        "helpdesk_list_users",
        "People",
        &schema,
        false,
        Requested::Auto,
        &mut |_| None,
    )
    .expect("a view");
    let result = json!({
        "content": [],
        "structuredContent": {"total": 1234, "items": [
            {"id": 19100},
            {"id": 7, "constructor": "given", "toString": RLO}
        ]}
    });
    let scenarios = json!([{
        "tool": "helpdesk_list_users",
        "document": document(&layout.to_json()),
        "result": result
    }]);
    let report = render(&url, scenarios, None).await;
    assert_safe(&report);
    let first = &report["views"]["helpdesk_list_users"]["first"];
    let text = first["text"].as_str().unwrap_or_default();
    assert!(
        !text.contains("native code") && !text.contains("function"),
        "{text}"
    );
    assert_eq!(first["kind"], "table");
    assert_eq!(
        first["cells"],
        json!([["19100", "—", "—", "—"], ["7", "given", RLO, "—"]])
    );
    assert_eq!(first["ids"], json!(["19100", "7"]));
    // Only the fields the result has are lines of the card above the table.
    assert_eq!(first["terms"], json!(["Total"]));
    assert!(text.contains("1,234"), "{text}");
    assert!(
        first["marked"]
            .as_array()
            .is_some_and(|m| m.len() == 1 && m[0]["isolated"] == true),
        "{first}"
    );
}

/// A stateless 2026-07-28 `resources/read` of `uri` with `key`; the status and the answer.
async fn stateless_read(url: &str, key: &str, uri: &str) -> (u16, Value) {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": {"uri": uri, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "resources/read")
        .header("mcp-name", uri)
        .header("x-api-key", key)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .expect("answers");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

/// A key that may call only `helpdesk_list_users` reads that tool's view; the view of a tool
/// it may not call answers exactly as a view that does not exist, in a session and stateless.
#[tokio::test]
async fn the_view_of_a_tool_the_caller_may_not_call_reads_as_unknown() {
    let upstream = helpdesk_upstream().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = dir.path().join("keys.yaml");
    std::fs::write(
        &keys,
        "keys:\n  - id: people\n    key: people-key-0123456789\n    principal: hr\n    scopes: ['mcp:tool:helpdesk_list_users']\n",
    )
    .expect("write keys");
    let (_server, url) = start_listening(
        "helpdesk-mcp",
        &[
            "--transport",
            "http",
            "--keys",
            keys.to_str().expect("utf8"),
            "--upstream-url",
            &upstream,
        ],
    )
    .await;
    const KEY: &str = "people-key-0123456789";
    let own = "ui://helpdesk/helpdesk_list_users";
    let hidden = "ui://helpdesk/helpdesk_get_ticket";
    let unknown = "ui://helpdesk/no_such_view";
    let same = |answer: String, uri: &str| answer.replace(uri, "URI");

    // In a session.
    let client = mcpgen_tests::http_client(&url, KEY).await;
    let read = |uri: &'static str| {
        let client = &client;
        async move {
            client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
                .map(|r| json!(r))
                .map_err(|e| e.to_string())
        }
    };
    let read_own = read(own).await.expect("its own tool's view");
    assert_eq!(read_own["contents"][0]["uri"], own);
    let read_hidden = read(hidden).await.expect_err("a hidden tool's view");
    let read_unknown = read(unknown).await.expect_err("no such view");
    assert_eq!(same(read_hidden, hidden), same(read_unknown, unknown));
    client.cancel().await.ok();

    // Stateless.
    let (status, answer) = stateless_read(&url, KEY, own).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["contents"][0]["uri"], own, "{answer}");
    let (status_hidden, answer_hidden) = stateless_read(&url, KEY, hidden).await;
    let (status_unknown, answer_unknown) = stateless_read(&url, KEY, unknown).await;
    assert!(answer_hidden["error"].is_object(), "{answer_hidden}");
    assert_eq!(status_hidden, status_unknown);
    assert_eq!(
        same(answer_hidden.to_string(), hidden),
        same(answer_unknown.to_string(), unknown)
    );
}
