//! One RFC 8693 token exchange at the authorization server's token endpoint: the form sent,
//! and the answer read under a size cap and checked.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::header::HeaderValue;
use serde_json::Value;
use url::Url;

/// The grant type of a token exchange.
const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// The token type of the subject token, and of the token asked for.
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

/// Largest answer read from the token endpoint, in bytes.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Longest issued token accepted, in bytes.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// How long an issued token is used when the answer gives no `expires_in` and the token has
/// no readable `exp`.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(60);

/// What is asked for, and as whom.
pub(super) struct Ask<'a> {
    /// The token endpoint.
    pub(super) endpoint: &'a Url,
    /// This server's client id at the authorization server.
    pub(super) client_id: &'a str,
    /// Its secret (HTTP basic); without one, `client_id` goes in the form.
    pub(super) client_secret: Option<&'a str>,
    /// `audience` of the token asked for.
    pub(super) audience: &'a str,
    /// `resource` of the token asked for (the API's base URL).
    pub(super) resource: &'a str,
}

/// A token the authorization server issued.
pub(super) struct Issued {
    /// `Bearer <token>`, marked sensitive.
    pub(super) authorization: HeaderValue,
    /// How long it may be used, from when it was received.
    pub(super) lifetime: Duration,
}

/// Exchanges `subject_token` at `ask.endpoint`. Fails with a message for the caller that
/// never holds a token.
pub(super) async fn exchange(
    client: &reqwest::Client,
    ask: &Ask<'_>,
    subject_token: &str,
) -> Result<Issued, String> {
    let mut request = client
        .post(ask.endpoint.clone())
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(form(ask, subject_token));
    if let Some(secret) = ask.client_secret {
        request = request.basic_auth(ask.client_id, Some(secret));
    }
    let endpoint = ask.endpoint;
    let mut response = request.send().await.map_err(|e| {
        let why = if e.is_timeout() {
            "it did not answer in time".to_owned()
        } else {
            without_url(&e)
        };
        format!("the authorization server's token endpoint `{endpoint}` cannot be reached: {why}")
    })?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        format!(
            "the answer of the token endpoint `{endpoint}` broke off: {}",
            without_url(&e)
        )
    })? {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(format!(
                "the token endpoint `{endpoint}` answered with more than {MAX_ANSWER_BYTES} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    let answer: Option<Value> = serde_json::from_slice(&body).ok();
    if !status.is_success() {
        return Err(refusal(endpoint, status, answer.as_ref()));
    }
    let answer = answer.ok_or_else(|| {
        format!("the token endpoint `{endpoint}` answered {status} with something not JSON")
    })?;
    issued(&answer).map_err(|why| format!("the token endpoint `{endpoint}` answered {why}"))
}

/// The form of the exchange: the subject token for an access token for the API, with the
/// client id when there is no secret to authenticate with.
fn form(ask: &Ask<'_>, subject_token: &str) -> String {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    form.append_pair("grant_type", GRANT_TYPE)
        .append_pair("subject_token", subject_token)
        .append_pair("subject_token_type", ACCESS_TOKEN_TYPE)
        .append_pair("requested_token_type", ACCESS_TOKEN_TYPE)
        .append_pair("audience", ask.audience)
        .append_pair("resource", ask.resource);
    if ask.client_secret.is_none() {
        form.append_pair("client_id", ask.client_id);
    }
    form.finish()
}

/// The error of a token endpoint that answered `status` (not 2xx), with its `error` and
/// `error_description` (or a problem document's `detail`) when it gave them.
fn refusal(endpoint: &Url, status: reqwest::StatusCode, answer: Option<&Value>) -> String {
    let field = |name| {
        answer
            .and_then(|a| a.get(name))
            .and_then(Value::as_str)
            .map(printable)
            .filter(|s| !s.is_empty())
    };
    if !status.is_client_error() {
        return format!("the token endpoint `{endpoint}` answered {status}");
    }
    let error = field("error").map_or_else(String::new, |e| format!(", `{e}`"));
    let detail = field("error_description")
        .or_else(|| field("detail"))
        .map_or_else(String::new, |d| format!(": {d}"));
    format!("the authorization server refused the exchange ({status}{error}{detail})")
}

/// The issued token of a successful answer, checked.
fn issued(answer: &Value) -> Result<Issued, String> {
    let token = answer
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or("without an `access_token`")?;
    if let Some(kind) = answer.get("token_type").and_then(Value::as_str)
        && !kind.eq_ignore_ascii_case("bearer")
    {
        return Err(format!(
            "with a token of type `{}`, not a bearer token",
            printable(kind)
        ));
    }
    if token.len() > MAX_TOKEN_BYTES {
        return Err(format!("with a token longer than {MAX_TOKEN_BYTES} bytes"));
    }
    let mut authorization = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| "with a token that cannot be sent in a header".to_owned())?;
    authorization.set_sensitive(true);
    let lifetime = match answer.get("expires_in") {
        Some(Value::Number(n)) => n.as_u64().map(Duration::from_secs),
        Some(Value::String(s)) => s.trim().parse().ok().map(Duration::from_secs),
        _ => None,
    }
    .or_else(|| jwt_lifetime(token))
    .unwrap_or(DEFAULT_LIFETIME);
    Ok(Issued {
        authorization,
        lifetime,
    })
}

/// What is left of a JWT's life by its (unverified) `exp`: only to know how long to keep a
/// token the answer gave no `expires_in` for.
fn jwt_lifetime(token: &str) -> Option<Duration> {
    let payload = token.split('.').nth(1)?;
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    let exp = claims.get("exp")?.as_u64()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(exp.saturating_sub(now)))
}

/// Text from the authorization server, safe to show: no control characters, at most 300
/// characters.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(300).collect()
}

/// A request error's innermost cause (reqwest's own message repeats the URL, which the
/// caller names already).
fn without_url(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_gives_the_bearer_header_and_its_lifetime() {
        let got = issued(&json!({"access_token": "abc", "token_type": "Bearer", "expires_in": 90}))
            .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(got.authorization.to_str().ok(), Some("Bearer abc"));
        assert!(got.authorization.is_sensitive());
        assert_eq!(got.lifetime, Duration::from_secs(90));
    }

    #[test]
    fn without_expires_in_the_jwt_exp_or_a_minute_is_used() {
        let exp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
            + 300;
        let payload = URL_SAFE_NO_PAD.encode(json!({"exp": exp}).to_string());
        let jwt = format!("e30.{payload}.sig");
        let got = issued(&json!({"access_token": jwt})).unwrap_or_else(|e| unreachable!("{e}"));
        assert!(got.lifetime <= Duration::from_secs(300));
        assert!(got.lifetime >= Duration::from_secs(290));
        let opaque =
            issued(&json!({"access_token": "opaque"})).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(opaque.lifetime, DEFAULT_LIFETIME);
    }

    #[test]
    fn unusable_answers_are_refused() {
        for answer in [
            json!({}),
            json!({"access_token": ""}),
            json!({"access_token": "abc", "token_type": "N_A"}),
            json!({"access_token": "line\nbreak"}),
            json!({"access_token": "x".repeat(MAX_TOKEN_BYTES + 1)}),
        ] {
            assert!(issued(&answer).is_err(), "{answer}");
        }
    }

    #[test]
    fn a_refusal_names_the_error_and_its_description() {
        let endpoint = Url::parse("https://as.example/token").unwrap_or_else(|_| unreachable!());
        let answer = json!({"error": "invalid_grant", "error_description": "no\u{7}pe"});
        let text = refusal(&endpoint, reqwest::StatusCode::BAD_REQUEST, Some(&answer));
        assert_eq!(
            text,
            "the authorization server refused the exchange (400 Bad Request, `invalid_grant`: nope)"
        );
        let problem = json!({"title": "Bad Request", "detail": "Invalid grant type"});
        let text = refusal(&endpoint, reqwest::StatusCode::BAD_REQUEST, Some(&problem));
        assert_eq!(
            text,
            "the authorization server refused the exchange (400 Bad Request: Invalid grant type)"
        );
        let text = refusal(&endpoint, reqwest::StatusCode::BAD_GATEWAY, Some(&answer));
        assert!(text.contains("answered 502"), "{text}");
    }
}
