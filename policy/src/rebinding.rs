//! `Host` and `Origin` validation: the DNS-rebinding and cross-origin protection of the HTTP
//! transports.
//!
//! - **Host**: the configured hosts (`host` or `host:port`, `*` for any); with none configured,
//!   a server bound to loopback accepts only `localhost`, `127.0.0.1` and `[::1]` (any port),
//!   and a server bound elsewhere accepts any host.
//! - **Origin**: a request without `Origin` passes (non-browser clients send none). A present
//!   `Origin` must match a configured origin (`scheme://host:port`; `scheme://host:*` or
//!   `scheme://host` for any port; `null`; or `*` for any origin); with none configured, a
//!   server bound to loopback accepts loopback origins on any port and a server bound
//!   elsewhere refuses every browser origin.

use std::net::IpAddr;

use http::HeaderMap;
use http::uri::Authority;

const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// A host entry: a host name or address, and an optional port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostEntry {
    host: String,
    port: Option<u16>,
}

/// An origin entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum OriginEntry {
    /// `Origin: null` (sandboxed documents, `file:` pages).
    Null,
    /// `scheme://host` with a port rule.
    Tuple {
        scheme: String,
        host: String,
        /// `None` matches any port (written `:*`, or no port at all).
        port: Option<u16>,
    },
}

/// Which `Host` and `Origin` values a server accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebinding {
    /// `None`: any host.
    hosts: Option<Vec<HostEntry>>,
    /// `None`: any origin.
    origins: Option<Vec<OriginEntry>>,
}

/// Why a configured entry cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadEntry {
    /// The entry as configured.
    pub entry: String,
    /// What is wrong with it.
    pub reason: String,
}

/// The configured lists, checked at build time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RebindingConfig {
    hosts: Option<Vec<HostEntry>>,
    origins: Option<Vec<OriginEntry>>,
    any_host: bool,
    any_origin: bool,
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

fn parse_host_entry(raw: &str) -> Result<HostEntry, BadEntry> {
    let bad = |reason: &str| BadEntry {
        entry: raw.to_owned(),
        reason: reason.to_owned(),
    };
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(bad("the entry is empty"));
    }
    if trimmed.contains("://") || trimmed.contains('/') {
        return Err(bad(
            "give a host name or `host:port`, without a scheme or path (e.g. `mcp.example.com`)",
        ));
    }
    let authority = Authority::try_from(trimmed)
        .map_err(|e| bad(&format!("not a valid host or `host:port`: {e}")))?;
    Ok(HostEntry {
        host: normalize_host(authority.host()),
        port: authority.port_u16(),
    })
}

fn parse_origin_entry(raw: &str) -> Result<OriginEntry, BadEntry> {
    let bad = |reason: &str| BadEntry {
        entry: raw.to_owned(),
        reason: reason.to_owned(),
    };
    let trimmed = raw.trim();
    if trimmed.eq_ignore_ascii_case("null") {
        return Ok(OriginEntry::Null);
    }
    let (base, any_port) = match trimmed.strip_suffix(":*") {
        Some(base) => (base, true),
        None => (trimmed, false),
    };
    let uri = http::Uri::try_from(base).map_err(|e| {
        bad(&format!(
            "not a valid origin (`scheme://host[:port]`, `scheme://host:*` or `null`): {e}"
        ))
    })?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(bad(
            "an origin needs a scheme and a host, e.g. `https://app.example.com`",
        ));
    };
    if uri.path() != "/" && !uri.path().is_empty() {
        return Err(bad("an origin has no path"));
    }
    if any_port && authority.port_u16().is_some() {
        return Err(bad("give either a port or `:*`, not both"));
    }
    Ok(OriginEntry::Tuple {
        scheme: scheme.to_ascii_lowercase(),
        host: normalize_host(authority.host()),
        port: authority.port_u16(),
    })
}

impl RebindingConfig {
    /// Checks the configured lists (empty lists mean "use the defaults").
    pub fn new(hosts: &[String], origins: &[String]) -> Result<Self, Vec<BadEntry>> {
        let mut problems = Vec::new();
        let mut config = Self::default();
        if !hosts.is_empty() {
            let mut list = Vec::new();
            for raw in hosts {
                if raw.trim() == "*" {
                    config.any_host = true;
                    continue;
                }
                match parse_host_entry(raw) {
                    Ok(entry) => list.push(entry),
                    Err(e) => problems.push(e),
                }
            }
            config.hosts = Some(list);
        }
        if !origins.is_empty() {
            let mut list = Vec::new();
            for raw in origins {
                if raw.trim() == "*" {
                    config.any_origin = true;
                    continue;
                }
                match parse_origin_entry(raw) {
                    Ok(entry) => list.push(entry),
                    Err(e) => problems.push(e),
                }
            }
            config.origins = Some(list);
        }
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(problems)
        }
    }

    /// The policy for a server bound to `bound` (`None`: unknown, treated as loopback).
    pub fn policy(&self, bound: Option<IpAddr>) -> Rebinding {
        let loopback = bound.is_none_or(|ip| ip.is_loopback());
        let hosts = if self.any_host {
            None
        } else {
            match (&self.hosts, loopback) {
                (Some(list), _) => Some(list.clone()),
                (None, true) => Some(
                    LOOPBACK_HOSTS
                        .iter()
                        .map(|h| HostEntry {
                            host: (*h).to_owned(),
                            port: None,
                        })
                        .collect(),
                ),
                (None, false) => None,
            }
        };
        let origins = if self.any_origin {
            None
        } else {
            match (&self.origins, loopback) {
                (Some(list), _) => Some(list.clone()),
                (None, true) => Some(
                    ["http", "https"]
                        .iter()
                        .flat_map(|scheme| {
                            LOOPBACK_HOSTS.iter().map(move |host| OriginEntry::Tuple {
                                scheme: (*scheme).to_owned(),
                                host: (*host).to_owned(),
                                port: None,
                            })
                        })
                        .collect(),
                ),
                (None, false) => Some(Vec::new()),
            }
        };
        Rebinding { hosts, origins }
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The `Host` header is missing, malformed or not allowed.
    Host(String),
    /// The `Origin` header is malformed or not allowed.
    Origin(String),
    /// The request cannot be read unambiguously (e.g. two `Host` headers): a 400, not a 403.
    Malformed(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Host(why) => write!(f, "Forbidden: {why}"),
            Self::Origin(why) => write!(f, "Forbidden: {why}"),
            Self::Malformed(why) => write!(f, "Bad request: {why}"),
        }
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

impl Rebinding {
    /// Checks the `Host` (or, for HTTP/2, the URI authority) and `Origin` of a request.
    pub fn check(&self, uri: &http::Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        self.check_host(uri, headers)?;
        self.check_origin(headers)
    }

    /// Checks the `Host` header and the request target's authority (absolute-form in HTTP/1.1,
    /// `:authority` in HTTP/2): each that is present must be allowed, and one of them must be.
    /// Two `Host` headers are refused whatever the policy: which one a proxy in front used is
    /// not known.
    fn check_host(&self, uri: &http::Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let mut hosts = headers.get_all(http::header::HOST).iter();
        let host = hosts.next();
        if hosts.next().is_some() {
            return Err(Refusal::Malformed(
                "the request has more than one Host header".to_owned(),
            ));
        }
        let Some(allowed) = &self.hosts else {
            return Ok(());
        };
        let host = match host {
            Some(value) => {
                let text = value
                    .to_str()
                    .map_err(|_| Refusal::Host("the Host header is not valid text".to_owned()))?;
                Some(
                    Authority::try_from(text)
                        .map_err(|_| Refusal::Host("the Host header is malformed".to_owned()))?,
                )
            }
            None => None,
        };
        let target = uri.authority().cloned();
        if host.is_none() && target.is_none() {
            return Err(Refusal::Host("the request has no Host header".to_owned()));
        }
        for (authority, what) in [(host, "Host"), (target, "request target's authority")] {
            let Some(authority) = authority else {
                continue;
            };
            let name = normalize_host(authority.host());
            let port = authority.port_u16();
            let ok = allowed
                .iter()
                .any(|e| e.host == name && e.port.is_none_or(|p| Some(p) == port));
            if !ok {
                return Err(Refusal::Host(format!(
                    "{what} `{}` is not allowed (configure it with --allowed-host)",
                    shorten(authority.as_str())
                )));
            }
        }
        Ok(())
    }

    fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(allowed) = &self.origins else {
            return Ok(());
        };
        let Some(value) = headers.get(http::header::ORIGIN) else {
            return Ok(());
        };
        let text = value
            .to_str()
            .map_err(|_| Refusal::Origin("the Origin header is not valid text".to_owned()))?;
        let refused = || {
            Refusal::Origin(format!(
                "Origin `{}` is not allowed (configure it with --allowed-origin)",
                shorten(text)
            ))
        };
        if text.trim().eq_ignore_ascii_case("null") {
            return if allowed.contains(&OriginEntry::Null) {
                Ok(())
            } else {
                Err(refused())
            };
        }
        let uri = http::Uri::try_from(text.trim()).map_err(|_| refused())?;
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            return Err(refused());
        };
        let scheme = scheme.to_ascii_lowercase();
        let host = normalize_host(authority.host());
        let port = authority.port_u16().or_else(|| default_port(&scheme));
        let ok = allowed.iter().any(|entry| match entry {
            OriginEntry::Null => false,
            OriginEntry::Tuple {
                scheme: s,
                host: h,
                port: p,
            } => *s == scheme && *h == host && p.is_none_or(|p| Some(p) == port),
        });
        if ok { Ok(()) } else { Err(refused()) }
    }
}

/// Header values echoed in messages are cut short, so a hostile header cannot bloat them.
fn shorten(text: &str) -> String {
    const MAX: usize = 100;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};

    use http::HeaderValue;

    use super::*;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(host) = host {
            h.insert(http::header::HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            h.insert(http::header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        h
    }

    fn check(policy: &Rebinding, host: &str, origin: Option<&str>) -> Result<(), Refusal> {
        policy.check(
            &http::Uri::from_static("/mcp"),
            &headers(Some(host), origin),
        )
    }

    const LOOPBACK: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::LOCALHOST));
    const PUBLIC: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::UNSPECIFIED));

    #[test]
    fn loopback_defaults_accept_loopback_hosts_on_any_port() {
        let policy = RebindingConfig::new(&[], &[]).unwrap().policy(LOOPBACK);
        assert!(check(&policy, "localhost:3000", None).is_ok());
        assert!(check(&policy, "127.0.0.1:8080", None).is_ok());
        assert!(check(&policy, "[::1]:8080", None).is_ok());
        assert!(check(&policy, "LOCALHOST", None).is_ok());
        assert!(matches!(
            check(&policy, "evil.example:3000", None),
            Err(Refusal::Host(_))
        ));
    }

    #[test]
    fn ipv6_loopback_binding_uses_loopback_defaults() {
        let policy = RebindingConfig::new(&[], &[])
            .unwrap()
            .policy(Some(IpAddr::V6(Ipv6Addr::LOCALHOST)));
        assert!(check(&policy, "evil.example", None).is_err());
    }

    #[test]
    fn non_loopback_defaults_accept_any_host_but_no_browser_origin() {
        let policy = RebindingConfig::new(&[], &[]).unwrap().policy(PUBLIC);
        assert!(check(&policy, "mcp.example.com", None).is_ok());
        assert!(matches!(
            check(&policy, "mcp.example.com", Some("https://mcp.example.com")),
            Err(Refusal::Origin(_))
        ));
    }

    #[test]
    fn loopback_defaults_accept_loopback_origins_only() {
        let policy = RebindingConfig::new(&[], &[]).unwrap().policy(LOOPBACK);
        assert!(check(&policy, "localhost:3000", Some("http://localhost:6274")).is_ok());
        assert!(check(&policy, "localhost:3000", Some("http://[::1]:6274")).is_ok());
        assert!(matches!(
            check(&policy, "localhost:3000", Some("https://evil.example")),
            Err(Refusal::Origin(_))
        ));
        assert!(check(&policy, "localhost:3000", Some("null")).is_err());
    }

    #[test]
    fn configured_hosts_and_ports() {
        let config = RebindingConfig::new(
            &["mcp.example.com".into(), "api.example.com:8443".into()],
            &[],
        )
        .unwrap();
        let policy = config.policy(PUBLIC);
        assert!(check(&policy, "mcp.example.com:9999", None).is_ok());
        assert!(check(&policy, "api.example.com:8443", None).is_ok());
        assert!(check(&policy, "api.example.com:8444", None).is_err());
        assert!(check(&policy, "localhost", None).is_err());
    }

    #[test]
    fn configured_origins_with_ports_and_wildcards() {
        let config = RebindingConfig::new(
            &[],
            &[
                "https://app.example.com".into(),
                "http://localhost:*".into(),
                "https://exact.example.com:8443".into(),
            ],
        )
        .unwrap();
        let policy = config.policy(PUBLIC);
        let host = "mcp.example.com";
        assert!(check(&policy, host, Some("https://app.example.com")).is_ok());
        assert!(check(&policy, host, Some("http://localhost:1234")).is_ok());
        assert!(check(&policy, host, Some("https://exact.example.com:8443")).is_ok());
        assert!(check(&policy, host, Some("https://exact.example.com")).is_err());
        assert!(check(&policy, host, Some("http://app.example.com")).is_err());
    }

    #[test]
    fn wildcards_switch_checks_off() {
        let config = RebindingConfig::new(&["*".into()], &["*".into()]).unwrap();
        let policy = config.policy(LOOPBACK);
        assert!(check(&policy, "anything.example", Some("https://evil.example")).is_ok());
    }

    #[test]
    fn bad_entries_are_all_reported() {
        let problems = RebindingConfig::new(
            &["https://mcp.example.com".into()],
            &["app.example.com".into(), "https://a.example:1:*".into()],
        )
        .unwrap_err();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert_eq!(problems[0].entry, "https://mcp.example.com");
    }

    #[test]
    fn two_host_headers_are_malformed_whatever_the_policy() {
        let mut two = HeaderMap::new();
        two.append(http::header::HOST, HeaderValue::from_static("localhost"));
        two.append(http::header::HOST, HeaderValue::from_static("evil.example"));
        let uri = http::Uri::from_static("/mcp");
        for policy in [
            RebindingConfig::new(&[], &[]).unwrap().policy(LOOPBACK),
            RebindingConfig::new(&["*".into()], &[])
                .unwrap()
                .policy(PUBLIC),
        ] {
            assert!(matches!(
                policy.check(&uri, &two),
                Err(Refusal::Malformed(_))
            ));
        }
    }

    #[test]
    fn an_absolute_form_target_is_checked_like_host() {
        let policy = RebindingConfig::new(&[], &[]).unwrap().policy(LOOPBACK);
        let evil = http::Uri::from_static("http://evil.example/mcp");
        let refused = policy.check(&evil, &headers(Some("localhost"), None));
        assert!(matches!(refused, Err(Refusal::Host(ref why)) if why.contains("evil.example")));
        let own = http::Uri::from_static("http://localhost:3000/mcp");
        assert!(
            policy
                .check(&own, &headers(Some("localhost:3000"), None))
                .is_ok()
        );
    }

    #[test]
    fn missing_host_falls_back_to_the_uri_authority() {
        let policy = RebindingConfig::new(&[], &[]).unwrap().policy(LOOPBACK);
        let uri = http::Uri::from_static("http://localhost:3000/mcp");
        assert!(policy.check(&uri, &HeaderMap::new()).is_ok());
        let bare = http::Uri::from_static("/mcp");
        assert!(policy.check(&bare, &HeaderMap::new()).is_err());
    }
}
