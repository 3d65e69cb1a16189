//! Starts the example's server as a child process and runs programs through `execute`, as an
//! agent does: over a stdio session of `mcpgen-client`.

use mcpgen_client::{McpConfig, Session};
use serde_json::{Map, Value, json};

/// The program the book shows: every product's stock in one `execute`.
const LOW_STOCK: &str = include_str!("../low_stock.js");

/// A program that catches a failed inner call.
const UNKNOWN_SKU: &str = r#"
try {
  await tools.stock({ sku: "X-1" });
  return "found";
} catch (e) {
  return e.message;
}
"#;

type Outcome = Result<(), Box<dyn std::error::Error>>;

#[mcpgen::tokio::test(crate = "mcpgen::tokio")]
async fn execute_runs_programs_against_the_tools() -> Outcome {
    let servers =
        json!({"mcpServers": {"warehouse": {"command": env!("CARGO_BIN_EXE_code-mode")}}});
    // ANCHOR: session
    let config = McpConfig::from_json_str(&servers.to_string())?;
    let session = Session::connect("warehouse", &config.servers["warehouse"]).await?;
    let tools = session.list_tools().await?; // all pages, filtered by the entry's `tools`
    let mut args = Map::new();
    args.insert("code".into(), LOW_STOCK.into());
    let result = session.call_tool("execute", args).await?;
    // ANCHOR_END: session

    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["describe_tools", "execute", "search_tools"]);
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"result": ["N-200", "W-300"], "logs": ["checked 3 products"]}))
    );

    let mut args = Map::new();
    args.insert("code".into(), UNKNOWN_SKU.into());
    let caught = session.call_tool("execute", args).await?;
    let message = caught
        .structured_content
        .as_ref()
        .and_then(|c| c.get("result"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(message.contains("unknown SKU `X-1`"), "{caught:?}");

    session.shutdown().await?; // stdio: the child exited and was reaped
    Ok(())
}
