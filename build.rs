//! Cuts the two functions "Read the code" shows from the protocol core's source at build time
//! (the deploy handler and the checks), so the wasm carries those functions, not whole files.
//! `src/state/code.rs` tests that each cut is the file's own lines at their own numbers.

use std::fmt::Write;

/// One function of a Rust file: from the doc comment above the line holding `start` to the
/// closing brace at the start of a line. Returns its first line number and its text.
fn rust_fn(file: &str, start: &str) -> (usize, String) {
    let Some(at) = file.find(start) else {
        panic!("build.rs: {start:?} is no longer in the file; update src/state/code.rs");
    };
    let mut from = file[..at].rfind('\n').map_or(0, |n| n + 1);
    while from > 0 {
        let prev = file[..from - 1].rfind('\n').map_or(0, |n| n + 1);
        if file[prev..from].trim_start().starts_with("///") {
            from = prev;
        } else {
            break;
        }
    }
    let end = file[at..].find("\n}\n").map_or(file.len(), |n| at + n + 3);
    (
        file[..from].matches('\n').count() + 1,
        file[from..end].to_owned(),
    )
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
    ] {
        println!("cargo::rerun-if-changed={path}");
        let file = std::fs::read_to_string(path).expect("the core's source is beside the app");
        let (line, text) = rust_fn(&file, start);
        writeln!(
            out,
            "/// `{path}` from line {line}.\npub const {name}: (usize, &str) = ({line}, {text:?});"
        )
        .unwrap();
    }
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{dir}/code_excerpts.rs"), out).expect("OUT_DIR is writable");
}
