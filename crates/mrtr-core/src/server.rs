//! The server engine, sans I/O: one JSON-RPC request in, one response out, plus a trace of
//! what it did (the checks it ran, the tickets it minted). The same engine runs in the page,
//! behind the native HTTP and stdio fronts, and inside the legacy shim.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Map, Value};

use crate::canonical::arguments_digest;
use crate::catalog::{Catalog, Handler, Invocation, Outcome};
use crate::checks::{verify, Check, CheckPolicy, Presented, Refusal, Status, Verdict};
use crate::entropy::{Clock, Entropy};
use crate::error::RpcError;
use crate::redemption::{Lookup, MemoryStore, Redemption, RedemptionStore};
use crate::tasks::{MemoryTaskStore, TaskEvent, TaskStore};
use crate::ticket::{Claims, Codec, MintError, Principal};
use crate::wire::{
    input_required_result, may_require_input, ClientCapabilities, Envelope, InputRequest,
    InputResponses, MessageRef, RequestId, META_SERVER_INFO, MODERN_VERSION,
};

/// Knobs of one server (one replica).
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    /// The server's name in its `serverInfo` (discovery and `initialize`).
    pub name: String,
    /// Its version in `serverInfo`.
    pub version: String,
    /// Ticket lifetime in seconds.
    pub ttl_s: u64,
    /// Which checks run on a returned ticket (the lab turns some off to show the hole).
    pub policy: CheckPolicy,
    /// What a naive server does when a retry comes back without its answer: mint a brand-new
    /// ticket (new id, new expiry) without asking the redemption store. That launders a
    /// spent ticket into a fresh one and stretches a live one's life; the lab turns it on
    /// only to show that. Off, a ticket minted on the ask-again path keeps the id and
    /// expiry of the one it replaces.
    pub naive_ask_again: bool,
    /// How long a task is kept after it was created (`ttlMs`), in milliseconds.
    pub task_ttl_ms: u64,
    /// How often a client should poll a task (`pollIntervalMs`), in milliseconds.
    pub task_poll_ms: u64,
    /// UNSAFE, for the audit's own tests: holes in the task methods (all off by default).
    pub task_flaws: crate::tasks::TaskFlaws,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            name: "mrtr-lab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            ttl_s: 120,
            policy: CheckPolicy::default(),
            naive_ask_again: false,
            task_ttl_ms: 600_000,
            task_poll_ms: 1_000,
            task_flaws: crate::tasks::TaskFlaws::default(),
        }
    }
}

/// What the engine did while answering, for logs and the page.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    /// A returned ticket went through the checks.
    TicketChecked {
        /// The ticket as the request carried it.
        ticket: String,
        /// Every check's outcome.
        verdict: Verdict,
    },
    /// A new ticket was sealed into an `input_required` result.
    TicketMinted {
        /// The ticket as sent.
        ticket: String,
        /// What it carries, `kid` set to the key that signed it.
        claims: Claims,
    },
    /// The handler asked for input under these keys.
    Asked {
        /// The `inputRequests` keys, in order.
        keys: Vec<String>,
    },
    /// The handler completed the call.
    Completed,
    /// The request was refused; `detail` is what only the log gets to see.
    Refused {
        /// The error sent.
        error: RpcError,
        /// Why, for the log only.
        detail: String,
    },
    /// The handler sent a notification (progress) before its result.
    Notified(Value),
    /// A task was started, changed, answered, or an answer to it ignored.
    Task(TaskEvent),
}

/// One answer of the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The response to send, or `None` for notifications and stray responses.
    pub response: Option<Value>,
    /// The status a Streamable HTTP front should use.
    pub http_status: u16,
    /// What the engine did, in order.
    pub trace: Vec<TraceEvent>,
}

impl Reply {
    /// The response's error object, if it is an error response.
    pub fn error(&self) -> Option<RpcError> {
        self.response
            .as_ref()
            .and_then(|r| r.get("error"))
            .and_then(RpcError::from_value)
    }

    /// The response's `result`, if it is a success response.
    pub fn result(&self) -> Option<&Value> {
        self.response.as_ref().and_then(|r| r.get("result"))
    }

    /// The verdict on the ticket this request carried, if it carried one.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.trace.iter().find_map(|e| match e {
            TraceEvent::TicketChecked { verdict, .. } => Some(verdict),
            _ => None,
        })
    }

    /// Notifications to send before the response, in order (progress).
    pub fn notifications(&self) -> impl Iterator<Item = &Value> {
        self.trace.iter().filter_map(|e| match e {
            TraceEvent::Notified(n) => Some(n),
            _ => None,
        })
    }

    /// The ticket minted for this request's answer, if any.
    pub fn minted(&self) -> Option<(&str, &Claims)> {
        self.trace.iter().find_map(|e| match e {
            TraceEvent::TicketMinted { ticket, claims } => Some((ticket.as_str(), claims)),
            _ => None,
        })
    }
}

/// Who is calling and when, with the randomness to use.
pub struct CallContext<'a> {
    /// Who the transport authenticated; a ticket is bound to it.
    pub principal: &'a Principal,
    /// The time the checks and a new ticket's `iat`/`exp` are read from.
    pub clock: &'a dyn Clock,
    /// Randomness for ticket ids and sealed tickets' nonces.
    pub entropy: &'a mut dyn Entropy,
}

/// A 2026-07-28 server: stateless per request, except for the optional redemption store.
pub struct Server {
    /// Its knobs.
    pub config: ServerConfig,
    /// The keys and seal its tickets are minted and opened with.
    pub codec: Codec,
    /// The tools, prompts and resources it offers, with their handlers.
    pub catalog: Catalog,
    store: Box<dyn RedemptionStore + Send + Sync>,
    /// Where its tasks live (shared by replicas that serve each other's tasks).
    pub(crate) tasks: Box<dyn TaskStore + Send + Sync>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("config", &self.config)
            .field("codec", &self.codec)
            .field("redeemed", &self.store.len())
            .finish()
    }
}

impl Server {
    /// A server with its own in-memory redemption store ([`MemoryStore::default`]).
    pub fn new(config: ServerConfig, codec: Codec, catalog: Catalog) -> Server {
        Server {
            config,
            codec,
            catalog,
            store: Box::new(MemoryStore::default()),
            tasks: Box::new(MemoryTaskStore::default()),
        }
    }

    /// The lab's server: the deploy tool and every conformance fixture, signed tickets.
    #[cfg(feature = "demo")]
    pub fn lab(key: crate::ticket::Key) -> Server {
        use crate::ticket::{Keyring, Seal};
        Server::new(
            ServerConfig::default(),
            Codec::new(Keyring::new(key), Seal::Signed),
            crate::fixtures::catalog(),
        )
    }

    /// Replaces the redemption store (a shared one lets replicas refuse each other's repeats).
    pub fn with_store(mut self, store: Box<dyn RedemptionStore + Send + Sync>) -> Server {
        self.store = store;
        self
    }

    /// Replaces the task store (a shared one lets any replica serve a task another started).
    pub fn with_task_store(mut self, tasks: Box<dyn TaskStore + Send + Sync>) -> Server {
        self.tasks = tasks;
        self
    }

    /// Live tasks its task store knows of.
    pub fn task_count(&self) -> usize {
        self.tasks.len()
    }

    /// Redemptions its store knows of (a remote store counts only this holder's own).
    pub fn redeemed_count(&self) -> usize {
        self.store.len()
    }

    /// Handles one message given as text (malformed JSON gets -32700).
    pub fn handle_text(&self, text: &str, ctx: &mut CallContext<'_>) -> Reply {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => self.handle(&v, ctx),
            Err(e) => refuse(
                None,
                RpcError::parse_error(format!("Parse error: {e}")),
                400,
                Vec::new(),
            ),
        }
    }

    /// Handles one 2026-07-28 message.
    pub fn handle(&self, message: &Value, ctx: &mut CallContext<'_>) -> Reply {
        // Read in place: the params are never copied.
        let (id, method, params) = match MessageRef::from_value(message) {
            Ok(MessageRef::Request { id, method, params }) => (id, method, params),
            Ok(_) => {
                return Reply {
                    response: None,
                    http_status: 202,
                    trace: Vec::new(),
                }
            }
            Err(e) => {
                let id = message.get("id").and_then(RequestId::from_value);
                return refuse(id.as_ref(), e, 400, Vec::new());
            }
        };
        self.handle_request(id, method, params, ctx)
    }

    /// Handles one 2026-07-28 request already read off the wire (a connection that has read
    /// the message hands its parts down here, so no message is parsed twice).
    pub fn handle_request(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&Value>,
        ctx: &mut CallContext<'_>,
    ) -> Reply {
        let mut trace = Vec::new();
        if matches!(method, "initialize" | "ping") {
            let e = RpcError::method_not_found(method).with_data(json!({
                "supported": [MODERN_VERSION],
                "hint": "2026-07-28 has no initialize or ping: send server/discover or the request itself, with params._meta",
            }));
            return refuse(Some(&id), e, 404, trace);
        }
        let (version, caps) = match Envelope::read(params) {
            Ok((version, caps, _)) => (version, ClientCapabilities::from_value(caps)),
            Err(e) => return refuse(Some(&id), e, 400, trace),
        };
        if version != MODERN_VERSION {
            // Only the versions served here without a handshake (as server/discover says);
            // 2025-11-25 is opened with initialize on stdio, never named in _meta.
            let e = RpcError::unsupported_version(version, &[MODERN_VERSION]);
            return refuse(Some(&id), e, 400, trace);
        }
        let no_params = Value::Object(Map::new());
        let params = params.unwrap_or(&no_params);
        let result = match method {
            "server/discover" => Ok(self.discover()),
            "tools/list" => Ok(listing("tools", self.catalog.tools_json())),
            "prompts/list" => Ok(listing("prompts", self.catalog.prompts_json())),
            "resources/list" => Ok(listing("resources", self.catalog.resources_json())),
            "resources/templates/list" => {
                Ok(listing("resourceTemplates", self.catalog.templates_json()))
            }
            "completion/complete" => self.complete(params),
            m if may_require_input(m) => self.call(m, params, &caps, ctx, &mut trace),
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                self.task_method(method, params, &caps, ctx, &mut trace)
            }
            other => return refuse(Some(&id), RpcError::method_not_found(other), 404, trace),
        };
        match result {
            Ok(result) => Reply {
                response: Some(crate::wire::response(&id, result)),
                http_status: 200,
                trace,
            },
            Err(e) => {
                let status = e.http_status();
                refuse(Some(&id), e, status, trace)
            }
        }
    }

    /// Claims a flow before its handler runs (single use only): the first claim succeeds,
    /// any later one (a copy that raced past the look-up) is refused like a repeat.
    fn claim(
        &self,
        flow: &Claims,
        now_s: u64,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<(), RpcError> {
        let refusal = match self.store.redeem(&flow.tid, flow.iat, flow.exp, now_s) {
            Redemption::First => return Ok(()),
            Redemption::Repeat => Refusal::AlreadyRedeemed,
            Redemption::BeforeMemory => Refusal::BeforeMemory,
            Redemption::Full => Refusal::StoreFull,
            Redemption::Unavailable => Refusal::StoreUnavailable,
        };
        // The verdict shown for this request is the one that decided it: single use failed.
        for event in trace.iter_mut() {
            if let TraceEvent::TicketChecked { verdict, .. } = event {
                if let Some(o) = verdict
                    .outcomes
                    .iter_mut()
                    .find(|o| o.check == Check::SingleUse)
                {
                    o.status = Status::Failed(refusal.clone());
                }
            }
        }
        let e = refusal_error(&refusal);
        trace.push(TraceEvent::Refused {
            error: e.clone(),
            detail: format!("{} check failed: {refusal}", Check::SingleUse.id()),
        });
        Err(e)
    }

    /// `completion/complete`: no argument of this server's prompts or templates has a fixed
    /// set of values to suggest, so a well-formed request gets an honest empty list.
    fn complete(&self, params: &Value) -> Result<Value, RpcError> {
        let text = |p: &str| params.pointer(p).and_then(Value::as_str);
        let known = match (text("/ref/type"), text("/ref/name"), text("/ref/uri")) {
            (Some("ref/prompt"), Some(name), _) => self.catalog.prompts.iter().any(|p| p.name == name),
            (Some("ref/resource"), _, Some(uri)) => {
                self.catalog.templates.iter().any(|t| t.uri_template == uri)
                    || self.catalog.resources.iter().any(|r| r.uri == uri)
            }
            _ => {
                return Err(RpcError::invalid_params(
                    "completion/complete needs ref {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}",
                ))
            }
        };
        if !known {
            return Err(RpcError::invalid_params(
                "completion/complete: unknown reference",
            ));
        }
        if text("/argument/name").is_none() || text("/argument/value").is_none() {
            return Err(RpcError::invalid_params(
                "completion/complete needs argument {name, value}, both strings",
            ));
        }
        Ok(
            json!({"resultType": "complete", "completion": {"values": [], "total": 0, "hasMore": false}}),
        )
    }

    fn discover(&self) -> Value {
        json!({
            "resultType": "complete",
            "supportedVersions": [MODERN_VERSION],
            // No listChanged: this server's catalogue never changes while it runs.
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}, "completions": {},
                "extensions": {(crate::tasks::EXTENSION): {}}},
            "instructions": "MRTR Lab: call deploy {\"env\": \"staging\"} and answer the confirmation.",
            "ttlMs": 3_600_000,
            "cacheScope": "public",
            "_meta": {META_SERVER_INFO: {"name": self.config.name, "version": self.config.version}},
        })
    }

    /// One round of an input-capable request: check the ticket if one came back, run the
    /// handler, and either complete or ask (sealing the handler's state into a new ticket).
    /// The legacy shim calls this too, with the capabilities declared at `initialize`.
    pub fn call(
        &self,
        method: &str,
        params: &Value,
        caps: &ClientCapabilities,
        ctx: &mut CallContext<'_>,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<Value, RpcError> {
        let life = Lifetime::Flow(self.config.ttl_s);
        self.call_with_life(method, params, caps, ctx, trace, life)
    }

    /// [`Server::call`] with the lifetime of any new ticket given: the legacy shim keeps its
    /// tickets in-process while a person answers, and sizes each round's to its own wait.
    pub fn call_with_life(
        &self,
        method: &str,
        params: &Value,
        caps: &ClientCapabilities,
        ctx: &mut CallContext<'_>,
        trace: &mut Vec<TraceEvent>,
        life: Lifetime,
    ) -> Result<Value, RpcError> {
        let (target, handler) = self.find_handler(method, params)?;
        let arguments = round_arguments(method, params)?;
        let mut responses = InputResponses::from_params(Some(params))?;
        let round = Round {
            method,
            target,
            arguments,
            caps,
            principal: ctx.principal,
            now_s: ctx.clock.now_s(),
            life,
        };
        let opened = self.open_ticket(&round, params, &mut responses, trace)?;
        let claimed = self.claim_early(opened.lineage.as_ref(), round.now_s, trace)?;
        let settle = |done: bool| {
            if let Some(tid) = &claimed {
                self.store.settle(tid, done);
            }
        };
        let claim_late = |trace: &mut Vec<TraceEvent>| {
            self.claim_late(opened.lineage.as_ref(), round.now_s, trace)
        };
        let outcome = run_handler(
            handler,
            &round,
            params,
            &responses,
            opened.state.as_ref(),
            trace,
        );
        let retried = params.get("requestState").is_some() || !responses.is_empty();
        match outcome {
            Outcome::Complete(body) => {
                settle(true);
                claim_late(trace)?;
                Ok(self.finish(&round, body, retried, trace))
            }
            Outcome::Error(e) => {
                settle(false);
                Err(record_refusal(trace, e, "the handler returned an error"))
            }
            Outcome::StartTask(seed) => {
                // The flow's work is now the task's: the ticket is spent once the task
                // exists, and given back if none could be started. (The naive server claims
                // only now, as it does when its work completes.)
                claim_late(trace)?;
                match self.start_task(round.target, seed, caps, ctx, trace) {
                    Ok(created) => {
                        settle(true);
                        Ok(created)
                    }
                    Err(e) => {
                        settle(false);
                        Err(record_refusal(trace, e, "no task was started"))
                    }
                }
            }
            Outcome::InputRequired { requests, state } => {
                // Not done: the flow goes on under its next ticket, which must be redeemable.
                settle(false);
                self.ask(&round, &requests, state, opened.lineage, ctx.entropy, trace)
            }
        }
    }

    /// The naive server's claim, once its work is done (or handed to a task): made and
    /// settled at once. Nothing on a server that claimed before the handler ran.
    fn claim_late(
        &self,
        lineage: Option<&Claims>,
        now_s: u64,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<(), RpcError> {
        match lineage {
            Some(flow) if self.config.policy.single_use && !self.claims_first() => {
                self.claim(flow, now_s, trace)?;
                self.store.settle(&flow.tid, true);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Whether a flow is claimed before its handler runs: always, but on the naive server
    /// the lab shows, which claims only once the work is done, as it was written.
    fn claims_first(&self) -> bool {
        !self.config.naive_ask_again
    }

    /// The flow claimed before its handler runs, so of racing copies of one retry only one
    /// runs it (a handler that deploys deploys once): its ticket's id, to settle once the
    /// handler is done, or nothing when no claim is made yet.
    fn claim_early(
        &self,
        lineage: Option<&Claims>,
        now_s: u64,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<Option<String>, RpcError> {
        match lineage {
            Some(flow) if self.config.policy.single_use && self.claims_first() => {
                self.claim(flow, now_s, trace)?;
                Ok(Some(flow.tid.clone()))
            }
            _ => Ok(None),
        }
    }

    /// The request's target (the tool or prompt name, or the resource uri) and the handler
    /// the catalogue has for it.
    fn find_handler<'p>(
        &self,
        method: &str,
        params: &'p Value,
    ) -> Result<(&'p str, Handler), RpcError> {
        let (target_key, what) = match method {
            "resources/read" => ("uri", "resource"),
            "prompts/get" => ("name", "prompt"),
            _ => ("name", "tool"),
        };
        let target = params
            .get(target_key)
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::invalid_params(format!("{method} needs a string \"{target_key}\""))
            })?;
        let handler = self.catalog.handler(method, target).ok_or_else(|| {
            if method == "resources/read" {
                RpcError::invalid_params("Resource not found").with_data(json!({"uri": target}))
            } else {
                RpcError::invalid_params(format!("Unknown {what}: {target}"))
            }
        })?;
        Ok((target, handler))
    }

    /// Opens the ticket the retry carried, if any: a ticket that fails a check refuses the
    /// request; one that passes hands the handler its state and names the flow it belongs to
    /// (and, with the answer check on, keeps only the answers of the kind each key asked for).
    fn open_ticket(
        &self,
        round: &Round<'_>,
        params: &Value,
        responses: &mut InputResponses,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<Opened, RpcError> {
        let ticket = match params.get("requestState") {
            None | Some(Value::Null) => return Ok(Opened::default()),
            Some(Value::String(ticket)) => ticket,
            Some(_) => {
                let e = RpcError::invalid_request_state();
                return Err(record_refusal(trace, e, "requestState is not a string"));
            }
        };
        let answered = responses.answered();
        let presented = Presented {
            ticket,
            principal: round.principal,
            method: round.method,
            target: round.target,
            arguments: &round.arguments,
            answered: &answered,
            now_s: round.now_s,
        };
        let verdict = self.check(&presented);
        let failure = verdict.first_failure().map(|(c, r)| (c, r.clone()));
        let mut opened = Opened {
            state: verdict.claims.as_ref().map(|c| c.state.clone()),
            lineage: None,
        };
        if failure.is_none() {
            if let Some(claims) = &verdict.claims {
                if self.config.policy.answer {
                    // The handler sees only answers of the kind each key asked for.
                    responses.retain_awaited(&claims.awaits);
                }
                opened.lineage = Some(claims.clone());
            }
        }
        trace.push(TraceEvent::TicketChecked {
            ticket: ticket.clone(),
            verdict,
        });
        if let Some((check, refusal)) = failure {
            let detail = format!("{} check failed: {refusal}", check.id());
            return Err(record_refusal(trace, refusal_error(&refusal), detail));
        }
        Ok(opened)
    }

    /// Runs every check on a presented ticket, with this server's policy and store.
    fn check(&self, presented: &Presented<'_>) -> Verdict {
        let policy = &self.config.policy;
        if self.config.naive_ask_again {
            // The naive server never consults its store on the ask-again path.
            let store = NeverLooksUp(self.store.as_ref());
            verify(&self.codec, presented, policy, Some(&store))
        } else {
            verify(&self.codec, presented, policy, Some(self.store.as_ref()))
        }
    }

    /// The handler finished (its flow, if any, claimed and settled as done): completes the call.
    fn finish(
        &self,
        round: &Round<'_>,
        mut body: Value,
        retried: bool,
        trace: &mut Vec<TraceEvent>,
    ) -> Value {
        if round.method == "resources/read" {
            cache_hints(&mut body, retried);
        }
        trace.push(TraceEvent::Completed);
        with_result_type("complete", body)
    }

    /// The handler asked: answers `input_required` with its questions, and with a new ticket
    /// sealing its state when it kept any.
    fn ask(
        &self,
        round: &Round<'_>,
        requests: &[(String, InputRequest)],
        state: Option<Value>,
        lineage: Option<Claims>,
        entropy: &mut dyn Entropy,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<Value, RpcError> {
        if requests.is_empty() && state.is_none() {
            return Err(RpcError::internal(
                "handler asked for input with neither inputRequests nor requestState",
            ));
        }
        require_declared_kinds(round, requests, trace)?;
        let keys: Vec<String> = requests.iter().map(|(k, _)| k.clone()).collect();
        // The naive server re-mints on the ask-again path as if the call were new:
        // the hole the lab shows with it.
        let lineage = lineage.filter(|_| !self.config.naive_ask_again);
        let ticket = match state {
            Some(s) => {
                Some(self.mint_ticket(round, requests, s, lineage.as_ref(), entropy, trace)?)
            }
            None => None,
        };
        trace.push(TraceEvent::Asked { keys });
        Ok(input_required_result(requests, ticket.as_deref()))
    }

    /// Seals the handler's state into a ticket awaiting these requests' answers.
    fn mint_ticket(
        &self,
        round: &Round<'_>,
        requests: &[(String, InputRequest)],
        state: Value,
        lineage: Option<&Claims>,
        entropy: &mut dyn Entropy,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<String, RpcError> {
        let awaits = requests
            .iter()
            .map(|(k, r)| (k.clone(), r.method().to_owned()))
            .collect();
        let claims = Claims {
            v: 1,
            kid: self.codec.keyring.signing_key().id().to_owned(),
            // A ticket minted for a retry that carried a valid ticket
            // continues that flow, whatever the handler decided: same id (so
            // single use covers every copy), and for a ticket that travels the
            // same deadline (so no answer, of any kind, ever extends it).
            tid: lineage
                .map(|f| f.tid.clone())
                .unwrap_or_else(|| ticket_id(entropy)),
            iat: round.now_s,
            exp: round.life.expiry(lineage.map(|f| f.exp), round.now_s),
            sub: round.principal.as_claim(),
            method: round.method.to_owned(),
            target: round.target.to_owned(),
            args: arguments_digest(&round.arguments),
            awaits,
            state,
        };
        let ticket = match self.codec.mint(&claims, entropy) {
            Ok(t) => t,
            Err(e) => {
                // Never hand out a ticket this server could not mint whole,
                // or would refuse: the server's fault, -32603.
                let detail = match e {
                    MintError::TooLong(_) => "the handler's state is too large for a ticket",
                    _ => "the ticket could not be minted",
                };
                return Err(record_refusal(
                    trace,
                    RpcError::internal(e.to_string()),
                    detail,
                ));
            }
        };
        trace.push(TraceEvent::TicketMinted {
            ticket: ticket.clone(),
            claims,
        });
        Ok(ticket)
    }
}

/// What one round of an input-capable request is about: what every step of
/// [`Server::call_with_life`] reads.
struct Round<'r> {
    method: &'r str,
    /// The tool or prompt name, or the resource uri.
    target: &'r str,
    /// The call's arguments (`{}` when absent, and for `resources/read`).
    arguments: Value,
    caps: &'r ClientCapabilities,
    principal: &'r Principal,
    now_s: u64,
    /// The lifetime of a ticket minted in this round.
    life: Lifetime,
}

/// How long a ticket minted in a round lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifetime {
    /// A ticket that travels to the client: a new flow's lives this many seconds, and every
    /// later ticket of the flow keeps the first one's deadline.
    Flow(u64),
    /// A ticket that never leaves the process (the legacy shim's): each round's lives this
    /// many seconds from its own minting, since each round waits for a person anew. The
    /// shim bounds the rounds and each wait; nothing outside can present such a ticket.
    EachRound(u64),
}

impl Lifetime {
    /// The deadline of a ticket minted at `now_s`, in a flow whose first deadline was `flow_exp`.
    fn expiry(self, flow_exp: Option<u64>, now_s: u64) -> u64 {
        match (self, flow_exp) {
            (Lifetime::Flow(_), Some(exp)) => exp,
            (Lifetime::Flow(ttl) | Lifetime::EachRound(ttl), _) => now_s.saturating_add(ttl),
        }
    }
}

/// What an opened ticket hands on: the work so far, and the flow it belongs to.
#[derive(Default)]
struct Opened {
    /// The handler's state the ticket carried (also when a check failed).
    state: Option<Value>,
    /// Set when the retry carried a ticket that passed every check that runs: the flow it
    /// belongs to. Any ticket minted for this retry keeps the flow's id and expiry, and
    /// finishing the work spends the flow, once.
    lineage: Option<Claims>,
}

/// The call's arguments: `{}` when absent or null (and always for `resources/read`), an
/// error when not an object.
fn round_arguments(method: &str, params: &Value) -> Result<Value, RpcError> {
    match (method, params.get("arguments")) {
        ("resources/read", _) | (_, None) | (_, Some(Value::Null)) => Ok(json!({})),
        (_, Some(a @ Value::Object(_))) => Ok(a.clone()),
        (_, Some(_)) => Err(RpcError::invalid_params("\"arguments\" must be an object")),
    }
}

/// Runs the handler on the round, with the ticket's state if one opened, and records the
/// notifications it sent.
fn run_handler(
    handler: Handler,
    round: &Round<'_>,
    params: &Value,
    responses: &InputResponses,
    state: Option<&Value>,
    trace: &mut Vec<TraceEvent>,
) -> Outcome {
    let inv = Invocation {
        method: round.method,
        target: round.target,
        arguments: &round.arguments,
        responses,
        state,
        capabilities: round.caps,
        principal: round.principal,
        progress_token: params.pointer("/_meta/progressToken"),
        notifications: Default::default(),
    };
    let outcome = handler(&inv);
    trace.extend(
        inv.notifications
            .into_inner()
            .into_iter()
            .map(TraceEvent::Notified),
    );
    outcome
}

/// Safety net: never send a kind of request the client did not declare (-32021, naming
/// the capabilities missing).
fn require_declared_kinds(
    round: &Round<'_>,
    requests: &[(String, InputRequest)],
    trace: &mut Vec<TraceEvent>,
) -> Result<(), RpcError> {
    let mut missing = Map::new();
    for (_, r) in requests {
        if !round.caps.allows(r.kind()) {
            merge(&mut missing, r.kind().required_capability());
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let e = RpcError::missing_capability(
        format!(
            "{} needs a client capability this request did not declare",
            round.target
        ),
        Value::Object(missing),
    );
    Err(record_refusal(
        trace,
        e,
        "the handler asked for an undeclared kind of input",
    ))
}

/// Records a refusal in the trace, and hands back its error.
fn record_refusal(
    trace: &mut Vec<TraceEvent>,
    error: RpcError,
    detail: impl Into<String>,
) -> RpcError {
    trace.push(TraceEvent::Refused {
        error: error.clone(),
        detail: detail.into(),
    });
    error
}

/// The error a refused ticket gets on the wire. Every fault of the ticket gets the same
/// -32602, so a caller learns nothing from probing; a redemption store that is full or
/// down is the server's fault, not the ticket's: -32603, and the ticket is not spent, so
/// the same retry may succeed later.
fn refusal_error(refusal: &Refusal) -> RpcError {
    match refusal {
        Refusal::StoreFull => RpcError::internal(
            "The server's memory of redemptions is full; nothing was done. Send the same retry again later.",
        ),
        Refusal::StoreUnavailable => RpcError::internal(
            "The server cannot record redemptions right now; nothing was done. Send the same retry again later.",
        ),
        _ => RpcError::invalid_request_state(),
    }
}

/// A store seen through a naive server's eyes: it records redemptions but is never asked
/// whether a ticket was spent before a question is asked again.
struct NeverLooksUp<'a>(&'a (dyn RedemptionStore + Send + Sync));

impl RedemptionStore for NeverLooksUp<'_> {
    fn redeem(&self, ticket_id: &str, issued_s: u64, expires_s: u64, now_s: u64) -> Redemption {
        self.0.redeem(ticket_id, issued_s, expires_s, now_s)
    }

    fn lookup(&self, _ticket_id: &str, _now_s: u64) -> Lookup {
        Lookup::NotRedeemed
    }

    fn settle(&self, ticket_id: &str, done: bool) {
        self.0.settle(ticket_id, done)
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

fn refuse(
    id: Option<&RequestId>,
    error: RpcError,
    status: u16,
    mut trace: Vec<TraceEvent>,
) -> Reply {
    if !trace
        .iter()
        .any(|e| matches!(e, TraceEvent::Refused { .. }))
    {
        trace.push(TraceEvent::Refused {
            error: error.clone(),
            detail: error.message.clone(),
        });
    }
    Reply {
        response: Some(crate::wire::error_response(id, &error)),
        http_status: status,
        trace,
    }
}

fn listing(key: &str, items: Value) -> Value {
    let mut m = Map::new();
    m.insert("resultType".into(), json!("complete"));
    m.insert(key.into(), items);
    m.insert("ttlMs".into(), json!(60_000));
    m.insert("cacheScope".into(), json!("public"));
    Value::Object(m)
}

/// A resource read carries caching hints; one produced by a retry must not be cached.
fn cache_hints(body: &mut Value, retried: bool) {
    if let Value::Object(m) = body {
        if retried || !m.contains_key("ttlMs") {
            m.insert("ttlMs".into(), json!(0));
        }
        if retried || !m.contains_key("cacheScope") {
            m.insert("cacheScope".into(), json!("private"));
        }
    }
}

/// Puts `resultType` first, then the body's own fields.
pub(crate) fn with_result_type(kind: &str, body: Value) -> Value {
    let mut m = Map::new();
    m.insert("resultType".into(), json!(kind));
    if let Value::Object(b) = body {
        for (k, v) in b {
            if k != "resultType" {
                m.insert(k, v);
            }
        }
    }
    Value::Object(m)
}

fn merge(into: &mut Map<String, Value>, add: Value) {
    if let Value::Object(add) = add {
        for (k, v) in add {
            match (into.get_mut(&k), v) {
                (Some(Value::Object(existing)), Value::Object(more)) => {
                    for (k2, v2) in more {
                        existing.insert(k2, v2);
                    }
                }
                (_, v) => {
                    into.insert(k, v);
                }
            }
        }
    }
}

fn ticket_id(entropy: &mut dyn Entropy) -> String {
    let mut b = [0u8; 12];
    entropy.fill(&mut b);
    URL_SAFE_NO_PAD.encode(b)
}
