//! What the HTTP listener speaks: HTTP/1.1 always; HTTP/2 with prior knowledge (h2c) only
//! with the `http2` feature, which generated servers leave off unless asked for.

#[allow(dead_code)] // the shared helpers of `main`; this binary uses some of them
mod support;

use mcpgen_runtime::server::Server;
use support::{Notes, Recorder, Running, builder};

async fn server() -> Running {
    let server: Server = builder(&Notes::default(), &Recorder::default())
        .build()
        .expect("the server builds");
    Running::start(server).await
}

#[tokio::test(flavor = "multi_thread")]
async fn http1_is_served() {
    let running = server().await;
    let answer = reqwest::Client::builder()
        .http1_only()
        .build()
        .expect("client")
        .get(format!("{}/healthz", running.url))
        .send()
        .await
        .expect("an HTTP/1.1 request is answered");
    assert_eq!(answer.status(), reqwest::StatusCode::OK);
    assert_eq!(answer.version(), reqwest::Version::HTTP_11);
}

#[cfg(not(feature = "http2"))]
#[tokio::test(flavor = "multi_thread")]
async fn http2_prior_knowledge_is_refused_without_the_feature() {
    let running = server().await;
    let client = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .expect("client");
    let answer = client.get(format!("{}/healthz", running.url)).send().await;
    assert!(
        answer.is_err(),
        "an HTTP/2 request was answered without the http2 feature: {answer:?}"
    );
    // The listener goes on serving HTTP/1.1 after the refused connection.
    let health = reqwest::get(format!("{}/healthz", running.url))
        .await
        .expect("an HTTP/1.1 request is answered");
    assert_eq!(health.status(), reqwest::StatusCode::OK);
}

#[cfg(feature = "http2")]
#[tokio::test(flavor = "multi_thread")]
async fn http2_prior_knowledge_is_served_with_the_feature() {
    let running = server().await;
    let answer = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .expect("client")
        .get(format!("{}/healthz", running.url))
        .send()
        .await
        .expect("an HTTP/2 request is answered");
    assert_eq!(answer.status(), reqwest::StatusCode::OK);
    assert_eq!(answer.version(), reqwest::Version::HTTP_2);
}
