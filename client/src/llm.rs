//! The tool-call loop: ask a model, run the tools it asks for, hand it the results, repeat
//! until it answers or the iteration cap is reached.
//!
//! The model is behind the provider-agnostic [`Llm`] trait, which the application implements
//! for its provider (the [`formats`](crate::formats) module turns tool definitions, calls and
//! results into OpenAI or Anthropic JSON and back). Tools are called through any
//! [`McpConnection`]: a registry of servers, one session, or a local tool set.
//!
//! A tool that fails — `isError`, unknown tool, arguments that are not an object, a
//! transport error or an open circuit breaker — does not stop the loop: the failure is the
//! tool's result, and the model sees it and may try something else.
//!
//! ```no_run
//! use mcpgen_core::BoxFuture;
//! use mcpgen_client::{
//!     Llm, LlmError, LlmTurn, LoopOptions, McpConfig, Message, Registry, ToolDefinition,
//!     run_tool_loop,
//! };
//!
//! /// Your provider: send `messages` and `tools` (see `formats`), parse the answer.
//! struct MyModel;
//!
//! impl Llm for MyModel {
//!     fn respond<'a>(
//!         &'a self,
//!         _messages: &'a [Message],
//!         _tools: &'a [ToolDefinition],
//!     ) -> BoxFuture<'a, Result<LlmTurn, LlmError>> {
//!         Box::pin(async { Ok(LlmTurn::Final("nothing to do".into())) })
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::connect(&McpConfig::discover()?).await;
//! for failure in registry.failures() {
//!     eprintln!("left out: {failure}");
//! }
//! let tools = registry.definitions().await;
//! let outcome = run_tool_loop(
//!     &MyModel,
//!     &registry,
//!     &tools,
//!     vec![Message::User("What is on my calendar today?".into())],
//!     &LoopOptions::default(),
//! )
//! .await?;
//! println!("{}", outcome.answer);
//! registry.shutdown().await.ok();
//! # Ok(())
//! # }
//! ```

use serde_json::Value;

use crate::formats::{ToolDefinition, result_text};
use crate::message::ToolCall;
pub use crate::message::{LlmTurn, Message};
use crate::observe::{NoOrigin, Silent, ToolObserver, observed_call};
use crate::tool::ToolOrigin;
use mcpgen_core::{BoxFuture, McpConnection};

/// A failure of the model call itself (network, provider error, unparsable response).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LlmError(pub String);

/// A language model with function calling, implemented by the application for its provider.
pub trait Llm: Send + Sync {
    /// Given the conversation so far and the tools on offer, returns a final answer or the
    /// tools to call.
    fn respond<'a>(
        &'a self,
        messages: &'a [Message],
        tools: &'a [ToolDefinition],
    ) -> BoxFuture<'a, Result<LlmTurn, LlmError>>;
}

/// Settings of [`run_tool_loop`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoopOptions {
    /// How many times the model is asked at most (default 10). A model that still asks for
    /// tools in its last allowed turn ends the loop with [`LoopError::IterationCap`]; those
    /// calls are not run.
    pub max_iterations: usize,
    /// Characters of each result kept in the trace's summary (default 200).
    pub summary_chars: usize,
}

impl Default for LoopOptions {
    fn default() -> Self {
        Self {
            max_iterations: 10,
            summary_chars: 200,
        }
    }
}

impl LoopOptions {
    /// Sets the iteration cap (at least 1).
    pub fn with_max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n.max(1);
        self
    }

    /// Sets how many characters of each result the trace keeps.
    pub fn with_summary_chars(mut self, n: usize) -> Self {
        self.summary_chars = n;
        self
    }
}

/// One tool call the loop made.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEntry {
    /// The model turn (1-based) that asked for the call.
    pub iteration: usize,
    /// The provider's call id.
    pub call_id: String,
    /// The tool called.
    pub tool: String,
    /// The arguments the model gave.
    pub arguments: Value,
    /// The start of the result text (at most `summary_chars` characters, `…` when cut).
    pub summary: String,
    /// Whether the call failed (isError, transport error, bad arguments).
    pub is_error: bool,
}

/// A loop that ended with an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopOutcome {
    /// The model's final answer.
    pub answer: String,
    /// The whole conversation, ending with the answer.
    pub messages: Vec<Message>,
    /// Every tool call made, in order.
    pub trace: Vec<TraceEntry>,
    /// How many times the model was asked.
    pub iterations: usize,
}

/// Why the loop ended without an answer.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// The model was asked `cap` times and still wanted tools.
    #[error(
        "the model asked for tools in each of its {cap} turns without answering; {} tool calls made (last turn asked for: {})",
        trace.len(),
        pending.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
    )]
    IterationCap {
        /// The cap.
        cap: usize,
        /// Every tool call made.
        trace: Vec<TraceEntry>,
        /// The calls asked for in the last turn, not run.
        pending: Vec<ToolCall>,
        /// The conversation so far.
        messages: Vec<Message>,
    },
    /// The model call failed.
    #[error("model call failed in turn {iteration}: {source}")]
    Llm {
        /// The turn (1-based).
        iteration: usize,
        /// What failed.
        source: LlmError,
        /// Every tool call made before.
        trace: Vec<TraceEntry>,
    },
}

impl LoopError {
    /// The tool calls made before the loop ended.
    pub fn trace(&self) -> &[TraceEntry] {
        match self {
            LoopError::IterationCap { trace, .. } | LoopError::Llm { trace, .. } => trace,
        }
    }
}

fn summarize(text: &str, max: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// Runs the tool-call loop: asks `llm` with `messages` and `tools`; while it asks for tools,
/// calls them through `conn` (the calls of one turn concurrently, results in the model's
/// order), appends the results and asks again; returns the first final answer.
pub async fn run_tool_loop<L, C>(
    llm: &L,
    conn: &C,
    tools: &[ToolDefinition],
    messages: Vec<Message>,
    options: &LoopOptions,
) -> Result<LoopOutcome, LoopError>
where
    L: Llm + ?Sized,
    C: McpConnection + ?Sized,
{
    tool_loop(llm, conn, &NoOrigin, &Silent, tools, messages, options).await
}

/// Runs the tool-call loop like [`run_tool_loop`], telling `observer` as each tool call
/// starts and ends (`calling server/tool`, `done` with its duration and `isError`, or
/// `failed`); sources are labelled by `conn`'s [`ToolOrigin`].
pub async fn run_tool_loop_observed<L, C>(
    llm: &L,
    conn: &C,
    tools: &[ToolDefinition],
    messages: Vec<Message>,
    options: &LoopOptions,
    observer: &dyn ToolObserver,
) -> Result<LoopOutcome, LoopError>
where
    L: Llm + ?Sized,
    C: McpConnection + ToolOrigin + ?Sized,
{
    tool_loop(llm, conn, conn, observer, tools, messages, options).await
}

async fn tool_loop<L, C, O>(
    llm: &L,
    conn: &C,
    origin: &O,
    observer: &dyn ToolObserver,
    tools: &[ToolDefinition],
    mut messages: Vec<Message>,
    options: &LoopOptions,
) -> Result<LoopOutcome, LoopError>
where
    L: Llm + ?Sized,
    C: McpConnection + ?Sized,
    O: ToolOrigin + ?Sized,
{
    let cap = options.max_iterations.max(1);
    let mut trace = Vec::new();
    for iteration in 1..=cap {
        let turn = match llm.respond(&messages, tools).await {
            Ok(turn) => turn,
            Err(source) => {
                return Err(LoopError::Llm {
                    iteration,
                    source,
                    trace,
                });
            }
        };
        let (text, calls) = match turn {
            LlmTurn::Final(answer) => (Some(answer), Vec::new()),
            LlmTurn::ToolCalls { text, calls } => (text, calls),
        };
        // No calls is an answer, whatever the variant says.
        if calls.is_empty() {
            let answer = text.unwrap_or_default();
            messages.push(Message::Assistant {
                text: Some(answer.clone()),
                tool_calls: Vec::new(),
            });
            return Ok(LoopOutcome {
                answer,
                messages,
                trace,
                iterations: iteration,
            });
        }
        messages.push(Message::Assistant {
            text,
            tool_calls: calls.clone(),
        });
        if iteration == cap {
            return Err(LoopError::IterationCap {
                cap,
                trace,
                pending: calls,
                messages,
            });
        }
        let results = futures::future::join_all(
            calls
                .iter()
                .map(|call| observed_call(conn, origin, observer, &call.name, &call.arguments)),
        )
        .await;
        for (call, result) in calls.into_iter().zip(results) {
            let content = result_text(&result);
            trace.push(TraceEntry {
                iteration,
                call_id: call.id.clone(),
                tool: call.name.clone(),
                arguments: call.arguments,
                summary: summarize(&content, options.summary_chars),
                is_error: result.is_error,
            });
            messages.push(Message::Tool {
                call_id: call.id,
                name: call.name,
                content,
                is_error: result.is_error,
            });
        }
    }
    // The loop above returns in its last iteration at the latest.
    Err(LoopError::IterationCap {
        cap,
        trace,
        pending: Vec::new(),
        messages,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;
    use mcpgen_core::{CallError, ToolAnnotations, ToolDef, ToolResult};
    use serde_json::Map;

    /// A model that plays a fixed script and records what it was shown.
    struct Scripted {
        turns: Mutex<Vec<LlmTurn>>,
        seen: Mutex<Vec<Vec<Message>>>,
    }

    impl Scripted {
        fn new(mut turns: Vec<LlmTurn>) -> Self {
            turns.reverse();
            Self {
                turns: Mutex::new(turns),
                seen: Mutex::new(Vec::new()),
            }
        }
    }

    impl Llm for Scripted {
        fn respond<'a>(
            &'a self,
            messages: &'a [Message],
            _tools: &'a [ToolDefinition],
        ) -> BoxFuture<'a, Result<LlmTurn, LlmError>> {
            Box::pin(async move {
                self.seen.lock().unwrap().push(messages.to_vec());
                self.turns
                    .lock()
                    .unwrap()
                    .pop()
                    .ok_or_else(|| LlmError("script exhausted".into()))
            })
        }
    }

    const WEATHER: ToolDef = ToolDef::new(
        "weather",
        "Weather for a city",
        r#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#,
    )
    .read()
    .annotations(ToolAnnotations::NONE.read_only(true));

    static TOOLS: &[ToolDef] = &[WEATHER];

    /// A connection with the one `weather` tool; other names fail as a transport would.
    struct Weather;

    impl McpConnection for Weather {
        fn call_tool<'a>(
            &'a self,
            name: &'a str,
            args: Map<String, Value>,
        ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
            Box::pin(async move {
                if name != "weather" {
                    return Err(CallError::Transport(format!("unknown tool `{name}`")));
                }
                match args.get("city").and_then(Value::as_str) {
                    Some("Paris") => Ok(ToolResult::text("18°C, sunny")),
                    Some(city) => Ok(ToolResult::error(format!("unknown city {city}"))),
                    None => Ok(ToolResult::error("city is required")),
                }
            })
        }
    }

    fn call(id: &str, name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args,
        }
    }

    fn calls(list: Vec<ToolCall>) -> LlmTurn {
        LlmTurn::ToolCalls {
            text: None,
            calls: list,
        }
    }

    fn defs() -> Vec<ToolDefinition> {
        TOOLS.iter().map(ToolDefinition::from_def).collect()
    }

    #[tokio::test]
    async fn runs_tools_until_the_model_answers() {
        let llm = Scripted::new(vec![
            calls(vec![call("c1", "weather", json!({"city": "Paris"}))]),
            LlmTurn::Final("It is sunny in Paris.".into()),
        ]);
        let conn = Weather;
        let out = run_tool_loop(
            &llm,
            &conn,
            &defs(),
            vec![Message::User("Weather in Paris?".into())],
            &LoopOptions::default(),
        )
        .await
        .unwrap();
        assert_eq!(out.answer, "It is sunny in Paris.");
        assert_eq!(out.iterations, 2);
        assert_eq!(
            out.trace,
            vec![TraceEntry {
                iteration: 1,
                call_id: "c1".into(),
                tool: "weather".into(),
                arguments: json!({"city": "Paris"}),
                summary: "18°C, sunny".into(),
                is_error: false,
            }]
        );
        // The second turn saw the result.
        let seen = llm.seen.lock().unwrap();
        assert_eq!(
            seen[1].last(),
            Some(&Message::Tool {
                call_id: "c1".into(),
                name: "weather".into(),
                content: "18°C, sunny".into(),
                is_error: false,
            })
        );
        assert_eq!(out.messages.len(), 4);
    }

    #[tokio::test]
    async fn stops_at_the_cap_with_the_trace() {
        let turn = || calls(vec![call("c", "weather", json!({"city": "Paris"}))]);
        let llm = Scripted::new(vec![turn(), turn(), turn(), turn()]);
        let conn = Weather;
        let err = run_tool_loop(
            &llm,
            &conn,
            &defs(),
            vec![Message::User("loop forever".into())],
            &LoopOptions::default().with_max_iterations(3),
        )
        .await
        .unwrap_err();
        let LoopError::IterationCap {
            cap,
            trace,
            pending,
            ..
        } = &err
        else {
            panic!("expected the iteration cap, got {err}");
        };
        assert_eq!(*cap, 3);
        // Turns 1 and 2 ran their call; turn 3's was not run.
        assert_eq!(trace.len(), 2);
        assert_eq!(pending.len(), 1);
        assert_eq!(llm.seen.lock().unwrap().len(), 3);
        assert_eq!(
            err.to_string(),
            "the model asked for tools in each of its 3 turns without answering; 2 tool calls made (last turn asked for: weather)"
        );
    }

    #[tokio::test]
    async fn the_default_cap_is_ten() {
        let turn = || calls(vec![call("c", "weather", json!({"city": "Paris"}))]);
        let llm = Scripted::new((0..20).map(|_| turn()).collect());
        let err = run_tool_loop(&llm, &Weather, &defs(), vec![], &LoopOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(err, LoopError::IterationCap { cap: 10, .. }));
        assert_eq!(err.trace().len(), 9);
    }

    #[tokio::test]
    async fn tool_failures_are_fed_back_to_the_model() {
        let llm = Scripted::new(vec![
            calls(vec![
                call("c1", "weather", json!({"city": "Atlantis"})),
                call("c2", "no_such_tool", json!({})),
                call("c3", "weather", json!("{broken")),
                call("c4", "weather", json!({"city": "Paris"})),
            ]),
            LlmTurn::Final("Only Paris worked.".into()),
        ]);
        let out = run_tool_loop(
            &llm,
            &Weather,
            &defs(),
            vec![Message::User("weather".into())],
            &LoopOptions::default(),
        )
        .await
        .unwrap();
        assert_eq!(out.answer, "Only Paris worked.");
        let errors: Vec<(&str, bool)> = out
            .trace
            .iter()
            .map(|t| (t.call_id.as_str(), t.is_error))
            .collect();
        assert_eq!(
            errors,
            [("c1", true), ("c2", true), ("c3", true), ("c4", false)]
        );
        let seen = llm.seen.lock().unwrap();
        let results: Vec<&str> = seen[1]
            .iter()
            .filter_map(|m| match m {
                Message::Tool { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            results,
            [
                "Error: unknown city Atlantis",
                "Error: transport error: unknown tool `no_such_tool`",
                "Error: the arguments for `weather` are not valid JSON: {broken",
                "18°C, sunny",
            ]
        );
    }

    #[tokio::test]
    async fn a_failing_model_ends_the_loop_with_the_trace() {
        let llm = Scripted::new(vec![calls(vec![call(
            "c1",
            "weather",
            json!({"city": "Paris"}),
        )])]);
        let err = run_tool_loop(&llm, &Weather, &defs(), vec![], &LoopOptions::default())
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "model call failed in turn 2: script exhausted"
        );
        assert_eq!(err.trace().len(), 1);
    }

    impl crate::tool::ToolOrigin for Weather {
        fn origin(&self, name: &str) -> Option<String> {
            (name == "weather").then(|| "meteo/weather".to_owned())
        }
    }

    #[tokio::test]
    async fn the_observer_hears_every_call_of_the_loop() {
        let llm = Scripted::new(vec![
            calls(vec![
                call("c1", "weather", json!({"city": "Paris"})),
                call("c2", "weather", json!({"city": "Atlantis"})),
                call("c3", "nope", json!({})),
            ]),
            LlmTurn::Final("done".into()),
        ]);
        let heard = Mutex::new(Vec::new());
        let observer = |e: &crate::observe::ToolEvent| {
            let line = match e {
                crate::observe::ToolEvent::Done {
                    source, is_error, ..
                } => format!("done {source} isError={is_error}"),
                other => other.to_string(),
            };
            heard.lock().unwrap().push(line);
        };
        run_tool_loop_observed(
            &llm,
            &Weather,
            &defs(),
            vec![Message::User("weather".into())],
            &LoopOptions::default(),
            &observer,
        )
        .await
        .unwrap();
        let mut heard = heard.into_inner().unwrap();
        heard.sort();
        assert_eq!(
            heard,
            [
                "calling meteo/weather",
                "calling meteo/weather",
                "calling nope",
                "done meteo/weather isError=false",
                "done meteo/weather isError=true",
                "failed nope: transport error: unknown tool `nope`",
            ]
        );
    }

    #[test]
    fn summaries_are_cut_on_characters() {
        assert_eq!(summarize("ééé", 2), "éé…");
        assert_eq!(summarize("ab", 2), "ab");
    }
}
