//! rmcp-deploy-client: calls the lab's `deploy` tool with rmcp 3.11's client, answers the
//! confirmation with yes, and prints what came back (interop greps "deployed to staging").
//!
//!   rmcp-deploy-client [--era discover|auto|legacy] [--token T] [--tool deploy]
//!                      [--env staging] (URL | -- SERVER-COMMAND…)
//!
//! The rounds are rmcp's: `call_tool` asks this `ClientHandler` for each input request,
//! echoes the ticket and retries with a new id. The era is the lifecycle rmcp is told to
//! start (`serve` alone starts the legacy `initialize` one).

use rmcp::model::*;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, ServiceError};
use serde_json::{Map, Value, json};

const USAGE: &str = "usage: rmcp-deploy-client [--era discover|auto|legacy] [--token TOKEN] \
[--tool NAME] [--env ENV] (URL | -- SERVER-COMMAND...)
  --era      discover: server/discover and per-request metadata (2026-07-28); auto: probe,
             fall back to initialize; legacy: initialize at 2025-11-25 (default: discover)
  --token    a bearer token for HTTP (the lab's demo convention: bob-token is bob)";

/// The host: says yes to every form, filling each field with a plain value of its type.
#[derive(Clone)]
struct Yes {
    era: String,
}

impl ClientHandler for Yes {
    fn get_info(&self) -> ClientConfig {
        let caps = ClientCapabilities::builder().enable_elicitation().build();
        let info = ClientConfig::new(
            caps,
            Implementation::new("rmcp-deploy-client", env!("CARGO_PKG_VERSION")),
        );
        // A legacy client asks for a 2025 version in initialize; the others the MRTR one.
        if self.era == "legacy" {
            info.with_protocol_version(ProtocolVersion::V_2025_11_25)
        } else {
            info.with_protocol_version(ProtocolVersion::V_2026_07_28)
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = &request
        else {
            eprintln!("asked to open a URL: declined");
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        println!("asked: {message}");
        let schema = serde_json::to_value(requested_schema).unwrap_or(Value::Null);
        let mut content = Map::new();
        for (name, prop) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let v = match prop.get("type").and_then(Value::as_str) {
                Some("boolean") => json!(true),
                Some("number") | Some("integer") => json!(1),
                _ => json!("yes"),
            };
            content.insert(name.clone(), v);
        }
        println!("answered: accept {}", Value::Object(content.clone()));
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
    }
}

struct Args {
    era: String,
    token: Option<String>,
    tool: String,
    env: String,
    url: Option<String>,
    command: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        era: "discover".into(),
        token: None,
        tool: "deploy".into(),
        env: "staging".into(),
        url: None,
        command: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--era" => {
                a.era = value()?;
                if !["discover", "auto", "legacy"].contains(&a.era.as_str()) {
                    return Err(format!(
                        "--era: {:?} is not discover, auto or legacy",
                        a.era
                    ));
                }
            }
            "--token" => a.token = Some(value()?),
            "--tool" => a.tool = value()?,
            "--env" => a.env = value()?,
            "--" => {
                a.command = it.by_ref().collect();
                break;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            url if !url.starts_with('-') && a.url.is_none() => a.url = Some(url.to_owned()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if a.url.is_some() != a.command.is_empty() {
        return Err("give a URL or, after --, a server command".into());
    }
    Ok(a)
}

fn lifecycle(era: &str) -> ClientLifecycleMode {
    let modern = vec![ProtocolVersion::V_2026_07_28];
    match era {
        "legacy" => ClientLifecycleMode::Initialize,
        "auto" => ClientLifecycleMode::Auto {
            preferred_versions: modern,
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
        _ => ClientLifecycleMode::Discover {
            preferred_versions: modern,
        },
    }
}

async fn run(a: Args) -> Result<(), String> {
    let host = Yes { era: a.era.clone() };
    let mode = lifecycle(&a.era);
    let client = if let Some(url) = &a.url {
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
        if let Some(t) = &a.token {
            config = config.auth_header(t.clone());
        }
        host.serve_with_lifecycle(StreamableHttpClientTransport::from_config(config), mode)
            .await
    } else {
        let mut cmd = tokio::process::Command::new(&a.command[0]);
        cmd.args(&a.command[1..]);
        let child = TokioChildProcess::new(cmd)
            .map_err(|e| format!("cannot start {:?}: {e}", a.command[0]))?;
        host.serve_with_lifecycle(child, mode).await
    }
    .map_err(|e| format!("could not connect: {e}"))?;
    let version = client.peer_info().map(|i| i.protocol_version.to_string());
    println!(
        "era: {} (protocol {})",
        a.era,
        version.as_deref().unwrap_or("unknown")
    );
    let mut args = Map::new();
    args.insert("env".into(), json!(a.env));
    let params = CallToolRequestParams::new(a.tool.clone()).with_arguments(args);
    let outcome = client.call_tool(params).await;
    let _ = client.cancel().await;
    match outcome {
        Ok(result) => {
            for c in &result.content {
                if let Some(t) = c.as_text() {
                    println!("result: {}", t.text);
                }
            }
            println!("{}", serde_json::to_string(&result).unwrap_or_default());
            if result.is_error == Some(true) {
                return Err("the tool reported an error".into());
            }
            Ok(())
        }
        Err(ServiceError::McpError(e)) => Err(format!("error {}: {}", e.code.0, e.message)),
        Err(e) => Err(format!("error: {e}")),
    }
}

#[tokio::main]
async fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rmcp-deploy-client: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(args).await {
        // On stdout too, beside the result it replaces, for the interop rows to grep.
        println!("{e}");
        std::process::exit(1);
    }
}
