//! rmcp-deploy-server: the lab's `deploy` tool (and `rollback`, a second tool that mints
//! tickets, so mrtr-audit's other-tool row has something to present a deploy ticket to)
//! written the way rmcp 3.11's docs and examples write an MRTR server: `#[tool_router]`
//! tools that answer with an `InputRequiredResult` and keep their state in a
//! `requestState` sealed by rmcp's `RequestStateCodec`. It also serves the conformance
//! suite's `input-required-result-*` fixtures, so the suite can be run against it. And the
//! deploy as a task (`deploy_as_task`, the tasks extension) on rmcp's own `TaskManager`: it
//! builds for a second, asks `confirm` inside the task, and deploys on a yes. At every
//! `--bind` level the task methods are rmcp's as they come: its `TaskManager` binds no task
//! to a caller (a finding `mrtr-audit`'s `task-other-caller` row measures).
//!
//!   rmcp-deploy-server --stdio | --http ADDR  [--bind none|docs|full] [--ttl S] [--key-hex HEX]
//!
//! `--bind` is how much of what the codec offers the handler uses, because rmcp leaves all
//! of it to the handler (it never opens a ticket by itself):
//!   none  as rmcp's own MRTR example seals: `seal_json(&state)`, no associated data, no TTL.
//!   docs  as the codec's documentation suggests: the principal and the tool as associated
//!         data (joined with an unescaped `|`, as there), and a TTL.
//!   full  hardened: a length-prefixed binding of principal, tool and a SHA-256 digest of the
//!         canonical arguments; a TTL that asking again does not renew; single use in this
//!         process; no request for a kind of input the client did not declare.
//!
//! Principals follow the lab's demo convention, not authentication: on HTTP
//! `Authorization: Bearer bob-token` is bob and no header is anonymous; on stdio the one
//! process user is the principal (as mrtr-server does).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses as Answers, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

const USAGE: &str = "usage: rmcp-deploy-server (--stdio | --http ADDR) [--bind none|docs|full] \
[--ttl SECONDS] [--key-hex HEX]
  --stdio          newline-delimited JSON-RPC on stdin/stdout
  --http ADDR      stateless Streamable HTTP at http://ADDR/mcp, JSON responses (port 0: any)
  --bind LEVEL     none: as rmcp's example (no binding, no expiry); docs: principal and tool
                   bound, a TTL; full: principal, tool and argument digest bound, a TTL that
                   is not renewed, single use, capability gating (default: full)
  --ttl SECONDS    ticket lifetime for docs and full, 1 to 31536000 (default 120; env MRTR_TTL)
  --key-hex HEX    the codec key, at least 32 bytes (env MRTR_KEY; default: random per process)";

/// How much of the codec's protection the handler asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bind {
    None,
    Docs,
    Full,
}

/// Who is calling, by the lab's demo convention.
fn principal_of(ctx: &RequestContext<RoleServer>, stdio_user: &str) -> String {
    // rmcp's Streamable HTTP service puts the request's head into the extensions; on stdio
    // there is none, and the principal is the process user.
    let Some(parts) = ctx.extensions.get::<http::request::Parts>() else {
        return format!("user:{stdio_user}");
    };
    let header = parts
        .headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let token = match header {
        None => return "anonymous".into(),
        Some(h) => h.strip_prefix("Bearer ").unwrap_or(h).trim(),
    };
    match token.strip_suffix("-token") {
        Some(name) if !name.is_empty() => format!("user:{name}"),
        _ if token.is_empty() => "anonymous".into(),
        _ => format!("user:{token}"),
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// What a ticket is about: who asked, which tool, with which arguments.
struct Call<'a> {
    principal: String,
    tool: &'a str,
    arguments: &'a Value,
}

/// The JSON with every object's keys in order, so equal arguments digest equally whatever
/// order the client wrote them in (and whether serde_json preserves order or not).
fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// `len ‖ bytes` for each part: no choice of principal or tool name can make two different
/// calls encode alike (which an unescaped separator allows: "a|b" + "c" = "a" + "b|c").
fn length_prefixed(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        out.extend_from_slice(&(p.len() as u32).to_be_bytes());
        out.extend_from_slice(p);
    }
    out
}

/// The state a ticket carries. In `full` the envelope adds a grant id (single use) and the
/// first ticket's deadline (so asking again cannot extend it); the other levels seal the
/// tool's state alone, as rmcp's example does.
#[derive(Serialize, Deserialize)]
struct Envelope {
    state: Value,
    grant: String,
    until_ms: u64,
}

/// An opened ticket.
struct Opened {
    state: Value,
    /// `full`: the grant id and deadline, carried into any ticket minted to ask again.
    grant: Option<(String, u64)>,
}

struct Sealer {
    codec: RequestStateCodec,
    bind: Bind,
    ttl: Duration,
    /// `full`: grants already redeemed, with their deadlines (forgotten once past them).
    spent: Mutex<HashMap<String, u64>>,
}

/// The one error a client sees for any ticket refused, whatever the reason (the reason goes
/// to stderr): the reference SDKs' -32602, so a client cannot probe which check failed.
fn refused(why: &str) -> ErrorData {
    eprintln!("[rmcp-deploy-server] ticket refused: {why}");
    ErrorData::invalid_params(
        "Invalid or expired requestState",
        Some(json!({"reason": "invalid_request_state"})),
    )
}

impl Sealer {
    fn associated_data(&self, call: &Call) -> Vec<u8> {
        match self.bind {
            Bind::None => Vec::new(),
            // The codec's documented example: principal and tool, joined with `|`.
            Bind::Docs => format!("{}|tools/call:{}", call.principal, call.tool).into_bytes(),
            Bind::Full => {
                let args = serde_json::to_vec(&canonical(call.arguments)).unwrap_or_default();
                let digest = Sha256::digest(&args);
                length_prefixed(&[call.principal.as_bytes(), call.tool.as_bytes(), &digest])
            }
        }
    }

    /// A ticket for `state`; `carry` is the grant of the ticket being answered, when asking
    /// again (`full` keeps its id and deadline).
    fn mint(&self, call: &Call, state: Value, carry: Option<&Opened>) -> Result<String, ErrorData> {
        let ad = self.associated_data(call);
        let sealed = match self.bind {
            // rmcp's example: the state alone, no options.
            Bind::None => self.codec.seal_json(&state),
            Bind::Docs => self.codec.seal_json_with(
                &state,
                &SealOptions::new().associated_data(&ad).ttl(self.ttl),
            ),
            Bind::Full => {
                let (grant, until_ms) = match carry.and_then(|o| o.grant.clone()) {
                    Some(g) => g,
                    None => (
                        uuid::Uuid::new_v4().simple().to_string(),
                        now_ms() + self.ttl.as_millis() as u64,
                    ),
                };
                // The codec's TTL is relative: what is left of the first ticket's life.
                let left = until_ms.saturating_sub(now_ms());
                if left == 0 {
                    return Err(refused("asked again after the grant's deadline"));
                }
                let env = Envelope {
                    state,
                    grant,
                    until_ms,
                };
                self.codec.seal_json_with(
                    &env,
                    &SealOptions::new()
                        .associated_data(&ad)
                        .ttl(Duration::from_millis(left)),
                )
            }
        };
        sealed.map_err(|e| ErrorData::internal_error(format!("sealing failed: {e}"), None))
    }

    fn open(&self, call: &Call, ticket: &str) -> Result<Opened, ErrorData> {
        let ad = self.associated_data(call);
        match self.bind {
            Bind::None => self
                .codec
                .open_json::<Value>(ticket)
                .map(|state| Opened { state, grant: None })
                .map_err(|e| refused(&e.to_string())),
            Bind::Docs => self
                .codec
                .open_json_with::<Value>(ticket, &ad)
                .map(|state| Opened { state, grant: None })
                .map_err(|e| refused(&e.to_string())),
            Bind::Full => {
                let env: Envelope = self
                    .codec
                    .open_json_with(ticket, &ad)
                    .map_err(|e| refused(&e.to_string()))?;
                if self
                    .spent
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains_key(&env.grant)
                {
                    return Err(refused("grant already redeemed"));
                }
                Ok(Opened {
                    state: env.state,
                    grant: Some((env.grant, env.until_ms)),
                })
            }
        }
    }

    /// Marks the grant redeemed (`full`), atomically: of two retries racing, one wins.
    fn spend(&self, opened: &Opened) -> Result<(), ErrorData> {
        let Some((grant, until_ms)) = &opened.grant else {
            return Ok(());
        };
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        let now = now_ms();
        spent.retain(|_, until| *until > now);
        if spent.insert(grant.clone(), *until_ms).is_some() {
            return Err(refused("grant already redeemed (raced)"));
        }
        Ok(())
    }
}

/// A form question of one field.
fn ask_form(message: &str, field: &str, kind: &str) -> InputRequest {
    let schema =
        json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]});
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.into(),
            requested_schema: serde_json::from_value(schema).expect("a valid form schema"),
        },
    ))
}

#[allow(deprecated)] // sampling and roots are deprecated in 2026-07-28, still in the suite
fn ask_sampling(question: &str) -> InputRequest {
    InputRequest::CreateMessage(CreateMessageRequest::new(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(question)],
        100,
    )))
}

#[allow(deprecated)]
fn ask_roots() -> InputRequest {
    InputRequest::ListRoots(ListRootsRequest::default())
}

fn asking(pairs: Vec<(&str, InputRequest)>, ticket: Option<String>) -> InputRequiredResult {
    let requests: InputRequests = pairs.into_iter().map(|(k, r)| (k.to_owned(), r)).collect();
    InputRequiredResult::new(Some(requests), ticket)
}

fn text(t: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(t.into())]).into()
}

/// The accepted form's content, if the answer under `key` is one.
fn accepted<'a>(answers: &'a Option<InputResponses>, key: &str) -> Option<&'a Map<String, Value>> {
    let a = answers.as_ref()?.get(key)?;
    (a.get("action")? == "accept").then(|| a.get("content")?.as_object())?
}

fn answered(answers: &Option<InputResponses>, key: &str) -> bool {
    answers.as_ref().is_some_and(|a| a.contains_key(key))
}

/// What the client declared it can be asked, in this request.
struct Can {
    form: bool,
    sampling: bool,
    roots: bool,
}

fn can(ctx: &RequestContext<RoleServer>) -> Can {
    let caps = ctx.client_capabilities().unwrap_or_default();
    Can {
        // A bare `elicitation: {}` means form mode.
        form: caps
            .elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none()),
        sampling: caps.sampling.is_some(),
        roots: caps.roots.is_some(),
    }
}

fn missing_capability(what: Value) -> ErrorData {
    ErrorData::new(
        ErrorCode(-32021),
        "Server requires a client capability for this request",
        Some(json!({"requiredCapabilities": what})),
    )
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct EnvArgs {
    /// Where to deploy, e.g. staging or prod.
    env: String,
    /// Anything else the client sent: part of the arguments `full` digests.
    #[serde(flatten)]
    #[schemars(skip)]
    extra: Map<String, Value>,
}

/// What deploy and rollback say: the tool, its question and its answer.
struct Verb {
    tool: &'static str,
    question: &'static str,
    done: &'static str,
}

const DEPLOY: Verb = Verb {
    tool: "deploy",
    question: "Deploy to",
    done: "deployed to",
};
const ROLLBACK: Verb = Verb {
    tool: "rollback",
    question: "Roll back",
    done: "rolled back",
};

#[derive(Clone)]
struct DeployServer {
    sealer: Arc<Sealer>,
    stdio_user: Arc<str>,
    /// HTTP serves 2026-07-28 only (rmcp's advice with per-request metadata required);
    /// stdio also lets a 2025-era client initialize (and then meet the -32600 divergence).
    modern_only: bool,
    /// The tasks this process runs (rmcp's runtime for the tasks extension).
    tasks: Arc<rmcp::task_manager::TaskManager>,
    tool_router: ToolRouter<Self>,
}

impl DeployServer {
    /// deploy and rollback: ask "VERB to ENV?", then do it on an accepted `confirm: true`.
    fn confirm_then(
        &self,
        Verb {
            tool,
            question,
            done,
        }: &Verb,
        args: &EnvArgs,
        ticket: Option<String>,
        answers: &Option<InputResponses>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let s = &self.sealer;
        if s.bind == Bind::Full && !can(ctx).form {
            // rmcp does not check what a handler asks for against the client's declaration.
            return Err(missing_capability(json!({"elicitation": {"form": {}}})));
        }
        let arguments = serde_json::to_value(args).unwrap_or(Value::Null);
        let call = Call {
            principal: principal_of(ctx, &self.stdio_user),
            tool,
            arguments: &arguments,
        };
        let question = ask_form(&format!("{question} {}?", args.env), "confirm", "boolean");
        let Some(ticket) = ticket else {
            let t = s.mint(&call, json!({"env": args.env}), None)?;
            return Ok(asking(vec![("confirm", question)], Some(t)).into());
        };
        let opened = s.open(&call, &ticket)?;
        let env = opened
            .state
            .get("env")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match accepted(answers, "confirm").and_then(|c| c.get("confirm")) {
            Some(Value::Bool(true)) => {
                s.spend(&opened)?;
                Ok(text(format!("{done} {env}")))
            }
            // Anything else is no answer: ask again (full keeps the grant and its deadline).
            _ => {
                let t = s.mint(&call, opened.state.clone(), Some(&opened))?;
                Ok(asking(vec![("confirm", question)], Some(t)).into())
            }
        }
    }

    /// A fixture's ticket: the same sealer, bound to the anonymous-or-not caller and the tool.
    fn fixture_call<'a>(&self, ctx: &RequestContext<RoleServer>, tool: &'a str) -> Call<'a> {
        static NO_ARGS: Value = Value::Null;
        Call {
            principal: principal_of(ctx, &self.stdio_user),
            tool,
            arguments: &NO_ARGS,
        }
    }
}

#[tool_router]
impl DeployServer {
    fn new(sealer: Arc<Sealer>, stdio_user: &str, modern_only: bool) -> Self {
        DeployServer {
            sealer,
            stdio_user: stdio_user.into(),
            modern_only,
            tasks: Arc::new(rmcp::task_manager::TaskManager::new()),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Deploy to an environment, after the user confirms.")]
    async fn deploy(
        &self,
        Parameters(args): Parameters<EnvArgs>,
        RequestState(ticket): RequestState,
        Answers(answers): Answers,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.confirm_then(&DEPLOY, &args, ticket, &answers, &ctx)
    }

    #[tool(description = "Roll an environment back, after the user confirms.")]
    async fn rollback(
        &self,
        Parameters(args): Parameters<EnvArgs>,
        RequestState(ticket): RequestState,
        Answers(answers): Answers,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.confirm_then(&ROLLBACK, &args, ticket, &answers, &ctx)
    }

    #[tool(
        description = "Deploy to an environment as a task: build, ask the user to confirm mid-way, deploy."
    )]
    async fn deploy_as_task(
        &self,
        Parameters(args): Parameters<EnvArgs>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // rmcp answers -32021 itself when the request did not declare the extension.
        let env = args.env.clone();
        let options = rmcp::task_manager::TaskOptions::new()
            .with_ttl_ms(600_000)
            .with_poll_interval_ms(500)
            .with_status_message(format!("Building for {env}."));
        let task = self.tasks.spawn(options, move |ctx| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                ctx.set_status_message(format!("Built; waiting for the go-ahead for {env}."));
                let question = ask_form(
                    &format!("Roll the build out to {env}?"),
                    "confirm",
                    "boolean",
                );
                let answer = ctx.request_input("confirm", question).await?;
                let yes = answer.get("action") == Some(&json!("accept"))
                    && answer.pointer("/content/confirm") == Some(&json!(true));
                let words = if yes {
                    format!("deployed to {env}")
                } else {
                    format!("not deployed: the user did not confirm the deploy to {env}")
                };
                Ok(CallToolResult::success(vec![ContentBlock::text(words)]))
            })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    // The conformance suite's fixtures (names and keys fixed by its scenarios).

    #[tool(description = "Asks the user's name.")]
    async fn test_input_required_result_elicitation(
        &self,
        Answers(answers): Answers,
    ) -> Result<CallToolResponse, ErrorData> {
        // No ticket: an answer is enough (the suite calls it with answers and no state).
        if let Some(a) = answers.as_ref().and_then(|a| a.get("user_name")) {
            let name = (a.get("action").and_then(Value::as_str) == Some("accept"))
                .then(|| a.pointer("/content/name").and_then(Value::as_str))
                .flatten();
            return match name {
                Some(name) => Ok(text(format!("Hello, {name}!"))),
                None if a.is_object() && a.get("action").is_some() => Ok(text("No name given.")),
                None => Err(ErrorData::invalid_params(
                    "inputResponses.user_name is not an elicitation result",
                    None,
                )),
            };
        }
        Ok(asking(
            vec![(
                "user_name",
                ask_form("What is your name?", "name", "string"),
            )],
            None,
        )
        .into())
    }

    #[tool(description = "Asks the host's model a question.")]
    async fn test_input_required_result_sampling(
        &self,
        Answers(answers): Answers,
    ) -> Result<CallToolResponse, ErrorData> {
        match answers.as_ref().and_then(|a| a.get("capital_question")) {
            Some(a) if a.get("role").is_some() && a.get("content").is_some() => Ok(text(format!(
                "The model said: {}",
                a.pointer("/content/text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            ))),
            Some(_) => Err(ErrorData::invalid_params(
                "capital_question is not a sampling result",
                None,
            )),
            None => Ok(asking(
                vec![(
                    "capital_question",
                    ask_sampling("What is the capital of France?"),
                )],
                None,
            )
            .into()),
        }
    }

    #[tool(description = "Asks for the client's roots.")]
    async fn test_input_required_result_list_roots(
        &self,
        Answers(answers): Answers,
    ) -> Result<CallToolResponse, ErrorData> {
        match answers.as_ref().and_then(|a| a.get("client_roots")) {
            Some(a) => match a.get("roots").and_then(Value::as_array) {
                Some(r) => Ok(text(format!("{} root(s)", r.len()))),
                None => Err(ErrorData::invalid_params(
                    "client_roots is not a roots list",
                    None,
                )),
            },
            None => Ok(asking(vec![("client_roots", ask_roots())], None).into()),
        }
    }

    #[tool(description = "Asks a question and keeps state in a ticket.")]
    async fn test_input_required_result_request_state(
        &self,
        RequestState(ticket): RequestState,
        Answers(answers): Answers,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = self.fixture_call(&ctx, "test_input_required_result_request_state");
        let confirm = || ask_form("Continue?", "ok", "boolean");
        let Some(ticket) = ticket else {
            let t = self.sealer.mint(&call, json!({"step": "confirm"}), None)?;
            return Ok(asking(vec![("confirm", confirm())], Some(t)).into());
        };
        let opened = self.sealer.open(&call, &ticket)?;
        if accepted(&answers, "confirm").is_some() {
            self.sealer.spend(&opened)?;
            return Ok(text("state-ok"));
        }
        let t = self
            .sealer
            .mint(&call, opened.state.clone(), Some(&opened))?;
        Ok(asking(vec![("confirm", confirm())], Some(t)).into())
    }

    #[tool(description = "Asks three kinds of input at once.")]
    async fn test_input_required_result_multiple_inputs(
        &self,
        RequestState(ticket): RequestState,
        Answers(answers): Answers,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = self.fixture_call(&ctx, "test_input_required_result_multiple_inputs");
        let ask = || {
            vec![
                (
                    "user_name",
                    ask_form("What is your name?", "name", "string"),
                ),
                ("greeting", ask_sampling("Write a short greeting.")),
                ("client_roots", ask_roots()),
            ]
        };
        let Some(ticket) = ticket else {
            let t = self.sealer.mint(&call, json!({"step": "all"}), None)?;
            return Ok(asking(ask(), Some(t)).into());
        };
        let opened = self.sealer.open(&call, &ticket)?;
        if ["user_name", "greeting", "client_roots"]
            .iter()
            .all(|k| answered(&answers, k))
        {
            self.sealer.spend(&opened)?;
            return Ok(text("all three answered"));
        }
        let t = self
            .sealer
            .mint(&call, opened.state.clone(), Some(&opened))?;
        Ok(asking(ask(), Some(t)).into())
    }

    #[tool(description = "Asks twice, one round after the other.")]
    async fn test_input_required_result_multi_round(
        &self,
        RequestState(ticket): RequestState,
        Answers(answers): Answers,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = self.fixture_call(&ctx, "test_input_required_result_multi_round");
        let step1 = || ask_form("Step 1: what is your name?", "name", "string");
        let step2 = || ask_form("Step 2: what is your favourite colour?", "color", "string");
        let Some(ticket) = ticket else {
            let t = self.sealer.mint(&call, json!({"round": 1}), None)?;
            return Ok(asking(vec![("step1", step1())], Some(t)).into());
        };
        let opened = self.sealer.open(&call, &ticket)?;
        match opened.state.get("round").and_then(Value::as_u64) {
            // Answers are per round: the first one travels on in the next ticket.
            Some(1) if answered(&answers, "step1") => {
                let state = json!({"round": 2, "step1": answers.as_ref().and_then(|a| a.get("step1")).cloned()});
                let t = self.sealer.mint(&call, state, Some(&opened))?;
                Ok(asking(vec![("step2", step2())], Some(t)).into())
            }
            Some(2) if answered(&answers, "step2") => {
                self.sealer.spend(&opened)?;
                Ok(text("both rounds answered"))
            }
            Some(1) => Ok(asking(
                vec![("step1", step1())],
                Some(
                    self.sealer
                        .mint(&call, opened.state.clone(), Some(&opened))?,
                ),
            )
            .into()),
            _ => Ok(asking(
                vec![("step2", step2())],
                Some(
                    self.sealer
                        .mint(&call, opened.state.clone(), Some(&opened))?,
                ),
            )
            .into()),
        }
    }

    #[tool(description = "Asks a question; a tampered ticket must be refused.")]
    async fn test_input_required_result_tampered_state(
        &self,
        RequestState(ticket): RequestState,
        Answers(answers): Answers,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = self.fixture_call(&ctx, "test_input_required_result_tampered_state");
        let confirm = || ask_form("Continue?", "ok", "boolean");
        let Some(ticket) = ticket else {
            let t = self.sealer.mint(&call, json!({"step": "confirm"}), None)?;
            return Ok(asking(vec![("confirm", confirm())], Some(t)).into());
        };
        let opened = self.sealer.open(&call, &ticket)?;
        if answered(&answers, "confirm") {
            self.sealer.spend(&opened)?;
            return Ok(text("state verified"));
        }
        let t = self
            .sealer
            .mint(&call, opened.state.clone(), Some(&opened))?;
        Ok(asking(vec![("confirm", confirm())], Some(t)).into())
    }

    #[tool(description = "Asks only for what the client declared.")]
    async fn test_input_required_result_capabilities(
        &self,
        Answers(answers): Answers,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if answers.as_ref().is_some_and(|a| !a.is_empty()) {
            return Ok(text("answered with what the client can do"));
        }
        // This fixture adapts at every level: the suite checks that it does.
        let c = can(&ctx);
        let ask = if c.form {
            (
                "user_name",
                ask_form("What is your name?", "name", "string"),
            )
        } else if c.sampling {
            (
                "capital_question",
                ask_sampling("What is the capital of France?"),
            )
        } else if c.roots {
            ("client_roots", ask_roots())
        } else {
            return Err(missing_capability(json!({"elicitation": {}})));
        };
        Ok(asking(vec![ask], None).into())
    }
}

// The router built once, not per call (the macro's default is `Self::tool_router()`).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for DeployServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_tasks()
                .build(),
        );
        // MRTR needs 2026-07-28 (rmcp turns an InputRequiredResult for an older peer into -32600).
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info.server_info = Implementation::new("rmcp-deploy-server", env!("CARGO_PKG_VERSION"));
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        if self.modern_only {
            std::borrow::Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
        } else {
            std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks
            .get_task(&request.task_id)
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "test_input_required_result_prompt",
            Some("Asks for context, then answers."),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "test_input_required_result_prompt" {
            return Err(ErrorData::invalid_params(
                format!("no prompt {:?}", request.name),
                None,
            ));
        }
        if let Some(c) = accepted(&request.input_responses, "user_context") {
            let context = c.get("context").and_then(Value::as_str).unwrap_or("");
            return Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                format!("Answer with this context in mind: {context}"),
            )])
            .into());
        }
        let ask = ask_form("What context should the prompt use?", "context", "string");
        Ok(asking(vec![("user_context", ask)], None).into())
    }
}

struct Args {
    stdio: bool,
    http: Option<SocketAddr>,
    bind: Bind,
    ttl: u64,
    key: Option<Vec<u8>>,
}

fn parse_ttl(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..=31_536_000).contains(&n) => Ok(n),
        _ => Err(format!(
            "--ttl: {s:?} is not a number of seconds from 1 to 31536000"
        )),
    }
}

fn parse_key(s: &str) -> Result<Vec<u8>, String> {
    let k = hex::decode(s.trim()).map_err(|e| format!("--key-hex: not hex ({e})"))?;
    if k.len() < 32 {
        return Err(format!(
            "--key-hex: {} bytes; the codec needs at least 32",
            k.len()
        ));
    }
    Ok(k)
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        stdio: false,
        http: None,
        bind: Bind::Full,
        ttl: 120,
        key: None,
    };
    if let Ok(t) = std::env::var("MRTR_TTL") {
        a.ttl = parse_ttl(&t).map_err(|e| format!("MRTR_TTL{}", e.trim_start_matches("--ttl")))?;
    }
    if let Ok(k) = std::env::var("MRTR_KEY") {
        a.key = Some(parse_key(&k)?);
    }
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--stdio" => a.stdio = true,
            "--http" => {
                let v = value()?;
                a.http = Some(
                    v.parse()
                        .map_err(|_| format!("--http: {v:?} is not HOST:PORT"))?,
                );
            }
            "--bind" => {
                a.bind = match value()?.as_str() {
                    "none" => Bind::None,
                    "docs" => Bind::Docs,
                    "full" => Bind::Full,
                    other => return Err(format!("--bind: {other:?} is not none, docs or full")),
                }
            }
            "--ttl" => a.ttl = parse_ttl(&value()?)?,
            "--key-hex" => a.key = Some(parse_key(&value()?)?),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if a.stdio == a.http.is_some() {
        return Err("give one of --stdio and --http ADDR".into());
    }
    Ok(a)
}

#[tokio::main]
async fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rmcp-deploy-server: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    // No key given: a random one, so tickets die with the process.
    let key = args.key.unwrap_or_else(|| {
        [
            uuid::Uuid::new_v4().into_bytes(),
            uuid::Uuid::new_v4().into_bytes(),
        ]
        .concat()
    });
    let sealer = Arc::new(Sealer {
        codec: RequestStateCodec::try_new(key).expect("a key of at least 32 bytes"),
        bind: args.bind,
        ttl: Duration::from_secs(args.ttl),
        spent: Mutex::new(HashMap::new()),
    });
    let user = std::env::var("USER").unwrap_or_else(|_| "stdio-user".into());
    eprintln!(
        "[rmcp-deploy-server] bind {:?}, ttl {} s",
        args.bind, args.ttl
    );
    if args.stdio {
        let server = DeployServer::new(sealer, &user, false);
        match server.serve(rmcp::transport::stdio()).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => {
                eprintln!("rmcp-deploy-server: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let server = DeployServer::new(sealer, &user, true);
    // Stateless 2026-07-28: no sessions, plain JSON answers, per-request metadata required.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_stateless_protocol_metadata_required(true);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let addr = args.http.expect("checked in parse_args");
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("rmcp-deploy-server: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    let local = listener
        .local_addr()
        .map_or(addr.to_string(), |a| a.to_string());
    eprintln!("listening on http://{local}/mcp");
    if let Err(e) = axum::serve(listener, router).await {
        eprintln!("rmcp-deploy-server: {e}");
        std::process::exit(1);
    }
}
