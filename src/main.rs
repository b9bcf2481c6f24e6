//! Entry point of the first module: the page and the round trip (`first_screen`, no framework).

fn main() {
    mrtr_lab::start();
}
