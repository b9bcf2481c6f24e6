//! The audit, in the page, against a real server: the same engine as `mrtr-audit`
//! ([`mrtr_audit::AuditRun`], every row, variant and verdict), driven step by step. The
//! engine says what it needs ([`Need`]); the view does each `fetch` or wait and hands the
//! answer back through here, read by the same rule the terminal's wire reads by
//! ([`Exchange::from_http`]). The report is the `mrtr-audit/1` JSON the terminal prints, and
//! the card is drawn from that JSON read back, as a pasted report is, so what the card says
//! and what "Download JSON" gives cannot differ.
//!
//! Privacy, as for the round trip: the URL and the tokens stay in this session's memory and
//! go only to the server named.

use serde_json::Value;

use mrtr_audit::{AuditError, AuditRun, Callers, Exchange, Need, Options, Progress, Turn, Who};

use super::audit_report;
use super::live::{headers, read, Failure, Form, Mirrored, Reply, TIMEOUT_MS};
use mrtr_audit::ReportFile;

/// What the reader chose for the audit, beside the call's form.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditForm {
    /// The server claims single use: run the repeat, launder and race rows.
    pub single_use: bool,
    /// Seconds to wait to test expiry (longer than the server's ticket lifetime), as typed;
    /// empty to skip the expiry rows.
    pub ttl_wait: String,
}

impl Default for AuditForm {
    /// Single use on: the page's commands start mrtr-server with `--single-use`.
    fn default() -> AuditForm {
        AuditForm {
            single_use: true,
            ttl_wait: String::new(),
        }
    }
}

impl AuditForm {
    /// The audit's options for `form`'s tool and arguments, or a sentence saying what to fix.
    pub fn options(&self, form: &Form) -> Result<(String, Options), String> {
        let (url, arguments) = form.check()?;
        let t = self.ttl_wait.trim();
        let ttl_wait_s = match t {
            "" => None,
            _ => match t.parse::<u64>() {
                Ok(s @ 1..=600) => Some(s),
                _ => {
                    return Err(
                        "The wait for expiry is a whole number of seconds from 1 to 600, longer than the server's ticket lifetime (mrtr-server --ttl)."
                            .into(),
                    )
                }
            },
        };
        Ok((
            url,
            Options {
                tool: Some(form.tool.trim().to_owned()),
                arguments: Some(arguments),
                expect_single_use: self.single_use,
                ttl_wait_s,
                ..Options::default()
            },
        ))
    }

    /// The same audit from a terminal: the `mrtr-audit` command line these choices make.
    pub fn command(&self, form: &Form) -> String {
        let mut c = format!("mrtr-audit {}", form.url.trim());
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        c.push_str(&format!(" --tool {}", quote(form.tool.trim())));
        c.push_str(&format!(" --args {}", quote(form.args.trim())));
        if !form.token.trim().is_empty() {
            c.push_str(" --token …");
        }
        if !form.other_token.trim().is_empty() {
            c.push_str(" --other-token …");
        }
        if self.single_use {
            c.push_str(" --expect-single-use");
        }
        if !self.ttl_wait.trim().is_empty() {
            c.push_str(&format!(" --ttl-wait {}", self.ttl_wait.trim()));
        }
        c
    }
}

/// One request for the view to POST: its body and headers.
#[derive(Clone, Debug, PartialEq)]
pub struct Post {
    /// The body, as sent.
    pub body: String,
    /// Every header, the token's included.
    pub headers: Vec<(String, String)>,
}

/// How an audit in the page ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ended {
    /// The report: the `mrtr-audit/1` JSON, and the card read from it.
    Report {
        /// The report as `mrtr-audit --json` prints it.
        json: String,
        /// The same report, read back for the card.
        card: ReportFile,
    },
    /// No report: what went wrong and what to do, in a sentence.
    Failed(String),
}

/// An audit running against the server the reader named.
pub struct LiveAudit {
    /// The server's URL.
    pub url: String,
    token: String,
    other_token: String,
    run: AuditRun,
    /// The tools' mirrored parameters, learnt from the audit's own `tools/list`.
    mirrored: Mirrored,
    /// Why the server could not be audited, when a request failed in a way the page can
    /// name (blocked by CORS, nothing listening, not MCP…): said at the end in place of the
    /// engine's plainer words.
    failure: Option<Failure>,
    /// Requests answered so far (the first is the `tools/list` that shows the server is MCP).
    answered: usize,
}

impl LiveAudit {
    /// Starts an audit of `form`'s server, tool and arguments: the first [`Need`], or a
    /// sentence saying what to fix in the form.
    pub fn start(form: &Form, choices: &AuditForm) -> Result<(LiveAudit, Turn), String> {
        let (url, opts) = choices.options(form)?;
        // HTTP: another caller's token and no token at all are other principals, when the
        // form gives the tokens that make them so.
        let callers = Callers::http(Some(&form.token), Some(&form.other_token));
        let (run, turn) = AuditRun::start(opts, callers);
        Ok((
            LiveAudit {
                url,
                token: form.token.clone(),
                other_token: form.other_token.clone(),
                run,
                mirrored: Mirrored::default(),
                failure: None,
                answered: 0,
            },
            turn,
        ))
    }

    /// The body and headers of `msg` sent as `who`.
    pub fn post(&self, msg: &Value, who: Who) -> Post {
        let token = match who {
            Who::Caller => self.token.as_str(),
            Who::Other => self.other_token.as_str(),
            Who::Nobody => "",
        };
        Post {
            body: msg.to_string(),
            headers: headers(msg, token, &self.mirrored),
        }
    }

    /// A body of `bytes` bytes (a `tools/list` padded out), sent without a token, as the
    /// terminal's wire sends it.
    pub fn oversize(&self, bytes: usize) -> Post {
        Post {
            body: format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"pad\":\"{}\"}}",
                "x".repeat(bytes)
            ),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                (
                    "Accept".into(),
                    "application/json, text/event-stream".into(),
                ),
                ("Mcp-Method".into(), "tools/list".into()),
            ],
        }
    }

    /// What came back for `msg`, as the audit reads it; `Err` (in a sentence) when nothing
    /// readable came back. The first answer must show an MCP server, or the audit stops with
    /// the round trip's sentence for what it is instead.
    pub fn exchange(&mut self, msg: &Value, reply: Reply) -> Result<Exchange, String> {
        self.answered += 1;
        if self.answered == 1 {
            if let Err(f) = read(&reply, msg) {
                self.failure = Some(f);
            }
        }
        match reply {
            Reply::Answer {
                status,
                content_type,
                body,
                ..
            } => {
                let ex = Exchange::from_http(status, &content_type, &body);
                if msg.get("method").and_then(Value::as_str) == Some("tools/list") {
                    if let Some(r) = ex.body.get("result") {
                        self.mirrored.learn(r);
                    }
                }
                Ok(ex)
            }
            other => {
                let f = match other {
                    Reply::Blocked => Failure::Cors,
                    Reply::TimedOut => Failure::TimedOut,
                    _ => Failure::Unreachable,
                };
                let why = match f {
                    Failure::Cors => "the browser blocked the answer (CORS)".to_owned(),
                    Failure::TimedOut => format!("no answer within {} s", TIMEOUT_MS / 1000),
                    _ => "nothing answered".to_owned(),
                };
                self.failure.get_or_insert(f);
                Err(format!("request {} to {}: {why}", self.answered, self.url))
            }
        }
    }

    /// The answer to the oversized body. A browser cannot tell a server that hung up during
    /// the upload from one that answered without CORS headers: either way no answer can be
    /// read, and either way the body was refused (the row then checks that the server still
    /// answers).
    pub fn oversize_exchange(&mut self, reply: Reply) -> Result<Exchange, String> {
        match reply {
            Reply::Answer {
                status,
                content_type,
                body,
                ..
            } => Ok(Exchange::from_http(status, &content_type, &body)),
            Reply::TimedOut => Err(format!(
                "the 2 MiB body got no answer within {} s",
                TIMEOUT_MS / 1000
            )),
            _ => Ok(Exchange {
                status: None,
                body: serde_json::json!({"error": {"code": 0, "message":
                    "no answer the page may read (the server hung up during the upload, or answered without CORS headers)"}}),
            }),
        }
    }

    /// Hands the engine what came of its last need; returns the next.
    pub fn answer(&mut self, answer: mrtr_audit::Answer) -> Turn {
        self.run.answer(answer)
    }

    /// How far the audit has got.
    pub fn progress(&self) -> Progress {
        self.run.progress()
    }

    /// The end, from the engine's result: the report as JSON and as a card, or the sentence.
    pub fn end(&self, result: Result<mrtr_audit::Report, AuditError>, page_origin: &str) -> Ended {
        match result {
            Ok(report) => {
                let json = report.to_json(&self.url).to_string();
                match audit_report::parse(&json) {
                    Ok(card) => Ended::Report { json, card },
                    // The page's own report always reads back; said, should it ever not.
                    Err(e) => Ended::Failed(format!("The report could not be read back: {e}")),
                }
            }
            Err(e) => Ended::Failed(match (&self.failure, e) {
                (Some(f), _) => f.sentence(page_origin, &self.url),
                (None, AuditError::NoTicket(why)) => format!(
                    "Nothing to audit: {why}. Name a tool that asks for input (on mrtr-server, deploy), with arguments it accepts."
                ),
                (None, AuditError::Connection(why)) => format!(
                    "The audit stopped: {why}. Run mrtr-audit {} from a terminal for the details.",
                    self.url
                ),
            }),
        }
    }
}

/// The progress in words: "Row 5 of 27: … · 312 requests sent".
pub fn progress_words(p: &Progress) -> String {
    match p.row {
        None if p.rows_done == 0 => {
            format!("Looking for the tool… · {} request(s) sent", p.requests)
        }
        None => format!("All {} rows done · {} requests sent", p.rows, p.requests),
        Some(row) => format!(
            "Row {} of {}: {} · {} requests sent",
            p.rows_done + 1,
            p.rows,
            row.title,
            p.requests
        ),
    }
}

/// Whether `need` is one the view answers without the network.
pub fn is_local(need: &Need) -> bool {
    matches!(need, Need::Wait { .. } | Need::Clock)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_audit::{sim::SimWire, Answer, Status, ROWS};
    use mrtr_core::checks::CheckPolicy;
    use serde_json::json;

    fn answer(body: Value) -> Reply {
        Reply::Answer {
            status: 200,
            content_type: "application/json".into(),
            replica: None,
            body: body.to_string(),
        }
    }

    /// Drives a page audit against the simulated server, every request through the page's
    /// own `post` and `exchange`: the page's path, minus `fetch`.
    fn run_against(wire: &mut SimWire, choices: &AuditForm, form: &Form) -> Ended {
        use mrtr_audit::Wire;
        let (mut a, mut turn) = LiveAudit::start(form, choices).unwrap();
        loop {
            turn = match turn {
                Turn::Done(r) => return a.end(r, "http://127.0.0.1:8000"),
                Turn::Need(Need::Send { msg, who }) => {
                    let post = a.post(&msg, who);
                    let sent: Value = serde_json::from_str(&post.body).unwrap();
                    let ex = wire.send(&sent, who).unwrap();
                    let reply = answer(ex.body);
                    let r = a.exchange(&msg, reply);
                    a.answer(Answer::Sent(r))
                }
                Turn::Need(need) => a.answer(mrtr_audit::serve(wire, need)),
            };
        }
    }

    #[test]
    fn the_card_and_the_download_are_one_report_and_match_the_terminals() {
        let policy = CheckPolicy {
            single_use: true,
            ..CheckPolicy::default()
        };
        let mut wire = SimWire::new(policy, false, 7);
        let choices = AuditForm {
            single_use: true,
            ttl_wait: (wire.ttl_s() + 1).to_string(),
        };
        // The simulated server's two callers, as the terminal's audit of it sends them.
        let form = Form {
            tool: "deploy".into(),
            args: r#"{"env":"staging"}"#.into(),
            token: "bob-token".into(),
            other_token: "alice-token".into(),
            ..Form::default()
        };
        let Ended::Report { json, card } = run_against(&mut wire, &choices, &form) else {
            panic!("no report")
        };
        // The terminal's audit of the same server, seed and options.
        let mut again = SimWire::new(policy, false, 7);
        let (_, opts) = choices.options(&form).unwrap();
        let cli = mrtr_audit::audit(&mut again, &opts, &mut |_| {}).unwrap();
        assert_eq!(json, cli.to_json(&form.url).to_string());
        assert_eq!(card.rows.len(), ROWS.len());
        for (row, cli_row) in card.rows.iter().zip(&cli.rows) {
            assert_eq!(
                (row.id.as_str(), row.status),
                (cli_row.row.id, cli_row.status)
            );
        }
        assert_eq!(card.count(Status::Fail), 0, "{json}");
    }

    #[test]
    fn with_the_tokens_left_empty_the_theft_rows_are_skipped_not_failed() {
        let mut wire = SimWire::new(CheckPolicy::default(), false, 7);
        let form = Form {
            tool: "deploy".into(),
            args: r#"{"env":"staging"}"#.into(),
            ..Form::default()
        };
        let Ended::Report { card, .. } = run_against(&mut wire, &AuditForm::default(), &form)
        else {
            panic!("no report")
        };
        for id in ["other-token", "no-token"] {
            let row = card.rows.iter().find(|r| r.id == id).unwrap();
            assert_eq!(row.status, Status::Skipped, "{id}");
        }
    }

    #[test]
    fn a_blocked_first_request_ends_with_the_cors_sentence() {
        let (mut a, turn) = LiveAudit::start(&Form::default(), &AuditForm::default()).unwrap();
        let Turn::Need(Need::Send { msg, .. }) = turn else {
            panic!("{turn:?}")
        };
        let r = a.exchange(&msg, Reply::Blocked);
        assert!(r.is_err());
        let Turn::Done(result) = a.answer(Answer::Sent(r)) else {
            panic!("the audit goes on without an answer")
        };
        let Ended::Failed(why) = a.end(result, "http://127.0.0.1:8000") else {
            panic!()
        };
        assert!(why.contains("--cors-origin http://127.0.0.1:8000"), "{why}");
    }

    #[test]
    fn a_server_that_is_not_mcp_is_named_so_and_not_audited() {
        let (mut a, turn) = LiveAudit::start(&Form::default(), &AuditForm::default()).unwrap();
        let Turn::Need(Need::Send { msg, .. }) = turn else {
            panic!()
        };
        let page = Reply::Answer {
            status: 200,
            content_type: "text/html".into(),
            replica: None,
            body: "<!doctype html><p>hello".into(),
        };
        let r = a.exchange(&msg, page);
        let Turn::Done(result) = a.answer(Answer::Sent(r)) else {
            panic!()
        };
        let Ended::Failed(why) = a.end(result, "http://127.0.0.1:8000") else {
            panic!()
        };
        assert!(
            why.contains("not JSON") && why.contains("MCP endpoint"),
            "{why}"
        );
    }

    #[test]
    fn a_tools_mirrored_arguments_go_in_headers_once_the_list_is_read() {
        let (mut a, turn) = LiveAudit::start(&Form::default(), &AuditForm::default()).unwrap();
        let Turn::Need(Need::Send { msg: list, .. }) = turn else {
            panic!()
        };
        let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "deploy", "arguments": {"env": "staging", "region": "eu-1"}}});
        let mirrored = |a: &LiveAudit| {
            a.post(&call, Who::Caller)
                .headers
                .iter()
                .any(|(k, v)| k == "Mcp-Param-Region" && v == "eu-1")
        };
        assert!(!mirrored(&a));
        let tools = json!({"jsonrpc": "2.0", "id": list["id"], "result": {"tools": [{"name": "deploy",
            "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]}});
        a.exchange(&list, answer(tools)).unwrap();
        assert!(mirrored(&a));
    }

    #[test]
    fn the_wait_for_expiry_is_checked_and_the_tokens_stay_out_of_the_command() {
        let form = Form {
            token: "alice-token".into(),
            ..Form::default()
        };
        for bad in ["0", "1.5", "-3", "601", "soon"] {
            let c = AuditForm {
                ttl_wait: bad.into(),
                ..AuditForm::default()
            };
            assert!(c.options(&form).is_err(), "{bad}");
        }
        let c = AuditForm {
            single_use: true,
            ttl_wait: "3".into(),
        };
        let (_, o) = c.options(&form).unwrap();
        assert_eq!((o.ttl_wait_s, o.expect_single_use), (Some(3), true));
        let cmd = c.command(&form);
        assert!(cmd.contains("--expect-single-use --ttl-wait 3"), "{cmd}");
        assert!(!cmd.contains("alice"), "{cmd}");
    }
}
