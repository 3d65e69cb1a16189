//! Flag values read from text: byte counts, rates, and the request-state key file.

pub(super) fn parse_positive_bytes(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a positive number of bytes")),
    }
}

/// A rate limit as written on the command line: calls per second, and how many may come at
/// once (one window's worth).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateSpec {
    /// Sustained calls per second.
    pub per_second: f64,
    /// Calls let through at once.
    pub burst: f64,
}

/// `N/s`, `N/min`, `N/h` (or a bare `N`, per second).
pub fn parse_rate(s: &str) -> Result<RateSpec, String> {
    let text = s.trim();
    let (count, window) = match text.split_once('/') {
        Some((count, unit)) => {
            let window = match unit.trim().to_ascii_lowercase().as_str() {
                "s" | "sec" | "second" => 1.0,
                "m" | "min" | "minute" => 60.0,
                "h" | "hour" => 3600.0,
                _ => f64::NAN,
            };
            (count.trim(), window)
        }
        None => (text, 1.0),
    };
    match count.parse::<f64>() {
        Ok(n) if n > 0.0 && n.is_finite() && window.is_finite() => Ok(RateSpec {
            per_second: n / window,
            burst: n.max(1.0),
        }),
        _ => Err(format!(
            "`{s}` is not a rate; write calls per second, minute or hour, e.g. `10/s`, \
             `10/min`, `100/h`"
        )),
    }
}

/// The request state keys in the file at `path`: one per line (the first seals), without
/// surrounding whitespace.
pub(super) fn request_state_keys(path: &std::path::Path) -> Result<Vec<Vec<u8>>, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("--request-state-key-file {}: {e}", path.display()))?;
    let mut keys = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let key = line.trim_ascii();
        if key.is_empty() {
            continue;
        }
        if key.len() < mcpgen_contract::input::MIN_KEY_BYTES {
            return Err(format!(
                "--request-state-key-file {} line {}: the key has {} bytes, at least {} are needed \
                 (e.g. `openssl rand -hex 32 > FILE`)",
                path.display(),
                i + 1,
                key.len(),
                mcpgen_contract::input::MIN_KEY_BYTES
            ));
        }
        keys.push(key.to_vec());
    }
    if keys.is_empty() {
        return Err(format!(
            "--request-state-key-file {}: the file holds no key (e.g. `openssl rand -hex 32 > FILE`)",
            path.display()
        ));
    }
    Ok(keys)
}
