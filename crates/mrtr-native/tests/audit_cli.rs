//! `mrtr-audit` as a user meets it: a report card of a real server over HTTP and stdio, and
//! clear messages (exit 2), never a panic, for a server it cannot audit.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use serde_json::Value;

const KEY: &str = "6d72424242424242424242424242424242424242424242424242424242424242";

fn audit(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mrtr-audit"))
        .args(args)
        .output()
        .expect("mrtr-audit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Server(std::process::Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn server(extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mrtr-server"))
        .args(["--http", "127.0.0.1:0", "--key-hex", KEY])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().unwrap().unwrap();
        if let Some(u) = line.strip_prefix("mrtr-server: listening on ") {
            break u.to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Server(child, url)
}

#[test]
fn the_labs_server_gets_a_clean_report_card_in_json() {
    let s = server(&["--single-use"]);
    let (code, out, err) = audit(&[
        &s.1,
        "--token",
        "bob-token",
        "--other-token",
        "alice-token",
        "--expect-single-use",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["schema"], "mrtr-audit/1");
    assert_eq!(r["verdict"]["ok"], true);
    assert_eq!(r["verdict"]["failed"], 0);
    // Expiry needs --ttl-wait: skipped, with the reason.
    let expired = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "expired")
        .unwrap();
    assert_eq!(expired["status"], "skipped");
    assert!(expired["evidence"].as_str().unwrap().contains("--ttl-wait"));
    assert!(
        err.contains("at most") && err.contains("requests"),
        "the budget is printed: {err}"
    );
}

#[test]
fn a_weak_server_fails_the_rows_of_the_check_it_skips_and_exits_1() {
    let s = server(&["--unsafe-skip-check", "principal"]);
    let (code, out, err) = audit(&[
        &s.1,
        "--token",
        "bob-token",
        "--other-token",
        "alice-token",
        "--transcript",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/audit-cli-test"),
    ]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("✗ FAIL  other-token"), "{out}");
    assert!(out.contains("verdict: FAIL"), "{out}");
    let transcript = std::fs::read_to_string(concat!(
        env!("CARGO_TARGET_TMPDIR"),
        "/audit-cli-test/transcript.jsonl"
    ))
    .unwrap();
    let lines: Vec<Value> = transcript
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 20);
    assert!(lines.iter().any(|l| l["who"] == "other"));
}

#[test]
fn a_stdio_server_is_audited_with_one_principal() {
    let server = env!("CARGO_BIN_EXE_mrtr-server");
    let (code, out, err) = audit(&["--", server, "--stdio", "--key-hex", KEY]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("– skip  other-token"), "{out}");
    assert!(out.contains("– skip  race"), "{out}");
    assert!(out.contains("✓ pass  substitution"), "{out}");
}

#[test]
fn nothing_to_audit_or_nobody_there_is_a_clear_exit_2() {
    // Nobody listens on port 1.
    let (code, _, err) = audit(&["http://127.0.0.1:1/mcp"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("mrtr-audit: HTTP request to http://127.0.0.1:1/mcp failed"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // A tool that never asks.
    let s = server(&[]);
    let (code, _, err) = audit(&[&s.1, "--tool", "test_simple_text"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("nothing to audit") && err.contains("test_simple_text"),
        "{err}"
    );
    // Usage.
    assert_eq!(audit(&[&s.1, "--args", "[1]"]).0, 2);
    assert_eq!(audit(&["not-a-url"]).0, 2);
    assert_eq!(audit(&[]).0, 2);
}

#[test]
fn garbage_answers_are_a_clear_exit_2() {
    // A server that answers every request with the same non-JSON page.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
        }
    });
    let (code, _, err) = audit(&[&format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("tools/list did not answer with a list of tools"),
        "{err}"
    );
}

/// The memory-loss row against a stdio server: the audit starts it again itself. The lab's
/// server keeps its memory in-process with a fixed key, and refuses what it minted before.
#[test]
fn a_stdio_server_restarted_by_the_audit_keeps_a_spent_ticket_spent() {
    let server = env!("CARGO_BIN_EXE_mrtr-server");
    let (code, out, err) = audit(&[
        "--expect-single-use",
        "--json",
        "--",
        server,
        "--stdio",
        "--key-hex",
        KEY,
        "--single-use",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let row = row_of(&r, "memory-loss");
    assert_eq!(row["status"], "pass", "{row}");
    assert_eq!(
        row["evidence"],
        "sent the spent retry again (new id) after the server restarted; got error -32602 \"Invalid or expired requestState\""
    );
    assert!(err.contains("restarting the server"), "{err}");
}

fn row_of<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == id)
        .unwrap()
}

/// A server started and restarted by a shell script, as an operator's `--restart` would: it
/// stops the process whose id is in `pid` (waiting until it has exited) and starts another
/// on the same port.
struct Restartable {
    dir: std::path::PathBuf,
    url: String,
}

impl Restartable {
    fn start(name: &str) -> Restartable {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let start = format!(
            "\"{}\" --http 127.0.0.1:{port} --key-hex {KEY} --single-use >>\"{d}/log\" 2>&1 &\necho $! >\"{d}/pid\"\n",
            env!("CARGO_BIN_EXE_mrtr-server"),
            d = dir.display()
        );
        let stop = format!(
            "p=$(cat \"{}/pid\")\nkill \"$p\"\nwhile [ -e /proc/$p ] && [ \"$(cut -d' ' -f3 /proc/$p/stat)\" != Z ]; do sleep 0.05; done\n",
            dir.display()
        );
        std::fs::write(dir.join("start.sh"), &start).unwrap();
        std::fs::write(dir.join("restart.sh"), stop + &start).unwrap();
        let ok = Command::new("sh")
            .arg(dir.join("start.sh"))
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let url = format!("http://127.0.0.1:{port}/mcp");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Restartable { dir, url }
    }

    fn restart_command(&self) -> String {
        format!("sh \"{}\"", self.dir.join("restart.sh").display())
    }
}

impl Drop for Restartable {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(self.dir.join("pid")) {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
    }
}

#[test]
fn an_http_server_restarted_by_the_operators_command_keeps_a_spent_ticket_spent() {
    let s = Restartable::start("audit-restart");
    let first_pid = std::fs::read_to_string(s.dir.join("pid")).unwrap();
    let restart = s.restart_command();
    let (code, out, err) = audit(&[
        &s.url,
        "--token",
        "bob-token",
        "--other-token",
        "alice-token",
        "--expect-single-use",
        "--restart",
        &restart,
        "--json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let row = row_of(&r, "memory-loss");
    assert_eq!(row["status"], "pass", "{row}");
    assert!(
        row["evidence"]
            .as_str()
            .unwrap()
            .ends_with("got error -32602 \"Invalid or expired requestState\""),
        "{row}"
    );
    let pid = std::fs::read_to_string(s.dir.join("pid")).unwrap();
    assert_ne!(pid, first_pid, "the server was restarted");
    // Every row after it ran against the new process, and passed.
    assert_eq!(r["verdict"]["failed"], 0, "{out}");
}

#[test]
fn without_a_way_to_restart_the_memory_loss_row_says_how() {
    let s = server(&["--single-use"]);
    let (code, out, _) = audit(&[
        &s.1,
        "--token",
        "bob-token",
        "--expect-single-use",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let row = row_of(&r, "memory-loss");
    assert_eq!(row["status"], "skipped");
    assert!(row["evidence"]
        .as_str()
        .unwrap()
        .contains("--restart COMMAND"));
    // A restart command that fails ends the audit with its words (exit 2).
    let (code, _, err) = audit(&[&s.1, "--expect-single-use", "--restart", "exit 3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--restart \"exit 3\" failed"), "{err}");
}
