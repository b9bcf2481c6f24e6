//! The stdio front: an arbitrary byte stream cut into lines by the front's own reader (with
//! a 512-byte limit, so overlong lines are reached) and served on one connection, both eras
//! (2026-07-28 stateless; 2025-11-25 once `initialize` opens it, through the legacy shim).
//! Must never panic; every message it writes is one line of a JSON-RPC 2.0 object.
//!
//! Input: one byte of options, then the stream. A line holding one NUL is not sent: the
//! clock moves on past the shim's deadline and the front ticks (as it does when nothing
//! was read for a second).
#![no_main]

use std::cell::Cell;

use libfuzzer_sys::fuzz_target;
use mrtr_core::legacy::SHIM_WAIT_S;
use mrtr_core::{CallContext, Clock, Principal, Seal, SeededEntropy};
use mrtr_native::stdio_front::{Input, Lines, Session};
use mrtr_native::ServerOptions;
use serde_json::Value;

struct StepClock(Cell<u64>);

impl Clock for StepClock {
    fn now_ms(&self) -> u64 {
        self.0.get()
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&opts, stream)) = data.split_first() else {
        return;
    };
    let server = ServerOptions {
        single_use: opts & 1 != 0,
        seal: if opts & 2 != 0 {
            Seal::Sealed
        } else {
            Seal::Signed
        },
        keys: vec![("k1".into(), vec![42; 32])],
        name: "fuzz".into(),
        ..ServerOptions::default()
    }
    .build()
    .expect("the fuzz server builds");
    let principal = if opts & 4 != 0 {
        Principal::Anonymous
    } else {
        Principal::user("fuzz")
    };
    let clock = StepClock(Cell::new(1_800_000_000_000));
    let mut rng = SeededEntropy::new(1);
    let mut session = Session::new();
    for input in Lines::new(stream, 512) {
        let delivery = match input {
            Input::Line(l) if l == b"\0" => {
                clock.0.set(clock.0.get() + (SHIM_WAIT_S + 1) * 1000);
                Some(session.tick(clock.now_ms()))
            }
            input => {
                let mut ctx = CallContext {
                    principal: &principal,
                    clock: &clock,
                    entropy: &mut rng,
                };
                session.receive(&server, input, &mut ctx)
            }
        };
        for msg in delivery.iter().flat_map(|d| &d.outgoing) {
            let line = msg.to_string();
            assert!(!line.contains('\n'), "one message, one line: {line}");
            let back: Value = serde_json::from_str(&line).expect("what is written is JSON");
            assert_eq!(back["jsonrpc"], "2.0", "{line}");
        }
    }
});
