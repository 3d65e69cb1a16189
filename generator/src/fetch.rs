//! `--spec` given as an `http://` or `https://` URL.
//!
//! The document is downloaded into a temporary folder that mirrors the URL's path, so the
//! engine reads it like any local file. What a download may do is bounded:
//! - a timeout for each request and a size cap for the whole set of files;
//! - redirects are followed only to public addresses, unless `--allow-private-redirects`
//!   (the URL given on the command line may be any address: it is the user's own choice);
//! - `$ref`s to other files are refused unless `--allow-external-refs`, which fetches the
//!   relative ones from the same origin into the mirrored folder.
//!
//! The generated crate's header records the URL and the SHA-256 of the document.

use std::collections::{BTreeSet, VecDeque};
use std::net::{IpAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use mcpgen_codegen::spec::escape_pointer_segment;
use reqwest::Url;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// At most this many redirects per request.
const MAX_REDIRECTS: usize = 5;

/// At most this many files for one spec, the document included.
const MAX_FILES: usize = 500;

/// How a `--spec` URL is fetched.
#[derive(Args, Clone, Debug)]
pub(crate) struct FetchArgs {
    /// For a spec URL (--spec, or diff's OLD and NEW): seconds each request may take.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub(crate) spec_timeout: u64,
    /// For a spec URL (--spec, or diff's OLD and NEW): most bytes downloaded in all (the document
    /// and the files it refers to).
    #[arg(long, value_name = "BYTES", default_value_t = 128 * 1024 * 1024)]
    pub(crate) spec_max_bytes: u64,
    /// For a spec URL (--spec, or diff's OLD and NEW): follow redirects to loopback, private,
    /// link-local and other non-public addresses too (by default a redirect there is refused).
    #[arg(long)]
    pub(crate) allow_private_redirects: bool,
    /// For a spec URL (--spec, or diff's OLD and NEW): fetch the files that relative `$ref`s name,
    /// from the document's own origin (by default a `$ref` to another file is refused).
    #[arg(long)]
    pub(crate) allow_external_refs: bool,
}

impl Default for FetchArgs {
    fn default() -> Self {
        FetchArgs {
            spec_timeout: 30,
            spec_max_bytes: 128 * 1024 * 1024,
            allow_private_redirects: false,
            allow_external_refs: false,
        }
    }
}

/// A spec ready to read from disk: the file itself, or the downloaded copy of a URL.
pub(crate) struct SpecInput {
    path: PathBuf,
    label: Option<String>,
    /// Keeps the downloaded files until the spec is read.
    _folder: Option<tempfile::TempDir>,
}

impl SpecInput {
    /// The file to read.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// How the generated header names the spec: `URL (sha256 HEX)` for a URL, else `None`.
    pub(crate) fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }
}

/// `spec` as a local file, downloading it first when it is a URL.
pub(crate) fn resolve(spec: &Path, args: &FetchArgs) -> Result<SpecInput, String> {
    let Some(text) = spec
        .to_str()
        .filter(|s| s.starts_with("http://") || s.starts_with("https://"))
    else {
        return Ok(SpecInput {
            path: spec.to_owned(),
            label: None,
            _folder: None,
        });
    };
    let url = Url::parse(text).map_err(|e| format!("error: --spec {text}: not a URL: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("error: cannot start the HTTP client: {e}"))?;
    runtime.block_on(download(url, args))
}

async fn download(url: Url, args: &FetchArgs) -> Result<SpecInput, String> {
    let folder = tempfile::tempdir().map_err(|e| format!("error: temporary folder: {e}"))?;
    let allow_private = args.allow_private_redirects;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(args.spec_timeout))
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else if !allow_private && !is_public(attempt.url()) {
                let refused = format!(
                    "redirect to {} refused: not a public address (--allow-private-redirects \
                     allows it)",
                    attempt.url()
                );
                attempt.error(refused)
            } else {
                attempt.follow()
            }
        }))
        .build()
        .map_err(|e| format!("error: cannot start the HTTP client: {e}"))?;

    let mut budget = args.spec_max_bytes;
    // Relative refs resolve against where the document was found, after redirects.
    let (found, body) = get(&client, &url, &mut budget).await?;
    let label = format!("{url} (sha256 {})", hex::encode(Sha256::digest(&body)));
    let root = mirror_path(folder.path(), &found);
    write(&root, &body)?;

    let mut seen = BTreeSet::from([found.clone()]);
    let mut queue = VecDeque::from([(found.clone(), root.clone(), body)]);
    while let Some((file_url, file_path, body)) = queue.pop_front() {
        let text = String::from_utf8_lossy(&body);
        let Ok(doc) = mcpgen_codegen::spec::load::parse_document(&file_path, &text) else {
            continue; // the engine reports what does not parse, with its line
        };
        let mut refs = Vec::new();
        file_refs(&doc, "", &mut refs);
        for (pointer, reference) in refs {
            let target = file_url.join(&reference).map_err(|e| {
                format!("error: {file_url}: $ref `{reference}` at {pointer}: not a URL: {e}")
            })?;
            if !args.allow_external_refs {
                return Err(format!(
                    "error: {file_url}: $ref `{reference}` at {pointer} names another file; \
                     pass --allow-external-refs to fetch it from {}",
                    target.origin().ascii_serialization()
                ));
            }
            if target.origin() != found.origin() {
                return Err(format!(
                    "error: {file_url}: $ref `{reference}` at {pointer} is on another origin \
                     ({}); only the document's own origin is fetched",
                    target.origin().ascii_serialization()
                ));
            }
            let mut document = target.clone();
            document.set_fragment(None);
            if !seen.insert(document.clone()) {
                continue;
            }
            if seen.len() > MAX_FILES {
                return Err(format!(
                    "error: {url}: refers to more than {MAX_FILES} files; not fetched"
                ));
            }
            let (document, body) = get(&client, &document, &mut budget).await?;
            if document.origin() != found.origin() {
                return Err(format!(
                    "error: {file_url}: $ref `{reference}` redirected to another origin ({})",
                    document.origin().ascii_serialization()
                ));
            }
            let path = mirror_path(folder.path(), &document);
            write(&path, &body)?;
            queue.push_back((document, path, body));
        }
    }
    Ok(SpecInput {
        path: root,
        label: Some(label),
        _folder: Some(folder),
    })
}

/// GETs `url`, counting its bytes against `budget`; returns the URL the body came from
/// (after redirects) and the body.
async fn get(
    client: &reqwest::Client,
    url: &Url,
    budget: &mut u64,
) -> Result<(Url, Vec<u8>), String> {
    let failed = |e: reqwest::Error| {
        let mut message = format!("error: GET {url}: {e}");
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        message
    };
    let mut response = client.get(url.clone()).send().await.map_err(failed)?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("error: GET {url}: the server answered {status}"));
    }
    let too_big =
        || format!("error: GET {url}: more than --spec-max-bytes ({budget} bytes left of the cap)");
    if response.content_length().is_some_and(|n| n > *budget) {
        return Err(too_big());
    }
    let found = response.url().clone();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        if chunk.len() as u64 > *budget - body.len() as u64 {
            return Err(too_big());
        }
        body.extend_from_slice(&chunk);
    }
    *budget -= body.len() as u64;
    Ok((found, body))
}

/// Where the file at `url` goes in `folder`: `<host>/<path segments>`, each segment reduced
/// to safe characters (the `url` crate has already removed `.` and `..` segments).
fn mirror_path(folder: &Path, url: &Url) -> PathBuf {
    let mut path = folder.join(safe(url.host_str().unwrap_or("host")));
    let segments: Vec<&str> = url
        .path_segments()
        .map(|s| s.filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    if segments.is_empty() || url.path().ends_with('/') {
        path = segments.iter().fold(path, |p, s| p.join(safe(s)));
        return path.join("openapi");
    }
    segments.iter().fold(path, |p, s| p.join(safe(s)))
}

fn safe(segment: &str) -> String {
    let cleaned: String = segment
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match cleaned.as_str() {
        "" | "." | ".." => "_".to_owned(),
        _ => cleaned,
    }
}

fn write(path: &Path, body: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("error: {}: {e}", parent.display()))?;
    }
    std::fs::write(path, body).map_err(|e| format!("error: {}: {e}", path.display()))
}

/// The `$ref`s in `value` that name another file, with the JSON pointer of each. `x-`
/// extensions and examples are data, not references, and are skipped (a property that is
/// only named `example` is not).
fn file_refs(value: &Value, pointer: &str, out: &mut Vec<(String, String)>) {
    let in_properties = pointer.ends_with("/properties");
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && !reference.starts_with('#')
            {
                out.push((format!("{pointer}/$ref"), reference.clone()));
            }
            for (key, child) in map {
                let data = key.starts_with("x-") || key == "example" || key == "examples";
                if data && !in_properties {
                    continue;
                }
                let at = format!("{pointer}/{}", escape_pointer_segment(key));
                file_refs(child, &at, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                file_refs(child, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Whether every address `url`'s host stands for is public: not loopback, private,
/// link-local, unique-local, unspecified, documentation or shared (CGNAT) space. A host that
/// does not resolve counts as not public.
fn is_public(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => match (host, url.port_or_known_default().unwrap_or(443)).to_socket_addrs() {
            Ok(found) => found.map(|a| a.ip()).collect(),
            Err(_) => return false,
        },
    };
    !addresses.is_empty() && addresses.iter().all(|ip| public_ip(*ip))
}

fn public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)))
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public_ip(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_outside_the_public_internet_are_not_public() {
        for url in [
            "http://127.0.0.1/x",
            "http://10.1.2.3/",
            "http://192.168.0.1/",
            "http://169.254.169.254/latest",
            "http://100.64.0.1/",
            "http://[::1]/",
            "http://[fd00::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://0.0.0.0/",
            "http://localhost/",
        ] {
            assert!(!is_public(&Url::parse(url).unwrap()), "{url}");
        }
        for url in ["http://93.184.215.14/", "http://[2606:4700::1111]/"] {
            assert!(is_public(&Url::parse(url).unwrap()), "{url}");
        }
    }

    #[test]
    fn mirrored_paths_stay_inside_the_folder() {
        let folder = Path::new("/f");
        let cases = [
            (
                "https://api.example.com/api/doc.json",
                "/f/api.example.com/api/doc.json",
            ),
            ("https://api.example.com/", "/f/api.example.com/openapi"),
            ("https://h/a/../../../etc/passwd", "/f/h/etc/passwd"),
            ("https://h/a/%2e%2e/b", "/f/h/b"),
            ("https://h/a/%2F..%2Fb", "/f/h/a/_2F.._2Fb"),
            ("https://h/dir/", "/f/h/dir/openapi"),
        ];
        for (url, want) in cases {
            assert_eq!(
                mirror_path(folder, &Url::parse(url).unwrap()),
                PathBuf::from(want),
                "{url}"
            );
        }
    }

    #[test]
    fn refs_in_extensions_and_examples_are_data() {
        let doc = serde_json::json!({
            "a": {"$ref": "common.yaml#/X"},
            "b": {"$ref": "#/local"},
            "x-thing": {"$ref": "nope.yaml"},
            "example": {"$ref": "nope.yaml"},
            "c": [{"$ref": "../up/x~y.json"}],
            "properties": {"example": {"$ref": "prop.yaml"}}
        });
        let mut refs = Vec::new();
        file_refs(&doc, "", &mut refs);
        assert_eq!(
            refs,
            vec![
                ("/a/$ref".to_owned(), "common.yaml#/X".to_owned()),
                ("/c/0/$ref".to_owned(), "../up/x~y.json".to_owned()),
                (
                    "/properties/example/$ref".to_owned(),
                    "prop.yaml".to_owned()
                ),
            ]
        );
    }
}
