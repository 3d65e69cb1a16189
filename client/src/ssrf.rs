//! The SSRF guard for HTTP and SSE servers: which addresses a configured URL may reach.
//!
//! Unless a server has `allow_private: true`, its sessions refuse loopback, private
//! (RFC 1918), link-local (including the cloud metadata address 169.254.169.254), CGNAT
//! (100.64.0.0/10), unique-local (fc00::/7), unspecified, multicast and broadcast addresses,
//! also when they hide inside IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4).
//!
//! The check sits where the connection is made: the HTTP client of a guarded session
//! resolves names through a resolver that drops refused addresses (so a name
//! that resolves differently the second time cannot slip through), IP-literal hosts are
//! checked before any request, proxies are never used, and redirects are not followed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::error::ClientError;

/// Why `ip` may not be reached without `allow_private`, or `None` if it may.
pub fn blocked_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => blocked_v4(v4),
        IpAddr::V6(v6) => blocked_v6(v6),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip == Ipv4Addr::new(169, 254, 169, 254) {
        Some("link-local (cloud metadata service)")
    } else if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private (RFC 1918)")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared address space (CGNAT, 100.64.0.0/10)")
    } else if a == 0 {
        Some("unspecified (0.0.0.0/8)")
    } else if ip.is_broadcast() {
        Some("broadcast")
    } else if ip.is_multicast() || a >= 240 {
        Some("multicast or reserved")
    } else if a == 192 && b == 0 && ip.octets()[2] == 0 {
        Some("IETF protocol assignments (192.0.0.0/24)")
    } else if a == 198 && (b == 18 || b == 19) {
        Some("benchmarking (198.18.0.0/15)")
    } else {
        None
    }
}

fn blocked_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    // The IPv4 address in segments `i` and `i + 1`.
    let v4_at = |i: usize| Ipv4Addr::from((u32::from(seg[i]) << 16) | u32::from(seg[i + 1]));
    if ip.is_loopback() {
        return Some("loopback");
    }
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    // IPv4 inside IPv6: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64
    // (64:ff9b::/96) and 6to4 (2002:AABB:CCDD::/48) carry an IPv4 address to check.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return blocked_v4(v4);
    }
    if seg[..6] == [0; 6] {
        return blocked_v4(v4_at(6)).or(Some("IPv4-compatible IPv6"));
    }
    if seg[0] == 0x64 && seg[1] == 0xff9b && seg[2..6] == [0; 4] {
        return blocked_v4(v4_at(6));
    }
    if seg[0] == 0x2002 {
        return blocked_v4(v4_at(1));
    }
    if seg[0] & 0xfe00 == 0xfc00 {
        Some("unique local (fc00::/7)")
    } else if seg[0] & 0xffc0 == 0xfe80 {
        Some("link-local (fe80::/10)")
    } else if seg[0] & 0xffc0 == 0xfec0 {
        Some("site-local (fec0::/10)")
    } else if ip.is_multicast() {
        Some("multicast")
    } else {
        None
    }
}

/// The host of `url` as reqwest will see it, and its port (default for the scheme).
fn host_and_port(url: &url::Url) -> Option<(url::Host<String>, u16)> {
    Some((url.host()?.to_owned(), url.port_or_known_default()?))
}

/// Checks `url` for server `server` before any connection: an IP-literal host is checked
/// directly, a name is resolved and refused when none of its addresses is allowed. The
/// connection itself is guarded again by [`GuardedResolver`].
pub(crate) async fn check_url(server: &str, url: &url::Url) -> Result<(), ClientError> {
    let blocked = |host: &str, ip: IpAddr, reason: &str| ClientError::Blocked {
        server: server.to_owned(),
        host: host.to_owned(),
        address: ip.to_string(),
        reason: reason.to_owned(),
    };
    let Some((host, port)) = host_and_port(url) else {
        return Err(ClientError::Connect {
            server: server.to_owned(),
            message: format!("URL `{url}` has no host or port"),
        });
    };
    match host {
        url::Host::Ipv4(ip) => match blocked_v4(ip) {
            Some(reason) => Err(blocked(&ip.to_string(), IpAddr::V4(ip), reason)),
            None => Ok(()),
        },
        url::Host::Ipv6(ip) => match blocked_v6(ip) {
            Some(reason) => Err(blocked(&format!("[{ip}]"), IpAddr::V6(ip), reason)),
            None => Ok(()),
        },
        url::Host::Domain(name) => {
            let addrs = resolve(&name, port)
                .await
                .map_err(|e| ClientError::Connect {
                    server: server.to_owned(),
                    message: format!("cannot resolve `{name}`: {e}"),
                })?;
            let mut first_refused = None;
            for addr in &addrs {
                match blocked_reason(addr.ip()) {
                    None => return Ok(()),
                    Some(reason) => {
                        first_refused.get_or_insert((addr.ip(), reason));
                    }
                }
            }
            match first_refused {
                Some((ip, reason)) => Err(blocked(&name, ip, reason)),
                None => Err(ClientError::Connect {
                    server: server.to_owned(),
                    message: format!("`{name}` resolves to no address"),
                }),
            }
        }
    }
}

async fn resolve(name: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
    Ok(tokio::net::lookup_host((name, port)).await?.collect())
}

/// The address refused while connecting, as the resolver's error.
#[derive(Debug, thiserror::Error)]
#[error(
    "server `{server}`: `{host}` resolves only to refused addresses ({address}: {reason}); set `allow_private: true` to allow it"
)]
pub(crate) struct RefusedAddress {
    server: String,
    host: String,
    address: IpAddr,
    reason: &'static str,
}

/// A DNS resolver for reqwest that drops every address the guard refuses, and fails when
/// none is left.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    server: Arc<str>,
}

impl GuardedResolver {
    pub(crate) fn new(server: &str) -> Self {
        Self {
            server: server.into(),
        }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let server = self.server.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let all = resolve(&host, 0).await?;
            let mut refused = None;
            let allowed: Vec<SocketAddr> = all
                .into_iter()
                .filter(|addr| match blocked_reason(addr.ip()) {
                    None => true,
                    Some(reason) => {
                        refused.get_or_insert((addr.ip(), reason));
                        false
                    }
                })
                .collect();
            if allowed.is_empty() {
                let (address, reason) =
                    refused.unwrap_or((IpAddr::V4(Ipv4Addr::UNSPECIFIED), "no address"));
                return Err(Box::new(RefusedAddress {
                    server: server.to_string(),
                    host,
                    address,
                    reason,
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

/// The HTTP client a session of `server` uses: no proxies, no redirects, and (unless
/// `allow_private`) the guarded resolver.
pub(crate) fn http_client(
    server: &str,
    allow_private: bool,
    connect_timeout: std::time::Duration,
) -> Result<reqwest::Client, ClientError> {
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(connect_timeout);
    if !allow_private {
        builder = builder.dns_resolver(Arc::new(GuardedResolver::new(server)));
    }
    builder.build().map_err(|e| ClientError::Connect {
        server: server.to_owned(),
        message: format!("cannot build the HTTP client: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Option<&'static str> {
        let ip: IpAddr = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
        blocked_reason(ip)
    }

    #[test]
    fn refuses_internal_ranges() {
        for ip in [
            "127.0.0.1",
            "127.8.9.10",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.0.5",
            "100.64.0.1",
            "100.127.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a00:1",
            "2002:a00:1::1",
            "ff02::1",
        ] {
            assert!(v(ip).is_some(), "{ip} should be refused");
        }
        assert_eq!(
            v("169.254.169.254"),
            Some("link-local (cloud metadata service)")
        );
        assert_eq!(v("::ffff:192.168.0.1"), Some("private (RFC 1918)"));
    }

    #[test]
    fn allows_public_addresses() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.32.0.1",
            "192.169.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert_eq!(v(ip), None, "{ip} should be allowed");
        }
    }

    /// A loopback server answering every connection with `response`, counting connections.
    async fn canned(response: String) -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind: {e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = count.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let _ = stream.write_all(response.as_bytes()).await;
            }
        });
        (port, count)
    }

    const OK: &str = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok";

    #[tokio::test]
    async fn the_client_resolver_refuses_names_of_internal_addresses() {
        let (port, count) = canned(OK.to_owned()).await;
        let url = format!("http://localhost:{port}/");
        let guarded = http_client("srv", false, std::time::Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("{e}"));
        let err = match guarded.get(&url).send().await {
            Ok(r) => panic!("the guarded client reached {url}: {}", r.status()),
            Err(e) => crate::error_chain(&e),
        };
        assert!(
            err.contains("server `srv`") && err.contains("localhost") && err.contains("loopback"),
            "{err}"
        );
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 0);

        let open = http_client("srv", true, std::time::Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("{e}"));
        let status = open.get(&url).send().await.map(|r| r.status().as_u16());
        assert_eq!(status.map_err(|e| e.to_string()), Ok(200));
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn redirects_are_not_followed() {
        let (target, reached) = canned(OK.to_owned()).await;
        let (port, _) = canned(format!(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: http://127.0.0.1:{target}/\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        ))
        .await;
        let client = http_client("srv", true, std::time::Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("{e}"));
        let status = client
            .post(format!("http://127.0.0.1:{port}/mcp"))
            .body("{}")
            .send()
            .await
            .map(|r| r.status().as_u16());
        assert_eq!(status.map_err(|e| e.to_string()), Ok(307));
        assert_eq!(reached.load(std::sync::atomic::Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn check_url_refuses_literals_and_names() {
        let cases = [
            ("http://127.0.0.1:1/mcp", "127.0.0.1"),
            ("http://10.0.0.1/mcp", "10.0.0.1"),
            ("http://169.254.169.254/latest", "169.254.169.254"),
            ("http://[::ffff:7f00:1]/mcp", "::ffff:127.0.0.1"),
            // The URL parser reads these as 127.0.0.1, and so does the HTTP client.
            ("http://2130706433/mcp", "127.0.0.1"),
            ("http://0x7f.1/mcp", "127.0.0.1"),
            ("http://localhost:1/mcp", ""),
        ];
        for (url, address) in cases {
            let parsed = url::Url::parse(url).map_err(|e| e.to_string());
            let Ok(parsed) = parsed else {
                panic!("{url}: {parsed:?}");
            };
            match check_url("srv", &parsed).await {
                Err(ClientError::Blocked {
                    server, address: a, ..
                }) => {
                    assert_eq!(server, "srv");
                    if !address.is_empty() {
                        assert_eq!(a, address, "{url}");
                    }
                }
                other => panic!("{url}: expected a refusal, got {other:?}"),
            }
        }
    }
}
