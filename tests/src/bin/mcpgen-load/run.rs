//! The client swarm: `--clients` closed-loop clients, each making `--calls` `tools/call`s, a
//! share of them in the session era (`initialize`, then calls in the session; a lost session is
//! opened again) and the rest stateless (2026-07-28). Every call has a JSON-RPC id unique in the
//! run, `<client>-<n>`, which the audit records as `request_id`; `--outcomes` gets one line per
//! call: the id and how it ended.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// `mcpgen-load run` flags.
#[derive(clap::Args)]
pub struct Args {
    /// The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`.
    #[arg(long)]
    url: String,
    /// Concurrent clients.
    #[arg(long, default_value_t = 100)]
    clients: usize,
    /// Calls each client makes.
    #[arg(long, default_value_t = 10_000)]
    calls: u64,
    /// Share of the clients that work in the session era (the rest are stateless).
    #[arg(long, default_value_t = 0.5)]
    session_share: f64,
    /// An `X-API-Key` to send; repeat it to spread the clients over several keys in turn.
    #[arg(long = "key", required = true)]
    keys: Vec<String>,
    /// The tool every call calls.
    #[arg(long, default_value = "synaplan_list_prompts")]
    tool: String,
    /// Its arguments (JSON object).
    #[arg(long, default_value = r#"{"language":"en"}"#)]
    arguments: String,
    /// `FRACTION:NAME:COMMAND`: when FRACTION of all calls are done, run COMMAND with `sh -c`
    /// (in the background) and report the calls during it as the fault NAME. Repeatable.
    #[arg(long = "at")]
    faults: Vec<String>,
    /// Seconds after a fault command ends that still count towards its window.
    #[arg(long, default_value_t = 5)]
    grace: u64,
    /// Seconds a client waits for one answer.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// File for one line per call: `<id>\t<outcome>`.
    #[arg(long)]
    outcomes: PathBuf,
    /// File for the JSON summary.
    #[arg(long)]
    report: PathBuf,
}

/// How a call ended, as its client saw it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    /// A result without `isError`.
    Ok,
    /// A result with `isError` saying the rate limit was reached.
    RateLimited,
    /// Any other result with `isError` (an upstream fault, for instance).
    ToolError,
    /// A JSON-RPC error answer.
    RpcError,
    /// No answer: a transport error, a non-2xx HTTP status or a timeout.
    Failed,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::RateLimited => "rate_limited",
            Outcome::ToolError => "tool_error",
            Outcome::RpcError => "rpc_error",
            Outcome::Failed => "failed",
        }
    }
}

struct Done {
    id: String,
    outcome: Outcome,
    detail: String,
    at: Duration,
    latency: Duration,
}

/// A fault command running in the background: its index in the plan, when it started, and its
/// task, which ends with the time it ended and how.
type StartedFault = (usize, Duration, tokio::task::JoinHandle<(Duration, String)>);

struct Fault {
    fraction: f64,
    name: String,
    command: String,
}

fn parse_fault(text: &str) -> Result<Fault, String> {
    let mut parts = text.splitn(3, ':');
    let (Some(fraction), Some(name), Some(command)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("--at {text:?}: expected FRACTION:NAME:COMMAND"));
    };
    let fraction: f64 = fraction
        .parse()
        .map_err(|_| format!("--at {text:?}: {fraction:?} is not a number"))?;
    if !(0.0..1.0).contains(&fraction) {
        return Err(format!("--at {text:?}: the fraction must be in [0, 1)"));
    }
    Ok(Fault {
        fraction,
        name: name.to_owned(),
        command: command.to_owned(),
    })
}

pub async fn run(args: Args) -> Result<(), String> {
    let arguments: Value = serde_json::from_str(&args.arguments)
        .map_err(|error| format!("--arguments is not JSON: {error}"))?;
    let mut faults = args
        .faults
        .iter()
        .map(|text| parse_fault(text))
        .collect::<Result<Vec<_>, _>>()?;
    faults.sort_by(|a, b| a.fraction.total_cmp(&b.fraction));
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(args.timeout))
        .pool_max_idle_per_host(args.clients)
        .build()
        .map_err(|error| format!("cannot build the HTTP client: {error}"))?;
    let total = args.clients as u64 * args.calls;
    let done_count = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let (sender, mut receiver) = mpsc::unbounded_channel::<Done>();
    let sessions = (args.clients as f64 * args.session_share).round() as usize;
    let mut clients = Vec::new();
    for n in 0..args.clients {
        let client = Client {
            http: http.clone(),
            url: args.url.clone(),
            key: args.keys[n % args.keys.len()].clone(),
            tool: args.tool.clone(),
            arguments: arguments.clone(),
            session_era: n < sessions,
            number: n,
        };
        let sender = sender.clone();
        let done_count = done_count.clone();
        let calls = args.calls;
        clients.push(tokio::spawn(async move {
            client.work(calls, start, sender, done_count).await
        }));
    }
    drop(sender);

    let mut outcomes = std::io::BufWriter::new(
        std::fs::File::create(&args.outcomes)
            .map_err(|error| format!("cannot create {}: {error}", args.outcomes.display()))?,
    );
    let mut latencies: Vec<u32> = Vec::with_capacity(total as usize);
    // Calls by second of the run and outcome, for the fault windows.
    let mut timeline: Vec<[u64; 5]> = Vec::new();
    let mut counts: BTreeMap<Outcome, u64> = BTreeMap::new();
    let mut failure_details: BTreeMap<String, u64> = BTreeMap::new();
    let mut started: Vec<StartedFault> = Vec::new();
    let mut next_fault = 0;
    let mut last_progress = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            done = receiver.recv() => {
                let Some(done) = done else { break };
                writeln!(outcomes, "{}\t{}{}", done.id, done.outcome.name(),
                    if done.detail.is_empty() { String::new() } else { format!(":{}", done.detail) })
                    .map_err(|error| format!("cannot write {}: {error}", args.outcomes.display()))?;
                if done.outcome != Outcome::Failed {
                    latencies.push(done.latency.as_micros().min(u32::MAX as u128) as u32);
                } else {
                    *failure_details.entry(done.detail.clone()).or_default() += 1;
                }
                *counts.entry(done.outcome).or_default() += 1;
                let second = done.at.as_secs() as usize;
                if timeline.len() <= second {
                    timeline.resize(second + 1, [0; 5]);
                }
                timeline[second][done.outcome as usize] += 1;
            }
            _ = tick.tick() => {
                let finished = done_count.load(Ordering::Relaxed);
                while next_fault < faults.len()
                    && finished as f64 >= faults[next_fault].fraction * total as f64
                {
                    let fault = &faults[next_fault];
                    eprintln!("[{:>6.1}s] fault {}: {}", start.elapsed().as_secs_f64(), fault.name, fault.command);
                    let command = fault.command.clone();
                    started.push((next_fault, start.elapsed(), tokio::spawn(async move {
                        let status = tokio::process::Command::new("sh").arg("-c").arg(&command).status().await;
                        let status = match status {
                            Ok(status) if status.success() => "ok".to_owned(),
                            Ok(status) => format!("exit {status}"),
                            Err(error) => format!("not started: {error}"),
                        };
                        (start.elapsed(), status)
                    })));
                    next_fault += 1;
                }
                if last_progress.elapsed() >= Duration::from_secs(10) {
                    last_progress = Instant::now();
                    let seconds = start.elapsed().as_secs_f64();
                    eprintln!("[{seconds:>6.1}s] {finished}/{total} calls, {:.0}/s", finished as f64 / seconds);
                }
            }
        }
    }
    for client in clients {
        client
            .await
            .map_err(|error| format!("a client task failed: {error}"))?;
    }
    outcomes
        .flush()
        .map_err(|error| format!("cannot write {}: {error}", args.outcomes.display()))?;
    let elapsed = start.elapsed();
    let mut fault_reports = Vec::new();
    let starts: Vec<Duration> = started.iter().map(|(_, began, _)| *began).collect();
    for (position, (index, began, handle)) in started.into_iter().enumerate() {
        let (ended, status) = handle
            .await
            .map_err(|error| format!("a fault task failed: {error}"))?;
        let from = began.as_secs() as usize;
        let to = (ended.as_secs() + args.grace) as usize;
        let window = tally(&timeline, from, to);
        // Up to half a minute after the window, and before the next fault starts: whether the
        // servers have recovered by themselves.
        let next = starts.get(position + 1).map_or(usize::MAX, |next| {
            (next.as_secs() as usize).saturating_sub(1)
        });
        let after_end = (to + 30).min(next);
        let after = tally(&timeline, to + 1, after_end);
        fault_reports.push(json!({
            "name": faults[index].name,
            "command": faults[index].command,
            "start_s": began.as_secs_f64(),
            "end_s": ended.as_secs_f64(),
            "status": status,
            "window": outcome_map(&window),
            "after": outcome_map(&after),
            "after_s": after_end.saturating_sub(to),
        }));
    }
    latencies.sort_unstable();
    let percentile = |p: f64| -> u32 {
        if latencies.is_empty() {
            return 0;
        }
        latencies[((latencies.len() - 1) as f64 * p).round() as usize]
    };
    let mut by_outcome = serde_json::Map::new();
    for outcome in [
        Outcome::Ok,
        Outcome::RateLimited,
        Outcome::ToolError,
        Outcome::RpcError,
        Outcome::Failed,
    ] {
        by_outcome.insert(
            outcome.name().to_owned(),
            json!(counts.get(&outcome).copied().unwrap_or(0)),
        );
    }
    let report = json!({
        "clients": args.clients,
        "session_clients": sessions,
        "calls_per_client": args.calls,
        "calls": total,
        "seconds": elapsed.as_secs_f64(),
        "calls_per_second": total as f64 / elapsed.as_secs_f64(),
        "outcomes": by_outcome,
        "failures": failure_details,
        "p50_us": percentile(0.50),
        "p99_us": percentile(0.99),
        "faults": fault_reports,
    });
    std::fs::write(
        &args.report,
        serde_json::to_string_pretty(&report).unwrap_or_default(),
    )
    .map_err(|error| format!("cannot write {}: {error}", args.report.display()))?;
    eprintln!(
        "{total} calls in {:.1}s: {}",
        elapsed.as_secs_f64(),
        report["outcomes"]
    );
    Ok(())
}

/// Calls by outcome that ended in the seconds `from..=to` of the run.
fn tally(timeline: &[[u64; 5]], from: usize, to: usize) -> [u64; 5] {
    let mut sum = [0u64; 5];
    for second in timeline.iter().take(to + 1).skip(from) {
        for (slot, count) in sum.iter_mut().zip(second) {
            *slot += count;
        }
    }
    sum
}

fn outcome_map(counts: &[u64; 5]) -> Value {
    json!({
        "ok": counts[Outcome::Ok as usize],
        "rate_limited": counts[Outcome::RateLimited as usize],
        "tool_error": counts[Outcome::ToolError as usize],
        "rpc_error": counts[Outcome::RpcError as usize],
        "failed": counts[Outcome::Failed as usize],
    })
}

struct Client {
    http: reqwest::Client,
    url: String,
    key: String,
    tool: String,
    arguments: Value,
    session_era: bool,
    number: usize,
}

const SESSION_VERSION: &str = "2025-11-25";
const STATELESS_VERSION: &str = "2026-07-28";

impl Client {
    async fn work(
        self,
        calls: u64,
        start: Instant,
        sender: mpsc::UnboundedSender<Done>,
        done_count: Arc<AtomicU64>,
    ) {
        let mut session: Option<String> = None;
        let mut opened = 0u64;
        for n in 0..calls {
            let id = format!("{}-{n}", self.number);
            let began = Instant::now();
            if self.session_era && session.is_none() {
                // A session lost with its replica is opened again; a few tries before the call
                // counts as failed.
                for attempt in 0..5u64 {
                    opened += 1;
                    match self.initialize(opened).await {
                        Ok(id) => {
                            session = Some(id);
                            break;
                        }
                        Err(_) => {
                            tokio::time::sleep(Duration::from_millis(100 * (attempt + 1))).await
                        }
                    }
                }
            }
            let (outcome, detail) = if self.session_era && session.is_none() {
                (Outcome::Failed, "no-session".to_owned())
            } else {
                self.call(&id, session.as_deref()).await
            };
            if outcome == Outcome::Failed {
                session = None;
            }
            done_count.fetch_add(1, Ordering::Relaxed);
            let _ = sender.send(Done {
                id,
                outcome,
                detail,
                at: start.elapsed(),
                latency: began.elapsed(),
            });
        }
    }

    fn headers(&self, version: &str, session: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            "accept",
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if let Ok(value) = HeaderValue::from_str(version) {
            headers.insert("mcp-protocol-version", value);
        }
        if let Ok(value) = HeaderValue::from_str(&self.key) {
            headers.insert("x-api-key", value);
        }
        if let Some(value) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
            headers.insert("mcp-session-id", value);
        }
        headers
    }

    async fn initialize(&self, attempt: u64) -> Result<String, String> {
        let body = json!({
            "jsonrpc": "2.0",
            "id": format!("init-{}-{attempt}", self.number),
            "method": "initialize",
            "params": {
                "protocolVersion": SESSION_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcpgen-load", "version": "1"},
            },
        });
        let answer = self
            .http
            .post(&self.url)
            .headers(self.headers(SESSION_VERSION, None))
            .body(body.to_string())
            .send()
            .await
            .map_err(|error| error.to_string())?;
        if !answer.status().is_success() {
            return Err(format!("initialize: HTTP {}", answer.status()));
        }
        let session = answer
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .ok_or("initialize: no Mcp-Session-Id")?;
        // Read the answer to the end so the connection goes back to the pool.
        let _ = answer.bytes().await;
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = self
            .http
            .post(&self.url)
            .headers(self.headers(SESSION_VERSION, Some(&session)))
            .body(note.to_string())
            .send()
            .await
            .map_err(|error| error.to_string())?;
        if !answer.status().is_success() {
            return Err(format!("initialized: HTTP {}", answer.status()));
        }
        let _ = answer.bytes().await;
        Ok(session)
    }

    async fn call(&self, id: &str, session: Option<&str>) -> (Outcome, String) {
        let mut params = json!({"name": self.tool, "arguments": self.arguments});
        let version = if session.is_some() {
            SESSION_VERSION
        } else {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                "io.modelcontextprotocol/clientInfo": {"name": "mcpgen-load", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            });
            STATELESS_VERSION
        };
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let mut headers = self.headers(version, session);
        if session.is_none() {
            headers.insert("mcp-method", HeaderValue::from_static("tools/call"));
            if let Ok(value) = HeaderValue::from_str(&self.tool) {
                headers.insert("mcp-name", value);
            }
        }
        let answer = match self
            .http
            .post(&self.url)
            .headers(headers)
            .body(body.to_string())
            .send()
            .await
        {
            Ok(answer) => answer,
            Err(error) if error.is_timeout() => return (Outcome::Failed, "timeout".to_owned()),
            Err(_) => return (Outcome::Failed, "transport".to_owned()),
        };
        let status = answer.status();
        if !status.is_success() {
            let _ = answer.bytes().await;
            return (Outcome::Failed, format!("http-{}", status.as_u16()));
        }
        let text = match answer.text().await {
            Ok(text) => text,
            Err(_) => return (Outcome::Failed, "transport".to_owned()),
        };
        match find_answer(&text, id) {
            Some(message) => classify(&message),
            None => (Outcome::Failed, "no-answer".to_owned()),
        }
    }
}

/// The JSON-RPC answer with `id` in a body that is either one JSON message or an SSE stream.
fn find_answer(text: &str, id: &str) -> Option<Value> {
    let matches = |message: &Value| message.get("id").and_then(Value::as_str) == Some(id);
    if let Ok(message) = serde_json::from_str::<Value>(text) {
        return matches(&message).then_some(message);
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(matches)
}

fn classify(message: &Value) -> (Outcome, String) {
    if let Some(error) = message.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        return (Outcome::RpcError, code.to_string());
    }
    let result = &message["result"];
    if result.get("isError").and_then(Value::as_bool) != Some(true) {
        return (Outcome::Ok, String::new());
    }
    let text = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    if text.contains("rate limit") {
        (Outcome::RateLimited, String::new())
    } else {
        (Outcome::ToolError, String::new())
    }
}
