//! A pasted `mrtr-audit/1` report: any text never panics, and what is read of it can only
//! say pass, fail or skipped, with links and titles from the lab's own rows (each link a
//! deep link the page reads without a note).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_lab_state::audit_report::{parse, shows};
use mrtr_audit::Status;
use mrtr_lab_state::link::Link;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(report) = parse(text) else {
        return;
    };
    let _ = report.ok();
    let counted = [Status::Pass, Status::Fail, Status::Skipped].map(|s| report.count(s));
    assert_eq!(counted.iter().sum::<usize>(), report.rows.len());
    for row in &report.rows {
        let _ = row.status.symbol();
        match (row.row, shows(row)) {
            (Some(known), Some(href)) => {
                assert_eq!(known.id, row.id);
                assert_eq!(href, format!("#{}", known.shows));
                let (_, notes) = Link::parse(&href);
                assert!(notes.is_empty(), "{href}: {notes:?}");
            }
            (None, None) => {}
            other => panic!("a link not from the lab's rows: {other:?}"),
        }
    }
});
