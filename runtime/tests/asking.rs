//! Tools asking the client (elicitation, sampling, roots) through [`ToolContext`], driven by
//! rmcp's client over a real Streamable HTTP server: in a session (2025-11-25), where the
//! server sends the request and awaits the answer, and in stateless calls (2026-07-28), where
//! the call is answered `input_required` with a sealed `requestState` until the client
//! repeats it with the answers.
#![allow(deprecated)] // rmcp marks sampling and roots for removal (SEP-2577); the protocol has them.

use crate::support;

use std::sync::{Arc, Mutex};

use mcpgen_runtime::audit::AuditStatus;
use mcpgen_runtime::input::{ClientCapability, ElicitAnswer, Elicitation, InputError, Sampling};
use mcpgen_runtime::server::Server;
use mcpgen_runtime::{
    BoxFuture, CallContext, Prompt, PromptMessage, PromptSet, ToolContext, ToolDef, ToolError,
    ToolResult, ToolSet,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorCode, GetPromptRequestParams, GetPromptResult, Implementation,
    ListRootsResult, ProtocolVersion, Root, SamplingMessage,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use support::{FixedKeys, Recorder, Running, call, http_transport, text};

const fn tool(name: &'static str, description: &'static str) -> ToolDef {
    support::read_tool(
        name,
        description,
        r#"{"type":"object","properties":{"topic":{"type":"string"}}}"#,
    )
}

static TOOLS: &[ToolDef] = &[
    tool("greet", "Asks the user's name and greets them"),
    tool("two_steps", "Asks the name, then the favourite colour"),
    tool(
        "ask_all",
        "Asks a form, the model and the roots in one round",
    ),
    tool(
        "recovers",
        "Asks the model, and does without when it cannot",
    ),
];

/// Tools that ask through their [`ToolContext`]; `runs` counts how often each ran.
#[derive(Clone, Default)]
struct Askers {
    runs: Arc<Mutex<Vec<String>>>,
}

fn form(property: &str) -> Value {
    json!({
        "type": "object",
        "properties": { property: { "type": "string" } },
        "required": [property]
    })
}

fn field(answer: &ElicitAnswer, name: &str) -> String {
    match answer {
        ElicitAnswer::Accept(content) => content
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or("-")
            .to_owned(),
        other => other.action().to_owned(),
    }
}

async fn run(name: &str, ctx: &ToolContext) -> Result<String, InputError> {
    match name {
        "greet" => {
            let answer = ctx
                .elicit(
                    "user_name",
                    Elicitation::new("What is your name?", form("name")),
                )
                .await?;
            Ok(format!("Hello, {}!", field(&answer, "name")))
        }
        "two_steps" => {
            let name = ctx
                .elicit("step1", Elicitation::new("Your name?", form("name")))
                .await?;
            let color = ctx
                .elicit("step2", Elicitation::new("Your colour?", form("color")))
                .await?;
            Ok(format!(
                "{} likes {}",
                field(&name, "name"),
                field(&color, "color")
            ))
        }
        "ask_all" => {
            let name = ctx
                .elicit(
                    "user_name",
                    Elicitation::new("What is your name?", form("name")),
                )
                .await;
            let greeting = ctx
                .sample("greeting", Sampling::user("Write a greeting", 20))
                .await;
            let roots = ctx.list_roots("roots").await;
            let (name, greeting, roots) = (name?, greeting?, roots?);
            let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
            Ok(format!(
                "{} {} in {}",
                greeting.text(),
                field(&name, "name"),
                uris.join(",")
            ))
        }
        "recovers" => match ctx.sample("summary", Sampling::user("Summarize", 20)).await {
            Ok(answer) => Ok(answer.text()),
            Err(InputError::MissingCapability { capability, .. }) => {
                assert_eq!(capability, ClientCapability::Sampling);
                Ok("no model to ask".to_owned())
            }
            Err(e) => Err(e),
        },
        _ => Ok(String::new()),
    }
}

impl ToolSet for Askers {
    fn tools(&self) -> &'static [ToolDef] {
        TOOLS
    }

    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        _args: Map<String, Value>,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let name = tool.name;
        Box::pin(async move {
            self.runs.lock().unwrap().push(name.to_owned());
            let ctx = ToolContext::from_call(ctx);
            Ok(match run(name, &ctx).await {
                Ok(text) => ToolResult::text(text),
                Err(e) => ToolResult::error(e.to_string()),
            })
        })
    }
}

/// A client that answers forms with `action` (filling `name` and `color`), has its model say
/// "Bonjour" and lists one root; it declares `capabilities`.
#[derive(Clone)]
struct Answerer {
    action: ElicitationAction,
    capabilities: Value,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Answerer {
    fn new(action: ElicitationAction, capabilities: Value) -> Self {
        Self {
            action,
            capabilities,
            asked: Arc::default(),
        }
    }

    fn all(action: ElicitationAction) -> Self {
        Self::new(
            action,
            json!({ "elicitation": {}, "sampling": {}, "roots": {} }),
        )
    }
}

impl ClientHandler for Answerer {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(self.capabilities.clone()).unwrap();
        ClientConfig::new(capabilities, Implementation::new("answerer", "1.0.0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Err(ErrorData::invalid_params("forms only", None));
        };
        self.asked.lock().unwrap().push(message);
        let result = ElicitResult::new(self.action.clone());
        Ok(match self.action {
            ElicitationAction::Accept => {
                result.with_content(json!({ "name": "Ada", "color": "teal", "topic": "owls" }))
            }
            _ => result,
        })
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("sampling, max {}", params.max_tokens));
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Bonjour"),
            "test-model".to_owned(),
        ))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.asked.lock().unwrap().push("roots".to_owned());
        Ok(ListRootsResult::new(vec![Root::new("file:///work")]))
    }
}

/// A prompt that asks the user for a topic before it can be filled in.
fn topic_prompt() -> Prompt {
    Prompt::with_context("topical", |_, ctx| async move {
        let answer = ctx
            .elicit("topic", Elicitation::new("Which topic?", form("topic")))
            .await?;
        Ok(vec![PromptMessage::user_text(format!(
            "Write about {}",
            field(&answer, "topic")
        ))])
    })
}

fn server(tools: &Askers, recorder: &Recorder) -> Server {
    Server::builder("asking", "0.1.0")
        .tool_set(tools.clone())
        .prompts(PromptSet::new().prompt(topic_prompt()))
        .authenticator(FixedKeys::new())
        .audit(recorder.clone())
        .request_state_key(b"a test key of at least thirty-two bytes".to_vec())
        .build()
        .unwrap()
}

type Client = RunningService<RoleClient, Answerer>;

/// A session (`initialize`, 2025-11-25) as the holder of `key`.
async fn session(url: &str, key: &str, answerer: Answerer) -> Client {
    answerer
        .serve(http_transport(url, &[("x-api-key", key)]))
        .await
        .expect("the client connects")
}

/// A stateless client (`server/discover`, 2026-07-28) as the holder of `key`.
async fn stateless(url: &str, key: &str, answerer: Answerer) -> Client {
    answerer
        .serve_with_lifecycle(
            http_transport(url, &[("x-api-key", key)]),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the client discovers the server")
}

fn statuses(recorder: &Recorder) -> Vec<AuditStatus> {
    recorder.events().iter().map(|e| e.status).collect()
}

#[tokio::test]
async fn session_tools_ask_the_client_and_get_its_answers() {
    let (tools, recorder) = (Askers::default(), Recorder::default());
    let running = Running::start(server(&tools, &recorder)).await;
    let answerer = Answerer::all(ElicitationAction::Accept);
    let client = session(&running.url, "reader-key", answerer.clone()).await;

    let greeted = client.call_tool(call("greet", json!({}))).await.unwrap();
    assert_eq!(text(&greeted), "Hello, Ada!");
    let all = client.call_tool(call("ask_all", json!({}))).await.unwrap();
    assert_eq!(text(&all), "Bonjour Ada in file:///work");
    assert_eq!(
        *answerer.asked.lock().unwrap(),
        [
            "What is your name?",
            "What is your name?",
            "sampling, max 20",
            "roots"
        ]
    );
    // One run per call, one record per call.
    assert_eq!(*tools.runs.lock().unwrap(), ["greet", "ask_all"]);
    assert_eq!(statuses(&recorder), [AuditStatus::Ok, AuditStatus::Ok]);

    client.cancel().await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test]
async fn session_declined_form_and_missing_capability_reach_the_tool() {
    let (tools, recorder) = (Askers::default(), Recorder::default());
    let running = Running::start(server(&tools, &recorder)).await;

    let decliner = Answerer::all(ElicitationAction::Decline);
    let client = session(&running.url, "reader-key", decliner).await;
    let declined = client.call_tool(call("greet", json!({}))).await.unwrap();
    assert_eq!(text(&declined), "Hello, decline!");
    client.cancel().await.unwrap();

    let formless = Answerer::new(ElicitationAction::Accept, json!({ "roots": {} }));
    let client = session(&running.url, "reader-key", formless.clone()).await;
    let refused = client.call_tool(call("greet", json!({}))).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("did not declare the `elicitation` capability"),
        "{}",
        text(&refused)
    );
    let recovered = client.call_tool(call("recovers", json!({}))).await.unwrap();
    assert_eq!(text(&recovered), "no model to ask");
    assert!(formless.asked.lock().unwrap().is_empty());
    client.cancel().await.unwrap();

    running.stop().await.unwrap();
}

#[tokio::test]
async fn stateless_calls_ask_in_rounds_until_answered() {
    let (tools, recorder) = (Askers::default(), Recorder::default());
    let running = Running::start(server(&tools, &recorder)).await;
    let answerer = Answerer::all(ElicitationAction::Accept);
    let client = stateless(&running.url, "reader-key", answerer.clone()).await;

    // rmcp's client answers each `input_required` round and repeats the call.
    let greeted = client.call_tool(call("greet", json!({}))).await.unwrap();
    assert_eq!(text(&greeted), "Hello, Ada!");
    let two = client
        .call_tool(call("two_steps", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&two), "Ada likes teal");
    let all = client.call_tool(call("ask_all", json!({}))).await.unwrap();
    assert_eq!(text(&all), "Bonjour Ada in file:///work");

    assert_eq!(
        *tools.runs.lock().unwrap(),
        [
            "greet",
            "greet",
            "two_steps",
            "two_steps",
            "two_steps",
            "ask_all",
            "ask_all"
        ]
    );
    use AuditStatus::{InputRequired, Ok};
    assert_eq!(
        statuses(&recorder),
        [
            InputRequired,
            Ok,
            InputRequired,
            InputRequired,
            Ok,
            InputRequired,
            Ok
        ]
    );

    client.cancel().await.unwrap();
    running.stop().await.unwrap();
}

/// One round by hand: the questions and the sealed state, then a repeat.
async fn first_round(client: &Client, params: CallToolRequestParams) -> (Vec<String>, String) {
    let CallToolResponse::InputRequired(required) = client.call_tool_once(params).await.unwrap()
    else {
        panic!("the first round asks");
    };
    let keys = required.input_requests.unwrap().into_keys().collect();
    (keys, required.request_state.expect("a sealed state"))
}

fn answered(name: &'static str, key: &str, state: String, answer: Value) -> CallToolRequestParams {
    let mut responses = std::collections::BTreeMap::new();
    responses.insert(key.to_owned(), answer);
    call(name, json!({}))
        .with_input_responses(responses)
        .with_request_state(state)
}

async fn refusal(client: &Client, params: CallToolRequestParams) -> ErrorData {
    match client.call_tool_once(params).await {
        Err(rmcp::ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn stateless_state_is_sealed_to_the_caller_tool_and_arguments() {
    let (tools, recorder) = (Askers::default(), Recorder::default());
    let running = Running::start(server(&tools, &recorder)).await;
    let answerer = Answerer::all(ElicitationAction::Accept);
    let reader = stateless(&running.url, "reader-key", answerer.clone()).await;
    let admin = stateless(&running.url, "admin-key", answerer.clone()).await;

    let (keys, state) = first_round(&reader, call("two_steps", json!({}))).await;
    assert_eq!(keys, ["step1"]);
    let step1 = json!({ "action": "accept", "content": { "name": "Grace" } });

    // Altered, or brought back by someone else, for another tool or other arguments: refused.
    let tampered = answered("two_steps", "step1", format!("{state}x"), step1.clone());
    assert_eq!(
        refusal(&reader, tampered).await.code,
        ErrorCode::INVALID_PARAMS
    );
    let other_caller = answered("two_steps", "step1", state.clone(), step1.clone());
    assert_eq!(
        refusal(&admin, other_caller).await.code,
        ErrorCode::INVALID_PARAMS
    );
    let other_tool = answered("greet", "step1", state.clone(), step1.clone());
    assert_eq!(
        refusal(&reader, other_tool).await.code,
        ErrorCode::INVALID_PARAMS
    );
    let mut other_args = answered("two_steps", "step1", state.clone(), step1.clone());
    other_args.arguments = Some(support::args(json!({ "topic": "else" })));
    assert_eq!(
        refusal(&reader, other_args).await.code,
        ErrorCode::INVALID_PARAMS
    );

    // An answer that is no elicitation result: refused too.
    let malformed = answered("two_steps", "step1", state.clone(), json!(12345));
    let error = refusal(&reader, malformed).await;
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("step1"), "{}", error.message);

    // The genuine state: the next round asks step 2 and carries step 1 in a new state.
    let CallToolResponse::InputRequired(second) = reader
        .call_tool_once(answered("two_steps", "step1", state.clone(), step1))
        .await
        .unwrap()
    else {
        panic!("the second round asks again");
    };
    let second_state = second.request_state.unwrap();
    assert_ne!(second_state, state);
    assert_eq!(
        second
            .input_requests
            .unwrap()
            .into_keys()
            .collect::<Vec<_>>(),
        ["step2"]
    );
    let step2 = json!({ "action": "accept", "content": { "color": "red" } });
    let done = reader
        .call_tool_once(answered("two_steps", "step2", second_state, step2))
        .await
        .unwrap();
    let CallToolResponse::Complete(done) = done else {
        panic!("the third round completes");
    };
    assert_eq!(text(&done), "Grace likes red");

    reader.cancel().await.unwrap();
    admin.cancel().await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test]
async fn stateless_question_without_the_capability_is_refused_unless_the_tool_recovers() {
    let (tools, recorder) = (Askers::default(), Recorder::default());
    let running = Running::start(server(&tools, &recorder)).await;
    let formless = Answerer::new(ElicitationAction::Accept, json!({ "roots": {} }));
    let client = stateless(&running.url, "reader-key", formless).await;

    let error = refusal(&client, call("greet", json!({}))).await;
    assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert_eq!(
        error.data,
        Some(json!({ "requiredCapabilities": { "elicitation": {} } }))
    );
    let recovered = client.call_tool(call("recovers", json!({}))).await.unwrap();
    assert_eq!(text(&recovered), "no model to ask");

    client.cancel().await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test]
async fn calls_outside_a_server_have_no_one_to_ask() {
    let ctx = ToolContext::from_call(&CallContext::new());
    assert!(!ctx.client_supports(ClientCapability::Elicitation));
    let asked = ctx
        .elicit("user_name", Elicitation::new("Name?", form("name")))
        .await;
    assert!(matches!(asked, Err(InputError::NoClient { key }) if key == "user_name"));
}

fn prompt_text(result: &GetPromptResult) -> String {
    serde_json::to_value(&result.messages).unwrap()[0]["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn prompts_ask_the_client_in_both_eras() {
    let (tools, recorder) = (Askers::default(), Recorder::default());
    let running = Running::start(server(&tools, &recorder)).await;
    let answerer = Answerer::all(ElicitationAction::Accept);

    let client = session(&running.url, "reader-key", answerer.clone()).await;
    let filled = client
        .get_prompt(GetPromptRequestParams::new("topical"))
        .await
        .unwrap();
    assert_eq!(prompt_text(&filled), "Write about owls");
    client.cancel().await.unwrap();

    let client = stateless(&running.url, "reader-key", answerer.clone()).await;
    let filled = client
        .get_prompt(GetPromptRequestParams::new("topical"))
        .await
        .unwrap();
    assert_eq!(prompt_text(&filled), "Write about owls");
    assert_eq!(
        *answerer.asked.lock().unwrap(),
        ["Which topic?", "Which topic?"]
    );
    client.cancel().await.unwrap();

    running.stop().await.unwrap();
}
