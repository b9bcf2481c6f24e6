//! mrtr-audit: a report card of any MRTR server's ticket checks.
//!
//!   mrtr-audit URL --token bob-token --other-token alice-token [--tool deploy --args '{"env":"staging"}']
//!              [--expect-single-use] [--restart COMMAND] [--ttl-wait SECONDS] [--json] [--transcript DIR]
//!   mrtr-audit [options] -- CMD ARGS…        (a stdio server: one principal, no racing)
//!   mrtr-audit --expect EXPECTED.json LABEL=REPORT.json… [--json]
//!
//! It finds a tool that answers with a ticket (or audits --tool), then tries every misuse of
//! the ticket the lab knows, each a row: pass, fail or skipped, with one line of evidence.
//! The table goes to stdout, progress to stderr. Exit 0 when no MUST or SHOULD row fails, 1
//! when one does (recommended rows are reported, not counted), 2 for usage or connection errors.
//!
//! With `--expect`, it audits nothing: it reads `--json` reports (as the page does) and
//! compares each with what EXPECTED.json expects of its label (`mrtr_audit::expect`: a map
//! of rows, "all-pass" or "guard:NAME"), printing them side by side, one column per label.
//! Exit 0 when every report is as expected, 1 on any difference (a report that cannot be read
//! included), 2 when EXPECTED.json cannot be read or an argument is not LABEL=REPORT.json.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use serde_json::Value;

use mrtr_audit::expect::{self, Column, Expected};
use mrtr_audit::{Level, Options, Report, ReportFile, Status, Wire};
use mrtr_native::audit_wire::{HttpWire, StdioWire, Transcript};

#[derive(Parser, Debug)]
#[command(
    name = "mrtr-audit",
    version,
    about = "A report card of an MCP server's requestState (ticket) checks"
)]
struct Args {
    /// The caller's bearer token (HTTP). Without it, requests carry no Authorization.
    #[arg(long)]
    token: Option<String>,
    /// Another caller's bearer token, to try stealing the ticket (HTTP).
    #[arg(long)]
    other_token: Option<String>,
    /// The tool to audit; by default the first that answers with input_required and a ticket.
    #[arg(long)]
    tool: Option<String>,
    /// The tool's arguments, as JSON; by default made up from its input schema.
    #[arg(long)]
    args: Option<String>,
    /// The server claims single use: run the repeat, laundering and racing rows.
    #[arg(long)]
    expect_single_use: bool,
    /// How to restart the server (HTTP; a shell command that returns once the old process has
    /// stopped): the memory-loss row restarts it between two redemptions of one ticket. A
    /// stdio server is restarted by starting its command again.
    #[arg(long, value_name = "COMMAND", conflicts_with = "command")]
    restart: Option<String>,
    /// Test expiry by waiting this long (longer than the server's ticket lifetime).
    #[arg(long, value_name = "SECONDS")]
    ttl_wait: Option<u64>,
    /// Print the report as JSON (schema mrtr-audit/1) instead of a table (with --expect, the
    /// comparison: schema mrtr-audit-expect/1).
    #[arg(long)]
    json: bool,
    /// Write every exchange to DIR/transcript.jsonl.
    #[arg(long, value_name = "DIR")]
    transcript: Option<PathBuf>,
    /// Give up on a request after this long (at most 3600).
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    timeout: u64,
    /// The capabilities each request declares, as JSON.
    #[arg(
        long,
        default_value = r#"{"elicitation":{"form":{}},"sampling":{},"roots":{}}"#
    )]
    caps: String,
    /// Audit nothing: compare `--json` reports with what FILE expects of each label, side by
    /// side (exit 1 on any difference).
    #[arg(
        long,
        num_args = 2..,
        value_names = ["FILE", "LABEL=REPORT"],
        conflicts_with_all = [
            "url", "command", "token", "other_token", "tool", "args",
            "expect_single_use", "ttl_wait", "transcript", "restart",
        ]
    )]
    expect: Vec<String>,
    /// The server's MCP endpoint, http://HOST:PORT/PATH.
    #[arg(required_unless_present_any = ["command", "expect"], conflicts_with = "command")]
    url: Option<String>,
    /// Or, after --, a stdio server to run: CMD ARGS…
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

fn main() {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("mrtr-audit: {e}");
            std::process::exit(2);
        }
    }
}

fn parse_json(what: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("{what} is not valid JSON: {e}"))
}

fn run(args: &Args) -> Result<bool, String> {
    if let [file, reports @ ..] = args.expect.as_slice() {
        return compare(file, reports, args.json);
    }
    let opts = Options {
        tool: args.tool.clone(),
        arguments: args
            .args
            .as_deref()
            .map(|a| parse_json("--args", a))
            .transpose()?,
        capabilities: parse_json("--caps", &args.caps)?,
        expect_single_use: args.expect_single_use,
        ttl_wait_s: args.ttl_wait,
    };
    if opts.arguments.as_ref().is_some_and(|a| !a.is_object()) {
        return Err("--args must be a JSON object".into());
    }
    let transcript = args
        .transcript
        .as_deref()
        .map(Transcript::create)
        .transpose()?;
    if args.timeout > mrtr_native::MAX_WAIT_S {
        return Err(format!(
            "--timeout {}: a request's timeout is at most {} seconds (an hour)",
            args.timeout,
            mrtr_native::MAX_WAIT_S
        ));
    }
    let timeout = Duration::from_secs(args.timeout.max(1));
    let target = match &args.url {
        Some(u) if u.starts_with("http://") || u.starts_with("https://") => u.clone(),
        Some(u) => {
            return Err(format!(
                "{u:?} is not an http:// URL (a stdio server goes after --)"
            ))
        }
        None => args.command.join(" "),
    };
    let mut wire: Box<dyn Wire> = if let Some(url) = &args.url {
        Box::new(
            HttpWire::new(
                url,
                args.token.clone(),
                args.other_token.clone(),
                timeout,
                transcript,
            )
            .restarting_with(args.restart.clone()),
        )
    } else {
        if args.token.is_some() || args.other_token.is_some() {
            eprintln!("mrtr-audit: --token and --other-token apply to HTTP; a stdio server has one principal");
        }
        Box::new(StdioWire::spawn(&args.command, timeout, transcript)?)
    };
    eprintln!(
        "mrtr-audit: {} rows against {target}; at most {} requests, each given {} s",
        mrtr_audit::ROWS.len(),
        mrtr_audit::max_requests(),
        timeout.as_secs()
    );
    let report = mrtr_audit::audit(wire.as_mut(), &opts, &mut |line| {
        eprintln!("mrtr-audit: {line}")
    })
    .map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    let printed = if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report.to_json(&target)).unwrap_or_default()
        )
    } else {
        write!(out, "{}", table(&report, &target))
    };
    printed.map_err(|e| format!("writing the report: {e}"))?;
    Ok(report.ok())
}

/// `--expect FILE LABEL=REPORT…`: each report beside what FILE expects of its label. True when
/// all are as expected; an error only for FILE or an argument that is not LABEL=REPORT.
fn compare(file: &str, reports: &[String], json: bool) -> Result<bool, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("--expect {file}: {e}"))?;
    let expected = Expected::parse(&text).map_err(|e| format!("--expect {file}: {e}"))?;
    let columns = reports
        .iter()
        .map(|spec| {
            let (label, path) = spec
                .split_once('=')
                .filter(|(l, p)| !l.is_empty() && !p.is_empty())
                .ok_or_else(|| format!("--expect: {spec:?} is not LABEL=REPORT.json"))?;
            let report = std::fs::read_to_string(path)
                .map_err(|e| format!("{path}: {e}"))
                .and_then(|t| ReportFile::parse(&t).map_err(|e| format!("{path}: {e}")));
            Ok(Column {
                label: label.to_owned(),
                report,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let c = expect::compare(&expected, columns);
    let mut out = std::io::stdout().lock();
    let printed = if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&c.to_json()).unwrap_or_default()
        )
    } else {
        write!(out, "{}", c.table())
    };
    printed.map_err(|e| format!("writing the comparison: {e}"))?;
    Ok(c.ok())
}

/// The report for people: a line per row (symbol and word, never colour alone), the
/// evidence under it, and the verdict.
fn table(r: &Report, target: &str) -> String {
    let mut s = format!(
        "mrtr-audit of {target}, tool {} {}: {} rows, {} requests\n\n",
        r.tool,
        r.arguments,
        r.rows.len(),
        r.requests
    );
    // The id column as wide as the longest id of the audit's rows.
    let w = mrtr_audit::ROWS
        .iter()
        .map(|x| x.id.len())
        .max()
        .unwrap_or(0);
    for row in &r.rows {
        let (sym, word) = (row.status.symbol(), row.status.tag());
        s.push_str(&format!(
            "  {sym} {word:<5} {:<w$} {:<12} {}\n          {}\n",
            row.row.id,
            row.row.level.id(),
            row.row.title,
            row.evidence
        ));
    }
    s.push_str(&format!(
        "\nverdict: {} — {} passed, {} failed, {} skipped",
        if r.ok() { "PASS" } else { "FAIL" },
        r.count(Status::Pass),
        r.count(Status::Fail),
        r.count(Status::Skipped)
    ));
    // The failed rows by level, as the report defines them: MUST and SHOULD count.
    for level in Level::ALL {
        let ids: Vec<&str> = r
            .rows
            .iter()
            .filter(|x| x.status == Status::Fail && x.row.level == level)
            .map(|x| x.row.id)
            .collect();
        if !ids.is_empty() {
            let counted = if level.required() {
                ""
            } else {
                " (not counted)"
            };
            s.push_str(&format!(
                "; {} rows failed{counted}: {}",
                level.id(),
                ids.join(", ")
            ));
        }
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use mrtr_audit::{Report, RowResult, Status, ROWS};

    #[test]
    fn the_verdict_line_names_failed_rows_by_level() {
        let fail = ["other-token", "no-token", "padding"];
        let report = Report {
            tool: "deploy".into(),
            arguments: serde_json::json!({"env": "staging"}),
            rows: ROWS
                .iter()
                .map(|row| RowResult {
                    row,
                    status: if fail.contains(&row.id) {
                        Status::Fail
                    } else {
                        Status::Pass
                    },
                    evidence: String::new(),
                    sent: None,
                    got: None,
                    requests: 1,
                })
                .collect(),
            requests: ROWS.len(),
        };
        let table = super::table(&report, "http://127.0.0.1:3000/mcp");
        let verdict = table.lines().last().unwrap();
        assert_eq!(
            verdict,
            format!(
                "verdict: FAIL — {} passed, 3 failed, 0 skipped; SHOULD rows failed: other-token, no-token; recommended rows failed (not counted): padding",
                ROWS.len() - 3
            )
        );
        assert!(!table.contains("required"), "{table}");
    }

    /// The commands the page's "Audit your server" section prints, as a reader would type them.
    fn page_commands() -> Vec<String> {
        let page = include_str!("../../../../index.html");
        let start = page
            .find(r#"data-testid="audit-commands">"#)
            .expect("the page prints the audit's commands");
        let block = &page[start..];
        let block = &block[block.find('>').unwrap() + 1..block.find("</pre>").unwrap()];
        block
            .lines()
            .filter(|l| !l.contains(r#"class="comment""#))
            // Each argument is wrapped for the page's line breaking (never inside one).
            .map(|l| {
                l.replace(r#"<span class="arg">"#, "")
                    .replace("</span>", "")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&")
            })
            .collect()
    }

    #[test]
    fn the_pages_commands_install_this_binary_and_parse() {
        use clap::Parser;
        let commands = page_commands();
        assert_eq!(
            commands[0],
            "cargo install --locked --path crates/mrtr-native --bin mrtr-audit"
        );
        let runs: Vec<&String> = commands
            .iter()
            .filter(|c| c.starts_with("mrtr-audit "))
            .collect();
        assert_eq!(runs.len(), 2, "{commands:?}");
        for run in runs {
            // The shell's redirection is not an argument.
            let argv: Vec<&str> = run
                .split(" > ")
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            let args = super::Args::try_parse_from(&argv).unwrap_or_else(|e| panic!("{run}: {e}"));
            assert!(args.json, "{run}: the page reads --json reports");
            if args.url.is_some() {
                assert_eq!(args.token.as_deref(), Some("bob-token"));
                assert_eq!(args.other_token.as_deref(), Some("alice-token"));
            } else {
                assert!(!args.command.is_empty(), "{run}");
            }
        }
    }

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Args::command().debug_assert();
    }
}
