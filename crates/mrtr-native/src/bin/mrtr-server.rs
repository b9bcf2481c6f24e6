//! mrtr-server: the MRTR Lab server over Streamable HTTP (`--http ADDR`) or stdio (`--stdio`).
//!
//! Principals follow the lesson's demo convention, not a real auth system: on HTTP,
//! `Authorization: Bearer bob-token` is bob and no header is anonymous; on stdio the one
//! process user is the principal.

use clap::{ArgGroup, Parser};
use mrtr_core::checks::Check;
use mrtr_core::ticket::Seal;
use mrtr_core::Principal;
use mrtr_native::http_front::{HttpOptions, LOOPBACK_HOSTS};
use mrtr_native::{parse_key_hex, parse_named_keys, parse_ttl, ServerOptions};
use mrtr_world::checks::CheckWords;

// A request allocates and frees many small strings and maps (its JSON, the ticket's claims):
// mimalloc does that in a fraction of glibc malloc's time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "mrtr-server",
    version,
    about = "MCP 2026-07-28 server with multi round-trip requests (and the 2025-11-25 shim on stdio)"
)]
#[command(group(ArgGroup::new("transport").required(true).args(["http", "stdio"])))]
struct Args {
    /// Serve stateless Streamable HTTP at http://ADDR/mcp (port 0 picks a free port).
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Serve newline-delimited JSON-RPC on stdin/stdout.
    #[arg(long)]
    stdio: bool,
    /// Ticket lifetime in seconds, 1 to 31536000 (a year).
    #[arg(
        long,
        default_value = "120",
        value_name = "SECONDS",
        allow_hyphen_values = true
    )]
    ttl: String,
    /// Refuse a ticket's second redemption. Without --redemption the memory of redemptions
    /// is this process's own: replicas sharing a key each remember only what they redeemed,
    /// so a repeat sent to another replica is accepted there.
    #[arg(long)]
    single_use: bool,
    /// Where single use remembers redemptions, and where tasks live, shared by every replica
    /// that names it (so any replica serves a task another started):
    /// redis://HOST:PORT[/DB] (one Redis), redis+sentinel://HOST:PORT[,…]/GROUP (the
    /// primary the Sentinels name, followed through a failover; replication is asynchronous,
    /// so a failover can lose a redemption), or etcd://HOST:PORT[,HOST:PORT…] (an etcd
    /// cluster: a write is kept once a majority of its members has it, so one member may
    /// die). When it does not answer, redemptions are refused.
    #[arg(long, value_name = "URL", requires = "single_use")]
    redemption: Option<String>,
    /// How many unexpired redemptions this process's own memory holds (without
    /// --redemption). Each is kept until its ticket expires; when it is full, redemptions
    /// are refused ("memory full"), never forgotten. The default holds the default
    /// lifetime's worth at about 8 000 redemptions a second.
    #[arg(long, value_name = "N", default_value_t = mrtr_core::redemption::MemoryStore::DEFAULT_CAPACITY, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000_000), conflicts_with = "redemption")]
    single_use_capacity: usize,
    /// UNSAFE, for the cluster checker's self-test only: an etcd store that records a
    /// redemption without the transaction's guard, so a ticket can be spent twice.
    #[arg(long, hide = true, requires = "redemption")]
    unsafe_unguarded_store: bool,
    /// hmac: signed, readable tickets; aead: sealed, unreadable tickets.
    #[arg(long, default_value = "hmac", value_parser = ["hmac", "aead"])]
    seal: String,
    /// The shared ticket key as hex (at least 32 bytes), with id k1. Replicas with the same
    /// key accept each other's tickets.
    #[arg(long, env = "MRTR_KEY", value_name = "HEX", hide_env_values = true)]
    key_hex: Option<String>,
    /// A named ticket key, ID=HEX (repeatable): the first signs, every one verifies, and a
    /// ticket is checked with the key its id names. Or MRTR_KEYS="ID=HEX,ID=HEX" (better:
    /// flags show in the process list). Roll a key by adding it last everywhere, then
    /// first, then removing the old one.
    #[arg(
        long = "key",
        env = "MRTR_KEYS",
        value_name = "ID=HEX",
        hide_env_values = true,
        value_delimiter = ',',
        conflicts_with = "key_hex"
    )]
    keys: Vec<String>,
    /// Print every check's outcome on stderr.
    #[arg(long)]
    log_checks: bool,
    /// HTTP: a host name the Host and Origin headers may name (repeatable). By default
    /// localhost, 127.0.0.1 and [::1]; others are refused with 403 (DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_host: Vec<String>,
    /// HTTP: accept any Host and Origin (only behind a proxy that checks them).
    #[arg(long, conflicts_with = "allow_host")]
    allow_any_host: bool,
    /// HTTP: a web page's origin that may call this server across origins (repeatable):
    /// http:// or https://, a host and an optional port, compared exactly; no wildcard.
    /// Answers its CORS preflight and accepts its Origin past the DNS-rebinding check.
    #[arg(long = "cors-origin", value_name = "ORIGIN", conflicts_with = "stdio")]
    cors_origin: Vec<String>,
    /// UNSAFE, for teaching and for testing mrtr-audit only: turn off one ticket check
    /// (signature, principal, expiry or request; repeatable). The server then accepts
    /// tickets it must refuse.
    #[arg(long = "unsafe-skip-check", value_name = "NAME", value_parser = ["signature", "principal", "expiry", "request"])]
    unsafe_skip_check: Vec<String>,
    /// A name for this process in its log lines, e.g. replica-a.
    #[arg(long, default_value = "mrtr-server")]
    name: String,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(args) {
        eprintln!("mrtr-server: {e}");
        std::process::exit(2);
    }
}

fn run(args: Args) -> Result<(), String> {
    let cors_origins = args
        .cors_origin
        .iter()
        .map(|o| mrtr_native::cors::parse_cors_origin(o).map_err(|e| format!("--cors-origin {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = options(&args)?;
    let server = opts.build()?;
    if let Some(url) = &opts.redemption {
        eprintln!("mrtr-server: {} remembers redemptions in {url}", args.name);
    }
    if args.stdio {
        let user = std::env::var("USER").unwrap_or_else(|_| "stdio-user".into());
        let stdin = std::io::BufReader::new(std::io::stdin());
        let stdout = std::io::stdout().lock();
        return mrtr_native::stdio_front::serve(
            &server,
            stdin,
            stdout,
            &Principal::user(user),
            opts.log_checks,
        )
        .map_err(|e| format!("stdio: {e}"));
    }
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(serve_http(args, server, opts, cors_origins))
}

/// The server's options from its flags, each warning about an unsafe one said once.
fn options(args: &Args) -> Result<ServerOptions, String> {
    let ttl_s = parse_ttl(&args.ttl).map_err(|e| format!("--ttl {:?}: {e}", args.ttl))?;
    let keys = if !args.keys.is_empty() {
        parse_named_keys(args.keys.iter().map(String::as_str))
            .map_err(|e| format!("--key (or MRTR_KEYS): {e}"))?
    } else if let Some(h) = &args.key_hex {
        let secret = parse_key_hex(h).map_err(|e| format!("--key-hex (or MRTR_KEY): {e}"))?;
        vec![("k1".to_owned(), secret)]
    } else {
        eprintln!("mrtr-server: no --key, --key-hex, MRTR_KEYS or MRTR_KEY: using a random key for this process (other replicas will refuse its tickets)");
        vec![("k1".to_owned(), mrtr_native::os::random_secret())]
    };
    let key_ids: Vec<&str> = keys.iter().map(|(id, _)| id.as_str()).collect();
    eprintln!(
        "mrtr-server: {} keys {} (signs with {})",
        args.name,
        key_ids.join(", "),
        key_ids.first().copied().unwrap_or_default()
    );
    let skip_checks: Vec<Check> = args
        .unsafe_skip_check
        .iter()
        .filter_map(|n| Check::from_id(n))
        .collect();
    for c in &skip_checks {
        eprintln!("mrtr-server: WARNING: --unsafe-skip-check {}: the {} check is OFF. This server accepts tickets it must refuse: {}. For teaching and for testing mrtr-audit only; never serve anyone with it.", c.id(), c.id(), c.stops());
    }
    if args.unsafe_unguarded_store {
        eprintln!("mrtr-server: WARNING: --unsafe-unguarded-store: redemptions are recorded without the store's guard, so a ticket can be spent twice. For the cluster checker's self-test only.");
    }
    Ok(ServerOptions {
        ttl_s,
        single_use: args.single_use,
        seal: Seal::parse(&args.seal).unwrap_or_default(),
        keys,
        log_checks: args.log_checks,
        redemption: args.redemption.clone(),
        name: args.name.clone(),
        skip_checks,
        single_use_capacity: args.single_use_capacity,
        unguarded_store: args.unsafe_unguarded_store,
    })
}

/// Serves MCP over HTTP at `--http` until Ctrl-C or SIGTERM: only to the hosts it was told
/// of (loopback's unless named), and cross-origin only to the origins given.
async fn serve_http(
    args: Args,
    server: mrtr_core::Server,
    opts: ServerOptions,
    cors_origins: Vec<String>,
) -> Result<(), String> {
    let addr = args.http.unwrap_or_default();
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let allowed_hosts = if args.allow_any_host {
        None
    } else {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
        hosts.extend(args.allow_host.iter().map(|h| h.to_ascii_lowercase()));
        if !local.ip().is_loopback() && args.allow_host.is_empty() {
            return Err(format!("listening on {local}, beyond loopback: name the host clients use with --allow-host NAME (or --allow-any-host behind a proxy that checks Host and Origin)"));
        }
        Some(hosts)
    };
    eprintln!("mrtr-server: listening on http://{local}/mcp");
    if !cors_origins.is_empty() {
        eprintln!(
            "mrtr-server: {} answers cross-origin calls from {}",
            args.name,
            cors_origins.join(", ")
        );
    }
    let cors = mrtr_native::cors::CorsOptions {
        origins: cors_origins,
        name: args.name.clone(),
        allowed_hosts: allowed_hosts.clone(),
    };
    let app = mrtr_native::http_front::router(
        server,
        HttpOptions {
            log_checks: opts.log_checks,
            allowed_hosts,
            name: args.name.clone(),
            blocking_store: opts.remote_store(),
        },
    );
    let app = mrtr_native::cors::wrap(app, cors);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown())
        .await
        .map_err(|e| e.to_string())
}

async fn shutdown() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return std::future::pending().await,
            };
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
    eprintln!("mrtr-server: shutting down");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Args::command().debug_assert();
    }
}
