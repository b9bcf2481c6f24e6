//! An `mrtr-audit --json` report read for the page's report card. The report is whatever the
//! reader pasted or opened, so it is read as untrusted, by the audit's own reader
//! (`mrtr_audit::ReportFile`): size capped, schema checked, and every title, level and link
//! taken from the lab's own list of rows by id (never from the report), so a report can only
//! say pass, fail or skipped and give its evidence as text.

pub use mrtr_audit::MAX_REPORT_BYTES;
use mrtr_audit::{Failed, ReadError, ReportFile, Row, Status, SCHEMA};

/// The sample report, a file beside the page (`assets/audit-sample.json`): the audit of the
/// lab's server with the naive preset, made natively by [`sample`] and checked by a test to
/// be exactly what the audit says today. (The page can run the engine, against a real server
/// in "Try it on a real server"; the sample stays a file, the exact report that test checks.)
pub const SAMPLE_FILE: &str = "audit-sample.json";

/// One row of the report, as the card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RowView {
    /// The row's id, as the report gives it.
    pub id: String,
    /// The lab's row of that id; `None` for a row this page does not know.
    pub row: Option<&'static Row>,
    /// How the row came out.
    pub status: Status,
    /// What the report gives as the row's evidence, as text.
    pub evidence: String,
}

impl RowView {
    /// The status's symbol, from the one table of them (`mrtr_world::checks::glyph`).
    pub fn symbol(&self) -> &'static str {
        self.status.symbol()
    }

    /// The widget state that shows this misuse, as an in-page link.
    pub fn href(&self) -> Option<String> {
        self.row.map(|r| format!("#{}", r.shows))
    }
}

/// A report, read for the card.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportView {
    /// What the audit ran against, as the report says.
    pub target: String,
    /// The tool the audit called.
    pub tool: String,
    /// How many requests the audit sent.
    pub requests: u64,
    /// The rows, in the report's order.
    pub rows: Vec<RowView>,
}

impl ReportView {
    /// How many rows came out as `status`.
    pub fn count(&self, status: Status) -> usize {
        self.rows.iter().filter(|r| r.status == status).count()
    }

    /// The failed rows, counted by the level the lab's own rows give them (a row of an id the
    /// page does not know counts as failing the audit).
    pub fn failed(&self) -> Failed {
        Failed::count(
            self.rows
                .iter()
                .filter(|r| r.status == Status::Fail)
                .map(|r| r.row.map(|row| row.level)),
        )
    }

    /// True when no MUST or SHOULD row failed, nor an unknown one.
    pub fn ok(&self) -> bool {
        self.failed().ok()
    }

    /// The verdict in words, by level, then the counts: "Fails: 4 SHOULD rows failed; no
    /// MUST row did. 19 passed, 4 failed, 2 skipped, in 120 requests".
    pub fn verdict(&self) -> String {
        format!(
            "{} {} passed, {} failed, {} skipped, in {} requests",
            self.failed().words(),
            self.count(Status::Pass),
            self.count(Status::Fail),
            self.count(Status::Skipped),
            self.requests
        )
    }
}

/// Reads a report, or says in a sentence why it cannot. The reading is the audit's own
/// ([`ReportFile::parse`]: the size cap, the schema, rows tied to the lab's rows by id), the
/// same the CLI and the interop check use; only the sentences are the page's.
pub fn parse(text: &str) -> Result<ReportView, String> {
    let file = ReportFile::parse(text).map_err(sentence)?;
    Ok(ReportView {
        target: file.target,
        tool: file.tool,
        requests: file.requests,
        rows: file
            .rows
            .into_iter()
            .map(|r| RowView {
                id: r.id,
                row: r.row,
                status: r.status,
                evidence: r.evidence,
            })
            .collect(),
    })
}

/// Why a text is not a report, said to the reader who pasted or opened it.
fn sentence(e: ReadError) -> String {
    match e {
        ReadError::TooLarge(n) => format!(
            "This report is {n} bytes; the page reads reports up to {} MB.",
            MAX_REPORT_BYTES >> 20
        ),
        ReadError::NotJson(e) => {
            format!("This is not JSON ({e}). Paste the output of mrtr-audit --json.")
        }
        ReadError::NotAnObject => {
            "This JSON is not an object, so it has no \"schema\": it is not an mrtr-audit report."
                .into()
        }
        ReadError::NoSchema => {
            "This JSON has no \"schema\": it is not an mrtr-audit report.".into()
        }
        ReadError::Schema(other) => {
            format!("This report is of schema {other:?}; the page reads {SCHEMA:?}.")
        }
        ReadError::NoRows => "The report has no list of rows.".into(),
        ReadError::Status(id) => format!("Row {id:?} has no status pass, fail or skipped."),
    }
}

/// The report of a weak server, made by running the audit against the lab's server with the
/// naive preset (it signs the caller and an expiry into the ticket, but checks neither).
#[cfg(not(target_arch = "wasm32"))]
pub fn sample() -> String {
    use mrtr_audit::{sim::SimWire, Options};
    use mrtr_core::checks::CheckPolicy;
    let policy = CheckPolicy {
        expiry: false,
        principal: false,
        ..CheckPolicy::default()
    };
    let mut wire = SimWire::new(policy, false, 2026);
    let opts = Options {
        ttl_wait_s: Some(wire.ttl_s() + 1),
        ..Options::default()
    };
    match mrtr_audit::audit(&mut wire, &opts, &mut |_| {}) {
        Ok(r) => {
            let json = r.to_json("the lab's server with the naive preset (simulated)");
            serde_json::to_string_pretty(&json).unwrap_or_default() + "\n"
        }
        Err(e) => format!("{{\"error\": {:?}}}", e.to_string()),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_sample_file_is_what_the_audit_says_today() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/audit-sample.json");
        let today = sample();
        if std::env::var_os("MRTR_BLESS").is_some() {
            std::fs::write(path, &today).unwrap();
        }
        let file = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            file == today,
            "assets/audit-sample.json is not what the audit says today: rerun with MRTR_BLESS=1"
        );
    }

    #[test]
    fn the_sample_is_a_real_report_of_a_weak_server() {
        let r = parse(&sample()).unwrap();
        assert_eq!(r.tool, "deploy");
        let failed: Vec<&str> = r
            .rows
            .iter()
            .filter(|x| x.status == Status::Fail)
            .map(|x| x.id.as_str())
            .collect();
        assert_eq!(failed, ["other-token", "no-token", "expired", "renewal"]);
        assert!(!r.ok());
        // Called by their level: SHOULD rows, and they fail the audit; no MUST row failed.
        assert!(
            r.verdict()
                .starts_with("Fails: 4 SHOULD rows failed; no MUST row did. "),
            "{}",
            r.verdict()
        );
        assert!(!r.verdict().contains("required"));
        let row = r.rows.iter().find(|x| x.id == "other-token").unwrap();
        assert_eq!(row.href().as_deref(), Some("#w=bench&move=alice&predict=0"));
        assert_eq!(row.symbol(), "✗");
        // The counts are by the typed status, the words and glyphs from its one table.
        assert_eq!(
            (
                r.count(Status::Pass),
                r.count(Status::Fail),
                r.count(Status::Skipped)
            ),
            (
                r.rows.iter().filter(|x| x.symbol() == "✓").count(),
                4,
                r.rows.iter().filter(|x| x.symbol() == "–").count()
            )
        );
        assert_eq!(Status::Skipped.word(), "skipped");
    }

    #[test]
    fn bad_reports_get_a_sentence_not_a_panic() {
        for (text, says) in [
            ("", "not JSON"),
            ("[1,2]", "no \"schema\""),
            (r#"{"schema":"other/9"}"#, "schema \"other/9\""),
            (r#"{"schema":"mrtr-audit/1"}"#, "no list of rows"),
            (
                r#"{"schema":"mrtr-audit/1","rows":[{"id":"x","status":"maybe"}]}"#,
                "no status",
            ),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
        assert!(parse(&" ".repeat(MAX_REPORT_BYTES + 1))
            .unwrap_err()
            .contains("MB"));
    }

    #[test]
    fn links_and_titles_come_from_the_labs_rows_not_the_report() {
        let text = r#"{"schema":"mrtr-audit/1","rows":[
            {"id":"other-token","status":"fail","evidence":"<img src=x>","shows":"javascript:alert(1)","title":"Forged"},
            {"id":"from-the-future","status":"fail","evidence":"?"}]}"#;
        let r = parse(text).unwrap();
        assert_eq!(
            r.rows[0].href().as_deref(),
            Some("#w=bench&move=alice&predict=0")
        );
        assert_eq!(
            r.rows[0].row.unwrap().title,
            "Another caller's token cannot redeem the ticket"
        );
        assert_eq!(
            r.rows[0].evidence, "<img src=x>",
            "kept as text; the view escapes it"
        );
        assert_eq!(r.rows[1].href(), None);
        assert!(!r.ok(), "an unknown failing row counts against the server");
        assert!(r
            .verdict()
            .starts_with("Fails: 1 SHOULD row and 1 unknown row failed; no MUST row did."));
    }
}
