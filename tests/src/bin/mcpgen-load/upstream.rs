//! A stand-in for the Synaplan API whose behaviour the fault plan switches while it serves:
//! `PUT /_load/mode` with `normal`, `hang` (never answers: the server's upstream timeout fires)
//! or `error` (HTTP 500). `GET /_load/count` gives the number of API requests served so far.
//! Refused connections are made by stopping the process.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};

/// `mcpgen-load upstream` flags.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on.
    #[arg(long)]
    listen: SocketAddr,
}

const NORMAL: u8 = 0;
const HANG: u8 = 1;
const ERROR: u8 = 2;

#[derive(Default)]
struct Stand {
    mode: AtomicU8,
    served: AtomicU64,
}

pub async fn serve(args: Args) -> Result<(), String> {
    let stand = Arc::new(Stand::default());
    let app = Router::new()
        .route("/api/v1/prompts", get(prompts))
        .route("/_load/mode", put(set_mode))
        .route("/_load/count", get(count))
        .with_state(stand);
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|error| format!("cannot listen on {}: {error}", args.listen))?;
    axum::serve(listener, app)
        .await
        .map_err(|error| format!("upstream stopped: {error}"))
}

async fn prompts(State(stand): State<Arc<Stand>>) -> Response {
    match stand.mode.load(Ordering::Relaxed) {
        HANG => {
            std::future::pending::<()>().await;
            StatusCode::GATEWAY_TIMEOUT.into_response()
        }
        ERROR => {
            stand.served.fetch_add(1, Ordering::Relaxed);
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                [("content-type", "application/json")],
                r#"{"error":"injected fault"}"#,
            )
                .into_response()
        }
        _ => {
            stand.served.fetch_add(1, Ordering::Relaxed);
            (
                [("content-type", "application/json")],
                mcpgen_tests::SYNAPLAN_PROMPTS,
            )
                .into_response()
        }
    }
}

async fn set_mode(State(stand): State<Arc<Stand>>, body: String) -> Response {
    let mode = match body.trim() {
        "normal" => NORMAL,
        "hang" => HANG,
        "error" => ERROR,
        other => {
            return (
                StatusCode::BAD_REQUEST,
                format!("unknown mode {other:?}: normal, hang or error\n"),
            )
                .into_response();
        }
    };
    stand.mode.store(mode, Ordering::Relaxed);
    StatusCode::NO_CONTENT.into_response()
}

async fn count(State(stand): State<Arc<Stand>>) -> String {
    stand.served.load(Ordering::Relaxed).to_string()
}
