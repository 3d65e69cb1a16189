//! `mcpgen mock`: a stand-in API from a spec, for trying a server before the real API exists
//! and as a test double for the requests a server sends.
//!
//! The spec is loaded by the engine, as `generate` loads it (Swagger 2.0 upgraded; a URL fetched
//! with the same limits). Each operation is prepared once (`prepare`): its parameters' and
//! body's schemas converted and compiled (`schemas`), its answer chosen (the first 2xx
//! response). A request is routed by its path template and method (`routes`), checked
//! (`check`), and answered (`answer`) with the media type's example or a value made from the
//! response schema (`sample`, `pattern`) with a seed taken from the request (`seed`), so the
//! same request gets the same body. `listen` binds the address (loopback only unless
//! `--allow-remote`) and `serve` answers requests over HTTP.

mod answer;
mod check;
mod listen;
mod pattern;
mod prepare;
mod routes;
mod sample;
mod schemas;
mod seed;
mod serve;

use crate::args::MockArgs;
use crate::fetch;
use crate::specs::load_spec;

/// Runs `mcpgen mock` until the process is stopped.
pub(crate) fn mock(args: MockArgs) -> Result<(), String> {
    let input = fetch::resolve(&args.spec, &args.fetch)?;
    let spec = load_spec(input.path())?;
    let shown = input
        .label()
        .map_or_else(|| args.spec.display().to_string(), str::to_owned);
    for b in &spec.broken {
        eprintln!(
            "warning: {} {} cannot be read and is not answered:",
            b.method.to_ascii_uppercase(),
            b.path
        );
        for e in &b.errors {
            eprintln!("  {e}");
        }
    }
    if spec.operations.is_empty() {
        return Err(format!(
            "error: {shown}: the spec has no operation to answer (`paths` is empty)"
        ));
    }
    let mut warnings = Vec::new();
    let mut routes = routes::Routes::default();
    let mut operations = Vec::new();
    for (index, op) in spec.operations.iter().enumerate() {
        routes.add(&op.path, &op.method, index);
        operations.push(prepare::prepare(&spec, op, &mut warnings));
    }
    for server in spec.root["servers"].as_array().into_iter().flatten() {
        if let Some(url) = server["url"].as_str() {
            routes.add_base(url_path(url));
        }
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let listener = listen::bind(&args.listen, args.allow_remote)?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("error: --listen {}: {e}", args.listen))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("error: --listen {}: {e}", args.listen))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("error: cannot start the HTTP server: {e}"))?;
    eprintln!(
        "mock of {shown}: {} operations at http://{address}",
        operations.len()
    );
    println!("http://{address}");
    runtime.block_on(serve::run(listener, serve::Mock { routes, operations }))
}

/// The path of a server URL: `/v2` of `https://api.example/v2`, all of a relative `/v2`.
fn url_path(url: &str) -> &str {
    match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |slash| &rest[slash..]),
        None => url,
    }
}
