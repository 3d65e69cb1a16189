//! A string that matches a regular expression, for the `pattern` of a string schema.
//!
//! Only the parts of the syntax that API patterns use are understood: anchors, literals and
//! escapes, `.`, classes (`[a-z0-9_-]`, `\d`, `\w`, `\s`), groups with alternatives and the
//! quantifiers `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`. Anything else gives `None`, and the caller
//! makes a plain string instead.

use super::seed::Rng;

/// Longest string made; a pattern asking for more (`(a{1000}){1000}`) gets a cut string.
const MAX_CHARS: usize = 10_000;

/// Repetitions used for an open-ended quantifier (`*`, `+`, `{n,}`) past its minimum.
const EXTRA_REPEATS: usize = 2;

/// A string matching `pattern`, or `None` when the pattern uses syntax not understood here.
pub(crate) fn string_matching(pattern: &str, rng: &mut Rng) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser { chars, at: 0 };
    let node = parser.alternatives()?;
    if parser.at != parser.chars.len() {
        return None;
    }
    let mut out = String::new();
    emit(&node, rng, &mut out);
    Some(out)
}

enum Node {
    /// One character out of a set of inclusive ranges.
    Class(Vec<(char, char)>),
    /// Matches the empty string (anchors).
    Empty,
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, usize, usize),
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn alternatives(&mut self) -> Option<Node> {
        let mut alts = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.at += 1;
            alts.push(self.sequence()?);
        }
        Some(if alts.len() == 1 {
            alts.remove(0)
        } else {
            Node::Alt(alts)
        })
    }

    fn sequence(&mut self) -> Option<Node> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Some(Node::Seq(items))
    }

    fn atom(&mut self) -> Option<Node> {
        match self.next()? {
            '^' | '$' => Some(Node::Empty),
            '.' => Some(Node::Class(vec![('a', 'z')])),
            '(' => {
                if self.peek() == Some('?') {
                    // Only the non-capturing form `(?:...)`.
                    self.at += 1;
                    if self.next()? != ':' {
                        return None;
                    }
                }
                let inner = self.alternatives()?;
                (self.next()? == ')').then_some(inner)
            }
            '[' => self.class(),
            '\\' => self.escape(),
            '*' | '+' | '?' | '{' | ')' => None,
            c => Some(Node::Class(vec![(c, c)])),
        }
    }

    fn escape(&mut self) -> Option<Node> {
        Some(Node::Class(match self.next()? {
            'd' => vec![('0', '9')],
            'w' => vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')],
            's' => vec![(' ', ' ')],
            'D' | 'W' | 'S' | 'b' | 'B' | 'p' | 'P' => return None,
            c if c.is_ascii_alphanumeric() => return None,
            c => vec![(c, c)],
        }))
    }

    fn class(&mut self) -> Option<Node> {
        if self.peek() == Some('^') {
            return None;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = self.next()?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let low = match c {
                '\\' => match self.next()? {
                    'd' => {
                        ranges.push(('0', '9'));
                        continue;
                    }
                    'w' => {
                        ranges.extend([('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]);
                        continue;
                    }
                    's' => {
                        ranges.push((' ', ' '));
                        continue;
                    }
                    e if e.is_ascii_alphanumeric() => return None,
                    e => e,
                },
                c => c,
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|&c| c != ']') {
                self.at += 1;
                let high = self.next()?;
                if high == '\\' || high < low {
                    return None;
                }
                ranges.push((low, high));
            } else {
                ranges.push((low, low));
            }
        }
        (!ranges.is_empty()).then_some(Node::Class(ranges))
    }

    fn quantified(&mut self, atom: Node) -> Option<Node> {
        let (low, high) = match self.peek() {
            Some('?') => (0, 1),
            Some('*') => (0, EXTRA_REPEATS),
            Some('+') => (1, 1 + EXTRA_REPEATS),
            Some('{') => {
                self.at += 1;
                let low = self.number()?;
                let high = match self.next()? {
                    '}' => return Some(Node::Repeat(Box::new(atom), low, low)),
                    ',' if self.peek() == Some('}') => low + EXTRA_REPEATS,
                    ',' => self.number()?,
                    _ => return None,
                };
                if self.next()? != '}' || high < low {
                    return None;
                }
                return Some(Node::Repeat(Box::new(atom), low, high));
            }
            _ => return Some(atom),
        };
        self.at += 1;
        if matches!(self.peek(), Some('?' | '+')) {
            self.at += 1; // lazy or possessive: the same strings
        }
        Some(Node::Repeat(Box::new(atom), low, high))
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let digits: String = self.chars[start..self.at].iter().collect();
        digits.parse().ok().filter(|n| *n <= 1000)
    }
}

fn emit(node: &Node, rng: &mut Rng, out: &mut String) {
    if out.len() >= MAX_CHARS {
        return;
    }
    match node {
        Node::Empty => {}
        Node::Class(ranges) => {
            let (low, high) = ranges[rng.below(ranges.len())];
            let span = high as u32 - low as u32 + 1;
            let picked = low as u32 + rng.below(span as usize) as u32;
            out.push(char::from_u32(picked).unwrap_or(low));
        }
        Node::Seq(items) => items.iter().for_each(|item| emit(item, rng, out)),
        Node::Alt(alts) => emit(&alts[rng.below(alts.len())], rng, out),
        Node::Repeat(inner, low, high) => {
            let times = low + rng.below(high - low + 1);
            for _ in 0..times {
                emit(inner, rng, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_match_the_patterns_of_the_specs() {
        for pattern in [
            "^[A-Z]{3}$",
            "^[a-z0-9-]+$",
            "^p_[a-z0-9]+$",
            "^M[0-9]{6}$",
            "^(97[89])?[0-9]{9}[0-9X]$",
            "^[a-z]{2}$",
            r"^\d{2,4}-(?:ab|cd)\.x*$",
        ] {
            for seed in 0..20 {
                let s = string_matching(pattern, &mut Rng::new(seed)).expect(pattern);
                let re = regex_lite_check(pattern, &s);
                assert!(re, "{pattern}: {s}");
            }
        }
        assert!(string_matching("^[^a]$", &mut Rng::new(1)).is_none());
        assert!(string_matching("(a", &mut Rng::new(1)).is_none());
    }

    /// Checks with the validator the mock answers with, so both agree on what matches.
    fn regex_lite_check(pattern: &str, s: &str) -> bool {
        let schema = serde_json::json!({"type": "string", "pattern": pattern});
        jsonschema::draft202012::new(&schema)
            .map(|v| v.is_valid(&serde_json::json!(s)))
            .unwrap_or(false)
    }
}
