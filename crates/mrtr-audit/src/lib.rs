//! # mrtr-audit
//!
//! An audit of any MRTR server's ticket checks: find a tool that answers with a ticket,
//! then try every misuse in [`rows::ROWS`] against it and record, row by row, whether the
//! server refused. The engine does no I/O: an [`AuditRun`] hands out each request as a
//! [`Need`] and takes the server's answer back, so the same audit runs on any transport. The
//! terminal serves it with a [`Wire`] ([`audit`]: HTTP or stdio, or a simulated replica),
//! the page with `fetch`.

pub mod expect;
pub mod file;
mod port;
pub mod rows;
pub mod sim;
mod task_rows;
pub mod variants;

use mrtr_core::answered::{classify, Answered};
use mrtr_core::client::{AgreeableHost, Client, Step};
use mrtr_core::wire::{ClientCapabilities, InputRequest, InputResponse};
use mrtr_world::checks::glyph;
use mrtr_world::kinds::KindLabel;
use serde_json::{json, Map, Value};

pub use file::{FileRow, ReadError, ReportFile, MAX_REPORT_BYTES};
pub use rows::{levels_words, Failed, Guard, Level, Misuse, Row, Tally, ROWS};
use rows::{Arguments, Edit, Retry, Spend, Thief};
use task_rows::TaskSearch;
use variants::Variant;

/// The version of the `--json` report.
pub const SCHEMA: &str = "mrtr-audit/1";
/// Identical retries sent at once in the race row.
pub const RACE_WIDTH: usize = 8;
/// Tickets minted at most, looking for one whose spelling the standard alphabet changes.
pub const ALPHABET_TRIES: usize = 8;
/// Tools probed at most, looking for one that answers with a ticket.
pub const MAX_TOOL_PROBES: usize = 32;

/// Who a request is sent as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// The caller the audit acts for (`--token`).
    Caller,
    /// Someone else (`--other-token`).
    Other,
    /// No credentials at all.
    Nobody,
}

/// One answer from the server.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// The HTTP status, where there is one.
    pub status: Option<u16>,
    /// The JSON-RPC response (`Null` when the body was not JSON).
    pub body: Value,
}

impl Exchange {
    /// An HTTP answer as the audit reads it: the response of a JSON body, or the last
    /// response (a message with `result` or `error`) of an event stream; `Null` for any
    /// other body. The one reading the terminal's wire and the page's `fetch` share.
    pub fn from_http(status: u16, content_type: &str, text: &str) -> Exchange {
        let body = if content_type.starts_with("text/event-stream") {
            mrtr_core::wire::sse_messages(text)
                .into_iter()
                .rfind(|m| m.get("result").is_some() || m.get("error").is_some())
                .unwrap_or(Value::Null)
        } else {
            serde_json::from_str(text).unwrap_or(Value::Null)
        };
        Exchange {
            status: Some(status),
            body,
        }
    }
}

/// How the audit reaches the server.
pub trait Wire {
    /// Sends one JSON-RPC message as `who` and returns the server's answer; `Err` says in a
    /// sentence why no answer came (connection refused, timeout, closed stream).
    fn send(&mut self, msg: &Value, who: Who) -> Result<Exchange, String>;
    /// Sends the messages at once. `None` when this wire cannot (one stdio connection).
    fn race(&mut self, msgs: &[Value], who: Who) -> Option<Result<Vec<Exchange>, String>>;
    /// Lets `ms` milliseconds pass.
    fn wait_ms(&mut self, ms: u64);
    /// How far into the current second this wire's clock is, in milliseconds. Many servers
    /// count whole seconds; a row that times a ticket's life starts just after one begins.
    fn ms_into_second(&self) -> u64;
    /// Sends a request body of `bytes` bytes. `None` when this wire has no body limit to test.
    fn oversize_body(&mut self, bytes: usize) -> Option<Result<Exchange, String>>;
    /// Who besides the caller this wire can send as.
    fn callers(&self) -> Callers;
    /// Restarts the server and returns once it answers again. `None` when this wire cannot
    /// (nobody said how).
    fn restart(&mut self) -> Option<Result<(), String>>;
}

/// Who besides the caller the audit can send as: the rows that hand the honest retry to
/// somebody else run only when that somebody exists, so a server is never failed for
/// accepting its own caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Callers {
    /// The transport names a caller per request (HTTP's bearer token; not one stdio
    /// connection, whose principal is the process user).
    pub per_request: bool,
    /// The caller sends a token, so a request with none is another principal.
    pub caller_token: bool,
    /// Another caller's token is given, and it is not the caller's.
    pub other_token: bool,
}

impl Callers {
    /// One principal for every request (stdio).
    pub const ONE: Callers = Callers {
        per_request: false,
        caller_token: false,
        other_token: false,
    };

    /// HTTP with these bearer tokens (an empty one is none).
    pub fn http(token: Option<&str>, other: Option<&str>) -> Callers {
        let token = token.filter(|t| !t.is_empty());
        let other = other.filter(|t| !t.is_empty());
        Callers {
            per_request: true,
            caller_token: token.is_some(),
            other_token: other.is_some() && other != token,
        }
    }
}

/// What to audit and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The tool to audit; `None` to find one that answers with a ticket.
    pub tool: Option<String>,
    /// Its arguments; `None` to make them up from its input schema.
    pub arguments: Option<Value>,
    /// The capabilities each request declares.
    pub capabilities: Value,
    /// The server claims single use: run the single-use rows.
    pub expect_single_use: bool,
    /// Wait this long to test expiry (longer than the server's ticket lifetime).
    pub ttl_wait_s: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tool: None,
            arguments: None,
            capabilities: json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}}),
            expect_single_use: false,
            ttl_wait_s: None,
        }
    }
}

/// A row's result: the server did what the row asks, did not, or the row was not run (its
/// precondition is missing, e.g. no single use claimed or no second principal on stdio).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The server did what the row asks.
    Pass,
    /// It did not; the evidence says what it did instead.
    Fail,
    /// The row was not run; the evidence says why.
    Skipped,
}

impl Status {
    /// Every status, in the order reports count them.
    pub const ALL: [Status; 3] = [Status::Pass, Status::Fail, Status::Skipped];

    /// The status as a report's JSON and the expected file spell it: `pass`, `fail`,
    /// `skipped`.
    pub fn id(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skipped => "skipped",
        }
    }

    /// The status [`Status::id`] spells `s`; `None` for any other text.
    pub fn from_id(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|x| x.id() == s)
    }

    /// ✓ ✗ –, the lesson's glyphs ([`glyph`]), always beside a word or in a table with a
    /// legend (never alone).
    pub fn symbol(self) -> &'static str {
        match self {
            Status::Pass => glyph::YES,
            Status::Fail => glyph::NO,
            Status::Skipped => glyph::NOT_RUN,
        }
    }

    /// The word the page shows beside the symbol: the id ("pass", "fail", "skipped").
    pub fn word(self) -> &'static str {
        self.id()
    }

    /// The command line's word, five characters at most for its column, a failure shouted:
    /// "pass", "FAIL", "skip".
    pub fn tag(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::Skipped => "skip",
        }
    }
}

/// One row's result, with one line of evidence and the exchange that decided it.
#[derive(Clone, Debug, PartialEq)]
pub struct RowResult {
    /// The row of [`ROWS`] this is the result of.
    pub row: &'static Row,
    /// Whether the server passed it.
    pub status: Status,
    /// One line saying what the server did, or why the row was skipped.
    pub evidence: String,
    /// The request that decided the row, if one did.
    pub sent: Option<Value>,
    /// The server's answer to `sent`.
    pub got: Option<Value>,
    /// Requests this row sent.
    pub requests: usize,
}

/// A whole audit.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The tool audited: the one asked for, or the first found that answers with a ticket.
    pub tool: String,
    /// The arguments it was called with.
    pub arguments: Value,
    /// Each row's result, in the audit's order.
    pub rows: Vec<RowResult>,
    /// Requests the whole audit sent.
    pub requests: usize,
}

impl Report {
    /// The report's arithmetic ([`rows::Tally`], the one both report shapes use).
    pub fn tally(&self) -> rows::Tally {
        rows::Tally::of(self.rows.iter().map(|r| (r.status, Some(r.row.level))))
    }

    /// How many rows have status `s`.
    pub fn count(&self, s: Status) -> usize {
        self.tally().count(s)
    }

    /// The failed rows, counted by level.
    pub fn failed(&self) -> rows::Failed {
        self.tally().failed
    }

    /// True when no MUST or SHOULD row failed (the levels that count: [`Level::required`]).
    pub fn ok(&self) -> bool {
        self.tally().ok()
    }

    /// The status of the row of this id; `None` if the report has no row of this id.
    pub fn status(&self, id: &str) -> Option<Status> {
        self.rows.iter().find(|r| r.row.id == id).map(|r| r.status)
    }

    /// The report as the documented `--json` object (schema [`SCHEMA`]); read back by
    /// [`ReportFile::from_json`].
    pub fn to_json(&self, target: &str) -> Value {
        json!({
            "schema": SCHEMA,
            "target": target,
            "tool": self.tool,
            "arguments": self.arguments,
            "requests": self.requests,
            "verdict": {
                "ok": self.ok(),
                "passed": self.count(Status::Pass),
                "failed": self.count(Status::Fail),
                "skipped": self.count(Status::Skipped),
            },
            "rows": self.rows.iter().map(|r| json!({
                "id": r.row.id,
                "group": r.row.group,
                "title": r.row.title,
                "level": r.row.level.id(),
                "required": r.row.level.required(),
                "guard": r.row.guard.id(),
                "why": r.row.why(),
                "status": r.status.id(),
                "evidence": r.evidence,
                "requests": r.requests,
                "shows": r.row.shows,
                "sent": r.sent,
                "got": r.got,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Why an audit could not be made at all (exit code 2).
#[derive(Clone, Debug, PartialEq)]
pub enum AuditError {
    /// The server could not be reached, or answered with something that is not JSON-RPC.
    Connection(String),
    /// No tool answers with a ticket, so there is nothing to audit.
    NoTicket(String),
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::Connection(e) => write!(f, "{e}"),
            AuditError::NoTicket(e) => write!(f, "nothing to audit: {e}"),
        }
    }
}

/// The server's reply to one request, as far as the audit cares: complete, asked (with its
/// ticket), an error, or no JSON-RPC response at all.
#[derive(Clone, Debug, PartialEq)]
enum Reply {
    Complete,
    /// `input_required`, with the ticket it carried.
    Asked(Option<String>),
    Error(i64, String),
    /// No JSON-RPC response (an HTTP error page, a closed connection…).
    Broken(String),
}

impl Reply {
    /// The core's reading of the body ([`classify`]); a body that is no response is broken,
    /// with the HTTP status when there was one.
    fn of(ex: &Exchange) -> Reply {
        match classify(&ex.body) {
            Answered::Complete(_) => Reply::Complete,
            answered @ Answered::InputRequired(_) => {
                Reply::Asked(answered.request_state().map(str::to_owned))
            }
            Answered::Error(e) => Reply::Error(e.code, e.message),
            // A body with neither member is no response at all (an HTTP error page, a
            // closed connection…): said so, with the status; any other, by what is wrong.
            Answered::Malformed(why) => Reply::Broken(
                match (ex.status, ex.body.get("result").or(ex.body.get("error"))) {
                    (_, Some(_)) => why,
                    (Some(s), None) => format!("HTTP {s} without a JSON-RPC response"),
                    (None, None) => "no JSON-RPC response".into(),
                },
            ),
        }
    }

    fn refused(&self) -> bool {
        matches!(self, Reply::Error(..))
    }

    fn words(&self) -> String {
        match self {
            Reply::Complete => "a complete result (the work was done)".into(),
            Reply::Asked(Some(_)) => "input_required with a new ticket".into(),
            Reply::Asked(None) => "input_required".into(),
            Reply::Error(code, msg) => format!("error {code} {msg:?}"),
            Reply::Broken(why) => why.clone(),
        }
    }
}

/// An answer of another kind than `answer` (a sampling result for a form's answer, roots
/// for a sampling result, a form's answer for roots), and what it is, in words.
fn wrong_kind(answer: &Value) -> (Value, &'static str) {
    match InputResponse::classify(answer) {
        Some(InputResponse::Sampling(_)) => (json!({"roots": []}), "a roots list"),
        Some(InputResponse::Roots(_)) => (
            json!({"action": "accept", "content": {}}),
            "a form's answer",
        ),
        _ => (
            json!({"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "mrtr-audit"}),
            "a sampling result",
        ),
    }
}

/// A call made and answered with a ticket: what a row starts from.
struct Minted {
    ticket: String,
    /// The honest retry: answers, the ticket, a new id.
    retry: Value,
    /// The answers it carries.
    responses: Value,
}

struct Auditor {
    port: Port,
    client: Client,
    opts: Options,
    /// Who besides the caller the audit can send as.
    callers: Callers,
    tool: String,
    arguments: Value,
    /// Every tool `tools/list` named, with its input schema (the task rows look among them).
    tools: Vec<(String, Value)>,
    /// What the search for a tool that runs tasks found, once it has run.
    task_search: TaskSearch,
    next_id: i64,
    requests: usize,
}

/// The row's outcome while it runs.
type Judged = (Status, String, Option<Value>, Option<Value>);

fn pass(evidence: String) -> Judged {
    (Status::Pass, evidence, None, None)
}

fn skipped(why: &str) -> Judged {
    (Status::Skipped, why.to_owned(), None, None)
}

/// The most requests a row can send: what an audit promises before it starts (2 for an id this
/// build does not know).
pub fn row_budget(id: &str) -> usize {
    Row::by_id(id).map_or(2, |r| budget(r.misuse))
}

/// The most requests one misuse's row sends.
fn budget(m: Misuse) -> usize {
    match m {
        Misuse::Edit(Edit::Substitution) => 1 + variants::MAX_SUBSTITUTIONS,
        Misuse::UnusedBits => ALPHABET_TRIES + variants::MAX_RESPELLINGS,
        // tools/list, the audited call, one probe per other tool, the retry.
        Misuse::OtherTool => 3 + MAX_TOOL_PROBES,
        Misuse::Spend(Spend::Race) => 1 + RACE_WIDTH,
        Misuse::StandardAlphabet => ALPHABET_TRIES + 1,
        Misuse::TypeConfusion => 5,
        Misuse::Spend(Spend::Launder) => 4,
        Misuse::Renewal => 3,
        Misuse::Edit(Edit::Whitespace | Edit::Appended) => 4,
        Misuse::Spend(Spend::Repeat | Spend::MemoryLoss)
        | Misuse::Edit(Edit::Truncated | Edit::NoSignature | Edit::Padding | Edit::NonAscii) => 3,
        // The search for a task tool (run by whichever task row comes first), then the row's
        // own task: its call, its polls, its answers and a cancel.
        Misuse::TaskOtherCaller | Misuse::TaskAnswerReplayed | Misuse::TaskFinishedInput => {
            task_rows::search_budget() + 5 + 2 * task_rows::TASK_POLLS
        }
        Misuse::Retry(_)
        | Misuse::Edit(Edit::FieldEdit)
        | Misuse::Thief(_)
        | Misuse::Arguments(_)
        | Misuse::Expired
        | Misuse::CapabilityGating
        | Misuse::OversizeTicket
        | Misuse::OversizeBody => 2,
    }
}

/// The most requests a whole audit sends: tools/list, the tool probes, and every row.
pub fn max_requests() -> usize {
    1 + MAX_TOOL_PROBES + ROWS.iter().map(|r| row_budget(r.id)).sum::<usize>()
}

/// Runs every row against the server behind `wire`, serving each [`Need`] of an
/// [`AuditRun`] with it. `progress` hears one line per row.
pub fn audit(
    wire: &mut dyn Wire,
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, AuditError> {
    let (mut run, mut turn) = AuditRun::start(opts.clone(), wire.callers());
    loop {
        for line in run.take_lines() {
            progress(&line);
        }
        turn = match turn {
            Turn::Done(result) => return result,
            Turn::Need(need) => run.answer(serve(wire, need)),
        };
    }
}

/// Does what `need` asks with `wire`.
pub fn serve(wire: &mut dyn Wire, need: Need) -> Answer {
    match need {
        Need::Send { msg, who } => Answer::Sent(wire.send(&msg, who)),
        Need::Race { msgs, who } => Answer::Raced(wire.race(&msgs, who)),
        Need::Wait { ms } => {
            wire.wait_ms(ms);
            Answer::Waited
        }
        Need::Clock => Answer::Clock(wire.ms_into_second()),
        Need::OversizeBody { bytes } => Answer::Oversize(wire.oversize_body(bytes)),
        Need::Restart => Answer::Restarted(wire.restart()),
    }
}

/// What an audit needs from its transport before it can go on: the audit does no I/O and
/// keeps no clock, so each request, wait and reading of the clock is handed to whoever
/// drives it (the [`Wire`] of [`audit`] natively, `fetch` and a timer in the page).
#[derive(Clone, Debug, PartialEq)]
pub enum Need {
    /// Send one message as `who`: answer with [`Answer::Sent`].
    Send {
        /// The JSON-RPC message.
        msg: Value,
        /// Whose credentials it carries.
        who: Who,
    },
    /// Send these messages at once: answer with [`Answer::Raced`] (`None` when this
    /// transport cannot).
    Race {
        /// The messages, all sent before any answer is read.
        msgs: Vec<Value>,
        /// Whose credentials they carry.
        who: Who,
    },
    /// Let `ms` milliseconds pass: answer with [`Answer::Waited`].
    Wait {
        /// How long.
        ms: u64,
    },
    /// How far into the current second the clock is: answer with [`Answer::Clock`].
    Clock,
    /// Send a request body of `bytes` bytes: answer with [`Answer::Oversize`] (`None` when
    /// this transport has no body limit to test).
    OversizeBody {
        /// How large.
        bytes: usize,
    },
    /// Restart the server and wait until it answers again: answer with
    /// [`Answer::Restarted`] (`None` when this transport cannot).
    Restart,
}

/// What the transport did about a [`Need`] (the variant of the same name).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The server's answer, or in a sentence why none came.
    Sent(Result<Exchange, String>),
    /// The answers to a race, in the order sent.
    Raced(Option<Result<Vec<Exchange>, String>>),
    /// The time has passed.
    Waited,
    /// Milliseconds into the current second.
    Clock(u64),
    /// The answer to the oversized body.
    Oversize(Option<Result<Exchange, String>>),
    /// The server was restarted and answers again, or in a sentence why not; `None` when
    /// this transport cannot restart it.
    Restarted(Option<Result<(), String>>),
}

impl Answer {
    fn name(&self) -> &'static str {
        match self {
            Answer::Sent(_) => "Sent",
            Answer::Raced(_) => "Raced",
            Answer::Waited => "Waited",
            Answer::Clock(_) => "Clock",
            Answer::Oversize(_) => "Oversize",
            Answer::Restarted(_) => "Restarted",
        }
    }

    /// The error of a driver that answered another need than the one asked.
    fn mismatch(&self, need: &str) -> AuditError {
        AuditError::Connection(format!(
            "the audit asked for {need} and was answered {}",
            self.name()
        ))
    }
}

/// One step of an [`AuditRun`]: what it needs next, or its end.
#[derive(Debug)]
pub enum Turn {
    /// Do this, then [`AuditRun::answer`] with what came of it.
    Need(Need),
    /// The audit is over.
    Done(Result<Report, AuditError>),
}

/// How far an audit has got, for a progress bar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    /// The tool being audited, once one is chosen.
    pub tool: Option<String>,
    /// Rows finished.
    pub rows_done: usize,
    /// Rows planned ([`ROWS`]).
    pub rows: usize,
    /// The row running now.
    pub row: Option<&'static Row>,
    /// Requests sent so far.
    pub requests: usize,
}

/// An audit driven step by step (sans-IO): [`AuditRun::start`] hands back its first
/// [`Need`], each [`AuditRun::answer`] the next, until [`Turn::Done`]. Dropping it cancels
/// the audit; nothing is left running.
pub struct AuditRun {
    port: Port,
    run: Option<port::Run<Result<Report, AuditError>>>,
}

impl AuditRun {
    /// Starts an audit with `opts`; `callers` says who besides the caller it can send as
    /// (another caller, nobody: HTTP with the tokens for it; one stdio connection, neither).
    pub fn start(opts: Options, callers: Callers) -> (AuditRun, Turn) {
        let port = Port::default();
        port.progress(|p| p.rows = ROWS.len());
        let auditor = Auditor::new(port.clone(), opts, callers);
        let mut run = AuditRun {
            port,
            run: Some(port::Run::new(auditor.all())),
        };
        let turn = run.poll();
        (run, turn)
    }

    /// Hands the audit what came of its last [`Need`]; returns the next.
    pub fn answer(&mut self, answer: Answer) -> Turn {
        self.port.answer(answer);
        self.poll()
    }

    fn poll(&mut self) -> Turn {
        let Some(run) = self.run.as_mut() else {
            return Turn::Done(Err(AuditError::Connection("the audit is over".into())));
        };
        match run.poll() {
            Some(result) => {
                self.run = None;
                Turn::Done(result)
            }
            None => match self.port.take_need() {
                Some(need) => Turn::Need(need),
                // An audit only waits on its port, so this cannot happen; said, not panicked.
                None => {
                    self.run = None;
                    Turn::Done(Err(AuditError::Connection(
                        "the audit stopped without saying what it needs".into(),
                    )))
                }
            },
        }
    }

    /// How far it has got.
    pub fn progress(&self) -> Progress {
        self.port.progress(|p| p.clone())
    }

    /// The progress lines said since the last call ("[3/27] …"), for a terminal.
    pub fn take_lines(&mut self) -> Vec<String> {
        self.port.take_lines()
    }
}

type Port = port::Port<Need, Answer, Progress>;

/// The minted ticket for `$who`, or (returned at once) the row's judgement when none could be
/// had.
macro_rules! minted {
    ($auditor:expr, $who:expr) => {
        match $auditor.mint($who).await? {
            Ok(m) => m,
            Err(j) => return Ok(j),
        }
    };
}

impl Auditor {
    fn new(port: Port, opts: Options, callers: Callers) -> Auditor {
        let caps = ClientCapabilities::from_value(&opts.capabilities);
        let mut client = Client::new(caps, "mrtr-audit", env!("CARGO_PKG_VERSION"));
        client.envelope.raw_capabilities = opts.capabilities.clone();
        Auditor {
            port,
            client,
            opts,
            callers,
            tool: String::new(),
            arguments: Value::Null,
            tools: Vec::new(),
            task_search: TaskSearch::NotYet,
            next_id: 1,
            requests: 0,
        }
    }

    /// The whole audit: the tool, then every row.
    async fn all(mut self) -> Result<Report, AuditError> {
        self.choose_tool().await?;
        let mut rows = Vec::with_capacity(ROWS.len());
        let mut baseline_ok = true;
        for (i, row) in ROWS.iter().enumerate() {
            let before = self.requests;
            self.port
                .say(format!("[{}/{}] {}", i + 1, ROWS.len(), row.title));
            self.port.progress(|p| {
                p.rows_done = i;
                p.row = Some(row);
            });
            let (status, evidence, sent, got) = if !baseline_ok {
                skipped(
                    "the honest retry does not complete, so no refusal can be told from a failure",
                )
            } else {
                self.run(row).await?
            };
            if row.misuse == Misuse::Retry(Retry::Honest) && status != Status::Pass {
                baseline_ok = false;
            }
            debug_assert!(self.requests - before <= budget(row.misuse), "{}", row.id);
            rows.push(RowResult {
                row,
                status,
                evidence,
                sent,
                got,
                requests: self.requests - before,
            });
        }
        let requests = self.requests;
        self.port.progress(|p| {
            p.rows_done = ROWS.len();
            p.row = None;
            p.requests = requests;
        });
        Ok(Report {
            tool: self.tool,
            arguments: self.arguments,
            rows,
            requests,
        })
    }

    /// Hands `need` to the driver and waits for its answer.
    async fn ask(&mut self, need: Need) -> Answer {
        let requests = self.requests;
        self.port.progress(|p| p.requests = requests);
        self.port.ask(need).await
    }

    async fn wait_ms(&mut self, ms: u64) -> Result<(), AuditError> {
        match self.ask(Need::Wait { ms }).await {
            Answer::Waited => Ok(()),
            other => Err(other.mismatch("Wait")),
        }
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        1_000 + self.next_id
    }

    async fn send(&mut self, msg: &Value, who: Who) -> Result<Exchange, AuditError> {
        self.requests += 1;
        match self
            .ask(Need::Send {
                msg: msg.clone(),
                who,
            })
            .await
        {
            Answer::Sent(r) => r.map_err(AuditError::Connection),
            other => Err(other.mismatch("Send")),
        }
    }

    fn with_id(&mut self, msg: &Value) -> Value {
        let mut m = msg.clone();
        m["id"] = json!(self.id());
        m
    }

    /// `tools/list`, then the named tool or the first one that answers with a ticket.
    async fn choose_tool(&mut self) -> Result<(), AuditError> {
        let list = self.client.simple("tools/list", json!({}));
        let listed = self.send(&list, Who::Caller).await?;
        let tools: Vec<Value> = listed
            .body
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| {
                AuditError::Connection(format!(
                    "tools/list did not answer with a list of tools: {}",
                    short(&listed.body)
                ))
            })?;
        self.tools = tools
            .iter()
            .filter_map(|t| {
                Some((
                    t.get("name")?.as_str()?.to_owned(),
                    t.get("inputSchema").cloned().unwrap_or(Value::Null),
                ))
            })
            .collect();
        let candidates: Vec<(String, Value)> = match &self.opts.tool {
            Some(name) => {
                let schema = tools
                    .iter()
                    .find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()))
                    .and_then(|t| t.get("inputSchema").cloned())
                    .unwrap_or(Value::Null);
                vec![(name.clone(), schema)]
            }
            None => tools
                .iter()
                .filter_map(|t| {
                    Some((
                        t.get("name")?.as_str()?.to_owned(),
                        t.get("inputSchema").cloned().unwrap_or(Value::Null),
                    ))
                })
                .take(MAX_TOOL_PROBES)
                .collect(),
        };
        let mut seen = Vec::new();
        for (name, schema) in candidates {
            let args = self
                .opts
                .arguments
                .clone()
                .unwrap_or_else(|| arguments_for(&schema));
            let (_, call) = self
                .client
                .begin("tools/call", json!({"name": name, "arguments": args}));
            let ex = self.send(&call, Who::Caller).await?;
            match Reply::of(&ex) {
                Reply::Asked(Some(_)) => {
                    self.port.say(format!("auditing {name} {args}"));
                    self.port.progress(|p| p.tool = Some(name.clone()));
                    self.tool = name;
                    self.arguments = args;
                    return Ok(());
                }
                other => seen.push(format!("{name}: {}", other.words())),
            }
        }
        Err(AuditError::NoTicket(if seen.is_empty() {
            "the server lists no tools".into()
        } else {
            format!(
                "no tool answered with input_required and a requestState ({})",
                seen.join("; ")
            )
        }))
    }

    /// Calls the tool and answers its question: the honest retry, ready to send.
    async fn mint(&mut self, who: Who) -> Result<Result<Minted, Judged>, AuditError> {
        let params = json!({"name": self.tool, "arguments": self.arguments});
        self.mint_call(params, who).await
    }

    async fn mint_call(
        &mut self,
        params: Value,
        who: Who,
    ) -> Result<Result<Minted, Judged>, AuditError> {
        let (mut call, first) = self.client.begin("tools/call", params);
        let ex = self.send(&first, who).await?;
        let Reply::Asked(Some(ticket)) = Reply::of(&ex) else {
            return Ok(Err((
                Status::Fail,
                format!(
                    "the call did not answer with a ticket this time: {}",
                    Reply::of(&ex).words()
                ),
                Some(first),
                Some(ex.body),
            )));
        };
        let mut host = AgreeableHost::default();
        match self.client.on_response(&mut call, &ex.body, &mut host) {
            Step::Retry(retry) => Ok(Ok(Minted {
                ticket,
                responses: retry["params"]
                    .get("inputResponses")
                    .cloned()
                    .unwrap_or(Value::Null),
                retry,
            })),
            other => Ok(Err((
                Status::Fail,
                format!("the client could not answer the server's question: {other:?}"),
                Some(first),
                Some(ex.body),
            ))),
        }
    }

    /// Sends `variants` of the ticket in the honest retry, one by one, until one is not
    /// refused (the row fails there) or all are (it passes).
    async fn refuses_all(
        &mut self,
        m: &Minted,
        variants: Vec<Variant>,
        who: Who,
    ) -> Result<Judged, AuditError> {
        let n = variants.len();
        let mut last = None;
        for v in variants {
            let mut msg = self.with_id(&m.retry);
            msg["params"]["requestState"] = json!(v.ticket);
            let ex = self.send(&msg, who).await?;
            let a = Reply::of(&ex);
            if !a.refused() {
                return Ok((
                    Status::Fail,
                    format!("sent the honest retry with {}; got {}", v.what, a.words()),
                    Some(msg),
                    Some(ex.body),
                ));
            }
            last = Some((msg, ex.body, a, v.what));
        }
        Ok(match last {
            // What was sent, in words, beside what came back: "the last" is the one recorded.
            Some((msg, body, a, what)) => (
                Status::Pass,
                format!(
                    "refused all {n} variant(s); the last, the honest retry with {what}, got {}",
                    a.words()
                ),
                Some(msg),
                Some(body),
            ),
            None => skipped("no variant applies to this ticket"),
        })
    }

    /// Sends `msg` once: the row passes when it is refused.
    async fn refused(&mut self, msg: Value, who: Who, what: &str) -> Result<Judged, AuditError> {
        let ex = self.send(&msg, who).await?;
        let a = Reply::of(&ex);
        let status = if a.refused() {
            Status::Pass
        } else {
            Status::Fail
        };
        Ok((
            status,
            format!("sent {what}; got {}", a.words()),
            Some(msg),
            Some(ex.body),
        ))
    }

    /// Runs one row: every misuse has its own arm.
    async fn run(&mut self, row: &Row) -> Result<Judged, AuditError> {
        match row.misuse {
            Misuse::Retry(r) => self.honest_retry(r).await,
            Misuse::StandardAlphabet => self.standard_alphabet().await,
            Misuse::Edit(e) => self.tampered(e).await,
            Misuse::UnusedBits => self.unused_bits().await,
            Misuse::Thief(t) => self.stolen(t).await,
            Misuse::Arguments(a) => self.changed_arguments(a).await,
            Misuse::OtherTool => self.other_tool().await,
            Misuse::Expired => self.expired().await,
            Misuse::Renewal => self.renewed().await,
            Misuse::Spend(sp) => self.spent_once(sp).await,
            Misuse::CapabilityGating => self.capability_gating().await,
            Misuse::TypeConfusion => self.type_confusion().await,
            Misuse::OversizeTicket => self.oversize_ticket().await,
            Misuse::OversizeBody => self.oversize_body().await,
            Misuse::TaskOtherCaller => self.task_other_caller().await,
            Misuse::TaskAnswerReplayed => self.task_answer_replayed().await,
            Misuse::TaskFinishedInput => self.task_finished_input().await,
        }
    }

    /// The honest retry: `honest` passes when it completes, `new-id` when its answer carries
    /// the retry's own id.
    async fn honest_retry(&mut self, judged: Retry) -> Result<Judged, AuditError> {
        let m = minted!(self, Who::Caller);
        let retry = self.with_id(&m.retry);
        let ex = self.send(&retry, Who::Caller).await?;
        let a = Reply::of(&ex);
        if judged == Retry::Honest {
            let status = if a == Reply::Complete {
                Status::Pass
            } else {
                Status::Fail
            };
            return Ok((
                status,
                format!("sent the honest retry; got {}", a.words()),
                Some(retry),
                Some(ex.body),
            ));
        }
        let same = ex.body.get("id") == retry.get("id");
        Ok((
            if same { Status::Pass } else { Status::Fail },
            format!(
                "the retry went out with id {}; the answer carried id {}",
                retry["id"],
                ex.body.get("id").cloned().unwrap_or(Value::Null)
            ),
            Some(retry),
            Some(ex.body),
        ))
    }

    /// A ticket respelled in the standard base64 alphabet: refused, or skipped when no ticket
    /// minted has a `-` or `_`.
    async fn standard_alphabet(&mut self) -> Result<Judged, AuditError> {
        // A ticket spelled without - or _ reads the same in both alphabets; about
        // one in four signed tickets is, so take the first of a few that is not.
        // A server that mints the same ticket for the same call within a second (the
        // TS SDK's codec does) gets a different argument on each try, so its tickets
        // differ.
        for i in 0..ALPHABET_TRIES {
            let params = json!({"name": self.tool, "arguments": try_arguments(&self.arguments, i)});
            let m = match self.mint_call(params, Who::Caller).await? {
                Ok(m) => m,
                Err(j) => return Ok(j),
            };
            if let Some(v) = variants::standard_alphabet(&m.ticket) {
                return self.refuses_all(&m, vec![v], Who::Caller).await;
            }
        }
        Ok(skipped("none of the tickets minted had a - or _, so their spelling is the same in both alphabets"))
    }

    /// A ticket respelled in bits no byte uses: refused. A segment has such bits only at some
    /// lengths, so take the first of a few tickets (each for another argument) that has one.
    async fn unused_bits(&mut self) -> Result<Judged, AuditError> {
        for i in 0..ALPHABET_TRIES {
            let params = json!({"name": self.tool, "arguments": try_arguments(&self.arguments, i)});
            let m = match self.mint_call(params, Who::Caller).await? {
                Ok(m) => m,
                Err(j) => return Ok(j),
            };
            let vs = variants::unused_bits(&m.ticket);
            if !vs.is_empty() {
                return self.refuses_all(&m, vs, Who::Caller).await;
            }
        }
        Ok(skipped("none of the tickets minted had a segment whose last character carries bits no byte uses"))
    }

    /// An edited ticket (the variants `id` names): every variant refused.
    async fn tampered(&mut self, edit: Edit) -> Result<Judged, AuditError> {
        let m = minted!(self, Who::Caller);
        let vs = match edit {
            Edit::Substitution => variants::substitutions(&m.ticket),
            Edit::FieldEdit => match variants::field_edit(&m.ticket) {
                Some(v) => vec![v],
                None => return Ok(skipped("the payload is not readable (sealed): no field to edit; the substitutions cover it")),
            },
            Edit::Truncated => variants::truncated(&m.ticket),
            Edit::Appended => variants::appended(&m.ticket),
            Edit::NoSignature => match variants::without_signature(&m.ticket) {
                Some(v) => v,
                None => return Ok(skipped("the ticket is one sealed segment: no separate signature to remove")),
            },
            Edit::Padding => variants::padded(&m.ticket),
            Edit::Whitespace => variants::whitespace(&m.ticket),
            Edit::NonAscii => variants::non_ascii(&m.ticket),
        };
        self.refuses_all(&m, vs, Who::Caller).await
    }

    /// The honest retry with another caller's token, or none: refused.
    async fn stolen(&mut self, thief: Thief) -> Result<Judged, AuditError> {
        if !self.callers.per_request {
            return Ok(skipped("one principal here (stdio: the process user), so there is nobody else to steal the ticket"));
        }
        if thief == Thief::OtherToken && !self.callers.other_token {
            return Ok(skipped(
                "no second caller: give another caller's token (--other-token), not the caller's",
            ));
        }
        if thief == Thief::NoToken && !self.callers.caller_token {
            return Ok(skipped(
                "the caller sends no token, so a retry without one is the caller's own",
            ));
        }
        let m = minted!(self, Who::Caller);
        let msg = self.with_id(&m.retry);
        let who = if thief == Thief::OtherToken {
            Who::Other
        } else {
            Who::Nobody
        };
        let what = if thief == Thief::OtherToken {
            "the honest retry with another caller's token"
        } else {
            "the honest retry with no token"
        };
        self.refused(msg, who, what).await
    }

    /// The honest retry with an argument changed, or one added: refused.
    async fn changed_arguments(&mut self, change: Arguments) -> Result<Judged, AuditError> {
        let m = minted!(self, Who::Caller);
        let mut msg = self.with_id(&m.retry);
        let args = &mut msg["params"]["arguments"];
        let what = if change == Arguments::ExtraArgument {
            if !args.is_object() {
                *args = json!({});
            }
            args["mrtr_audit_extra"] = json!(true);
            "the honest retry with an extra argument mrtr_audit_extra".to_owned()
        } else {
            match change_an_argument(args) {
                Some(what) => format!("the honest retry with {what}"),
                None => return Ok(skipped("the call has no argument to change")),
            }
        };
        self.refused(msg, Who::Caller, &what).await
    }

    /// The honest retry after `--ttl-wait`: refused.
    async fn expired(&mut self) -> Result<Judged, AuditError> {
        let Some(wait) = self.opts.ttl_wait_s else {
            return Ok(skipped(
                "give --ttl-wait SECONDS, longer than the server's ticket lifetime",
            ));
        };
        let m = minted!(self, Who::Caller);
        if let Some(life) = variants::stated_life(&m.ticket).filter(|&l| l >= wait) {
            return Ok(skipped(&format!("the ticket says it lives {life} s; give --ttl-wait longer than that (it was {wait} s)")));
        }
        self.wait_ms(wait * 1000).await?;
        let msg = self.with_id(&m.retry);
        self.refused(
            msg,
            Who::Caller,
            &format!("the honest retry {wait} s later"),
        )
        .await
    }

    /// Whether answering ever extends a ticket's life, over `--ttl-wait`.
    async fn renewed(&mut self) -> Result<Judged, AuditError> {
        let Some(wait) = self.opts.ttl_wait_s else {
            return Ok(skipped(
                "give --ttl-wait SECONDS, longer than the server's ticket lifetime",
            ));
        };
        // Minted just after a second begins, so that halfway through the wait is still
        // inside the first ticket's life on a server that counts whole seconds.
        let into = match self.ask(Need::Clock).await {
            Answer::Clock(ms) => ms % 1000,
            other => return Err(other.mismatch("Clock")),
        };
        self.wait_ms((1020 - into) % 1000).await?;
        let m = minted!(self, Who::Caller);
        if let Some(life) = variants::stated_life(&m.ticket).filter(|&l| l >= wait) {
            return Ok(skipped(&format!("the ticket says it lives {life} s; give --ttl-wait longer than that (it was {wait} s)")));
        }
        self.renewal(&m, wait).await
    }

    /// Single use (when claimed): a repeat, a laundered copy, a race.
    async fn spent_once(&mut self, spend: Spend) -> Result<Judged, AuditError> {
        if !self.opts.expect_single_use {
            return Ok(skipped("single use is not claimed (--expect-single-use): a server may accept a ticket more than once"));
        }
        let m = minted!(self, Who::Caller);
        match spend {
            Spend::Repeat => self.repeat(&m).await,
            Spend::Launder => self.launder(&m).await,
            Spend::MemoryLoss => self.memory_loss(&m).await,
            Spend::Race => self.race(&m).await,
        }
    }

    /// The retry without its answer, declaring no capabilities: no request for an undeclared
    /// kind of input.
    async fn capability_gating(&mut self) -> Result<Judged, AuditError> {
        let m = minted!(self, Who::Caller);
        let mut msg = self.with_id(&m.retry);
        if let Some(p) = msg["params"].as_object_mut() {
            p.remove("inputResponses");
        }
        msg["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
        let ex = self.send(&msg, Who::Caller).await?;
        let undeclared: Vec<String> = ex
            .body
            .pointer("/result/inputRequests")
            .and_then(Value::as_object)
            .map(|reqs| {
                reqs.iter()
                    .filter_map(|(k, r)| {
                        InputRequest::from_value(r)
                            .ok()
                            .map(|r| format!("{k} ({})", r.kind().label()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let a = Reply::of(&ex);
        let missing = mrtr_core::error::MISSING_REQUIRED_CLIENT_CAPABILITY;
        // The rule is exercised only when the server needed input it could not ask for: it
        // said so with -32021, or asked anyway. Anything else tried nothing of it.
        let status = match &a {
            _ if !undeclared.is_empty() => Status::Fail,
            Reply::Broken(_) => Status::Fail,
            Reply::Error(code, _) if *code == missing => Status::Pass,
            _ => Status::Skipped,
        };
        let got = if undeclared.is_empty() {
            a.words()
        } else {
            format!("a request for {}", undeclared.join(", "))
        };
        let tail = if status == Status::Skipped {
            ", not -32021 nor a question: the rule was not exercised".to_owned()
        } else {
            String::new()
        };
        Ok((
            status,
            format!(
                "sent the retry without its answer, declaring no capabilities; got {got}{tail}"
            ),
            Some(msg),
            Some(ex.body),
        ))
    }

    /// `requestState` as a number, an object, null and an array: none completes.
    async fn type_confusion(&mut self) -> Result<Judged, AuditError> {
        let m = minted!(self, Who::Caller);
        for (v, what) in [
            (json!(12345), "a number"),
            (json!({"ticket": m.ticket}), "an object"),
            (Value::Null, "null"),
            (json!([m.ticket]), "an array"),
        ] {
            let mut msg = self.with_id(&m.retry);
            msg["params"]["requestState"] = v;
            let ex = self.send(&msg, Who::Caller).await?;
            let a = Reply::of(&ex);
            if matches!(a, Reply::Complete | Reply::Broken(_)) {
                return Ok((
                    Status::Fail,
                    format!("sent requestState as {what}; got {}", a.words()),
                    Some(msg),
                    Some(ex.body),
                ));
            }
        }
        Ok(pass(
            "a number, an object, null and an array: none completed, each got a JSON-RPC answer"
                .into(),
        ))
    }

    /// A 64 KiB ticket: refused.
    async fn oversize_ticket(&mut self) -> Result<Judged, AuditError> {
        let m = minted!(self, Who::Caller);
        let mut msg = self.with_id(&m.retry);
        msg["params"]["requestState"] = json!(variants::oversize(64 * 1024));
        let ex = self.send(&msg, Who::Caller).await?;
        let a = Reply::of(&ex);
        let status = if a.refused() {
            Status::Pass
        } else {
            Status::Fail
        };
        let mut sent = msg;
        sent["params"]["requestState"] = json!("v1.AAAA… (65539 characters)");
        Ok((
            status,
            format!("sent a 64 KiB ticket; got {}", a.words()),
            Some(sent),
            Some(ex.body),
        ))
    }

    /// A 2 MiB body: any answer, and the server still answers `tools/list` after.
    async fn oversize_body(&mut self) -> Result<Judged, AuditError> {
        // "oversize-body": any answer will do, a result included; a 5xx, silence
        // or a server that stops answering will not.
        self.requests += 1;
        let r = match self.ask(Need::OversizeBody { bytes: 2 << 20 }).await {
            Answer::Oversize(r) => r,
            other => return Err(other.mismatch("OversizeBody")),
        };
        let Some(r) = r else {
            return Ok(skipped(
                "this transport has no request body to make too large",
            ));
        };
        let ex = r.map_err(AuditError::Connection)?;
        let answered = ex.status.is_none_or(|s| s < 500);
        let list = self.client.simple("tools/list", json!({}));
        let alive = Reply::of(&self.send(&list, Who::Caller).await?) == Reply::Complete;
        let status = if answered && alive {
            Status::Pass
        } else {
            Status::Fail
        };
        let status_text = ex.status.map(|s| format!("HTTP {s}, ")).unwrap_or_default();
        Ok((
            status,
            format!(
                "sent a 2 MiB body; got {status_text}{}; then tools/list {}",
                Reply::of(&ex).words(),
                if alive {
                    "still answered"
                } else {
                    "did not answer"
                }
            ),
            None,
            Some(ex.body),
        ))
    }

    async fn repeat(&mut self, m: &Minted) -> Result<Judged, AuditError> {
        let first = self.with_id(&m.retry);
        let a = Reply::of(&self.send(&first, Who::Caller).await?);
        if a != Reply::Complete {
            return Ok((
                Status::Fail,
                format!("the honest retry did not complete: {}", a.words()),
                Some(first),
                None,
            ));
        }
        let again = self.with_id(&m.retry);
        self.refused(again, Who::Caller, "the same retry a second time (new id)")
            .await
    }

    /// The honest retry completes; the server is restarted (as the operator said how); the
    /// same retry again must be refused: a restart that forgets which tickets were redeemed,
    /// while the key stays, would take a spent ticket for a fresh one.
    async fn memory_loss(&mut self, m: &Minted) -> Result<Judged, AuditError> {
        let first = self.with_id(&m.retry);
        let a = Reply::of(&self.send(&first, Who::Caller).await?);
        if a != Reply::Complete {
            return Ok((
                Status::Fail,
                format!("the honest retry did not complete: {}", a.words()),
                Some(first),
                None,
            ));
        }
        match self.ask(Need::Restart).await {
            Answer::Restarted(None) => {
                return Ok(skipped(
                    "this audit cannot restart the server: mrtr-audit can, given --restart COMMAND",
                ))
            }
            Answer::Restarted(Some(Err(e))) => return Err(AuditError::Connection(e)),
            Answer::Restarted(Some(Ok(()))) => {}
            other => return Err(other.mismatch("Restarted")),
        }
        let again = self.with_id(&m.retry);
        self.refused(
            again,
            Who::Caller,
            "the spent retry again (new id) after the server restarted",
        )
        .await
    }

    /// Halfway through the ticket's life, answers every question with a result of another
    /// kind (a sampling result for a form, roots for sampling, a form's answer for roots). A
    /// server that takes that for no answer asks again; the ticket it hands back must not
    /// outlive the first: it says so where readable, and it is tried, with the honest
    /// answers, after `wait` s from the first call, once the first ticket is over.
    async fn renewal(&mut self, m: &Minted, wait: u64) -> Result<Judged, AuditError> {
        let half = wait * 1000 / 2;
        self.wait_ms(half).await?;
        let mut wrong = self.with_id(&m.retry);
        let mut kinds = Vec::new();
        if let Some(answers) = wrong["params"]["inputResponses"].as_object_mut() {
            for v in answers.values_mut() {
                let (other, what) = wrong_kind(v);
                kinds.push(what);
                *v = other;
            }
        }
        kinds.dedup();
        let sent = format!(
            "the honest retry with {} as the answers",
            kinds.join(" and ")
        );
        let ex = self.send(&wrong, Who::Caller).await?;
        let back = match Reply::of(&ex) {
            Reply::Asked(Some(t)) => t,
            Reply::Complete => {
                return Ok((
                    Status::Fail,
                    format!("sent {sent}; got a complete result: an answer of another kind was taken as the answer"),
                    Some(wrong),
                    Some(ex.body),
                ))
            }
            Reply::Broken(why) => return Ok((Status::Fail, format!("sent {sent}; got {why}"), Some(wrong), Some(ex.body))),
            a => return Ok((Status::Pass, format!("sent {sent}; got {}", a.words()), Some(wrong), Some(ex.body))),
        };
        if let (Some(first), Some(again)) = (
            variants::stated_expiry(&m.ticket),
            variants::stated_expiry(&back),
        ) {
            if again > first {
                return Ok((
                    Status::Fail,
                    format!("sent {sent}; got a new ticket that says it expires {} s after the first one", again - first),
                    Some(wrong),
                    Some(ex.body),
                ));
            }
        }
        self.wait_ms(wait * 1000 - half).await?;
        let mut late = self.with_id(&m.retry);
        late["params"]["requestState"] = json!(back);
        let what = format!(
            "{sent} {}.{} s into the ticket's life, got a new ticket, then sent the honest retry carrying it {wait} s after the first call",
            // Tenths, exact: `half` is a multiple of 500 ms (no float formatting in the page).
            half / 1000,
            half % 1000 / 100,
        );
        self.refused(late, Who::Caller, &what).await
    }

    async fn launder(&mut self, m: &Minted) -> Result<Judged, AuditError> {
        let first = self.with_id(&m.retry);
        let a = Reply::of(&self.send(&first, Who::Caller).await?);
        if a != Reply::Complete {
            return Ok((
                Status::Fail,
                format!("the honest retry did not complete: {}", a.words()),
                Some(first),
                None,
            ));
        }
        let mut stripped = self.with_id(&m.retry);
        if let Some(p) = stripped["params"].as_object_mut() {
            p.remove("inputResponses");
        }
        let ex = self.send(&stripped, Who::Caller).await?;
        let Reply::Asked(Some(fresh)) = Reply::of(&ex) else {
            let a = Reply::of(&ex);
            let status = if matches!(a, Reply::Complete | Reply::Broken(_)) {
                Status::Fail
            } else {
                Status::Pass
            };
            return Ok((
                status,
                format!(
                    "sent the spent ticket without the answer; got {}",
                    a.words()
                ),
                Some(stripped),
                Some(ex.body),
            ));
        };
        let mut redeem = self.with_id(&m.retry);
        redeem["params"]["requestState"] = json!(fresh);
        redeem["params"]["inputResponses"] = m.responses.clone();
        let ex2 = self.send(&redeem, Who::Caller).await?;
        let a2 = Reply::of(&ex2);
        let status = if a2 == Reply::Complete {
            Status::Fail
        } else {
            Status::Pass
        };
        Ok((
            status,
            format!("sent the spent ticket without the answer and got a fresh ticket; redeeming it got {}", a2.words()),
            Some(redeem),
            Some(ex2.body),
        ))
    }

    async fn race(&mut self, m: &Minted) -> Result<Judged, AuditError> {
        let msgs: Vec<Value> = (0..RACE_WIDTH).map(|_| self.with_id(&m.retry)).collect();
        self.requests += msgs.len();
        let r = match self
            .ask(Need::Race {
                msgs: msgs.clone(),
                who: Who::Caller,
            })
            .await
        {
            Answer::Raced(r) => r,
            other => return Err(other.mismatch("Race")),
        };
        let Some(r) = r else {
            self.requests -= msgs.len();
            return Ok(skipped(
                "one connection here (stdio): requests cannot be sent at once",
            ));
        };
        let answers = r.map_err(AuditError::Connection)?;
        let done = answers
            .iter()
            .filter(|e| Reply::of(e) == Reply::Complete)
            .count();
        let status = if done == 1 {
            Status::Pass
        } else {
            Status::Fail
        };
        Ok((
            status,
            format!(
                "sent {} identical retries at once; {done} completed",
                msgs.len()
            ),
            msgs.into_iter().next(),
            answers
                .into_iter()
                .find(|e| Reply::of(e) == Reply::Complete)
                .map(|e| e.body),
        ))
    }

    /// The ticket of the audited tool, presented to another tool that answers with a ticket,
    /// with the answers that tool asks for.
    async fn other_tool(&mut self) -> Result<Judged, AuditError> {
        let list = self.client.simple("tools/list", json!({}));
        let tools = self.send(&list, Who::Caller).await?.body;
        let others: Vec<(String, Value)> = tools
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| {
                Some((
                    t.get("name")?.as_str()?.to_owned(),
                    t.get("inputSchema").cloned().unwrap_or(Value::Null),
                ))
            })
            .filter(|(n, _)| *n != self.tool)
            .take(MAX_TOOL_PROBES)
            .collect();
        let m = match self.mint(Who::Caller).await? {
            Ok(m) => m,
            Err(j) => return Ok(j),
        };
        for (name, schema) in others {
            let args = arguments_for(&schema);
            match self
                .mint_call(json!({"name": name, "arguments": args}), Who::Caller)
                .await?
            {
                Ok(other) => {
                    let mut msg = self.with_id(&other.retry);
                    msg["params"]["requestState"] = json!(m.ticket);
                    return self
                        .refused(
                            msg,
                            Who::Caller,
                            &format!("{name}'s retry carrying the {} ticket", self.tool),
                        )
                        .await;
                }
                Err(_) => continue,
            }
        }
        Ok(skipped("no other tool answers with a ticket"))
    }
}

/// Arguments that satisfy a tool's input schema as simply as possible: each required
/// property gets its first enum value, its default, or a plain value of its type.
pub fn arguments_for(schema: &Value) -> Value {
    let mut out = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let prop = props
            .and_then(|p| p.get(name))
            .cloned()
            .unwrap_or(Value::Null);
        let v = prop
            .get("enum")
            .and_then(|e| e.get(0))
            .or_else(|| prop.get("default"))
            .cloned()
            .unwrap_or_else(|| match prop.get("type").and_then(Value::as_str) {
                Some("number") | Some("integer") => json!(1),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                Some("array") => json!([]),
                _ => json!("audit"),
            });
        out.insert(name.to_owned(), v);
    }
    Value::Object(out)
}

/// Changes the first argument it can: a string gets a suffix, a number one more, a boolean
/// flips. Says what it did. (Called again, it changes the same argument again.)
/// The arguments of the `n`th of several tries: the caller's own, then changed once more on
/// each try, so no two tries send the same call (a lone boolean can only alternate).
fn try_arguments(args: &Value, n: usize) -> Value {
    let mut a = args.clone();
    for _ in 0..n {
        change_an_argument(&mut a);
    }
    a
}

fn change_an_argument(args: &mut Value) -> Option<String> {
    let m = args.as_object_mut()?;
    for (k, v) in m.iter_mut() {
        let before = v.to_string();
        match v {
            Value::String(s) => s.push_str("-other"),
            Value::Number(n) => *v = json!(n.as_f64().unwrap_or(0.0) + 1.0),
            Value::Bool(b) => *b = !*b,
            _ => continue,
        }
        return Some(format!("argument {k:?} changed from {before} to {v}"));
    }
    None
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(200).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}

#[cfg(test)]
mod tries {
    use super::*;

    #[test]
    fn every_try_for_another_spelling_sends_a_call_of_its_own() {
        // Seen in make interop: the TS SDK mints the same ticket for the same call, and every
        // try after the first sent the same changed argument, so two tickets were all it saw.
        for args in [json!({"env": "audit"}), json!({"n": 1, "env": "x"})] {
            let sent: Vec<String> = (0..ALPHABET_TRIES)
                .map(|i| try_arguments(&args, i).to_string())
                .collect();
            let mut unique = sent.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), ALPHABET_TRIES, "{sent:?}");
            assert_eq!(
                sent[0],
                args.to_string(),
                "the first try is the caller's own call"
            );
        }
    }
}

#[cfg(test)]
mod status_tests {
    use super::Status;
    use mrtr_core::checks::{Refusal, Status as CheckStatus};
    use mrtr_world::checks::StatusWords;

    #[test]
    fn a_rows_symbol_is_the_lessons_glyph_for_the_same_outcome() {
        assert_eq!(Status::Pass.symbol(), CheckStatus::Passed.symbol());
        assert_eq!(
            Status::Fail.symbol(),
            CheckStatus::Failed(Refusal::WrongArguments).symbol()
        );
        assert_eq!(Status::Skipped.symbol(), CheckStatus::NotReached.symbol());
        for s in Status::ALL {
            assert_eq!(Status::from_id(s.word()), Some(s));
            assert!(s.tag().chars().count() <= 5, "{s:?}");
        }
    }
}

#[cfg(test)]
mod step_by_step {
    use super::*;
    use crate::sim::SimWire;
    use mrtr_core::checks::CheckPolicy;

    fn opts(wire: &SimWire) -> Options {
        Options {
            expect_single_use: true,
            ttl_wait_s: Some(wire.ttl_s() + 1),
            ..Options::default()
        }
    }

    fn wire() -> SimWire {
        let policy = CheckPolicy {
            single_use: true,
            ..CheckPolicy::default()
        };
        SimWire::new(policy, false, 7)
    }

    /// The whole audit of the simulated server, sending as `callers` allows.
    fn audited_as(callers: Callers) -> Report {
        let mut w = wire();
        let (mut run, mut turn) = AuditRun::start(opts(&w), callers);
        loop {
            turn = match turn {
                Turn::Done(r) => return r.unwrap(),
                Turn::Need(need) => run.answer(serve(&mut w, need)),
            };
        }
    }

    fn status_of(report: &Report, id: &str) -> (Status, String) {
        let r = report.rows.iter().find(|r| r.row.id == id).unwrap();
        (r.status, r.evidence.clone())
    }

    #[test]
    fn the_theft_rows_run_only_when_there_is_somebody_else_to_send_as() {
        // Both tokens, distinct: both rows run, and the simulated server refuses both.
        let both = audited_as(Callers::http(Some("bob-token"), Some("alice-token")));
        assert_eq!(status_of(&both, "other-token").0, Status::Pass);
        assert_eq!(status_of(&both, "no-token").0, Status::Pass);
        // No tokens at all (the page's form left empty): the caller is nobody already, and
        // there is no second caller, so neither row can be failed.
        let none = audited_as(Callers::http(None, Some("")));
        let (st, why) = status_of(&none, "other-token");
        assert_eq!(st, Status::Skipped, "{why}");
        assert!(why.contains("--other-token"), "{why}");
        let (st, why) = status_of(&none, "no-token");
        assert_eq!(st, Status::Skipped, "{why}");
        assert!(why.contains("caller sends no token"), "{why}");
        // The other token is the caller's own: no second caller.
        let same = audited_as(Callers::http(Some("bob-token"), Some("bob-token")));
        assert_eq!(status_of(&same, "other-token").0, Status::Skipped);
        assert_eq!(status_of(&same, "no-token").0, Status::Pass);
        // stdio: one principal.
        let one = audited_as(Callers::ONE);
        assert!(status_of(&one, "other-token").1.contains("one principal"));
    }

    #[test]
    fn progress_counts_the_rows_done_and_every_request_sent() {
        let mut w = wire();
        let (mut run, mut turn) = AuditRun::start(
            opts(&w),
            Callers::http(Some("bob-token"), Some("alice-token")),
        );
        let (mut sent, mut last_done) = (0, 0);
        let report = loop {
            let p = run.progress();
            assert_eq!(p.rows, ROWS.len());
            assert!(p.rows_done >= last_done, "progress never goes back");
            last_done = p.rows_done;
            turn = match turn {
                Turn::Done(r) => break r.unwrap(),
                Turn::Need(need) => {
                    sent += match &need {
                        Need::Send { .. } | Need::OversizeBody { .. } => 1,
                        Need::Race { msgs, .. } => msgs.len(),
                        Need::Wait { .. } | Need::Clock | Need::Restart => 0,
                    };
                    // The request handed out now is counted already.
                    assert_eq!(p.requests, sent, "every request handed out is counted");
                    run.answer(serve(&mut w, need))
                }
            };
        };
        let p = run.progress();
        assert_eq!(
            (p.rows_done, p.requests, p.row),
            (ROWS.len(), report.requests, None)
        );
        assert_eq!(p.tool.as_deref(), Some(report.tool.as_str()));
        assert_eq!(report.requests, sent);
    }

    #[test]
    fn the_same_server_and_seed_give_the_same_report_each_time() {
        let (mut a, mut b) = (wire(), wire());
        let o = opts(&a);
        assert_eq!(
            audit(&mut a, &o, &mut |_| {}),
            audit(&mut b, &o, &mut |_| {})
        );
    }

    #[test]
    fn an_answer_to_another_need_ends_the_audit_with_a_sentence() {
        let (mut run, turn) = AuditRun::start(
            Options::default(),
            Callers::http(Some("bob-token"), Some("alice-token")),
        );
        assert!(matches!(turn, Turn::Need(Need::Send { .. })), "{turn:?}");
        match run.answer(Answer::Waited) {
            Turn::Done(Err(AuditError::Connection(e))) => {
                assert_eq!(e, "the audit asked for Send and was answered Waited")
            }
            other => panic!("{other:?}"),
        }
        // Answered again after its end, it says so instead of panicking.
        assert!(matches!(
            run.answer(Answer::Waited),
            Turn::Done(Err(AuditError::Connection(_)))
        ));
    }

    #[test]
    fn a_failed_send_ends_the_audit_with_the_transports_words() {
        let (mut run, _) = AuditRun::start(
            Options::default(),
            Callers::http(Some("bob-token"), Some("alice-token")),
        );
        match run.answer(Answer::Sent(Err("connection refused".into()))) {
            Turn::Done(Err(AuditError::Connection(e))) => assert_eq!(e, "connection refused"),
            other => panic!("{other:?}"),
        }
    }
}
