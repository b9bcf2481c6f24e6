//! What each SDK's example server does for its author, and what it leaves to them: read from
//! `interop/audit-expected.json`, the verdicts `make interop` checks every `mrtr-audit` run of
//! those servers against, grouped by the check of the lesson each audit row tests (a second
//! spelling of the same bytes is the `unused-bits` row's, under one spelling per ticket, not a
//! broken signature). Nothing here is typed in by hand but the advice on how to add what is
//! missing.

use mrtr_audit::expect::{Expected, Rule};
use mrtr_audit::{Guard, Status, ROWS};
use mrtr_core::checks::Check;
use mrtr_world::checks::CheckWords;

use super::lang::Lang;

const EXPECTED: &str = include_str!("../../../interop/audit-expected.json");

/// The protections the table has a row for: the core's checks in the order it runs them
/// ([`Check::ALL`], the one order every list of checks follows), each the audit tries (all but
/// the answer: a missing answer is not an attack, the server asks again), and one spelling
/// per ticket beside the signature it completes.
pub fn guards() -> Vec<Guard> {
    Check::ALL
        .into_iter()
        .filter(|c| ROWS.iter().any(|r| r.guard == Guard::Check(*c)))
        .flat_map(|c| {
            let beside = (c == Check::Signature).then_some(Guard::Encoding);
            std::iter::once(Guard::Check(c)).chain(beside)
        })
        .collect()
}

/// A guard's name, as its row's heading.
pub fn guard_name(g: Guard) -> &'static str {
    match g {
        Guard::Check(c) => c.short(),
        Guard::Encoding => "One spelling per ticket",
        Guard::Protocol => "Protocol rules",
        Guard::Robustness => "Bad input",
        Guard::Tasks => "Tasks",
    }
}

/// What an SDK's example does about one guard, read off the audit rows of its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Every audit row of this kind that ran passed.
    SdkDoes,
    /// At least one failed: the author must add it.
    YouAdd,
    /// No row of this kind ran against the example (it claims nothing).
    NotTested,
}

impl Cell {
    /// The cell's words in the column of the example as it is, or of a hardened one.
    pub fn word(self, hardened: bool) -> &'static str {
        match (self, hardened) {
            (Cell::SdkDoes, false) => "the SDK does it",
            (Cell::SdkDoes, true) => "holds",
            (Cell::YouAdd, false) => "left to you",
            (Cell::YouAdd, true) => "still left to you",
            (Cell::NotTested, _) => "not tested",
        }
    }

    /// The cell's CSS class: `ok`, `no` or `untested` (not `skip`: that is the skip link's,
    /// which puts it off screen).
    pub fn class(self) -> &'static str {
        match self {
            Cell::SdkDoes => "ok",
            Cell::YouAdd => "no",
            Cell::NotTested => "untested",
        }
    }
}

/// A server `make interop` audits, as the table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Its label in `audit-expected.json`.
    pub server: &'static str,
    /// The column's heading.
    pub heading: &'static str,
    /// The server's source, from the repository's root.
    pub path: &'static str,
    /// The author's own hardening, as opposed to the SDK's example as it is.
    pub hardened: bool,
}

/// The audited servers of a language: its example, and where the SDK lets the author bind
/// the caller and the request, the example hardened that way. None for the lab's own.
///
/// rmcp's are one server at three `--bind` levels, because its codec leaves every binding to
/// the handler: `none` seals as rmcp's own MRTR example does (the example, counted in the
/// summary), `docs` as the codec's documentation suggests, `full` is the lab's hardening.
pub fn variants(lang: Lang) -> &'static [Variant] {
    const TS: [Variant; 2] = [
        Variant {
            server: "ts-sdk-example",
            heading: "The example",
            path: "interop/ts_server.mjs",
            hardened: false,
        },
        Variant {
            server: "ts-sdk-example-hardened",
            heading: "Hardened with bind",
            path: "interop/ts_server_hardened.mjs",
            hardened: true,
        },
    ];
    const PY: [Variant; 1] = [Variant {
        server: "python-sdk-example",
        heading: "The example",
        path: "interop/py_server.py",
        hardened: false,
    }];
    const RMCP: [Variant; 3] = [
        Variant {
            server: "rmcp-bind-none",
            heading: "--bind none: as rmcp's example",
            path: super::lang::RMCP_SERVER,
            hardened: false,
        },
        Variant {
            server: "rmcp-bind-docs",
            heading: "--bind docs: as the codec's docs",
            path: super::lang::RMCP_SERVER,
            hardened: true,
        },
        Variant {
            server: "rmcp-bind-full",
            heading: "--bind full: hardened",
            path: super::lang::RMCP_SERVER,
            hardened: true,
        },
    ];
    match lang {
        Lang::TypeScript => &TS,
        Lang::Python => &PY,
        Lang::Rmcp => &RMCP,
        Lang::Rust => &[],
    }
}

/// One server's verdict on one protection, with the audit rows behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerVerdict {
    /// What the server's audit rows of this guard come to.
    pub cell: Cell,
    /// The audit rows and their verdicts, e.g. `("other-token", Some(Status::Fail))`; `None`
    /// when the expected verdicts have none for the row.
    pub evidence: Vec<(&'static str, Option<Status>)>,
}

/// One row of an SDK's table: a verdict per audited server, and what to do about a gap in
/// the example.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The protection the row is about.
    pub guard: Guard,
    /// One verdict per audited server, in the order of the language's servers.
    pub verdicts: Vec<ServerVerdict>,
    /// What to do about a gap in the SDK's example (the first server): empty when the example does it.
    pub advice: &'static str,
}

fn advice(lang: Lang, g: Guard, cell: Cell) -> &'static str {
    use Check::*;
    match (lang, g, cell) {
        (_, _, Cell::SdkDoes) => "",
        (Lang::TypeScript, Guard::Encoding, _) => "The codec's decoder ignores a last character's unused bits, and takes = padding, the + / alphabet and whitespace: one ticket has several spellings, though every edit of what it says is refused. Key anything you remember about a ticket by its decoded id, never by the string.",
        (Lang::TypeScript, Guard::Check(Principal), _) => "Give createRequestStateCodec a bind callback that returns the caller's identity, and pass ctx to codec.mint: verify then refuses another caller's ticket (ts_server_hardened.mjs).",
        (Lang::TypeScript, Guard::Check(Request), _) => "Return the tool's name and its arguments from the same bind callback: verify then refuses a retry with other arguments before the handler runs (ts_server_hardened.mjs). A check inside the handler would not do: the SDK turns a handler's error into an isError result.",
        (Lang::TypeScript, Guard::Check(Expiry), _) => "Each ticket the codec mints lives a full ttlSeconds, and the handler mints a new one whenever a retry carries no accepted answer: answer with another kind of result (or not at all) and the ticket comes back with a new deadline, as often as you like. On a retry that carried a ticket, keep its deadline: put the first expiry in the state and refuse once it is past.",
        (Lang::Python, Guard::Check(Expiry), _) => "Each request_state the SDK seals lives a full ttl, and the handler returns a new one whenever a retry carries no accepted answer: answer with another kind of result and the ticket comes back with a new deadline. On a retry that carried a ticket, keep its deadline: put the first expiry in the state and refuse once it is past.",
        (Lang::Python, Guard::Check(Principal), _) => "The SDK binds the ticket to the OAuth client when the server uses OAuth; without it, put the caller in the state and compare it in the handler.",
        (Lang::Rmcp, Guard::Check(Principal), _) => "Pass the caller as associated data when you seal and when you open (SealOptions::associated_data, open_json_with), as the codec's docs do: open then refuses another caller's ticket (--bind docs).",
        (Lang::Rmcp, Guard::Check(Expiry), _) => "rmcp's codec sets no expiry unless you pass a ttl. With one (--bind docs) an expired ticket is refused, but each ticket made to ask again gets a full new ttl, so a wrong-kind answer renews it. Carry the first deadline in the state and seal each later ticket with what is left of it (--bind full).",
        (Lang::Rmcp, Guard::Check(Request), _) => "The docs' associated data names the tool, not its arguments, so a retry with other arguments still gets through (--bind docs). Add a digest of the canonical arguments, and length-prefix each part rather than join them with | (--bind full).",
        (Lang::Rmcp, Guard::Check(SingleUse), Cell::NotTested) => "rmcp keeps no record of redeemed tickets, and its example claims no single use, so the audit skips it. --bind full remembers each grant it spends, in its own process: behind a load balancer that memory must be one every replica shares, until the ticket expires.",
        (_, Guard::Check(SingleUse), Cell::NotTested) => "The example does not claim single use, so the audit skips it. To add it, remember each redeemed ticket id in a memory every replica shares, until the ticket expires.",
        (_, _, Cell::NotTested) => "The audit could not try this against the example.",
        (_, _, Cell::YouAdd) => "The audit found a misuse this server accepts.",
    }
}

/// What the expected verdicts say of a server's rows of one guard.
fn verdict(rule: &Rule, guard: Guard) -> ServerVerdict {
    let evidence: Vec<(&'static str, Option<Status>)> = ROWS
        .iter()
        .filter(|r| r.guard == guard)
        .map(|r| (r.id, rule.expects(r.id)))
        .collect();
    let cell = if evidence.iter().any(|(_, v)| *v == Some(Status::Fail)) {
        Cell::YouAdd
    } else if evidence.iter().any(|(_, v)| *v == Some(Status::Pass)) {
        Cell::SdkDoes
    } else {
        Cell::NotTested
    };
    ServerVerdict { cell, evidence }
}

/// What a language's columns are, when the headings cannot say it all: rmcp's are one
/// server at three `--bind` levels.
pub fn columns_note(lang: Lang) -> Option<&'static str> {
    (lang == Lang::Rmcp).then_some("One server, rmcp-deploy-server, at three --bind levels, because rmcp's codec leaves every binding to the handler, which calls it: none seals as rmcp's own MRTR example does (no associated data, no ttl); docs as the codec's documentation suggests (the caller and the tool as associated data, and a ttl); full is the lab's hardening (the caller, the tool and a digest of the arguments; a deadline that asking again does not renew; single use in its process).")
}

/// The table for a language's audited servers, from the audit's expected verdicts; `None`
/// for the lab's own server (it passes every row) or if the file cannot be read.
pub fn table(lang: Lang) -> Option<Vec<Entry>> {
    // Read as `mrtr-audit --expect` reads it: the file has one reader, the audit's.
    let all = Expected::parse(EXPECTED).ok()?;
    let servers = variants(lang);
    if servers.is_empty() {
        return None;
    }
    let maps = servers
        .iter()
        .map(|v| all.rule(v.server))
        .collect::<Option<Vec<_>>>()?;
    Some(
        guards()
            .into_iter()
            .map(|guard| {
                let verdicts: Vec<ServerVerdict> = maps.iter().map(|m| verdict(m, guard)).collect();
                let advice = advice(lang, guard, verdicts[0].cell);
                Entry {
                    guard,
                    verdicts,
                    advice,
                }
            })
            .collect(),
    )
}

/// How the step notes introduce what a column of the table says.
pub const COLUMN_WORDS: &str = "mrtr-audit's verdicts on this server (the table below): ";

/// What the audit says of the server in `column` of a language's table, in the table's own
/// words, for the step notes to quote: each protection under its cell's word, "(in part)"
/// where some of its rows passed and some failed. `None` without a table or that column.
pub fn column_words(lang: Lang, column: usize) -> Option<String> {
    let rows = table(lang)?;
    let hardened = variants(lang).get(column)?.hardened;
    let groups: Vec<String> = [Cell::SdkDoes, Cell::YouAdd, Cell::NotTested]
        .into_iter()
        .filter_map(|cell| {
            let names: Vec<String> = rows
                .iter()
                .filter_map(|e| {
                    let v = e.verdicts.get(column)?;
                    (v.cell == cell).then(|| {
                        let partly = v.evidence.iter().any(|(_, x)| *x == Some(Status::Pass))
                            && v.evidence.iter().any(|(_, x)| *x == Some(Status::Fail));
                        format!(
                            "{}{}",
                            guard_name(e.guard),
                            if partly { " (in part)" } else { "" }
                        )
                    })
                })
                .collect();
            (!names.is_empty()).then(|| format!("{}: {}", cell.word(hardened), names.join(", ")))
        })
        .collect();
    Some(format!("{COLUMN_WORDS}{}.", groups.join("; ")))
}

/// Of the protections the audit tested against a table's first server (the example as it
/// is), how many it leaves to the author: (left, tested).
pub fn left_to_you(rows: &[Entry]) -> (usize, usize) {
    let first = |e: &Entry| e.verdicts.first().map(|v| v.cell);
    let left = rows
        .iter()
        .filter(|e| first(e) == Some(Cell::YouAdd))
        .count();
    let tested = rows
        .iter()
        .filter(|e| first(e).is_some_and(|c| c != Cell::NotTested))
        .count();
    (left, tested)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_what_each_example_leaves_to_you() {
        assert_eq!(left_to_you(&table(Lang::TypeScript).unwrap()), (4, 5));
        assert_eq!(left_to_you(&table(Lang::Python).unwrap()), (2, 5));
        // rmcp's example seals with no associated data and no ttl.
        assert_eq!(left_to_you(&table(Lang::Rmcp).unwrap()), (3, 5));
    }

    /// The count, recomputed from `audit-expected.json` alone: of the table's protections, how
    /// many have a row that ran (pass or fail) and how many a row that failed, each row filed
    /// as the table files it.
    fn recount(server: &str) -> (usize, usize) {
        let all = Expected::parse(EXPECTED).unwrap();
        let rule = all.rule(server).unwrap();
        let mut left = 0;
        let mut tested = 0;
        for guard in guards() {
            let of: Vec<Status> = ROWS
                .iter()
                .filter(|r| r.guard == guard)
                .filter_map(|r| rule.expects(r.id))
                .collect();
            left += usize::from(of.contains(&Status::Fail));
            tested += usize::from(of.iter().any(|v| *v != Status::Skipped));
        }
        (left, tested)
    }

    #[test]
    fn the_counts_are_the_audits_and_a_second_spelling_is_not_a_broken_signature() {
        for lang in [Lang::TypeScript, Lang::Python, Lang::Rmcp] {
            let rows = table(lang).unwrap();
            for (i, v) in variants(lang).iter().enumerate() {
                let column: Vec<Entry> = rows
                    .iter()
                    .map(|e| Entry {
                        verdicts: vec![e.verdicts[i].clone()],
                        ..e.clone()
                    })
                    .collect();
                assert_eq!(left_to_you(&column), recount(v.server), "{}", v.server);
            }
        }
        // The TypeScript example: every change of the bytes is refused, so the signature holds;
        // its lenient decoder takes a second spelling, which is one spelling per ticket's row.
        let ts = table(Lang::TypeScript).unwrap();
        let row = |g: Guard| ts.iter().find(|e| e.guard == g).unwrap();
        let signature = row(Guard::Check(Check::Signature));
        assert_eq!(signature.verdicts[0].cell, Cell::SdkDoes);
        assert!(signature.verdicts[0]
            .evidence
            .contains(&("substitution", Some(Status::Pass))));
        let encoding = row(Guard::Encoding);
        assert_eq!(encoding.verdicts[0].cell, Cell::YouAdd);
        assert!(encoding.verdicts[0]
            .evidence
            .contains(&("unused-bits", Some(Status::Fail))));
    }

    fn cells(lang: Lang, column: usize) -> Vec<Cell> {
        table(lang)
            .unwrap()
            .iter()
            .map(|e| e.verdicts[column].cell)
            .collect()
    }

    #[test]
    fn the_tables_follow_the_audit() {
        use Cell::*;
        // signature, encoding, principal, expiry, request, single use: the core's order
        assert_eq!(
            guards(),
            [
                Guard::Check(Check::Signature),
                Guard::Encoding,
                Guard::Check(Check::Principal),
                Guard::Check(Check::Expiry),
                Guard::Check(Check::Request),
                Guard::Check(Check::SingleUse),
            ]
        );
        assert_eq!(
            cells(Lang::TypeScript, 0),
            [SdkDoes, YouAdd, YouAdd, YouAdd, YouAdd, NotTested]
        );
        // bind closes the principal and request gaps, and only those; a wrong-kind answer
        // still renews the ticket (the renewal row).
        assert_eq!(
            cells(Lang::TypeScript, 1),
            [SdkDoes, YouAdd, SdkDoes, YouAdd, SdkDoes, NotTested]
        );
        assert_eq!(
            cells(Lang::Python, 0),
            [SdkDoes, SdkDoes, YouAdd, YouAdd, SdkDoes, NotTested]
        );
        // rmcp: its example binds nothing and never expires; the docs' binding closes the
        // principal, and only in part the request (the tool, not the arguments) and the
        // expiry (a ticket that asks again gets a new ttl); the lab's hardening closes all but
        // single use across a restart.
        assert_eq!(
            cells(Lang::Rmcp, 0),
            [SdkDoes, SdkDoes, YouAdd, YouAdd, YouAdd, NotTested]
        );
        assert_eq!(
            cells(Lang::Rmcp, 1),
            [SdkDoes, SdkDoes, SdkDoes, YouAdd, YouAdd, NotTested]
        );
        // The hardening's single use lives in the process: restarted with its fixed key, it
        // takes a spent ticket again (the memory-loss row).
        assert_eq!(
            cells(Lang::Rmcp, 2),
            [SdkDoes, SdkDoes, SdkDoes, SdkDoes, SdkDoes, YouAdd]
        );
        let rmcp = table(Lang::Rmcp).unwrap();
        let docs = |g: Guard| {
            rmcp.iter().find(|e| e.guard == g).unwrap().verdicts[1]
                .evidence
                .clone()
        };
        assert!(docs(Guard::Check(Check::Request)).contains(&("other-tool", Some(Status::Pass))));
        assert!(
            docs(Guard::Check(Check::Request)).contains(&("other-arguments", Some(Status::Fail)))
        );
        assert!(docs(Guard::Check(Check::Expiry)).contains(&("expired", Some(Status::Pass))));
        assert!(docs(Guard::Check(Check::Expiry)).contains(&("renewal", Some(Status::Fail))));
        assert!(table(Lang::Rust).is_none());
    }

    #[test]
    fn every_row_has_its_audit_evidence_and_every_gap_its_advice() {
        for lang in [Lang::TypeScript, Lang::Python, Lang::Rmcp] {
            for e in table(lang).unwrap() {
                assert_eq!(e.verdicts.len(), variants(lang).len());
                for v in &e.verdicts {
                    assert!(!v.evidence.is_empty());
                    assert!(v.evidence.iter().all(|(_, x)| x.is_some()), "{e:?}");
                }
                let example = e.verdicts[0].cell;
                assert_eq!(e.advice.is_empty(), example == Cell::SdkDoes, "{e:?}");
                assert!(!e.advice.starts_with("The audit"), "generic advice: {e:?}");
            }
        }
    }

    #[test]
    fn every_audited_file_is_one_the_page_shows() {
        for lang in Lang::ALL {
            let shown: Vec<&str> = crate::code::listings(lang).iter().map(|l| l.path).collect();
            for v in variants(lang) {
                assert!(shown.contains(&v.path), "{}", v.path);
            }
        }
    }
}
