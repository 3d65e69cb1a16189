//! The API's security schemes as error messages name them.

use mcpgen_core::tool::SecuritySchemeKind;

use super::{App, ServeArgs};

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

/// One upstream credential setting: its flag, its variable and its MCP Bundle setting.
struct Setting {
    flag: &'static str,
    env: &'static str,
    bundle_key: &'static str,
    title: &'static str,
}

const API_KEY: Setting = Setting {
    flag: "--upstream-api-key",
    env: "MCPGEN_UPSTREAM_API_KEY",
    bundle_key: "upstream_api_key",
    title: "API key",
};

const BEARER: Setting = Setting {
    flag: "--upstream-bearer",
    env: "MCPGEN_UPSTREAM_BEARER",
    bundle_key: "upstream_bearer",
    title: "Bearer token",
};

const BASIC: Setting = Setting {
    flag: "--upstream-basic",
    env: "MCPGEN_UPSTREAM_BASIC",
    bundle_key: "upstream_basic",
    title: "User and password",
};

/// The upstream credentials the flags give, each left out when it was given empty or as an
/// unfilled `${user_config.…}` placeholder (an MCP Bundle whose setting was left blank).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Given<'a> {
    /// `--upstream-api-key`.
    pub(super) api_key: Option<&'a str>,
    /// `--upstream-bearer`.
    pub(super) bearer: Option<&'a str>,
    /// `--upstream-basic`.
    pub(super) basic: Option<&'a str>,
}

/// What is wrong with a credential's value, if anything: empty, or a placeholder a host did
/// not fill in.
fn blank(value: &str) -> Option<&'static str> {
    let value = value.trim();
    if value.is_empty() {
        Some("is empty")
    } else if value.contains("${user_config.") || (value.starts_with("${") && value.ends_with('}'))
    {
        Some("holds an unfilled placeholder (`${user_config.…}`)")
    } else {
        None
    }
}

/// The upstream credentials `args` give, as [`given_credentials`] checks them; callers' own
/// credentials count as another one when they are passed through.
pub(super) fn given_by(args: &ServeArgs) -> Result<Given<'_>, String> {
    given_credentials(
        args.upstream_api_key.as_deref(),
        args.upstream_bearer.as_deref(),
        args.upstream_basic.as_deref(),
        args.upstream_pass_through || args.key_check.key_check_url.is_some(),
    )
}

/// The credentials of `api_key`, `bearer` and `basic` as given. A blank one (empty, or an
/// unfilled `${user_config.…}`) is an error naming its flag, its variable and its bundle
/// setting, unless another credential was given (an MCP Bundle sets every credential's
/// variable, and the person fills in the one the API takes) or `others` (callers' own
/// credentials are passed through): the blank ones are then left out.
pub(super) fn given_credentials<'a>(
    api_key: Option<&'a str>,
    bearer: Option<&'a str>,
    basic: Option<&'a str>,
    others: bool,
) -> Result<Given<'a>, String> {
    let mut problems = Vec::new();
    let mut keep = |value: Option<&'a str>, setting: &Setting| {
        let value = value?;
        match blank(value) {
            None => Some(value),
            Some(why) => {
                problems.push(format!(
                    "{} ({}) {why}; in an MCP Bundle, fill in the setting \"{}\" \
                     (`{}`)",
                    setting.flag, setting.env, setting.title, setting.bundle_key
                ));
                None
            }
        }
    };
    let given = Given {
        api_key: keep(api_key, &API_KEY),
        bearer: keep(bearer, &BEARER),
        basic: keep(basic, &BASIC),
    };
    let any = given.api_key.is_some() || given.bearer.is_some() || given.basic.is_some();
    if problems.is_empty() || any || others {
        return Ok(given);
    }
    Err(format!(
        "no upstream credential to send: {}; or leave the variable unset to send none",
        problems.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_credential_stops_the_start_naming_its_setting() {
        for blank in ["", "  ", "${user_config.upstream_api_key}"] {
            let error = given_credentials(Some(blank), None, None, false).expect_err(blank);
            assert!(
                error.contains("--upstream-api-key (MCPGEN_UPSTREAM_API_KEY)"),
                "{error}"
            );
            assert!(
                error.contains("\"API key\" (`upstream_api_key`)"),
                "{error}"
            );
        }
        let error = given_credentials(None, Some(""), Some("${user_config.upstream_basic}"), false)
            .expect_err("both blank");
        assert!(
            error.contains("MCPGEN_UPSTREAM_BEARER) is empty"),
            "{error}"
        );
        assert!(
            error.contains("MCPGEN_UPSTREAM_BASIC) holds an unfilled"),
            "{error}"
        );
    }

    #[test]
    fn a_blank_credential_beside_a_given_one_is_left_out() {
        assert_eq!(
            given_credentials(Some("k-1"), None, Some(""), false),
            Ok(Given {
                api_key: Some("k-1"),
                ..Given::default()
            })
        );
        assert_eq!(
            given_credentials(Some(""), None, None, true),
            Ok(Given::default())
        );
        assert_eq!(
            given_credentials(None, None, None, false),
            Ok(Given::default())
        );
    }
}
