//! What the HTTP tests share: a client for one `/mcp` endpoint that sends the standard
//! headers a client derives from each message, and the lesson's deploy requests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

pub mod cluster;

pub const KEY: &str = "6d72424242424242424242424242424242424242424242424242424242424242";

/// One MCP endpoint over HTTP.
pub struct Endpoint {
    pub url: String,
    pub agent: ureq::Agent,
}

impl Endpoint {
    pub fn new(url: &str) -> Endpoint {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(10)))
            .build()
            .into();
        Endpoint {
            url: url.to_owned(),
            agent,
        }
    }

    /// A POST written by hand, to send a `Host` of our choosing.
    pub fn post_with_host(
        &self,
        host: &str,
        body: &str,
        headers: &[(&str, &str)],
    ) -> (u16, String) {
        use std::io::{Read, Write};
        let addr = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let mut tcp = std::net::TcpStream::connect(addr).unwrap();
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        tcp.write_all(req.as_bytes()).unwrap();
        let mut out = String::new();
        tcp.read_to_string(&mut out).unwrap();
        let status = out[9..12].parse().unwrap();
        let body = out
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        (status, body)
    }

    pub fn post_raw(&self, body: &str, headers: &[(&str, &str)]) -> (u16, String) {
        self.post_raw_typed(body, "application/json", headers)
    }

    pub fn post_raw_typed(&self, body: &str, ty: &str, headers: &[(&str, &str)]) -> (u16, String) {
        let mut req = self.agent.post(&self.url).header("Content-Type", ty);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut resp = req.send(body.to_owned()).unwrap();
        (
            resp.status().as_u16(),
            resp.body_mut().read_to_string().unwrap_or_default(),
        )
    }

    /// Posts `msg` with the standard headers a client derives from it.
    pub fn post(&self, who: Option<&str>, msg: &Value) -> (u16, Value) {
        let auth = who.map(|w| format!("Bearer {w}-token"));
        let std = standard_headers(msg);
        let mut headers: Vec<(&str, &str)> = std.iter().map(|(k, v)| (*k, v.as_str())).collect();
        headers.extend(auth.iter().map(|a| ("Authorization", a.as_str())));
        let (status, body) = self.post_raw(&msg.to_string(), &headers);
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    /// Posts `msg` like [`Endpoint::post`], but a connection that fails or times out is an
    /// `Err` (a fault test expects some), not a panic. `timeout` bounds the whole exchange.
    pub fn try_post(
        &self,
        who: Option<&str>,
        msg: &Value,
        timeout: std::time::Duration,
    ) -> Result<(u16, Value), String> {
        let auth = who.map(|w| format!("Bearer {w}-token"));
        let mut req = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Content-Type", "application/json");
        for (k, v) in standard_headers(msg) {
            req = req.header(k, v);
        }
        if let Some(a) = &auth {
            req = req.header("Authorization", a);
        }
        let mut resp = req.send(msg.to_string()).map_err(|e| e.to_string())?;
        let body = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| e.to_string())?;
        Ok((
            resp.status().as_u16(),
            serde_json::from_str(&body).unwrap_or(Value::Null),
        ))
    }

    /// A ticket for a deploy to `env`, minted for `who`.
    pub fn ticket(&self, who: &str, env: &str) -> String {
        let (status, r) = self.post(Some(who), &deploy(1, env, None));
        assert_eq!(status, 200, "{r}");
        r["result"]["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("a ticket in {r}"))
            .to_owned()
    }

    /// Sends `server/discover`: true when it answers.
    pub fn serving(&self) -> bool {
        let discover = json!({"jsonrpc": "2.0", "id": 99, "method": "server/discover", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
        let (status, r) = self.post(None, &discover);
        status == 200 && r["result"]["supportedVersions"] == json!(["2026-07-28"])
    }
}

/// `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`, as the body says.
pub fn standard_headers(msg: &Value) -> Vec<(&'static str, String)> {
    let mut h = Vec::new();
    if let Some(v) = msg
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
    {
        h.push(("MCP-Protocol-Version", v.to_owned()));
    }
    if let Some(m) = msg.get("method").and_then(Value::as_str) {
        h.push(("Mcp-Method", m.to_owned()));
    }
    let named = msg
        .get("method")
        .and_then(Value::as_str)
        .and_then(mrtr_core::headers::name_param)
        .and_then(|key| msg.pointer(&format!("/params/{key}")))
        .and_then(Value::as_str);
    if let Some(n) = named {
        h.push(("Mcp-Name", n.to_owned()));
    }
    h
}

/// A request of the tasks extension's world: `method` with `params`, declaring the extension
/// and elicitation.
pub fn tasks_request(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A deploy call; with a ticket, the honest retry (the answer and the ticket).
pub fn deploy(id: i64, env: &str, ticket: Option<&str>) -> Value {
    let mut params = json!({
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
        "name": "deploy", "arguments": {"env": env},
    });
    if let Some(t) = ticket {
        params["requestState"] = json!(t);
        params["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// True when the response says the deploy happened.
pub fn deployed(r: &Value) -> bool {
    r["result"]["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("deployed"))
}

/// A real `mrtr-server --http` on a free loopback port (and `extra` flags), stopped when
/// dropped; derefs to its endpoint.
pub struct Running {
    pub child: Child,
    pub endpoint: Endpoint,
}

impl std::ops::Deref for Running {
    type Target = Endpoint;
    fn deref(&self) -> &Endpoint {
        &self.endpoint
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the test build's `mrtr-server` with the test key and `extra`; returns once it listens.
pub fn start(extra: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mrtr-server"))
        .args(["--http", "127.0.0.1:0", "--key-hex", KEY])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtr-server starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("a listening line").unwrap();
        if let Some(rest) = line.strip_prefix("mrtr-server: listening on ") {
            break rest.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Running {
        child,
        endpoint: Endpoint::new(&url),
    }
}
