//! What an audit checks, and why: one row per way a ticket can be misused, each tied to the
//! check of the lesson that stops it (the same `Check` the page's check lists show), or to
//! the protocol rule it tests, with the widget state that shows the misuse.

use mrtr_core::checks::Check;
use mrtr_world::checks::CheckWords;

/// What stops the misuse a row tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// One of the lesson's checks on a returned ticket.
    Check(Check),
    /// Strict decoding: a ticket has exactly one spelling.
    Encoding,
    /// A rule of the protocol, not a ticket check.
    Protocol,
    /// Robustness: bad input gets an error, never a crash or a result.
    Robustness,
    /// The tasks extension's rules: a task is its owner's, and a finished task or an
    /// answered question takes no more input.
    Tasks,
}

impl Guard {
    /// Every guard: each of the core's checks in the order it runs them ([`Check::ALL`]), then
    /// the rules that are not ticket checks.
    pub const ALL: [Guard; Check::ALL.len() + 4] = {
        let mut all = [Guard::Tasks; Check::ALL.len() + 4];
        let mut i = 0;
        while i < Check::ALL.len() {
            all[i] = Guard::Check(Check::ALL[i]);
            i += 1;
        }
        all[i] = Guard::Encoding;
        all[i + 1] = Guard::Protocol;
        all[i + 2] = Guard::Robustness;
        all
    };

    /// The name a report's `guard` and an expected file's `"guard:NAME"` use: the check's
    /// id, or `encoding`, `protocol`, `robustness`.
    pub fn id(self) -> &'static str {
        match self {
            Guard::Check(c) => c.id(),
            Guard::Encoding => "encoding",
            Guard::Protocol => "protocol",
            Guard::Robustness => "robustness",
            Guard::Tasks => "tasks",
        }
    }

    /// The guard [`Guard::id`] names `s`; `None` for any other name.
    pub fn from_id(s: &str) -> Option<Guard> {
        Guard::ALL.into_iter().find(|g| g.id() == s)
    }
}

/// How strongly the spec (or the lab) asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The spec says MUST: a failing row fails the audit.
    Must,
    /// The spec says SHOULD: a failing row fails the audit too.
    Should,
    /// The lab's own hardening, beyond the spec: reported, not required.
    Recommended,
}

impl Level {
    /// Every level, strongest first; [`Failed::by_level`] counts in this order.
    pub const ALL: [Level; 3] = [Level::Must, Level::Should, Level::Recommended];

    /// The level as reports spell it: `MUST`, `SHOULD` (the spec's keywords) or
    /// `recommended`.
    pub fn id(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Recommended => "recommended",
        }
    }

    /// A failing row at this level fails the audit.
    pub fn required(self) -> bool {
        !matches!(self, Level::Recommended)
    }

    /// What a row at this level is, in a few words.
    pub fn means(self) -> &'static str {
        match self {
            Level::Must => "what the spec requires",
            Level::Should => "what it asks for unless a server has a good reason not to",
            Level::Recommended => "the lab's own hardening, beyond the spec",
        }
    }
}

/// "1 SHOULD row", "4 SHOULD rows".
fn rows_of(n: usize, what: &str) -> String {
    format!("{n} {what} row{}", if n == 1 { "" } else { "s" })
}

/// "a", "a or b", "a, b or c" (with `word` for "or").
fn joined(parts: &[String], word: &str) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

/// How each level counts in an audit's verdict, in a sentence, read off [`Level`].
pub fn levels_words() -> String {
    let means = Level::ALL
        .iter()
        .map(|l| format!("{}: {}", l.id(), l.means()))
        .collect::<Vec<_>>()
        .join("; ");
    let ids = |required: bool| {
        Level::ALL
            .iter()
            .filter(|l| l.required() == required)
            .map(|l| l.id().to_owned())
            .collect::<Vec<_>>()
    };
    format!(
        "{means}. The audit fails a server when a {} row fails; {} rows are reported, not counted.",
        joined(&ids(true), "or"),
        joined(&ids(false), "or"),
    )
}

/// The failed rows of an audit, counted by level: its verdict, and the verdict in words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Failed {
    /// Failed rows of each level, in the order of [`Level::ALL`].
    pub by_level: [usize; 3],
    /// Failed rows of an id the reader does not know: they count as failing the audit.
    pub unknown: usize,
}

/// A report's arithmetic, done once for every shape a report takes (a run's [`crate::Report`],
/// a file read back, [`crate::ReportFile`]): each row's status and the level the lab gives
/// it (`None`: a row of an id this build does not know).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Rows passed, failed and skipped, in the order of [`crate::Status::ALL`].
    pub counts: [usize; 3],
    /// The failed rows, by level.
    pub failed: Failed,
}

impl Tally {
    /// Tallies rows given as (status, level).
    pub fn of(rows: impl IntoIterator<Item = (crate::Status, Option<Level>)>) -> Tally {
        let mut t = Tally::default();
        let mut failed = Vec::new();
        for (status, level) in rows {
            t.counts[crate::Status::ALL
                .iter()
                .position(|s| *s == status)
                .unwrap_or(0)] += 1;
            if status == crate::Status::Fail {
                failed.push(level);
            }
        }
        t.failed = Failed::count(failed);
        t
    }

    /// How many rows came out as `s`.
    pub fn count(&self, s: crate::Status) -> usize {
        crate::Status::ALL
            .iter()
            .position(|x| *x == s)
            .map_or(0, |i| self.counts[i])
    }

    /// True when no MUST or SHOULD row failed, nor an unknown one: the audit passes.
    pub fn ok(&self) -> bool {
        self.failed.ok()
    }

    /// The verdict in words, by level, then the counts: "Fails: 4 SHOULD rows failed; no MUST
    /// row did. 19 passed, 4 failed, 2 skipped, in 120 requests".
    pub fn words(&self, requests: u64) -> String {
        use crate::Status;
        format!(
            "{} {} passed, {} failed, {} skipped, in {requests} requests",
            self.failed.words(),
            self.count(Status::Pass),
            self.count(Status::Fail),
            self.count(Status::Skipped),
        )
    }
}

impl Failed {
    /// Counts failed rows given by their level (`None`: a row of an unknown id).
    pub fn count(levels: impl IntoIterator<Item = Option<Level>>) -> Failed {
        let mut f = Failed::default();
        for l in levels {
            match l {
                Some(l) => f.by_level[Level::ALL.iter().position(|x| *x == l).unwrap_or(0)] += 1,
                None => f.unknown += 1,
            }
        }
        f
    }

    /// Failed rows of this level.
    pub fn of(&self, level: Level) -> usize {
        Level::ALL
            .iter()
            .position(|x| *x == level)
            .map_or(0, |i| self.by_level[i])
    }

    /// True when no row that counts failed: the audit passes.
    pub fn ok(&self) -> bool {
        self.unknown == 0 && Level::ALL.iter().all(|l| !l.required() || self.of(*l) == 0)
    }

    /// "Passes: no MUST or SHOULD row failed." or "Fails: 4 SHOULD rows failed; no MUST
    /// row did.", with any recommended failures after, as reported but not counted.
    pub fn words(&self) -> String {
        let counted: Vec<Level> = Level::ALL.into_iter().filter(|l| l.required()).collect();
        let mut failed: Vec<String> = counted
            .iter()
            .filter(|l| self.of(**l) > 0)
            .map(|l| rows_of(self.of(*l), l.id()))
            .collect();
        if self.unknown > 0 {
            failed.push(rows_of(self.unknown, "unknown"));
        }
        let clean: Vec<String> = counted
            .iter()
            .filter(|l| self.of(**l) == 0)
            .map(|l| l.id().to_owned())
            .collect();
        let mut s = if failed.is_empty() {
            format!("Passes: no {} row failed", joined(&clean, "or"))
        } else if clean.is_empty() {
            format!("Fails: {} failed", joined(&failed, "and"))
        } else {
            format!(
                "Fails: {} failed; no {} row did",
                joined(&failed, "and"),
                joined(&clean, "or")
            )
        };
        let soft: Vec<String> = Level::ALL
            .into_iter()
            .filter(|l| !l.required() && self.of(*l) > 0)
            .map(|l| rows_of(self.of(l), l.id()))
            .collect();
        if !soft.is_empty() {
            s.push_str(&format!(
                "; {} failed too, reported but not counted",
                joined(&soft, "and")
            ));
        }
        s.push('.');
        s
    }
}

/// Each misuse the audit tries, one per row: what the auditor dispatches on, every row (and
/// every family of rows) with its own arm and none falling through a catch-all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Misuse {
    /// The honest retry, judged two ways.
    Retry(Retry),
    /// The ticket edited, every variant sent in the honest retry.
    Edit(Edit),
    /// The honest retry sent by somebody else.
    Thief(Thief),
    /// The honest retry with its arguments changed.
    Arguments(Arguments),
    /// A spent ticket (single use).
    Spend(Spend),
    /// The row `unused-bits`.
    UnusedBits,
    /// The row `standard-alphabet`.
    StandardAlphabet,
    /// The row `other-tool`.
    OtherTool,
    /// The row `expired`.
    Expired,
    /// The row `renewal`.
    Renewal,
    /// The row `capability-gating`.
    CapabilityGating,
    /// The row `type-confusion`.
    TypeConfusion,
    /// The row `oversize-ticket`.
    OversizeTicket,
    /// The row `oversize-body`.
    OversizeBody,
    /// The row `task-other-caller`.
    TaskOtherCaller,
    /// The row `task-answer-replayed`.
    TaskAnswerReplayed,
    /// The row `task-finished-input`.
    TaskFinishedInput,
}

/// The honest retry, judged two ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Retry {
    /// The row `honest`.
    Honest,
    /// The row `new-id`.
    NewId,
}

/// The ticket edited, every variant sent in the honest retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edit {
    /// The row `substitution`.
    Substitution,
    /// The row `field-edit`.
    FieldEdit,
    /// The row `truncated`.
    Truncated,
    /// The row `appended`.
    Appended,
    /// The row `no-signature`.
    NoSignature,
    /// The row `padding`.
    Padding,
    /// The row `whitespace`.
    Whitespace,
    /// The row `non-ascii`.
    NonAscii,
}

/// The honest retry sent by somebody else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Thief {
    /// The row `other-token`.
    OtherToken,
    /// The row `no-token`.
    NoToken,
}

/// The honest retry with its arguments changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arguments {
    /// The row `other-arguments`.
    OtherArguments,
    /// The row `extra-argument`.
    ExtraArgument,
}

/// A spent ticket (single use).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spend {
    /// The row `repeat`.
    Repeat,
    /// The row `launder`.
    Launder,
    /// The row `race`.
    Race,
    /// The row `memory-loss`.
    MemoryLoss,
}

impl Misuse {
    /// The row's stable id (`--json`, expectations, links).
    pub const fn id(self) -> &'static str {
        match self {
            Misuse::Retry(Retry::Honest) => "honest",
            Misuse::Retry(Retry::NewId) => "new-id",
            Misuse::Edit(Edit::Substitution) => "substitution",
            Misuse::Edit(Edit::FieldEdit) => "field-edit",
            Misuse::Edit(Edit::Truncated) => "truncated",
            Misuse::Edit(Edit::Appended) => "appended",
            Misuse::Edit(Edit::NoSignature) => "no-signature",
            Misuse::Edit(Edit::Padding) => "padding",
            Misuse::Edit(Edit::Whitespace) => "whitespace",
            Misuse::Edit(Edit::NonAscii) => "non-ascii",
            Misuse::Thief(Thief::OtherToken) => "other-token",
            Misuse::Thief(Thief::NoToken) => "no-token",
            Misuse::Arguments(Arguments::OtherArguments) => "other-arguments",
            Misuse::Arguments(Arguments::ExtraArgument) => "extra-argument",
            Misuse::Spend(Spend::Repeat) => "repeat",
            Misuse::Spend(Spend::Launder) => "launder",
            Misuse::Spend(Spend::Race) => "race",
            Misuse::Spend(Spend::MemoryLoss) => "memory-loss",
            Misuse::UnusedBits => "unused-bits",
            Misuse::StandardAlphabet => "standard-alphabet",
            Misuse::OtherTool => "other-tool",
            Misuse::Expired => "expired",
            Misuse::Renewal => "renewal",
            Misuse::CapabilityGating => "capability-gating",
            Misuse::TypeConfusion => "type-confusion",
            Misuse::OversizeTicket => "oversize-ticket",
            Misuse::OversizeBody => "oversize-body",
            Misuse::TaskOtherCaller => "task-other-caller",
            Misuse::TaskAnswerReplayed => "task-answer-replayed",
            Misuse::TaskFinishedInput => "task-finished-input",
        }
    }
}

/// One row of the report card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Stable, for `--json`, links and tests: the misuse's id.
    pub id: &'static str,
    /// The misuse the row tries.
    pub misuse: Misuse,
    /// The heading the row is listed under (`baseline`, `integrity`, `principal`, `expiry`,
    /// `request`, `single use`, `encoding`, `protocol`, `robustness`).
    pub group: &'static str,
    /// What the server must do, in a sentence.
    pub title: &'static str,
    /// What stops the misuse the row tries: a failing row means that guard is missing.
    pub guard: Guard,
    /// How strongly it is asked for, which decides whether a failure fails the audit.
    pub level: Level,
    /// A check the row's misuse also gets through when that check is off, though it is not
    /// what the row tests: a respelled signature is taken by a server that never reads one.
    pub also: Option<Check>,
    /// The page's widget state that shows this misuse (a fragment, without `#`).
    pub shows: &'static str,
    /// Why the row exists, for a row whose guard does not say it (a protocol or tasks rule);
    /// empty for the others.
    pub rule: &'static str,
}

impl Row {
    /// Why the row exists: the check's own question and what it stops, or the rule.
    pub fn why(&self) -> String {
        match self.guard {
            Guard::Check(c) => format!("{}: stops {}.", c.question_any(), c.stops()),
            Guard::Encoding => "Strict decoding: one ticket, one spelling, so an edit can never slip through as a variant of the same bytes.".into(),
            Guard::Protocol | Guard::Tasks => self.rule.into(),
            Guard::Robustness => "The ticket is attacker-controlled input (MUST): any shape or size gets an error, never a result or a crash.".into(),
        }
    }

    /// Whether a server without `g` fails this row: `g` is the row's guard, or the check it
    /// also needs.
    pub fn fails_without(&self, g: Guard) -> bool {
        self.guard == g || self.also.map(Guard::Check) == Some(g)
    }

    /// The row of [`ROWS`] with this id; `None` for an id this build does not know.
    pub fn by_id(id: &str) -> Option<&'static Row> {
        ROWS.iter().find(|r| r.id == id)
    }
}

const fn check(
    misuse: Misuse,
    group: &'static str,
    title: &'static str,
    c: Check,
    level: Level,
    shows: &'static str,
) -> Row {
    Row {
        id: misuse.id(),
        misuse,
        group,
        title,
        guard: Guard::Check(c),
        level,
        also: None,
        shows,
        rule: "",
    }
}

/// Every row, in the order an audit runs them.
pub const ROWS: [Row; 30] = [
    Row {
        id: Misuse::Retry(Retry::Honest).id(),
        misuse: Misuse::Retry(Retry::Honest),
        group: "baseline",
        title: "The honest retry completes",
        guard: Guard::Protocol,
        level: Level::Must,
        also: None,
        shows: "w=roundtrip&step=5",
        rule: "The baseline: the retry with the answer and the ticket, unchanged, finishes the work. Without it nothing else can be judged.",
    },
    Row {
        id: Misuse::Retry(Retry::NewId).id(),
        misuse: Misuse::Retry(Retry::NewId),
        group: "protocol",
        title: "The retry's answer carries the retry's own new id",
        guard: Guard::Protocol,
        level: Level::Must,
        also: None,
        shows: "w=raw",
        rule: "JSON-RPC: a response carries its request's id, and a retry is a new request with a new id.",
    },
    check(
        Misuse::Edit(Edit::Substitution),
        "integrity",
        "Every single-character change of the ticket is refused",
        Check::Signature,
        Level::Must,
        "w=bench&move=onechar&predict=0",
    ),
    check(
        Misuse::Edit(Edit::FieldEdit),
        "integrity",
        "A payload re-encoded with a field edited is refused",
        Check::Signature,
        Level::Must,
        "w=bench&move=edit&predict=0",
    ),
    check(
        Misuse::Edit(Edit::Truncated),
        "integrity",
        "A truncated ticket is refused",
        Check::Signature,
        Level::Must,
        "w=ticket",
    ),
    check(
        Misuse::Edit(Edit::Appended),
        "integrity",
        "A ticket with bytes appended is refused",
        Check::Signature,
        Level::Must,
        "w=ticket",
    ),
    check(
        Misuse::Edit(Edit::NoSignature),
        "integrity",
        "A ticket with its signature removed is refused",
        Check::Signature,
        Level::Must,
        "w=bench&move=forge&predict=0",
    ),
    Row {
        id: Misuse::UnusedBits.id(),
        misuse: Misuse::UnusedBits,
        group: "encoding",
        title: "The ticket respelled in bits no byte uses (the same bytes, another last character) is refused",
        guard: Guard::Encoding,
        level: Level::Recommended,
        also: Some(Check::Signature),
        shows: "w=ticket",
        rule: "",
    },
    Row {
        id: Misuse::Edit(Edit::Padding).id(),
        misuse: Misuse::Edit(Edit::Padding),
        group: "encoding",
        title: "Base64 padding added to the ticket is refused",
        guard: Guard::Encoding,
        level: Level::Recommended,
        also: None,
        shows: "w=ticket",
        rule: "",
    },
    Row {
        id: Misuse::StandardAlphabet.id(),
        misuse: Misuse::StandardAlphabet,
        group: "encoding",
        title: "The ticket in the standard Base64 alphabet (+ and /) is refused",
        guard: Guard::Encoding,
        level: Level::Recommended,
        also: None,
        shows: "w=ticket",
        rule: "",
    },
    Row {
        id: Misuse::Edit(Edit::Whitespace).id(),
        misuse: Misuse::Edit(Edit::Whitespace),
        group: "encoding",
        title: "White space around or inside the ticket is refused",
        guard: Guard::Encoding,
        level: Level::Recommended,
        also: None,
        shows: "w=ticket",
        rule: "",
    },
    Row {
        id: Misuse::Edit(Edit::NonAscii).id(),
        misuse: Misuse::Edit(Edit::NonAscii),
        group: "encoding",
        title: "A non-ASCII character in the ticket is refused",
        guard: Guard::Encoding,
        level: Level::Recommended,
        also: None,
        shows: "w=ticket",
        rule: "",
    },
    check(
        Misuse::Thief(Thief::OtherToken),
        "principal",
        "Another caller's token cannot redeem the ticket",
        Check::Principal,
        Level::Should,
        "w=bench&move=alice&predict=0",
    ),
    check(
        Misuse::Thief(Thief::NoToken),
        "principal",
        "A caller with no token cannot redeem the ticket",
        Check::Principal,
        Level::Should,
        "w=bench&move=alice&predict=0",
    ),
    check(
        Misuse::Arguments(Arguments::OtherArguments),
        "request",
        "The ticket cannot finish a call with other arguments",
        Check::Request,
        Level::Should,
        "w=bench&move=prod&predict=0",
    ),
    check(
        Misuse::Arguments(Arguments::ExtraArgument),
        "request",
        "The ticket cannot finish a call with an extra argument",
        Check::Request,
        Level::Should,
        "w=bench&move=prod&predict=0",
    ),
    check(
        Misuse::OtherTool,
        "request",
        "The ticket cannot finish a call to another tool",
        Check::Request,
        Level::Should,
        "w=bench&move=prod&predict=0",
    ),
    check(
        Misuse::Expired,
        "expiry",
        "The ticket is refused once its lifetime is over",
        Check::Expiry,
        Level::Should,
        "w=bench&move=wait&predict=0",
    ),
    check(
        Misuse::Renewal,
        "expiry",
        "An answer of another kind than the question never yields a ticket that outlives the first",
        Check::Expiry,
        Level::Should,
        "w=bench&move=renew&predict=0",
    ),
    check(
        Misuse::Spend(Spend::Repeat),
        "single use",
        "The same retry sent twice finishes the work once",
        Check::SingleUse,
        Level::Must,
        "w=bench&move=twice&single=1&predict=0",
    ),
    check(
        Misuse::Spend(Spend::Launder),
        "single use",
        "A spent ticket cannot be traded for a fresh one by a retry without the answer",
        Check::SingleUse,
        Level::Must,
        "w=bench&move=launder&single=1&naive=1&predict=0",
    ),
    check(
        Misuse::Spend(Spend::Race),
        "single use",
        "Identical retries sent at once finish the work once",
        Check::SingleUse,
        Level::Must,
        "w=bench&move=twice&single=1&predict=0",
    ),
    check(
        Misuse::Spend(Spend::MemoryLoss),
        "single use",
        "A spent ticket stays spent after the server restarts",
        Check::SingleUse,
        Level::Must,
        "w=bench&move=twice&single=1&predict=0",
    ),
    Row {
        id: Misuse::CapabilityGating.id(),
        misuse: Misuse::CapabilityGating,
        group: "protocol",
        title: "A retry that declares no capabilities is never asked for input it cannot give",
        guard: Guard::Protocol,
        level: Level::Must,
        also: None,
        shows: "w=rules",
        rule: "A server must never ask for a kind of input the request did not declare (MUST NOT; -32021 instead).",
    },
    Row {
        id: Misuse::TypeConfusion.id(),
        misuse: Misuse::TypeConfusion,
        group: "robustness",
        title: "requestState as a number, object, null or array never completes the work",
        guard: Guard::Robustness,
        level: Level::Must,
        also: None,
        shows: "w=ticket",
        rule: "",
    },
    Row {
        id: Misuse::OversizeTicket.id(),
        misuse: Misuse::OversizeTicket,
        group: "robustness",
        title: "A 64 KiB ticket gets a clear error",
        guard: Guard::Robustness,
        level: Level::Must,
        also: None,
        shows: "w=ticket",
        rule: "",
    },
    Row {
        id: Misuse::OversizeBody.id(),
        misuse: Misuse::OversizeBody,
        group: "robustness",
        title: "A 2 MiB request body is answered, and the server keeps serving",
        guard: Guard::Robustness,
        level: Level::Must,
        also: None,
        shows: "w=ticket",
        rule: "",
    },
    Row {
        id: Misuse::TaskOtherCaller.id(),
        misuse: Misuse::TaskOtherCaller,
        group: "tasks",
        title: "Another caller's task id reads, answers and cancels nothing",
        guard: Guard::Tasks,
        level: Level::Must,
        also: None,
        shows: "w=task&tsteps=w20.tp.ty.tc.p",
        rule: "A task id is all a caller shows: the server must authorize every task request against the task's owner (MUST), so a stolen id reads, answers and cancels nothing.",
    },
    Row {
        id: Misuse::TaskAnswerReplayed.id(),
        misuse: Misuse::TaskAnswerReplayed,
        group: "tasks",
        title: "An answer sent again to a task changes nothing",
        guard: Guard::Tasks,
        level: Level::Must,
        also: None,
        shows: "w=task&tsteps=w20.p.y.w10.p.r.p",
        rule: "An answer under a key that is not open is ignored (SHOULD), and a finished task never changes (MUST): an answer sent again must not do the work again.",
    },
    Row {
        id: Misuse::TaskFinishedInput.id(),
        misuse: Misuse::TaskFinishedInput,
        group: "tasks",
        title: "A cancelled task takes no more answers",
        guard: Guard::Tasks,
        level: Level::Must,
        also: None,
        shows: "w=task&tsteps=w20.p.c.y.p",
        rule: "Once a task has ended its state never changes (MUST): answers that come after a cancel are ignored.",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_names_failed_rows_by_their_level() {
        use Level::*;
        let words = |levels: &[Option<Level>]| {
            let f = Failed::count(levels.iter().copied());
            (f.ok(), f.words())
        };
        assert_eq!(
            words(&[]),
            (true, "Passes: no MUST or SHOULD row failed.".into())
        );
        assert_eq!(
            words(&[Some(Recommended), Some(Recommended)]),
            (
                true,
                "Passes: no MUST or SHOULD row failed; 2 recommended rows failed too, reported but not counted.".into()
            )
        );
        // The naive preset's audit: only SHOULD rows fail, and that fails the audit.
        assert_eq!(
            words(&[Some(Should); 4]),
            (
                false,
                "Fails: 4 SHOULD rows failed; no MUST row did.".into()
            )
        );
        assert_eq!(
            words(&[Some(Must), Some(Should), Some(Should), Some(Recommended)]),
            (
                false,
                "Fails: 1 MUST row and 2 SHOULD rows failed; 1 recommended row failed too, reported but not counted.".into()
            )
        );
        assert_eq!(
            words(&[None]),
            (
                false,
                "Fails: 1 unknown row failed; no MUST or SHOULD row did.".into()
            )
        );
        // The verdict is the levels' own rule.
        for l in Level::ALL {
            assert_eq!(Failed::count([Some(l)]).ok(), !l.required(), "{l:?}");
        }
        assert_eq!(
            levels_words(),
            "MUST: what the spec requires; SHOULD: what it asks for unless a server has a good reason not to; recommended: the lab's own hardening, beyond the spec. The audit fails a server when a MUST or SHOULD row fails; recommended rows are reported, not counted."
        );
    }

    /// One row per misuse, its id the misuse's, and a rule written where the guard says none.
    #[test]
    fn each_row_is_one_misuse_and_says_its_rule() {
        for (i, r) in ROWS.iter().enumerate() {
            assert_eq!(r.id, r.misuse.id());
            assert!(ROWS[..i].iter().all(|o| o.misuse != r.misuse), "{}", r.id);
            let needs_rule = matches!(r.guard, Guard::Protocol | Guard::Tasks);
            assert_eq!(!r.rule.is_empty(), needs_rule, "{}", r.id);
        }
    }

    #[test]
    fn ids_are_unique_and_every_check_but_answer_is_tried() {
        for (i, r) in ROWS.iter().enumerate() {
            assert!(ROWS[..i].iter().all(|o| o.id != r.id), "{}", r.id);
            assert!(!r.why().is_empty(), "{}", r.id);
        }
        // The checks in the core's order, then the rules that are not ticket checks.
        assert_eq!(Guard::ALL[..Check::ALL.len()], Check::ALL.map(Guard::Check));
        assert_eq!(
            Guard::ALL[Check::ALL.len()..],
            [
                Guard::Encoding,
                Guard::Protocol,
                Guard::Robustness,
                Guard::Tasks
            ]
        );
        for c in Check::ALL {
            assert!(Guard::ALL.contains(&Guard::Check(c)), "{c:?}");
            let tried = ROWS.iter().any(|r| r.guard == Guard::Check(c));
            // A missing answer is not an attack: the server asks again.
            assert_eq!(tried, c != Check::Answer, "{c:?}");
        }
    }
}
