//! `mrtr-client --era auto` on stdio follows the spec's probe rules: a modern error means a
//! modern server (probe again, never fall back); silence means legacy, after a bounded wait.

use std::process::Command;

const KEY: &str = "6d72424242424242424242424242424242424242424242424242424242424242";

fn client(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mrtr-client"))
        .arg("-y")
        .args(args)
        .output()
        .expect("mrtr-client runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_unsupported_version_is_corrected_not_a_reason_to_fall_back() {
    let server = env!("CARGO_BIN_EXE_mrtr-server");
    let (ok, out, err) = client(&[
        "--protocol-version",
        "2027-01-01",
        "--",
        server,
        "--stdio",
        "--key-hex",
        KEY,
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("-32022"), "the first probe is refused: {out}");
    assert!(err.contains("probing again with 2026-07-28"), "{err}");
    assert!(!out.contains("\"initialize\""), "never falls back: {out}");
    assert!(out.contains("result: deployed to staging"), "{out}");
}

/// A 2025-11-25 server that never answers `server/discover`: it only knows the handshake.
const SILENT_LEGACY: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "old", "version": "1"}}
    elif m.get("method") == "tools/call":
        r = {"content": [{"type": "text", "text": "old server ran " + m["params"]["name"]}]}
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#;

#[test]
fn a_probe_with_no_answer_falls_back_after_the_timeout() {
    let started = std::time::Instant::now();
    let (ok, out, err) = client(&[
        "--probe-timeout",
        "0.5",
        "--",
        "python3",
        "-c",
        SILENT_LEGACY,
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(
        err.contains("no answer to server/discover within 0.5 s"),
        "{err}"
    );
    assert!(out.contains("result: old server ran deploy"), "{out}");
    assert!(started.elapsed().as_secs() < 20);
}

/// A 2026-07-28 server whose `server/discover` refuses with a 2026-only error (the code is
/// the script's first argument); it would also answer `initialize`, so a fallback would show.
const MODERN_REFUSES_DISCOVER: &str = r#"
import json, sys
code = int(sys.argv[1])
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "server/discover":
        out = {"error": {"code": code, "message": "refused the 2026-07-28 way"}}
    elif m["method"] == "initialize":
        out = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "x", "version": "1"}}}
    elif m["method"] == "tools/call" and "_meta" in m["params"]:
        out = {"result": {"resultType": "complete", "content": [{"type": "text", "text": "modern call ran"}]}}
    else:
        out = {"result": {"content": [{"type": "text", "text": "legacy call ran"}]}}
    print(json.dumps(dict(jsonrpc="2.0", id=m["id"], **out)), flush=True)
"#;

#[test]
fn header_mismatch_and_missing_capability_never_mean_fall_back() {
    for code in ["-32020", "-32021"] {
        let (ok, out, err) = client(&["--", "python3", "-c", MODERN_REFUSES_DISCOVER, code]);
        assert!(ok, "{code}: {out}\n{err}");
        assert!(
            err.contains(&format!(
                "refused with {code}, an error only 2026-07-28 has"
            )),
            "{code}: {err}"
        );
        assert!(!out.contains("\"initialize\""), "{code}: fell back: {out}");
        assert!(out.contains("result: modern call ran"), "{code}: {out}");
    }
}
