//! A recording HTTP server on loopback, standing in for an upstream REST API: it keeps every
//! raw request (method, path and raw query, headers, body bytes) and answers from a route
//! table that each test file supplies through [`Routes`].

use std::future::Future;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcpgen_runtime::{Upstream, UpstreamConfig};

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path and raw query, exactly as sent.
    pub target: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Recorded {
    /// The first value of header `name`, if it is visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Every value of header `name` that is visible ASCII, in order.
    pub fn header_all(&self, name: &str) -> Vec<&str> {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect()
    }

    /// The `Content-Type` header.
    pub fn content_type(&self) -> Option<&str> {
        self.header(header::CONTENT_TYPE.as_str())
    }
}

/// A route table: the answer to a request for `path` (without the query).
pub trait Routes: Send + Sync + 'static {
    fn answer(path: &str) -> impl Future<Output = Response> + Send;
}

/// Answers every request with `200 {"ok":true}` as `application/json`.
pub struct JsonOk;

impl Routes for JsonOk {
    async fn answer(_path: &str) -> Response {
        (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"ok":true}"#,
        )
            .into_response()
    }
}

type Log = Arc<Mutex<Vec<Recorded>>>;

/// The server, answering from the route table `R`.
pub struct Recording<R = JsonOk> {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    log: Log,
    routes: PhantomData<R>,
}

impl<R: Routes> Recording<R> {
    /// Starts listening on `127.0.0.1:0`.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Log::default();
        let app = axum::Router::new()
            .fallback(record_and_answer::<R>)
            .with_state(log.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self {
            base: format!("http://{addr}"),
            log,
            routes: PhantomData,
        }
    }
}

impl<R> Recording<R> {
    /// An upstream client for this server with the default configuration.
    pub fn upstream(&self) -> Upstream {
        Upstream::new(UpstreamConfig::new(&self.base)).unwrap()
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }

    /// The one request received so far; fails unless there is exactly one.
    pub fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(
            requests.len(),
            1,
            "expected exactly one request: {requests:#?}"
        );
        requests.into_iter().next().unwrap()
    }

    /// The requests received so far, removed from the log.
    #[allow(dead_code)] // only the `server_upstream` binary takes them
    pub fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }

    /// `METHOD target` of every request received, in order.
    pub fn lines(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .map(|r| format!("{} {}", r.method, r.target))
            .collect()
    }
}

async fn record_and_answer<R: Routes>(State(log): State<Log>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let path = parts.uri.path().to_owned();
    log.lock().unwrap().push(Recorded {
        method: parts.method.to_string(),
        target: parts
            .uri
            .path_and_query()
            .map(|pq| pq.as_str().to_owned())
            .unwrap_or_default(),
        headers: parts.headers,
        body: body.to_vec(),
    });
    R::answer(&path).await
}
