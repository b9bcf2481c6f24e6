//! "Read the code": the deploy handler in the TypeScript SDK, the Python SDK, the Rust SDK
//! (rmcp) and the lab's own Rust, embedded at build time from the very files `make interop`
//! runs or builds (and, for the lab's, the core's own source), and which of their lines run
//! at each step of the round trip.
//!
//! Marks are found by text, not by line number: each names the first line it covers (and
//! the last, searched from there). If a file changes so that a mark no longer finds its
//! lines, the mark is dropped on the page and a test here fails.

use mrtr_core::checks::Check;
use mrtr_core::error::INVALID_PARAMS;
use mrtr_core::ticket::Seal;
use mrtr_world::checks::{CheckWords, SealWords};

pub use super::lang::{Lang, RMCP_SERVER};

/// A piece of source shown: a whole file, or one function of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The file's path in the repository.
    pub path: &'static str,
    /// The line number, in the file, of the listing's first line.
    pub first_line: usize,
    /// The listing's source text.
    pub text: &'static str,
    /// What the listing is, in a few words.
    pub caption: &'static str,
    /// Shown folded, to be opened on demand (a second listing the notes quote from).
    pub folded: bool,
}

impl Listing {
    /// The number of lines shown.
    pub fn len(&self) -> usize {
        self.text.lines().count()
    }

    /// True when the listing has no text.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The line number, in the file, of the listing's last line.
    pub fn last_line(&self) -> usize {
        self.first_line + self.len().saturating_sub(1)
    }
}

/// The TypeScript SDK's example server, as shown.
pub const TS_SERVER: &str = include_str!("../../../interop/ts_server.mjs");
/// The TypeScript example hardened: the caller and the request bound into the ticket.
pub const TS_SERVER_HARDENED: &str = include_str!("../../../interop/ts_server_hardened.mjs");
/// The Python SDK's example server, as shown.
pub const PY_SERVER: &str = include_str!("../../../interop/py_server.py");
// The two functions of the core the lab's tab shows, and the rmcp peer's deploy tool, its
// handler and its sealer, cut at build time (build.rs).
include!(concat!(env!("OUT_DIR"), "/code_excerpts.rs"));

/// What the widget shows for a language, in order.
pub fn listings(lang: Lang) -> Vec<Listing> {
    match lang {
        Lang::TypeScript => vec![
            Listing {
                path: "interop/ts_server.mjs",
                first_line: 1,
                text: TS_SERVER,
                caption: "the whole file, as make interop runs it",
                folded: false,
            },
            Listing {
                path: "interop/ts_server_hardened.mjs",
                first_line: 1,
                text: TS_SERVER_HARDENED,
                caption: "the same server, hardened with the codec's bind hook; make interop audits it too",
                folded: true,
            },
        ],
        Lang::Python => vec![Listing {
            path: "interop/py_server.py",
            first_line: 1,
            text: PY_SERVER,
            caption: "the whole file, as make interop runs it",
            folded: false,
        }],
        Lang::Rmcp => [
            (RMCP_TOOL, "the deploy tool: rmcp's router calls it with the call's parts", false),
            (RMCP_HANDLER, "the handler behind it (rollback shares it)", false),
            (RMCP_SEALER, "the sealer: the handler's calls to rmcp's codec, at each --bind level", true),
        ]
        .into_iter()
        .map(|((first_line, text), caption, folded)| Listing {
            path: RMCP_SERVER,
            first_line,
            text,
            caption,
            folded,
        })
        .collect(),
        Lang::Rust => {
            let (first_line, text) = RUST_DEPLOY;
            let (check_line, checks) = RUST_VERIFY;
            vec![
                Listing {
                    path: "crates/mrtr-core/src/fixtures.rs",
                    first_line,
                    text,
                    caption: "the deploy handler, the one this page and mrtr-server run",
                    folded: false,
                },
                Listing {
                    path: "crates/mrtr-core/src/checks.rs",
                    first_line: check_line,
                    text: checks,
                    caption: "the checks the core runs before the handler sees the state, in order",
                    folded: true,
                },
            ]
        }
    }
}

/// Where the round trip is, as far as the server's code is concerned: the world reads it off
/// the trace's events ([`mrtr_world::Trace::server_phase`]); here, only its words.
pub use mrtr_world::ServerPhase;

/// The server's code at a phase, in the page's words.
pub trait PhaseWords {
    /// What happens in the server's code, in a sentence, for `lang` (an SDK, or the lab's core
    /// protecting its tickets with `seal`).
    fn summary(self, lang: Lang, seal: Seal) -> String;
}

impl PhaseWords for ServerPhase {
    fn summary(self, lang: Lang, seal: Seal) -> String {
        if lang == Lang::Rmcp {
            return rmcp_summary(self);
        }
        let lib = if lang == Lang::Rust { "core" } else { "SDK" };
        let verb = lang.ticket_seal(seal).verb();
        match self {
            ServerPhase::FirstCall => format!("The first call reaches a replica. The {lib} hands it to the deploy handler, with no ticket and no answer yet."),
            ServerPhase::Asked => format!("The handler cannot finish without bob, so it returns his question and its work so far; the {lib} {verb} that work into the ticket. Then the handler is done, and the replica keeps nothing."),
            ServerPhase::Away => "No server code runs at this step: the question, the answer and the ticket are with the host, the client or the load balancer.".to_owned(),
            ServerPhase::Retry => format!("The retry reaches a replica. The {lib} checks the ticket first; only then does the handler run again, now with the work from the ticket and bob's answer."),
            ServerPhase::Refused => format!("The retry reaches a replica, and a check on the ticket fails. The {lib} answers with an error; the handler never runs."),
        }
    }
}

/// rmcp's steps: it hands the handler the ticket as sent, and the handler calls the codec
/// both to make a ticket and to check one.
fn rmcp_summary(phase: ServerPhase) -> String {
    match phase {
        ServerPhase::FirstCall => "The first call reaches a replica. rmcp's router hands it to the deploy tool, with no ticket and no answer yet.",
        ServerPhase::Asked => "The handler cannot finish without bob, so it returns his question and a ticket holding its work so far. rmcp does not make the ticket: the handler calls rmcp's codec, which signs the work into it. Then the handler is done, and the replica keeps nothing.",
        ServerPhase::Away => "No server code runs at this step: the question, the answer and the ticket are with the host, the client or the load balancer.",
        ServerPhase::Retry => "The retry reaches a replica. rmcp hands the ticket to the handler as it came, unopened; the handler has the codec check it before it reads the state, then finishes with the work from the ticket and bob's answer.",
        ServerPhase::Refused => "The retry reaches a replica, and the codec refuses the ticket the handler hands it. The handler returns an error before it reads the state; nothing is deployed.",
    }
    .to_owned()
}

/// Whether marked lines run the handler's own code or a check on the ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// The handler's own code runs.
    Runs,
    /// A check on the ticket runs.
    Checks,
}

/// Lines to mark, found by text: the first line containing `from`, to the first line at or
/// after it containing `to`.
struct MarkSpec {
    listing: usize,
    from: &'static str,
    to: &'static str,
    kind: MarkKind,
    note: String,
}

fn spec(
    listing: usize,
    from: &'static str,
    to: &'static str,
    kind: MarkKind,
    note: &str,
) -> MarkSpec {
    MarkSpec {
        listing,
        from,
        to,
        kind,
        note: note.to_owned(),
    }
}

/// Marked lines: numbers are the file's own (as shown in the gutter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Which listing the lines are in (an index into the language's listings).
    pub listing: usize,
    /// The first marked line (the file's numbering).
    pub first: usize,
    /// The last marked line (the file's numbering).
    pub last: usize,
    /// Whether the lines run the handler or a check.
    pub kind: MarkKind,
    /// What the marked lines do at this step, in a sentence.
    pub note: String,
}

impl Mark {
    /// True when line `line` (the file's numbering) of listing `listing` is marked.
    pub fn covers(&self, listing: usize, line: usize) -> bool {
        self.listing == listing && (self.first..=self.last).contains(&line)
    }

    /// "line 16" or "lines 19–22".
    pub fn lines_text(&self) -> String {
        if self.first == self.last {
            format!("line {}", self.first)
        } else {
            format!("lines {}–{}", self.first, self.last)
        }
    }
}

use MarkKind::{Checks, Runs};

/// What each line that runs does, by language and phase of the round trip.
// Over 80 lines on purpose: a table, one arm per language and phase, its notes read together
// beside the listings; each arm is a list of the lines marked, nothing else.
fn specs(lang: Lang, phase: ServerPhase, seal: Seal) -> Vec<MarkSpec> {
    let engine = format!("It asks for confirm and hands {{ env, release }} to the engine, which {} it into the ticket with the caller, a digest of the request and an expiry.", seal.verb());
    match (lang, phase) {
        (_, ServerPhase::Away) => Vec::new(),
        (Lang::TypeScript, ServerPhase::FirstCall) => vec![
            spec(0, "server.registerTool('deploy'", "async ({ env }, ctx)", Runs, "The SDK routes tools/call deploy here, with the arguments checked against the tool's schema."),
            spec(0, "const state = ctx.mcpReq.requestState();", "if (!state || ok?.confirm !== true)", Runs, "No ticket and no answer came with the first call, so the handler takes the branch that asks."),
        ],
        (Lang::TypeScript, ServerPhase::Asked) => vec![
            spec(0, "return inputRequired({", "});", Runs, "It returns input_required: the question under inputRequests, and { env } minted into the ticket."),
            spec(0, "const codec = createRequestStateCodec(", "const codec = createRequestStateCodec(", Runs, "mint signs the payload with this key (HMAC-SHA256) and stamps an expiry ttlSeconds ahead. The payload stays readable: signed, not encrypted."),
        ],
        (Lang::TypeScript, ServerPhase::Retry) => vec![
            spec(0, "requestState: { verify: codec.verify }", "requestState: { verify: codec.verify }", Checks, &audited(lang, 0, "Before the handler runs, the SDK calls verify on the returned ticket; a ticket verify refuses never reaches the handler.")),
            spec(0, "const state = ctx.mcpReq.requestState();", "const ok = acceptedContent(", Runs, "The handler gets the verified payload back, and reads bob's answer from inputResponses."),
            spec(0, "return { content: [", "return { content: [", Runs, "Both are there: it deploys to the env read out of the ticket."),
            spec(1, "bind: (ctx) => {", "},", Checks, &audited(lang, 1, "In the hardened server, verify also recomputes bind for the retry, the caller and the request, and refuses the ticket if it differs from the one minted.")),
        ],
        (Lang::TypeScript, ServerPhase::Refused) => vec![
            spec(0, "requestState: { verify: codec.verify }", "requestState: { verify: codec.verify }", Checks, "verify throws on this ticket, so the SDK answers -32602 and the handler below never runs."),
            spec(1, "bind: (ctx) => {", "},", Checks, "The hardened server's verify refuses it the same way, and also another caller's ticket or a retry with other arguments."),
        ],
        (Lang::Python, ServerPhase::FirstCall) => vec![
            spec(0, "@mcp.tool()", "async def deploy(", Runs, "The SDK routes tools/call deploy here, with the arguments checked against the function's signature."),
            spec(0, "answer = (ctx.input_responses", "if state and isinstance(", Runs, "No ticket and no answer came with the first call, so the condition fails and the handler goes on to ask."),
        ],
        (Lang::Python, ServerPhase::Asked) => vec![
            spec(0, "return types.InputRequiredResult(", "request_state=json.dumps(", Runs, "It returns input_required: the question under input_requests, and its work as a JSON string."),
            spec(0, "mcp = MCPServer(", "mcp = MCPServer(", Runs, "RequestStateSecurity: the SDK seals that string with these keys (AES-GCM, so the client cannot read it) and gives it this lifetime."),
        ],
        (Lang::Python, ServerPhase::Retry) => vec![
            spec(0, "mcp = MCPServer(", "mcp = MCPServer(", Checks, &audited(lang, 0, "Before the handler runs, the SDK opens the sealed ticket with its keys; a ticket that does not open never reaches the handler.")),
            spec(0, "answer = (ctx.input_responses", "if state and isinstance(", Runs, "The handler reads bob's answer and the opened state."),
            spec(0, "return types.CallToolResult(", "return types.CallToolResult(", Runs, "Both are there: it deploys to the env read out of the ticket."),
        ],
        (Lang::Python, ServerPhase::Refused) => vec![
            spec(0, "mcp = MCPServer(", "mcp = MCPServer(", Checks, "The ticket does not open with these keys, so the SDK answers -32602 and the handler below never runs."),
        ],
        (Lang::Rmcp, ServerPhase::FirstCall) => vec![
            spec(0, "#[tool(description", "self.confirm_then(", Runs, "rmcp's router routes tools/call deploy here, with the arguments parsed into EnvArgs, and the ticket (RequestState) and the answers as they came. The first call has neither."),
            spec(1, "if s.bind == Bind::Full && !can(ctx).form", "return Err(missing_capability(", Runs, "rmcp does not check that what a handler asks for is something the client declared it can answer. At --bind full the handler checks, and refuses (-32021) a client that declared no forms."),
            spec(1, "let Some(ticket) = ticket else {", "let Some(ticket) = ticket else {", Runs, "No ticket came with the first call: on to asking."),
        ],
        (Lang::Rmcp, ServerPhase::Asked) => vec![
            spec(1, "let t = s.mint(&call, json!({\"env\": args.env}), None)?;", "return Ok(asking(", Runs, "It has the sealer make a ticket of { env } for this call, and returns input_required: the confirm question under inputRequests, and the ticket."),
            spec(2, "Bind::None => self.codec.seal_json(&state),", "Bind::None => self.codec.seal_json(&state),", Runs, "--bind none, as rmcp's own MRTR example: seal_json signs the state alone (the ticket stays readable, whatever the name says). No associated data, so nothing ties the ticket to a caller or a call; no ttl, so it never expires."),
            spec(2, "Bind::Docs => self.codec.seal_json_with(", ".ttl(self.ttl)", Runs, "--bind docs, as the codec's documentation: associated data naming the caller and the tool (joined with |, in associated_data above), and a ttl. The arguments are not in it."),
            spec(2, "let (grant, until_ms) = match carry", ".ttl(Duration::from_millis(left))", Runs, "--bind full, the lab's hardening: associated data of the caller, the tool and a digest of the arguments, each length-prefixed; a grant id; and a ttl of what is left of the first ticket's deadline, so asking again never extends it."),
        ],
        (Lang::Rmcp, ServerPhase::Retry) => vec![
            spec(1, "let Some(ticket) = ticket else {", "let Some(ticket) = ticket else {", Runs, "This time a ticket came. rmcp passed it to the tool as it came: nothing has opened it yet."),
            spec(1, "let opened = s.open(&call, &ticket)?;", "let opened = s.open(&call, &ticket)?;", Checks, "The handler has the sealer open the ticket for this call before it reads the state: rmcp never opens one by itself."),
            spec(2, ".open_json::<Value>(ticket)", ".map_err(", Checks, &audited(lang, 0, "--bind none: open_json checks the signature alone.")),
            spec(2, ".open_json_with::<Value>(ticket, &ad)", ".map_err(", Checks, &audited(lang, 1, "--bind docs: open_json_with also checks the associated data, the caller and the tool, computed again for this call.")),
            spec(2, ".open_json_with(ticket, &ad)", "return Err(refused(\"grant already redeemed\"));", Checks, &audited(lang, 2, "--bind full: the same with the digest of this call's arguments, and a grant this process has already taken is refused, until it restarts: the list is in its memory, and the key outlives it.")),
            spec(1, "let env = opened", ".to_owned();", Runs, "Nothing refused it: the handler reads env out of the opened state, not the arguments."),
            spec(1, "Some(Value::Bool(true)) => {", "Ok(text(format!(\"{done} {env}\")))", Runs, "bob said yes. At --bind full the sealer spends the grant first (of two retries racing, one wins); then it deploys to the env read out of the ticket."),
        ],
        (Lang::Rmcp, ServerPhase::Refused) => vec![
            spec(1, "let opened = s.open(&call, &ticket)?;", "let opened = s.open(&call, &ticket)?;", Checks, "The sealer refuses the ticket, and the ? returns -32602, the one error this server gives for any refused ticket. Nothing below runs: nothing is deployed."),
            spec(2, "fn open(", "fn open(", Checks, "At every --bind level the codec refuses a ticket whose JSON was edited: the signature no longer matches."),
        ],
        (Lang::Rust, ServerPhase::FirstCall) => vec![
            spec(0, "pub fn deploy(", "let Some(env) = inv.arguments", Runs, "The engine calls the handler with the call's arguments."),
            spec(0, "if let Some(state) = inv.state", "if let Some(state) = inv.state", Runs, "No ticket came with the first call, so there is no state: on to asking."),
        ],
        (Lang::Rust, ServerPhase::Asked) => vec![
            spec(0, "let mut release = LATEST_RELEASE;", "let mut release = LATEST_RELEASE;", Runs, "It works out which release to deploy: the newest build. The retry will not send this; only the ticket will carry it."),
            spec(0, "Outcome::ask(", "Some(json!({\"env\": env, \"release\": release}))", Runs, &engine),
        ],
        (Lang::Rust, ServerPhase::Retry | ServerPhase::Refused) => {
            let mut v = check_specs(phase == ServerPhase::Refused, seal);
            if phase == ServerPhase::Retry {
                v.push(spec(0, "if let Some(state) = inv.state", ".unwrap_or(release);", Runs, "No check refused the ticket: the handler gets the state. env and the release bob confirmed come from the ticket, not the arguments."));
                v.push(spec(0, "Outcome::text(format!(\"deployed to {env}, release {release}\"))", "Outcome::text(format!(\"deployed to {env}, release {release}\"))", Runs, "bob said yes: it deploys that release."));
            }
            v
        }
    }
}

/// A note on an SDK's check: how it works, in `how` (which claims no protection the audit
/// does not credit the SDK with), then what the audit found of the server in `column` of
/// the SDK table, in the table's words: the note can never say more or less than the table.
fn audited(lang: Lang, column: usize, how: &str) -> String {
    match super::sdk_table::column_words(lang, column) {
        Some(words) => format!("{how} {words}"),
        None => how.to_owned(),
    }
}

/// The core's checks in `verify`, one mark each, in the order they run.
fn check_specs(refused: bool, seal: Seal) -> Vec<MarkSpec> {
    let lines: [(Check, &'static str); 6] = [
        (Check::Signature, "let (signature, claims) = open_ticket("),
        (Check::Principal, "Check::Principal,"),
        (Check::Expiry, "Check::Expiry,"),
        (Check::Request, "Check::Request,"),
        (Check::Answer, "let answer = answer_status("),
        (Check::SingleUse, "v.record(Check::SingleUse,"),
    ];
    let mut v: Vec<MarkSpec> = lines
        .iter()
        .enumerate()
        .map(|(i, (c, anchor))| MarkSpec {
            listing: 1,
            from: anchor,
            to: anchor,
            kind: Checks,
            note: format!("Check {}, {}: {}", i + 1, c.short(), c.question(seal)),
        })
        .collect();
    if refused {
        let note = format!("The verdict has a failed check, so the engine answers {INVALID_PARAMS} and the handler never runs.");
        v.push(spec(1, "pub fn verify(", "pub fn verify(", Checks, &note));
    }
    v
}

/// The first line (from 0) at or after `from` that contains `needle`.
fn find_line(lines: &[&str], from: usize, needle: &str) -> Option<usize> {
    lines
        .iter()
        .enumerate()
        .skip(from)
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i)
}

/// The lines that run at `phase`, with a note each (the lab's core protecting its tickets with
/// `seal`). A mark whose text is not found is left out (a test makes sure none is).
pub fn marks(lang: Lang, phase: ServerPhase, seal: Seal) -> Vec<Mark> {
    let shown = listings(lang);
    specs(lang, phase, seal)
        .into_iter()
        .filter_map(|s| {
            let listing = shown.get(s.listing)?;
            let lines: Vec<&str> = listing.text.lines().collect();
            let first = find_line(&lines, 0, s.from)?;
            let last = find_line(&lines, first, s.to)?;
            Some(Mark {
                listing: s.listing,
                first: listing.first_line + first,
                last: listing.first_line + last,
                kind: s.kind,
                note: s.note,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_audit::Status;

    const PHASES: [ServerPhase; 5] = [
        ServerPhase::FirstCall,
        ServerPhase::Asked,
        ServerPhase::Away,
        ServerPhase::Retry,
        ServerPhase::Refused,
    ];

    #[test]
    fn every_mark_finds_its_lines() {
        for lang in Lang::ALL {
            for phase in PHASES {
                assert_eq!(
                    marks(lang, phase, Seal::Signed).len(),
                    specs(lang, phase, Seal::Signed).len(),
                    "{lang:?} {phase:?}: a mark lost its lines (did the file change?)"
                );
            }
        }
    }

    #[test]
    fn every_server_step_marks_lines_and_no_other_does() {
        for lang in Lang::ALL {
            for phase in PHASES {
                let m = marks(lang, phase, Seal::Signed);
                assert_eq!(
                    m.is_empty(),
                    phase == ServerPhase::Away,
                    "{lang:?} {phase:?}"
                );
                for mark in &m {
                    let l = listings(lang)[mark.listing];
                    assert!(mark.first <= mark.last && mark.last <= l.last_line());
                    assert!(mark.first >= l.first_line);
                }
            }
            // The retry marks a check before any line of the handler's own; but rmcp calls
            // the handler first, which calls the check before it reads the state.
            let retry = marks(lang, ServerPhase::Retry, Seal::Signed);
            let first_check = retry.iter().position(|m| m.kind == MarkKind::Checks);
            let expected = if lang == Lang::Rmcp { 1 } else { 0 };
            assert_eq!(first_check, Some(expected), "{lang:?}");
            assert!(marks(lang, ServerPhase::Refused, Seal::Signed)
                .iter()
                .all(|m| m.kind == MarkKind::Checks));
        }
    }

    #[test]
    fn the_marks_point_at_the_code_they_describe() {
        let ts = marks(Lang::TypeScript, ServerPhase::Asked, Seal::Signed);
        let lines: Vec<&str> = TS_SERVER.lines().collect();
        assert!(lines[ts[0].first - 1].contains("return inputRequired({"));
        assert!(lines[ts[0].last - 1].contains("});"));
        assert!((ts[0].first..=ts[0].last).any(|n| lines[n - 1].contains("codec.mint")));
        let py = marks(Lang::Python, ServerPhase::Retry, Seal::Signed);
        let lines: Vec<&str> = PY_SERVER.lines().collect();
        assert!(lines[py[0].first - 1].contains("RequestStateSecurity"));
    }

    #[test]
    fn the_rust_listings_are_the_real_functions_at_their_real_lines() {
        let l = listings(Lang::Rust);
        for (listing, file) in [
            (
                l[0],
                include_str!("../../../crates/mrtr-core/src/fixtures.rs"),
            ),
            (
                l[1],
                include_str!("../../../crates/mrtr-core/src/checks.rs"),
            ),
        ] {
            let lines: Vec<&str> = file.lines().collect();
            for (i, line) in listing.text.lines().enumerate() {
                assert_eq!(lines[listing.first_line - 1 + i], line);
            }
        }
        assert!(l[0].text.starts_with("/// The lesson's tool."));
        assert!(l[0].text.contains("pub fn deploy(") && l[0].text.ends_with("}\n"));
        assert!(l[1].text.contains("pub fn verify(") && !l[1].text.contains("fn status_of"));
        // The check marks come in the order the core runs the checks.
        let m = marks(Lang::Rust, ServerPhase::Retry, Seal::Signed);
        let firsts: Vec<usize> = m
            .iter()
            .filter(|m| m.listing == 1)
            .map(|m| m.first)
            .collect();
        assert_eq!(firsts.len(), Check::ALL.len());
        assert!(firsts.windows(2).all(|w| w[0] < w[1]), "{firsts:?}");
    }

    #[test]
    fn the_rmcp_listings_are_the_interop_files_own_items_at_their_real_lines() {
        let file: Vec<&str> = include_str!("../../../interop/rmcp/src/bin/rmcp-deploy-server.rs")
            .lines()
            .collect();
        let l = listings(Lang::Rmcp);
        for listing in &l {
            assert_eq!(listing.path, RMCP_SERVER);
            for (i, line) in listing.text.lines().enumerate() {
                assert_eq!(file[listing.first_line - 1 + i], line);
            }
        }
        // The deploy tool with its attribute, the handler with its doc comment, the whole
        // sealer; each ends at its own closing brace, not at the end of the impl around it.
        assert!(l[0].text.starts_with("    #[tool(description = \"Deploy"));
        assert!(l[0]
            .text
            .ends_with("self.confirm_then(&DEPLOY, &args, ticket, &answers, &ctx)\n    }\n"));
        assert!(l[1].text.starts_with("    /// deploy and rollback"));
        assert!(l[1].text.ends_with("\n    }\n") && !l[1].text.contains("fn fixture_call"));
        assert!(l[2].text.starts_with("impl Sealer {") && l[2].text.contains("fn spend("));
        assert!(!l[2].text.contains("fn ask_form"));
        assert_eq!(
            l.iter().map(|l| l.folded).collect::<Vec<_>>(),
            [false, false, true]
        );
        // Each step's marks quote the lines they name: the seal at the ask, the open on the retry.
        let text = |phase| -> Vec<String> {
            marks(Lang::Rmcp, phase, Seal::Signed)
                .iter()
                .map(|m| file[m.first - 1..m.last].join("\n"))
                .collect()
        };
        let asked = text(ServerPhase::Asked);
        assert!(
            asked[1].contains("self.codec.seal_json(&state)"),
            "{asked:?}"
        );
        assert!(
            asked[2].contains(".associated_data(&ad).ttl(self.ttl)"),
            "{asked:?}"
        );
        assert!(
            asked[3].contains("Duration::from_millis(left)"),
            "{asked:?}"
        );
        let retry = text(ServerPhase::Retry);
        assert!(retry[2].contains("open_json::<Value>(ticket)") && retry[2].contains("refused("));
        assert!(retry[3].contains("open_json_with::<Value>(ticket, &ad)"));
        assert!(retry[4].contains("grant already redeemed"));
        assert!(retry[6].contains("s.spend(&opened)?;") && retry[6].contains("{done} {env}"));
    }

    #[test]
    fn the_notes_say_signs_for_signed_tickets_and_seals_only_for_sealed_ones() {
        let asked = |lang, seal| {
            let notes: Vec<String> = marks(lang, ServerPhase::Asked, seal)
                .into_iter()
                .map(|m| m.note)
                .collect();
            format!(
                "{} {}",
                ServerPhase::Asked.summary(lang, seal),
                notes.join(" ")
            )
        };
        // The TypeScript SDK signs (HMAC), whatever the lab's knob says.
        for seal in [Seal::Signed, Seal::Sealed] {
            let ts = asked(Lang::TypeScript, seal);
            assert!(ts.contains("the SDK signs that work"), "{ts}");
            assert!(!ts.contains("seals"), "{ts}");
        }
        // The Python SDK seals (AES-GCM).
        assert!(asked(Lang::Python, Seal::Signed).contains("the SDK seals that work"));
        // rmcp's codec signs, whatever its seal_json is called: its tickets stay readable.
        let rmcp = asked(Lang::Rmcp, Seal::Sealed);
        assert!(
            rmcp.contains("rmcp's codec, which signs the work"),
            "{rmcp}"
        );
        assert!(rmcp.contains("seal_json signs the state alone (the ticket stays readable"));
        // The lab's core does what the knob says.
        let rust = asked(Lang::Rust, Seal::Signed);
        assert!(!rust.contains("seal"), "{rust}");
        assert!(rust.contains("which signs it into the ticket"), "{rust}");
        assert!(asked(Lang::Rust, Seal::Sealed).contains("which seals it into the ticket"));
        // The check marks ask the signature check as the tickets are protected.
        let check = |seal| marks(Lang::Rust, ServerPhase::Retry, seal)[0].note.clone();
        assert_eq!(check(Seal::Signed), "Check 1, Signature: Signature matches");
        assert_eq!(check(Seal::Sealed), "Check 1, Signature: Seal opens");
    }

    /// Words in a note's own text that say the SDK protects something, per protection.
    fn claims(g: mrtr_audit::Guard) -> &'static [&'static str] {
        use mrtr_audit::Guard;
        match g {
            Guard::Check(Check::Signature) => &["signature", "seal", "forge"],
            Guard::Encoding => &["spelling", "decod", "padding", "alphabet"],
            Guard::Check(Check::Principal) => &["caller", "principal", "oauth", "token"],
            Guard::Check(Check::Request) => &["argument", "the request", "other tool"],
            Guard::Check(Check::Expiry) => &["expir", "lifetime", "deadline", "ttl"],
            Guard::Check(Check::SingleUse) => &["single use", "redeem", "twice"],
            _ => &[],
        }
    }

    #[test]
    fn each_sdks_check_notes_say_what_its_table_row_says() {
        use crate::sdk_table::{column_words, guard_name, table, variants, Cell, COLUMN_WORDS};
        for lang in [Lang::TypeScript, Lang::Python, Lang::Rmcp] {
            let rows = table(lang).unwrap();
            let mut quoted = Vec::new();
            for phase in [ServerPhase::Retry, ServerPhase::Refused] {
                for mark in marks(lang, phase, Seal::Signed) {
                    if mark.kind != MarkKind::Checks {
                        continue;
                    }
                    // The column the note quotes; or, if it quotes none, the first server
                    // audited from that very file.
                    let path = listings(lang)[mark.listing].path;
                    let column = (0..variants(lang).len())
                        .find(|c| mark.note.ends_with(&column_words(lang, *c).unwrap()))
                        .or_else(|| variants(lang).iter().position(|v| v.path == path))
                        .unwrap_or_else(|| panic!("{path} is not audited"));
                    let hardened = variants(lang)[column].hardened;
                    let (how, words) = match mark.note.split_once(COLUMN_WORDS) {
                        Some((how, words)) => (how, Some(words)),
                        None => (mark.note.as_str(), None),
                    };
                    // The note's own words claim only what the table credits the SDK with.
                    for e in &rows {
                        for word in claims(e.guard) {
                            if how.to_lowercase().contains(word) {
                                assert_eq!(
                                    e.verdicts[column].cell,
                                    Cell::SdkDoes,
                                    "{lang:?} {phase:?}: {:?} says {word:?}, the table: {}",
                                    mark.note,
                                    e.verdicts[column].cell.word(hardened)
                                );
                            }
                        }
                    }
                    // Where it quotes the audit, every protection is under its table word.
                    let Some(words) = words else { continue };
                    quoted.push(column);
                    let said: Vec<(String, String)> = words
                        .trim_end_matches('.')
                        .split("; ")
                        .flat_map(|group| {
                            let (word, names) = group.split_once(": ").unwrap();
                            names
                                .split(", ")
                                .map(move |n| (n.to_owned(), word.to_owned()))
                        })
                        .collect();
                    assert_eq!(said.len(), rows.len(), "{words}");
                    for e in &rows {
                        let v = &e.verdicts[column];
                        let mixed = v.evidence.iter().any(|(_, x)| *x == Some(Status::Pass))
                            && v.evidence.iter().any(|(_, x)| *x == Some(Status::Fail));
                        let name = format!(
                            "{}{}",
                            guard_name(e.guard),
                            if mixed { " (in part)" } else { "" }
                        );
                        let word = said.iter().find(|(n, _)| *n == name).map(|(_, w)| w);
                        assert_eq!(
                            word.map(String::as_str),
                            Some(v.cell.word(hardened)),
                            "{lang:?} {path}: {name} in {words}"
                        );
                    }
                }
            }
            // Each audited server's retry check quotes its column, once.
            let columns: Vec<usize> = (0..variants(lang).len()).collect();
            assert_eq!(quoted, columns, "{lang:?}");
        }
        // The Python retry credits the SDK with the request check, as its table row does.
        let py = &marks(Lang::Python, ServerPhase::Retry, Seal::Signed)[0].note;
        assert!(
            py.contains("the SDK does it: Signature, One spelling per ticket, Request;"),
            "{py}"
        );
        assert!(
            py.contains("left to you: Principal, Expiry (in part)"),
            "{py}"
        );
    }

    #[test]
    fn langs_round_trip_through_their_ids() {
        for l in Lang::ALL {
            assert_eq!(Lang::from_id(l.id()), Some(l));
        }
        assert_eq!(Lang::from_id("go"), None);
    }
}
