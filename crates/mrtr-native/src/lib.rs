//! Native fronts for the MRTR Lab core: the real clock and randomness, a Streamable HTTP
//! server (axum), a stdio server, and the transports `mrtr-client` uses.

pub mod headers;
pub mod http_front;
pub mod os;
pub mod stdio_front;
pub mod transport;

use mrtr_core::checks::CheckPolicy;
use mrtr_core::ticket::{Codec, Key, Keyring, Seal};
use mrtr_core::{Server, ServerConfig, TraceEvent};

/// Server settings shared by both fronts.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    pub ttl_s: u64,
    pub single_use: bool,
    pub seal: Seal,
    /// The shared secret; replicas with the same one accept each other's tickets.
    pub secret: Vec<u8>,
    pub log_checks: bool,
}

impl ServerOptions {
    pub fn build(&self) -> Result<Server, String> {
        let key = Key::new("k1", &self.secret).map_err(|e| e.to_string())?;
        let config = ServerConfig {
            ttl_s: self.ttl_s,
            policy: CheckPolicy {
                single_use: self.single_use,
                ..CheckPolicy::default()
            },
            ..ServerConfig::default()
        };
        Ok(Server::new(
            config,
            Codec::new(Keyring::new(key), self.seal),
            mrtr_core::fixtures::full_catalog(),
        ))
    }
}

/// Reads a key given as hex; at least 32 bytes.
pub fn parse_key_hex(hex_text: &str) -> Result<Vec<u8>, String> {
    let bytes = hex::decode(hex_text.trim()).map_err(|e| format!("the key is not hex: {e}"))?;
    if bytes.len() < mrtr_core::ticket::MIN_KEY_LEN {
        return Err(format!(
            "the key has {} bytes; it needs at least {}",
            bytes.len(),
            mrtr_core::ticket::MIN_KEY_LEN
        ));
    }
    Ok(bytes)
}

/// One line per trace event, for `--log-checks` on stderr.
pub fn describe(event: &TraceEvent) -> String {
    match event {
        TraceEvent::TicketChecked { verdict, .. } => {
            let parts: Vec<String> = verdict
                .outcomes
                .iter()
                .map(|o| match &o.status {
                    mrtr_core::Status::Failed(r) => {
                        format!("{} {} ({r})", o.check.id(), o.status.word())
                    }
                    s => format!("{} {}", o.check.id(), s.word()),
                })
                .collect();
            format!("checks {}: {}", verdict.symbols(), parts.join(", "))
        }
        TraceEvent::TicketMinted { claims, .. } => format!(
            "minted ticket {} for {} {} (sub {}, exp {})",
            claims.tid,
            claims.method,
            claims.target,
            claims.sub.as_deref().unwrap_or("anonymous"),
            claims.exp
        ),
        TraceEvent::Asked { keys } => format!("asked for {}", keys.join(", ")),
        TraceEvent::Completed => "completed".into(),
        TraceEvent::Refused { error, detail } => format!("refused {}: {detail}", error.code),
        TraceEvent::Notified(n) => format!(
            "sent {}",
            n.get("method")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("a notification")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_hex_and_long_enough() {
        assert_eq!(parse_key_hex(&"ab".repeat(32)).unwrap().len(), 32);
        assert!(parse_key_hex("abcd").unwrap_err().contains("at least 32"));
        assert!(parse_key_hex("zz").unwrap_err().contains("not hex"));
    }
}
