//! mrtr-bench: ticket round trips per second against an MCP server over HTTP. One round trip
//! is the whole MRTR exchange: call deploy → input_required with a ticket → retry with the
//! answer and the ticket → verified and completed. Same client load for every server.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::json;

use mrtr_core::wire::ClientCapabilities;
use mrtr_core::{AgreeableHost, Client, Step};
use mrtr_native::transport::{HttpTransport, Transport};

#[derive(Parser, Debug)]
#[command(name = "mrtr-bench", about = "Ticket round trips per second over HTTP")]
struct Args {
    /// The server's MCP endpoint.
    url: String,
    /// How long to measure, after a one-second warm-up.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Client threads, each with its own connection.
    #[arg(long, default_value_t = 4)]
    clients: usize,
}

fn round_trip(t: &mut HttpTransport, client: &mut Client) -> Result<(), String> {
    let mut host = AgreeableHost::with(json!({"confirm": true}));
    let (mut call, mut msg) = client.begin(
        "tools/call",
        json!({"name": "deploy", "arguments": {"env": "staging"}}),
    );
    let mut rounds = 0;
    loop {
        let resp = t.request(&msg, &mut |_| json!({}))?;
        rounds += 1;
        match client.on_response(&mut call, &resp, &mut host) {
            Step::Retry(next) => msg = next,
            Step::Complete(r) => {
                let text = r
                    .pointer("/content/0/text")
                    .and_then(|v| v.as_str())
                    .unwrap_or("");
                return if rounds == 2 && text.starts_with("deployed to") {
                    Ok(())
                } else {
                    Err(format!("unexpected result after {rounds} rounds: {r}"))
                };
            }
            Step::Failed(e) => return Err(e.to_string()),
        }
    }
}

fn main() {
    let args = Args::parse();
    let done = Arc::new(AtomicU64::new(0));
    let total = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..args.clients)
        .map(|_| {
            let (done, total, failed, measuring, stop, url) = (
                done.clone(),
                total.clone(),
                failed.clone(),
                measuring.clone(),
                stop.clone(),
                args.url.clone(),
            );
            std::thread::spawn(move || {
                let mut t = HttpTransport::new(&url, Some("bob-token".into()), false);
                let mut client = Client::new(
                    ClientCapabilities {
                        elicitation_form: true,
                        ..Default::default()
                    },
                    "mrtr-bench",
                    "1",
                );
                while !stop.load(Ordering::Relaxed) {
                    let ok = round_trip(&mut t, &mut client);
                    if ok.is_ok() {
                        total.fetch_add(1, Ordering::Relaxed);
                    }
                    if measuring.load(Ordering::Relaxed) {
                        match ok {
                            Ok(()) => done.fetch_add(1, Ordering::Relaxed),
                            Err(e) => {
                                if failed.fetch_add(1, Ordering::Relaxed) == 0 {
                                    eprintln!("mrtr-bench: {e}");
                                }
                                0
                            }
                        };
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    measuring.store(true, Ordering::Relaxed);
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs(args.seconds));
    measuring.store(false, Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let n = done.load(Ordering::Relaxed);
    println!(
        "{{\"round_trips\":{n},\"total\":{},\"failed\":{},\"seconds\":{elapsed:.2},\"per_second\":{:.1}}}",
        total.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed),
        n as f64 / elapsed
    );
}
