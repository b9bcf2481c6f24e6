//! An `mrtr-audit --json` report read for the page's report card. The report is whatever the
//! reader pasted or opened, so it is read as untrusted, by the audit's own reader
//! (`mrtr_audit::ReportFile`): size capped, schema checked, and every title, level and link
//! taken from the lab's own list of rows by id (never from the report), so a report can only
//! say pass, fail or skipped and give its evidence as text.

pub use mrtr_audit::MAX_REPORT_BYTES;
use mrtr_audit::{FileRow, ReadError, ReportFile, SCHEMA};

/// The sample report, a file beside the page (`assets/audit-sample.json`): the audit of the
/// lab's server with the naive preset, made natively by [`sample`] and checked by a test to
/// be exactly what the audit says today. (The page can run the engine, against a real server
/// in "Try it on a real server"; the sample stays a file, the exact report that test checks.)
pub const SAMPLE_FILE: &str = "audit-sample.json";

/// The button that shows the sample, named once: the card draws it and a failed fetch's
/// sentence tells the reader to press it again.
pub const SAMPLE_BUTTON: &str = "Show the report of a weak server";

/// What the card was given to read: a report's text, or why there is none to read (the
/// sample could not be fetched, the file is over the limit). Each gets its own sentence.
#[derive(Clone, Debug, PartialEq)]
pub enum Loaded {
    /// The text pasted, opened or fetched.
    Text(String),
    /// The sample report could not be fetched: why.
    FetchFailed(String),
    /// A file over [`MAX_REPORT_BYTES`], of this many bytes (not read at all).
    TooLarge(u64),
}

/// Reads what the card was given: the report, or the sentence that says why there is none.
pub fn read(loaded: &Loaded) -> Result<ReportFile, String> {
    match loaded {
        Loaded::Text(t) => parse(t),
        Loaded::FetchFailed(why) => Err(format!(
            "The sample report could not be fetched ({why}). Press \u{201c}{SAMPLE_BUTTON}\u{201d} again, or open a report of your own."
        )),
        Loaded::TooLarge(n) => Err(sentence(ReadError::TooLarge(
            usize::try_from(*n).unwrap_or(usize::MAX),
        ))),
    }
}

/// The in-page link to the widget state that shows a row's misuse: the lab's own row's, never
/// one a report names.
pub fn shows(row: &FileRow) -> Option<String> {
    row.row.map(|r| format!("#{}", r.shows))
}

/// Reads a report, or says in a sentence why it cannot. The reading is the audit's own
/// ([`ReportFile::parse`]: the size cap, the schema, rows tied to the lab's rows by id), the
/// same the CLI and the interop check use; only the sentences are the page's.
pub fn parse(text: &str) -> Result<ReportFile, String> {
    ReportFile::parse(text).map_err(sentence)
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
    use mrtr_audit::Status;

    #[test]
    fn the_sample_file_is_what_the_audit_says_today() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/audit-sample.json"
        );
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
        assert_eq!(shows(row).as_deref(), Some("#w=bench&move=alice&predict=0"));
        assert_eq!(row.status.symbol(), "✗");
        // The counts are by the typed status, the words and glyphs from its one table.
        assert_eq!(
            (
                r.count(Status::Pass),
                r.count(Status::Fail),
                r.count(Status::Skipped)
            ),
            (
                r.rows.iter().filter(|x| x.status.symbol() == "✓").count(),
                4,
                r.rows.iter().filter(|x| x.status.symbol() == "–").count()
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

    /// A sample that could not be fetched and a file over the limit are each said as what
    /// they are, never as a report that does not read.
    #[test]
    fn a_failed_fetch_and_a_file_too_large_say_so() {
        let e = read(&Loaded::FetchFailed("HTTP 404".into())).unwrap_err();
        assert!(
            e.starts_with("The sample report could not be fetched (HTTP 404)"),
            "{e}"
        );
        assert!(!e.contains("schema") && !e.contains("JSON"), "{e}");
        let e = read(&Loaded::TooLarge(5_000_000)).unwrap_err();
        assert!(e.starts_with("This report is 5000000 bytes"), "{e}");
        assert!(e.contains("MB") && !e.contains("schema"), "{e}");
        assert!(read(&Loaded::Text(sample())).is_ok());
    }

    #[test]
    fn links_and_titles_come_from_the_labs_rows_not_the_report() {
        let text = r#"{"schema":"mrtr-audit/1","rows":[
            {"id":"other-token","status":"fail","evidence":"<img src=x>","shows":"javascript:alert(1)","title":"Forged"},
            {"id":"from-the-future","status":"fail","evidence":"?"}]}"#;
        let r = parse(text).unwrap();
        assert_eq!(
            shows(&r.rows[0]).as_deref(),
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
        assert_eq!(shows(&r.rows[1]), None);
        assert!(!r.ok(), "an unknown failing row counts against the server");
        assert!(r
            .verdict()
            .starts_with("Fails: 1 SHOULD row and 1 unknown row failed; no MUST row did."));
    }
}
