//! The deploy as a task: bob asks for a deploy to prod that takes a while. The call answers at
//! once with a task; the deploy builds for 20 s, then asks bob to confirm the roll-out, then
//! rolls out for 10 s. The reader plays the rest, one step at a time: wait, poll, answer,
//! cancel, or play alice holding bob's task id, or send bob's answer again. Every step is a
//! real request to one of two replicas of the lab's server (the balancer alternates), and the
//! whole list of steps replays from the start, so the same steps always give the same run.

use std::sync::Arc;

use mrtr_core::tasks::{MemoryTaskStore, TaskEvent, TaskStatus, TaskStore};
use mrtr_core::wire::ClientCapabilities;
use mrtr_core::{
    CallContext, Client, FixedClock, Principal, Reply, SeededEntropy, Server, TraceEvent,
};
use serde_json::{json, Value};

use crate::actor::{Actor, Replica};
use crate::knobs::{Knobs, StoreMode};
use crate::tone::Tone;
use crate::world::{replica_codec, EPOCH_S};

/// Most steps one run (and one link) holds.
pub const MAX_STEPS: usize = 40;
/// Longest single wait, in seconds.
pub const MAX_WAIT_S: u64 = 600;

/// What the reader does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskStep {
    /// Let this many seconds pass.
    Wait(u64),
    /// bob's client reads the task (`tasks/get`).
    Poll,
    /// bob answers the question yes (`tasks/update`).
    Yes,
    /// bob answers no.
    No,
    /// bob cancels the task (`tasks/cancel`).
    Cancel,
    /// bob's client sends its last answer again.
    Replay,
    /// alice, holding bob's task id, reads the task.
    ThiefPolls,
    /// alice, holding bob's task id, answers yes.
    ThiefAnswers,
    /// alice, holding bob's task id, cancels it.
    ThiefCancels,
}

impl TaskStep {
    /// The steps the console offers, in order (waits are offered in a few sizes).
    pub const OFFERED: [TaskStep; 11] = [
        TaskStep::Wait(5),
        TaskStep::Wait(20),
        TaskStep::Poll,
        TaskStep::Yes,
        TaskStep::No,
        TaskStep::Cancel,
        TaskStep::Replay,
        TaskStep::ThiefPolls,
        TaskStep::ThiefAnswers,
        TaskStep::ThiefCancels,
        TaskStep::Wait(600),
    ];

    /// The step as a link writes it: `w20`, `p`, `y`, `n`, `c`, `r`, `tp`, `ty`, `tc`.
    pub fn id(self) -> String {
        match self {
            TaskStep::Wait(s) => format!("w{s}"),
            TaskStep::Poll => "p".into(),
            TaskStep::Yes => "y".into(),
            TaskStep::No => "n".into(),
            TaskStep::Cancel => "c".into(),
            TaskStep::Replay => "r".into(),
            TaskStep::ThiefPolls => "tp".into(),
            TaskStep::ThiefAnswers => "ty".into(),
            TaskStep::ThiefCancels => "tc".into(),
        }
    }

    /// The step [`TaskStep::id`] writes; `None` for anything else (a wait of 1 to
    /// [`MAX_WAIT_S`] seconds).
    pub fn from_id(s: &str) -> Option<TaskStep> {
        Some(match s {
            "p" => TaskStep::Poll,
            "y" => TaskStep::Yes,
            "n" => TaskStep::No,
            "c" => TaskStep::Cancel,
            "r" => TaskStep::Replay,
            "tp" => TaskStep::ThiefPolls,
            "ty" => TaskStep::ThiefAnswers,
            "tc" => TaskStep::ThiefCancels,
            w => {
                let s = w.strip_prefix('w')?;
                if s.starts_with('+') || s.starts_with('0') {
                    return None;
                }
                let secs = s.parse::<u64>().ok()?;
                (1..=MAX_WAIT_S)
                    .contains(&secs)
                    .then_some(TaskStep::Wait(secs))?
            }
        })
    }

    /// The step as the console's button says it.
    pub fn label(self) -> String {
        match self {
            TaskStep::Wait(s) if s >= 60 => format!("Wait {} min", s / 60),
            TaskStep::Wait(s) => format!("Wait {s} s"),
            TaskStep::Poll => "Poll: tasks/get".into(),
            TaskStep::Yes => "Answer yes: tasks/update".into(),
            TaskStep::No => "Answer no".into(),
            TaskStep::Cancel => "Cancel: tasks/cancel".into(),
            TaskStep::Replay => "Send the last answer again".into(),
            TaskStep::ThiefPolls => "alice polls with bob's task id".into(),
            TaskStep::ThiefAnswers => "alice answers yes with bob's task id".into(),
            TaskStep::ThiefCancels => "alice cancels with bob's task id".into(),
        }
    }

    /// Who plays the step: bob's client, or alice (a thief holding bob's task id).
    pub fn by(self) -> Actor {
        match self {
            TaskStep::ThiefPolls | TaskStep::ThiefAnswers | TaskStep::ThiefCancels => Actor::Thief,
            _ => Actor::Client,
        }
    }
}

/// Writes steps as a link carries them: ids joined by dots.
pub fn steps_to_text(steps: &[TaskStep]) -> String {
    steps.iter().map(|s| s.id()).collect::<Vec<_>>().join(".")
}

/// Reads steps from a link; `None` if any is unknown or there are more than [`MAX_STEPS`].
pub fn steps_from_text(text: &str) -> Option<Vec<TaskStep>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    let steps: Option<Vec<TaskStep>> = text.split('.').map(TaskStep::from_id).collect();
    steps.filter(|s| s.len() <= MAX_STEPS)
}

/// How an exchange is drawn: refused (an error), asked (the task waits for an answer), done
/// (it ended) or working (it goes on, or the request was acknowledged).
pub fn tone_of(reply: &Value) -> Tone {
    if reply.get("error").is_some() {
        return Tone::Refused;
    }
    match reply.pointer("/result/status").and_then(Value::as_str) {
        Some("input_required") => Tone::Asked,
        Some("completed") | Some("cancelled") | Some("failed") => Tone::Done,
        _ => Tone::Working,
    }
}

/// One request of the run and what came of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// Seconds since bob's call.
    pub at_s: u64,
    /// Who sent it: bob's client or alice.
    pub by: Actor,
    /// The replica the balancer sent it to.
    pub replica: Replica,
    /// The JSON-RPC method.
    pub method: String,
    /// The request as sent.
    pub request: Value,
    /// The replica's response.
    pub response: Value,
    /// What came of it, in words, from the response and the replica's trace.
    pub words: String,
    /// How it is drawn (see [`tone_of`]).
    pub tone: Tone,
    /// What the replica's log says and the wire does not (a refusal's reason).
    pub log: Option<String>,
}

/// The run: every exchange, and what the task came to.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRun {
    /// Every request, in order (the call first).
    pub exchanges: Vec<Exchange>,
    /// The task's id, as the call answered.
    pub task_id: Option<String>,
    /// The task as its store holds it at the end (`None`: no store the balancer reaches holds it).
    pub status: Option<TaskStatus>,
    /// The task's own sentence on where it is, at the end.
    pub status_message: Option<String>,
    /// The time the run ends at.
    pub now_s: u64,
    /// How many times the deploy rolled out (the work a task must do at most once).
    pub deploys: usize,
    /// The replicas keep tasks in one memory they share (else each keeps its own).
    pub shared: bool,
}

impl TaskRun {
    /// Where the task is at the end, in a sentence: read from the memory that holds it.
    pub fn state_words(&self) -> String {
        let held = match (self.status, self.shared) {
            (Some(s), true) => format!(
                "In the shared memory, the task is {}.",
                s.as_str().replace('_', " ")
            ),
            (Some(s), false) => format!(
                "In replica A's memory, the task is {}.",
                s.as_str().replace('_', " ")
            ),
            (None, _) => "No memory the replicas reach holds the task any more.".into(),
        };
        match &self.status_message {
            Some(m) => format!("{held} {m}"),
            None => held,
        }
    }

    /// How many times the deploy rolled out, in a sentence.
    pub fn deploy_words(&self) -> String {
        match self.deploys {
            0 => "The deploy has not rolled out.".to_owned(),
            1 => "The deploy rolled out once.".to_owned(),
            n => format!("The deploy rolled out {n} times."),
        }
    }
}

/// The two replicas, and where each keeps its tasks.
struct Fleet {
    replicas: [Server; 2],
    stores: [Arc<MemoryTaskStore>; 2],
}

impl Fleet {
    fn new(knobs: Knobs) -> Fleet {
        let shared = Arc::new(MemoryTaskStore::default());
        let store = || match knobs.store {
            StoreMode::PerReplica => Arc::new(MemoryTaskStore::default()),
            StoreMode::Shared | StoreMode::Quorum => shared.clone(),
        };
        let stores = [store(), store()];
        let replica = |r: Replica| {
            Server::new(
                mrtr_core::ServerConfig {
                    name: format!("replica-{}", r.name().to_ascii_lowercase()),
                    ..mrtr_core::ServerConfig::default()
                },
                replica_codec(&knobs, r),
                mrtr_core::fixtures::catalog(),
            )
            .with_task_store(Box::new(stores[r.index()].clone()))
        };
        Fleet {
            replicas: [replica(Replica::A), replica(Replica::B)],
            stores,
        }
    }
}

/// The client bob's host runs: it declares form elicitation and the tasks extension.
pub fn client() -> Client {
    Client::new(
        ClientCapabilities {
            elicitation_form: true,
            tasks: true,
            ..Default::default()
        },
        "mrtr-lab-client",
        "1.0.0",
    )
}

/// Plays bob's call and then `steps`, under `knobs` (only where the memory lives and the
/// seed matter here).
pub fn play(knobs: Knobs, steps: &[TaskStep]) -> TaskRun {
    let mut run = Run::new(knobs);
    let (_, call) = run.client.begin(
        "tools/call",
        json!({"name": "deploy_as_task", "arguments": {"env": "prod"}}),
    );
    let created = run.send(Actor::Client, call);
    let task_id = created
        .result()
        .and_then(|r| r.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = task_id.clone().unwrap_or_default();
    for step in steps.iter().take(MAX_STEPS) {
        run.take(*step, &id);
    }
    run.finish(task_id, knobs)
}

/// A run under way: the fleet, the clock, the client, what was sent and answered.
struct Run {
    fleet: Fleet,
    rng: SeededEntropy,
    client: Client,
    now_s: u64,
    /// Requests sent so far: the balancer alternates A, B, A, …
    turn: usize,
    exchanges: Vec<Exchange>,
    /// Completions written to a store, by any request.
    completions: usize,
    /// bob's last answer, to send again.
    last_answer: Option<Value>,
}

impl Run {
    fn new(knobs: Knobs) -> Run {
        Run {
            fleet: Fleet::new(knobs),
            rng: SeededEntropy::new(knobs.seed),
            client: client(),
            now_s: 0,
            turn: 0,
            exchanges: Vec::new(),
            completions: 0,
            last_answer: None,
        }
    }

    /// One request, as bob's client or alice, to the replica whose turn it is; recorded.
    fn send(&mut self, by: Actor, msg: Value) -> Reply {
        let replica = if self.turn.is_multiple_of(2) {
            Replica::A
        } else {
            Replica::B
        };
        self.turn += 1;
        let who = Principal::user(if by == Actor::Thief { "alice" } else { "bob" });
        let reply = self.fleet.replicas[replica.index()].handle(
            &msg,
            &mut CallContext {
                principal: &who,
                clock: &FixedClock((EPOCH_S + self.now_s) * 1000),
                entropy: &mut self.rng,
            },
        );
        self.completions += completed_here(&reply);
        let response = reply.response.clone().unwrap_or(Value::Null);
        self.exchanges.push(Exchange {
            at_s: self.now_s,
            by,
            replica,
            method: msg["method"].as_str().unwrap_or("").to_owned(),
            words: words(&msg, &reply, replica),
            tone: tone_of(&response),
            log: refusal_log(&reply),
            request: msg,
            response,
        });
        reply
    }

    /// A task request about task `id`, `extra` added to its params.
    fn request(&mut self, method: &str, id: &str, extra: Value) -> Value {
        let (_, mut msg) = self.client.task_request(method, id);
        if let (Some(p), Value::Object(m)) = (msg["params"].as_object_mut(), extra) {
            p.extend(m);
        }
        msg
    }

    /// Takes one of the reader's steps.
    fn take(&mut self, step: TaskStep, id: &str) {
        let yes_no = |yes: bool| json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": yes}}}});
        let msg = match step {
            TaskStep::Wait(s) => {
                self.now_s = (self.now_s + s.min(MAX_WAIT_S)).min(MAX_STEPS as u64 * MAX_WAIT_S);
                return;
            }
            TaskStep::Poll | TaskStep::ThiefPolls => self.request("tasks/get", id, json!({})),
            TaskStep::Cancel | TaskStep::ThiefCancels => {
                self.request("tasks/cancel", id, json!({}))
            }
            TaskStep::Yes | TaskStep::No => {
                let answer = yes_no(step == TaskStep::Yes);
                self.last_answer = Some(answer.clone());
                self.request("tasks/update", id, answer)
            }
            TaskStep::ThiefAnswers => self.request("tasks/update", id, yes_no(true)),
            TaskStep::Replay => {
                let again = self.last_answer.clone().unwrap_or_else(|| yes_no(true));
                self.request("tasks/update", id, again)
            }
        };
        self.send(step.by(), msg);
    }

    /// What the task came to, read where it lives (either replica's store).
    fn finish(self, task_id: Option<String>, knobs: Knobs) -> TaskRun {
        let id = task_id.clone().unwrap_or_default();
        let now_ms = (EPOCH_S + self.now_s) * 1000;
        let held = self
            .fleet
            .stores
            .iter()
            .find_map(|s| s.load(&id, now_ms).ok().flatten())
            .map(|(t, _)| t);
        // The deploy rolled out once per completion whose result says it deployed.
        let deployed = held
            .as_ref()
            .and_then(|t| match &t.ending {
                Some(mrtr_core::tasks::Ending::Result(r)) => r.pointer("/content/0/text"),
                _ => None,
            })
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("deployed"));
        TaskRun {
            exchanges: self.exchanges,
            task_id,
            status: held.as_ref().map(|t| t.status),
            status_message: held.and_then(|t| t.message),
            now_s: self.now_s,
            deploys: if deployed { self.completions } else { 0 },
            shared: knobs.store != StoreMode::PerReplica,
        }
    }
}

/// How many times this reply's request moved a task to completed (the moment its work is
/// done, written to the store once).
fn completed_here(reply: &Reply) -> usize {
    reply
        .trace
        .iter()
        .filter(|e| {
            matches!(
                e,
                TraceEvent::Task(TaskEvent::Moved {
                    to: TaskStatus::Completed,
                    ..
                })
            )
        })
        .count()
}

/// The reason a replica refused, from its log (never sent).
fn refusal_log(reply: &Reply) -> Option<String> {
    reply.trace.iter().find_map(|e| match e {
        TraceEvent::Refused { detail, .. } => Some(detail.clone()),
        _ => None,
    })
}

/// What a request came to, in words: read off the response and the replica's trace.
fn words(request: &Value, reply: &Reply, replica: Replica) -> String {
    let by = format!("Replica {}", replica.name());
    if let Some(e) = reply.error() {
        return format!("{by} refuses: {} {}.", e.code, e.message);
    }
    let Some(r) = reply.result() else {
        return format!("{by} sends nothing back.");
    };
    let events: Vec<&TaskEvent> = reply
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Task(t) => Some(t),
            _ => None,
        })
        .collect();
    let said = r.get("statusMessage").and_then(Value::as_str).unwrap_or("");
    match request["method"].as_str().unwrap_or("") {
        "tools/call" => format!(
            "{by} starts the deploy as a task and answers at once: status {}. {said}",
            r["status"].as_str().unwrap_or("?")
        ),
        "tasks/get" => match r["status"].as_str() {
            Some("input_required") => {
                let question = r
                    .pointer("/inputRequests/confirm/params/message")
                    .and_then(Value::as_str)
                    .unwrap_or(said);
                format!("{by}: the task waits for bob. It asks: \"{question}\"")
            }
            Some("completed") => format!(
                "{by}: the task is completed: {}",
                r.pointer("/result/content/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or(said)
            ),
            Some(s) => format!("{by}: the task is {}. {said}", s.replace('_', " ")),
            None => format!("{by} answers without a status."),
        },
        _ => {
            let mut out = format!("{by} acknowledges (an empty result).");
            for e in events {
                match e {
                    TaskEvent::Answered { keys, .. } => out.push_str(&format!(
                        " The answer to \"{}\" is taken: that question is closed.",
                        keys.join("\", \"")
                    )),
                    TaskEvent::Ignored { keys, .. } => out.push_str(&format!(
                        " The answer under \"{}\" is ignored: no question is open under that key, so nothing changes.",
                        keys.join("\", \"")
                    )),
                    TaskEvent::Moved { from, to, .. } => out.push_str(&format!(
                        " The task goes from {} to {}.",
                        from.as_str().replace('_', " "),
                        to.as_str().replace('_', " ")
                    )),
                    TaskEvent::Created { .. } => {}
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TaskStep::*;

    fn run(steps: &[TaskStep]) -> TaskRun {
        play(Knobs::default(), steps)
    }

    #[test]
    fn steps_read_back_and_nothing_else_reads_as_steps() {
        let steps = [
            Wait(20),
            Poll,
            Yes,
            No,
            Cancel,
            Replay,
            ThiefPolls,
            ThiefAnswers,
            ThiefCancels,
            Wait(600),
        ];
        let text = steps_to_text(&steps);
        assert_eq!(text, "w20.p.y.n.c.r.tp.ty.tc.w600");
        assert_eq!(steps_from_text(&text).as_deref(), Some(&steps[..]));
        for bad in ["w0", "w601", "w+5", "w05", "x", "p..y", "w", "P"] {
            assert_eq!(steps_from_text(bad), None, "{bad}");
        }
        assert_eq!(steps_from_text(&vec!["p"; MAX_STEPS + 1].join(".")), None);
        assert_eq!(steps_from_text(""), Some(vec![]));
    }

    #[test]
    fn bob_answers_mid_way_and_the_other_replica_finishes_the_deploy() {
        let r = run(&[Wait(20), Poll, Yes, Wait(10), Poll]);
        let methods: Vec<&str> = r.exchanges.iter().map(|e| e.method.as_str()).collect();
        assert_eq!(
            methods,
            ["tools/call", "tasks/get", "tasks/update", "tasks/get"]
        );
        let replicas: Vec<Replica> = r.exchanges.iter().map(|e| e.replica).collect();
        assert_eq!(replicas, [Replica::A, Replica::B, Replica::A, Replica::B]);
        assert_eq!(r.exchanges[0].tone, Tone::Working);
        assert_eq!(r.exchanges[1].tone, Tone::Asked);
        assert!(
            r.exchanges[1].words.contains("Roll it out to prod now?"),
            "{}",
            r.exchanges[1].words
        );
        assert!(
            r.exchanges[2].words.contains("is taken"),
            "{}",
            r.exchanges[2].words
        );
        assert!(
            r.exchanges[3].words.contains("deployed to prod"),
            "{}",
            r.exchanges[3].words
        );
        assert_eq!((r.status, r.deploys), (Some(TaskStatus::Completed), 1));
        // No ticket anywhere in a task's messages.
        for e in &r.exchanges {
            assert!(e.response.pointer("/result/requestState").is_none());
            assert!(e.request.pointer("/params/requestState").is_none());
        }
    }

    #[test]
    fn a_stolen_task_id_gets_alice_nothing_and_changes_nothing() {
        let r = run(&[Wait(20), ThiefPolls, ThiefAnswers, ThiefCancels, Poll]);
        for e in &r.exchanges[1..4] {
            assert_eq!(e.by, Actor::Thief);
            assert_eq!(e.tone, Tone::Refused);
            assert_eq!(e.response["error"]["message"], "Task not found");
            assert_eq!(e.log.as_deref(), Some("the task belongs to another caller"));
        }
        assert_eq!(
            r.exchanges[4].tone,
            Tone::Asked,
            "bob's task still waits for bob"
        );
        assert_eq!((r.status, r.deploys), (Some(TaskStatus::InputRequired), 0));
    }

    #[test]
    fn an_answer_sent_again_is_ignored_and_the_deploy_rolls_out_once() {
        let r = run(&[Wait(20), Poll, Yes, Replay, Wait(10), Poll, Replay, Poll]);
        let replays: Vec<&Exchange> = r
            .exchanges
            .iter()
            .filter(|e| e.words.contains("ignored"))
            .collect();
        assert_eq!(replays.len(), 2);
        assert_eq!((r.status, r.deploys), (Some(TaskStatus::Completed), 1));
    }

    #[test]
    fn an_answer_before_the_question_is_ignored_and_the_question_still_comes() {
        let r = run(&[Wait(5), Yes, Wait(15), Poll]);
        assert!(
            r.exchanges[1].words.contains("ignored"),
            "{}",
            r.exchanges[1].words
        );
        assert_eq!(r.exchanges[2].tone, Tone::Asked);
    }

    #[test]
    fn cancelled_during_the_build_it_never_deploys() {
        let r = run(&[Wait(5), Cancel, Wait(30), Poll, Yes]);
        assert!(
            r.exchanges[1].words.contains("from working to cancelled"),
            "{}",
            r.exchanges[1].words
        );
        assert_eq!((r.status, r.deploys), (Some(TaskStatus::Cancelled), 0));
        assert!(r.exchanges[3].words.contains("ignored"));
    }

    #[test]
    fn replicas_that_each_keep_their_own_tasks_cannot_serve_each_others() {
        let knobs = Knobs {
            store: StoreMode::PerReplica,
            ..Knobs::default()
        };
        let r = play(knobs, &[Poll, Poll]);
        assert_eq!(r.exchanges[1].replica, Replica::B);
        assert_eq!(
            r.exchanges[1].response["error"]["message"],
            "Task not found"
        );
        assert_eq!(
            r.exchanges[1].log.as_deref(),
            Some("no such task, or it expired")
        );
        assert_eq!(
            r.exchanges[2].tone,
            Tone::Working,
            "A, which started it, still has it"
        );
        assert!(!r.shared);
    }

    #[test]
    fn after_its_time_to_live_the_task_is_gone() {
        let r = run(&[Wait(600), Poll]);
        assert_eq!(
            r.exchanges[1].response["error"]["message"],
            "Task not found"
        );
        assert_eq!(r.status, None);
    }
}
