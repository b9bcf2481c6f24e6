//! Request dispatch: any line through a connection that speaks both eras. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_core::legacy::Connection;
use mrtr_core::{CallContext, FixedClock, Key, Principal, SeededEntropy, Server};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let server = Server::lab(Key::new("k1", &[42u8; 32]).unwrap());
    let mut conn = Connection::new();
    let p = Principal::user("fuzz");
    let clock = FixedClock(1_800_000_000_000);
    let mut rng = SeededEntropy::new(1);
    for line in text.lines() {
        let mut ctx = CallContext {
            principal: &p,
            clock: &clock,
            entropy: &mut rng,
        };
        let _ = conn.receive_text(&server, line, &mut ctx);
        let _ = server.handle_text(line, &mut ctx);
    }
});
