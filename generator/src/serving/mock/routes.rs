//! Which operation a request is for: its path matched against the spec's path templates, then
//! its method against the operations of the template that matched.

use percent_encoding::percent_decode_str;

/// One piece of a path segment: literal text or a `{name}`.
#[derive(Debug, PartialEq)]
enum Piece {
    Literal(String),
    Param(String),
}

/// A path template, split into segments of pieces.
#[derive(Debug)]
pub(crate) struct Template {
    segments: Vec<Vec<Piece>>,
}

/// What a request path and method find.
#[derive(Debug, PartialEq)]
pub(crate) enum Found {
    /// The operation at this index of the routes, with the path parameters (decoded).
    Operation(usize, Vec<(String, String)>),
    /// No template matches the path.
    NoPath,
    /// A template matches, but none of its operations has the method; the methods it has.
    NoMethod(Vec<String>),
}

impl Template {
    /// `/tickets/{id}/comments` → its segments.
    pub(crate) fn parse(template: &str) -> Template {
        let segments = template
            .trim_start_matches('/')
            .split('/')
            .map(|segment| {
                let mut pieces = Vec::new();
                let mut rest = segment;
                while let Some(open) = rest.find('{') {
                    let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                        break;
                    };
                    if open > 0 {
                        pieces.push(Piece::Literal(rest[..open].to_owned()));
                    }
                    pieces.push(Piece::Param(rest[open + 1..close].to_owned()));
                    rest = &rest[close + 1..];
                }
                if !rest.is_empty() || pieces.is_empty() {
                    pieces.push(Piece::Literal(rest.to_owned()));
                }
                pieces
            })
            .collect();
        Template { segments }
    }

    /// The path parameters of `segments` (as sent, still percent-encoded) when the template
    /// matches them.
    fn matches(&self, segments: &[&str]) -> Option<Vec<(String, String)>> {
        if segments.len() != self.segments.len() {
            return None;
        }
        let mut params = Vec::new();
        for (pieces, segment) in self.segments.iter().zip(segments) {
            match_segment(pieces, segment, &mut params)?;
        }
        Some(params)
    }

    /// How specific the template is, segment by segment: a literal segment ranks above one with
    /// a parameter and literal text, which ranks above a lone parameter.
    fn rank(&self) -> Vec<u8> {
        self.segments
            .iter()
            .map(|pieces| match pieces.as_slice() {
                [Piece::Literal(_)] => 2,
                [Piece::Param(_)] => 0,
                _ => 1,
            })
            .collect()
    }
}

/// Matches one segment; parameters take the shortest text up to the next literal.
fn match_segment(pieces: &[Piece], segment: &str, out: &mut Vec<(String, String)>) -> Option<()> {
    let mut rest = segment;
    let mut i = 0;
    while i < pieces.len() {
        match &pieces[i] {
            Piece::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
            Piece::Param(name) => {
                let end = match pieces.get(i + 1) {
                    Some(Piece::Literal(next)) => rest.find(next.as_str())?,
                    _ => rest.len(),
                };
                let raw = &rest[..end];
                if raw.is_empty() {
                    return None;
                }
                let value = percent_decode_str(raw).decode_utf8_lossy().into_owned();
                out.push((name.clone(), value));
                rest = &rest[end..];
            }
        }
        i += 1;
    }
    rest.is_empty().then_some(())
}

/// The methods of one path template, each with the index of its operation.
type Methods = Vec<(String, usize)>;

/// The path templates of a spec, each with its methods and the index of each operation.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    entries: Vec<(Template, Methods)>,
    /// Path prefixes of the spec's server URLs (`/v2`): a request path under one is matched
    /// without it too, so that a server's `--upstream-url` may keep the API's base path.
    bases: Vec<String>,
}

impl Routes {
    /// Adds the operation `index` for `method` (lower case) and `template`.
    pub(crate) fn add(&mut self, template: &str, method: &str, index: usize) {
        let parsed = Template::parse(template);
        let same = self
            .entries
            .iter_mut()
            .find(|(t, _)| t.segments == parsed.segments);
        match same {
            Some((_, methods)) => methods.push((method.to_owned(), index)),
            None => self
                .entries
                .push((parsed, vec![(method.to_owned(), index)])),
        }
    }

    /// Matches paths under `base` (`/v2`, a server URL's path) without it too.
    pub(crate) fn add_base(&mut self, base: &str) {
        let base = base.trim_end_matches('/');
        if !base.is_empty() && !base.contains('{') && !self.bases.iter().any(|b| b == base) {
            self.bases.push(base.to_owned());
        }
    }

    /// The operation `method` and `path` (without the query) are for, and the path as matched
    /// (without the base path, if it had one).
    pub(crate) fn find<'p>(&self, method: &str, path: &'p str) -> (Found, &'p str) {
        let found = self.find_exact(method, path);
        if found != Found::NoPath {
            return (found, path);
        }
        for base in &self.bases {
            if let Some(rest) = path.strip_prefix(base.as_str())
                && rest.starts_with('/')
            {
                let found = self.find_exact(method, rest);
                if found != Found::NoPath {
                    return (found, rest);
                }
            }
        }
        (Found::NoPath, path)
    }

    fn find_exact(&self, method: &str, path: &str) -> Found {
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let best = self
            .entries
            .iter()
            .filter_map(|(template, methods)| {
                let params = template.matches(&segments)?;
                Some((template.rank(), methods, params))
            })
            .rev()
            .max_by(|a, b| a.0.cmp(&b.0));
        let Some((_, methods, params)) = best else {
            return Found::NoPath;
        };
        let method = method.to_ascii_lowercase();
        match methods.iter().find(|(m, _)| *m == method) {
            Some((_, index)) => Found::Operation(*index, params),
            None => Found::NoMethod(
                methods
                    .iter()
                    .map(|(m, _)| m.to_ascii_uppercase())
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_segments_win_and_parameters_are_decoded() {
        let mut routes = Routes::default();
        routes.add("/tickets/{id}", "get", 0);
        routes.add("/tickets/search", "get", 1);
        routes.add("/tickets/{id}", "delete", 2);
        routes.add("/files/{name}.{ext}", "get", 3);
        let param = |n: &str, v: &str| (n.to_owned(), v.to_owned());
        assert_eq!(
            routes.find("GET", "/tickets/a%20b").0,
            Found::Operation(0, vec![param("id", "a b")])
        );
        assert_eq!(
            routes.find("GET", "/tickets/search").0,
            Found::Operation(1, vec![])
        );
        assert_eq!(
            routes.find("DELETE", "/tickets/7").0,
            Found::Operation(2, vec![param("id", "7")])
        );
        assert_eq!(
            routes.find("PUT", "/tickets/7").0,
            Found::NoMethod(vec!["GET".into(), "DELETE".into()])
        );
        assert_eq!(
            routes.find("GET", "/files/a.tar.gz").0,
            Found::Operation(3, vec![param("name", "a"), param("ext", "tar.gz")])
        );
        assert_eq!(routes.find("GET", "/tickets").0, Found::NoPath);
        assert_eq!(routes.find("GET", "/tickets/").0, Found::NoPath);
        routes.add_base("/v2/");
        assert_eq!(
            routes.find("GET", "/v2/tickets/search").0,
            Found::Operation(1, vec![])
        );
        assert_eq!(routes.find("GET", "/v2").0, Found::NoPath);
    }
}
