//! A slow client cannot starve the others: connections that trickle a request's headers byte
//! by byte (slowloris) are closed after the header read timeout, and while they are open a
//! normal client is served as usual.

use std::time::{Duration, Instant};

use crate::support::{Notes, Recorder, Running, builder, call, connect, text};
use clap::Parser as _;
use mcpgen_runtime::cli::ServeArgs;
use mcpgen_runtime::server::{DEFAULT_HEADER_READ_TIMEOUT, Server};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The header read timeout of the server under attack.
const TIMEOUT: Duration = Duration::from_secs(3);

/// How many slow connections the attacker holds.
const SLOW_CLIENTS: usize = 64;

/// Opens a connection and sends a request head one byte every 100 ms, never finishing it.
/// Returns the connection's read half and the task that keeps trickling.
async fn trickle(
    addr: std::net::SocketAddr,
) -> (tokio::net::tcp::OwnedReadHalf, tokio::task::JoinHandle<()>) {
    let stream = TcpStream::connect(addr).await.expect("connects");
    let (read, mut write) = stream.into_split();
    let task = tokio::spawn(async move {
        let head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        let endless = head.iter().chain(b"X-Slow: a\r\n".iter().cycle());
        for byte in endless {
            if write.write_all(&[*byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    (read, task)
}

async fn server(header_read_timeout: Duration) -> Running {
    let server: Server = builder(&Notes::default(), &Recorder::default())
        .header_read_timeout(header_read_timeout)
        .build()
        .expect("the server builds");
    Running::start(server).await
}

#[tokio::test(flavor = "multi_thread")]
async fn trickled_headers_are_cut_off_and_do_not_starve_a_normal_client() {
    let running = server(TIMEOUT).await;
    let started = Instant::now();
    let mut slow = Vec::new();
    for _ in 0..SLOW_CLIENTS {
        slow.push(trickle(running.addr).await);
    }

    // While every slow connection is open and trickling, a normal client is served.
    let health = tokio::time::timeout(
        Duration::from_secs(5),
        reqwest::get(format!("{}/healthz", running.url)),
    )
    .await
    .expect("the normal client is answered in time")
    .expect("the request succeeds");
    assert!(health.status().is_success(), "{}", health.status());
    assert!(
        started.elapsed() < TIMEOUT,
        "the slow connections were still open when the normal client was served"
    );

    // Each slow connection is closed by the server, though its client is still sending.
    for (mut read, task) in slow {
        let mut buf = [0u8; 1024];
        let closed = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match read.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    // Whatever the server says before closing (if anything), it closes.
                    Ok(_) => {}
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "a slow connection was still open after 5 s");
        task.abort();
    }
    assert!(
        started.elapsed() >= TIMEOUT,
        "closed before the header read timeout"
    );
    running.stop().await.expect("the server stops");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_sent_in_time_is_served_on_a_kept_alive_connection() {
    let running = server(Duration::from_secs(2)).await;
    let client = reqwest::Client::new();
    for _ in 0..3 {
        let response = client
            .get(format!("{}/healthz", running.url))
            .send()
            .await
            .expect("the request succeeds");
        assert!(response.status().is_success());
    }
    running.stop().await.expect("the server stops");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_outlives_the_header_read_timeout_idle_and_in_long_calls() {
    let running = server(Duration::from_secs(1)).await;
    let client = connect(&running.url, "reader-key").await;
    // Idle for longer than the timeout, then calls whose answers take as long as it.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    for _ in 0..2 {
        let result = tokio::time::timeout(
            Duration::from_secs(10),
            client.call_tool(call("slow", json!({"ms": 1000}))),
        )
        .await
        .expect("answered in time")
        .expect("answered");
        assert_eq!(text(&result), "waited 1000 ms");
    }
    let _ = client.cancel().await;
    running.stop().await.expect("the server stops");
}

#[test]
fn the_flag_sets_the_timeout_and_defaults_to_30_s() {
    assert_eq!(DEFAULT_HEADER_READ_TIMEOUT, Duration::from_secs(30));
    let parse = |extra: &[&str]| {
        let mut argv = vec!["notes-mcp", "--no-auth"];
        argv.extend(extra);
        ServeArgs::try_parse_from(argv)
    };
    assert_eq!(parse(&[]).unwrap().header_read_timeout, 30);
    assert_eq!(
        parse(&["--header-read-timeout", "5"])
            .unwrap()
            .header_read_timeout,
        5
    );
    assert!(parse(&["--header-read-timeout", "0"]).is_err());
}
