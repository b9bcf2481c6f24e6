//! Newline-delimited JSON-RPC on stdin/stdout; logs on stderr. Serves both eras on one
//! connection and never exits on bad input, only at end of input.

use std::io::{BufRead, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use mrtr_core::error::RpcError;
use mrtr_core::legacy::{Connection, Delivery};
use mrtr_core::wire::error_response;
use mrtr_core::{CallContext, Clock, Principal, Server};

use crate::lines::{self, Line};
use crate::os::{OsEntropy, SystemClock};

/// Longest line accepted (16 MiB); a longer one is skipped to its end without being held and
/// answered with -32700.
pub use crate::lines::MAX_LINE;
/// How often calls waiting on the legacy shim are checked for their deadline.
const TICK: Duration = Duration::from_secs(1);

/// What the reader saw: one line (without its newline), a line over the limit (skipped to
/// its end), or a failed read (the last item).
#[derive(Debug)]
pub enum Input {
    /// A line's bytes, without its newline; not yet checked to be UTF-8.
    Line(Vec<u8>),
    /// A line longer than [`MAX_LINE`], skipped; its length in bytes.
    TooLong(u64),
    /// Reading failed; nothing more is read.
    Failed(std::io::Error),
}

/// Serves until `input` ends. Bad bytes, bad JSON and overlong lines each get a JSON-RPC
/// error and the connection goes on; only the end of input (or a broken output) ends it.
pub fn serve(
    server: &Server,
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
    principal: &Principal,
    log_checks: bool,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::sync_channel::<Input>(16);
    std::thread::spawn(move || {
        for msg in Lines::new(input, MAX_LINE) {
            let stop = matches!(msg, Input::Failed(_));
            if tx.send(msg).is_err() || stop {
                return;
            }
        }
    });
    let mut session = Session::new();
    loop {
        let delivery = match rx.recv_timeout(TICK) {
            Ok(Input::Failed(e)) => {
                eprintln!("[mrtr-server] reading stdin failed: {e}");
                return Ok(());
            }
            Ok(input) => {
                let mut entropy = OsEntropy;
                let mut ctx = CallContext {
                    principal,
                    clock: &SystemClock,
                    entropy: &mut entropy,
                };
                match session.receive(server, input, &mut ctx) {
                    Some(d) => d,
                    None => continue,
                }
            }
            Err(RecvTimeoutError::Timeout) => session.tick(SystemClock.now_ms()),
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        };
        if log_checks {
            for e in &delivery.trace {
                eprintln!("[mrtr-server] {}", crate::describe(e));
            }
        }
        for msg in &delivery.outgoing {
            writeln!(output, "{msg}")?;
        }
        if !delivery.outgoing.is_empty() {
            output.flush()?;
        }
    }
}

/// One stdio connection without its streams: what the front does with each thing its reader
/// saw, and with each tick of its clock. Both eras are served on it (the 2025-11-25 one once
/// `initialize` opens it, through the core's legacy shim).
/// One stdio connection's state, kept from line to line: the core's legacy `Connection`
/// (whether the client sent `initialize`, its legacy capabilities, and the shim's calls
/// waiting on it), so both eras are served on one connection.
#[derive(Default)]
pub struct Session {
    conn: Connection,
}

impl Session {
    /// A connection that has received nothing yet.
    pub fn new() -> Session {
        Session {
            conn: Connection::new(),
        }
    }

    /// What to send for `input` (each message one line); `None` for a blank line. A failed
    /// read gets nothing: the front stops there.
    pub fn receive(
        &mut self,
        server: &Server,
        input: Input,
        ctx: &mut CallContext<'_>,
    ) -> Option<Delivery> {
        Some(match input {
            Input::Line(bytes) => match String::from_utf8(bytes) {
                Ok(line) if line.trim().is_empty() => return None,
                Ok(line) => self.conn.receive_text(server, &line, ctx),
                Err(_) => parse_error("the line is not UTF-8"),
            },
            Input::TooLong(n) => parse_error(&format!(
                "the line has {n} bytes, over the {} limit; it was skipped",
                lines::max_line_words()
            )),
            Input::Failed(_) => return None,
        })
    }

    /// A tick with nothing read: calls waiting on the legacy shim past their deadline are
    /// answered.
    pub fn tick(&mut self, now_ms: u64) -> Delivery {
        self.conn.expire(now_ms)
    }
}

fn parse_error(why: &str) -> Delivery {
    Delivery {
        outgoing: vec![error_response(
            None,
            &RpcError::parse_error(format!("Parse error: {why}")),
        )],
        trace: Vec::new(),
    }
}

/// Reads newline-delimited lines as bytes (UTF-8 is checked by the [`Session`], so one bad
/// line does not end the stream), never holding more than `max` bytes of one line. Ends
/// after the end of input or a failed read.
pub struct Lines<R> {
    input: R,
    max: usize,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    /// Reads lines from `input`, each at most `max` bytes (longer ones are skipped and
    /// reported as [`Input::TooLong`]).
    pub fn new(input: R, max: usize) -> Lines<R> {
        Lines {
            input,
            max,
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Input;

    fn next(&mut self) -> Option<Input> {
        if self.done {
            return None;
        }
        let msg = match lines::read_line(&mut self.input, self.max) {
            Ok(None) => {
                self.done = true;
                return None;
            }
            Ok(Some(Line::Bytes(b))) => Input::Line(b),
            Ok(Some(Line::TooLong(n))) => Input::TooLong(n),
            Err(e) => Input::Failed(e),
        };
        self.done = matches!(msg, Input::Failed(_));
        Some(msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn lines_are_cut_at_newlines_and_an_overlong_one_is_skipped_whole() {
        let input = b"ab\n\n0123456789xyz\nc\r\nlast".to_vec();
        let got: Vec<String> = Lines::new(std::io::Cursor::new(input), 8)
            .map(|i| match i {
                Input::Line(b) => String::from_utf8(b).unwrap(),
                Input::TooLong(n) => format!("<{n} bytes>"),
                Input::Failed(e) => format!("<{e}>"),
            })
            .collect();
        assert_eq!(got, ["ab", "", "<13 bytes>", "c\r", "last"]);
    }

    fn test_server() -> Server {
        crate::ServerOptions {
            keys: vec![("k1".into(), vec![1; 32])],
            name: "test".into(),
            ..crate::ServerOptions::default()
        }
        .build()
        .unwrap()
    }

    fn run(input: Vec<u8>) -> Vec<Value> {
        let mut out = Vec::new();
        serve(
            &test_server(),
            std::io::Cursor::new(input),
            &mut out,
            &Principal::user("me"),
            false,
        )
        .unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

    #[test]
    fn a_line_over_the_limit_gets_32700_and_the_connection_goes_on() {
        // A well-formed request padded past 16 MiB: refused unread, not parsed.
        let pad = "x".repeat(MAX_LINE);
        let long = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","pad":"{pad}"}}"#);
        let lines = run(format!("{long}\n{DISCOVER}\n").into_bytes());
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["error"]["code"], -32700);
        let why = lines[0]["error"]["message"].as_str().unwrap();
        assert!(
            why.contains(&format!(
                "{} bytes, over the 16777216-byte (16 MiB) limit",
                long.len()
            )),
            "{why}"
        );
        assert_eq!(lines[1]["id"], 1);
        assert_eq!(
            lines[1]["result"]["supportedVersions"],
            json!(["2026-07-28"])
        );
    }

    #[test]
    fn a_line_an_sdk_may_send_is_read_whole() {
        // 2 MiB: over the HTTP body limit, under rmcp's 16 MiB and TypeScript's 10 MiB.
        let pad = "x".repeat(2 << 20);
        let long = format!(r#"{{"pad":"{pad}",{}"#, &DISCOVER[1..]);
        let lines = run(format!("{long}\n").into_bytes());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(
            lines[0]["result"]["supportedVersions"],
            json!(["2026-07-28"]),
            "{}",
            lines[0]
        );
    }

    #[test]
    fn a_request_with_a_null_id_gets_32600() {
        let null_id = DISCOVER.replace(r#""id":1"#, r#""id":null"#);
        let lines = run(format!("{null_id}\n{DISCOVER}\n").into_bytes());
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["error"]["code"], -32600);
        assert_eq!(lines[0]["id"], Value::Null);
        assert_eq!(lines[1]["id"], 1);
    }

    #[test]
    fn serves_both_eras_and_survives_garbage() {
        let input = [
            "not json",
            "NOT-UTF-8",
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"staging"}}}"#,
            r#"{"jsonrpc":"2.0","id":"mrtr-shim-1","result":{"action":"accept","content":{"confirm":true}}}"#,
        ]
        .join("\n");
        // A line that is not UTF-8 (a stray 0xff byte) must not end the connection.
        let bytes = input
            .replace("NOT-UTF-8", "\u{1}")
            .into_bytes()
            .into_iter()
            .flat_map(|b| {
                if b == 1 {
                    b"{\"id\":9,\"method\":\"p\xff\"}".to_vec()
                } else {
                    vec![b]
                }
            })
            .collect::<Vec<u8>>();
        let lines = run(bytes);
        assert_eq!(lines[0]["error"]["code"], -32700);
        assert_eq!(
            lines[1]["error"]["code"], -32700,
            "a line that is not UTF-8"
        );
        assert!(lines[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("UTF-8"));
        assert_eq!(
            lines[2]["result"]["supportedVersions"],
            json!(["2026-07-28"])
        );
        assert_eq!(lines[3]["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(lines[4]["method"], "elicitation/create");
        assert_eq!(
            lines[5]["result"]["content"][0]["text"],
            "deployed to staging, release 2026.11.30-2"
        );
    }
}
