//! API keys from a keys file, signed tokens, and the chain over both; and what the principal
//! they yield may call.

use std::time::{Duration, SystemTime};

use futures::executor::block_on;
use mcpgen_runtime::auth::{
    AuthChain, AuthError, Authenticator, KeyFileError, KeyProblem, KeyStore, MIN_SECRET_LEN,
    TokenAuthority, TokenClaims, TokenConfigError, hash_key,
};
use mcpgen_runtime::{Access, Principal, ToolAnnotations, ToolDef};

use crate::support::child::ran_in_child_with;

const ALICE_KEY: &str = "alice-secret-key-0123456789";
const DEV_KEY: &str = "let-me-in";

fn keys_yaml() -> String {
    format!(
        "keys:
  - id: alice-laptop
    key_sha256: {}
    principal: alice
    scopes: [mcp:read, 'mcp:tool:send_message']
    plugins: [billing]
    rate_limit: 2.5
  - id: dev
    key: {DEV_KEY}
    principal: developer
    scopes: ['mcp:*']
",
        hash_key(ALICE_KEY).to_uppercase()
    )
}

fn problems(text: &str) -> Vec<KeyProblem> {
    match KeyStore::from_yaml(text, "keys.yaml") {
        Ok(store) => panic!("expected an error, got {store:?}"),
        Err(KeyFileError::Invalid { path, problems }) => {
            assert_eq!(path.to_str(), Some("keys.yaml"));
            problems
        }
        Err(other) => panic!("expected Invalid, got {other}"),
    }
}

fn only_problem(text: &str) -> KeyProblem {
    let mut all = problems(text);
    assert_eq!(all.len(), 1, "{all:#?}");
    all.remove(0)
}

#[test]
fn hash_key_is_hex_sha256() {
    assert_eq!(
        hash_key("test"),
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    );
}

#[test]
fn valid_keys_file_loads_and_matches() {
    let store = KeyStore::from_yaml(&keys_yaml(), "keys.yaml").unwrap();
    assert_eq!(store.len(), 2);
    assert_eq!(store.ids().collect::<Vec<_>>(), ["alice-laptop", "dev"]);
    assert_eq!(store.plain_key_ids(), ["dev"]);

    let alice = store.lookup(Some(ALICE_KEY)).unwrap();
    assert_eq!(alice.id, "alice");
    assert_eq!(alice.key_id.as_deref(), Some("alice-laptop"));
    assert_eq!(alice.scopes, ["mcp:read", "mcp:tool:send_message"]);
    assert_eq!(alice.plugins, ["billing"]);
    assert_eq!(alice.rate_limit, Some(2.5));

    let dev = store.lookup(Some(DEV_KEY)).unwrap();
    assert_eq!(dev.id, "developer");
    assert_eq!(dev.key_id.as_deref(), Some("dev"));
    assert_eq!(dev.rate_limit, None);
    assert!(dev.plugins.is_empty());
}

#[test]
fn wrong_or_missing_key_is_refused() {
    let store = KeyStore::from_yaml(&keys_yaml(), "keys.yaml").unwrap();
    assert_eq!(store.lookup(None), Err(AuthError::Missing));
    assert_eq!(store.lookup(Some("")), Err(AuthError::Invalid));
    assert_eq!(
        store.lookup(Some("alice-secret-key-012345678")),
        Err(AuthError::Invalid)
    );
    assert_eq!(
        store.lookup(Some(&format!("{ALICE_KEY} "))),
        Err(AuthError::Invalid)
    );
    // The digest itself is not a key.
    assert_eq!(
        store.lookup(Some(&hash_key(ALICE_KEY))),
        Err(AuthError::Invalid)
    );
}

#[test]
fn load_reads_a_file_and_names_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.yaml");
    std::fs::write(&path, keys_yaml()).unwrap();
    let store = KeyStore::load(&path).unwrap();
    assert!(store.lookup(Some(ALICE_KEY)).is_ok());

    let missing = dir.path().join("nope.yaml");
    let err = KeyStore::load(&missing).unwrap_err();
    assert!(matches!(err, KeyFileError::Read { .. }));
    assert!(err.to_string().contains("nope.yaml"), "{err}");
}

#[test]
fn duplicate_id_names_both_places() {
    let text = "keys:
  - id: a
    key: one
    principal: p
    scopes: [mcp:read]
  - id: a
    key: two
    principal: p
    scopes: [mcp:read]
";
    let problem = only_problem(text);
    assert_eq!(problem.key_id.as_deref(), Some("a"));
    assert_eq!((problem.line, problem.column), (Some(6), Some(9)));
    assert!(problem.message.contains("duplicate id"), "{problem}");
    assert!(problem.message.contains("line 2"), "{problem}");
}

#[test]
fn both_key_and_digest_is_refused() {
    let text = format!(
        "keys:
  - id: both
    key_sha256: {}
    key: plain
    principal: p
    scopes: [mcp:read]
",
        hash_key("plain")
    );
    let problem = only_problem(&text);
    assert_eq!(problem.key_id.as_deref(), Some("both"));
    assert_eq!(problem.line, Some(4));
    assert!(
        problem.message.contains("both `key` and `key_sha256`"),
        "{problem}"
    );
}

#[test]
fn neither_key_nor_digest_is_refused() {
    let text = "keys:
  - id: none
    principal: p
    scopes: [mcp:read]
";
    let problem = only_problem(text);
    assert_eq!(problem.key_id.as_deref(), Some("none"));
    assert_eq!(problem.line, Some(2));
    assert!(
        problem.message.contains("neither `key_sha256` nor `key`"),
        "{problem}"
    );
    assert!(problem.message.contains("sha256sum"), "{problem}");
}

#[test]
fn malformed_hex_is_refused_with_its_location() {
    let short = only_problem(
        "keys:
  - id: short
    key_sha256: abc123
    principal: p
    scopes: [mcp:read]
",
    );
    assert_eq!(short.key_id.as_deref(), Some("short"));
    assert_eq!((short.line, short.column), (Some(3), Some(17)));
    assert!(short.message.contains("6 hex digits, not 64"), "{short}");

    let not_hex = only_problem(&format!(
        "keys:\n  - id: zed\n    key_sha256: {}z\n    principal: p\n    scopes: [mcp:read]\n",
        &hash_key("x")[..63]
    ));
    assert_eq!(not_hex.line, Some(3));
    assert!(not_hex.message.contains("'z' at position 64"), "{not_hex}");
}

#[test]
fn empty_scopes_are_refused_with_the_fix() {
    for scopes in ["    scopes: []\n", ""] {
        let text = format!("keys:\n  - id: nothing\n    key: k\n    principal: p\n{scopes}");
        let problem = only_problem(&text);
        assert_eq!(problem.key_id.as_deref(), Some("nothing"));
        assert!(problem.line.is_some(), "{problem:?}");
        assert!(
            problem.message.contains(
                "a key with no scopes can call nothing; add mcp:read, mcp:write or mcp:*"
            ),
            "{problem}"
        );
    }
}

#[test]
fn all_problems_are_reported_together() {
    let text = "keys:
  - id: a
    principal: p
    scopes: []
  - id: b
    key: k
    principal: p
    scopes: [mcp:read]
    rate_limit: 0
";
    let err = KeyStore::from_yaml(text, "conf/keys.yaml").unwrap_err();
    let KeyFileError::Invalid { problems, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(problems.len(), 3, "{problems:#?}");
    let rendered = err.to_string();
    assert!(
        rendered.starts_with("keys file conf/keys.yaml has 3 problems:"),
        "{rendered}"
    );
    assert!(rendered.contains("conf/keys.yaml:2:"), "{rendered}");
    assert!(
        rendered.contains("conf/keys.yaml:9:17: key `b`: `rate_limit` is 0"),
        "{rendered}"
    );
}

#[test]
fn same_key_under_two_ids_is_refused() {
    let text = format!(
        "keys:
  - id: one
    key: shared
    principal: p
    scopes: [mcp:read]
  - id: two
    key_sha256: {}
    principal: q
    scopes: [mcp:read]
",
        hash_key("shared")
    );
    let problem = only_problem(&text);
    assert_eq!(problem.key_id.as_deref(), Some("two"));
    assert!(problem.message.contains("same key as `one`"), "{problem}");
}

#[test]
fn yaml_errors_carry_line_and_column() {
    let unknown_field = only_problem(
        "keys:
  - id: a
    key: k
    principal: p
    scope: [mcp:read]
",
    );
    assert_eq!(unknown_field.line, Some(5), "{unknown_field:?}");
    assert!(unknown_field.column.is_some());
    assert!(unknown_field.message.contains("scope"), "{unknown_field}");

    let wrong_type = only_problem(
        "keys:
  - id: a
    key: k
    principal: p
    scopes: mcp:read
",
    );
    assert_eq!(wrong_type.line, Some(5), "{wrong_type:?}");

    let empty = only_problem("  \n");
    assert!(empty.message.contains("empty"), "{empty}");
}

#[test]
fn errors_never_show_a_plain_key() {
    let text = "keys:
  - id: a
    key: hunter2-hunter2
    principal: p
    scopes: []
  - id: a
    key: hunter2-hunter2
    principal: ''
    scopes: [mcp:read]
";
    let rendered = KeyStore::from_yaml(text, "keys.yaml")
        .unwrap_err()
        .to_string();
    assert!(!rendered.contains("hunter2"), "{rendered}");
}

const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

fn authority() -> TokenAuthority {
    TokenAuthority::new(SECRET, "billing-mcp").unwrap()
}

fn scopes() -> Vec<String> {
    vec!["mcp:read".to_owned(), "mcp:tool:refund".to_owned()]
}

#[test]
fn valid_token_yields_its_principal() {
    let authority = authority();
    let token = authority.issue("ci-bot", &scopes(), Duration::from_secs(60));
    assert!(token.starts_with("mcpgen1."));
    assert_eq!(token.matches('.').count(), 2);

    let principal = authority.verify(&token, SystemTime::now()).unwrap();
    assert_eq!(principal.id, "ci-bot");
    assert_eq!(principal.key_id.as_deref(), Some("token:ci-bot"));
    assert_eq!(principal.scopes, scopes());
    assert!(principal.plugins.is_empty());
    assert_eq!(
        block_on(authority.authenticate(Some(&token))),
        Ok(principal)
    );
    assert_eq!(
        block_on(authority.authenticate(None)),
        Err(AuthError::Missing)
    );
}

#[test]
fn signed_claims_carry_plugins_and_token_id() {
    let authority = authority();
    let token = authority.sign(&TokenClaims {
        sub: "svc".to_owned(),
        scopes: scopes(),
        plugins: vec!["billing".to_owned()],
        aud: "billing-mcp".to_owned(),
        iat: 1_000,
        exp: 2_000,
        jti: Some("tok-42".to_owned()),
    });
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_500);
    let principal = authority.verify(&token, at).unwrap();
    assert_eq!(principal.key_id.as_deref(), Some("tok-42"));
    assert_eq!(principal.plugins, ["billing"]);
    assert_eq!(authority.decode(&token).unwrap().iat, 1_000);
}

#[test]
fn expired_token_is_refused_from_exp_on() {
    let authority = authority();
    let token = authority.issue("ci-bot", &scopes(), Duration::from_secs(60));
    let exp = authority.decode(&token).unwrap().exp;
    let at = |secs| SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
    assert!(authority.verify(&token, at(exp - 1)).is_ok());
    assert_eq!(authority.verify(&token, at(exp)), Err(AuthError::Expired));
    assert_eq!(
        authority.verify(&token, at(exp + 3600)),
        Err(AuthError::Expired)
    );
}

#[test]
fn tampered_payload_is_refused() {
    let authority = authority();
    let token = authority.issue("ci-bot", &scopes(), Duration::from_secs(60));
    let (head, signature) = token.rsplit_once('.').unwrap();
    let payload = head.strip_prefix("mcpgen1.").unwrap();

    // Re-encode the payload with more scopes, keeping the signature.
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut claims: TokenClaims = serde_json::from_slice(&engine.decode(payload).unwrap()).unwrap();
    claims.scopes = vec!["mcp:*".to_owned()];
    let forged = format!(
        "mcpgen1.{}.{signature}",
        engine.encode(serde_json::to_vec(&claims).unwrap())
    );
    assert_eq!(
        authority.verify(&forged, SystemTime::now()),
        Err(AuthError::Invalid)
    );

    // A single flipped character in the payload.
    let mut bytes = token.clone().into_bytes();
    bytes[10] = if bytes[10] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(bytes).unwrap();
    assert_eq!(
        authority.verify(&flipped, SystemTime::now()),
        Err(AuthError::Invalid)
    );
}

#[test]
fn tampered_signature_is_refused() {
    let authority = authority();
    let token = authority.issue("ci-bot", &scopes(), Duration::from_secs(60));
    let (head, signature) = token.rsplit_once('.').unwrap();
    let mut sig = signature.to_owned().into_bytes();
    sig[0] = if sig[0] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{head}.{}", String::from_utf8(sig).unwrap());
    assert_eq!(
        authority.verify(&tampered, SystemTime::now()),
        Err(AuthError::Invalid)
    );

    for broken in [
        format!("{head}."),
        head.to_owned(),
        format!("{head}.{signature}.x"),
        token.replacen("mcpgen1.", "mcpgen2.", 1),
        String::new(),
    ] {
        assert_eq!(
            authority.verify(&broken, SystemTime::now()),
            Err(AuthError::Invalid),
            "{broken}"
        );
    }

    // Signed with another secret.
    let other = TokenAuthority::new(b"another secret, also 32 bytes ok", "billing-mcp").unwrap();
    let foreign = other.issue("ci-bot", &scopes(), Duration::from_secs(60));
    assert_eq!(
        authority.verify(&foreign, SystemTime::now()),
        Err(AuthError::Invalid)
    );
}

#[test]
fn wrong_audience_is_refused() {
    let other = TokenAuthority::new(SECRET, "crm-mcp").unwrap();
    let token = other.issue("ci-bot", &scopes(), Duration::from_secs(60));
    assert_eq!(
        authority().verify(&token, SystemTime::now()),
        Err(AuthError::WrongAudience)
    );
}

#[test]
fn empty_secret_or_audience_is_refused() {
    assert_eq!(
        TokenAuthority::new(b"", "a").unwrap_err(),
        TokenConfigError::EmptySecret
    );
    assert_eq!(
        TokenAuthority::new(SECRET, " ").unwrap_err(),
        TokenConfigError::EmptyAudience
    );
}

#[test]
fn from_env_requires_a_long_enough_secret() {
    let short_value = "too-short-secret";
    let good = std::str::from_utf8(SECRET).unwrap();
    if ran_in_child_with(
        "auth::from_env_requires_a_long_enough_secret",
        &[
            ("MCPGEN_TEST_AUTH_SHORT_SECRET", short_value),
            ("MCPGEN_TEST_AUTH_GOOD_SECRET", good),
        ],
    ) {
        return;
    }
    let missing = TokenAuthority::from_env("MCPGEN_TEST_AUTH_MISSING_SECRET", "a").unwrap_err();
    assert_eq!(
        missing,
        TokenConfigError::EnvMissing {
            var: "MCPGEN_TEST_AUTH_MISSING_SECRET".to_owned()
        }
    );
    assert!(missing.to_string().contains("is not set"), "{missing}");

    let short = TokenAuthority::from_env("MCPGEN_TEST_AUTH_SHORT_SECRET", "a").unwrap_err();
    assert_eq!(
        short,
        TokenConfigError::EnvTooShort {
            var: "MCPGEN_TEST_AUTH_SHORT_SECRET".to_owned(),
            len: short_value.len()
        }
    );
    let message = short.to_string();
    assert!(message.contains(&MIN_SECRET_LEN.to_string()), "{message}");
    assert!(!message.contains(short_value), "{message}");

    let from_env = TokenAuthority::from_env("MCPGEN_TEST_AUTH_GOOD_SECRET", "billing-mcp").unwrap();
    let token = authority().issue("ci-bot", &scopes(), Duration::from_secs(60));
    assert!(from_env.verify(&token, SystemTime::now()).is_ok());
}

#[test]
fn chain_accepts_keys_and_tokens() {
    let store = KeyStore::from_yaml(&keys_yaml(), "keys.yaml").unwrap();
    let chain = AuthChain::new().with(store).with(authority());

    assert_eq!(
        block_on(chain.authenticate(Some(ALICE_KEY))).unwrap().id,
        "alice"
    );
    let token = authority().issue("ci-bot", &scopes(), Duration::from_secs(60));
    assert_eq!(
        block_on(chain.authenticate(Some(&token))).unwrap().id,
        "ci-bot"
    );

    assert_eq!(block_on(chain.authenticate(None)), Err(AuthError::Missing));
    assert_eq!(
        block_on(chain.authenticate(Some("nope"))),
        Err(AuthError::Invalid)
    );

    let foreign = TokenAuthority::new(SECRET, "crm-mcp").unwrap().issue(
        "ci-bot",
        &scopes(),
        Duration::from_secs(60),
    );
    assert_eq!(
        block_on(chain.authenticate(Some(&foreign))),
        Err(AuthError::WrongAudience)
    );

    let expired = authority().sign(&TokenClaims {
        sub: "ci-bot".to_owned(),
        scopes: scopes(),
        plugins: vec![],
        aud: "billing-mcp".to_owned(),
        iat: 1,
        exp: 2,
        jti: None,
    });
    assert_eq!(
        block_on(chain.authenticate(Some(&expired))),
        Err(AuthError::Expired)
    );
}

// ---------------------------------------------------------------------------------------------
// Authorization: a tool's access decides between `mcp:read` and `mcp:write`; annotations are
// hints and never grant anything.

/// A tool with `access` and a `readOnlyHint` of `read_only_hint`.
fn tool_with(access: Access, read_only_hint: Option<bool>) -> ToolDef {
    ToolDef {
        name: "search_documents",
        title: None,
        description: "Search the documents",
        input_schema: r#"{"type":"object"}"#,
        output_schema: None,
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: false,
        access,
        annotations: ToolAnnotations {
            read_only_hint,
            ..ToolAnnotations::default()
        },
        confirm: false,
        required_scope: None,
        plugin: None,
        http: None,
        declaration: None,
        view: None,
    }
}

fn principal(scopes: &[&str]) -> Principal {
    Principal {
        id: "p".to_owned(),
        key_id: None,
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        plugins: Vec::new(),
        rate_limit: None,
    }
}

#[test]
fn read_access_is_granted_by_mcp_read_whatever_the_hints_say() {
    let reader = principal(&["mcp:read"]);
    let writer = principal(&["mcp:write"]);
    for hint in [Some(true), Some(false), None] {
        let tool = tool_with(Access::Read, hint);
        assert!(reader.may_call(&tool), "read tool, readOnlyHint {hint:?}");
        assert!(!writer.may_call(&tool), "read tool, readOnlyHint {hint:?}");
    }
}

#[test]
fn a_read_only_hint_does_not_open_a_write_tool_to_mcp_read() {
    let reader = principal(&["mcp:read"]);
    let writer = principal(&["mcp:write"]);
    for hint in [Some(true), Some(false), None] {
        let tool = tool_with(Access::Write, hint);
        assert!(!reader.may_call(&tool), "write tool, readOnlyHint {hint:?}");
        assert!(writer.may_call(&tool), "write tool, readOnlyHint {hint:?}");
    }
}

#[test]
fn all_tools_and_named_tool_scopes_ignore_access() {
    for access in [Access::Read, Access::Write] {
        let tool = tool_with(access, None);
        assert!(principal(&["mcp:*"]).may_call(&tool));
        assert!(principal(&["mcp:tool:search_documents"]).may_call(&tool));
        assert!(!principal(&["mcp:tool:other"]).may_call(&tool));
    }
}

#[test]
fn rotated_token_secrets_sign_with_the_first_and_verify_with_all() {
    const OLD_VAR: &str = "MCPGEN_TEST_ROTATION_OLD_SECRET";
    const NEW_VAR: &str = "MCPGEN_TEST_ROTATION_NEW_SECRET";
    let old_secret = "an old token secret of at least thirty-two bytes";
    let new_secret = "a new token secret of at least thirty-two bytes!";
    if ran_in_child_with(
        "auth::rotated_token_secrets_sign_with_the_first_and_verify_with_all",
        &[(OLD_VAR, old_secret), (NEW_VAR, new_secret)],
    ) {
        return;
    }
    let rotated =
        TokenAuthority::from_env_all(&[NEW_VAR.to_owned(), OLD_VAR.to_owned()], "billing-mcp")
            .unwrap();
    let old = TokenAuthority::new(old_secret.as_bytes(), "billing-mcp").unwrap();
    let new = TokenAuthority::new(new_secret.as_bytes(), "billing-mcp").unwrap();
    let stranger = TokenAuthority::new(&[9u8; 32], "billing-mcp").unwrap();
    let now = SystemTime::now();
    for (who, signer) in [("old", &old), ("new", &new)] {
        let token = signer.issue(who, &scopes(), Duration::from_secs(60));
        assert_eq!(rotated.verify(&token, now).unwrap().id, who);
    }
    let foreign = stranger.issue("mallory", &scopes(), Duration::from_secs(60));
    assert_eq!(rotated.verify(&foreign, now), Err(AuthError::Invalid));
    // The newest secret signs.
    let issued = rotated.issue("ci", &scopes(), Duration::from_secs(60));
    assert!(new.verify(&issued, now).is_ok());
    assert_eq!(old.verify(&issued, now), Err(AuthError::Invalid));
    // A missing or short variable is named.
    let missing = TokenAuthority::from_env_all(
        &[NEW_VAR.to_owned(), "MCPGEN_TEST_ROTATION_UNSET".to_owned()],
        "billing-mcp",
    );
    assert!(
        matches!(missing, Err(TokenConfigError::EnvMissing { var }) if var == "MCPGEN_TEST_ROTATION_UNSET")
    );
}
