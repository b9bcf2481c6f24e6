//! Generated histories against two replicas that share a key and one memory of redemptions,
//! and the invariants that must hold after every step. Shared by the property test
//! (`tests/invariants.rs`, operations from proptest) and the fuzz target
//! (`fuzz/fuzz_targets/histories.rs`, operations from raw bytes), so both check one model.
//!
//! The model follows each flow by what was sent, never by what the server says about it: a
//! flow starts with a call that carried no ticket, and every ticket the server hands back
//! for a retry carrying a ticket of a flow belongs to that flow. Against that model:
//! 1. nothing completes at or after the expiry of the first ticket of its flow;
//! 2. with single use, each flow completes at most once, across both replicas;
//! 3. an honest retry of a live, unspent ticket succeeds (completes, or asks the next
//!    round's question on a ticket of the same id and expiry);
//! 4. every error is the uniform -32602 or a -32603 store fault, and a refused ticket names
//!    the check that refused it;
//! 5. a handler's work is never done for nothing: in every step, handlers completed exactly as
//!    many times as the step's replies say `complete`. Every handler of the replicas is
//!    wrapped so that it counts its completed work, as a side effect a library user's handler
//!    would have (a deploy); a server that ran the handler and then refused the retry as spent
//!    would break this.
//!
//! A history may also race (`Op::Race`): while the handler of an honest retry runs, the same
//! retry arrives at the other replica. With single use, 2 and 5 together say the work was done
//! once.
//!
//! A history may lose the memory of redemptions (`Op::ForgetMemory`: a restart without
//! persistence) and go on under the same key: 2 must hold across it; 3 then holds for
//! tickets minted after the new memory's first second (older ones may be refused).
//!
//! Flows may run as tasks (the tasks extension): a call, or the retry that brings an MRTR
//! round's answer, starts a task, which is then polled, answered and cancelled, by its owner
//! or by somebody else, on either replica (`Op::Poll`, `Op::Answer`, `Op::Cancel`). The
//! replicas share the task store too, and a lost memory loses it with the redemptions. For
//! tasks:
//! 6. starting a task completes its flow: 1 and 2 hold for it (no task is started after the
//!    flow's first ticket expired; with single use, one task per flow);
//! 7. a task completes at most once, never at or after its expiry, and a terminal status
//!    never changes;
//! 8. only its owner sees it: anyone else gets -32602 "Task not found", and nothing they
//!    send changes it;
//! 9. no honest answer is lost: the owner's answers to the questions a poll showed open are
//!    taken while the task is live and not ended; and its owner can read a live task.
//!
//! Panics are failures too: the property test catches them, the fuzzer reports them.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use mrtr_core::catalog::{Handler, Invocation, Outcome};
use mrtr_core::redemption::MemoryStore;
use mrtr_core::wire::{ClientCapabilities, Envelope};
use mrtr_core::{CallContext, FixedClock, Key, Principal, Reply, SeededEntropy, Server};
use serde_json::{json, Map, Value};

/// Seconds since the start of the history are offset from this epoch.
const EPOCH_MS: u64 = 1_800_000_000_000;
/// A short lifetime, so generated clock steps cross expiries often.
pub const TTL_S: u64 = 30;

/// One step of a history. Indices are reduced modulo what they index.
#[derive(Clone, Debug)]
pub enum Op {
    /// A first call (no ticket) of one of the ticket-minting requests.
    Call { replica: u8, request: u8, token: u8 },
    /// A retry built from any ticket seen so far, with every part chosen freely.
    Retry {
        replica: u8,
        ticket: u16,
        edit: u8,
        answers: u8,
        token: u8,
        args: u8,
    },
    /// The honest retry of a seen ticket: byte for byte, its caller, its arguments, and an
    /// answer of the asked kind to every question.
    Honest { replica: u8, ticket: u16 },
    /// The clock moves forward.
    Advance { seconds: u16 },
    /// The memory of redemptions is lost (a restart without persistence, a store that
    /// forgot) and a new one begins now, under the same key.
    ForgetMemory,
    /// The honest retry of a seen ticket, and while its handler runs, the same retry at the
    /// other replica (two copies of one retry racing).
    Race { replica: u8, ticket: u16 },
    /// `tasks/get` of a seen task, by its owner (`who` even) or another caller.
    Poll { replica: u8, task: u16, who: u8 },
    /// `tasks/update` of a seen task: the owner's honest answers to the open questions, the
    /// same answers again, an answer under a key never asked, or a thief's answers.
    Answer { replica: u8, task: u16, choice: u8 },
    /// `tasks/cancel` of a seen task, by its owner (`who` even) or another caller.
    Cancel { replica: u8, task: u16, who: u8 },
}

impl Op {
    /// Decodes operations from raw bytes, five bytes each (the fuzz target's input).
    pub fn from_bytes(data: &[u8]) -> Vec<Op> {
        data.chunks_exact(5)
            .map(|c| match c[0] % 9 {
                0 => Op::Call {
                    replica: c[1],
                    request: c[2],
                    token: c[3],
                },
                1 => Op::Retry {
                    replica: c[1] & 1,
                    ticket: u16::from(c[2]),
                    edit: c[3] >> 4,
                    answers: c[3] & 0x0f,
                    token: c[4] & 0x0f,
                    args: c[4] >> 4,
                },
                2 => Op::Honest {
                    replica: c[1],
                    ticket: u16::from(c[2]),
                },
                3 => Op::Advance {
                    seconds: u16::from(c[1]) % 64,
                },
                4 => Op::ForgetMemory,
                5 => Op::Race {
                    replica: c[1],
                    ticket: u16::from(c[2]),
                },
                6 => Op::Poll {
                    replica: c[1],
                    task: u16::from(c[2]),
                    who: c[3],
                },
                7 => Op::Answer {
                    replica: c[1],
                    task: u16::from(c[2]),
                    choice: c[3],
                },
                _ => Op::Cancel {
                    replica: c[1],
                    task: u16::from(c[2]),
                    who: c[3],
                },
            })
            .collect()
    }
}

/// The callers: three tokens and none.
const CALLERS: [Option<&str>; 4] = [Some("bob"), Some("alice"), Some("carol"), None];

/// The first calls a history can make: (method, target key, target, arguments). The last
/// five run as tasks (`test_tool_with_task` after an MRTR round).
const REQUESTS: [(&str, &str, &str, &str); 12] = [
    ("tools/call", "name", "deploy", r#"{"env":"staging"}"#),
    ("tools/call", "name", "deploy", r#"{"env":"prod"}"#),
    (
        "tools/call",
        "name",
        "test_input_required_result_request_state",
        "{}",
    ),
    (
        "tools/call",
        "name",
        "test_input_required_result_multi_round",
        "{}",
    ),
    (
        "tools/call",
        "name",
        "test_input_required_result_multiple_inputs",
        "{}",
    ),
    (
        "prompts/get",
        "name",
        "test_input_required_result_prompt",
        "{}",
    ),
    ("resources/read", "uri", "mrtr://lab/deploy-log", "{}"),
    ("tools/call", "name", "deploy_as_task", r#"{"env":"prod"}"#),
    (
        "tools/call",
        "name",
        "confirm_delete",
        r#"{"filename":"f"}"#,
    ),
    ("tools/call", "name", "multi_input", "{}"),
    ("tools/call", "name", "slow_compute", r#"{"seconds":5}"#),
    ("tools/call", "name", "test_tool_with_task", "{}"),
];

/// A task the history has seen started.
#[derive(Clone, Debug)]
struct SeenTask {
    id: String,
    owner: Option<&'static str>,
    /// When it is gone (seconds of the shared clock).
    expires_s: u64,
    /// Which memory it lives in (a lost memory loses it).
    memory: usize,
    /// The questions its owner's last poll showed open, and whether they were answered since.
    open: Map<String, Value>,
    answered_open: bool,
    /// Answers already sent and taken, to send again.
    sent: Map<String, Value>,
    /// The terminal status it reached, once seen.
    ended: Option<String>,
    /// Its owner cancelled it (it may have ended either way).
    cancelled: bool,
    /// Completions seen in any reply's trace.
    completions: u32,
}

/// A ticket the history has seen, with the request it came back on.
#[derive(Clone, Debug)]
struct Seen {
    ticket: String,
    flow: usize,
    caller: Option<&'static str>,
    /// The request that minted it, without `requestState` or `inputResponses`.
    params: Value,
    method: &'static str,
    /// The `inputRequests` it came with.
    questions: Map<String, Value>,
    /// When it was minted, in seconds of the shared clock.
    minted_s: u64,
}

#[derive(Clone, Debug)]
struct Flow {
    /// Expiry of the flow's first ticket, in seconds of the shared clock.
    first_exp_s: u64,
    completions: u32,
}

thread_local! {
    /// How many times a handler of this thread's replicas completed its work.
    static WORK_DONE: Cell<u64> = const { Cell::new(0) };
    /// The handlers the counting wrapper stands in for, by method and target.
    static ORIGINALS: RefCell<HashMap<(String, String), Handler>> = RefCell::new(HashMap::new());
    /// What happens while the next handler runs (a racing copy arriving), taken once.
    static WHILE_RUNNING: RefCell<Option<Box<dyn FnOnce()>>> = const { RefCell::new(None) };
}

/// Every handler of the replicas: runs what is due while it runs, then the original, and
/// counts the work done when it completes.
fn counted(inv: &Invocation<'_>) -> Outcome {
    if let Some(racing) = WHILE_RUNNING.with(|w| w.borrow_mut().take()) {
        racing();
    }
    let original = ORIGINALS.with(|o| {
        o.borrow()
            .get(&(inv.method.to_owned(), inv.target.to_owned()))
            .copied()
    });
    let Some(original) = original else {
        return Outcome::Error(mrtr_core::RpcError::internal("no handler to count"));
    };
    let out = original(inv);
    if matches!(out, Outcome::Complete(_)) {
        WORK_DONE.with(|w| w.set(w.get() + 1));
    }
    out
}

/// Replaces every handler with the counting wrapper, keeping the originals.
fn count_work(server: &mut Server) {
    let keep = |method: &str, target: &str, handler: &mut Handler| {
        ORIGINALS.with(|o| {
            o.borrow_mut()
                .insert((method.to_owned(), target.to_owned()), *handler)
        });
        *handler = counted;
    };
    let c = &mut server.catalog;
    for t in &mut c.tools {
        keep("tools/call", t.name, &mut t.handler);
    }
    for p in &mut c.prompts {
        keep("prompts/get", p.name, &mut p.handler);
    }
    for r in &mut c.resources {
        keep("resources/read", r.uri, &mut r.handler);
    }
}

/// Replicas A and B: one key, sharing `memory` and a task store (lost with it), every
/// handler counting its work.
fn replicas(single_use: bool, memory: MemoryStore) -> Rc<[Server; 2]> {
    let store = Arc::new(memory);
    let tasks = Arc::new(mrtr_core::tasks::MemoryTaskStore::default());
    let replica = |name: &str| {
        let key = Key::new("k1", b"0123456789abcdef0123456789abcdef").unwrap();
        let mut s = Server::new(
            mrtr_core::ServerConfig::default(),
            mrtr_core::Codec::new(
                mrtr_core::Keyring::new(key),
                mrtr_core::ticket::Seal::Signed,
            ),
            mrtr_core::fixtures::full_catalog(),
        )
        .with_store(Box::new(store.clone()))
        .with_task_store(Box::new(tasks.clone()));
        s.config.name = name.into();
        s.config.ttl_s = TTL_S;
        s.config.policy.single_use = single_use;
        count_work(&mut s);
        s
    };
    Rc::new([replica("A"), replica("B")])
}

/// A request as the history sends it: every capability declared, the caller's principal.
fn message(id: i64, method: &str, mut params: Value) -> Value {
    let mut env = Envelope::new(
        ClientCapabilities::all(),
        Some(json!({"name": "history", "version": "1"})),
    );
    env.raw_capabilities = json!({"elicitation": {}, "sampling": {}, "roots": {},
        "extensions": {(mrtr_core::tasks::EXTENSION): {}}});
    params["_meta"] = env.to_meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn completes(reply: &Reply) -> bool {
    reply
        .result()
        .and_then(|r| r.get("resultType"))
        .and_then(Value::as_str)
        == Some("complete")
}

/// Two replicas, one key, one memory, a clock and the model.
pub struct History {
    replicas: Rc<[Server; 2]>,
    single_use: bool,
    /// How many replies of the current step said `complete`.
    completed_now: u64,
    /// When the memory in use began, if one was lost (seconds of the shared clock).
    memory_began_s: Option<u64>,
    now_s: u64,
    rng: SeededEntropy,
    seen: Vec<Seen>,
    flows: Vec<Flow>,
    next_id: i64,
    /// What happened, one line per step, for a failure's message.
    pub log: Vec<String>,
    tasks: Vec<SeenTask>,
    /// How many memories were lost so far (the one in use is this number).
    memory: usize,
    /// Tasks whose completion a reply of this step recorded.
    completed_tasks: Vec<String>,
}

impl History {
    pub fn new(single_use: bool, seed: u64) -> History {
        History {
            replicas: replicas(single_use, MemoryStore::default()),
            memory_began_s: None,
            single_use,
            completed_now: 0,
            now_s: 0,
            rng: SeededEntropy::new(seed),
            seen: Vec::new(),
            flows: Vec::new(),
            next_id: 1,
            log: Vec::new(),
            tasks: Vec::new(),
            memory: 0,
            completed_tasks: Vec::new(),
        }
    }

    /// Runs every step, checking the invariants after each; the first broken one is the error.
    pub fn run(&mut self, ops: &[Op]) -> Result<(), String> {
        for op in ops {
            self.step(op).map_err(|e| {
                let tail: Vec<&String> = self.log.iter().rev().take(12).collect();
                let tail: Vec<&str> = tail.into_iter().rev().map(String::as_str).collect();
                format!("{e}\nlast steps:\n  {}", tail.join("\n  "))
            })?;
        }
        Ok(())
    }

    pub fn step(&mut self, op: &Op) -> Result<(), String> {
        let work_before = WORK_DONE.with(Cell::get);
        self.completed_now = 0;
        self.take_step(op)?;
        let work = WORK_DONE.with(Cell::get) - work_before;
        if work != self.completed_now {
            return Err(format!(
                "handlers completed their work {work} times, but {} replies said complete",
                self.completed_now
            ));
        }
        // Invariant 7: a task completes at most once, and only while it lives.
        for id in std::mem::take(&mut self.completed_tasks) {
            let now_s = self.now_s;
            let Some(t) = self.tasks.iter_mut().find(|t| t.id == id) else {
                return Err(format!("a task the history never started completed: {id}"));
            };
            t.completions += 1;
            if t.completions > 1 {
                return Err(format!("task {id} completed {} times", t.completions));
            }
            if now_s >= t.expires_s {
                return Err(format!(
                    "task {id} completed at t={now_s} s, at or after its expiry ({} s)",
                    t.expires_s
                ));
            }
        }
        Ok(())
    }

    fn take_step(&mut self, op: &Op) -> Result<(), String> {
        match *op {
            Op::Advance { seconds } => {
                self.now_s += u64::from(seconds);
                self.log.push(format!("t={} s", self.now_s));
                Ok(())
            }
            Op::ForgetMemory => {
                let began = MemoryStore::default().beginning_at(EPOCH_MS / 1000 + self.now_s);
                self.replicas = replicas(self.single_use, began);
                self.memory_began_s = Some(self.now_s);
                self.memory += 1;
                self.log.push(format!(
                    "the memory is lost; a new one begins at t={} s",
                    self.now_s
                ));
                Ok(())
            }
            Op::Call {
                replica,
                request,
                token,
            } => {
                let (method, key, target, args) = REQUESTS[usize::from(request) % REQUESTS.len()];
                let caller = CALLERS[usize::from(token) % CALLERS.len()];
                let mut params = json!({ key: target });
                if method != "resources/read" {
                    params["arguments"] = serde_json::from_str(args).unwrap();
                }
                let reply = self.send(replica, caller, method, params.clone());
                self.log.push(format!(
                    "call {method} {target} {args} as {caller:?} on {} -> {}",
                    name(replica),
                    summary(&reply)
                ));
                check_error(&reply)?;
                self.started(&reply, caller)?;
                if let Some((ticket, claims)) = reply.minted() {
                    self.flows.push(Flow {
                        first_exp_s: claims.exp - EPOCH_MS / 1000,
                        completions: 0,
                    });
                    self.remember(
                        ticket.to_owned(),
                        self.flows.len() - 1,
                        caller,
                        params,
                        method,
                        &reply,
                    );
                }
                Ok(())
            }
            Op::Race { replica, ticket } => {
                let Some(seen) = self.pick(ticket) else {
                    return Ok(());
                };
                let mut params = seen.params.clone();
                params["requestState"] = json!(seen.ticket);
                params["inputResponses"] = honest_answers(&seen.questions);
                // The copy at the other replica, sent from inside the first copy's handler.
                let copy = message(self.next_id, seen.method, params.clone());
                self.next_id += 1;
                let (replicas, caller, now_ms) = (
                    self.replicas.clone(),
                    seen.caller,
                    EPOCH_MS + self.now_s * 1000,
                );
                let seed = self.next_id as u64 ^ 0x9e37_79b9_7f4a_7c15;
                let copy_reply: Rc<RefCell<Option<Reply>>> = Rc::default();
                let slot = copy_reply.clone();
                WHILE_RUNNING.with(|w| {
                    *w.borrow_mut() = Some(Box::new(move || {
                        let principal = caller.map_or(Principal::Anonymous, Principal::user);
                        let reply = replicas[usize::from((replica & 1) ^ 1)].handle(
                            &copy,
                            &mut CallContext {
                                principal: &principal,
                                clock: &FixedClock(now_ms),
                                entropy: &mut SeededEntropy::new(seed),
                            },
                        );
                        *slot.borrow_mut() = Some(reply);
                    }))
                });
                let first = self.send(replica, seen.caller, seen.method, params);
                // A handler that never ran (the ticket was refused) leaves the copy unsent.
                WHILE_RUNNING.with(|w| w.borrow_mut().take());
                let second = copy_reply.borrow_mut().take();
                self.log.push(format!(
                    "race of #{} (flow {}): on {} -> {}; meanwhile on {} -> {}",
                    self.index_of(&seen.ticket),
                    seen.flow,
                    name(replica),
                    summary(&first),
                    name(replica ^ 1),
                    second.as_ref().map_or("not sent".into(), summary)
                ));
                if let Some(second) = &second {
                    if completes(second) {
                        self.completed_now += 1;
                    }
                    self.note_task_events(second);
                }
                for reply in std::iter::once(&first).chain(second.as_ref()) {
                    check_error(reply)?;
                    self.after_retry(&seen, reply)?;
                }
                Ok(())
            }
            Op::Poll { replica, task, who } => self.poll(replica, task, who),
            Op::Answer {
                replica,
                task,
                choice,
            } => self.answer(replica, task, choice),
            Op::Cancel { replica, task, who } => self.cancel(replica, task, who),
            Op::Honest { replica, ticket } => {
                let Some(seen) = self.pick(ticket) else {
                    return Ok(());
                };
                let flow = &self.flows[seen.flow];
                let live = self.now_s < flow.first_exp_s;
                let unspent = !(self.single_use && flow.completions > 0);
                // A ticket minted in or before the second a lost memory was replaced cannot be
                // told from a spent one: with single use it may be refused.
                let remembered =
                    !self.single_use || self.memory_began_s.is_none_or(|b| seen.minted_s > b);
                let mut params = seen.params.clone();
                params["requestState"] = json!(seen.ticket);
                params["inputResponses"] = honest_answers(&seen.questions);
                let reply = self.send(replica, seen.caller, seen.method, params);
                self.log.push(format!(
                    "honest retry of #{} (flow {}, live {live}, unspent {unspent}) on {} -> {}",
                    self.index_of(&seen.ticket),
                    seen.flow,
                    name(replica),
                    summary(&reply)
                ));
                check_error(&reply)?;
                if live && unspent && remembered && reply.error().is_some() {
                    return Err(format!(
                        "an honest retry of a live, unspent ticket was refused: {}",
                        summary(&reply)
                    ));
                }
                self.after_retry(&seen, &reply)
            }
            Op::Retry {
                replica,
                ticket,
                edit,
                answers,
                token,
                args,
            } => {
                let Some(seen) = self.pick(ticket) else {
                    return Ok(());
                };
                let caller = CALLERS[usize::from(token) % CALLERS.len()];
                let mut params = seen.params.clone();
                let args_text;
                match args % 4 {
                    0 => args_text = "same arguments",
                    1 => {
                        params["arguments"] = json!({"env": "prod"});
                        args_text = "env prod";
                    }
                    2 => {
                        params["arguments"] = json!({});
                        args_text = "no arguments";
                    }
                    _ => {
                        if let Some(Value::Object(a)) = params.get_mut("arguments") {
                            a.insert("force".into(), json!(true));
                        }
                        args_text = "an extra argument";
                    }
                }
                let (ticket_text, edit_text) = edited(&seen.ticket, edit);
                params["requestState"] = json!(ticket_text);
                let (responses, answers_text) = answers_of(&seen.questions, answers);
                if let Some(r) = responses {
                    params["inputResponses"] = r;
                }
                let reply = self.send(replica, caller, seen.method, params);
                self.log.push(format!(
                    "retry of #{} (flow {}) {edit_text}, {answers_text}, {args_text}, as {caller:?} on {} -> {}",
                    self.index_of(&seen.ticket),
                    seen.flow,
                    name(replica),
                    summary(&reply)
                ));
                check_error(&reply)?;
                self.after_retry(&seen, &reply)
            }
        }
    }

    /// What a retry carrying a ticket of `seen`'s flow did to the flow.
    fn after_retry(&mut self, seen: &Seen, reply: &Reply) -> Result<(), String> {
        let Some(result) = reply.result() else {
            return Ok(());
        };
        let flow = &mut self.flows[seen.flow];
        match result.get("resultType").and_then(Value::as_str) {
            // Invariant 6: starting a task completes the flow (its work is now the task's).
            Some("complete") | Some("task") => {
                flow.completions += 1;
                if self.now_s >= flow.first_exp_s {
                    return Err(format!(
                        "flow {} completed at t={} s, at or after its first ticket's expiry ({} s)",
                        seen.flow, self.now_s, flow.first_exp_s
                    ));
                }
                if self.single_use && flow.completions > 1 {
                    return Err(format!(
                        "with single use, flow {} completed {} times",
                        seen.flow, flow.completions
                    ));
                }
                Ok(())
            }
            Some("input_required") => {
                if let Some((ticket, _)) = reply.minted() {
                    self.remember(
                        ticket.to_owned(),
                        seen.flow,
                        seen.caller,
                        seen.params.clone(),
                        seen.method,
                        reply,
                    );
                }
                Ok(())
            }
            other => Err(format!("a result with resultType {other:?}")),
        }
        .and_then(|()| self.started(reply, seen.caller))
    }

    fn remember(
        &mut self,
        ticket: String,
        flow: usize,
        caller: Option<&'static str>,
        params: Value,
        method: &'static str,
        reply: &Reply,
    ) {
        if self.seen.iter().any(|s| s.ticket == ticket) {
            return;
        }
        let questions = reply
            .result()
            .and_then(|r| r.get("inputRequests"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        self.seen.push(Seen {
            ticket,
            flow,
            caller,
            params,
            method,
            questions,
            minted_s: self.now_s,
        });
    }

    fn pick(&self, index: u16) -> Option<Seen> {
        if self.seen.is_empty() {
            return None;
        }
        Some(self.seen[usize::from(index) % self.seen.len()].clone())
    }

    fn index_of(&self, ticket: &str) -> usize {
        self.seen
            .iter()
            .position(|s| s.ticket == ticket)
            .unwrap_or(usize::MAX)
    }

    fn send(&mut self, replica: u8, caller: Option<&str>, method: &str, params: Value) -> Reply {
        let message = message(self.next_id, method, params);
        self.next_id += 1;
        let principal = caller.map_or(Principal::Anonymous, Principal::user);
        let clock = FixedClock(EPOCH_MS + self.now_s * 1000);
        let server = &self.replicas[usize::from(replica & 1)];
        let reply = server.handle(
            &message,
            &mut CallContext {
                principal: &principal,
                clock: &clock,
                entropy: &mut self.rng,
            },
        );
        if mrtr_core::wire::may_require_input(method) && completes(&reply) {
            self.completed_now += 1;
        }
        self.note_task_events(&reply);
        reply
    }
}

impl History {
    /// Records the task a call or retry started, if it started one.
    fn started(&mut self, reply: &Reply, caller: Option<&'static str>) -> Result<(), String> {
        let Some(r) = reply.result().filter(|r| r["resultType"] == "task") else {
            return Ok(());
        };
        let id = r["taskId"].as_str().ok_or("a task without a taskId")?;
        let ttl_ms = r["ttlMs"].as_u64().ok_or("a task without ttlMs")?;
        if r.get("requestState").is_some() || r.get("inputRequests").is_some() {
            return Err(format!("a task result carries a ticket or questions: {r}"));
        }
        self.tasks.push(SeenTask {
            id: id.to_owned(),
            owner: caller,
            expires_s: self.now_s + ttl_ms / 1000,
            memory: self.memory,
            open: Map::new(),
            answered_open: false,
            sent: Map::new(),
            ended: None,
            cancelled: false,
            completions: 0,
        });
        Ok(())
    }

    /// Notes the completions a reply's trace recorded (checked at the end of the step).
    fn note_task_events(&mut self, reply: &Reply) {
        use mrtr_core::tasks::{TaskEvent, TaskStatus};
        for e in &reply.trace {
            if let mrtr_core::TraceEvent::Task(TaskEvent::Moved {
                id,
                to: TaskStatus::Completed,
                ..
            }) = e
            {
                self.completed_tasks.push(id.clone());
            }
        }
    }

    fn pick_task(&self, index: u16) -> Option<usize> {
        (!self.tasks.is_empty()).then(|| usize::from(index) % self.tasks.len())
    }

    /// The caller a task op sends as: the owner when `who` is even, else one of the callers.
    fn task_caller(&self, t: usize, who: u8) -> Option<&'static str> {
        if who.is_multiple_of(2) {
            self.tasks[t].owner
        } else {
            CALLERS[usize::from(who / 2) % CALLERS.len()]
        }
    }

    /// Invariant 8 and the task methods' errors: a caller who is not the owner gets "Task not
    /// found" and nothing else; the owner of a live task in the memory in use reads it. Only
    /// "Task not found" or a store fault are errors.
    fn check_task_reply(
        &self,
        t: usize,
        caller: Option<&str>,
        reply: &Reply,
    ) -> Result<(), String> {
        let task = &self.tasks[t];
        let owner = caller == task.owner;
        let reachable = task.memory == self.memory && self.now_s < task.expires_s;
        match reply.error() {
            Some(e) if e.code == -32602 && e.message == mrtr_core::tasks::NOT_FOUND => {
                if owner && reachable {
                    return Err(format!(
                        "the owner of live task {} was told it is not found",
                        task.id
                    ));
                }
                Ok(())
            }
            Some(e) if e.code == -32603 => Ok(()),
            Some(e) => Err(format!("task {}: error {} {}", task.id, e.code, e.message)),
            None if !owner => Err(format!(
                "{caller:?} reached task {} of {:?}: {:?}",
                task.id, task.owner, reply.response
            )),
            None => Ok(()),
        }
    }

    fn task_send(
        &mut self,
        replica: u8,
        t: usize,
        caller: Option<&'static str>,
        method: &str,
        extra: Value,
    ) -> Reply {
        let mut params = json!({"taskId": self.tasks[t].id});
        if let Value::Object(m) = extra {
            for (k, v) in m {
                params[k] = v;
            }
        }
        self.send(replica, caller, method, params)
    }

    fn poll(&mut self, replica: u8, task: u16, who: u8) -> Result<(), String> {
        let Some(t) = self.pick_task(task) else {
            return Ok(());
        };
        let caller = self.task_caller(t, who);
        let reply = self.task_send(replica, t, caller, "tasks/get", json!({}));
        self.log.push(format!(
            "poll task #{t} as {caller:?} on {} -> {}",
            name(replica),
            task_summary(&reply)
        ));
        self.check_task_reply(t, caller, &reply)?;
        let Some(r) = reply.result() else {
            return Ok(());
        };
        if r.get("requestState").is_some() {
            return Err(format!("tasks/get carries a ticket: {r}"));
        }
        let status = r["status"].as_str().unwrap_or("").to_owned();
        let task = &mut self.tasks[t];
        // Invariant 7: a terminal status never changes.
        if let Some(ended) = &task.ended {
            if *ended != status {
                return Err(format!(
                    "task {} ended {ended}, and later reads {status}",
                    task.id
                ));
            }
        }
        if matches!(status.as_str(), "completed" | "failed" | "cancelled") {
            task.ended = Some(status.clone());
        }
        let open = r
            .get("inputRequests")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if open != task.open {
            task.open = open;
            task.answered_open = false;
        }
        Ok(())
    }

    fn answer(&mut self, replica: u8, task: u16, choice: u8) -> Result<(), String> {
        let Some(t) = self.pick_task(task) else {
            return Ok(());
        };
        let owner = self.tasks[t].owner;
        let kind = choice % 4;
        let (caller, responses, what) = match kind {
            0 => (owner, honest_answers(&self.tasks[t].open), "honest answers"),
            1 => (
                owner,
                Value::Object(self.tasks[t].sent.clone()),
                "answers sent before, again",
            ),
            2 => (
                owner,
                json!({"never-asked": {"action": "accept"}}),
                "an answer under a key never asked",
            ),
            _ => {
                let thief = CALLERS
                    .iter()
                    .copied()
                    .find(|c| *c != owner)
                    .unwrap_or(None);
                (
                    thief,
                    honest_answers(&self.tasks[t].open),
                    "a thief's answers",
                )
            }
        };
        let honest = kind == 0 && !self.tasks[t].open.is_empty() && !self.tasks[t].answered_open;
        let reply = self.task_send(
            replica,
            t,
            caller,
            "tasks/update",
            json!({"inputResponses": responses}),
        );
        self.log.push(format!(
            "answer task #{t} with {what} as {caller:?} on {} -> {}",
            name(replica),
            task_summary(&reply)
        ));
        self.check_task_reply(t, caller, &reply)?;
        if reply.error().is_some() {
            return Ok(());
        }
        use mrtr_core::tasks::TaskEvent;
        let taken: Vec<String> = reply
            .trace
            .iter()
            .filter_map(|e| match e {
                mrtr_core::TraceEvent::Task(TaskEvent::Answered { keys, .. }) => Some(keys.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let task = &mut self.tasks[t];
        if kind != 0 && !taken.is_empty() {
            return Err(format!("task {}: {what} were taken: {taken:?}", task.id));
        }
        // Invariant 9: the owner's honest answers to open questions of a live task that has
        // not ended are taken, every one.
        let live = task.memory == self.memory
            && self.now_s < task.expires_s
            && task.ended.is_none()
            && !task.cancelled;
        if honest && live {
            let wanted: Vec<&String> = task.open.keys().collect();
            if taken.iter().collect::<Vec<_>>() != wanted {
                return Err(format!(
                    "task {}: the owner's honest answers to {wanted:?} were not all taken (taken {taken:?})",
                    task.id
                ));
            }
        }
        if honest {
            task.answered_open = true;
            if let Value::Object(m) = responses {
                task.sent.extend(m);
            }
        }
        Ok(())
    }

    fn cancel(&mut self, replica: u8, task: u16, who: u8) -> Result<(), String> {
        let Some(t) = self.pick_task(task) else {
            return Ok(());
        };
        let caller = self.task_caller(t, who);
        let reply = self.task_send(replica, t, caller, "tasks/cancel", json!({}));
        self.log.push(format!(
            "cancel task #{t} as {caller:?} on {} -> {}",
            name(replica),
            task_summary(&reply)
        ));
        self.check_task_reply(t, caller, &reply)?;
        if reply.error().is_none() && caller == self.tasks[t].owner {
            // It has ended, one way or another (cancelled, or it had finished first): the
            // next poll says how, and its questions are closed.
            self.tasks[t].cancelled = true;
        }
        Ok(())
    }
}

fn task_summary(reply: &Reply) -> String {
    if let Some(e) = reply.error() {
        return format!("error {} {}", e.code, e.message);
    }
    match reply.result() {
        Some(r) => match r.get("status").and_then(Value::as_str) {
            Some(s) => {
                let keys: Vec<&String> = r
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .map(|m| m.keys().collect())
                    .unwrap_or_default();
                format!("{s} {keys:?}")
            }
            None => "acknowledged".into(),
        },
        None => "no response".into(),
    }
}

fn name(replica: u8) -> &'static str {
    if replica & 1 == 0 {
        "A"
    } else {
        "B"
    }
}

fn summary(reply: &Reply) -> String {
    if let Some(e) = reply.error() {
        return format!("error {} {}", e.code, e.message);
    }
    match reply.result() {
        Some(r) => match r.get("resultType").and_then(Value::as_str) {
            Some("input_required") => match reply.minted() {
                Some((_, c)) => format!(
                    "input_required, ticket {} exp {} s",
                    c.tid,
                    c.exp - EPOCH_MS / 1000
                ),
                None => "input_required, no ticket".into(),
            },
            Some(t) => t.to_owned(),
            None => "a result without resultType".into(),
        },
        None => "no response".into(),
    }
}

/// Invariant 4: only the uniform refusal or a store fault, and a refused ticket names its check.
fn check_error(reply: &Reply) -> Result<(), String> {
    let Some(e) = reply.error() else {
        return Ok(());
    };
    match e.code {
        -32603 => Ok(()),
        -32602 => {
            if e.is_invalid_request_state() {
                let named = reply.verdict().and_then(|v| v.first_failure()).is_some();
                if !named {
                    return Err(format!(
                        "a ticket was refused without a failed check: {:?}",
                        reply.trace
                    ));
                }
            }
            Ok(())
        }
        other => Err(format!(
            "error {other} ({}), not -32602 or -32603",
            e.message
        )),
    }
}

/// An answer of the asked kind to every question: the form's fields filled in (booleans
/// true), a sampling message, a list of roots.
pub fn honest_answers(questions: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for (key, q) in questions {
        out.insert(key.clone(), honest_answer(q));
    }
    Value::Object(out)
}

fn honest_answer(question: &Value) -> Value {
    match question.get("method").and_then(Value::as_str) {
        Some("sampling/createMessage") => sampling_answer(),
        Some("roots/list") => roots_answer(),
        _ => {
            let mut content = Map::new();
            if let Some(props) = question
                .pointer("/params/requestedSchema/properties")
                .and_then(Value::as_object)
            {
                for (field, schema) in props {
                    let v = match schema.get("type").and_then(Value::as_str) {
                        Some("boolean") => json!(true),
                        Some("number") | Some("integer") => json!(1),
                        _ => json!("x"),
                    };
                    content.insert(field.clone(), v);
                }
            }
            json!({"action": "accept", "content": content})
        }
    }
}

fn sampling_answer() -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"})
}

fn roots_answer() -> Value {
    json!({"roots": []})
}

/// An answer of another kind than the one asked (a renewal attempt).
fn wrong_kind(question: &Value) -> Value {
    match question.get("method").and_then(Value::as_str) {
        Some("roots/list") => json!({"action": "accept", "content": {"confirm": true}}),
        Some("sampling/createMessage") => roots_answer(),
        _ => sampling_answer(),
    }
}

/// `inputResponses` for a free retry, and how to say it.
fn answers_of(questions: &Map<String, Value>, choice: u8) -> (Option<Value>, &'static str) {
    let each = |f: &dyn Fn(&Value) -> Value| {
        let mut out = Map::new();
        for (k, q) in questions {
            out.insert(k.clone(), f(q));
        }
        out
    };
    match choice % 9 {
        0 => (None, "no answers"),
        1 => (Some(honest_answers(questions)), "honest answers"),
        2 => (Some(Value::Object(each(&wrong_kind))), "wrong-kind answers"),
        3 => (
            Some(Value::Object(each(
                &|_| json!({"result": {"action": "accept"}}),
            ))),
            "malformed answers",
        ),
        4 => {
            let mut a = each(&honest_answer);
            a.insert("extra".into(), sampling_answer());
            (Some(Value::Object(a)), "honest answers and an extra key")
        }
        5 => (
            Some(Value::Object(each(&|_| json!({"action": "decline"})))),
            "declined",
        ),
        6 => {
            let mut a = Map::new();
            if let Some((k, q)) = questions.iter().next() {
                a.insert(k.clone(), honest_answer(q));
            }
            (Some(Value::Object(a)), "the first answer only")
        }
        7 => (Some(Value::Null), "inputResponses null"),
        _ => (
            Some(Value::Object(each(&|_| json!(42)))),
            "numbers for answers",
        ),
    }
}

/// The ticket, or an edit of it, and how to say it.
fn edited(ticket: &str, edit: u8) -> (String, &'static str) {
    match edit % 6 {
        0 | 1 => (ticket.to_owned(), "byte for byte"),
        2 => {
            let mut b = ticket.as_bytes().to_vec();
            let i = b.len() / 2;
            b[i] = if b[i] == b'A' { b'B' } else { b'A' };
            (String::from_utf8(b).unwrap(), "one character changed")
        }
        3 => (
            mrtr_core::ticket::rewrite_payload(ticket, |p| {
                let mut c: Value = serde_json::from_str(&p).unwrap_or_default();
                if let Some(exp) = c.get("exp").and_then(Value::as_u64) {
                    c["exp"] = json!(exp + 3600);
                }
                c.to_string()
            })
            .unwrap_or_else(|_| ticket.to_owned()),
            "its expiry pushed an hour later",
        ),
        4 => (ticket[..ticket.len() - 1].to_owned(), "truncated"),
        _ => (format!("{ticket}A"), "with a character appended"),
    }
}
