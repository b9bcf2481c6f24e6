//! How `mrtr-audit` reaches a server: stateless HTTP (with the caller's, another caller's
//! or no token, and identical requests at once from threads of their own) or a stdio child.
//! Every exchange can be written to a transcript, one JSON line each.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use mrtr_audit::{Callers, Exchange, Who, Wire};

use crate::headers::Mirrored;
use crate::transport::{StdioTransport, Transport};

/// Every exchange as a JSON line in `DIR/transcript.jsonl`.
#[derive(Clone)]
pub struct Transcript {
    out: Arc<Mutex<BufWriter<File>>>,
}

impl Transcript {
    /// Creates `dir` if need be and starts `dir/transcript.jsonl` afresh (an existing one is
    /// truncated).
    pub fn create(dir: &Path) -> Result<Transcript, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("--transcript {}: {e}", dir.display()))?;
        let path = dir.join("transcript.jsonl");
        let f = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Transcript {
            out: Arc::new(Mutex::new(BufWriter::new(f))),
        })
    }

    fn record(&self, who: Who, request: &Value, result: &Result<Exchange, String>) {
        let who = match who {
            Who::Caller => "caller",
            Who::Other => "other",
            Who::Nobody => "nobody",
        };
        let line = match result {
            Ok(ex) => {
                json!({"who": who, "request": request, "status": ex.status, "response": ex.body})
            }
            Err(e) => json!({"who": who, "request": request, "error": e}),
        };
        self.write(&line);
    }

    /// A line of the transcript that is not an exchange: `{"note": …}`, e.g. a line the
    /// server wrote that could not be read.
    pub fn note(&self, text: &str) {
        self.write(&json!({ "note": text }));
    }

    fn write(&self, line: &Value) {
        if let Ok(mut out) = self.out.lock() {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}

/// Stateless Streamable HTTP.
pub struct HttpWire {
    agent: ureq::Agent,
    url: String,
    token: Option<String>,
    other_token: Option<String>,
    transcript: Option<Transcript>,
    /// Tool parameters mirrored into `Mcp-Param-*` headers, learnt from `tools/list`.
    params: Mirrored,
    /// How to restart the server (a shell command), if the operator said.
    restart: Option<String>,
}

impl HttpWire {
    /// A wire that POSTs each message to `url`, sending `token` as the caller's bearer and
    /// `other_token` as the other principal's (none: no `Authorization`), each request
    /// bounded by `timeout`, recording every exchange in `transcript` if given.
    pub fn new(
        url: &str,
        token: Option<String>,
        other_token: Option<String>,
        timeout: Duration,
        transcript: Option<Transcript>,
    ) -> HttpWire {
        HttpWire {
            agent: agent(timeout),
            url: url.to_owned(),
            token,
            other_token,
            transcript,
            params: Mirrored::default(),
            restart: None,
        }
    }

    /// The wire, able to restart the server by running `command` with `sh -c`: it must return
    /// once the old process has stopped (it may leave the new one running in the background).
    pub fn restarting_with(mut self, command: Option<String>) -> HttpWire {
        self.restart = command;
        self
    }

    fn token(&self, who: Who) -> Option<&str> {
        match who {
            Who::Caller => self.token.as_deref(),
            Who::Other => self.other_token.as_deref(),
            Who::Nobody => None,
        }
    }

    /// The headers a client derives from the message: the standard ones, and the tool's
    /// `Mcp-Param-*`.
    fn headers(&self, msg: &Value, who: Who) -> Vec<(String, String)> {
        let mut h = self.params.headers_for(msg);
        if let Some(t) = self.token(who) {
            h.push(("Authorization".into(), format!("Bearer {t}")));
        }
        h
    }

    fn post(
        agent: &ureq::Agent,
        url: &str,
        headers: &[(String, String)],
        body: String,
    ) -> Result<Exchange, String> {
        let mut req = agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let mut resp = req
            .send(body)
            .map_err(|e| format!("HTTP request to {url} failed: {e}"))?;
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        Ok(Exchange::from_http(status, &content_type, &text))
    }

    fn learn(&mut self, msg: &Value, ex: &Exchange) {
        if msg.get("method").and_then(Value::as_str) == Some("tools/list") {
            if let Some(r) = ex.body.get("result") {
                self.params.learn(r);
            }
        }
    }
}

/// An agent that reads any status as an answer, each request bounded by `timeout`.
fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .build()
        .into()
}

/// Runs `command` with `sh -c`, its output on stderr (stdout carries the report), and waits
/// up to `limit` for it to exit with success.
fn run_restart(command: &str, limit: Duration) -> Result<(), String> {
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stdout(std::io::stderr())
        .spawn()
        .map_err(|e| format!("--restart: cannot run sh: {e}"))?;
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("--restart {command:?} failed ({status})")),
            Ok(None) if started.elapsed() < limit => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "--restart {command:?} did not finish within {} s",
                    limit.as_secs()
                ));
            }
            Err(e) => return Err(format!("--restart: {e}")),
        }
    }
}

impl Wire for HttpWire {
    fn send(&mut self, msg: &Value, who: Who) -> Result<Exchange, String> {
        let headers = self.headers(msg, who);
        let r = HttpWire::post(&self.agent, &self.url, &headers, msg.to_string());
        if let Some(t) = &self.transcript {
            t.record(who, msg, &r);
        }
        if let Ok(ex) = &r {
            self.learn(msg, ex);
        }
        r
    }

    fn race(&mut self, msgs: &[Value], who: Who) -> Option<Result<Vec<Exchange>, String>> {
        let barrier = Arc::new(Barrier::new(msgs.len()));
        let handles: Vec<_> = msgs
            .iter()
            .map(|m| {
                let (agent, url, barrier) = (self.agent.clone(), self.url.clone(), barrier.clone());
                let (headers, body) = (self.headers(m, who), m.to_string());
                std::thread::spawn(move || {
                    barrier.wait();
                    HttpWire::post(&agent, &url, &headers, body)
                })
            })
            .collect();
        let results: Vec<Result<Exchange, String>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a racing request's thread panicked".into()))
            })
            .collect();
        if let Some(t) = &self.transcript {
            for (m, r) in msgs.iter().zip(&results) {
                t.record(who, m, r);
            }
        }
        Some(results.into_iter().collect())
    }

    fn wait_ms(&mut self, ms: u64) {
        eprintln!("mrtr-audit: waiting {:.1} s", ms as f64 / 1000.0);
        std::thread::sleep(Duration::from_millis(ms));
    }

    fn ms_into_second(&self) -> u64 {
        wall_ms_into_second()
    }

    fn oversize_body(&mut self, bytes: usize) -> Option<Result<Exchange, String>> {
        let body = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"pad\":\"{}\"}}",
            "x".repeat(bytes)
        );
        let headers = vec![("Mcp-Method".to_owned(), "tools/list".to_owned())];
        // A connection of its own: a server may answer 413 and close it, and the next
        // request must not find it in the shared pool.
        let fresh: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(self.agent.config().timeouts().global)
            .build()
            .into();
        let r = HttpWire::post(&fresh, &self.url, &headers, body);
        // A server that stops reading and hangs up refuses the body too.
        let r = match r {
            Err(e) if e.contains("failed") => Ok(Exchange {
                status: None,
                body: json!({"error": {"code": 0, "message": format!("the server hung up during the upload ({e})")}}),
            }),
            other => other,
        };
        if let Some(t) = &self.transcript {
            t.record(
                Who::Caller,
                &json!({"body": format!("{bytes} bytes of JSON")}),
                &r,
            );
        }
        Some(r)
    }

    fn callers(&self) -> Callers {
        Callers::http(self.token.as_deref(), self.other_token.as_deref())
    }

    /// Runs the operator's command, then asks `tools/list` every 100 ms until the server
    /// answers with JSON-RPC, each step within the request timeout. A fresh agent: pooled
    /// connections were to the old process.
    fn restart(&mut self) -> Option<Result<(), String>> {
        let command = self.restart.clone()?;
        let limit = self
            .agent
            .config()
            .timeouts()
            .global
            .unwrap_or(Duration::from_secs(10));
        eprintln!("mrtr-audit: restarting the server: {command}");
        Some(run_restart(&command, limit).and_then(|()| {
            self.agent = agent(limit);
            let probe = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list", "params": {}});
            let headers = self.headers(&probe, Who::Caller);
            let started = std::time::Instant::now();
            loop {
                let answered = HttpWire::post(&self.agent, &self.url, &headers, probe.to_string())
                    .is_ok_and(|ex| ex.body.get("jsonrpc").is_some());
                if answered {
                    return Ok(());
                }
                if started.elapsed() >= limit {
                    return Err(format!(
                        "after --restart, {} did not answer within {} s",
                        self.url,
                        limit.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }))
    }
}

/// A stdio server run as a child process: one connection, one principal.
pub struct StdioWire {
    transport: StdioTransport,
    transcript: Option<Transcript>,
    /// The server's command, to start it again.
    command: Vec<String>,
}

impl StdioWire {
    /// Starts `command` (program, then arguments) as the server, its stdin and stdout the
    /// connection (its stderr passes through), each request bounded by `timeout`. `Err` if
    /// the command is empty or cannot start.
    pub fn spawn(
        command: &[String],
        timeout: Duration,
        transcript: Option<Transcript>,
    ) -> Result<StdioWire, String> {
        Ok(StdioWire {
            transport: StdioWire::start(command, timeout)?,
            transcript,
            command: command.to_vec(),
        })
    }

    fn start(command: &[String], timeout: Duration) -> Result<StdioTransport, String> {
        let mut transport = StdioTransport::spawn(command, false)?;
        transport.timeout = timeout;
        transport.name = "mrtr-audit";
        Ok(transport)
    }
}

impl Wire for StdioWire {
    fn send(&mut self, msg: &Value, who: Who) -> Result<Exchange, String> {
        let r = self
            .transport
            .request(msg, &mut |_| json!({"code": -32601, "message": "mrtr-audit answers no server requests"}))
            .map(|body| Exchange { status: None, body });
        let notes = self.transport.take_notes();
        if let Some(t) = &self.transcript {
            for n in &notes {
                t.note(n);
            }
            t.record(who, msg, &r);
        }
        r
    }

    fn race(&mut self, _: &[Value], _: Who) -> Option<Result<Vec<Exchange>, String>> {
        None
    }

    fn wait_ms(&mut self, ms: u64) {
        eprintln!("mrtr-audit: waiting {:.1} s", ms as f64 / 1000.0);
        std::thread::sleep(Duration::from_millis(ms));
    }

    fn ms_into_second(&self) -> u64 {
        wall_ms_into_second()
    }

    fn oversize_body(&mut self, _: usize) -> Option<Result<Exchange, String>> {
        None
    }

    fn callers(&self) -> Callers {
        Callers::ONE
    }

    /// Stops the child (its stdin closed, killed if it lingers) and starts the command again.
    fn restart(&mut self) -> Option<Result<(), String>> {
        eprintln!(
            "mrtr-audit: restarting the server: {}",
            self.command.join(" ")
        );
        let timeout = self.transport.timeout;
        Some(StdioWire::start(&self.command, timeout).map(|fresh| {
            // The old process is stopped before the new one is used.
            drop(std::mem::replace(&mut self.transport, fresh));
        }))
    }
}

/// How far into the current second the wall clock is, in milliseconds.
fn wall_ms_into_second() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::from(d.subsec_millis()))
        .unwrap_or(0)
}
