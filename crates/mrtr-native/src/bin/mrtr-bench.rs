//! mrtr-bench: ticket round trips per second against an MCP server over HTTP. One round trip
//! is the whole MRTR exchange: call deploy → input_required with a ticket → retry with the
//! answer and the ticket → verified and completed ("deployed to …").
//!
//! The load generator is deliberately thin (keep-alive HTTP/1.1 over a plain socket, bodies
//! written as text, the ticket cut out of the response without a JSON parser) so that on a
//! small machine it is the servers, not the client, that are measured. Same load for every
//! server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;

#[derive(Parser, Debug)]
#[command(name = "mrtr-bench", about = "Ticket round trips per second over HTTP")]
struct Args {
    /// The server's MCP endpoint, http://HOST:PORT/PATH.
    url: String,
    /// How long to measure, after a one-second warm-up.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Client threads, each with its own keep-alive connection.
    #[arg(long, default_value_t = 4)]
    clients: usize,
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mrtr-bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    host: String,
    path: String,
}

impl Conn {
    fn open(host: &str, path: &str) -> Result<Conn, String> {
        let s = TcpStream::connect(host).map_err(|e| format!("connect {host}: {e}"))?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let writer = s.try_clone().map_err(|e| e.to_string())?;
        Ok(Conn {
            reader: BufReader::new(s),
            writer,
            host: host.to_owned(),
            path: path.to_owned(),
        })
    }

    /// One POST; returns the body (chunked or sized).
    fn post(&mut self, body: &str) -> Result<String, String> {
        let req = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: deploy\r\nAuthorization: Bearer bob-token\r\nContent-Length: {}\r\n\r\n{body}",
            self.path,
            self.host,
            body.len()
        );
        self.writer
            .write_all(req.as_bytes())
            .map_err(|e| format!("write: {e}"))?;
        let mut length = None;
        let mut chunked = false;
        let mut line = String::new();
        loop {
            line.clear();
            if self
                .reader
                .read_line(&mut line)
                .map_err(|e| format!("read: {e}"))?
                == 0
            {
                return Err("the server closed the connection".into());
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let lower = l.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse::<usize>().ok();
            } else if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            }
        }
        let mut out = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.reader
                    .read_line(&mut line)
                    .map_err(|e| format!("read: {e}"))?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or("0"), 16)
                    .map_err(|e| format!("chunk size: {e}"))?;
                let mut chunk = vec![0u8; size + 2];
                self.reader
                    .read_exact(&mut chunk)
                    .map_err(|e| format!("read: {e}"))?;
                if size == 0 {
                    break;
                }
                out.extend_from_slice(&chunk[..size]);
            }
        } else {
            let n = length.ok_or("no Content-Length")?;
            out.resize(n, 0);
            self.reader
                .read_exact(&mut out)
                .map_err(|e| format!("read: {e}"))?;
        }
        String::from_utf8(out).map_err(|e| e.to_string())
    }
}

/// The ticket in an input_required response, or, for an SSE body, in its data line.
fn ticket_of(body: &str) -> Option<&str> {
    let start = body.find("\"requestState\":\"")? + "\"requestState\":\"".len();
    let end = body[start..].find('"')? + start;
    Some(&body[start..end])
}

fn round_trip(c: &mut Conn, id: &mut u64) -> Result<(), String> {
    *id += 1;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"deploy","arguments":{{"env":"staging"}}}}}}"#
    );
    let first = c.post(&call)?;
    let ticket = ticket_of(&first).ok_or_else(|| {
        format!(
            "no ticket in {}",
            first.chars().take(200).collect::<String>()
        )
    })?;
    *id += 1;
    let retry = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"deploy","arguments":{{"env":"staging"}},"inputResponses":{{"confirm":{{"action":"accept","content":{{"confirm":true}}}}}},"requestState":"{ticket}"}}}}"#
    );
    let done = c.post(&retry)?;
    if done.contains("deployed to") {
        Ok(())
    } else {
        Err(format!(
            "unexpected retry result {}",
            done.chars().take(200).collect::<String>()
        ))
    }
}

fn split_url(url: &str) -> Result<(String, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or("the URL must start with http://")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    Ok((host.to_owned(), format!("/{path}")))
}

/// The `p`th percentile of sorted microseconds, in milliseconds (nearest rank; 0 for none).
fn percentile_ms(sorted_us: &[u32], p: usize) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let rank = (sorted_us.len() * p)
        .div_ceil(100)
        .clamp(1, sorted_us.len());
    f64::from(sorted_us[rank - 1]) / 1000.0
}

/// What the clients counted, shared by all of them.
#[derive(Default)]
struct Counters {
    /// Round trips that succeeded while measuring.
    done: AtomicU64,
    /// Round trips that succeeded, warm-up included.
    total: AtomicU64,
    /// Round trips that failed while measuring.
    failed: AtomicU64,
    /// Whether the measured window is open.
    measuring: AtomicBool,
    /// Whether the clients should stop.
    stop: AtomicBool,
}

fn main() {
    let args = Args::parse();
    let (host, path) = match split_url(&args.url) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("mrtr-bench: {e}");
            std::process::exit(2);
        }
    };
    let counts = Arc::new(Counters::default());
    let threads: Vec<_> = (0..args.clients)
        .map(|n| {
            let (counts, host, path) = (counts.clone(), host.clone(), path.clone());
            std::thread::spawn(move || client(n, &host, &path, &counts))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    counts.measuring.store(true, Ordering::Relaxed);
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs(args.seconds));
    counts.measuring.store(false, Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    counts.stop.store(true, Ordering::Relaxed);
    let mut took_us: Vec<u32> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap_or_default())
        .collect();
    took_us.sort_unstable();
    let n = counts.done.load(Ordering::Relaxed);
    println!(
        "{{\"round_trips\":{n},\"total\":{},\"failed\":{},\"seconds\":{elapsed:.2},\"per_second\":{:.1},\"p50_ms\":{:.2},\"p99_ms\":{:.2}}}",
        counts.total.load(Ordering::Relaxed),
        counts.failed.load(Ordering::Relaxed),
        n as f64 / elapsed,
        percentile_ms(&took_us, 50),
        percentile_ms(&took_us, 99),
    );
}

/// Client `n`: round trips one after another on one connection (reopened when it breaks)
/// until told to stop; each measured round trip's time, in microseconds.
fn client(n: usize, host: &str, path: &str, counts: &Counters) -> Vec<u32> {
    let mut conn = None;
    let mut id = (n as u64) << 40;
    let mut took_us: Vec<u32> = Vec::new();
    while !counts.stop.load(Ordering::Relaxed) {
        if conn.is_none() {
            conn = Conn::open(host, path).ok();
        }
        let Some(c) = conn.as_mut() else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let began = Instant::now();
        let ok = round_trip(c, &mut id);
        let took = began.elapsed();
        match &ok {
            Ok(()) => {
                counts.total.fetch_add(1, Ordering::Relaxed);
            }
            // A broken connection is reopened; the failure still counts.
            Err(_) => conn = None,
        }
        if !counts.measuring.load(Ordering::Relaxed) {
            continue;
        }
        match ok {
            Ok(()) => {
                counts.done.fetch_add(1, Ordering::Relaxed);
                took_us.push(took.as_micros().min(u32::MAX as u128) as u32);
            }
            Err(e) => {
                if counts.failed.fetch_add(1, Ordering::Relaxed) == 0 {
                    eprintln!("mrtr-bench: {e}");
                }
            }
        }
    }
    took_us
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles_are_nearest_rank() {
        let us: Vec<u32> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(super::percentile_ms(&us, 50), 50.0);
        assert_eq!(super::percentile_ms(&us, 99), 99.0);
        assert_eq!(super::percentile_ms(&[7000], 99), 7.0);
        assert_eq!(super::percentile_ms(&[], 99), 0.0);
    }

    use super::*;

    #[test]
    fn tickets_are_cut_out_of_responses() {
        assert_eq!(
            ticket_of(r#"{"result":{"requestState":"v1.a.b","x":1}}"#),
            Some("v1.a.b")
        );
        assert_eq!(ticket_of("{}"), None);
        assert_eq!(
            split_url("http://127.0.0.1:9/mcp").unwrap(),
            ("127.0.0.1:9".into(), "/mcp".into())
        );
        assert!(split_url("https://x").is_err());
    }
}
