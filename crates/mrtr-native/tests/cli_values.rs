//! Values no one means, given to the real binaries: an empty key, a ticket lifetime of 0 or
//! past a year (or past u64), a wait that is not a number of seconds. Each is exit 2 with one
//! sentence on stderr, never a panic and never a server that starts anyway.

use std::process::{Command, Stdio};

const KEY: &str = "6d72424242424242424242424242424242424242424242424242424242424242";

/// Runs `bin` with `args` and `env`, stdin closed (a stdio server that starts anyway ends
/// at once with 0); returns the exit code and stderr.
fn run(bin: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new(bin);
    cmd.args(args).stdin(Stdio::null());
    for v in ["MRTR_KEY", "MRTR_KEYS"] {
        cmd.env_remove(v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_one_sentence(label: &str, (code, err): (i32, String), prefix: &str, says: &str) {
    assert_eq!(code, 2, "{label}: {err}");
    assert!(!err.contains("panicked"), "{label}: {err}");
    let lines: Vec<&str> = err.trim_end().lines().collect();
    assert_eq!(lines.len(), 1, "{label}: one line, got {err:?}");
    assert!(lines[0].starts_with(prefix), "{label}: {err}");
    assert!(lines[0].contains(says), "{label}: {err}");
}

#[test]
fn the_server_refuses_an_empty_key_with_one_sentence() {
    let server = env!("CARGO_BIN_EXE_mrtr-server");
    for (label, args, env) in [
        ("--key \"\"", vec!["--stdio", "--key", ""], vec![]),
        ("--key ,", vec!["--stdio", "--key", ","], vec![]),
        ("MRTR_KEYS=\"\"", vec!["--stdio"], vec![("MRTR_KEYS", "")]),
    ] {
        assert_one_sentence(
            label,
            run(server, &args, &env),
            "mrtr-server: --key (or MRTR_KEYS): ",
            "no key given",
        );
    }
    for (label, args, env) in [
        ("--key-hex \"\"", vec!["--stdio", "--key-hex", ""], vec![]),
        ("MRTR_KEY=\"\"", vec!["--stdio"], vec![("MRTR_KEY", "")]),
    ] {
        assert_one_sentence(
            label,
            run(server, &args, &env),
            "mrtr-server: --key-hex (or MRTR_KEY): ",
            "the key is empty",
        );
    }
}

#[test]
fn the_server_refuses_a_ticket_lifetime_of_zero_or_past_a_year() {
    let server = env!("CARGO_BIN_EXE_mrtr-server");
    for ttl in [
        "0",
        "31536001",
        "18446744073709551615",
        "99999999999999999999999",
        "-1",
        "1e3",
    ] {
        assert_one_sentence(
            ttl,
            run(server, &["--stdio", "--key-hex", KEY, "--ttl", ttl], &[]),
            &format!("mrtr-server: --ttl {ttl:?}: "),
            "a whole number of seconds from 1 to 31536000 (one year)",
        );
    }
    // The bounds themselves are fine: the server starts (and ends with its closed stdin).
    for ttl in ["1", "31536000"] {
        let (code, err) = run(server, &["--stdio", "--key-hex", KEY, "--ttl", ttl], &[]);
        assert_eq!(code, 0, "{ttl}: {err}");
    }
}

#[test]
fn the_client_and_the_audit_refuse_waits_that_are_not_seconds() {
    let client = env!("CARGO_BIN_EXE_mrtr-client");
    for wait in ["nan", "inf", "-1", "1e300", "0", "3601"] {
        assert_one_sentence(
            wait,
            run(client, &["-y", "--probe-timeout", wait, "--", "true"], &[]),
            &format!("mrtr-client: --probe-timeout {wait:?}: "),
            "above 0 and at most 3600",
        );
    }
    let audit = env!("CARGO_BIN_EXE_mrtr-audit");
    assert_one_sentence(
        "--timeout u64::MAX",
        run(
            audit,
            &[
                "--timeout",
                "18446744073709551615",
                "http://127.0.0.1:1/mcp",
            ],
            &[],
        ),
        "mrtr-audit: --timeout 18446744073709551615: ",
        "at most 3600 seconds",
    );
}
