//! Reports compared with what is expected of each server (`mrtr-audit --expect`, as `make
//! interop` runs it with `interop/audit-expected.json`): a table with one column per server
//! and one line per row (✓ ✗ –, `!` where a cell is not as expected), and the differences.
//!
//! The expected file maps a label to one of:
//! - `"all-pass"`: every row passes;
//! - `"guard:NAME"`: a server with one check turned off: exactly the rows that NAME guards
//!   (a check id such as `principal`, or `encoding`, `protocol`, `robustness`) fail, and the
//!   rows that also need it ([`Row::also`]: with the signature off, a respelled signature),
//!   every other row passes;
//! - `{"ROW ID": "pass" | "fail" | "skipped", …}`: each row's status; a row not named is
//!   expected to be missing from the report.

use serde_json::{json, Value};

use crate::file::ReportFile;
use crate::rows::{Guard, Row, ROWS};
use crate::Status;

/// What is expected of one server.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// `"all-pass"`: every row of the audit passes.
    AllPass,
    /// The rows this guard guards fail, every other row passes.
    Guard(Guard),
    /// Each named row has this status.
    Rows(Vec<(&'static str, Status)>),
}

impl Rule {
    /// The status expected of the row of this id; `None`: the row is expected to be absent
    /// (a row this build does not know is never expected under the guard rule).
    pub fn expects(&self, id: &str) -> Option<Status> {
        match self {
            Rule::AllPass => Some(Status::Pass),
            Rule::Guard(g) => Row::by_id(id).map(|r| {
                if r.fails_without(*g) {
                    Status::Fail
                } else {
                    Status::Pass
                }
            }),
            Rule::Rows(rows) => rows.iter().find(|(r, _)| *r == id).map(|(_, s)| *s),
        }
    }

    fn from_json(label: &str, v: &Value) -> Result<Rule, String> {
        match v {
            Value::String(s) if s == "all-pass" => Ok(Rule::AllPass),
            Value::String(s) => {
                let name = s.strip_prefix("guard:").ok_or_else(|| {
                    format!("{label:?}: {s:?} is neither \"all-pass\" nor \"guard:NAME\"")
                })?;
                Guard::from_id(name).map(Rule::Guard).ok_or_else(|| {
                    format!(
                        "{label:?}: no row is guarded by {name:?} (the guards: {})",
                        Guard::ALL.map(Guard::id).join(", ")
                    )
                })
            }
            Value::Object(m) => m
                .iter()
                .map(|(id, s)| {
                    let row = Row::by_id(id)
                        .ok_or_else(|| format!("{label:?}: no row of the audit is {id:?}"))?;
                    let status = s.as_str().and_then(Status::from_id).ok_or_else(|| {
                        format!("{label:?}: row {id:?} is expected to be {s}, not pass, fail or skipped")
                    })?;
                    Ok((row.id, status))
                })
                .collect::<Result<Vec<_>, String>>()
                .map(Rule::Rows),
            other => Err(format!(
                "{label:?}: {other} is not \"all-pass\", \"guard:NAME\" or an object of rows"
            )),
        }
    }
}

/// The expected file: a rule for each label.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// Each server's label with its rule, in the file's order.
    pub rules: Vec<(String, Rule)>,
}

impl Expected {
    /// Reads the expected file, or says in a sentence what is wrong with it.
    pub fn parse(text: &str) -> Result<Expected, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        Expected::from_json(&v)
    }

    /// Reads the expected file already parsed as JSON: an object mapping each label to its
    /// rule. Errors name the label and what is wrong with its rule.
    pub fn from_json(v: &Value) -> Result<Expected, String> {
        let m = v
            .as_object()
            .ok_or("not a JSON object of labels, each with what is expected of it")?;
        m.iter()
            .map(|(label, rule)| Ok((label.clone(), Rule::from_json(label, rule)?)))
            .collect::<Result<Vec<_>, String>>()
            .map(|rules| Expected { rules })
    }

    /// The rule for the server of this label; `None` if the file expects nothing of it.
    pub fn rule(&self, label: &str) -> Option<&Rule> {
        self.rules.iter().find(|(l, _)| l == label).map(|(_, r)| r)
    }
}

/// One server's column: its label and its report, or why it has none.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The server's label, as the expected file names it.
    pub label: String,
    /// Its report, or in a sentence why it has none (e.g. the file could not be read).
    pub report: Result<ReportFile, String>,
}

/// One cell: what the report says and what is expected (`None`: absent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The row's status in the report; `None`: the report has no such row.
    pub got: Option<Status>,
    /// The status the rule expects; `None`: the row is expected to be absent.
    pub expected: Option<Status>,
    /// The column has a report and a rule, and `got` equals `expected`. False for every
    /// cell of a column that differs as a whole.
    pub as_expected: bool,
}

/// What is not as expected: a row of a server, or (with no row) the server as a whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The server's label.
    pub label: String,
    /// The id of the row that differs; `None`: the server differs as a whole (no report, or
    /// no rule for its label).
    pub row: Option<String>,
    /// The row's status in the report (`None`: absent, or a whole-server difference).
    pub got: Option<Status>,
    /// The status expected of the row (`None`: absent, or a whole-server difference).
    pub expected: Option<Status>,
    /// The row's evidence, or why the server as a whole differs.
    pub evidence: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let word = |s: Option<Status>| s.map_or("absent", Status::id);
        match &self.row {
            Some(row) => write!(
                f,
                "{}: {row} is {}, expected {}: {}",
                self.label,
                word(self.got),
                word(self.expected),
                self.evidence
            ),
            None => write!(f, "{}: {}", self.label, self.evidence),
        }
    }
}

/// Every report beside what is expected of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The servers, in the order given, one column each.
    pub columns: Vec<Column>,
    /// The rows, in the audit's order, then any the reports name that this build does not know.
    pub ids: Vec<String>,
    /// `cells[row][column]`.
    pub cells: Vec<Vec<Cell>>,
    /// Every difference: first the servers that differ as a whole, then the cells not as
    /// expected, row by row.
    pub differences: Vec<Difference>,
}

/// Compares each column's report with the rule of its label. A column without a report, or
/// whose label has no rule, differs as a whole.
pub fn compare(expected: &Expected, columns: Vec<Column>) -> Comparison {
    let mut ids: Vec<String> = ROWS.iter().map(|r| r.id.to_owned()).collect();
    for c in &columns {
        for r in c.report.iter().flat_map(|r| &r.rows) {
            if !ids.contains(&r.id) {
                ids.push(r.id.clone());
            }
        }
    }
    let mut differences = Vec::new();
    for c in &columns {
        let whole = match (&c.report, expected.rule(&c.label)) {
            (Err(why), _) => Some(format!("no report ({why})")),
            (Ok(_), None) => Some("nothing is expected of it in the expected file".to_owned()),
            (Ok(_), Some(_)) => None,
        };
        if let Some(evidence) = whole {
            differences.push(Difference {
                label: c.label.clone(),
                row: None,
                got: None,
                expected: None,
                evidence,
            });
        }
    }
    let mut cells = Vec::with_capacity(ids.len());
    for id in &ids {
        let mut line = Vec::with_capacity(columns.len());
        for c in &columns {
            let rule = expected.rule(&c.label);
            let got_row = c.report.as_ref().ok().and_then(|r| r.row(id));
            let got = got_row.map(|r| r.status);
            let want = rule.and_then(|r| r.expects(id));
            let judged = c.report.is_ok() && rule.is_some();
            let as_expected = judged && got == want;
            if judged && !as_expected {
                differences.push(Difference {
                    label: c.label.clone(),
                    row: Some(id.clone()),
                    got,
                    expected: want,
                    evidence: got_row.map(|r| r.evidence.clone()).unwrap_or_default(),
                });
            }
            line.push(Cell {
                got,
                expected: want,
                as_expected,
            });
        }
        cells.push(line);
    }
    Comparison {
        columns,
        ids,
        cells,
        differences,
    }
}

impl Comparison {
    /// True when every report is as expected.
    pub fn ok(&self) -> bool {
        self.differences.is_empty()
    }

    /// The side-by-side table: each server numbered with its tool and requests, then one line
    /// per row, one cell per server, then a `DIFFERS` line for each difference.
    pub fn table(&self) -> String {
        let mut s = String::new();
        for (i, c) in self.columns.iter().enumerate() {
            let about = match &c.report {
                Ok(r) => format!("tool {} {}, {} requests", r.tool, r.arguments, r.requests),
                Err(why) => format!("no report ({why})"),
            };
            s.push_str(&format!("  {:>2}  {}: {about}\n", i + 1, c.label));
        }
        let width = self
            .ids
            .iter()
            .map(|i| i.chars().count())
            .max()
            .unwrap_or(0);
        s.push('\n');
        s.push_str(&" ".repeat(width + 2));
        for i in 0..self.columns.len() {
            s.push_str(&format!("{:>3} ", i + 1));
        }
        s.push('\n');
        for (id, line) in self.ids.iter().zip(&self.cells) {
            s.push_str(&format!("  {id:<width$}"));
            for cell in line {
                let sym = cell.got.map_or("?", Status::symbol);
                s.push_str(&format!(
                    "{sym:>3}{}",
                    if cell.as_expected { " " } else { "!" }
                ));
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "  {} pass   {} fail (the server accepted what it should refuse)   {} skipped   ! not as expected\n",
            Status::Pass.symbol(),
            Status::Fail.symbol(),
            Status::Skipped.symbol()
        ));
        for d in &self.differences {
            s.push_str(&format!("DIFFERS {d}\n"));
        }
        s
    }

    /// The comparison as JSON (schema `mrtr-audit-expect/1`).
    pub fn to_json(&self) -> Value {
        let word = |s: Option<Status>| s.map(Status::id);
        json!({
            "schema": "mrtr-audit-expect/1",
            "ok": self.ok(),
            "servers": self.columns.iter().map(|c| match &c.report {
                Ok(r) => json!({
                    "label": c.label,
                    "target": r.target,
                    "tool": r.tool,
                    "arguments": r.arguments,
                    "requests": r.requests,
                }),
                Err(why) => json!({"label": c.label, "error": why}),
            }).collect::<Vec<_>>(),
            "rows": self.ids.iter().zip(&self.cells).map(|(id, line)| json!({
                "id": id,
                "cells": line.iter().map(|c| json!({
                    "got": word(c.got),
                    "expected": word(c.expected),
                    "as_expected": c.as_expected,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "differences": self.differences.iter().map(|d| json!({
                "label": d.label,
                "row": d.row,
                "got": word(d.got),
                "expected": word(d.expected),
                "evidence": d.evidence,
            })).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimWire;
    use crate::{audit, Options};
    use mrtr_core::checks::{Check, CheckPolicy};

    fn sim(policy: CheckPolicy) -> ReportFile {
        let mut wire = SimWire::new(policy, false, 3);
        let opts = Options {
            ttl_wait_s: Some(wire.ttl_s() + 1),
            expect_single_use: policy.single_use,
            ..Options::default()
        };
        let r = audit(&mut wire, &opts, &mut |_| {}).unwrap();
        ReportFile::parse(&r.to_json("sim").to_string()).unwrap()
    }

    fn lab() -> ReportFile {
        sim(CheckPolicy {
            single_use: true,
            ..CheckPolicy::default()
        })
    }

    fn column(label: &str, r: &ReportFile) -> Column {
        Column {
            label: label.into(),
            report: Ok(r.clone()),
        }
    }

    #[test]
    fn the_labs_server_is_all_pass_and_one_check_off_is_its_guard() {
        let mut skip = CheckPolicy {
            single_use: true,
            ..CheckPolicy::default()
        };
        skip.set(Check::Principal, false);
        let exp =
            Expected::parse(r#"{"lab": "all-pass", "no-principal": "guard:principal"}"#).unwrap();
        let c = compare(
            &exp,
            vec![column("lab", &lab()), column("no-principal", &sim(skip))],
        );
        assert!(c.ok(), "{}", c.table());
        let t = c.table();
        assert!(t.contains("   1  lab: tool deploy "), "{t}");
        let line = t.lines().find(|l| l.starts_with("  other-token ")).unwrap();
        assert!(line.ends_with("  ✓   ✗ "), "{line:?}");
        // The guard rule read the other way round: the lab's server does not fail them.
        let exp = Expected::parse(r#"{"lab": "guard:principal"}"#).unwrap();
        let c = compare(&exp, vec![column("lab", &lab())]);
        let rows: Vec<&str> = c
            .differences
            .iter()
            .filter_map(|d| d.row.as_deref())
            .collect();
        assert_eq!(rows, ["other-token", "no-token"]);
        assert!(c
            .table()
            .contains("DIFFERS lab: other-token is pass, expected fail: "));
    }

    #[test]
    fn a_row_map_names_each_row_and_a_difference_names_the_row() {
        let r = lab();
        let mut map: serde_json::Map<String, Value> = r
            .rows
            .iter()
            .map(|x| (x.id.clone(), json!(x.status.id())))
            .collect();
        let exp = Expected::from_json(&json!({"lab": map.clone()})).unwrap();
        assert!(compare(&exp, vec![column("lab", &r)]).ok());
        map.insert("race".into(), json!("skipped"));
        map.remove("renewal");
        let exp = Expected::from_json(&json!({"lab": map})).unwrap();
        let c = compare(&exp, vec![column("lab", &r)]);
        let d: Vec<String> = c.differences.iter().map(|d| d.to_string()).collect();
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d[0].starts_with("lab: renewal is pass, expected absent: "),
            "{d:?}"
        );
        assert!(
            d[1].starts_with("lab: race is pass, expected skipped: sent 8"),
            "{d:?}"
        );
        let line = c
            .table()
            .lines()
            .find(|l| l.starts_with("  race "))
            .map(str::to_owned);
        let w = ROWS.iter().map(|r| r.id.len()).max().unwrap_or(0);
        assert_eq!(line.unwrap().trim_end(), format!("  {:<w$}  ✓!", "race"));
        let j = c.to_json();
        assert_eq!(j["ok"], false);
        assert_eq!(j["differences"][1]["row"], "race");
        assert_eq!(j["differences"][1]["expected"], "skipped");
    }

    #[test]
    fn a_missing_report_or_rule_differs_as_a_whole() {
        let exp = Expected::parse(r#"{"lab": "all-pass", "gone": "all-pass"}"#).unwrap();
        let c = compare(
            &exp,
            vec![
                column("lab", &lab()),
                Column {
                    label: "gone".into(),
                    report: Err("not JSON (EOF)".into()),
                },
                column("stranger", &lab()),
            ],
        );
        let d: Vec<String> = c.differences.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            d,
            [
                "gone: no report (not JSON (EOF))",
                "stranger: nothing is expected of it in the expected file"
            ]
        );
        assert!(c
            .table()
            .contains("   2  gone: no report (not JSON (EOF))\n"));
        let line = c
            .table()
            .lines()
            .find(|l| l.starts_with("  honest "))
            .map(str::to_owned);
        let w = ROWS.iter().map(|r| r.id.len()).max().unwrap_or(0);
        assert_eq!(line.unwrap(), format!("  {:<w$}  ✓   ?!  ✓!", "honest"));
    }

    #[test]
    fn a_malformed_expected_file_is_a_sentence() {
        for (text, says) in [
            ("", "not JSON"),
            ("[]", "not a JSON object"),
            (r#"{"a": 3}"#, "\"a\": 3 is not"),
            (
                r#"{"a": "all-fail"}"#,
                "neither \"all-pass\" nor \"guard:NAME\"",
            ),
            (
                r#"{"a": "guard:everything"}"#,
                "no row is guarded by \"everything\"",
            ),
            (
                r#"{"a": {"honset": "pass"}}"#,
                "no row of the audit is \"honset\"",
            ),
            (
                r#"{"a": {"honest": "ok"}}"#,
                "row \"honest\" is expected to be \"ok\"",
            ),
            (r#"{"a": {"honest": null}}"#, "expected to be null"),
        ] {
            let e = Expected::parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
        // Every guard a row has can be named.
        for r in ROWS {
            assert_eq!(Guard::from_id(r.guard.id()), Some(r.guard), "{}", r.id);
        }
    }

    #[test]
    fn the_interop_expectations_read() {
        let text = include_str!("../../../interop/audit-expected.json");
        let exp = Expected::parse(text).unwrap();
        assert_eq!(exp.rule("mrtr-server"), Some(&Rule::AllPass));
        assert_eq!(
            exp.rule("mrtr-server-skip-request"),
            Some(&Rule::Guard(Guard::Check(Check::Request)))
        );
        let Some(Rule::Rows(rows)) = exp.rule("python-sdk-example") else {
            panic!("a row map")
        };
        assert_eq!(rows.len(), ROWS.len());
    }
}
