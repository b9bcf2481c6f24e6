//! Tools that run as tasks: the lesson's deploy as a task (`deploy_as_task`), and every
//! fixture the conformance suite's `tasks-*` scenarios call. Each tool's handler decides
//! whether the call becomes a task ([`Outcome::StartTask`]); its work ([`TaskWork`]) is what
//! the task does, read up to now whenever the task is read or answered.

use serde_json::{json, Value};

use crate::catalog::{Catalog, Invocation, Outcome, Tool};
use crate::error::RpcError;
use crate::lesson::{confirm_schema, name_request, LATEST_RELEASE};
use crate::tasks::{requires_tasks, Progress, Question, TaskView, TaskWork};
use crate::wire::{InputRequest, InputResponse};

const ELICIT: &str = "elicitation/create";

/// How long `deploy_as_task` builds before it asks, and rolls out after the answer.
pub const BUILD_MS: u64 = 20_000;
/// How long the roll-out takes once confirmed.
pub const ROLL_OUT_MS: u64 = 10_000;
/// How long `failing_job` and `protocol_error_job` run before they end.
const JOB_MS: u64 = 500;
/// How long `test_tool_with_task` greets.
const GREETING_MS: u64 = 1_000;

/// The lab's task tool: the deploy as a task.
pub fn lab_tools() -> Vec<Tool> {
    vec![task_tool(
        "deploy_as_task",
        "Deploy to an environment as a task: build, ask the user to confirm the roll-out mid-way, roll out.",
        json!({
            "type": "object",
            "properties": {"env": {"type": "string", "description": "Where to deploy, e.g. staging or prod"}},
            "required": ["env"],
        }),
        deploy_as_task,
        deploy_work,
    )]
}

/// The conformance suite's task fixtures, as its scenarios call them.
pub fn conformance_catalog() -> Catalog {
    let any = || json!({"type": "object", "properties": {}});
    Catalog {
        tools: vec![
            Tool {
                name: "greet",
                description: "Greets at once; never a task.",
                input_schema: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                handler: greet,
                work: None,
            },
            task_tool(
                "slow_compute",
                "Computes for `seconds` as a task when the client reads tasks, at once otherwise.",
                json!({"type": "object", "properties": {
                    "seconds": {"type": "number", "minimum": 0, "maximum": 3600},
                    "label": {"type": "string"}}, "required": ["seconds"]}),
                slow_compute,
                slow_compute_work,
            ),
            task_tool(
                "failing_job",
                "Runs only as a task, and reports its own failure (isError).",
                any(),
                task_only,
                failing_job_work,
            ),
            task_tool(
                "protocol_error_job",
                "Runs only as a task, and fails with a JSON-RPC error.",
                any(),
                task_only,
                protocol_error_work,
            ),
            task_tool(
                "confirm_delete",
                "Runs as a task that asks the user to confirm before it deletes.",
                json!({"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]}),
                task_only,
                confirm_delete_work,
            ),
            task_tool(
                "multi_input",
                "Runs as a task that asks two questions at once.",
                any(),
                task_only,
                multi_input_work,
            ),
            task_tool(
                "test_tool_with_task",
                "Asks the user's name in an MRTR round, then greets them in a task.",
                any(),
                greet_then_task,
                greeting_work,
            ),
        ],
        ..Catalog::default()
    }
}

fn task_tool(
    name: &'static str,
    description: &'static str,
    input_schema: Value,
    handler: crate::catalog::Handler,
    work: TaskWork,
) -> Tool {
    Tool {
        name,
        description,
        input_schema,
        handler,
        work: Some(work),
    }
}

/// A tool that runs only as a task: its arguments are the seed. (The engine answers -32021
/// to a request that did not declare the extension.)
fn task_only(inv: &Invocation<'_>) -> Outcome {
    Outcome::StartTask(inv.arguments.clone())
}

fn greet(inv: &Invocation<'_>) -> Outcome {
    match inv.arguments.get("name").and_then(Value::as_str) {
        Some(name) => Outcome::text(format!("Hello, {name}!")),
        None => Outcome::Error(RpcError::invalid_params(
            "greet needs a string argument \"name\"",
        )),
    }
}

/// The deploy as a task: needs a client that reads tasks (it takes a while, and asks mid-way).
fn deploy_as_task(inv: &Invocation<'_>) -> Outcome {
    let Some(env) = inv.arguments.get("env").and_then(Value::as_str) else {
        return Outcome::Error(RpcError::invalid_params(
            "deploy_as_task needs a string argument \"env\"",
        ));
    };
    if !inv.capabilities.tasks {
        return Outcome::Error(requires_tasks(
            "deploy_as_task runs as a task, and this request did not declare the tasks extension",
        ));
    }
    Outcome::StartTask(json!({"env": env, "release": LATEST_RELEASE}))
}

/// Build, ask `confirm` once the build is done, roll out for a while after a yes.
fn deploy_work(v: &TaskView<'_>) -> Progress {
    let text = |k: &str| v.seed.get(k).and_then(Value::as_str).unwrap_or("?");
    let (env, release) = (text("env"), text("release"));
    if v.elapsed_ms() < BUILD_MS {
        return Progress::Working(format!(
            "Building release {release} for {env}: {} s of {} s.",
            v.elapsed_ms() / 1000,
            BUILD_MS / 1000
        ));
    }
    let question = InputRequest::elicit(
        format!("The build of release {release} passed. Roll it out to {env} now?"),
        confirm_schema(),
    );
    match v.question("confirm", ELICIT) {
        Question::Open(key) => Progress::ask(
            key,
            question,
            format!("Release {release} is built; waiting for the go-ahead to roll out to {env}."),
        ),
        Question::Answered(answer) if confirmed(&answer) => {
            let since = v
                .answers
                .iter()
                .rev()
                .find(|a| a.key.starts_with("confirm"))
                .map_or(v.now_ms, |a| a.at_ms);
            let rolling = v.now_ms.saturating_sub(since);
            if rolling < ROLL_OUT_MS {
                Progress::Working(format!(
                    "Rolling out release {release} to {env}: {} s of {} s.",
                    rolling / 1000,
                    ROLL_OUT_MS / 1000
                ))
            } else {
                Progress::text(format!("deployed to {env}, release {release}"))
            }
        }
        Question::Answered(_) => Progress::text(format!(
            "not deployed: the user did not confirm the roll-out to {env}"
        )),
        Question::Unreadable(n) => unreadable(n),
    }
}

fn confirmed(answer: &InputResponse) -> bool {
    answer
        .accepted()
        .and_then(|c| c.get("confirm"))
        .and_then(Value::as_bool)
        == Some(true)
}

fn unreadable(n: usize) -> Progress {
    Progress::Failed(RpcError::invalid_params(format!(
        "The task asked {n} times and no answer could be read; it stopped."
    )))
}

fn slow_compute(inv: &Invocation<'_>) -> Outcome {
    let seconds = inv.arguments.get("seconds").and_then(Value::as_f64);
    let Some(seconds) = seconds.filter(|s| (0.0..=3600.0).contains(s)) else {
        return Outcome::Error(RpcError::invalid_params(
            "slow_compute needs \"seconds\", a number from 0 to 3600",
        ));
    };
    let label = inv
        .arguments
        .get("label")
        .and_then(Value::as_str)
        .unwrap_or("");
    if inv.capabilities.tasks {
        Outcome::StartTask(json!({"seconds": seconds, "label": label}))
    } else {
        Outcome::text(format!(
            "slow_compute {label}: computed without a task (this request did not declare the tasks extension)"
        ))
    }
}

fn slow_compute_work(v: &TaskView<'_>) -> Progress {
    let seconds = v.seed.get("seconds").and_then(Value::as_f64).unwrap_or(0.0);
    let label = v.seed.get("label").and_then(Value::as_str).unwrap_or("");
    let total_ms = (seconds * 1000.0) as u64;
    if v.elapsed_ms() < total_ms {
        Progress::Working(format!(
            "Computing {label}: {} ms of {total_ms} ms.",
            v.elapsed_ms()
        ))
    } else {
        Progress::text(format!("slow_compute {label}: done after {seconds} s"))
    }
}

fn failing_job_work(v: &TaskView<'_>) -> Progress {
    if v.elapsed_ms() < JOB_MS {
        return Progress::Working("The job is running.".into());
    }
    Progress::tool_error("failing_job: the job ran and reported its own failure")
}

fn protocol_error_work(v: &TaskView<'_>) -> Progress {
    if v.elapsed_ms() < JOB_MS {
        return Progress::Working("The job is running.".into());
    }
    Progress::Failed(RpcError::internal(
        "protocol_error_job: the job stopped with a JSON-RPC error",
    ))
}

fn confirm_delete_work(v: &TaskView<'_>) -> Progress {
    let file = v
        .seed
        .get("filename")
        .and_then(Value::as_str)
        .unwrap_or("the file");
    match v.question("confirm", ELICIT) {
        Question::Open(key) => Progress::ask(
            key,
            InputRequest::elicit(format!("Delete {file}?"), confirm_schema()),
            format!("Waiting for the user to confirm deleting {file}."),
        ),
        Question::Answered(a) if confirmed(&a) => Progress::text(format!("Deleted {file}.")),
        Question::Answered(_) => {
            Progress::text(format!("Kept {file}: the deletion was not confirmed."))
        }
        Question::Unreadable(n) => unreadable(n),
    }
}

/// Two questions open at once; each closes as its answer arrives.
fn multi_input_work(v: &TaskView<'_>) -> Progress {
    let confirm = InputRequest::elicit("Go ahead?", confirm_schema());
    let (name_q, confirm_q) = (v.question("name", ELICIT), v.question("confirm", ELICIT));
    let mut open = Vec::new();
    for (q, request) in [(&name_q, name_request()), (&confirm_q, confirm)] {
        match q {
            Question::Open(key) => open.push((key.clone(), request)),
            Question::Unreadable(n) => return unreadable(*n),
            Question::Answered(_) => {}
        }
    }
    if !open.is_empty() {
        return Progress::InputRequired {
            message: format!("Waiting for {} answer(s).", open.len()),
            requests: open,
        };
    }
    let field = |q: &Question, k: &str| match q {
        Question::Answered(a) => a.accepted().and_then(|c| c.get(k)).cloned(),
        _ => None,
    };
    let name = field(&name_q, "name");
    let name = name.as_ref().and_then(Value::as_str).unwrap_or("nobody");
    let yes = field(&confirm_q, "confirm").and_then(|c| c.as_bool()) == Some(true);
    Progress::text(format!("Hello, {name}; confirmed: {yes}."))
}

/// MRTR first, then a task: ask the name in an `input_required` round (with a ticket), and
/// start the task only once the retry brings it. Needs the extension from the first round
/// on: the task is what the call is for.
fn greet_then_task(inv: &Invocation<'_>) -> Outcome {
    if !inv.capabilities.tasks {
        return Outcome::Error(requires_tasks(
            "test_tool_with_task runs as a task, and this request did not declare the tasks extension",
        ));
    }
    match inv
        .accepted("user_name")
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
    {
        Some(name) => Outcome::StartTask(json!({"name": name})),
        None => Outcome::ask("user_name", name_request(), Some(json!({}))),
    }
}

fn greeting_work(v: &TaskView<'_>) -> Progress {
    if v.elapsed_ms() < GREETING_MS {
        return Progress::Working("Writing the greeting.".into());
    }
    let name = v.seed.get("name").and_then(Value::as_str).unwrap_or("?");
    Progress::text(format!("Hello, {name}!"))
}
