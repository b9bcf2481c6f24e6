//! mrtr-client: calls a tool on an MCP server over HTTP (`mrtr-client URL`) or stdio
//! (`mrtr-client -- <server command…>`), answers its questions from flags or at a prompt,
//! and prints every JSON-RPC line as `-->` / `<--`.
//!
//! Run by the conformance suite (`MCP_CONFORMANCE_SCENARIO` set, URL last), it plays the
//! scenario's calls instead.

use std::io::{IsTerminal, Write};

use clap::Parser;
use serde_json::{json, Map, Value};

use mrtr_core::answered::{classify, Answered};
use mrtr_core::client::{classify_probe, ProbeVerdict};
use mrtr_core::wire::{ClientCapabilities, InputRequest, LEGACY_VERSION, MODERN_VERSION};
use mrtr_core::{Client, Host, Step};
use mrtr_native::transport::{HttpTransport, StdioTransport, Transport, TIMED_OUT};

#[derive(Parser, Debug)]
#[command(
    name = "mrtr-client",
    version,
    about = "MCP client that follows input_required round trips and prints the wire"
)]
struct Args {
    /// The tool to call.
    #[arg(long, default_value = "deploy")]
    tool: String,
    /// The tool's arguments, as JSON.
    #[arg(long, default_value = r#"{"env":"staging"}"#)]
    args: String,
    /// Bearer token for HTTP (the lab's server reads bob-token as bob).
    #[arg(long)]
    token: Option<String>,
    /// The protocol version to put in each request's _meta.
    #[arg(long, default_value = MODERN_VERSION, value_name = "VERSION")]
    protocol_version: String,
    /// auto: probe with server/discover and fall back to initialize (stdio); modern; legacy.
    #[arg(long, default_value = "auto", value_parser = ["auto", "modern", "legacy"])]
    era: String,
    /// How long the stdio era probe waits for an answer to server/discover (then: legacy);
    /// above 0, at most 3600.
    #[arg(
        long,
        default_value = "10",
        value_name = "SECONDS",
        allow_hyphen_values = true
    )]
    probe_timeout: String,
    /// The client capabilities to declare, as JSON. The default declares the tasks extension:
    /// a call the server runs as a task is followed (polled, its questions answered) to its end.
    #[arg(
        long,
        default_value = r#"{"elicitation":{"form":{}},"sampling":{},"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#
    )]
    caps: String,
    /// Form values to answer with, NAME=VALUE (VALUE read as JSON when it parses).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Decline every elicitation.
    #[arg(long)]
    decline: bool,
    /// Never prompt, even on a terminal: accept with --set values or defaults.
    #[arg(long, short = 'y')]
    yes: bool,
    /// Print only the result, not the wire.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// A server URL, or (after --) a server command to run over stdio.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    target: Vec<String>,
}

struct CliHost {
    values: Map<String, Value>,
    decline: bool,
    interactive: bool,
}

impl CliHost {
    fn prompt(&self, message: &str, schema: &Value) -> Value {
        let mut content = Map::new();
        eprintln!("\n[server asks] {message}");
        let props = schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (name, prop) in props {
            let ty = prop.get("type").and_then(Value::as_str).unwrap_or("string");
            eprint!("  {name} ({ty}): ");
            let _ = std::io::stderr().flush();
            let mut line = String::new();
            if std::io::stdin().read_line(&mut line).unwrap_or(0) == 0 {
                return json!({"action": "cancel"});
            }
            let line = line.trim();
            let v = match ty {
                "boolean" => json!(matches!(line, "y" | "yes" | "true" | "1")),
                "number" | "integer" => serde_json::from_str(line).unwrap_or(json!(0)),
                _ => json!(line),
            };
            content.insert(name, v);
        }
        json!({"action": "accept", "content": content})
    }
}

impl Host for CliHost {
    fn elicit(&mut self, key: &str, request: &InputRequest) -> Value {
        if self.decline {
            return json!({"action": "decline"});
        }
        if let (true, InputRequest::ElicitForm { message, schema }) = (self.interactive, request) {
            return self.prompt(message, schema);
        }
        let mut h = mrtr_core::AgreeableHost {
            values: self.values.clone(),
            decline: false,
        };
        h.elicit(key, request)
    }

    fn sample(&mut self, key: &str, request: &InputRequest) -> Option<Value> {
        mrtr_core::AgreeableHost::default().sample(key, request)
    }

    fn roots(&mut self, _key: &str) -> Value {
        let cwd = std::env::current_dir()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "/".into());
        json!({"roots": [{"uri": format!("file://{cwd}"), "name": "working directory"}]})
    }
}

fn main() {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("mrtr-client: {e}");
            std::process::exit(2);
        }
    }
}

fn parse_json(what: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("{what} is not valid JSON: {e}"))
}

fn run(args: &Args) -> Result<bool, String> {
    let probe_timeout = mrtr_native::parse_wait(&args.probe_timeout)
        .map_err(|e| format!("--probe-timeout {:?}: {e}", args.probe_timeout))?;
    let caps_raw = parse_json("--caps", &args.caps)?;
    let tool_args = parse_json("--args", &args.args)?;
    let mut values = Map::new();
    for kv in &args.set {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("--set {kv:?} is not NAME=VALUE"))?;
        values.insert(
            k.to_owned(),
            serde_json::from_str(v).unwrap_or_else(|_| json!(v)),
        );
    }
    let mut host = CliHost {
        values,
        decline: args.decline,
        interactive: !args.yes && std::io::stdin().is_terminal(),
    };
    let echo = !args.quiet;
    let is_url = args.target.len() == 1
        && (args.target[0].starts_with("http://") || args.target[0].starts_with("https://"));
    let mut transport: Box<dyn Transport> = if is_url {
        Box::new(HttpTransport::new(
            &args.target[0],
            args.token.clone(),
            echo,
        ))
    } else {
        Box::new(StdioTransport::spawn(&args.target, echo)?)
    };

    let mut client = Client::new(
        ClientCapabilities::from_value(&caps_raw),
        "mrtr-client",
        env!("CARGO_PKG_VERSION"),
    );
    client.envelope.raw_capabilities = caps_raw.clone();
    client.envelope.protocol_version = args.protocol_version.clone();

    if let Ok(scenario) = std::env::var("MCP_CONFORMANCE_SCENARIO") {
        host.interactive = false;
        return conformance(&scenario, &mut client, transport.as_mut(), &mut host);
    }

    let modern = match args.era.as_str() {
        "modern" => true,
        "legacy" => false,
        _ if is_url => true,
        _ => probe(&mut client, transport.as_mut(), probe_timeout)?,
    };
    if modern && is_url {
        // Learn which of the tool's parameters travel as Mcp-Param-* headers too (the
        // transport reads them off the listing). A server without tools/list still gets the call.
        let list = client.simple("tools/list", json!({}));
        let _ = transport.request(&list, &mut no_requests);
    }
    let result = if modern {
        call_modern(
            &mut client,
            transport.as_mut(),
            &mut host,
            "tools/call",
            json!({"name": args.tool, "arguments": tool_args}),
        )
    } else {
        call_legacy(
            transport.as_mut(),
            &mut host,
            &caps_raw,
            &args.tool,
            tool_args,
        )
    };
    report(result)
}

/// The stdio probe of the spec's backward-compatibility rules: `server/discover` first; a
/// `DiscoverResult` means modern, and so do -32020 and -32021 (errors only 2026-07-28 has); a
/// -32022 naming 2026-07-28 means modern with that version (probe once more with it, never
/// fall back); anything else or silence means legacy.
fn probe(client: &mut Client, t: &mut dyn Transport, timeout_s: f64) -> Result<bool, String> {
    let mut corrected = false;
    loop {
        let msg = client.simple("server/discover", json!({}));
        let response = match t.request_within(
            &msg,
            std::time::Duration::from_secs_f64(timeout_s),
            &mut |_| json!({"code": -32601, "message": "unexpected request"}),
        ) {
            Ok(r) => Some(r),
            Err(e) if e.starts_with(TIMED_OUT) => None,
            Err(e) => return Err(e),
        };
        match classify_probe(response.as_ref()) {
            ProbeVerdict::Modern => {
                if let Some(code) = response.as_ref().and_then(|r| classify(r).code()) {
                    eprintln!("mrtr-client: server/discover was refused with {code}, an error only 2026-07-28 has: speaking 2026-07-28, not falling back");
                }
                return Ok(true);
            }
            ProbeVerdict::RetryWith(v) if !corrected => {
                eprintln!(
                    "mrtr-client: the server does not speak {}; probing again with {v}",
                    client.envelope.protocol_version
                );
                client.envelope.protocol_version = v;
                corrected = true;
            }
            ProbeVerdict::RetryWith(v) => {
                return Err(format!(
                    "the server refused {v} twice; no version in common"
                ))
            }
            ProbeVerdict::NoCommonVersion(s) => {
                return Err(format!(
                    "the server speaks only {} (modern, but none this client speaks)",
                    s.join(", ")
                ))
            }
            ProbeVerdict::Legacy => {
                let why = if response.is_none() {
                    format!("no answer to server/discover within {timeout_s} s")
                } else {
                    "no 2026-07-28 DiscoverResult".into()
                };
                eprintln!("mrtr-client: {why}; falling back to the 2025-11-25 handshake");
                return Ok(false);
            }
        }
    }
}

fn report(result: Result<Value, String>) -> Result<bool, String> {
    match result {
        Ok(r) => {
            let texts: Vec<&str> = r
                .get("content")
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            let is_error = r.get("isError") == Some(&json!(true));
            println!(
                "{}: {}",
                if is_error { "tool error" } else { "result" },
                if texts.is_empty() {
                    r.to_string()
                } else {
                    texts.join(" ")
                }
            );
            Ok(!is_error)
        }
        Err(e) => {
            println!("failed: {e}");
            Ok(false)
        }
    }
}

fn no_requests(_: &Value) -> Value {
    json!({"code": -32601, "message": "a 2026-07-28 server does not send requests"})
}

fn call_modern(
    client: &mut Client,
    t: &mut dyn Transport,
    host: &mut dyn Host,
    method: &str,
    params: Value,
) -> Result<Value, String> {
    let (mut call, mut msg) = client.begin(method, params);
    loop {
        let resp = t.request(&msg, &mut no_requests)?;
        match client.on_response(&mut call, &resp, host) {
            Step::Retry(next) => msg = next,
            Step::Task { after_ms, request } => {
                // The server's poll interval, bounded by the engine (50 ms to 60 s).
                std::thread::sleep(std::time::Duration::from_millis(after_ms));
                msg = request;
            }
            Step::Complete(r) => return Ok(r),
            Step::Failed(e) => return Err(e.to_string()),
        }
    }
}

fn call_legacy(
    t: &mut dyn Transport,
    host: &mut dyn Host,
    caps: &Value,
    tool: &str,
    arguments: Value,
) -> Result<Value, String> {
    let mut answer = |req: &Value| -> Value {
        let method = req.get("method").and_then(Value::as_str).unwrap_or("");
        if method == "ping" {
            return json!({});
        }
        match InputRequest::from_value(req) {
            Ok(r @ (InputRequest::ElicitForm { .. } | InputRequest::ElicitUrl { .. })) => {
                host.elicit(method, &r)
            }
            Ok(r @ InputRequest::Sampling { .. }) => host
                .sample(method, &r)
                .unwrap_or_else(|| json!({"code": -1, "message": "the user declined"})),
            Ok(InputRequest::Roots) => host.roots(method),
            Err(e) => json!({"code": -32601, "message": e}),
        }
    };
    let init = json!({"jsonrpc": "2.0", "id": "legacy-initialize", "method": "initialize", "params": {
        "protocolVersion": LEGACY_VERSION, "capabilities": caps, "clientInfo": {"name": "mrtr-client", "version": env!("CARGO_PKG_VERSION")}}});
    let r = t.request(&init, &mut answer)?;
    if let Answered::Error(_) = classify(&r) {
        return Err(format!("initialize failed: {}", r["error"]));
    }
    t.notify(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let call = json!({"jsonrpc": "2.0", "id": "legacy-call", "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let r = t.request(&call, &mut answer)?;
    match classify(&r) {
        Answered::Complete(res) | Answered::InputRequired(res) => Ok(res),
        Answered::Error(_) => Err(format!("server error {}", r["error"])),
        Answered::Malformed(why) => Err(format!("malformed response: {why}")),
    }
}

/// The conformance suite's client scenario for SEP-2322: a round trip with state, an
/// unrelated call in between (which must carry no state), a round trip without state, and a
/// result without resultType (complete, no retry).
fn conformance(
    scenario: &str,
    client: &mut Client,
    t: &mut dyn Transport,
    host: &mut dyn Host,
) -> Result<bool, String> {
    if scenario != "sep-2322-client-request-state" {
        eprintln!("mrtr-client: unknown scenario {scenario:?}; calling the default tool");
    }
    let list = client.simple("tools/list", json!({}));
    let tools: Vec<String> = t
        .request(&list, &mut no_requests)?
        .pointer("/result/tools")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let has = |n: &str| tools.iter().any(|x| x == n);
    let mut ok = true;
    if has("test_mrtr_echo_state") {
        let (mut call, first) = client.begin(
            "tools/call",
            json!({"name": "test_mrtr_echo_state", "arguments": {}}),
        );
        let resp = t.request(&first, &mut no_requests)?;
        if has("test_mrtr_unrelated") {
            ok &= call_modern(
                client,
                t,
                host,
                "tools/call",
                json!({"name": "test_mrtr_unrelated", "arguments": {}}),
            )
            .is_ok();
        }
        let mut step = client.on_response(&mut call, &resp, host);
        loop {
            match step {
                Step::Retry(next) | Step::Task { request: next, .. } => {
                    let resp = t.request(&next, &mut no_requests)?;
                    step = client.on_response(&mut call, &resp, host);
                }
                Step::Complete(_) => break,
                Step::Failed(e) => {
                    eprintln!("mrtr-client: test_mrtr_echo_state: {e}");
                    ok = false;
                    break;
                }
            }
        }
    }
    for name in tools
        .iter()
        .filter(|n| !matches!(n.as_str(), "test_mrtr_echo_state" | "test_mrtr_unrelated"))
    {
        if let Err(e) = call_modern(
            client,
            t,
            host,
            "tools/call",
            json!({"name": name, "arguments": {}}),
        ) {
            eprintln!("mrtr-client: {name}: {e}");
            ok = false;
        }
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Args::command().debug_assert();
    }
}
