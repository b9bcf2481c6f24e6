//! How `mrtr-client` reaches a server: one HTTP POST per request, or a child process
//! speaking newline-delimited JSON-RPC. Both print every line as `-->` / `<--` when asked.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{json, Value};

use crate::headers::Mirrored;
use crate::lines::{self, Line, MAX_LINE};

pub use mrtr_core::wire::sse_messages;

/// How a request that got no answer in time is reported (the start of its error text).
pub const TIMED_OUT: &str = "timed out";

/// Answers a server→client request (legacy era) with its result or error object.
pub type OnRequest<'a> = &'a mut dyn FnMut(&Value) -> Value;

/// How a client reaches a server: one message at a time, whatever carries it (HTTP or a
/// child's stdio).
pub trait Transport {
    /// Sends a request and waits for its response, answering any server→client request that
    /// arrives first.
    fn request(&mut self, msg: &Value, on_request: OnRequest<'_>) -> Result<Value, String>;
    /// Sends a notification.
    fn notify(&mut self, msg: &Value) -> Result<(), String>;
    /// [`Transport::request`], giving up after `timeout` without an answer (an error that
    /// starts with [`TIMED_OUT`]).
    fn request_within(
        &mut self,
        msg: &Value,
        timeout: Duration,
        on_request: OnRequest<'_>,
    ) -> Result<Value, String>;
}

fn show(echo: bool, dir: &str, v: &Value) {
    if echo {
        println!("{dir} {v}");
    }
}

/// Stateless Streamable HTTP.
pub struct HttpTransport {
    agent: ureq::Agent,
    url: String,
    bearer: Option<String>,
    echo: bool,
    /// The `x-mcp-header` parameters of each tool, learnt from `tools/list` results as they
    /// pass: a call to such a tool mirrors them into `Mcp-Param-*` headers.
    param_headers: Mirrored,
}

impl HttpTransport {
    /// A transport that POSTs to `url`, with `Authorization: Bearer` `bearer` if given, each
    /// request bounded by 30 s; with `echo`, every message sent and received is printed on
    /// stdout.
    pub fn new(url: &str, bearer: Option<String>, echo: bool) -> HttpTransport {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(30)))
            .build()
            .into();
        HttpTransport {
            agent,
            url: url.to_owned(),
            bearer,
            echo,
            param_headers: Mirrored::default(),
        }
    }

    fn post(&mut self, msg: &Value) -> Result<(u16, String, String), String> {
        let mut req = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (k, v) in self.param_headers.headers_for(msg) {
            req = req.header(&k, &v);
        }
        if let Some(b) = &self.bearer {
            req = req.header("Authorization", &format!("Bearer {b}"));
        }
        let mut resp = req
            .send(msg.to_string())
            .map_err(|e| format!("HTTP request to {} failed: {e}", self.url))?;
        let status = resp.status().as_u16();
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| format!("reading the response failed: {e}"))?;
        Ok((status, ct, body))
    }
}

impl Transport for HttpTransport {
    fn request(&mut self, msg: &Value, _on_request: OnRequest<'_>) -> Result<Value, String> {
        show(self.echo, "-->", msg);
        let (status, ct, body) = self.post(msg)?;
        let messages = if ct.starts_with("text/event-stream") {
            sse_messages(&body)
        } else {
            match serde_json::from_str::<Value>(&body) {
                Ok(v) => vec![v],
                Err(_) => {
                    return Err(format!(
                        "HTTP {status}: the body is not JSON: {}",
                        body.chars().take(200).collect::<String>()
                    ))
                }
            }
        };
        let id = msg.get("id");
        let found = messages
            .into_iter()
            .find(|m| m.get("id") == id && (m.get("result").is_some() || m.get("error").is_some()))
            .ok_or_else(|| {
                format!(
                    "HTTP {status}: no response for id {}",
                    id.cloned().unwrap_or_default()
                )
            })?;
        show(self.echo, "<--", &found);
        if msg.get("method").and_then(Value::as_str) == Some("tools/list") {
            if let Some(r) = found.get("result") {
                self.param_headers.learn(r);
            }
        }
        Ok(found)
    }

    fn notify(&mut self, msg: &Value) -> Result<(), String> {
        show(self.echo, "-->", msg);
        self.post(msg).map(|_| ())
    }

    fn request_within(
        &mut self,
        msg: &Value,
        _timeout: Duration,
        on_request: OnRequest<'_>,
    ) -> Result<Value, String> {
        // HTTP requests carry their own timeout (the agent's).
        self.request(msg, on_request)
    }
}

/// How long a stdio request waits for the server's next line, unless told otherwise.
pub const DEFAULT_STDIO_TIMEOUT: Duration = Duration::from_secs(60);

/// What the reader thread saw on the server's stdout.
enum Incoming {
    Line(String),
    /// A line that is not UTF-8: its bytes, and where the first bad one is.
    NotUtf8(Vec<u8>, usize),
    /// A line over [`MAX_LINE`], discarded unread: its length.
    TooLong(u64),
    Failed(std::io::Error),
}

/// Lines the reader thread may read ahead of the requests: with lines bounded too, a chatty
/// server cannot make the client hold more than this many of them.
const READ_AHEAD: usize = 64;

/// A server run as a child process.
pub struct StdioTransport {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The server's output, line by line, read on a thread of its own so a request can
    /// stop waiting.
    lines: Receiver<Incoming>,
    /// How long to wait for each line before giving up on a request.
    pub timeout: Duration,
    echo: bool,
    /// Who is reading, for the notes on stderr (`mrtr-client`, `mrtr-audit`).
    pub name: &'static str,
    /// Lines skipped since [`StdioTransport::take_notes`] was last called, one sentence each.
    notes: Vec<String>,
}

impl StdioTransport {
    /// Starts `command` (program, then arguments) with piped stdin and stdout (stderr passes
    /// through) and a thread reading its output; with `echo`, every message sent and
    /// received is printed on stdout. `Err` if the command is empty or cannot start.
    pub fn spawn(command: &[String], echo: bool) -> Result<StdioTransport, String> {
        let (prog, args) = command.split_first().ok_or("no server command given")?;
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("could not start {prog}: {e}"))?;
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let (tx, lines) = mpsc::sync_channel(READ_AHEAD);
        std::thread::spawn(move || loop {
            let got = match lines::read_line(&mut stdout, MAX_LINE) {
                Ok(None) => return,
                Ok(Some(Line::Bytes(b))) => match String::from_utf8(b) {
                    Ok(text) => Incoming::Line(text),
                    Err(e) => {
                        let at = e.utf8_error().valid_up_to();
                        Incoming::NotUtf8(e.into_bytes(), at)
                    }
                },
                Ok(Some(Line::TooLong(n))) => Incoming::TooLong(n),
                Err(e) => Incoming::Failed(e),
            };
            let stop = matches!(got, Incoming::Failed(_));
            if tx.send(got).is_err() || stop {
                return;
            }
        });
        Ok(StdioTransport {
            child,
            stdin,
            lines,
            timeout: DEFAULT_STDIO_TIMEOUT,
            echo,
            name: "mrtr-client",
            notes: Vec::new(),
        })
    }

    fn write(&mut self, msg: &Value) -> Result<(), String> {
        show(self.echo, "-->", msg);
        let stdin = self.stdin.as_mut().ok_or("the server's stdin is closed")?;
        writeln!(stdin, "{msg}")
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("writing to the server failed: {e}"))
    }

    /// Reports a line passed over: on stderr now, and kept for [`StdioTransport::take_notes`].
    fn note(&mut self, what: String) {
        eprintln!("[{}] {what}", self.name);
        self.notes.push(what);
    }

    /// The lines passed over since the last call (not UTF-8, over the limit, not JSON), one
    /// sentence each: for a transcript.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

impl Transport for StdioTransport {
    fn request(&mut self, msg: &Value, on_request: OnRequest<'_>) -> Result<Value, String> {
        self.write(msg)?;
        let id = msg.get("id").cloned();
        let mut skipped = 0;
        loop {
            let line = match self.lines.recv_timeout(self.timeout) {
                Ok(Incoming::Line(line)) => line,
                Ok(Incoming::NotUtf8(bytes, at)) => {
                    // The response itself, spoiled? Say so now rather than wait in vain.
                    let lossy = String::from_utf8_lossy(&bytes);
                    let v = serde_json::from_str::<Value>(lossy.trim()).ok();
                    if v.as_ref().is_some_and(|v| {
                        v.get("id") == id.as_ref()
                            && (v.get("result").is_some() || v.get("error").is_some())
                    }) {
                        return Err(format!(
                            "the server's response to id {} is not UTF-8 (byte {} of {})",
                            id.clone().unwrap_or_default(),
                            at + 1,
                            bytes.len()
                        ));
                    }
                    skipped += 1;
                    self.note(format!(
                        "skipped a line from the server that is not UTF-8 (byte {} of {})",
                        at + 1,
                        bytes.len()
                    ));
                    continue;
                }
                Ok(Incoming::TooLong(n)) => {
                    skipped += 1;
                    self.note(format!(
                        "skipped a line from the server of {n} bytes, over the {} limit",
                        lines::max_line_words()
                    ));
                    continue;
                }
                Ok(Incoming::Failed(e)) => {
                    return Err(format!("reading from the server failed: {e}"))
                }
                Err(RecvTimeoutError::Timeout) => {
                    let also = if skipped > 0 {
                        format!(" ({skipped} unreadable lines skipped meanwhile)")
                    } else {
                        String::new()
                    };
                    return Err(format!(
                        "{TIMED_OUT}: no answer within {} s{also}",
                        self.timeout.as_secs_f32()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the server closed its output".into())
                }
            };
            let Ok(v) = serde_json::from_str::<Value>(line.trim()) else {
                let shown: String = line.trim().chars().take(200).collect();
                self.note(format!("ignoring a line that is not JSON: {shown}"));
                continue;
            };
            show(self.echo, "<--", &v);
            let is_response = v.get("result").is_some() || v.get("error").is_some();
            if is_response && v.get("id") == id.as_ref() {
                return Ok(v);
            }
            if let (Some(rid), Some(_)) = (v.get("id"), v.get("method")) {
                let answer = on_request(&v);
                let reply = if answer.get("code").is_some() && answer.get("message").is_some() {
                    json!({"jsonrpc": "2.0", "id": rid, "error": answer})
                } else {
                    json!({"jsonrpc": "2.0", "id": rid, "result": answer})
                };
                self.write(&reply)?;
            }
        }
    }

    fn notify(&mut self, msg: &Value) -> Result<(), String> {
        self.write(msg)
    }

    fn request_within(
        &mut self,
        msg: &Value,
        timeout: Duration,
        on_request: OnRequest<'_>,
    ) -> Result<Value, String> {
        let usual = std::mem::replace(&mut self.timeout, timeout);
        let r = self.request(msg, on_request);
        self.timeout = usual;
        r
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        // Stop reading (a reader blocked on a full queue then ends, and a server still
        // writing sees a closed pipe), then close stdin: the graceful way to stop a stdio
        // server; kill it if it lingers.
        drop(std::mem::replace(&mut self.lines, mpsc::sync_channel(0).1));
        drop(self.stdin.take());
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_bodies_are_split_into_messages() {
        let body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\nid: 2\ndata: {\"a\":\ndata: 1}\n";
        let msgs = sse_messages(body);
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[1], json!({"a": 1}));
    }
}
