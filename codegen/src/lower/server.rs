//! The server the lowered tools belong to: names, version, upstream URL, security schemes.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::allowlist::Allowlist;
use crate::error::Warning;
use crate::ir;
use crate::servers;
use crate::spec::Spec;

/// The server of the lowered `tools`, named `name`: version, description and title from the
/// allowlist or the spec's `info`, the default upstream URL, and the security schemes the tools
/// use.
pub fn server(
    spec: &Spec,
    allowlist: &Allowlist,
    name: String,
    tools: Vec<ir::Tool>,
    warnings: &mut Vec<Warning>,
) -> ir::Server {
    let info = spec.root.get("info");
    let info_str = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let title = info_str("title").unwrap_or_else(|| name.clone());
    let upstream_url = allowlist.server.upstream_url.clone().or_else(|| {
        let url = match servers::default_url(&spec.root, "") {
            Ok(url) => url?,
            Err(problem) => {
                warnings.push(Warning {
                    location: format!("{}: {}", spec.path.display(), problem.pointer),
                    message: format!(
                        "{}; the server has no default upstream URL: set `server.upstream_url` \
                         in the allowlist or pass --upstream-url at run time",
                        problem.message
                    ),
                });
                return None;
            }
        };
        if !servers::is_absolute(&url) {
            warnings.push(Warning {
                location: format!("{}: /servers/0/url", spec.path.display()),
                message: format!(
                    "server URL `{url}` is relative; set `server.upstream_url` in the allowlist or pass --upstream-url at run time"
                ),
            });
        }
        Some(url)
    });
    let used: BTreeSet<&str> = tools
        .iter()
        .flat_map(|t| t.http.security.iter().map(String::as_str))
        .collect();
    let security_schemes = security_schemes(&spec.root, &used);
    ir::Server {
        version: allowlist
            .server
            .version
            .clone()
            .or_else(|| info_str("version"))
            .unwrap_or_else(|| "0.1.0".into()),
        description: allowlist
            .server
            .description
            .clone()
            .or_else(|| info_str("description"))
            .unwrap_or_else(|| title.clone()),
        title,
        name,
        upstream_url,
        security_schemes,
        tools,
        full_defs: ir::FullDefs::default(),
    }
}

pub(super) fn security_schemes(root: &Value, used: &BTreeSet<&str>) -> Vec<ir::SecurityScheme> {
    let Some(schemes) = root
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let mut out: Vec<ir::SecurityScheme> = schemes
        .iter()
        .filter(|(name, _)| used.contains(name.as_str()))
        .map(|(name, s)| {
            let get = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or_default();
            let kind = match (
                get("type"),
                get("in"),
                get("scheme").to_ascii_lowercase().as_str(),
            ) {
                ("apiKey", "header", _) => ir::SecurityKind::ApiKeyHeader(get("name").to_owned()),
                ("apiKey", "query", _) => ir::SecurityKind::ApiKeyQuery(get("name").to_owned()),
                ("apiKey", "cookie", _) => ir::SecurityKind::ApiKeyCookie(get("name").to_owned()),
                ("http", _, "bearer") => ir::SecurityKind::Bearer,
                ("http", _, "basic") => ir::SecurityKind::Basic,
                ("oauth2" | "openIdConnect", _, _) => ir::SecurityKind::OAuth2,
                _ => ir::SecurityKind::Other,
            };
            ir::SecurityScheme {
                name: name.clone(),
                kind,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oauth2_and_openid_connect_schemes_are_bearer_tokens_of_oauth() {
        let root = serde_json::json!({"components": {"securitySchemes": {
            "bearer": {"type": "http", "scheme": "Bearer"},
            "oauth": {"type": "oauth2", "flows": {}},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://as.example/.well-known/openid-configuration"},
            "tls": {"type": "mutualTLS"},
            "unused": {"type": "oauth2", "flows": {}}
        }}});
        let used = BTreeSet::from(["bearer", "oauth", "oidc", "tls"]);
        let kinds: Vec<(String, ir::SecurityKind)> = security_schemes(&root, &used)
            .into_iter()
            .map(|s| (s.name, s.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("bearer".to_owned(), ir::SecurityKind::Bearer),
                ("oauth".to_owned(), ir::SecurityKind::OAuth2),
                ("oidc".to_owned(), ir::SecurityKind::OAuth2),
                ("tls".to_owned(), ir::SecurityKind::Other),
            ]
        );
    }
}
