//! The API's security schemes as error messages name them.

use mcpgen_core::tool::SecuritySchemeKind;

use super::App;

/// `; the API's schemes: a (apiKey in header `X-Key`), …` for error messages.
pub(super) fn scheme_hint(app: &App) -> String {
    if app.security_schemes.is_empty() {
        return "; the API declares no security schemes".to_owned();
    }
    let schemes: Vec<String> = app
        .security_schemes
        .iter()
        .map(|s| {
            let kind = match s.kind {
                SecuritySchemeKind::ApiKeyHeader(name) => format!("apiKey in header `{name}`"),
                SecuritySchemeKind::ApiKeyQuery(name) => format!("apiKey in query `{name}`"),
                SecuritySchemeKind::ApiKeyCookie(name) => format!("apiKey in cookie `{name}`"),
                SecuritySchemeKind::Bearer => "HTTP bearer: use --upstream-bearer".to_owned(),
                SecuritySchemeKind::Basic => "HTTP basic: use --upstream-basic".to_owned(),
                SecuritySchemeKind::OAuth2 => {
                    "OAuth 2: use --upstream-bearer or --upstream-token-exchange".to_owned()
                }
                SecuritySchemeKind::Other => "not supported for configured credentials".to_owned(),
            };
            format!("`{}` ({kind})", s.name)
        })
        .collect();
    format!("; the API's schemes: {}", schemes.join(", "))
}
