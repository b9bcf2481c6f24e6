//! Every stdio reader survives every byte: `mrtr-client` and `mrtr-audit` keep reading a
//! server that writes a line that is not UTF-8 or a line over 16 MiB (each reported on
//! stderr, and in the audit's transcript), and neither holds such a line in memory.

use std::process::Command;

use serde_json::Value;

const KEY: &str = "6d72424242424242424242424242424242424242424242424242424242424242";

/// Runs the real `mrtr-server --stdio` behind a pipe that writes, before each of its first
/// three lines, a line with a stray 0xff byte and a line just over 16 MiB.
const NOISY: &str = r#"
import subprocess, sys
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
out, noisy = sys.stdout.buffer, 3
for line in sys.stdin.buffer:
    server.stdin.write(line)
    server.stdin.flush()
    answer = server.stdout.readline()
    if noisy:
        noisy -= 1
        out.write(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"caf\xff"}}\n')
        out.write(b'{"pad":"' + b'x' * (16 << 20) + b'"}\n')
    out.write(answer)
    out.flush()
"#;

fn run(bin: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin)
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn noisy_server() -> Vec<&'static str> {
    vec![
        "python3",
        "-c",
        NOISY,
        env!("CARGO_BIN_EXE_mrtr-server"),
        "--stdio",
        "--key-hex",
        KEY,
    ]
}

#[test]
fn the_client_reads_on_past_bad_bytes_and_overlong_lines() {
    let mut args = vec!["-y", "--"];
    args.extend(noisy_server());
    let (code, out, err) = run(env!("CARGO_BIN_EXE_mrtr-client"), &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("result: deployed to staging"), "{out}");
    assert!(
        err.contains(
            "[mrtr-client] skipped a line from the server that is not UTF-8 (byte 72 of 75)"
        ),
        "{err}"
    );
    let long = (16 << 20) + 10;
    assert!(
        err.contains(&format!(
            "[mrtr-client] skipped a line from the server of {long} bytes, over the 16777216-byte (16 MiB) limit"
        )),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn the_audit_reads_on_and_notes_each_skipped_line_in_its_transcript() {
    let dir = std::env::temp_dir().join(format!("mrtr-stdio-bytes-{}", std::process::id()));
    let dir_s = dir.to_str().unwrap().to_owned();
    let mut args = vec!["--transcript", dir_s.as_str(), "--"];
    args.extend(noisy_server());
    let (code, out, err) = run(env!("CARGO_BIN_EXE_mrtr-audit"), &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("✓ pass  substitution"), "{out}");
    assert!(
        err.contains("[mrtr-audit] skipped a line from the server that is not UTF-8"),
        "{err}"
    );
    let transcript = std::fs::read_to_string(dir.join("transcript.jsonl")).unwrap();
    let notes: Vec<String> = transcript
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|l| l.get("note").and_then(Value::as_str).map(str::to_owned))
        .collect();
    assert_eq!(notes.len(), 6, "{notes:?}");
    assert!(notes[0].contains("not UTF-8"), "{notes:?}");
    assert!(
        notes[1].contains("over the 16777216-byte (16 MiB) limit"),
        "{notes:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
