//! An `mrtr-audit/1` report read back: the one reader the page (a pasted or opened report),
//! the CLI and the interop check (`mrtr-audit --expect`) share. A report is untrusted input:
//! its size is capped, its schema checked, and each row is tied to the lab's own row of its id
//! ([`FileRow::row`]), so titles, levels, guards and links come from the lab, never from the
//! report; what a report can say is a status (pass, fail or skipped) and its evidence, as text.

use serde_json::Value;

use crate::rows::{Failed, Row};
use crate::{Report, Status, SCHEMA};

/// The largest report read (a real one is a few hundred kilobytes at most).
pub const MAX_REPORT_BYTES: usize = 4 << 20;

/// A report as read from its JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportFile {
    /// The server audited: its URL, or the command line of a stdio server.
    pub target: String,
    /// The tool the audit called.
    pub tool: String,
    /// The arguments it called the tool with (`null` if the report has none).
    pub arguments: Value,
    /// Requests the whole audit sent.
    pub requests: u64,
    /// The rows, in the report's order.
    pub rows: Vec<FileRow>,
}

/// One row of a report as read.
#[derive(Clone, Debug, PartialEq)]
pub struct FileRow {
    /// The row's id as the report gives it (empty if it gives none).
    pub id: String,
    /// The lab's row of that id; `None` for a row this build does not know.
    pub row: Option<&'static Row>,
    /// Pass, fail or skipped, as the report says.
    pub status: Status,
    /// The report's one line of evidence for the status: text, never trusted as more.
    pub evidence: String,
    /// Requests the row sent.
    pub requests: u64,
    /// The exchange that decided it (`null` in the file reads as `None`).
    pub sent: Option<Value>,
    /// The server's answer to `sent` (`null` in the file reads as `None`).
    pub got: Option<Value>,
}

/// Why a text is not a report this build reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Longer than [`MAX_REPORT_BYTES`].
    TooLarge(usize),
    /// Not JSON (serde_json's message).
    NotJson(String),
    /// JSON, but not an object.
    NotAnObject,
    /// An object without a text `"schema"`.
    NoSchema,
    /// A schema other than [`SCHEMA`].
    Schema(String),
    /// No `"rows"` array.
    NoRows,
    /// A row (of this id) whose status is not pass, fail or skipped.
    Status(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::TooLarge(n) => write!(
                f,
                "the report is {n} bytes; reports are read up to {} MB",
                MAX_REPORT_BYTES >> 20
            ),
            ReadError::NotJson(e) => write!(f, "not JSON ({e})"),
            ReadError::NotAnObject => write!(f, "not a JSON object: not an mrtr-audit report"),
            ReadError::NoSchema => write!(f, "no \"schema\": not an mrtr-audit report"),
            ReadError::Schema(s) => write!(f, "a report of schema {s:?}; this reads {SCHEMA:?}"),
            ReadError::NoRows => write!(f, "the report has no list of rows"),
            ReadError::Status(id) => write!(f, "row {id:?} has no status pass, fail or skipped"),
        }
    }
}

impl std::error::Error for ReadError {}

fn text_of(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn value_of(v: &Value, k: &str) -> Option<Value> {
    v.get(k).filter(|x| !x.is_null()).cloned()
}

impl ReportFile {
    /// Reads a report from its text: at most [`MAX_REPORT_BYTES`], then [`ReportFile::from_json`].
    pub fn parse(text: &str) -> Result<ReportFile, ReadError> {
        if text.len() > MAX_REPORT_BYTES {
            return Err(ReadError::TooLarge(text.len()));
        }
        let v: Value =
            serde_json::from_str(text.trim()).map_err(|e| ReadError::NotJson(e.to_string()))?;
        ReportFile::from_json(&v)
    }

    /// Reads a report from its JSON (what [`Report::to_json`] writes). Text fields that are
    /// missing or not text read as empty; a row's status must be one of the three.
    pub fn from_json(v: &Value) -> Result<ReportFile, ReadError> {
        let Value::Object(_) = v else {
            return Err(ReadError::NotAnObject);
        };
        match v.get("schema").and_then(Value::as_str) {
            Some(SCHEMA) => {}
            Some(other) => return Err(ReadError::Schema(other.to_owned())),
            None => return Err(ReadError::NoSchema),
        }
        let rows = v
            .get("rows")
            .and_then(Value::as_array)
            .ok_or(ReadError::NoRows)?
            .iter()
            .map(|r| {
                let id = text_of(r, "id");
                let Some(status) = r
                    .get("status")
                    .and_then(Value::as_str)
                    .and_then(Status::from_id)
                else {
                    return Err(ReadError::Status(id));
                };
                Ok(FileRow {
                    row: Row::by_id(&id),
                    id,
                    status,
                    evidence: text_of(r, "evidence"),
                    requests: r.get("requests").and_then(Value::as_u64).unwrap_or(0),
                    sent: value_of(r, "sent"),
                    got: value_of(r, "got"),
                })
            })
            .collect::<Result<Vec<_>, ReadError>>()?;
        Ok(ReportFile {
            target: text_of(v, "target"),
            tool: text_of(v, "tool"),
            arguments: v.get("arguments").cloned().unwrap_or(Value::Null),
            requests: v.get("requests").and_then(Value::as_u64).unwrap_or(0),
            rows,
        })
    }

    /// What reading `report.to_json(target)` gives: the report as a file says it.
    pub fn of(report: &Report, target: &str) -> ReportFile {
        ReportFile {
            target: target.to_owned(),
            tool: report.tool.clone(),
            arguments: report.arguments.clone(),
            requests: report.requests as u64,
            rows: report
                .rows
                .iter()
                .map(|r| FileRow {
                    id: r.row.id.to_owned(),
                    row: Some(r.row),
                    status: r.status,
                    evidence: r.evidence.clone(),
                    requests: r.requests as u64,
                    sent: r.sent.clone().filter(|v| !v.is_null()),
                    got: r.got.clone().filter(|v| !v.is_null()),
                })
                .collect(),
        }
    }

    /// The report's arithmetic ([`crate::Tally`]): the level of each row is the lab's own (a
    /// failed row of an id this build does not know counts as failing the audit).
    pub fn tally(&self) -> crate::Tally {
        crate::Tally::of(
            self.rows
                .iter()
                .map(|r| (r.status, r.row.map(|row| row.level))),
        )
    }

    /// How many rows have status `s`.
    pub fn count(&self, s: Status) -> usize {
        self.tally().count(s)
    }

    /// The failed rows, counted by level.
    pub fn failed(&self) -> Failed {
        self.tally().failed
    }

    /// True when no MUST or SHOULD row failed, nor an unknown one.
    pub fn ok(&self) -> bool {
        self.tally().ok()
    }

    /// The verdict in words, by level, then the counts and the requests.
    pub fn verdict(&self) -> String {
        self.tally().words(self.requests)
    }

    /// The first row of this id.
    pub fn row(&self, id: &str) -> Option<&FileRow> {
        self.rows.iter().find(|r| r.id == id)
    }

    /// The status of the first row of this id; `None` if the report has no such row.
    pub fn status(&self, id: &str) -> Option<Status> {
        self.row(id).map(|r| r.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimWire;
    use crate::{audit, Options, ROWS};
    use mrtr_core::checks::CheckPolicy;
    use serde_json::json;

    fn weak_report() -> Report {
        let policy = CheckPolicy {
            expiry: false,
            principal: false,
            ..CheckPolicy::default()
        };
        let mut wire = SimWire::new(policy, false, 7);
        let opts = Options {
            ttl_wait_s: Some(wire.ttl_s() + 1),
            expect_single_use: true,
            ..Options::default()
        };
        audit(&mut wire, &opts, &mut |_| {}).unwrap()
    }

    #[test]
    fn a_report_written_and_read_back_is_the_same_report() {
        let report = weak_report();
        let json = report.to_json("the sim");
        let text = serde_json::to_string_pretty(&json).unwrap();
        let read = ReportFile::parse(&text).unwrap();
        assert_eq!(read, ReportFile::of(&report, "the sim"));
        assert_eq!(ReportFile::from_json(&json).unwrap(), read);
        // Row by row: the lab's row, its status and its evidence.
        assert_eq!(read.rows.len(), ROWS.len());
        for (r, back) in report.rows.iter().zip(&read.rows) {
            assert_eq!(back.row, Some(r.row));
            assert_eq!((back.status, &back.evidence), (r.status, &r.evidence));
        }
        // The verdict read back is the engine's own, and the failures are real ones.
        assert_eq!(read.failed(), report.failed());
        assert_eq!(read.ok(), report.ok());
        assert_eq!(read.status("other-token"), Some(Status::Fail));
        for s in Status::ALL {
            assert_eq!(read.count(s), report.count(s), "{s:?}");
        }
        assert_eq!(read.tool, "deploy");
        assert_eq!(read.requests, report.requests as u64);
    }

    #[test]
    fn what_is_not_a_report_is_refused_with_a_reason() {
        for (text, want) in [
            ("", "not JSON"),
            ("{", "not JSON"),
            ("[1,2]", "not a JSON object"),
            ("\"mrtr-audit/1\"", "not a JSON object"),
            ("null", "not a JSON object"),
            ("{}", "no \"schema\""),
            (r#"{"schema":7}"#, "no \"schema\""),
            (r#"{"schema":"other/9"}"#, "schema \"other/9\""),
            (
                r#"{"schema":"mrtr-audit/2","rows":[]}"#,
                "schema \"mrtr-audit/2\"",
            ),
            (r#"{"schema":"mrtr-audit/1"}"#, "no list of rows"),
            (r#"{"schema":"mrtr-audit/1","rows":{}}"#, "no list of rows"),
            (
                r#"{"schema":"mrtr-audit/1","rows":[{"id":"x","status":"maybe"}]}"#,
                "row \"x\" has no status",
            ),
            (
                r#"{"schema":"mrtr-audit/1","rows":[{"id":"honest","status":"PASS"}]}"#,
                "row \"honest\" has no status",
            ),
            (
                r#"{"schema":"mrtr-audit/1","rows":[3]}"#,
                "row \"\" has no status",
            ),
        ] {
            let e = ReportFile::parse(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
        let big = " ".repeat(MAX_REPORT_BYTES + 1);
        assert_eq!(
            ReportFile::parse(&big),
            Err(ReadError::TooLarge(MAX_REPORT_BYTES + 1))
        );
        // Just under the cap is read (white space around the report is no matter).
        let report = json!({"schema": SCHEMA, "rows": []}).to_string();
        let padded = format!("{report}{}", " ".repeat(MAX_REPORT_BYTES - report.len()));
        assert!(ReportFile::parse(&padded).is_ok());
    }

    #[test]
    fn only_status_and_evidence_come_from_the_report() {
        let text = r#"{"schema":"mrtr-audit/1","tool":5,"rows":[
            {"id":"other-token","status":"fail","evidence":"<b>","title":"Forged","level":"recommended","guard":"encoding"},
            {"id":"from-the-future","status":"fail","evidence":["not text"]},
            {"id":"honest","status":"pass","sent":null,"got":{"result":{}}}]}"#;
        let r = ReportFile::parse(text).unwrap();
        let row = r.rows[0].row.unwrap();
        assert_eq!(row.title, "Another caller's token cannot redeem the ticket");
        assert_eq!(
            row.level,
            crate::Level::Should,
            "the lab's level, not the report's"
        );
        assert_eq!(r.rows[0].evidence, "<b>");
        assert_eq!((r.rows[1].row, r.rows[1].evidence.as_str()), (None, ""));
        assert_eq!(r.rows[2].sent, None);
        assert_eq!(r.rows[2].got, Some(json!({"result": {}})));
        assert_eq!(r.tool, "", "a tool that is not text reads as empty");
        assert!(!r.ok());
        assert_eq!(r.failed().unknown, 1);
    }
}
