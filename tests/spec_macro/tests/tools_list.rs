//! The tools `generate!` includes answer `tools/list`, served over an in-memory stdio-style
//! connection to rmcp's client, with exactly the checked-in `generated/synaplan/tools.json`.

use std::path::Path;
use std::time::Duration;

use mcpgen::server::Server;
use mcpgen::{Principal, Upstream, UpstreamConfig};
use rmcp::ServiceExt;
use serde_json::Value;

#[tokio::test]
async fn tools_list_equals_the_generated_tools_json() {
    let upstream = Upstream::new(UpstreamConfig::new("http://127.0.0.1:9")).expect("an upstream");
    let server = Server::builder(
        spec_macro_test::tools::SERVER_NAME,
        spec_macro_test::tools::SERVER_VERSION,
    )
    .tool_set(spec_macro_test::tools::tool_set(upstream))
    .no_auth()
    .build()
    .expect("the server builds");

    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_io);
    let serving = tokio::spawn(async move {
        server
            .serve_io(Principal::unrestricted("test"), server_read, server_write)
            .await
    });
    let client = tokio::time::timeout(Duration::from_secs(10), ().serve(client_io))
        .await
        .expect("the client connects in time")
        .expect("the client connects");
    let tools = client.list_all_tools().await.expect("tools/list");
    let listed = serde_json::to_value(&tools).expect("tools as JSON");

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../generated/synaplan/tools.json");
    let text = std::fs::read_to_string(&path).expect("generated/synaplan/tools.json");
    // tools.json shows the list as a client with the views extension sees it; this client did
    // not declare it, so it gets the same entries less their `_meta`.
    let mut expected: Value = serde_json::from_str(&text).expect("tools.json is JSON");
    for tool in expected["tools"].as_array_mut().into_iter().flatten() {
        tool.as_object_mut().map(|t| t.remove("_meta"));
    }
    assert_eq!(listed, expected["tools"]);
    assert!(
        listed.as_array().is_some_and(|t| !t.is_empty()),
        "the spec selects tools"
    );
    client.cancel().await.ok();
    serving.await.ok();
}
