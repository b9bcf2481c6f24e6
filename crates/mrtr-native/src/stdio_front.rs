//! Newline-delimited JSON-RPC on stdin/stdout; logs on stderr. Serves both eras on one
//! connection and never exits on bad input, only at end of input.

use std::io::{BufRead, Write};

use mrtr_core::legacy::Connection;
use mrtr_core::{CallContext, Principal, Server};

use crate::os::{OsEntropy, SystemClock};

/// Serves until `input` ends.
pub fn serve(
    server: &mut Server,
    input: impl BufRead,
    mut output: impl Write,
    principal: &Principal,
    log_checks: bool,
) -> std::io::Result<()> {
    let mut conn = Connection::new();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let mut entropy = OsEntropy;
        let delivery = conn.receive_text(
            server,
            &line,
            &mut CallContext {
                principal,
                clock: &SystemClock,
                entropy: &mut entropy,
            },
        );
        if log_checks {
            for e in &delivery.trace {
                eprintln!("[mrtr-server] {}", crate::describe(e));
            }
        }
        for msg in delivery.outgoing {
            writeln!(output, "{msg}")?;
        }
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn serves_both_eras_and_survives_garbage() {
        let mut server = crate::ServerOptions {
            ttl_s: 120,
            single_use: false,
            seal: Default::default(),
            secret: vec![1; 32],
            log_checks: false,
        }
        .build()
        .unwrap();
        let input = [
            "not json",
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"staging"}}}"#,
            r#"{"jsonrpc":"2.0","id":"mrtr-shim-1","result":{"action":"accept","content":{"confirm":true}}}"#,
        ]
        .join("\n");
        let mut out = Vec::new();
        serve(
            &mut server,
            input.as_bytes(),
            &mut out,
            &Principal::user("me"),
            false,
        )
        .unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["error"]["code"], -32700);
        assert_eq!(
            lines[1]["result"]["supportedVersions"],
            json!(["2026-07-28"])
        );
        assert_eq!(lines[2]["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(lines[3]["method"], "elicitation/create");
        assert_eq!(
            lines[4]["result"]["content"][0]["text"],
            "deployed to staging"
        );
    }
}
