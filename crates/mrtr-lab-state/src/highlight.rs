//! A small syntax highlighter for the three languages "Read the code" shows (JavaScript,
//! Python, Rust): comments, strings, keywords and numbers, nothing more. Written here, not
//! downloaded, so the page makes no request outside its folder; it never fails and never
//! changes the text: the pieces of every line, joined, give back the source exactly.

/// A language the highlighter reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// JavaScript (the TypeScript SDK's example).
    JavaScript,
    /// Python.
    Python,
    /// Rust.
    Rust,
}

/// What a piece of a line is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// Anything else.
    Plain,
    /// A keyword of the language.
    Keyword,
    /// A string literal.
    Str,
    /// A comment.
    Comment,
    /// A number literal.
    Number,
}

impl Tok {
    /// The CSS class of a piece (plain text gets none).
    pub fn class(self) -> &'static str {
        match self {
            Tok::Plain => "",
            Tok::Keyword => "tk-kw",
            Tok::Str => "tk-str",
            Tok::Comment => "tk-com",
            Tok::Number => "tk-num",
        }
    }
}

const JS_KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "else",
    "export",
    "false",
    "for",
    "from",
    "function",
    "if",
    "import",
    "in",
    "let",
    "new",
    "null",
    "of",
    "return",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "while",
];
const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "async", "await", "class", "def", "elif", "else",
    "except", "for", "from", "if", "import", "in", "is", "lambda", "not", "or", "pass", "raise",
    "return", "try", "while", "with",
];
const RUST_KEYWORDS: &[&str] = &[
    "as", "const", "crate", "dyn", "else", "enum", "false", "fn", "for", "if", "impl", "in", "let",
    "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static",
    "struct", "super", "trait", "true", "type", "use", "where", "while",
];

impl Syntax {
    fn keywords(self) -> &'static [&'static str] {
        match self {
            Syntax::JavaScript => JS_KEYWORDS,
            Syntax::Python => PY_KEYWORDS,
            Syntax::Rust => RUST_KEYWORDS,
        }
    }
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The end (byte index) of a string whose opening quote `q` (three characters for Python's
/// triple quotes) starts at `start`; the end of the line or text when it never closes.
fn string_end(src: &str, start: usize, q: &str, escapes: bool, stop_at_newline: bool) -> usize {
    let mut i = start + q.len();
    let bytes = src.as_bytes();
    while i < src.len() {
        if escapes && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if stop_at_newline && bytes[i] == b'\n' {
            return i;
        }
        if bytes[i..].starts_with(q.as_bytes()) {
            return i + q.len();
        }
        i += 1;
    }
    src.len()
}

/// Where a Rust raw string (`r"…"`, `r#"…"#`) that starts at `start` ends, if one does.
fn rust_raw_string(src: &str, start: usize) -> Option<usize> {
    let rest = src[start..].strip_prefix('r')?;
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    if !rest[hashes..].starts_with('"') {
        return None;
    }
    let close = format!("\"{}", "#".repeat(hashes));
    let body = start + 1 + hashes + 1;
    Some(
        src[body..]
            .find(&close)
            .map_or(src.len(), |at| body + at + close.len()),
    )
}

/// Where a Rust character literal (`'x'`, `'\n'`) starting at `start` ends; `None` for a
/// lifetime such as `'_` or `'a`.
fn rust_char(src: &str, start: usize) -> Option<usize> {
    let rest = &src[start + 1..];
    let mut chars = rest.char_indices();
    let (_, c) = chars.next()?;
    let after = if c == '\\' {
        let (i, _) = chars.next()?;
        // Simple escapes only (\n, \', \\ …); longer ones fall through to the search.
        rest[i..].find('\'').map(|j| i + j)?
    } else {
        let (i, _) = chars.next()?;
        i
    };
    rest[after..]
        .starts_with('\'')
        .then_some(start + 1 + after + 1)
}

/// Splits `src` into pieces of one kind each, in order.
pub fn tokens(src: &str, syntax: Syntax) -> Vec<(Tok, &str)> {
    let mut i = 0;
    let mut plain_from = 0;
    let flush = |out: &mut Vec<(Tok, usize, usize)>, from: usize, to: usize| {
        if to > from {
            out.push((Tok::Plain, from, to));
        }
    };
    let mut spans: Vec<(Tok, usize, usize)> = Vec::new();
    let line_comment = match syntax {
        Syntax::Python => "#",
        _ => "//",
    };
    while i < src.len() {
        let rest = &src[i..];
        let c = rest.chars().next().unwrap_or(' ');
        let prev_ident = src[..i].chars().next_back().is_some_and(ident_char);
        let found: Option<(Tok, usize)> = if rest.starts_with(line_comment) {
            Some((Tok::Comment, rest.find('\n').map_or(src.len(), |n| i + n)))
        } else if syntax != Syntax::Python && rest.starts_with("/*") {
            Some((
                Tok::Comment,
                rest[2..].find("*/").map_or(src.len(), |n| i + 2 + n + 2),
            ))
        } else if syntax == Syntax::Rust && c == 'r' && !prev_ident {
            rust_raw_string(src, i).map(|end| (Tok::Str, end))
        } else if syntax == Syntax::Python
            && (rest.starts_with("\"\"\"") || rest.starts_with("'''"))
        {
            Some((Tok::Str, string_end(src, i, &rest[..3], true, false)))
        } else if c == '"'
            || (c == '\'' && syntax != Syntax::Rust)
            || (c == '`' && syntax == Syntax::JavaScript)
        {
            // Template literals may span lines; other strings end at the line's end at most.
            let q = &rest[..1];
            Some((
                Tok::Str,
                string_end(src, i, q, true, c != '`' && syntax != Syntax::Rust),
            ))
        } else if c == '\'' && syntax == Syntax::Rust {
            rust_char(src, i).map(|end| (Tok::Str, end))
        } else if c.is_ascii_digit() && !prev_ident {
            let len = rest
                .find(|ch: char| !(ident_char(ch) || ch == '.'))
                .unwrap_or(rest.len());
            Some((Tok::Number, i + len))
        } else if ident_start(c) && !prev_ident {
            let len = rest.find(|ch: char| !ident_char(ch)).unwrap_or(rest.len());
            let word = &rest[..len];
            // A keyword used as a property or key (`ctx.new`, `{ default: … }`) stays plain
            // enough either way; only a preceding `.` is told apart.
            let after_dot = src[..i].ends_with('.');
            if syntax.keywords().contains(&word) && !after_dot {
                Some((Tok::Keyword, i + len))
            } else {
                // Not a keyword: the whole word is plain (never a number inside a name).
                i += len;
                continue;
            }
        } else {
            None
        };
        match found {
            Some((kind, end)) if end > i => {
                flush(&mut spans, plain_from, i);
                spans.push((kind, i, end));
                i = end;
                plain_from = end;
            }
            _ => i += c.len_utf8(),
        }
    }
    flush(&mut spans, plain_from, src.len());
    spans
        .into_iter()
        .map(|(kind, from, to)| (kind, &src[from..to]))
        .collect()
}

/// The source's lines, each as its pieces (a piece never spans a line break; the breaks
/// themselves are dropped).
pub fn lines(src: &str, syntax: Syntax) -> Vec<Vec<(Tok, &str)>> {
    let mut lines: Vec<Vec<(Tok, &str)>> = vec![Vec::new()];
    for (kind, text) in tokens(src, syntax) {
        let mut parts = text.split('\n');
        if let Some(first) = parts.next() {
            if !first.is_empty() {
                lines
                    .last_mut()
                    .unwrap_or(&mut Vec::new())
                    .push((kind, first));
            }
        }
        for part in parts {
            lines.push(if part.is_empty() {
                Vec::new()
            } else {
                vec![(kind, part)]
            });
        }
    }
    if src.ends_with('\n') {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(src: &str, s: Syntax) -> String {
        lines(src, s)
            .iter()
            .map(|l| l.iter().map(|(_, t)| *t).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn kinds(src: &str, s: Syntax) -> Vec<(Tok, &str)> {
        tokens(src, s)
            .into_iter()
            .filter(|(k, _)| *k != Tok::Plain)
            .collect()
    }

    #[test]
    fn the_text_comes_back_exactly() {
        for (src, s) in [
            ("const a = 'x';\n// done\n", Syntax::JavaScript),
            ("\"\"\"doc\nmore\"\"\"\nx = 1\n", Syntax::Python),
            ("let s = r#\"a \"b\"\"#; 'x' '_\n", Syntax::Rust),
            ("unterminated \"string", Syntax::Rust),
            ("`multi\nline ${x}`", Syntax::JavaScript),
            ("héllo → 'wörld' # ünïcode", Syntax::Python),
            ("", Syntax::Rust),
            ("'", Syntax::Rust),
            ("r#", Syntax::Rust),
            ("\\", Syntax::JavaScript),
        ] {
            let expected = src.strip_suffix('\n').unwrap_or(src);
            assert_eq!(joined(src, s), expected, "{src:?}");
        }
    }

    #[test]
    fn comments_strings_keywords_and_numbers() {
        assert_eq!(
            kinds("const n = 42; // a 'quote'", Syntax::JavaScript),
            vec![
                (Tok::Keyword, "const"),
                (Tok::Number, "42"),
                (Tok::Comment, "// a 'quote'")
            ]
        );
        assert_eq!(
            kinds("x = \"# not a comment\"  # a comment", Syntax::Python),
            vec![
                (Tok::Str, "\"# not a comment\""),
                (Tok::Comment, "# a comment")
            ]
        );
        assert_eq!(
            kinds("fn f(x: &'_ str) -> char { 'x' }", Syntax::Rust),
            vec![(Tok::Keyword, "fn"), (Tok::Str, "'x'")]
        );
        // A word that merely contains a keyword or a digit is plain.
        assert!(kinds("format2 letter ctx.new", Syntax::JavaScript).is_empty());
    }

    #[test]
    fn a_docstring_is_a_string_on_every_line() {
        let l = lines("\"\"\"one\ntwo\"\"\"\nimport os", Syntax::Python);
        assert_eq!(l[0], vec![(Tok::Str, "\"\"\"one")]);
        assert_eq!(l[1], vec![(Tok::Str, "two\"\"\"")]);
        assert_eq!(l[2][0], (Tok::Keyword, "import"));
    }

    #[test]
    fn an_escaped_quote_stays_inside() {
        assert_eq!(
            kinds(r#"x = "a \" b"; y"#, Syntax::JavaScript),
            vec![(Tok::Str, r#""a \" b""#)]
        );
    }

    #[test]
    fn the_real_files_come_back_exactly() {
        for (src, s) in [
            (
                include_str!("../../../interop/ts_server.mjs"),
                Syntax::JavaScript,
            ),
            (
                include_str!("../../../interop/py_server.py"),
                Syntax::Python,
            ),
            (
                include_str!("../../../crates/mrtr-core/src/checks.rs"),
                Syntax::Rust,
            ),
        ] {
            assert_eq!(joined(src, s), src.strip_suffix('\n').unwrap_or(src));
        }
    }
}
