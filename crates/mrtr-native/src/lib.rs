//! Native fronts for the MRTR Lab core: the real clock and randomness, a Streamable HTTP
//! server (axum), a stdio server, and the transports `mrtr-client` uses.

pub mod audit_wire;
pub mod cors;
/// The header rules both ends share, from the core (the page uses them too).
pub use mrtr_core::headers;
pub mod etcd_store;
pub mod http_front;
pub mod lines;
pub mod os;
pub mod redis_store;
pub mod stdio_front;
pub mod transport;

use mrtr_core::checks::{Check, CheckPolicy};
use mrtr_core::redemption::MemoryStore;

use std::sync::Arc;

use crate::etcd_store::EtcdStore;
use crate::redis_store::RedisStore;
use mrtr_core::ticket::{Codec, Key, Keyring, Seal};
use mrtr_core::{Server, ServerConfig, TraceEvent};
use mrtr_world::checks::{symbols, StatusWords};

/// Server settings shared by both fronts. Its `Debug` names each key by its id only, and a
/// Redis URL without its credentials: options end up in logs and panics.
#[derive(Clone)]
pub struct ServerOptions {
    /// A ticket's lifetime in seconds (`--ttl`), 1 to [`MAX_TTL_S`].
    pub ttl_s: u64,
    /// Refuse a ticket's second redemption (`--single-use`).
    pub single_use: bool,
    /// Signed (readable) or sealed (unreadable) tickets (`--seal`).
    pub seal: Seal,
    /// The shared secrets by key id, the signing key first; replicas holding the same keys
    /// accept each other's tickets.
    pub keys: Vec<(String, Vec<u8>)>,
    /// Print every check's outcome on stderr (`--log-checks`).
    pub log_checks: bool,
    /// Where single use remembers redemptions and where tasks live: `redis://…`,
    /// `redis+sentinel://…` or `etcd://…` to share both between replicas; `None` for this
    /// process's memory (a task is then served only by the process that started it).
    pub redemption: Option<String>,
    /// This process's name in log lines.
    pub name: String,
    /// Checks turned off on purpose (`--unsafe-skip-check`): a teaching server, never a real one.
    pub skip_checks: Vec<Check>,
    /// How many unexpired redemptions this process's own memory holds at most
    /// (`--single-use-capacity`); past it, redemptions are refused as "memory full".
    pub single_use_capacity: usize,
    /// UNSAFE, for the cluster checker's self-test only: an etcd store that claims without
    /// the transaction's guard (`--unsafe-unguarded-store`).
    pub unguarded_store: bool,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys: Vec<String> = self
            .keys
            .iter()
            .map(|(id, secret)| format!("{id} ({} bytes, not shown)", secret.len()))
            .collect();
        // redis://user:password@host…: the part before '@' is credentials.
        let redemption = self
            .redemption
            .as_deref()
            .map(|url| match url.split_once("://") {
                Some((scheme, rest)) => match rest.rsplit_once('@') {
                    Some((_, host)) => format!("{scheme}://…@{host}"),
                    None => url.to_owned(),
                },
                None => url.to_owned(),
            });
        f.debug_struct("ServerOptions")
            .field("ttl_s", &self.ttl_s)
            .field("single_use", &self.single_use)
            .field("seal", &self.seal)
            .field("keys", &keys)
            .field("log_checks", &self.log_checks)
            .field("redemption", &redemption)
            .field("name", &self.name)
            .field("skip_checks", &self.skip_checks)
            .field("single_use_capacity", &self.single_use_capacity)
            .field("unguarded_store", &self.unguarded_store)
            .finish()
    }
}

/// One process, its own memory, signed tickets of the default lifetime, no key yet: callers
/// name the fields they mean and take the rest with `..ServerOptions::default()`, so a field
/// added later does not break them (the fuzz targets once did not build for a new field).
impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            ttl_s: mrtr_core::ServerConfig::default().ttl_s,
            single_use: false,
            seal: Seal::default(),
            keys: Vec::new(),
            log_checks: false,
            redemption: None,
            name: "mrtr-server".into(),
            skip_checks: Vec::new(),
            single_use_capacity: MemoryStore::DEFAULT_CAPACITY,
            unguarded_store: false,
        }
    }
}

impl ServerOptions {
    /// The engine these options describe, serving the full demo catalog, with a Redis
    /// redemption store when one is named. `Err` in a sentence for a lifetime out of range,
    /// a bad or duplicated key, `--redemption` without `--single-use`, or a Redis URL the
    /// store cannot use.
    pub fn build(&self) -> Result<Server, String> {
        check_ttl(self.ttl_s)?;
        let keys = self
            .keys
            .iter()
            .map(|(id, secret)| {
                Key::new(id.clone(), secret).map_err(|e| format!("key {id:?}: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let keyring = Keyring::of(keys).map_err(|e| e.to_string())?;
        let config = ServerConfig {
            ttl_s: self.ttl_s,
            policy: {
                let mut p = CheckPolicy {
                    single_use: self.single_use,
                    ..CheckPolicy::default()
                };
                for c in &self.skip_checks {
                    p.set(*c, false);
                }
                p
            },
            ..ServerConfig::default()
        };
        let server = Server::new(
            config,
            Codec::new(keyring, self.seal),
            mrtr_core::fixtures::full_catalog(),
        );
        match (&self.redemption, self.single_use) {
            // The memory in this process begins now: a restart (with the same key) forgets
            // every redemption, so tickets minted before it are refused, not accepted again.
            // It mints nothing until the next whole second, so no ticket of its own is
            // minted in the second its memory began (that second is refused).
            (None, _) => {
                use mrtr_core::Clock;
                let now_ms = crate::os::SystemClock.now_ms();
                let began = MemoryStore::new(self.single_use_capacity).beginning_at(now_ms / 1000);
                if self.single_use {
                    std::thread::sleep(std::time::Duration::from_millis(1000 - now_ms % 1000));
                }
                Ok(server.with_store(Box::new(began)))
            }
            (Some(url), true) if url.starts_with("etcd://") => {
                let store = Arc::new(EtcdStore::open(
                    url,
                    etcd_store::DEFAULT_TIMEOUT,
                    &self.name,
                    self.unguarded_store,
                )?);
                Ok(shares(server, store))
            }
            (Some(url), true) => {
                let store = Arc::new(RedisStore::open(
                    url,
                    redis_store::DEFAULT_TIMEOUT,
                    &self.name,
                )?);
                Ok(shares(server, store))
            }
            (Some(_), false) => Err(
                "--redemption names where single use remembers redemptions; add --single-use"
                    .into(),
            ),
        }
    }

    /// True when redemptions go over the network (the HTTP front then runs requests where
    /// they may block).
    pub fn remote_store(&self) -> bool {
        self.single_use && self.redemption.is_some()
    }
}

/// A server whose redemptions and tasks both live in one shared store: every replica naming
/// it refuses the others' repeats and serves the others' tasks.
fn shares<S>(server: Server, store: Arc<S>) -> Server
where
    S: mrtr_core::redemption::RedemptionStore + mrtr_core::tasks::TaskStore + Send + Sync + 'static,
{
    server
        .with_store(Box::new(store.clone()))
        .with_task_store(Box::new(store))
}

/// The longest ticket lifetime a server takes: a year. A ticket is a bearer credential for
/// one call; a lifetime beyond this is a mistake (and near `u64::MAX` would overflow the
/// clock it is added to).
pub const MAX_TTL_S: u64 = 365 * 24 * 60 * 60;

/// Reads `--ttl`: whole seconds, 1 to [`MAX_TTL_S`].
pub fn parse_ttl(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|_| !text.trim().starts_with('+'))
        .map_or_else(|| Err(ttl_range()), |t| check_ttl(t).map(|_| t))
}

fn check_ttl(ttl_s: u64) -> Result<(), String> {
    if (1..=MAX_TTL_S).contains(&ttl_s) {
        Ok(())
    } else {
        Err(ttl_range())
    }
}

fn ttl_range() -> String {
    format!("a ticket lifetime is a whole number of seconds from 1 to {MAX_TTL_S} (one year)")
}

/// The longest a client waits for one answer (`--probe-timeout`, `--timeout`): an hour.
pub const MAX_WAIT_S: u64 = 60 * 60;

/// Reads a wait in seconds (fractions allowed): above 0 and at most [`MAX_WAIT_S`].
pub fn parse_wait(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0 && *s <= MAX_WAIT_S as f64)
        .ok_or_else(|| {
            format!("a wait is a number of seconds above 0 and at most {MAX_WAIT_S} (an hour)")
        })
}

/// Reads a key given as hex; at least 32 bytes.
pub fn parse_key_hex(hex_text: &str) -> Result<Vec<u8>, String> {
    if hex_text.trim().is_empty() {
        return Err(format!(
            "the key is empty; give at least {} bytes as hex ({} hex digits)",
            mrtr_core::ticket::MIN_KEY_LEN,
            2 * mrtr_core::ticket::MIN_KEY_LEN
        ));
    }
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

/// Reads named keys, `ID=HEX` each, from flags or a comma-separated list (`MRTR_KEYS`); at
/// least one. Errors name the key id, never the secret.
pub fn parse_named_keys<'a>(
    specs: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    specs
        .into_iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|spec| {
            let (id, hex_text) = spec
                .split_once('=')
                .ok_or("a key is ID=HEX (for example k2=…); one was given without an id")?;
            let id = id.trim();
            if id.is_empty()
                || !id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
            {
                return Err(format!(
                    "key id {id:?}: use letters, digits, '-', '_' or '.'"
                ));
            }
            let secret = parse_key_hex(hex_text).map_err(|e| format!("key {id:?}: {e}"))?;
            Ok((id.to_owned(), secret))
        })
        .collect::<Result<Vec<_>, String>>()
        .and_then(|keys| {
            if keys.is_empty() {
                Err("no key given; give ID=HEX, at least 32 bytes as hex".into())
            } else {
                Ok(keys)
            }
        })
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
            format!("checks {}: {}", symbols(verdict), parts.join(", "))
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
        TraceEvent::Task(e) => {
            use mrtr_core::tasks::TaskEvent;
            match e {
                TaskEvent::Created { id, status } => {
                    format!("started task {id} ({})", status.as_str())
                }
                TaskEvent::Moved { id, from, to } => {
                    format!("task {id}: {} -> {}", from.as_str(), to.as_str())
                }
                TaskEvent::Answered { id, keys } => {
                    format!("task {id}: answered {}", keys.join(", "))
                }
                TaskEvent::Ignored { id, keys } => {
                    format!(
                        "task {id}: ignored answers under {} (not open)",
                        keys.join(", ")
                    )
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_are_one_second_to_a_year() {
        assert_eq!(parse_ttl("120"), Ok(120));
        assert_eq!(parse_ttl("1"), Ok(1));
        assert_eq!(parse_ttl("31536000"), Ok(MAX_TTL_S));
        for bad in [
            "0",
            "31536001",
            "18446744073709551615",
            "99999999999999999999999",
            "-1",
            "+5",
            "1.5",
            "",
            "2m",
        ] {
            let e = parse_ttl(bad).unwrap_err();
            assert!(e.contains("from 1 to 31536000 (one year)"), "{bad}: {e}");
        }
        let opts = ServerOptions {
            ttl_s: u64::MAX,
            keys: vec![("k1".into(), vec![1; 32])],
            name: "t".into(),
            ..ServerOptions::default()
        };
        assert!(opts.build().is_err(), "a library caller is held to it too");
    }

    #[test]
    fn debug_shows_no_key_and_no_redis_password() {
        let opts = ServerOptions {
            single_use: true,
            keys: vec![("k1".into(), b"0123456789abcdef0123456789abcdef".to_vec())],
            redemption: Some("redis://admin:hunter2@127.0.0.1:6379/0".into()),
            name: "t".into(),
            ..ServerOptions::default()
        };
        let shown = format!("{opts:?}");
        for secret in ["0123456789abcdef", "48, 49, 50", "hunter2", "admin"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("k1 (32 bytes, not shown)"), "{shown}");
        assert!(shown.contains("redis://…@127.0.0.1:6379/0"), "{shown}");
    }

    #[test]
    fn waits_are_above_zero_and_at_most_an_hour() {
        assert_eq!(parse_wait("0.5"), Ok(0.5));
        assert_eq!(parse_wait("3600"), Ok(3600.0));
        for bad in [
            "0", "-1", "nan", "NaN", "inf", "-inf", "1e300", "3600.5", "", "ten",
        ] {
            assert!(
                parse_wait(bad)
                    .unwrap_err()
                    .contains("above 0 and at most 3600"),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_empty_key_is_an_error_not_a_missing_one() {
        assert!(parse_key_hex("").unwrap_err().contains("the key is empty"));
        assert!(parse_key_hex("  ")
            .unwrap_err()
            .contains("the key is empty"));
        for empty in ["", ",", " , "] {
            let e = parse_named_keys([empty]).unwrap_err();
            assert!(e.contains("no key given"), "{empty:?}: {e}");
        }
        assert!(parse_named_keys(Vec::<&str>::new()).is_err());
    }

    #[test]
    fn keys_are_hex_and_long_enough() {
        assert_eq!(parse_key_hex(&"ab".repeat(32)).unwrap().len(), 32);
        assert!(parse_key_hex("abcd").unwrap_err().contains("at least 32"));
        assert!(parse_key_hex("zz").unwrap_err().contains("not hex"));
    }

    #[test]
    fn named_keys_keep_their_order_and_never_echo_the_secret() {
        let hex = "ab".repeat(32);
        let keys = parse_named_keys([format!("k2={hex}, k1={hex}").as_str()]).unwrap();
        assert_eq!(
            keys.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(),
            ["k2", "k1"]
        );
        for bad in [
            hex.clone(),
            format!("={hex}"),
            format!("k 1={hex}"),
            "k1=abcd".into(),
        ] {
            let e = parse_named_keys([bad.as_str()]).unwrap_err();
            assert!(!e.contains(&hex) && !e.contains("abcd"), "{e}");
        }
        let opts = ServerOptions {
            keys: vec![("k1".into(), vec![1; 32]), ("k1".into(), vec![2; 32])],
            name: "t".into(),
            ..ServerOptions::default()
        };
        assert!(opts.build().unwrap_err().contains("k1"));
        let opts = ServerOptions {
            keys: vec![("k1".into(), vec![1; 32])],
            redemption: Some("redis://127.0.0.1:1".into()),
            ..opts
        };
        assert!(opts.build().unwrap_err().contains("--single-use"));
    }
}
