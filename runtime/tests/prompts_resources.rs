//! Prompts, resources, resource templates, subscriptions and completion, served over
//! Streamable HTTP on loopback and exercised with rmcp's client (sessions, and the stateless
//! 2026-07-28 protocol for `subscriptions/listen`).

use std::time::Duration;

use crate::support::*;
use mcpgen_runtime::server::{ConfigProblem, Server, ServerError};
use mcpgen_runtime::{
    Completer, Completion, Content, Prompt, PromptArgs, PromptArgument, PromptError, PromptMessage,
    PromptSet, Resource, ResourceContents, ResourceError, ResourceSet, ResourceTemplate,
    ResourceUpdates, TemplateRead,
};
use rmcp::model::{
    ContentBlock, ErrorCode, GetPromptRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ResourceContents as WireContents, ResourceUpdatedNotificationParam, Role, ServerNotification,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::json;
use tokio::sync::mpsc;

fn prompts() -> PromptSet {
    PromptSet::new()
        .prompt(
            Prompt::fixed("hello", vec![PromptMessage::user_text("Say hello.")])
                .title("Hello")
                .description("Greets"),
        )
        .prompt(
            Prompt::new("trip", |args| async move {
                let city = args.get("city").unwrap_or_default();
                let days = args.get("days").unwrap_or("a few");
                Ok(vec![
                    PromptMessage::user_text(format!("Plan {days} days in {city}.")),
                    PromptMessage::assistant(Content::TextResource {
                        uri: format!("guide://{city}"),
                        mime_type: "text/markdown".to_owned(),
                        text: format!("# {city}"),
                    }),
                ])
            })
            .description("Plans a trip")
            .argument(
                PromptArgument::new("city")
                    .description("Where to go")
                    .required()
                    .complete(Completer::from_values(["Paris", "Parma", "Oslo"])),
            )
            .argument(PromptArgument::new("days").title("Days")),
        )
        .prompt(
            Prompt::new("broken", |_| async {
                Err(PromptError::Failed(
                    "the model catalog is offline".to_owned(),
                ))
            })
            .description("Always fails"),
        )
        .prompt(
            Prompt::new("many", |_| async { Ok(Vec::new()) })
                .description("Completes with many values")
                .argument(PromptArgument::new("n").complete(Completer::new(
                    |request| async move {
                        Completion::new((0..150).map(|i| format!("{}{i}", request.value)).collect())
                    },
                ))),
        )
}

fn resources() -> ResourceSet {
    ResourceSet::new()
        .resource(
            Resource::text("notes://readme", "readme", "Read me first.")
                .title("Readme")
                .description("The readme")
                .mime_type("text/plain"),
        )
        .resource(
            Resource::blob("notes://logo", "logo", "iVBORw0KGgo=")
                .description("The logo")
                .mime_type("image/png"),
        )
        .template(
            ResourceTemplate::new("notes://note/{owner}/{id}", "note", |read| async move {
                let owner = read.get("owner").unwrap_or_default().to_owned();
                let id = read.get("id").unwrap_or_default().to_owned();
                match id.as_str() {
                    "missing" => Err(ResourceError::NotFound),
                    "empty" => Ok(Vec::new()),
                    "fails" => Err(ResourceError::Failed("the disk is full".to_owned())),
                    _ => Ok(vec![
                        ResourceContents::text(read.uri, format!("note {id} of {owner}"))
                            .with_mime_type("text/plain"),
                    ]),
                }
            })
            .description("One note")
            .mime_type("text/plain")
            .complete("owner", Completer::from_values(["ann", "andy", "bob"])),
        )
        .template(ResourceTemplate::new(
            "files:///{+path}",
            "file",
            |read| async move {
                Ok(vec![ResourceContents::blob(
                    read.uri.clone(),
                    read.get("path").unwrap_or_default().to_owned(),
                )])
            },
        ))
}

async fn start(prompts: PromptSet, resources: ResourceSet) -> Running {
    let server = Server::builder("library", "1.0.0")
        .tool_set(Notes::default())
        .authenticator(FixedKeys::new())
        .prompts(prompts)
        .resources(resources)
        .build()
        .expect("the server builds");
    Running::start(server).await
}

fn rpc_error(error: ServiceError) -> rmcp::ErrorData {
    match error {
        ServiceError::McpError(e) => e,
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

fn text_of(content: &ContentBlock) -> &str {
    match content {
        ContentBlock::Text(text) => &text.text,
        other => panic!("expected text, got {other:?}"),
    }
}

#[tokio::test]
async fn prompts_are_listed_with_their_arguments_and_filled_in() {
    let server = start(prompts(), ResourceSet::new()).await;
    let client = connect(&server.url, "reader-key").await;

    let listed = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["hello", "trip", "broken", "many"]);
    assert_eq!(listed[0].title.as_deref(), Some("Hello"));
    assert_eq!(listed[0].description.as_deref(), Some("Greets"));
    assert!(listed[0].arguments.is_none());
    let trip = listed[1].arguments.as_ref().expect("trip has arguments");
    assert_eq!(trip[0].name, "city");
    assert_eq!(trip[0].required, Some(true));
    assert_eq!(trip[0].description.as_deref(), Some("Where to go"));
    assert_eq!(trip[1].name, "days");
    assert_eq!(trip[1].required, Some(false));
    assert_eq!(trip[1].title.as_deref(), Some("Days"));

    let hello = client
        .get_prompt(GetPromptRequestParams::new("hello"))
        .await
        .unwrap();
    assert_eq!(hello.description.as_deref(), Some("Greets"));
    assert_eq!(hello.messages.len(), 1);
    assert_eq!(hello.messages[0].role, Role::User);
    assert_eq!(text_of(&hello.messages[0].content), "Say hello.");

    let trip = client
        .get_prompt(
            GetPromptRequestParams::new("trip")
                .with_arguments(args(json!({"city": "Oslo", "days": "3"}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&trip.messages[0].content), "Plan 3 days in Oslo.");
    assert_eq!(trip.messages[1].role, Role::Assistant);
    let ContentBlock::Resource(embedded) = &trip.messages[1].content else {
        panic!(
            "expected an embedded resource, got {:?}",
            trip.messages[1].content
        );
    };
    let WireContents::TextResourceContents {
        uri,
        mime_type,
        text,
        ..
    } = &embedded.resource
    else {
        panic!("expected text contents");
    };
    assert_eq!(
        (uri.as_str(), mime_type.as_deref(), text.as_str()),
        ("guide://Oslo", Some("text/markdown"), "# Oslo")
    );

    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn bad_prompt_requests_are_invalid_params_naming_prompt_and_argument() {
    let server = start(prompts(), ResourceSet::new()).await;
    let client = connect(&server.url, "reader-key").await;

    let unknown = rpc_error(
        client
            .get_prompt(GetPromptRequestParams::new("nope"))
            .await
            .unwrap_err(),
    );
    assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);
    assert!(
        unknown.message.contains("prompt `nope` not found"),
        "{}",
        unknown.message
    );
    assert!(
        unknown.message.contains("hello, trip"),
        "{}",
        unknown.message
    );

    // Every problem of the request is named at once; the handler does not run.
    let bad = rpc_error(
        client
            .get_prompt(
                GetPromptRequestParams::new("trip")
                    .with_arguments(args(json!({"days": 3, "pets": "a cat"}))),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(bad.code, ErrorCode::INVALID_PARAMS);
    for fragment in [
        "prompt `trip`",
        "argument `days` must be a string, got a number",
        "no argument `pets`",
        "required argument `city` is missing",
    ] {
        assert!(
            bad.message.contains(fragment),
            "{fragment}: {}",
            bad.message
        );
    }

    let failed = rpc_error(
        client
            .get_prompt(GetPromptRequestParams::new("broken"))
            .await
            .unwrap_err(),
    );
    assert_eq!(failed.code, ErrorCode::INTERNAL_ERROR);
    assert_eq!(
        failed.message,
        "prompt `broken` failed: the model catalog is offline"
    );

    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn resources_and_templates_are_listed_and_read() {
    let server = start(PromptSet::new(), resources()).await;
    let client = connect(&server.url, "reader-key").await;

    let listed = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["notes://readme", "notes://logo"]);
    assert_eq!(listed[0].name, "readme");
    assert_eq!(listed[0].title.as_deref(), Some("Readme"));
    assert_eq!(listed[0].mime_type.as_deref(), Some("text/plain"));
    assert_eq!(listed[1].description.as_deref(), Some("The logo"));
    let templates = client.list_all_resource_templates().await.unwrap();
    let patterns: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(patterns, ["notes://note/{owner}/{id}", "files:///{+path}"]);
    assert_eq!(templates[0].mime_type.as_deref(), Some("text/plain"));

    let read = |uri: &str| client.read_resource(ReadResourceRequestParams::new(uri));
    let readme = read("notes://readme").await.unwrap();
    assert_eq!(
        readme.contents,
        [WireContents::text("Read me first.", "notes://readme")]
    );
    let logo = read("notes://logo").await.unwrap();
    assert_eq!(
        logo.contents,
        [WireContents::blob("iVBORw0KGgo=", "notes://logo").with_mime_type("image/png")]
    );
    // Template variables are percent-decoded; a simple variable is one path segment.
    let note = read("notes://note/ann%20lee/7").await.unwrap();
    assert_eq!(
        note.contents,
        [WireContents::text(
            "note 7 of ann lee",
            "notes://note/ann%20lee/7"
        )]
    );
    let file = read("files:///docs/a/b.txt").await.unwrap();
    assert_eq!(
        file.contents,
        [WireContents::blob("docs/a/b.txt", "files:///docs/a/b.txt")]
    );

    // SEP-2164: not found is invalid params with the URI in `data`, whether nothing matches,
    // the reader says so, or the reader finds nothing.
    for uri in [
        "notes://nothing",
        "notes://note/ann/7/extra",
        "notes://note/ann/missing",
        "notes://note/ann/empty",
    ] {
        let error = rpc_error(read(uri).await.unwrap_err());
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{uri}");
        assert_eq!(error.data, Some(json!({ "uri": uri })), "{uri}");
    }
    let failed = rpc_error(read("notes://note/ann/fails").await.unwrap_err());
    assert_eq!(failed.code, ErrorCode::INTERNAL_ERROR);
    assert!(
        failed.message.contains("the disk is full"),
        "{}",
        failed.message
    );
    assert!(
        failed.message.contains("notes://note/{owner}/{id}"),
        "{}",
        failed.message
    );

    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn completion_suggests_for_prompt_arguments_and_template_variables() {
    let server = start(prompts(), resources()).await;
    let client = connect(&server.url, "reader-key").await;

    let city = client
        .complete_prompt_argument("trip", "city", "par", None)
        .await
        .unwrap();
    assert_eq!(city.values, ["Paris", "Parma"]);
    assert_eq!(city.has_more, Some(false));
    // An argument without a completer gets no suggestions.
    let days = client
        .complete_prompt_argument("trip", "days", "1", None)
        .await
        .unwrap();
    assert!(days.values.is_empty());
    // More than one answer may carry is cut, and says so.
    let many = client
        .complete_prompt_argument("many", "n", "x", None)
        .await
        .unwrap();
    assert_eq!(many.values.len(), 100);
    assert_eq!(many.values[0], "x0");
    assert_eq!((many.total, many.has_more), (Some(150), Some(true)));

    let owner = client
        .complete_resource_argument("notes://note/{owner}/{id}", "owner", "an", None)
        .await
        .unwrap();
    assert_eq!(owner.values, ["ann", "andy"]);

    let unknown_argument = rpc_error(
        client
            .complete_prompt_argument("trip", "weather", "", None)
            .await
            .unwrap_err(),
    );
    assert_eq!(unknown_argument.code, ErrorCode::INVALID_PARAMS);
    assert!(
        unknown_argument
            .message
            .contains("prompt `trip` has no argument `weather`; its arguments: city, days"),
        "{}",
        unknown_argument.message
    );
    let unknown_template = rpc_error(
        client
            .complete_resource_argument("notes://{x}", "x", "", None)
            .await
            .unwrap_err(),
    );
    assert_eq!(unknown_template.code, ErrorCode::INVALID_PARAMS);
    let unknown_variable = rpc_error(
        client
            .complete_resource_argument("notes://note/{owner}/{id}", "path", "", None)
            .await
            .unwrap_err(),
    );
    assert!(
        unknown_variable
            .message
            .contains("its variables: owner, id"),
        "{}",
        unknown_variable.message
    );

    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn capabilities_declare_subscribe_and_completions_only_when_served() {
    // Nothing registered: empty lists, every URI not found, no subscribe, no completions.
    let plain = start(PromptSet::new(), ResourceSet::new()).await;
    let client = connect(&plain.url, "reader-key").await;
    let info = client.peer_info().expect("the server answered initialize");
    let declared = info.capabilities.resources.as_ref().expect("resources");
    assert_eq!(declared.subscribe, None);
    assert!(info.capabilities.prompts.is_some());
    assert!(info.capabilities.completions.is_none());
    assert!(client.list_all_prompts().await.unwrap().is_empty());
    assert!(client.list_all_resources().await.unwrap().is_empty());
    assert!(
        client
            .list_all_resource_templates()
            .await
            .unwrap()
            .is_empty()
    );
    let error = rpc_error(
        client
            .read_resource(ReadResourceRequestParams::new("x://y"))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(error.data, Some(json!({ "uri": "x://y" })));
    #[allow(deprecated)] // resources/subscribe is the 2025-11-25 way
    let refused = rpc_error(
        client
            .subscribe(SubscribeRequestParams::new("x://y"))
            .await
            .unwrap_err(),
    );
    assert_eq!(refused.code, ErrorCode::METHOD_NOT_FOUND);
    let nothing = client
        .complete_prompt_argument("any", "thing", "x", None)
        .await
        .unwrap();
    assert!(nothing.values.is_empty());
    client.cancel().await.unwrap();
    plain.stop().await.unwrap();

    let served = start(prompts(), resources().subscriptions()).await;
    let client = connect(&served.url, "reader-key").await;
    let info = client.peer_info().expect("the server answered initialize");
    let declared = info.capabilities.resources.as_ref().expect("resources");
    assert_eq!(declared.subscribe, Some(true));
    assert!(info.capabilities.completions.is_some());
    client.cancel().await.unwrap();
    served.stop().await.unwrap();
}

/// A client that forwards every `notifications/resources/updated` it gets.
#[derive(Clone)]
struct Watcher(mpsc::UnboundedSender<String>);

impl ClientHandler for Watcher {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

async fn watcher(
    url: &str,
) -> (
    RunningService<RoleClient, Watcher>,
    mpsc::UnboundedReceiver<String>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let client = Watcher(tx)
        .serve(http_transport(url, &[("x-api-key", "reader-key")]))
        .await
        .expect("the client connects");
    (client, rx)
}

/// Sends updates for `uri` until one reaches a subscriber (the session's standalone stream
/// may open a moment after `initialize`), answering how many it reached.
async fn signal(updates: &ResourceUpdates, uri: &str) -> usize {
    for _ in 0..50 {
        let reached = updates.updated(uri).await;
        if reached > 0 {
            return reached;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    0
}

#[tokio::test]
#[allow(deprecated)] // resources/subscribe is the 2025-11-25 way
async fn subscribed_sessions_are_told_of_updates_until_they_unsubscribe() {
    let set = resources().subscriptions();
    let updates = set.updates();
    let server = start(PromptSet::new(), set).await;
    let (watching, mut seen) = watcher(&server.url).await;
    let (bystander, mut unseen) = watcher(&server.url).await;

    watching
        .subscribe(SubscribeRequestParams::new("notes://note/ann/7"))
        .await
        .unwrap();
    bystander
        .subscribe(SubscribeRequestParams::new("notes://readme"))
        .await
        .unwrap();
    let unknown = rpc_error(
        watching
            .subscribe(SubscribeRequestParams::new("notes://nothing"))
            .await
            .unwrap_err(),
    );
    assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(unknown.data, Some(json!({ "uri": "notes://nothing" })));

    assert_eq!(signal(&updates, "notes://note/ann/7").await, 1);
    let uri = tokio::time::timeout(Duration::from_secs(5), seen.recv())
        .await
        .expect("the update arrives")
        .expect("the watcher is alive");
    assert_eq!(uri, "notes://note/ann/7");

    watching
        .unsubscribe(UnsubscribeRequestParams::new("notes://note/ann/7"))
        .await
        .unwrap();
    assert_eq!(updates.updated("notes://note/ann/7").await, 0);
    assert!(
        unseen.try_recv().is_err(),
        "the bystander watches another URI"
    );

    // A session that ends is forgotten.
    bystander.cancel().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(updates.updated("notes://readme").await, 0);

    watching.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn listen_streams_get_updates_for_the_uris_they_asked_for() {
    let set = resources().subscriptions();
    let updates = set.updates();
    let server = start(PromptSet::new(), set).await;
    let client = ()
        .serve_with_lifecycle(
            http_transport(&server.url, &[("x-api-key", "reader-key")]),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 client connects");
    let mut filter = SubscriptionFilter::new();
    filter.resource_subscriptions = Some(vec![
        "notes://readme".to_owned(),
        "notes://nothing".to_owned(),
    ]);
    let mut subscription = client.listen(filter).await.expect("the stream opens");
    // Only URIs the server serves are accepted.
    assert_eq!(
        subscription.acknowledged().resource_subscriptions,
        Some(vec!["notes://readme".to_owned()])
    );

    assert_eq!(signal(&updates, "notes://readme").await, 1);
    let notification = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("the update arrives")
        .expect("the stream is open")
        .expect("a notification");
    let ServerNotification::ResourceUpdatedNotification(update) = notification else {
        panic!("expected resources/updated, got {notification:?}");
    };
    assert_eq!(update.params.uri, "notes://readme");
    assert_eq!(updates.updated("notes://logo").await, 0);

    drop(subscription);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn unusable_prompts_and_resources_are_reported_together() {
    let noop = |_: PromptArgs| async { Ok::<_, PromptError>(Vec::new()) };
    let prompts = PromptSet::new()
        .prompt(Prompt::new("twice", noop).description("first"))
        .prompt(Prompt::new("twice", noop).description("second"))
        .prompt(
            Prompt::new("args", noop)
                .argument(PromptArgument::new("a"))
                .argument(PromptArgument::new("a")),
        );
    let read = |_: TemplateRead| async { Ok::<_, ResourceError>(Vec::new()) };
    let resources = ResourceSet::new()
        .resource(Resource::text("x://a", "a", ""))
        .resource(Resource::text("x://a", "again", ""))
        .template(ResourceTemplate::new("x://{a}{b}", "adjacent", read))
        .template(
            ResourceTemplate::new("x://{id}", "completed", read)
                .complete("name", Completer::from_values(["n"])),
        );
    let error = Server::builder("bad", "1")
        .prompts(prompts)
        .resources(resources)
        .build()
        .expect_err("the configuration has problems");
    let ServerError::Config(problems) = error else {
        panic!("expected configuration problems, got {error}");
    };
    let invalid_prompt = |prompt: &str, reason: &str| ConfigProblem::InvalidPrompt {
        prompt: prompt.to_owned(),
        reason: reason.to_owned(),
    };
    let invalid_resource = |uri: &str, reason: &str| ConfigProblem::InvalidResource {
        uri: uri.to_owned(),
        reason: reason.to_owned(),
    };
    assert_eq!(
        problems,
        [
            invalid_prompt(
                "twice",
                "the name is used twice; prompt names must be unique"
            ),
            invalid_prompt("args", "argument `a` is declared twice"),
            invalid_resource(
                "x://a",
                "the URI is used twice; resource URIs must be unique"
            ),
            invalid_resource(
                "x://{a}{b}",
                "invalid URI template: `{a}` and `{b}` are adjacent, so a URI cannot be split \
                 between them; put a literal between them"
            ),
            invalid_resource(
                "x://{id}",
                "a completer is given for `name`, which the template does not have; its \
                 variables: id"
            ),
        ]
    );
}

/// Stateless 2026-07-28 `server/discover`, lists, reads and completions are answered by the
/// runtime's own handler: each answer must be the one rmcp sends for the same request (an
/// `Accept` with weights keeps a request on rmcp's path), byte for byte.
#[tokio::test]
async fn stateless_reads_are_answered_as_rmcp_answers_them() {
    let server = start(prompts(), resources()).await;
    let cases = [
        ("server/discover", json!({})),
        ("prompts/list", json!({})),
        ("prompts/list", json!({"cursor": "later"})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "notes://readme"})),
        ("resources/read", json!({"uri": "notes://logo"})),
        ("resources/read", json!({"uri": "notes://note/ann/7"})),
        ("resources/read", json!({"uri": "notes://note/ann/missing"})),
        ("resources/read", json!({"uri": "notes://note/ann/fails"})),
        ("resources/read", json!({"uri": "nowhere://at/all"})),
        ("resources/read", json!({})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "trip"},
                   "argument": {"name": "city", "value": "Pa"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "notes://note/{owner}/{id}"},
                   "argument": {"name": "owner", "value": "an"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "nope"},
                   "argument": {"name": "city", "value": ""}}),
        ),
    ];
    for (round, (method, params)) in cases.iter().enumerate() {
        let mut params = params.clone();
        params["_meta"] = stateless_meta(json!({}));
        let body = json!({"jsonrpc": "2.0", "id": round, "method": method, "params": params});
        let uri = params["uri"].as_str().map(|uri| [("mcp-name", uri)]);
        let headers: &[(&str, &str)] = uri.as_ref().map_or(&[], |h| h.as_slice());
        let ours = post_stateless(
            &server.url,
            "notes-key",
            method,
            headers,
            &body,
            RUNTIME_PATH,
        )
        .await;
        let rmcp = post_stateless(
            &server.url,
            "notes-key",
            method,
            headers,
            &body,
            THROUGH_RMCP,
        )
        .await;
        assert_eq!(ours, rmcp, "{method} {params}");
        let answer: serde_json::Value = serde_json::from_str(&ours.body).unwrap();
        assert_eq!(answer["id"], round, "{method}");
    }
    // The fixed answers, served twice from the same bytes, say what they should.
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                          "params": {"_meta": stateless_meta(json!({}))}});
    for _ in 0..2 {
        let answer = post_stateless(
            &server.url,
            "notes-key",
            "server/discover",
            &[],
            &discover,
            RUNTIME_PATH,
        )
        .await;
        let answer: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        let result = &answer["result"];
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "library"
        );
        assert!(
            result["capabilities"]["completions"].is_object(),
            "{result}"
        );
        assert!(
            result["supportedVersions"]
                .as_array()
                .unwrap()
                .contains(&json!("2026-07-28"))
        );
    }
    // `resources/read` without its `Mcp-Name` is refused as rmcp refuses it, on both paths.
    let unnamed = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
                         "params": {"uri": "notes://readme", "_meta": stateless_meta(json!({}))}});
    let ours = post_stateless(
        &server.url,
        "notes-key",
        "resources/read",
        &[],
        &unnamed,
        RUNTIME_PATH,
    )
    .await;
    let rmcp = post_stateless(
        &server.url,
        "notes-key",
        "resources/read",
        &[],
        &unnamed,
        THROUGH_RMCP,
    )
    .await;
    assert_eq!(ours, rmcp);
    assert_eq!(ours.status, 400, "{ours:?}");
    // A body whose method is not the header's is refused as rmcp refuses it, on both paths.
    let mismatch = json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list",
                          "params": {"_meta": stateless_meta(json!({}))}});
    let ours = post_stateless(
        &server.url,
        "notes-key",
        "resources/list",
        &[],
        &mismatch,
        RUNTIME_PATH,
    )
    .await;
    let rmcp = post_stateless(
        &server.url,
        "notes-key",
        "resources/list",
        &[],
        &mismatch,
        THROUGH_RMCP,
    )
    .await;
    assert_eq!(ours, rmcp);
    assert!(
        ours.body.contains("-32020") || ours.status == 400,
        "{ours:?}"
    );
    server.stop().await.unwrap();
}
