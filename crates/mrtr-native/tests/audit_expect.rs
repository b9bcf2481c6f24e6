//! `mrtr-audit --expect FILE LABEL=REPORT…` as `make interop` runs it: reports side by side,
//! exit 0 when each is what FILE expects of its label, 1 on any difference (the row named), 2
//! for an expected file it cannot read (a sentence, never a panic). The reports are made in
//! milliseconds by the audit itself against a simulated replica of the lab's server.

use std::path::{Path, PathBuf};
use std::process::Command;

use mrtr_audit::sim::SimWire;
use mrtr_audit::{audit, Options};
use mrtr_core::checks::{Check, CheckPolicy};
use serde_json::{json, Value};

fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("audit-expect-{test}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The audit of a simulated replica, with single use, and `off` turned off; written to a file.
fn report(dir: &Path, name: &str, off: Option<Check>) -> String {
    let mut policy = CheckPolicy {
        single_use: true,
        ..CheckPolicy::default()
    };
    if let Some(c) = off {
        policy.set(c, false);
    }
    let mut wire = SimWire::new(policy, false, 11);
    let opts = Options {
        ttl_wait_s: Some(wire.ttl_s() + 1),
        expect_single_use: true,
        ..Options::default()
    };
    let r = audit(&mut wire, &opts, &mut |_| {}).unwrap();
    let path = dir.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(&r.to_json(name)).unwrap();
    std::fs::write(&path, text).unwrap();
    format!("{name}={}", path.display())
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn expect(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mrtr-audit"))
        .arg("--expect")
        .args(args)
        .output()
        .expect("mrtr-audit runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        err,
    )
}

#[test]
fn reports_as_expected_exit_0_with_the_table() {
    let d = dir("match");
    let lab = report(&d, "mrtr-server", None);
    let skip = report(&d, "mrtr-server-skip-principal", Some(Check::Principal));
    let file = write(
        &d,
        "expected.json",
        r#"{"mrtr-server": "all-pass", "mrtr-server-skip-principal": "guard:principal"}"#,
    );
    let (code, out, err) = expect(&[&file, &lab, &skip]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("   1  mrtr-server: tool deploy "), "{out}");
    assert!(
        out.contains("\n   2  mrtr-server-skip-principal: tool deploy "),
        "{out}"
    );
    let line = |id: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("  {id} ")))
            .unwrap_or_else(|| panic!("no line for {id}: {out}"))
            .to_owned()
    };
    assert!(line("other-token").ends_with("  ✓   ✗ "), "{out}");
    assert!(line("honest").ends_with("  ✓   ✓ "), "{out}");
    assert!(out.contains("! not as expected"), "{out}");
    assert!(!out.contains("DIFFERS"), "{out}");
}

#[test]
fn a_difference_exits_1_and_names_the_row() {
    let d = dir("differ");
    let lab = report(&d, "lab", None);
    // What the lab's server really does, but for one row.
    let text = std::fs::read_to_string(d.join("lab.json")).unwrap();
    let got: Value = serde_json::from_str(&text).unwrap();
    let mut rows = serde_json::Map::new();
    for r in got["rows"].as_array().unwrap() {
        rows.insert(r["id"].as_str().unwrap().into(), r["status"].clone());
    }
    let file = write(&d, "same.json", &json!({ "lab": rows }).to_string());
    assert_eq!(expect(&[&file, &lab]).0, 0);
    rows.insert("race".into(), json!("skipped"));
    let file = write(&d, "expected.json", &json!({ "lab": rows }).to_string());
    let (code, out, err) = expect(&[&file, &lab]);
    assert_eq!(code, 1, "{out}\n{err}");
    let differs: Vec<&str> = out.lines().filter(|l| l.starts_with("DIFFERS")).collect();
    assert_eq!(differs.len(), 1, "{out}");
    assert!(
        differs[0]
            .starts_with("DIFFERS lab: race is pass, expected skipped: sent 8 identical retries"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("  race ") && l.ends_with("✓!")),
        "{out}"
    );
    // The same, as JSON.
    let (code, out, _) = expect(&[&file, &lab, "--json"]);
    assert_eq!(code, 1);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema"], "mrtr-audit-expect/1");
    assert_eq!(j["ok"], false);
    assert_eq!(j["servers"][0]["tool"], "deploy");
    assert_eq!(
        j["differences"],
        json!([{"label": "lab", "row": "race", "got": "pass", "expected": "skipped",
                "evidence": "sent 8 identical retries at once; 1 completed"}])
    );
    // A report that is missing, or not a report, is a difference too (exit 1), not a usage error.
    let junk = write(&d, "junk.json", "{\"error\": \"connection refused\"}");
    let (code, out, _) = expect(&[
        &file,
        &lab,
        &format!("gone={}", d.join("nothing-here.json").display()),
        &format!("junk={junk}"),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("DIFFERS gone: no report ("), "{out}");
    assert!(
        out.contains("DIFFERS junk: no report (") && out.contains("no \"schema\""),
        "{out}"
    );
}

#[test]
fn the_guard_rule_expects_exactly_the_rows_of_that_check_to_fail() {
    let d = dir("guard");
    let skip = report(&d, "skip", Some(Check::Principal));
    for (rule, code) in [
        ("guard:principal", 0),
        ("guard:request", 1),
        ("all-pass", 1),
    ] {
        let file = write(&d, "expected.json", &json!({ "skip": rule }).to_string());
        let (got, out, err) = expect(&[&file, &skip]);
        assert_eq!(got, code, "{rule}: {out}\n{err}");
        if rule == "guard:request" {
            let named: Vec<&str> = out
                .lines()
                .filter_map(|l| l.strip_prefix("DIFFERS skip: "))
                .map(|l| l.split(' ').next().unwrap())
                .collect();
            assert_eq!(
                named,
                [
                    "other-token",
                    "no-token",
                    "other-arguments",
                    "extra-argument",
                    "other-tool"
                ],
                "{out}"
            );
        }
    }
}

#[test]
fn a_malformed_expected_file_is_a_clear_exit_2() {
    let d = dir("malformed");
    let lab = report(&d, "lab", None);
    for (text, says) in [
        ("", "not JSON"),
        ("{\"lab\": ", "not JSON"),
        ("[\"all-pass\"]", "not a JSON object"),
        (
            r#"{"lab": "all-fail"}"#,
            "neither \"all-pass\" nor \"guard:NAME\"",
        ),
        (
            r#"{"lab": "guard:nothing"}"#,
            "no row is guarded by \"nothing\"",
        ),
        (
            r#"{"lab": {"honset": "pass"}}"#,
            "no row of the audit is \"honset\"",
        ),
        (
            r#"{"lab": {"honest": "yes"}}"#,
            "row \"honest\" is expected to be \"yes\"",
        ),
        (r#"{"lab": 42}"#, "42 is not"),
    ] {
        let file = write(&d, "expected.json", text);
        let (code, out, err) = expect(&[&file, &lab]);
        assert_eq!(code, 2, "{text}: {out}\n{err}");
        assert!(out.is_empty(), "{text}: nothing is compared: {out}");
        assert_eq!(err.lines().count(), 1, "{text}: one sentence: {err}");
        assert!(
            err.starts_with(&format!("mrtr-audit: --expect {file}: ")) && err.contains(says),
            "{text}: {err}"
        );
    }
    let missing = d.join("no-such-file.json").display().to_string();
    let (code, _, err) = expect(&[&missing, &lab]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-file.json"), "{err}");
    // An argument that is not LABEL=REPORT, and --expect without a report, are usage errors.
    let file = write(&d, "expected.json", r#"{"lab": "all-pass"}"#);
    let (code, _, err) = expect(&[&file, "lab.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("\"lab.json\" is not LABEL=REPORT.json"),
        "{err}"
    );
    assert_eq!(expect(&[&file]).0, 2);
    // And it audits nothing: the audit's own options do not go with it.
    assert_eq!(expect(&[&file, &lab, "--token", "bob-token"]).0, 2);
}
