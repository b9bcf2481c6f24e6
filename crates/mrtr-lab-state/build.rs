//! Cuts the pieces of Rust "Read the code" shows at build time: from the protocol core's source
//! the deploy handler and the checks, and from the rmcp peer `make interop` builds its deploy
//! tool, the handler behind it and its sealer, so the wasm carries those items, not whole files.
//! `src/code.rs` tests that each cut is the file's own lines at their own numbers.
//! Also reads the page's word lists out of index.html, so a widget's gloss of a word is the
//! page's own definition (`src/glossary.rs`). Paths are the repository's, from its root.

use std::fmt::Write;

/// One item of a Rust file (a function, or an `impl` block): from the doc comments and
/// attributes above the line holding `start` to the closing brace at that line's indent.
/// Returns its first line number and its text.
fn rust_fn(file: &str, start: &str) -> (usize, String) {
    let Some(at) = file.find(start) else {
        panic!("build.rs: {start:?} is no longer in the file; update crates/mrtr-lab-state/src/code.rs");
    };
    let mut from = file[..at].rfind('\n').map_or(0, |n| n + 1);
    let indent = &file[from..from + file[from..].len() - file[from..].trim_start().len()];
    while from > 0 {
        let prev = file[..from - 1].rfind('\n').map_or(0, |n| n + 1);
        let above = file[prev..from].trim_start();
        if above.starts_with("///") || above.starts_with("#[") {
            from = prev;
        } else {
            break;
        }
    }
    let close = format!("\n{indent}}}\n");
    let end = file[at..]
        .find(&close)
        .map_or(file.len(), |n| at + n + close.len());
    (
        file[..from].matches('\n').count() + 1,
        file[from..end].to_owned(),
    )
}

/// The page's word lists (`<dl class="words">` in index.html, where each definition is
/// written once): each `<dt>` with its `<dd>`'s text, tags dropped and entities read.
fn glossary(page: &str) -> Vec<(String, String)> {
    let mut words = Vec::new();
    for list in page.split("<dl class=\"words\">").skip(1) {
        let list = &list[..list
            .find("</dl>")
            .expect("build.rs: a word list in index.html is not closed")];
        for item in list.split("<dt>").skip(1) {
            let (term, rest) = item
                .split_once("</dt>")
                .expect("build.rs: a <dt> in index.html is not closed");
            let dd = &rest[rest
                .find("<dd")
                .expect("build.rs: a <dt> in index.html has no <dd>")..];
            let dd = &dd[dd.find('>').unwrap() + 1
                ..dd.find("</dd>").expect("build.rs: a <dd> is not closed")];
            words.push((text_of(term), text_of(dd)));
        }
    }
    words
}

/// The text of an HTML fragment: tags dropped, the entities index.html uses read, and each
/// `<code>` kept as a backtick on either side (`glossary::parts` reads them back, so the
/// embed's glossary sets code as code; a definition may hold no backtick of its own).
fn text_of(html: &str) -> String {
    assert!(
        !html.contains('`'),
        "build.rs: a word list in index.html has a backtick, which marks code: {html}"
    );
    let mut text = String::new();
    let mut tag: Option<String> = None;
    for c in html.chars() {
        match (&mut tag, c) {
            (None, '<') => tag = Some(String::new()),
            (Some(name), '>') => {
                if name == "code" || name == "/code" {
                    text.push('`');
                }
                tag = None;
            }
            (Some(name), c) => name.push(c),
            (None, c) => text.push(c),
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The repository's root: this crate is at crates/mrtr-lab-state.
fn root(path: &str) -> String {
    format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))
}

fn main() {
    let mut out = String::new();
    for (name, path, start) in [
        (
            "RUST_DEPLOY",
            "crates/mrtr-core/src/fixtures.rs",
            "pub fn deploy(",
        ),
        (
            "RUST_VERIFY",
            "crates/mrtr-core/src/checks.rs",
            "pub fn verify(",
        ),
        (
            "RMCP_TOOL",
            "interop/rmcp/src/bin/rmcp-deploy-server.rs",
            "async fn deploy(",
        ),
        (
            "RMCP_HANDLER",
            "interop/rmcp/src/bin/rmcp-deploy-server.rs",
            "fn confirm_then(",
        ),
        (
            "RMCP_SEALER",
            "interop/rmcp/src/bin/rmcp-deploy-server.rs",
            "impl Sealer {",
        ),
    ] {
        println!("cargo::rerun-if-changed={}", root(path));
        let file =
            std::fs::read_to_string(root(path)).expect("the Rust shown is in the repository");
        let (line, text) = rust_fn(&file, start);
        writeln!(
            out,
            "/// `{path}` from line {line}.\npub const {name}: (usize, &str) = ({line}, {text:?});"
        )
        .unwrap();
    }
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{dir}/code_excerpts.rs"), out).expect("OUT_DIR is writable");

    println!("cargo::rerun-if-changed={}", root("index.html"));
    let page = std::fs::read_to_string(root("index.html")).expect("index.html is at the root");
    let words = glossary(&page);
    assert!(!words.is_empty(), "build.rs: index.html has no word list");
    let mut out = String::from("/// index.html's word lists: (term, definition with code between backticks), in page order.\npub const WORDS: &[(&str, &str)] = &[\n");
    for (term, def) in words {
        writeln!(out, "    ({term:?}, {def:?}),").unwrap();
    }
    out.push_str("];\n");
    std::fs::write(format!("{dir}/glossary.rs"), out).expect("OUT_DIR is writable");
}
