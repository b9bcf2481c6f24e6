//! rmcp-deploy-client: calls the lab's `deploy` tool with rmcp 3.11's client, answers the
//! confirmation with yes, and prints what came back (interop greps "deployed to staging").
//!
//!   rmcp-deploy-client [--era discover|auto|legacy] [--token T] [--tool deploy]
//!                      [--env staging] [--arguments JSON] [--tasks] (URL | -- SERVER-COMMAND…)
//!
//! With `--tasks` it declares the tasks extension, sends the call once (`call_tool_once`), and
//! when the server answers with a task follows it with rmcp's `get_task`, `update_task` (a
//! yes to each question, once) and the task's poll interval, to its end.
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
[--tool NAME] [--env ENV] [--arguments JSON] [--tasks] (URL | -- SERVER-COMMAND...)
  --tasks    declare the tasks extension and follow a task the server answers with
  --arguments the tool's arguments as JSON (instead of {\"env\": ENV})
  --era      discover: server/discover and per-request metadata (2026-07-28); auto: probe,
             fall back to initialize; legacy: initialize at 2025-11-25 (default: discover)
  --token    a bearer token for HTTP (the lab's demo convention: bob-token is bob)";

/// The host: says yes to every form, filling each field with a plain value of its type.
#[derive(Clone)]
struct Yes {
    era: String,
    tasks: bool,
}

/// A yes to a form: each field a plain value of its type.
fn yes_to(schema: &Value) -> Map<String, Value> {
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
    content
}

impl ClientHandler for Yes {
    fn get_info(&self) -> ClientConfig {
        let caps = if self.tasks {
            ClientCapabilities::builder()
                .enable_elicitation()
                .enable_tasks()
                .build()
        } else {
            ClientCapabilities::builder().enable_elicitation().build()
        };
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
        let content = yes_to(&schema);
        println!("answered: accept {}", Value::Object(content.clone()));
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
    }
}

struct Args {
    era: String,
    token: Option<String>,
    tool: String,
    env: String,
    arguments: Option<Map<String, Value>>,
    tasks: bool,
    url: Option<String>,
    command: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        era: "discover".into(),
        token: None,
        tool: "deploy".into(),
        env: "staging".into(),
        arguments: None,
        tasks: false,
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
            "--tasks" => a.tasks = true,
            "--arguments" => {
                let v: Value = serde_json::from_str(&value()?)
                    .map_err(|e| format!("--arguments is not JSON: {e}"))?;
                a.arguments = Some(
                    v.as_object()
                        .cloned()
                        .ok_or("--arguments must be an object")?,
                );
            }
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
    let host = Yes {
        era: a.era.clone(),
        tasks: a.tasks,
    };
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
    let args = a.arguments.clone().unwrap_or_else(|| {
        let mut args = Map::new();
        args.insert("env".into(), json!(a.env));
        args
    });
    let params = CallToolRequestParams::new(a.tool.clone()).with_arguments(args);
    let outcome = if a.tasks {
        follow_task(&client, params).await
    } else {
        client.call_tool(params).await
    };
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

/// The call sent once; a task it is answered with followed to its end: polled at its interval,
/// each question answered yes once.
async fn follow_task<S: rmcp::service::Service<RoleClient>>(
    client: &rmcp::service::RunningService<RoleClient, S>,
    params: CallToolRequestParams,
) -> Result<CallToolResult, ServiceError> {
    let created = match client.call_tool_once(params).await? {
        CallToolResponse::Task(t) => t,
        CallToolResponse::Complete(r) => return Ok(r),
        _ => {
            return Err(ServiceError::McpError(ErrorData::internal_error(
                "input_required before a task: this client answers only inside a task",
                None,
            )));
        }
    };
    let id = created.task.task_id.clone();
    println!("task: {id} ({:?})", created.task.status);
    let mut answered = std::collections::BTreeSet::new();
    for _ in 0..600 {
        let got = client.get_task(GetTaskParams::new(id.clone())).await?;
        let wait = got
            .task
            .task
            .poll_interval_ms
            .unwrap_or(500)
            .clamp(50, 5_000);
        match got.task.payload {
            TaskPayload::Completed { result } => {
                return serde_json::from_value(Value::Object(result)).map_err(|e| {
                    ServiceError::McpError(ErrorData::internal_error(e.to_string(), None))
                });
            }
            TaskPayload::Failed { error } => {
                return Err(ServiceError::McpError(ErrorData::internal_error(
                    format!("the task failed: {}", Value::Object(error)),
                    None,
                )));
            }
            TaskPayload::Cancelled => {
                return Err(ServiceError::McpError(ErrorData::internal_error(
                    "the task was cancelled",
                    None,
                )));
            }
            TaskPayload::InputRequired { input_requests } => {
                let mut answers = InputResponses::new();
                for (key, request) in input_requests {
                    if answered.insert(key.clone()) {
                        let raw = serde_json::to_value(&request).unwrap_or(Value::Null);
                        let content = yes_to(
                            raw.pointer("/params/requestedSchema")
                                .unwrap_or(&Value::Null),
                        );
                        println!(
                            "task asked {key}: answered accept {}",
                            Value::Object(content.clone())
                        );
                        answers.insert(key, json!({"action": "accept", "content": content}));
                    }
                }
                if !answers.is_empty() {
                    client
                        .update_task(UpdateTaskParams::new(id.clone(), answers))
                        .await?;
                    continue;
                }
            }
            _ => {}
        }
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
    }
    Err(ServiceError::McpError(ErrorData::internal_error(
        "the task did not end within 600 polls",
        None,
    )))
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
