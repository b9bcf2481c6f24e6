//! The implementers' tools' entry point: a second WebAssembly module, which the lesson's
//! module loads when "Audit your server" or "Try it on a real server" is first wanted.

fn main() {
    mrtr_lab::start_tools();
}
